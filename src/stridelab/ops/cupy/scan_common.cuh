// stridelab scans: what the scan kernels (scan_lines.cu, scan_cols.cu, scan_tiles.cu) share.
//
// A scan kernel is a template over K = Scan<Storage, Operator>: the storage traits (F32, F16, U32,
// U16: the stored type T, the accumulator type A, and the conversions between them) and an
// operator trait (Sum, Product: identity and combine). Kernels only ever combine through K::op, so a
// new scan operator is one more operator trait here.
//
// src and dst point at the element of coordinate 0 of each view (they may be the same view: the
// scan runs in place, each element read before it is written). The tally runs in increasing
// coordinate order; a decreasing one arrives as negative axis strides.
//
// Numerics, as on the CPU: FLOAT32 combines in float32; FLOAT16 keeps the running value in float32
// and rounds each written value once to half (round to nearest even); UINT32 and UINT16 combine in
// 32-bit unsigned arithmetic, so they wrap modulo 2**32 and, once truncated, modulo 2**16 (for sums
// and products alike). Kernels group the operations differently from a sequential loop (per lane,
// then across lanes), which changes float results by rounding only; integers are exact. A running
// value starts at K::identity() (for sums -0.0, the identity of IEEE addition: the first tally is
// the first element, a -0.0 included, as in np.cumsum); an exclusive scan writes K::first() first
// (Geo.exclusive == 1: +0 for sums, 1 for products) or, for the chunk totals of a long axis, the
// identity (Geo.exclusive == 2). Loads past the end of an axis read zeros, for every operator: the
// values they pad come after every element of the line in scan order, so they reach no written
// value, only the tally of a line's last chunk, which no later chunk uses (an exclusive scan of
// the chunk totals leaves each chunk's own total out).

// Storage traits.
struct F32 {
    typedef float T;
    typedef float A;
    static constexpr bool PAIRS = false;
    static __device__ __forceinline__ A in(T v) { return v; }
    static __device__ __forceinline__ T out(A a) { return a; }
};
struct F16 {  // stored as its 16 bits
    typedef unsigned short T;
    typedef float A;
    static constexpr bool PAIRS = true;  // out2: two values rounded by one instruction
    static __device__ __forceinline__ A in(T v) {
        float f;
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v));
        return f;
    }
    static __device__ __forceinline__ T out(A a) {
        unsigned short h;
        asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(a));
        return h;
    }
    // lo and hi rounded as out() rounds them, packed in one word (lo in the low half).
    static __device__ __forceinline__ unsigned int out2(A lo, A hi) {
#if __CUDA_ARCH__ >= 800
        unsigned int w;
        asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
        return w;
#else
        return (unsigned int)out(lo) | ((unsigned int)out(hi) << 16);
#endif
    }
};
struct U32 {
    typedef unsigned int T;
    typedef unsigned int A;
    static constexpr bool PAIRS = false;
    static __device__ __forceinline__ A in(T v) { return v; }
    static __device__ __forceinline__ T out(A a) { return a; }
};
struct U16 {
    typedef unsigned short T;
    typedef unsigned int A;
    static constexpr bool PAIRS = false;
    static __device__ __forceinline__ A in(T v) { return v; }
    static __device__ __forceinline__ T out(A a) { return (unsigned short)a; }
};

// Operator traits: the identity of the running value, the first value of an exclusive scan, and
// how two values combine.
struct Sum {
    template <typename S> static __device__ __forceinline__ typename S::A identity() {
        return typename S::A(0) * typename S::A(-1);  // -0.0 for floats, 0 for integers
    }
    template <typename S> static __device__ __forceinline__ typename S::A first() { return typename S::A(0); }
    template <typename A> static __device__ __forceinline__ A combine(A a, A b) { return a + b; }
};
struct Product {
    template <typename S> static __device__ __forceinline__ typename S::A identity() { return typename S::A(1); }
    template <typename S> static __device__ __forceinline__ typename S::A first() { return typename S::A(1); }
    template <typename A> static __device__ __forceinline__ A combine(A a, A b) { return a * b; }
};

// A scan: storage S combined by operator O.
template <typename S, typename O>
struct Scan : S {
    typedef typename S::T T;
    typedef typename S::A A;
    static __device__ __forceinline__ A identity() { return O::template identity<S>(); }
    static __device__ __forceinline__ A first() { return O::template first<S>(); }
    static __device__ __forceinline__ A op(A a, A b) { return O::combine(a, b); }
};

