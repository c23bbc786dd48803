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
    static __device__ __forceinline__ A zero() { return -0.0f; }
    static __device__ __forceinline__ A in(T v) { return v; }
    static __device__ __forceinline__ T out(A a) { return a; }
};
struct F16 {  // stored as its 16 bits
    typedef unsigned short T;
    typedef float A;
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
};
struct U32 {
    typedef unsigned int T;
    typedef unsigned int A;
    static __device__ __forceinline__ A zero() { return 0u; }
    static __device__ __forceinline__ A in(T v) { return v; }
    static __device__ __forceinline__ T out(A a) { return a; }
};
struct U16 {
    typedef unsigned short T;
    typedef unsigned int A;
    static __device__ __forceinline__ A zero() { return 0u; }
    static __device__ __forceinline__ A in(T v) { return v; }
    static __device__ __forceinline__ T out(A a) { return (unsigned short)a; }
};

// Inclusive scan of tot over segments of L lanes (p = position in the segment): excl is the sum
// of the segment's earlier lanes, seg the segment's total.
template <typename K, typename A>
__device__ __forceinline__ void sl_warp_scan(A tot, int L, int p, A& excl, A& seg) {
    A incl = tot;
    for (int off = 1; off < L; off <<= 1) {
        const A y = __shfl_up_sync(0xffffffffu, incl, off, L);
        if (p >= off) incl = incl + y;
    }
    excl = __shfl_up_sync(0xffffffffu, incl, 1, L);
    if (p == 0) excl = K::zero();
    seg = __shfl_sync(0xffffffffu, incl, L - 1, L);
}

// Output value of element j of a group whose inclusive local sums are run[] and whose earlier
// elements sum to base; first: element j is the first of its line (exclusive mode 1 writes +0).
template <typename K, int V>
__device__ __forceinline__ typename K::T sl_out(typename K::A base, const typename K::A (&run)[V], int j, int exclusive,
                                                bool first) {
    if (!exclusive) return K::out(base + run[j]);
    if (j != 0) return K::out(base + run[j == 0 ? 0 : j - 1]);
    return K::out(first && exclusive == 1 ? typename K::A(0) : base);
}

// Group of V consecutive axis elements starting at k, zeros past k1. V > 1: |stride| == 1 and one
// aligned vector; REV: stride -1, the vector ending at element k is read and reversed.
template <typename K, int V, bool REV>
__device__ __forceinline__ void sl_load_group(const typename K::T* src, long long so, long long k, long long k1,
                                              long long sa, typename K::A (&x)[V]) {
    typedef Pack<typename K::T, V> P;
    if (k < k1) {
        if (V == 1) {
            x[0] = K::in(src[so + k * sa]);
        } else if (!REV) {
            const P t = *reinterpret_cast<const P*>(src + so + k);
#pragma unroll
            for (int j = 0; j < V; ++j) x[j] = K::in(t.v[j]);
        } else {
            const P t = *reinterpret_cast<const P*>(src + so - k - (V - 1));
#pragma unroll
            for (int j = 0; j < V; ++j) x[j] = K::in(t.v[V - 1 - j]);
        }
    } else {
#pragma unroll
        for (int j = 0; j < V; ++j) x[j] = typename K::A(0);
    }
}

template <typename K, int V, bool REV>
__device__ __forceinline__ void sl_store_group(typename K::T* dst, long long dO, long long k, long long da,
                                               const typename K::T (&o)[V]) {
    typedef Pack<typename K::T, V> P;
    if (V == 1) {
        dst[dO + k * da] = o[0];
    } else {
        P t;
#pragma unroll
        for (int j = 0; j < V; ++j) t.v[REV ? V - 1 - j : j] = o[j];
        *reinterpret_cast<P*>(dst + (REV ? dO - k - (V - 1) : dO + k)) = t;
    }
}

