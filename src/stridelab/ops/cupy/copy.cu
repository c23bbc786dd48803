// stridelab copies: dst[c] = src[c] between two strided views (SLICE1, ELEMENT_WISE_IDENTITY).
//
// src and dst point at the element of coordinate 0 of each view; strides are in elements and may
// be negative. E is the element size in bytes: a copy moves bits, so one instantiation serves
// every data type of that size.

#define SL_COPY_ILP 4

// Rows kernel: the destination's innermost dimension X runs along threadIdx.x, the other (outer)
// dimensions form rows along threadIdx.y. Each thread moves SL_COPY_ILP groups of V elements,
// loads first, then stores. V > 1 needs dx == 1: every group is one aligned V-element store.
// The source elements of a group are read by MODE:
//   0: one by one (any sx);
//   1: one aligned vector (sx == 1);
//   2: the vector that ends at the group's first element, reversed (sx == -1);
//   3: two aligned vectors, every other element (sx == 2; the last group of a row, whose second
//      vector would reach one element past the row, is read one by one);
//   4: the two vectors that end at the group's first element, every other one, reversed (sx == -2).
template <int E, int V, int MODE>
__global__ void __launch_bounds__(SL_THREADS) sl_copy_rows(const char* src_, char* dst_, const Geo g) {
    typedef typename Bits<E>::type T;
    typedef Pack<T, V> P;
    const T* __restrict__ src = reinterpret_cast<const T*>(src_);
    T* __restrict__ dst = reinterpret_cast<T*>(dst_);
    const long long TX = blockDim.x, TY = blockDim.y;
    for (long long b = blockIdx.x; b < g.nblocks; b += gridDim.x) {
        long long bx;
        const long long by = sl_div(b, g.tiles_x, bx);
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
                if (MODE == 0 || (MODE == 3 && x == g.nx - 1)) {
#pragma unroll
                    for (int j = 0; j < V; ++j) v[k].v[j] = src[so + (x * V + j) * g.sx];
                } else if (MODE == 1) {
                    v[k] = *reinterpret_cast<const P*>(src + so + x * V);
                } else if (MODE == 2) {
                    const P t = *reinterpret_cast<const P*>(src + so - x * V - (V - 1));
#pragma unroll
                    for (int j = 0; j < V; ++j) v[k].v[j] = t.v[V - 1 - j];
                } else {
                    const P* p = reinterpret_cast<const P*>(src + (MODE == 3 ? so + 2 * x * V : so - 2 * x * V - (2 * V - 1)));
                    const P t0 = p[0], t1 = p[1];
#pragma unroll
                    for (int j = 0; j < V; ++j) {
                        const int i = MODE == 3 ? 2 * j : 2 * V - 1 - 2 * j;  // position in the 2V elements read
                        v[k].v[j] = i < V ? t0.v[i % V] : t1.v[i % V];
                    }
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
                    sl_store(dst + dO + x * V, v[k]);
            }
        }
    }
}

// Tiled kernel, for views whose innermost dimensions differ (NCHW <-> NHWC): X is innermost in
// the source, Y in the destination. A TILE x TILE tile is read along X, kept in shared memory,
// and written along Y, so both sides are coalesced. With W > 1 (sx == 1 and dy == 1) both sides
// move aligned vectors of W elements. Blocks are (X tile, Y tile, outer row).
template <int E, int TILE, int W>
__global__ void __launch_bounds__(SL_THREADS) sl_copy_tiled(const char* src_, char* dst_, const Geo g) {
    typedef typename Bits<E>::type T;
    typedef Pack<T, W> P;
    constexpr int PAD = E < 4 ? 4 / E : 1;  // rows of an odd number of 4-byte words (E <= 4)
    constexpr int LANES = TILE / W;          // threads along a tile row
    constexpr int ROWS = SL_THREADS / LANES; // tile rows per pass of the block
    constexpr int PASSES = TILE / ROWS;
    __shared__ T tile[TILE][TILE + PAD];
    const T* __restrict__ src = reinterpret_cast<const T*>(src_);
    T* __restrict__ dst = reinterpret_cast<T*>(dst_);
    const int tl = threadIdx.x % LANES, tr = threadIdx.x / LANES;
    for (long long b = blockIdx.x; b < g.nblocks; b += gridDim.x) {
        long long x0, y0, so, dO;
        sl_tile_block<TILE>(g, b, x0, y0, so, dO);
        {  // in along X: thread (tl, tr) reads x = tl * W .. + W - 1, y = tr + q * ROWS
            const bool xin = x0 + tl * W < g.nx;
            const T* p = src + so + (x0 + tl * W) * g.sx + (y0 + tr) * g.sy;
            const long long step = ROWS * g.sy;
            P v[PASSES];
#pragma unroll
            for (int q = 0; q < PASSES; ++q) {
                if (xin && y0 + tr + q * ROWS < g.ny) {
                    if (W == 1)
                        v[q].v[0] = p[q * step];
                    else
                        v[q] = *reinterpret_cast<const P*>(p + q * step);
                } else {
#pragma unroll
                    for (int j = 0; j < W; ++j) v[q].v[j] = T(0);
                }
            }
#pragma unroll
            for (int q = 0; q < PASSES; ++q) {
#pragma unroll
                for (int j = 0; j < W; ++j) tile[tr + q * ROWS][tl * W + j] = v[q].v[j];
            }
        }
        __syncthreads();
        {  // out along Y: thread (tl, tr) writes y = tl * W .. + W - 1, x = tr + q * ROWS
            const bool yin = y0 + tl * W < g.ny;
            T* p = dst + dO + (y0 + tl * W) * g.dy + (x0 + tr) * g.dx;
            const long long step = ROWS * g.dx;
#pragma unroll
            for (int q = 0; q < PASSES; ++q) {
                if (yin && x0 + tr + q * ROWS < g.nx) {
                    P v;
#pragma unroll
                    for (int j = 0; j < W; ++j) v.v[j] = tile[tl * W + j][tr + q * ROWS];
                    if (W == 1)
                        p[q * step] = v.v[0];
                    else
                        *reinterpret_cast<P*>(p + q * step) = v;
                }
            }
        }
        __syncthreads();
    }
}