// Inclusive scan of tot over segments of L consecutive lanes (p = position in the segment; L a
// power of two, at most MAXL): excl combines the segment's earlier lanes, seg the segment's
// total. The shuffles span the warp and a lane adds only values from its own segment (p >= off),
// so the steps are a straight line of log2(MAXL) whatever L is: a loop over a run-time L cost a
// branch and a convergence check per step.
template <typename K, int MAXL, typename A>
__device__ __forceinline__ void sl_warp_scan(A tot, int L, int p, A& excl, A& seg) {
    A incl = tot;
#pragma unroll
    for (int off = 1; off < MAXL; off <<= 1) {
        const A y = __shfl_up_sync(0xffffffffu, incl, off);
        if (p >= off) incl = K::op(incl, y);
    }
    const A before = __shfl_up_sync(0xffffffffu, incl, 1);
    excl = p == 0 ? K::identity() : before;
    seg = __shfl_sync(0xffffffffu, incl, (threadIdx.x & 31) | (L - 1));
}

// Value of element j of a group whose inclusive local sums are run[] and whose earlier elements
// sum to base, before rounding to the stored type; first: element j is the first of its line
// (exclusive mode 1 writes K::first()).
template <typename K, int V>
__device__ __forceinline__ typename K::A sl_value(typename K::A base, const typename K::A (&run)[V], int j,
                                                  int exclusive, bool first) {
    if (!exclusive) return K::op(base, run[j]);
    if (j != 0) return K::op(base, run[j == 0 ? 0 : j - 1]);
    return first && exclusive == 1 ? K::first() : base;
}

// V values rounded to the stored type, as one pack (pairs of float16 by one conversion each).
template <typename K, int V>
__device__ __forceinline__ Pack<typename K::T, V> sl_round(const typename K::A (&r)[V]) {
    if constexpr (K::PAIRS && V % 2 == 0) {
        Pack<unsigned int, V / 2> w;
#pragma unroll
        for (int j = 0; j < V; j += 2) w.v[j / 2] = K::out2(r[j], r[j + 1]);
        return sl_bits<Pack<typename K::T, V>>(w);
    } else {
        Pack<typename K::T, V> o;
#pragma unroll
        for (int j = 0; j < V; ++j) o.v[j] = K::out(r[j]);
        return o;
    }
}

// Group of V consecutive axis elements starting at k, as stored, zeros past k1: V == 1, one
// element at stride sa; V > 1, |stride| == 1 and one aligned vector, in memory order (REV: stride
// -1, the vector ending at element k, so element j of the group is v[V - 1 - j]). The group stays
// in its storage type until it is scanned, so a lane's loads in flight take as few registers as the
// bytes they hold, and a vector is loaded (or zeroed) as whole words: chosen element by element,
// 2-byte elements cost a byte permutation each.
template <typename K, int V, bool REV>
__device__ __forceinline__ Pack<typename K::T, V> sl_load_group(const typename K::T* src, long long so, long long k,
                                                                long long k1, long long sa) {
    typedef Pack<typename K::T, V> P;
    if constexpr (V == 1) {
        return k < k1 ? P{{src[so + k * sa]}} : P{};
    } else {
        typedef typename Words<sizeof(P)>::type W;
        W w{};
        if (k < k1) w = *reinterpret_cast<const W*>(src + (REV ? so - k - (V - 1) : so + k));
        return sl_bits<P>(w);
    }
}

// Group of V values r[] of consecutive axis elements starting at k, rounded and stored (REV: at
// stride -1, as one vector ending at element k).
template <typename K, int V, bool REV>
__device__ __forceinline__ void sl_store_group(typename K::T* dst, long long dO, long long k, long long da,
                                               const typename K::A (&r)[V]) {
    if (V == 1) {
        dst[dO + k * da] = K::out(r[0]);
    } else if (!REV) {
        sl_store(dst + dO + k, sl_round<K, V>(r));
    } else {
        typename K::A m[V];  // memory order
#pragma unroll
        for (int j = 0; j < V; ++j) m[j] = r[V - 1 - j];
        sl_store(dst + dO - k - (V - 1), sl_round<K, V>(m));
    }
}