// Lines kernel: the axis is innermost in memory for both views. A unit is one chunk of one line;
// L lanes of a warp scan it together, L * G elements per step (G = C * V): the step is C segments
// of L groups of V consecutive elements, lane p holding group p of each segment, so that every
// load and store instruction of the warp covers consecutive groups (coalesced), and all C loads
// of a lane are in flight before the first segment is scanned. A short line takes few lanes and a
// warp scans 32 / L lines at once. Units: (line, chunk), chunk fastest. partial != 0: write each
// unit's total to partial[unit] and nothing to dst (first pass of a long line); carry_in != 0:
// start at carry_in[unit].
template <typename K, int V, int C, bool REV>
__global__ void __launch_bounds__(SL_THREADS) sl_scan_lines(const char* src_, char* dst_, typename K::A* partial,
                                                            const typename K::A* carry_in, const Geo g) {
    typedef typename K::T T;
    typedef typename K::A A;
    constexpr int G = V * C;
    const T* src = reinterpret_cast<const T*>(src_);
    T* dst = reinterpret_cast<T*>(dst_);
    const int lane = threadIdx.x & 31;
    const int L = (int)g.lanes;
    const int p = lane & (L - 1);
    const int exclusive = (int)g.exclusive;
    const long long units = g.rows * g.nchunks;
    const long long step = (long long)L * G;
    const long long ntiles = (g.chunk + step - 1) / step;
    const long long per_block = (SL_THREADS / 32) * (32 / L);
    for (long long b = blockIdx.x; b < g.nblocks; b += gridDim.x) {
        const long long unit = b * per_block + (threadIdx.x >> 5) * (32 / L) + lane / L;
        long long so = 0, dO = 0, k0 = 0, k1 = 0;
        A carry = K::zero();
        if (unit < units) {
            const long long line = unit / g.nchunks;
            const long long c = unit - line * g.nchunks;
            sl_decompose(g, line, so, dO);
            k0 = c * g.chunk;
            k1 = min(k0 + g.chunk, g.na);
            if (carry_in) carry = carry_in[unit];
        }
        for (long long t = 0; t < ntiles; ++t) {  // the same count in every lane of the warp
            const long long kb = k0 + t * step + (long long)p * V;  // this lane's group of segment 0
            A x[C][V];
#pragma unroll
            for (int c = 0; c < C; ++c) sl_load_group<K, V, REV>(src, so, kb + (long long)c * L * V, k1, g.sa, x[c]);
#pragma unroll
            for (int c = 0; c < C; ++c) {
                const long long k = kb + (long long)c * L * V;
#pragma unroll
                for (int j = 1; j < V; ++j) x[c][j] = x[c][j - 1] + x[c][j];  // inclusive, within the group
                A excl, seg;
                sl_warp_scan<K>(x[c][V - 1], L, p, excl, seg);
                if (!partial && k < k1) {
                    const A base = carry + excl;
                    T o[V];
#pragma unroll
                    for (int j = 0; j < V; ++j) o[j] = sl_out<K, V>(base, x[c], j, exclusive, k == 0);
                    sl_store_group<K, V, REV>(dst, dO, k, g.da, o);
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
// them (more where few columns leave few threads). Units: (chunk, column), column fastest;
// partial/carry_in as in sl_scan_lines, indexed [chunk][column * V + j].
template <typename K, int V, int U>
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
        const long long c = u / g.rows;
        const long long col = u - c * g.rows;
        long long so, dO;
        sl_decompose(g, col, so, dO);
        const long long k0 = c * g.chunk;
        const long long k1 = min(k0 + g.chunk, g.na);
        A acc[V];
#pragma unroll
        for (int j = 0; j < V; ++j) acc[j] = carry_in ? carry_in[u * V + j] : K::zero();
        for (long long k = k0; k < k1; k += U) {
            P v[U];
#pragma unroll
            for (int q = 0; q < U; ++q)
                if (k + q < k1) v[q] = *reinterpret_cast<const P*>(src + so + (k + q) * g.sa);
#pragma unroll
            for (int q = 0; q < U; ++q) {
                if (k + q < k1) {
                    P o;
#pragma unroll
                    for (int j = 0; j < V; ++j) {
                        const A x = K::in(v[q].v[j]);
                        if (exclusive) {
                            o.v[j] = (k + q == 0 && exclusive == 1) ? K::out(A(0)) : K::out(acc[j]);
                            acc[j] = acc[j] + x;
                        } else {
                            acc[j] = acc[j] + x;
                            o.v[j] = K::out(acc[j]);
                        }
                    }
                    if (!partial) *reinterpret_cast<P*>(dst + dO + (k + q) * g.da) = o;
                }
            }
        }
        if (partial) {
#pragma unroll
            for (int j = 0; j < V; ++j) partial[u * V + j] = acc[j];
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
        const long long y0 = (b % g.tiles_y) * TY;
        const long long row = b / g.tiles_y;
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
                sl_warp_scan<K>(x[r][E - 1], L, p, excl, seg);
                const A base = carry[r] + excl;
#pragma unroll
                for (int e = 0; e < E; ++e)
                    tile[warp * RPW + r * RPI + sub][p * E + e] = sl_out<K, E>(base, x[r], e, exclusive, a0 + p == 0);
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
        const long long x0 = (b % g.tiles_x) * TX;
        const long long row = b / g.tiles_x;
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
                sl_warp_scan<K>(run[E - 1], 32, lane, excl, seg);
                const A base = carry[r] + excl;
                if (x0 + x < g.nx) {
                    P o;
#pragma unroll
                    for (int e = 0; e < E; ++e) o.v[e] = sl_out<K, E>(base, run, e, exclusive, a0 + lane == 0);
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
        long long t = b;
        const long long x0 = (t % g.tiles_x) * TILE;
        t /= g.tiles_x;
        const long long y0 = (t % g.tiles_y) * TILE;
        const long long row = t / g.tiles_y;
        long long so, dO;
        sl_decompose(g, row, so, dO);
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
