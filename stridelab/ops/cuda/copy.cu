// stridelab copies: dst[c] = src[c] between two strided views (SLICE1, ELEMENT_WISE_IDENTITY).
//
// src and dst point at the element of coordinate 0 of each view; strides are in elements and may
// be negative. E is the element size in bytes: a copy moves bits, so one instantiation serves
// every data type of that size.

#define SL_COPY_ILP 4

// Rows kernel: the destination's innermost dimension X runs along threadIdx.x, the other (outer)
// dimensions form rows along threadIdx.y. Each thread moves SL_COPY_ILP groups of V elements,
// loads first, then stores. V > 1 needs dx == 1: every group is one aligned V-element store.
// MODE 0 gathers the V source elements one by one (any sx); MODE 1 loads them as one aligned
// vector (sx == 1); MODE 2 loads the vector that ends at the group's first element and reverses it
// (sx == -1, e.g. a window stride of -1).
template <int E, int V, int MODE>
__global__ void __launch_bounds__(SL_THREADS) sl_copy_rows(const char* src_, char* dst_, const Geo g) {
    typedef typename Bits<E>::type T;
    typedef Pack<T, V> P;
    const T* __restrict__ src = reinterpret_cast<const T*>(src_);
    T* __restrict__ dst = reinterpret_cast<T*>(dst_);
    const long long TX = blockDim.x, TY = blockDim.y;
    for (long long b = blockIdx.x; b < g.nblocks; b += gridDim.x) {
        const long long bx = b % g.tiles_x, by = b / g.tiles_x;
        const long long row = by * TY + threadIdx.y;
        if (row >= g.rows) continue;
        long long so, dO;
        sl_decompose(g, row, so, dO);
        const long long x0 = bx * TX * SL_COPY_ILP + threadIdx.x;
        P v[SL_COPY_ILP];
#pragma unroll
        for (int k = 0; k < SL_COPY_ILP; ++k) {
            const long long x = x0 + k * TX;
            if (x < g.nx) {
                if (MODE == 0) {
#pragma unroll
                    for (int j = 0; j < V; ++j) v[k].v[j] = src[so + (x * V + j) * g.sx];
                } else if (MODE == 1) {
                    v[k] = *reinterpret_cast<const P*>(src + so + x * V);
                } else {
                    const P t = *reinterpret_cast<const P*>(src + so - x * V - (V - 1));
#pragma unroll
                    for (int j = 0; j < V; ++j) v[k].v[j] = t.v[V - 1 - j];
                }
            }
        }
#pragma unroll
        for (int k = 0; k < SL_COPY_ILP; ++k) {
            const long long x = x0 + k * TX;
            if (x < g.nx) {
                if (V == 1)
                    dst[dO + x * g.dx] = v[k].v[0];
                else
                    *reinterpret_cast<P*>(dst + dO + x * V) = v[k];
            }
        }
    }
}

// Tiled kernel, for views whose innermost dimensions differ (NCHW <-> NHWC): X is innermost in
// the source, Y in the destination. A TILE x TILE tile is read along X, kept in shared memory,
// and written along Y, so both sides are coalesced. Blocks are (X tile, Y tile, outer row).
template <int E>
__global__ void __launch_bounds__(SL_THREADS) sl_copy_tiled(const char* src_, char* dst_, const Geo g) {
    typedef typename Bits<E>::type T;
    constexpr int TILE = E <= 2 ? 64 : 32;
    constexpr int PAD = E == 1 ? 4 : (E == 2 ? 2 : 1);  // an odd number of 4-byte words per row
    constexpr int ROWS = SL_THREADS / TILE;             // tile rows per pass of the block
    constexpr int PER = TILE / ROWS;
    __shared__ T tile[TILE][TILE + PAD];
    const T* __restrict__ src = reinterpret_cast<const T*>(src_);
    T* __restrict__ dst = reinterpret_cast<T*>(dst_);
    const int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
    for (long long b = blockIdx.x; b < g.nblocks; b += gridDim.x) {
        long long t = b;
        const long long x0 = (t % g.tiles_x) * TILE;
        t /= g.tiles_x;
        const long long y0 = (t % g.tiles_y) * TILE;
        const long long row = t / g.tiles_y;
        long long so, dO;
        sl_decompose(g, row, so, dO);
        {  // in along X: thread (tx, ty) reads x = tx, y = ty + q * ROWS
            const bool xin = x0 + tx < g.nx;
            const T* p = src + so + (x0 + tx) * g.sx + (y0 + ty) * g.sy;
            const long long step = ROWS * g.sy;
            T v[PER];
#pragma unroll
            for (int q = 0; q < PER; ++q) v[q] = (xin && y0 + ty + q * ROWS < g.ny) ? p[q * step] : T(0);
#pragma unroll
            for (int q = 0; q < PER; ++q) tile[ty + q * ROWS][tx] = v[q];
        }
        __syncthreads();
        {  // out along Y: thread (tx, ty) writes y = tx, x = ty + q * ROWS
            const bool yin = y0 + tx < g.ny;
            T* p = dst + dO + (y0 + tx) * g.dy + (x0 + ty) * g.dx;
            const long long step = ROWS * g.dx;
#pragma unroll
            for (int q = 0; q < PER; ++q)
                if (yin && x0 + ty + q * ROWS < g.nx) p[q * step] = tile[tx][ty + q * ROWS];
        }
        __syncthreads();
    }
}
