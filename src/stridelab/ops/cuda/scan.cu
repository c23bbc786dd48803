// stridelab scans: the running tally along one axis (CUMULATIVE_SUMMATION).
//
// src and dst point at the element of coordinate 0 of each view (they may be the same view: the
// scan runs in place, each element read before it is written). The tally runs in increasing
// coordinate order; a decreasing summation arrives as negative axis strides.
//
// Numerics, as on the CPU: FLOAT32 adds in float32; FLOAT16 keeps the running total in float32 and
// rounds each written value once to half (round to nearest even); UINT32 and UINT16 add in 32-bit
// unsigned arithmetic, so they wrap modulo 2**32 and, once truncated, modulo 2**16. Additions
// are grouped differently from a sequential loop (per lane, then across lanes), which changes float
// results by rounding only; integers are exact. A running total starts at K::zero(), -0.0 for
// floats (the identity of IEEE addition: the first tally is the first element, a -0.0 included, as
// in np.cumsum); an exclusive scan writes +0 first (Geo.exclusive == 1) or, for the chunk totals of
// a long axis, the identity (Geo.exclusive == 2).

struct F32 {
    typedef float T;
    typedef float A;
    static constexpr bool PAIRS = false;
    static __device__ __forceinline__ A zero() { return -0.0f; }
    static __device__ __forceinline__ A in(T v) { return v; }
    static __device__ __forceinline__ T out(A a) { return a; }
};
struct F16 {  // stored as its 16 bits
    typedef unsigned short T;
    typedef float A;
    static constexpr bool PAIRS = true;  // out2: two values rounded by one instruction
    static __device__ __forceinline__ A zero() { return -0.0f; }
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
    static __device__ __forceinline__ A zero() { return 0u; }
    static __device__ __forceinline__ A in(T v) { return v; }
    static __device__ __forceinline__ T out(A a) { return a; }
};
struct U16 {
    typedef unsigned short T;
    typedef unsigned int A;
    static constexpr bool PAIRS = false;
    static __device__ __forceinline__ A zero() { return 0u; }
    static __device__ __forceinline__ A in(T v) { return v; }
    static __device__ __forceinline__ T out(A a) { return (unsigned short)a; }
};

// Inclusive scan of tot over segments of L consecutive lanes (p = position in the segment; L a
// power of two, at most MAXL): excl is the sum of the segment's earlier lanes, seg the segment's
// total. The shuffles span the warp and a lane adds only values from its own segment (p >= off),
// so the steps are a straight line of log2(MAXL) whatever L is: a loop over a run-time L cost a
// branch and a convergence check per step.
template <typename K, int MAXL, typename A>
__device__ __forceinline__ void sl_warp_scan(A tot, int L, int p, A& excl, A& seg) {
    A incl = tot;
#pragma unroll
    for (int off = 1; off < MAXL; off <<= 1) {
        const A y = __shfl_up_sync(0xffffffffu, incl, off);
        if (p >= off) incl = incl + y;
    }
    const A before = __shfl_up_sync(0xffffffffu, incl, 1);
    excl = p == 0 ? K::zero() : before;
    seg = __shfl_sync(0xffffffffu, incl, (threadIdx.x & 31) | (L - 1));
}

