// stridelab CUDA kernels: definitions shared by copy.cu and scan.cu.
//
// The loader (stridelab/ops/_cupy.py) prepends this file to each kernel file and compiles the
// result with NVRTC through cupy.RawModule, instantiating the templates it names. Every index is
// 64-bit: tensors of more than 2**31 elements and buffers of more than 4 GiB are ordinary here.

#define SL_MAX_DIMS 8
#define SL_THREADS 256

// The geometry of one launch, passed by value. Every field is a 64-bit integer so that the host
// can fill it as a flat int64 array (stridelab/ops/_cupy_plan.py, GEO_FIELDS, keeps the order).
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

// Element offsets (source and destination) of outer row r: r is split over the outer dimensions,
// innermost first, with 32-bit division where the numbers allow it.
__device__ __forceinline__ void sl_decompose(const Geo& g, long long r, long long& so, long long& dO) {
    so = 0;
    dO = 0;
#pragma unroll
    for (int i = 0; i < SL_MAX_DIMS; ++i) {
        if (i >= g.nd) break;
        const long long n = g.n[i];
        long long q, c;
        if ((((unsigned long long)r | (unsigned long long)n) >> 32) == 0) {
            const unsigned int q32 = (unsigned int)r / (unsigned int)n;
            q = q32;
            c = (long long)((unsigned int)r - q32 * (unsigned int)n);
        } else {
            q = r / n;
            c = r - q * n;
        }
        so += c * g.s[i];
        dO += c * g.d[i];
        r = q;
    }
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
