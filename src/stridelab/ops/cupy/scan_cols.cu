// stridelab scans down columns: the axis outer in both views.

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

// One step of V columns combined into their running totals acc: the values to write there, rounded;
// first: the step starts the axis of an exclusive scan of mode 1, whose first value is K::first().
template <typename K, int V>
__device__ __forceinline__ Pack<typename K::T, V> sl_cols_step(const Pack<typename K::T, V>& v, typename K::A (&acc)[V],
                                                               bool first, int exclusive) {
    typedef typename K::A A;
    A r[V];
#pragma unroll
    for (int j = 0; j < V; ++j) {
        const A x = K::in(v.v[j]);
        if (exclusive) {
            r[j] = first ? K::first() : acc[j];
            acc[j] = K::op(acc[j], x);
        } else {
            acc[j] = K::op(acc[j], x);
            r[j] = acc[j];
        }
    }
    return sl_round<K, V>(r);
}

// N loaded steps combined into the running totals acc and written from pd (stride da) unless pd is
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
        for (int j = 0; j < V; ++j) acc[j] = carry_in ? carry_in[u * V + j] : K::identity();
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
// hold, as in sl_scan_tile_an (without a bound, UINT16 in 16-byte vectors takes far more registers).
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
        for (int j = 0; j < V; ++j) carry[j] = K::identity();
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
                tot[j] = K::identity();
#pragma unroll
                for (int q = 0; q < R; ++q) tot[j] = K::op(tot[j], K::in(v[q].v[j]));  // zeros past the axis
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
                    if (w < warp) acc[j] = K::op(acc[j], t);
                    carry[j] = K::op(carry[j], t);
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