// Value of element j of a group whose inclusive local sums are run[] and whose earlier elements
// sum to base, before rounding to the stored type; first: element j is the first of its line
// (exclusive mode 1 writes +0).
template <typename K, int V>
__device__ __forceinline__ typename K::A sl_value(typename K::A base, const typename K::A (&run)[V], int j,
                                                  int exclusive, bool first) {
    if (!exclusive) return base + run[j];
    if (j != 0) return base + run[j == 0 ? 0 : j - 1];
    return first && exclusive == 1 ? typename K::A(0) : base;
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

// Lines kernel: the axis is innermost in memory for both views. A unit is one chunk of one line;
// L lanes of a warp scan it together, L * G elements per step (G = C * V): the step is C segments
// of L groups of V consecutive elements, lane p holding group p of each segment, so that every
// load and store instruction of the warp covers consecutive groups (coalesced), and all C loads
// of a lane are in flight before the first segment is scanned. A short line takes few lanes and a
// warp scans 32 / L lines at once. Units: (line, chunk), chunk fastest. partial != 0: write each
// unit's total to partial[unit] and nothing to dst (first pass of a long line); carry_in != 0:
// start at carry_in[unit]. EXCL: Geo.exclusive != 0, fixed at compile time, since choosing
// between the two values of every element cost a select each (lines do little else per element).
template <typename K, int V, int C, bool REV, bool EXCL>
__global__ void __launch_bounds__(SL_THREADS) sl_scan_lines(const char* src_, char* dst_, typename K::A* partial,
                                                            const typename K::A* carry_in, const Geo g) {
    typedef typename K::T T;
    typedef typename K::A A;
    constexpr int G = V * C;
    const T* src = reinterpret_cast<const T*>(src_);
    T* dst = reinterpret_cast<T*>(dst_);
    // L, G and so a step (L * G elements) are powers of two: shifts, not divisions, split the
    // warp and the chunk (each thread scans a unit or two, so its set-up counts).
    const int lane = threadIdx.x & 31;
    const int L = (int)g.lanes;
    const int lg = __ffs(L) - 1;
    const int p = lane & (L - 1);
    const int exclusive = (int)g.exclusive;
    const long long units = g.rows * g.nchunks;
    const long long step = (long long)G << lg;
    const long long ntiles = (g.chunk + step - 1) >> (lg + __ffs(G) - 1);
    const long long per_block = (SL_THREADS / 32) << (5 - lg);
    for (long long b = blockIdx.x; b < g.nblocks; b += gridDim.x) {
        const long long unit = b * per_block + ((threadIdx.x >> 5) << (5 - lg)) + (lane >> lg);
        long long so = 0, dO = 0, k0 = 0, k1 = 0;
        A carry = K::zero();
        if (unit < units) {
            long long c = 0;
            const long long line = g.nchunks == 1 ? unit : sl_div(unit, g.nchunks, c);
            sl_decompose(g, line, so, dO);
            k0 = c * g.chunk;
            k1 = min(k0 + g.chunk, g.na);
            if (carry_in) carry = carry_in[unit];
        }
        for (long long t = 0; t < ntiles; ++t) {  // the same count in every lane of the warp
            const long long kb = k0 + t * step + (long long)p * V;  // this lane's group of segment 0
            Pack<T, V> raw[C];
#pragma unroll
            for (int c = 0; c < C; ++c) raw[c] = sl_load_group<K, V, REV>(src, so, kb + (long long)c * L * V, k1, g.sa);
#pragma unroll
            for (int c = 0; c < C; ++c) {
                const long long k = kb + (long long)c * L * V;
                A x[V];  // inclusive, within the group
#pragma unroll
                for (int j = 0; j < V; ++j) {
                    const A e = K::in(raw[c].v[REV ? V - 1 - j : j]);
                    x[j] = j == 0 ? e : x[j - 1] + e;
                }
                A excl, seg;
                sl_warp_scan<K, 32>(x[V - 1], L, p, excl, seg);
                if (!partial && k < k1) {
                    const A base = carry + excl;
                    A r[V];
#pragma unroll
                    for (int j = 0; j < V; ++j) {
                        if (!EXCL) r[j] = base + x[j];
                        else if (j != 0) r[j] = base + x[j - 1];
                        else r[j] = k == 0 && exclusive == 1 ? A(0) : base;
                    }
                    sl_store_group<K, V, REV>(dst, dO, k, g.da, r);
                }
                carry = carry + seg;
            }
        }
        if (partial && p == 0 && unit < units) partial[unit] = carry;
    }
}

// Columns kernel: the axis is outer; the destination's innermost dimension (last of the outer
// dimensions, innermost first in Geo) is shared with the source, so consecutive threads own
// consecutive columns and every step along the axis is a coalesced load and store. With V > 1 a
// thread owns V adjacent columns and moves them as one vector; it loads U steps before summing
// them, and the last k1 - k0 mod U steps of its chunk
// in batches of U / 2, U / 4, ... 1 (batches of a size fixed at compile time need no predicates
// and so no more registers than the U-step batch). Units: (chunk, column), column fastest;
// partial/carry_in as in sl_scan_lines, indexed [chunk][column * V + j].

// N steps down a column loaded from ps (stride sa), which then points past them.
template <typename K, int V, int N>
__device__ __forceinline__ void sl_cols_load(const typename K::T*& ps, long long sa, Pack<typename K::T, V> (&v)[N]) {
#pragma unroll
    for (int q = 0; q < N; ++q) v[q] = *reinterpret_cast<const Pack<typename K::T, V>*>(ps + q * sa);
    ps += N * sa;
}

// One step of V columns added to their running totals acc: the values to write there, rounded;
// first: the step starts the axis of an exclusive scan of mode 1, whose first value is +0.
template <typename K, int V>
__device__ __forceinline__ Pack<typename K::T, V> sl_cols_step(const Pack<typename K::T, V>& v, typename K::A (&acc)[V],
                                                               bool first, int exclusive) {
    typedef typename K::A A;
    A r[V];
#pragma unroll
    for (int j = 0; j < V; ++j) {
        const A x = K::in(v.v[j]);
        if (exclusive) {
            r[j] = first ? A(0) : acc[j];
            acc[j] = acc[j] + x;
        } else {
            acc[j] = acc[j] + x;
            r[j] = acc[j];
        }
    }
    return sl_round<K, V>(r);
}

// N loaded steps added to the running totals acc and written from pd (stride da) unless pd is
// null; first: they start the axis of an exclusive scan (mode 1).
template <typename K, int V, int N>
__device__ __forceinline__ void sl_cols_sum(const Pack<typename K::T, V> (&v)[N], typename K::T*& pd, long long da,
                                            typename K::A (&acc)[V], bool first, int exclusive) {
#pragma unroll
    for (int q = 0; q < N; ++q) {
        const Pack<typename K::T, V> o = sl_cols_step<K, V>(v[q], acc, first && q == 0, exclusive);
        if (pd) {
            sl_store(pd, o);
            pd += da;
        }
    }
}

// The remaining steps k1 - k < 2 * N, in batches of N, N / 2, ... 1.
template <typename K, int V, int N>
__device__ __forceinline__ void sl_cols_tail(const typename K::T*& ps, typename K::T*& pd, long long sa, long long da,
                                             typename K::A (&acc)[V], bool first, int exclusive, long long k,
                                             long long k1) {
    if (k + N <= k1) {
        Pack<typename K::T, V> v[N];
        sl_cols_load<K, V, N>(ps, sa, v);
        sl_cols_sum<K, V, N>(v, pd, da, acc, first, exclusive);
        k += N;
        first = false;
    }
    if constexpr (N > 1) sl_cols_tail<K, V, N / 2>(ps, pd, sa, da, acc, first, exclusive, k, k1);
}

// PIPE: the next U steps are loaded before the current ones are summed and stored (two batches
// of registers), so a column's loads never wait for its stores.
template <typename K, int V, int U, bool PIPE>
__global__ void __launch_bounds__(SL_THREADS) sl_scan_cols(const char* src_, char* dst_, typename K::A* partial,
                                                           const typename K::A* carry_in, const Geo g) {
    typedef typename K::T T;
    typedef typename K::A A;
    typedef Pack<T, V> P;
    const T* src = reinterpret_cast<const T*>(src_);
    T* dst = reinterpret_cast<T*>(dst_);
    const int exclusive = (int)g.exclusive;
    const long long units = g.rows * g.nchunks;
    for (long long u = blockIdx.x * (long long)SL_THREADS + threadIdx.x; u < units;
         u += (long long)gridDim.x * SL_THREADS) {
        long long col;
        const long long c = sl_div(u, g.rows, col);
        long long so, dO;
        sl_decompose(g, col, so, dO);
        const long long k0 = c * g.chunk;
        const long long k1 = min(k0 + g.chunk, g.na);
        const T* ps = src + so + k0 * g.sa;
        T* pd = partial ? nullptr : dst + dO + k0 * g.da;
        A acc[V];
#pragma unroll
        for (int j = 0; j < V; ++j) acc[j] = carry_in ? carry_in[u * V + j] : K::zero();
        bool first = k0 == 0 && exclusive == 1;
        long long k = k0;
        if constexpr (PIPE) {
            if (k + U <= k1) {
                P a[U], b[U];
                sl_cols_load<K, V, U>(ps, g.sa, a);
                for (;;) {
                    const bool more = k + 2 * U <= k1;
                    if (more) sl_cols_load<K, V, U>(ps, g.sa, b);
                    sl_cols_sum<K, V, U>(a, pd, g.da, acc, first, exclusive);
                    first = false;
                    k += U;
                    if (!more) break;
                    const bool again = k + 2 * U <= k1;
                    if (again) sl_cols_load<K, V, U>(ps, g.sa, a);
                    sl_cols_sum<K, V, U>(b, pd, g.da, acc, false, exclusive);
                    k += U;
                    if (!again) break;
                }
            }
        } else {
            for (; k + U <= k1; k += U, first = false) {
                P v[U];
                sl_cols_load<K, V, U>(ps, g.sa, v);
                sl_cols_sum<K, V, U>(v, pd, g.da, acc, first, exclusive);
            }
        }
        if constexpr (U > 1) sl_cols_tail<K, V, U / 2>(ps, pd, g.sa, g.da, acc, first, exclusive, k, k1);
        if (partial) {
#pragma unroll
            for (int j = 0; j < V; ++j) partial[u * V + j] = acc[j];
        }
    }
}

// Split columns: the columns scan's case (axis outer, innermost dimension shared) with too few
// columns for a thread each to keep enough loads in flight. A block's warps share 32 columns
// (vectors of V) and split each pass of 8 * R axis steps between them, R consecutive steps a warp:
// every warp loads its R steps, the warps' totals meet in shared memory, and each warp then sums
// and stores its steps from the total of all steps before them. Each element is read and written
// once, with R loads in flight per thread whatever the number of columns. Blocks: groups of 32
// columns (Geo.rows columns in all); no chunks. MINB: blocks each multiprocessor must be able to
// hold, as in sl_scan_tile_an (UINT16 in 16-byte vectors took 141 registers without a bound).
template <typename K, int V, int R, int MINB>
__global__ void __launch_bounds__(SL_THREADS, MINB) sl_scan_cols_split(const char* src_, char* dst_, const Geo g) {
    typedef typename K::T T;
    typedef typename K::A A;
    typedef Pack<T, V> P;
    constexpr int WARPS = SL_THREADS / 32;
    __shared__ A totals[WARPS][V][32];
    const T* src = reinterpret_cast<const T*>(src_);
    T* dst = reinterpret_cast<T*>(dst_);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int exclusive = (int)g.exclusive;
    for (long long b = blockIdx.x; b < g.nblocks; b += gridDim.x) {
        const long long u = b * 32 + lane;
        const bool live = u < g.rows;
        long long so = 0, dO = 0;
        if (live) sl_decompose(g, u, so, dO);
        A carry[V];  // total of the passes before, in every warp
#pragma unroll
        for (int j = 0; j < V; ++j) carry[j] = K::zero();
        for (long long a0 = 0; a0 < g.na; a0 += WARPS * R) {
            const long long k0 = a0 + warp * R;
            const T* ps = src + so + k0 * g.sa;
            P v[R];
#pragma unroll
            for (int q = 0; q < R; ++q)
                v[q] = (live && k0 + q < g.na) ? *reinterpret_cast<const P*>(ps + q * g.sa) : P{};
            A tot[V];
#pragma unroll
            for (int j = 0; j < V; ++j) {
                tot[j] = K::zero();
#pragma unroll
                for (int q = 0; q < R; ++q) tot[j] = tot[j] + K::in(v[q].v[j]);  // zeros past the axis
                totals[warp][j][lane] = tot[j];
            }
            __syncthreads();
            A acc[V];
#pragma unroll
            for (int j = 0; j < V; ++j) {
                acc[j] = carry[j];
#pragma unroll
                for (int w = 0; w < WARPS; ++w) {
                    const A t = totals[w][j][lane];
                    if (w < warp) acc[j] = acc[j] + t;
                    carry[j] = carry[j] + t;
                }
            }
            __syncthreads();
            T* pd = dst + dO + k0 * g.da;
#pragma unroll
            for (int q = 0; q < R; ++q) {
                if (live && k0 + q < g.na)
                    sl_store(pd + q * g.da, sl_cols_step<K, V>(v[q], acc, k0 + q == 0 && exclusive == 1, exclusive));
            }
        }
    }
}

// Tiled kernels, for views whose innermost dimensions differ (e.g. NHWC in, NCHW out): shared
// memory turns the source's coalesced order into the destination's. Blocks: (tiles, outer row);
// each walks the whole axis, so no pass over the data is repeated. A side whose dimension has
// stride 1 may move aligned vectors of several elements (the planner checks sizes, strides and
// addresses); otherwise every access is a single element.

// Axis innermost in the source, Y innermost in the destination: each warp scans rows of the tile
// straight from memory (TA = L * E consecutive axis elements, E per lane: one vector load where
// VEC; L lanes per row, so a warp's load instruction covers 32 / L rows), the results go through
// shared memory and out along Y (vectors of E elements where VEC).
// MINB: blocks each multiprocessor must hold, as in sl_scan_tile_an.
template <typename K, int E, int TY, bool VEC, int MINB, int L = 32>
__global__ void __launch_bounds__(SL_THREADS, MINB) sl_scan_tile_ax(const char* src_, char* dst_, const Geo g) {
    typedef typename K::T T;
    typedef typename K::A A;
    typedef Pack<T, E> P;
    constexpr int TA = L * E;
    constexpr int RPI = 32 / L;                  // tile rows per load instruction of a warp
    constexpr int RPW = TY / (SL_THREADS / 32);  // tile rows per warp
    constexpr int IT = RPW / RPI;                // load instructions per warp and pass
    constexpr int W = VEC ? E : 1;               // elements per store along Y
    constexpr int LANES = TY / W;                // threads along Y in the store
    constexpr int ROWS = SL_THREADS / LANES;     // axis positions per pass of the store
    constexpr int PAD = 4 / sizeof(T);
    __shared__ T tile[TY][TA + PAD];
    const T* src = reinterpret_cast<const T*>(src_);
    T* dst = reinterpret_cast<T*>(dst_);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int p = lane % L, sub = lane / L;  // position in the row, row of the instruction
    const int tl = threadIdx.x % LANES, tr = threadIdx.x / LANES;
    const int exclusive = (int)g.exclusive;
    for (long long b = blockIdx.x; b < g.nblocks; b += gridDim.x) {
        long long ty;
        const long long row = sl_div(b, g.tiles_y, ty);
        const long long y0 = ty * TY;
        long long so, dO;
        sl_decompose(g, row, so, dO);
        const T* ps = src + so + (y0 + warp * RPW + sub) * g.sy + (long long)(p * E) * g.sa;
        T* pd = dst + dO + (y0 + tl * W) * g.dy + (long long)tr * g.da;
        const bool yin = y0 + tl * W < g.ny;
        A carry[IT];
#pragma unroll
        for (int r = 0; r < IT; ++r) carry[r] = K::zero();
        for (long long a0 = 0; a0 < g.na; a0 += TA, ps += TA * g.sa, pd += TA * g.da) {
            A x[IT][E];
#pragma unroll
            for (int r = 0; r < IT; ++r) {
                const bool in = y0 + warp * RPW + r * RPI + sub < g.ny;
                if (VEC) {
                    P v;
                    if (in && a0 + p * E < g.na) {
                        v = *reinterpret_cast<const P*>(ps + r * RPI * g.sy);
                    } else {
#pragma unroll
                        for (int e = 0; e < E; ++e) v.v[e] = T(0);
                    }
#pragma unroll
                    for (int e = 0; e < E; ++e) x[r][e] = K::in(v.v[e]);
                } else {
#pragma unroll
                    for (int e = 0; e < E; ++e)
                        x[r][e] = (in && a0 + p * E + e < g.na) ? K::in(ps[r * RPI * g.sy + e * g.sa]) : A(0);
                }
            }
#pragma unroll
            for (int r = 0; r < IT; ++r) {
#pragma unroll
                for (int e = 1; e < E; ++e) x[r][e] = x[r][e - 1] + x[r][e];
                A excl, seg;
                sl_warp_scan<K, L>(x[r][E - 1], L, p, excl, seg);
                const A base = carry[r] + excl;
#pragma unroll
                for (int e = 0; e < E; ++e)
                    tile[warp * RPW + r * RPI + sub][p * E + e] =
                        K::out(sl_value<K, E>(base, x[r], e, exclusive, a0 + p == 0));
                carry[r] = carry[r] + seg;
            }
            __syncthreads();
#pragma unroll
            for (int q = 0; q < TA / ROWS; ++q) {
                if (yin && a0 + tr + q * ROWS < g.na) {
                    Pack<T, W> v;
#pragma unroll
                    for (int j = 0; j < W; ++j) v.v[j] = tile[tl * W + j][tr + q * ROWS];
                    *reinterpret_cast<Pack<T, W>*>(pd + q * ROWS * g.da) = v;
                }
            }
            __syncthreads();
        }
    }
}

// X innermost in the source, the axis innermost in the destination: the tile comes in along X
// (vectors of E elements where VEC) through shared memory; each warp scans rows of it and writes
// them straight out along the axis (E consecutive elements per lane: one vector store where VEC).
template <typename K, int E, int TX, bool VEC, int MINB>
__global__ void __launch_bounds__(SL_THREADS, MINB) sl_scan_tile_ay(const char* src_, char* dst_, const Geo g) {
    typedef typename K::T T;
    typedef typename K::A A;
    typedef Pack<T, E> P;
    constexpr int TA = 32 * E;
    constexpr int RPW = TX / (SL_THREADS / 32);  // tile rows per warp
    constexpr int W = VEC ? E : 1;               // elements per load along X
    constexpr int LANES = TX / W;                // threads along X in the load
    constexpr int ROWS = SL_THREADS / LANES;     // axis positions per pass of the load
    constexpr int PAD = 4 / sizeof(T);
    __shared__ T tile[TX][TA + PAD];
    const T* src = reinterpret_cast<const T*>(src_);
    T* dst = reinterpret_cast<T*>(dst_);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int tl = threadIdx.x % LANES, tr = threadIdx.x / LANES;
    const int exclusive = (int)g.exclusive;
    for (long long b = blockIdx.x; b < g.nblocks; b += gridDim.x) {
        long long tx;
        const long long row = sl_div(b, g.tiles_x, tx);
        const long long x0 = tx * TX;
        long long so, dO;
        sl_decompose(g, row, so, dO);
        const T* ps = src + so + (x0 + tl * W) * g.sx + (long long)tr * g.sa;
        T* pd = dst + dO + (x0 + warp * RPW) * g.dx + (long long)(lane * E) * g.da;
        const bool xin = x0 + tl * W < g.nx;
        A carry[RPW];
#pragma unroll
        for (int r = 0; r < RPW; ++r) carry[r] = K::zero();
        for (long long a0 = 0; a0 < g.na; a0 += TA, ps += TA * g.sa, pd += TA * g.da) {
            Pack<T, W> v[TA / ROWS];
#pragma unroll
            for (int q = 0; q < TA / ROWS; ++q) {
                if (xin && a0 + tr + q * ROWS < g.na) {
                    v[q] = *reinterpret_cast<const Pack<T, W>*>(ps + q * ROWS * g.sa);
                } else {
#pragma unroll
                    for (int j = 0; j < W; ++j) v[q].v[j] = T(0);
                }
            }
#pragma unroll
            for (int q = 0; q < TA / ROWS; ++q) {
#pragma unroll
                for (int j = 0; j < W; ++j) tile[tl * W + j][tr + q * ROWS] = v[q].v[j];
            }
            __syncthreads();
#pragma unroll
            for (int r = 0; r < RPW; ++r) {
                const int x = warp * RPW + r;
                A run[E];
#pragma unroll
                for (int e = 0; e < E; ++e) run[e] = K::in(tile[x][lane * E + e]);
#pragma unroll
                for (int e = 1; e < E; ++e) run[e] = run[e - 1] + run[e];
                A excl, seg;
                sl_warp_scan<K, 32>(run[E - 1], 32, lane, excl, seg);
                const A base = carry[r] + excl;
                if (x0 + x < g.nx) {
                    P o;
#pragma unroll
                    for (int e = 0; e < E; ++e) o.v[e] = K::out(sl_value<K, E>(base, run, e, exclusive, a0 + lane == 0));
                    if (VEC) {
                        if (a0 + lane * E < g.na) *reinterpret_cast<P*>(pd + r * g.dx) = o;
                    } else {
#pragma unroll
                        for (int e = 0; e < E; ++e)
                            if (a0 + lane * E + e < g.na) pd[r * g.dx + e * g.da] = o.v[e];
                    }
                }
                carry[r] = carry[r] + seg;
            }
            __syncthreads();
        }
    }
}

// The axis innermost in neither view: X innermost in the source, Y in the destination. Each
// thread owns columns of an X-Y tile and keeps their running totals; S steps along the axis come
// in along X (vectors of W where W > 1) through shared memory and go out along Y (vectors of W)
// per barrier pair. MINB: blocks each multiprocessor must be able to hold (__launch_bounds__ caps
// the registers a thread may take to fit them), so that a grid of small tiles can run in one wave;
// 0 sets no bound (1 would: ptxas then allows itself more registers than with none).
template <typename K, int TILE, int S, int W, int MINB>
__global__ void __launch_bounds__(SL_THREADS, MINB) sl_scan_tile_an(const char* src_, char* dst_, const Geo g) {
    typedef typename K::T T;
    typedef typename K::A A;
    typedef Pack<T, W> P;
    constexpr int PAD = 4 / sizeof(T);
    constexpr int LANES = TILE / W;           // threads along a tile row
    constexpr int ROWS = SL_THREADS / LANES;  // tile rows per pass
    constexpr int PER = TILE / ROWS;          // passes
    __shared__ T tile[S][TILE][TILE + PAD];
    const T* src = reinterpret_cast<const T*>(src_);
    T* dst = reinterpret_cast<T*>(dst_);
    const int tl = threadIdx.x % LANES, tr = threadIdx.x / LANES;
    const int exclusive = (int)g.exclusive;
    for (long long b = blockIdx.x; b < g.nblocks; b += gridDim.x) {
        long long x0, y0, so, dO;
        sl_tile_block<TILE>(g, b, x0, y0, so, dO);
        // in: thread reads x = tl * W + j, y = tr + q * ROWS; out: it owns y = tl * W + j, x = tr + q * ROWS
        const T* ps = src + so + (x0 + tl * W) * g.sx + (y0 + tr) * g.sy;
        T* pd = dst + dO + (y0 + tl * W) * g.dy + (x0 + tr) * g.dx;
        const long long ps_step = ROWS * g.sy, pd_step = ROWS * g.dx;
        const bool xin = x0 + tl * W < g.nx, yin = y0 + tl * W < g.ny;
        A acc[PER][W];
#pragma unroll
        for (int q = 0; q < PER; ++q) {
#pragma unroll
            for (int j = 0; j < W; ++j) acc[q][j] = K::zero();
        }
        for (long long k0 = 0; k0 < g.na; k0 += S, ps += S * g.sa, pd += S * g.da) {
            P v[S][PER];
#pragma unroll
            for (int s = 0; s < S; ++s) {
#pragma unroll
                for (int q = 0; q < PER; ++q) {
                    if (xin && k0 + s < g.na && y0 + tr + q * ROWS < g.ny) {
                        v[s][q] = *reinterpret_cast<const P*>(ps + s * g.sa + q * ps_step);
                    } else {
#pragma unroll
                        for (int j = 0; j < W; ++j) v[s][q].v[j] = T(0);
                    }
                }
            }
#pragma unroll
            for (int s = 0; s < S; ++s) {
#pragma unroll
                for (int q = 0; q < PER; ++q) {
#pragma unroll
                    for (int j = 0; j < W; ++j) tile[s][tr + q * ROWS][tl * W + j] = v[s][q].v[j];
                }
            }
            __syncthreads();
#pragma unroll
            for (int s = 0; s < S; ++s) {
                if (k0 + s < g.na) {
#pragma unroll
                    for (int q = 0; q < PER; ++q) {
                        P o;
#pragma unroll
                        for (int j = 0; j < W; ++j) {
                            const A xv = K::in(tile[s][tl * W + j][tr + q * ROWS]);
                            if (exclusive) {
                                o.v[j] = (k0 + s == 0 && exclusive == 1) ? K::out(A(0)) : K::out(acc[q][j]);
                                acc[q][j] = acc[q][j] + xv;
                            } else {
                                acc[q][j] = acc[q][j] + xv;
                                o.v[j] = K::out(acc[q][j]);
                            }
                        }
                        if (yin && x0 + tr + q * ROWS < g.nx) *reinterpret_cast<P*>(pd + s * g.da + q * pd_step) = o;
                    }
                }
            }
            __syncthreads();
        }
    }
}

// A 16-byte copy from global to shared memory that bypasses the registers (and L1): a block can
// keep chunks of the axis in flight without a register for each piece. The copies a thread issued
// since its last sl_copy_async_commit form one group; sl_copy_async_wait<N> waits until at most N
// of its groups are still in flight. Before sm_80 (no cp.async) the copy is a plain load and
// store, already done when the next barrier is reached.
__device__ __forceinline__ void sl_copy_async16(void* to, const void* from) {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"((unsigned int)__cvta_generic_to_shared(to)),
                 "l"(__cvta_generic_to_global(from))
                 : "memory");
#else
    *reinterpret_cast<uint4*>(to) = *reinterpret_cast<const uint4*>(from);
#endif
}

