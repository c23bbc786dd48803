// stridelab scans along lines: the axis innermost in memory for both views.

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
        A carry = K::identity();
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
                    x[j] = j == 0 ? e : K::op(x[j - 1], e);
                }
                A excl, seg;
                sl_warp_scan<K, 32>(x[V - 1], L, p, excl, seg);
                if (!partial && k < k1) {
                    const A base = K::op(carry, excl);
                    A r[V];
#pragma unroll
                    for (int j = 0; j < V; ++j) {
                        if (!EXCL) r[j] = K::op(base, x[j]);
                        else if (j != 0) r[j] = K::op(base, x[j - 1]);
                        else r[j] = k == 0 && exclusive == 1 ? K::first() : base;
                    }
                    sl_store_group<K, V, REV>(dst, dO, k, g.da, r);
                }
                carry = K::op(carry, seg);
            }
        }
        if (partial && p == 0 && unit < units) partial[unit] = carry;
    }
}
