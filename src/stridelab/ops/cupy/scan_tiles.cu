// stridelab scans through shared-memory tiles: views whose innermost dimensions differ.

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
        for (int r = 0; r < IT; ++r) carry[r] = K::identity();
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
                for (int e = 1; e < E; ++e) x[r][e] = K::op(x[r][e - 1], x[r][e]);
                A excl, seg;
                sl_warp_scan<K, L>(x[r][E - 1], L, p, excl, seg);
                const A base = K::op(carry[r], excl);
#pragma unroll
                for (int e = 0; e < E; ++e)
                    tile[warp * RPW + r * RPI + sub][p * E + e] =
                        K::out(sl_value<K, E>(base, x[r], e, exclusive, a0 + p == 0));
                carry[r] = K::op(carry[r], seg);
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
// (vectors of E elements where VEC) through shared memory; rows of it are scanned (TA = L * E
// consecutive axis elements, E per lane; L lanes per row, so a warp scans 32 / L rows at once) and
// written straight out along the axis (E consecutive elements per lane: one vector store where VEC).
template <typename K, int E, int TX, bool VEC, int MINB, int L = 32>
__global__ void __launch_bounds__(SL_THREADS, MINB) sl_scan_tile_ay(const char* src_, char* dst_, const Geo g) {
    typedef typename K::T T;
    typedef typename K::A A;
    typedef Pack<T, E> P;
    constexpr int TA = L * E;
    constexpr int RPI = 32 / L;                  // tile rows per scan instruction of a warp
    constexpr int RPW = TX / (SL_THREADS / 32);  // tile rows per warp
    constexpr int IT = RPW / RPI;                // scans per warp and pass
    constexpr int W = VEC ? E : 1;               // elements per load along X
    constexpr int LANES = TX / W;                // threads along X in the load
    constexpr int ROWS = SL_THREADS / LANES;     // axis positions per pass of the load
    constexpr int PAD = 4 / sizeof(T);
    __shared__ T tile[TX][TA + PAD];
    const T* src = reinterpret_cast<const T*>(src_);
    T* dst = reinterpret_cast<T*>(dst_);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int p = lane % L, sub = lane / L;  // position in the row, row of the instruction
    const int tl = threadIdx.x % LANES, tr = threadIdx.x / LANES;
    const int exclusive = (int)g.exclusive;
    for (long long b = blockIdx.x; b < g.nblocks; b += gridDim.x) {
        long long tx;
        const long long row = sl_div(b, g.tiles_x, tx);
        const long long x0 = tx * TX;
        long long so, dO;
        sl_decompose(g, row, so, dO);
        const T* ps = src + so + (x0 + tl * W) * g.sx + (long long)tr * g.sa;
        T* pd = dst + dO + (x0 + warp * RPW + sub) * g.dx + (long long)(p * E) * g.da;
        const bool xin = x0 + tl * W < g.nx;
        A carry[IT];
#pragma unroll
        for (int r = 0; r < IT; ++r) carry[r] = K::identity();
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
            for (int r = 0; r < IT; ++r) {
                const int x = warp * RPW + r * RPI + sub;
                A run[E];
#pragma unroll
                for (int e = 0; e < E; ++e) run[e] = K::in(tile[x][p * E + e]);
#pragma unroll
                for (int e = 1; e < E; ++e) run[e] = K::op(run[e - 1], run[e]);
                A excl, seg;
                sl_warp_scan<K, L>(run[E - 1], L, p, excl, seg);
                const A base = K::op(carry[r], excl);
                if (x0 + x < g.nx) {
                    P o;
#pragma unroll
                    for (int e = 0; e < E; ++e) o.v[e] = K::out(sl_value<K, E>(base, run, e, exclusive, a0 + p == 0));
                    if (VEC) {
                        if (a0 + p * E < g.na) *reinterpret_cast<P*>(pd + r * RPI * g.dx) = o;
                    } else {
#pragma unroll
                        for (int e = 0; e < E; ++e)
                            if (a0 + p * E + e < g.na) pd[r * RPI * g.dx + e * g.da] = o.v[e];
                    }
                }
                carry[r] = K::op(carry[r], seg);
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
            for (int j = 0; j < W; ++j) acc[q][j] = K::identity();
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
                                o.v[j] = (k0 + s == 0 && exclusive == 1) ? K::out(K::first()) : K::out(acc[q][j]);
                                acc[q][j] = K::op(acc[q][j], xv);
                            } else {
                                acc[q][j] = K::op(acc[q][j], xv);
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
            for (int j = 0; j < V; ++j) acc[p][j] = K::identity();
        }
        const bool first_zero = EXCL && exclusive == 1;  // the axis's first value is K::first()
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
                            acc[p][j] = K::op(acc[p][j], xv);
                        } else {
                            acc[p][j] = K::op(acc[p][j], xv);
                            r[j] = acc[p][j];
                        }
                    }
                    if (s == 0 && k0 == 0 && first_zero) {
#pragma unroll
                        for (int j = 0; j < V; ++j) r[j] = K::first();
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
