// stridelab CUDA kernels: definitions shared by copy.cu and the scan_*.cu files.
//
// The loader (stridelab/ops/cupy/runtime.py) prepends this file to each kernel file and compiles the
// result with NVRTC through cupy.RawModule, instantiating the templates it names. Every index is
// 64-bit: tensors of more than 2**31 elements and buffers of more than 4 GiB are ordinary here.

#define SL_MAX_DIMS 8
#define SL_THREADS 256

// The geometry of one launch, passed by value. Every field is a 64-bit integer so that the host
// can fill it as a flat int64 array (stridelab/ops/cupy/geometry.py, GEO_FIELDS, keeps the order;
// tests/test_cuda_sources.py checks it).
struct Geo {
    long long n[SL_MAX_DIMS];  // sizes of the outer dimensions, innermost first
    long long s[SL_MAX_DIMS];  // their source strides (elements)
    long long d[SL_MAX_DIMS];  // their destination strides (elements)
    long long nd;              // number of outer dimensions, 0 to 8
    long long rows;            // product of the outer sizes
    long long nx, sx, dx;      // dimension X: size, source stride, destination stride
    long long ny, sy, dy;      // dimension Y
    long long na, sa, da;      // the scan axis
    long long chunk, nchunks;  // the axis is cut into nchunks pieces of chunk elements
    long long tiles_x, tiles_y;
    long long nblocks;         // logical blocks; kernels loop over them with a grid stride
    long long lanes;           // lanes of a warp per line (scan_lines): 1, 2, 4, 8, 16 or 32
    long long exclusive;       // 1: exclusive scan
};

// a / b (and the remainder) for a >= 0 and b > 0, in 32-bit arithmetic where both fit: a 64-bit
// division is a long software routine, which a kernel doing little per thread otherwise pays.
__device__ __forceinline__ long long sl_div(long long a, long long b, long long& rem) {
    if ((((unsigned long long)a | (unsigned long long)b) >> 32) == 0) {
        const unsigned int q = (unsigned int)a / (unsigned int)b;
        rem = (long long)((unsigned int)a - q * (unsigned int)b);
        return q;
    }
    const long long q = a / b;
    rem = a - q * b;
    return q;
}

// Element offsets (source and destination) of outer row r: r is split over the outer dimensions,
// innermost first.
__device__ __forceinline__ void sl_decompose(const Geo& g, long long r, long long& so, long long& dO) {
    so = 0;
    dO = 0;
#pragma unroll
    for (int i = 0; i < SL_MAX_DIMS; ++i) {
        if (i >= g.nd) break;
        long long c;
        r = sl_div(r, g.n[i], c);
        so += c * g.s[i];
        dO += c * g.d[i];
    }
}

// Block b of a grid of tiles_x x tiles_y tiles of TX x TY per outer row: the first X and Y of
// its tile and the element offsets (source and destination) of its outer row.
template <int TX, int TY = TX>
__device__ __forceinline__ void sl_tile_block(const Geo& g, long long b, long long& x0, long long& y0, long long& so,
                                              long long& dO) {
    long long tx, ty;
    const long long row = sl_div(sl_div(b, g.tiles_x, tx), g.tiles_y, ty);
    x0 = tx * TX;
    y0 = ty * TY;
    sl_decompose(g, row, so, dO);
}

// Unsigned words of each element size: copies move bits, whatever the data type.
template <int N> struct Bits;
template <> struct Bits<1> { typedef unsigned char type; };
template <> struct Bits<2> { typedef unsigned short type; };
template <> struct Bits<4> { typedef unsigned int type; };
template <> struct Bits<8> { typedef unsigned long long type; };

// V elements moved by one aligned load or store (16 bytes at most).
template <typename T, int V> struct alignas(sizeof(T) * V) Pack {
    T v[V];
};

// 32-bit words of N bytes (a Pack moved as words).
template <int N> struct Words;
template <> struct Words<4> { typedef unsigned int type; };
template <> struct Words<8> { typedef uint2 type; };
template <> struct Words<16> { typedef uint4 type; };

// The bits of a value of one type as another of the same size (a Pack as words, or words as a
// Pack), through a union rather than a pointer cast, which aliasing rules leave undefined (NVRTC
// has no __builtin_memcpy); the copy is register moves.
template <typename To, typename From>
__device__ __forceinline__ To sl_bits(const From& from) {
    static_assert(sizeof(To) == sizeof(From), "same size");
    union {
        From from;
        To to;
    } u{from};
    return u.to;
}

// A Pack of 8 or 16 bytes stored in one instruction of its full width: NVVM stored such Packs,
// assembled in registers, through a Pack pointer as 4-byte pieces (a 16-byte one in four), and a
// warp's narrow stores cost as many store instructions and L1 wavefronts. Smaller Packs are stored
// as the compiler chooses (4-byte ones of 2-byte elements go out as two halves, which timed faster
// than one 4-byte store: benchmarks/RESULTS.md, "Planner tuning").
template <typename P>
__device__ __forceinline__ void sl_store(void* at, const P& p) {
    if constexpr (sizeof(P) == 16) {
        const uint4 w = sl_bits<uint4>(p);
        asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(__cvta_generic_to_global(at)), "r"(w.x), "r"(w.y),
                     "r"(w.z), "r"(w.w)
                     : "memory");
    } else if constexpr (sizeof(P) == 8) {
        const uint2 w = sl_bits<uint2>(p);
        asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(__cvta_generic_to_global(at)), "r"(w.x), "r"(w.y)
                     : "memory");
    } else {
        *reinterpret_cast<P*>(at) = p;
    }
}