__device__ __forceinline__ void sl_copy_async_commit() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

template <int N>
__device__ __forceinline__ void sl_copy_async_wait() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#endif
}

// The axis innermost in neither view, as sl_scan_tile_an, with wide tiles: a TX x TY tile (X
// innermost in the source, Y in the destination, both with stride 1 and whole 16-byte vectors)
// walks the axis in chunks of CH steps, each copied whole into shared memory (cp.async) STAGES - 1
// chunks ahead of the one being summed, so that a block keeps tens of KiB of loads in flight
// without a register for each: the grid has only as many blocks as tiles. Chunk c goes to buffer
// c % STAGES; the barrier that ends a chunk frees its buffer for the chunk STAGES - 1 later.
// Dynamic shared memory: STAGES x CH x TY x TX elements. EXCL: an exclusive scan, instantiated
// apart so that a whole chunk's steps unroll without a select per element.
template <typename K, int TX, int TY, int CH, int STAGES, bool EXCL>
__global__ void __launch_bounds__(SL_THREADS) sl_scan_tile_staged(const char* src_, char* dst_, const Geo g) {
    typedef typename K::T T;
    typedef typename K::A A;
    constexpr int V = 16 / sizeof(T);    // elements of a vector
    constexpr int LX = TX / V;           // in: threads along a tile row of X
    constexpr int RY = SL_THREADS / LX;  // in: rows of Y per pass
    constexpr int PY = TY / RY;          // in: passes
    constexpr int LY = TY / V;           // out: threads along Y
    constexpr int RX = SL_THREADS / LY;  // out: rows of X per pass
    constexpr int PX = TX / RX;          // out: passes
    static_assert(PY * RY == TY && PX * RX == TX && LY <= LX && (LX & (LX - 1)) == 0, "tile shape");
    extern __shared__ __align__(16) unsigned char sl_shared[];
    T* const buffers = reinterpret_cast<T*>(sl_shared);
    // Vector x / V of row y sits at vector (x / V) ^ ((y / V) mod LX): the threads of an out warp
    // read one column of X at rows y, y + V, ..., which would share banks (rows are 128 bytes).
    auto at = [&](int b, int s, int y, int x) {
        return buffers + ((b * CH + s) * TY + y) * TX + (((x / V) ^ ((y / V) & (LX - 1))) * V) + x % V;
    };
    const T* src = reinterpret_cast<const T*>(src_);
    T* dst = reinterpret_cast<T*>(dst_);
    const int il = threadIdx.x % LX, ir = threadIdx.x / LX;    // in: x = il * V + e, y = ir + p * RY
    const int ol = threadIdx.x % LY, orow = threadIdx.x / LY;  // out: y = ol * V + j, x = orow + p * RX
    const int exclusive = (int)g.exclusive;
    const long long nchunks = (g.na + CH - 1) / CH;
    for (long long b = blockIdx.x; b < g.nblocks; b += gridDim.x) {
        long long x0, y0, so, dO;
        sl_tile_block<TX, TY>(g, b, x0, y0, so, dO);
        const T* ps = src + so + x0 + il * V + (y0 + ir) * g.sy;
        const bool xin = x0 + il * V < g.nx;
        // Copies chunk c into its buffer (nothing past the axis), as one group of this thread's.
        auto issue = [&](long long c) {
            const int steps = (int)max(0LL, min((long long)CH, g.na - c * CH));
            const int buf = (int)(c % STAGES);
#pragma unroll
            for (int p = 0; p < PY; ++p) {
                if (xin && y0 + ir + p * RY < g.ny) {
                    const T* from = ps + p * RY * g.sy + c * CH * g.sa;
                    for (int s = 0; s < steps; ++s) sl_copy_async16(at(buf, s, ir + p * RY, il * V), from + s * g.sa);
                }
            }
            sl_copy_async_commit();
        };
#pragma unroll
        for (int c = 0; c < STAGES - 1; ++c) issue(c);
        A acc[PX][V];
#pragma unroll
        for (int p = 0; p < PX; ++p) {
#pragma unroll
            for (int j = 0; j < V; ++j) acc[p][j] = K::zero();
        }
        const bool first_zero = EXCL && exclusive == 1;  // the axis's first value is +0
        for (long long c = 0; c < nchunks; ++c) {
            issue(c + STAGES - 1);
            sl_copy_async_wait<STAGES - 1>();
            __syncthreads();
            const int buf = (int)(c % STAGES);
            const long long k0 = c * CH;
            const int steps = (int)min((long long)CH, g.na - k0);
#pragma unroll
            for (int p = 0; p < PX; ++p) {
                const int x = orow + p * RX;
                const T* column[V];  // step s of column (x, ol * V + j) is column[j][s * TY * TX]
#pragma unroll
                for (int j = 0; j < V; ++j) column[j] = at(buf, 0, ol * V + j, x);
                T* pd = dst + dO + (x0 + x) * g.dx + y0 + ol * V + k0 * g.da;
                const bool out = x0 + x < g.nx && y0 + ol * V < g.ny;
                auto step = [&](int s) {
                    A r[V];
#pragma unroll
                    for (int j = 0; j < V; ++j) {
                        const A xv = K::in(column[j][s * TY * TX]);
                        if constexpr (EXCL) {
                            r[j] = acc[p][j];
                            acc[p][j] = acc[p][j] + xv;
                        } else {
                            acc[p][j] = acc[p][j] + xv;
                            r[j] = acc[p][j];
                        }
                    }
                    if (s == 0 && k0 == 0 && first_zero) {
#pragma unroll
                        for (int j = 0; j < V; ++j) r[j] = A(0);
                    }
                    if (out) sl_store(pd, sl_round<K, V>(r));
                    pd += g.da;
                };
                if (steps == CH) {
#pragma unroll
                    for (int s = 0; s < CH; ++s) step(s);
                } else {
                    for (int s = 0; s < steps; ++s) step(s);
                }
            }
            __syncthreads();
        }
    }
}
