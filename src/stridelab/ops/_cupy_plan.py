"""Launch plans for the CuPy kernels (``cuda/*.cu``), worked out in plain Python ints.

A plan turns a source and a destination view (sizes, signed element strides, and where element 0
of each lies modulo 16 bytes) into kernel launches. It never sees a buffer, so it needs neither
CuPy nor a GPU, and :mod:`stridelab.ops._cupy` memoises it: a repeated call costs one dictionary
look-up. The steps:

1. Drop dimensions of size 1 and reverse those the destination walks backwards (both views
   together, so the pairs of elements moved stay the same); a scan keeps its axis as it is, since
   the order of its running tally matters.
2. Sort the dimensions by destination stride and merge neighbours that are contiguous in both
   views: a packed copy becomes one long row whatever its rank.
3. Pick the kernel from where each view's innermost dimension lies, so that loads and stores are
   both coalesced: rows (same innermost dimension; 16-byte vectors where sizes, strides and
   addresses allow), or a shared-memory tile (innermost dimensions differ, as NCHW against NHWC).
   A scan runs along lines (axis innermost: lanes of a warp share a line), down columns (axis
   outer: a thread per column, or, for columns too few to fill the device, the warps of a block
   sharing 32 columns and splitting the axis) or through a tile (the axis
   innermost in one view only, or in neither: then, where 16-byte vectors fit, a wide tile whose
   block stages chunks of the axis in shared memory ahead of its scan); a long line or column with
   little else to run in parallel is cut into chunks, scanned in three passes (chunk totals, their
   exclusive scan, the chunks again from those carries).

The kernels' geometry is a flat tuple of 64-bit ints in the order of ``struct Geo`` in
``cuda/common.cuh`` (:data:`GEO_FIELDS`).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

__all__ = [
    "COPY_KERNELS",
    "GEO_FIELDS",
    "GEO_LEN",
    "SCAN_KERNELS",
    "SCAN_TYPES",
    "CopyPlan",
    "Launch",
    "ScanPlan",
    "plan_copy",
    "plan_scan",
]

MAX_DIMS = 8
THREADS = 256
SHARED_DEFAULT = 48 * 1024  # shared memory every CUDA device gives a block without opting in
COPY_ILP = 4  # SL_COPY_ILP in copy.cu
GRID_CAP = 2**31 - 1
VECTOR_BYTES = 16

#: ``struct Geo`` field by field: (name, count).
GEO_FIELDS: tuple[tuple[str, int], ...] = (
    ("n", MAX_DIMS),
    ("s", MAX_DIMS),
    ("d", MAX_DIMS),
    *((name, 1) for name in "nd rows nx sx dx ny sy dy na sa da chunk nchunks".split()),
    *((name, 1) for name in "tiles_x tiles_y nblocks lanes exclusive".split()),
)
GEO_LEN = sum(count for _, count in GEO_FIELDS)

#: DirectML type of a scan -> (kernel traits in scan.cu, element bytes, traits of its accumulator).
SCAN_TYPES = {
    "FLOAT32": ("F32", 4, "FLOAT32"),
    "FLOAT16": ("F16", 2, "FLOAT32"),
    "UINT32": ("U32", 4, "UINT32"),
    "UINT16": ("U16", 2, "UINT32"),
}
_TRAITS_BYTES = {"F32": 4, "F16": 2, "U32": 4, "U16": 2}


#: Shapes of the tiled kernels, by element size, chosen from measurements on an H200 (see
#: benchmarks/RESULTS.md). A copy tile is (TILE, W): TILE x TILE elements, W-element vectors
#: on both sides; (vectorised, element by element). A scan tile along the axis (AX: the axis
#: innermost in the source, AY: in the destination) is (E, VEC, TILE, MINB[, L]): E axis elements
#: per lane (one vector per access where VEC), L lanes per row (32 unless given; AX only), so
#: TA = L * E axis elements per pass, TILE elements
#: across, MINB blocks a multiprocessor must hold (__launch_bounds__ caps the registers to fit
#: them); (vectorised candidates, element by element): the first candidate whose pass fits in the
#: axis (the last where none does) and whose vectors fit is taken, so a short axis wastes no lanes.
#: The 64-element float16 pass takes 16 lanes of 4 elements per row (8-byte loads and stores, two
#: rows per warp instruction, half the shuffles of 32 lanes of 2) and 8 blocks (32 registers, a few
#: bytes spilled): NHWC -> NCHW along C 106.4 -> 80.3 us on an H200. Its blocks make one pass
#: each, so only more of them overlap loads with the scan and the stores.
#: A scan tile with the axis outside is (TILE, S, W, MINB): S axis steps per barrier pair, MINB as
#: above; (vectorised with many blocks, with few blocks, element by element). The few-blocks
#: float16 tile (1024 blocks for a 256-step axis) takes 8 blocks, one wave instead of about 1.5;
#: 32 x 32 tiles of 4-byte pairs (256 blocks, 8 or 16 steps) measured slower: 112 -> 176-178 us.
#: MINB 0 sets no bound: the kernel as it was before MINB existed. A bound of 1 is not the same:
#: ptxas then takes more registers (float32 AX tile 36 -> 46, AY 40 -> 61, float16 64 x 64 tile
#: with the axis outside 54 -> 70), and six rows on those tiles ran 5-16% slower with it.
COPY_TILES = {1: ((64, 4), (64, 1)), 2: ((64, 4), (64, 1)), 4: ((64, 2), (64, 1)), 8: ((32, 2), (32, 1))}
#: Rows copies whose source steps by 2 or -2 take vectors of this many elements, by element size
#: (16 bytes where not listed): 8 bytes for float32 and float16. Measured on an H200, the (1, 2, 2,
#: -2) slice of (16, 64, 256, 256): float32 8-byte vectors 28.4 us, 16-byte 29.0 us; float16
#: 8-byte 15.4 us, 16-byte 15.6 us, 4-byte 17.2 us (4-byte ones were faster only while vector
#: stores were split into 4-byte pieces, before sl_store).
COPY_STRIDE2_VECTOR: dict[int, int] = {4: 2, 2: 4}
SCAN_AX_TILES = {
    4: (((2, True, 32, 0),), (1, False, 32, 0)),
    2: (((8, True, 32, 0), (4, True, 64, 0), (4, True, 64, 8, 16), (2, True, 64, 8)), (2, False, 32, 0)),
}
SCAN_AY_TILES = {
    4: (((4, True, 32, 0), (2, True, 32, 0)), (1, False, 32, 0)),
    2: (((8, True, 32, 0), (4, True, 64, 0), (2, True, 64, 8)), (2, False, 32, 0)),
}
SCAN_OUTER_TILES = {
    4: ((32, 8, 2, 0), (32, 8, 2, 0), (32, 8, 1, 0)),
    2: ((64, 2, 4, 0), (16, 8, 1, 8), (32, 8, 1, 0)),
}
#: Tiles across the axis where 16-byte vectors fit both views, along an axis of at least
#: SCAN_STAGED_MIN_CHUNKS chunks, with at least SCAN_STAGED_MIN_TILES_PER_SM tiles a multiprocessor,
#: are staged (sl_scan_tile_staged) where the device gives a block the shared memory for it:
#: (TX, TY, CH, STAGES) by element size, a TX x TY tile a block walking the axis in chunks of CH
#: steps copied STAGES - 1 chunks ahead (float16 128 KiB, float32 192 KiB). On an H200, (16, 64,
#: 256, 256) NHWC -> NCHW along H: float16 111.7 -> 79.5 us (76.2 us once its steps unrolled),
#: float32 160.8 -> 152.1 us (float16 with 3 stages 80.0 us, 24 steps 78.6 us; float32 8 steps
#: 161.8 us, 2 stages 154.2 us, 64 x 32 tiles 155.1-156.5 us). A staged block walks its chunks one
#: after the other: float16 took 51-53 us for 8 to 64 tiles (N = 1 to 8) where the
#: element-by-element tile took 28-29 us for 8-16 tiles and 50 us for 32; float32 was faster
#: staged at every count measured (16 tiles: 30.1 against 54.4 us).
SCAN_STAGED_TILES = {2: (64, 32, 16, 2), 4: (32, 32, 16, 3)}
SCAN_STAGED_MIN_CHUNKS = 2
SCAN_STAGED_MIN_TILES_PER_SM = {2: 0.5, 4: 0.0}
#: Columns scans take the widest vectors that fit, or vectors of at most COLS_FEW_VECTOR_BYTES
#: where the widest would leave fewer threads than this per multiprocessor; each thread loads
#: COLS_STEPS steps ahead. Columns of vectors of at most COLS_PIPELINE[0] bytes along a chunk of at
#: least COLS_PIPELINE[1] steps (the whole axis where it is not cut) are double-buffered: the next
#: steps are loaded before the current ones are summed and stored (on an H200, packed (16, 64, 256,
#: 256) along H: float16 75.4 -> 74.1 us, float32 143.5 -> 142.0 us; 16 steps ahead without it:
#: 75.4, 143.0 us). Chunks of a cut axis are whole multiples of COLS_STEPS steps.
COLS_THREADS_PER_SM = 512
COLS_FEW_VECTOR_BYTES = 8
COLS_STEPS = 8
COLS_PIPELINE = (8, 128)
#: Columns too few for a thread each to fill the device (fewer than COLS_SPLIT_BELOW threads per
#: multiprocessor, but at least 4 blocks of 32 columns per multiprocessor) along an axis of at
#: least 8 * steps are split: the 8 warps of a block share 32 columns, each loading steps
#: consecutive steps of every pass (sl_scan_cols_split). COLS_SPLIT[element size] = (steps,
#: vector bytes, MINB): 0 bytes, the vectors the columns scan would take; else vectors of these
#: bytes (columns without them are not split: float16 in 4-byte vectors took 87.5 us); MINB as for
#: SCAN_OUTER_TILES (2: at most 128 registers a thread, two blocks a multiprocessor). On an H200,
#: (16, 64, 256, 256) along H: float32 packed 142.6 -> 137.0 us, NHWC 141.4 -> 133.7 us; float16
#: packed 73.9 -> 72.9-73.1 us, NHWC 73.7 -> 71.1-71.3 us, NHWC along W 74.5 -> 75.1-75.4 us
#: (float16 with 16 steps: packed 74.6 us in 8-byte vectors, 81.1 us in 16-byte ones; 4 steps
#: 80.9-82.1 us; 8 steps of 8-byte vectors 74.8 us).
COLS_SPLIT_BELOW = 2048
COLS_SPLIT = {4: (16, 0, 0), 2: (8, 16, 2)}
#: Lines scans of 16-byte vectors: vectors per lane per step (C, segments of a step), the most of
#: these that leaves each line at least LINES_MIN_LANES lanes (more vectors in flight per lane, but
#: each load instruction then covers shorter runs of each line); element-by-element lines take
#: LINES_SCALAR[element size].
LINES_VECTORS = (4, 2, 1)
LINES_MIN_LANES = 4
LINES_SCALAR = {4: 2, 2: 1}


def _copy_kernels() -> tuple[str, ...]:
    names = []
    for e in (1, 2, 4, 8):
        names.append(f"sl_copy_rows<{e}, 1, 0>")
        names.extend(f"sl_copy_rows<{e}, {VECTOR_BYTES // e}, {mode}>" for mode in range(5))
        if e in COPY_STRIDE2_VECTOR:
            names.extend(f"sl_copy_rows<{e}, {COPY_STRIDE2_VECTOR[e]}, {mode}>" for mode in (0, 3, 4))
        names.extend(f"sl_copy_tiled<{e}, {t}, {w}>" for t, w in COPY_TILES[e])
    return tuple(names)


def _vector_widths(esize: int) -> list[int]:
    return [1 << i for i in range((VECTOR_BYTES // esize).bit_length())]


def _axis_tile_kernel(kind: str, traits: str, tile: tuple) -> str:
    """Template name of an axis tile (E, VEC, TILE, MINB[, L]); L (lanes per row) defaults to 32."""
    e, vec, t, minb, *lanes = tile
    extra = f", {lanes[0]}" if lanes and lanes[0] != 32 else ""
    return f"sl_scan_tile_{kind}<{traits}, {e}, {t}, {str(vec).lower()}, {minb}{extra}>"


def _staged_kernel(traits: str, shape: tuple[int, int, int, int], exclusive: bool) -> str:
    return f"sl_scan_tile_staged<{traits}, {', '.join(map(str, shape))}, {str(exclusive).lower()}>"


def _scan_kernels() -> tuple[str, ...]:
    names = []
    for traits, e in _TRAITS_BYTES.items():
        v = VECTOR_BYTES // e
        for x in ("false", "true"):
            names += [f"sl_scan_lines<{traits}, 1, {LINES_SCALAR[e]}, false, {x}>"]
            names += [f"sl_scan_lines<{traits}, {v}, {c}, {b}, {x}>" for c in LINES_VECTORS for b in ("false", "true")]
        names += [f"sl_scan_cols<{traits}, {w}, {COLS_STEPS}, false>" for w in _vector_widths(e)]
        piped = [w for w in _vector_widths(e) if w * e <= COLS_PIPELINE[0]]
        names += [f"sl_scan_cols<{traits}, {w}, {COLS_STEPS}, true>" for w in piped]
        if e in COLS_SPLIT:
            steps, vector_bytes, minb = COLS_SPLIT[e]
            widths = [vector_bytes // e] if vector_bytes else _vector_widths(e)
            names += [f"sl_scan_cols_split<{traits}, {w}, {steps}, {minb}>" for w in widths]
        for kind, (vectorised, scalar) in (("ax", SCAN_AX_TILES[e]), ("ay", SCAN_AY_TILES[e])):
            names += [_axis_tile_kernel(kind, traits, t) for t in (*vectorised, scalar)]
        names += [f"sl_scan_tile_an<{traits}, {t}, {s}, {w}, {m}>" for t, s, w, m in dict.fromkeys(SCAN_OUTER_TILES[e])]
        names += [_staged_kernel(traits, SCAN_STAGED_TILES[e], x) for x in (False, True)]
    return tuple(names)


#: Every template instantiation the loader asks NVRTC for (``name_expressions``).
COPY_KERNELS = _copy_kernels()
SCAN_KERNELS = _scan_kernels()


@dataclass(frozen=True)
class Launch:
    """One kernel launch: template name, 1-D grid of ``block`` threads, geometry, and the bytes of
    dynamic shared memory a block takes."""

    kernel: str
    grid: int
    block: tuple[int, int]
    geo: tuple[int, ...]
    shared: int = 0

    @property
    def carries(self) -> bool:
        """Whether the kernel takes the two chunk-total pointers (``partial``, ``carry_in``) after
        ``src`` and ``dst``: the lines and columns scans do; the split columns scan, the tiled scans
        and the copies do not."""
        return self.kernel.startswith(("sl_scan_lines<", "sl_scan_cols<"))


@dataclass(frozen=True)
class CopyPlan:
    """A copy: shift each view's element 0 by these elements (dimensions reversed), then launch."""

    src_shift: int
    dst_shift: int
    launch: Launch


@dataclass(frozen=True)
class ScanPlan:
    """A scan in one pass (``first`` is None) or three: ``first`` writes each chunk's total to a
    temporary of ``partial_count`` accumulators of type ``partial_type``, ``partial_plan`` scans
    them in place (exclusive), ``launch`` scans the chunks from those carries."""

    src_shift: int
    dst_shift: int
    launch: Launch
    first: Launch | None = None
    partial_count: int = 0
    partial_type: str = ""
    partial_plan: ScanPlan | None = None


Dim = tuple[int, int, int]  # (size, source stride, destination stride)


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _pow2_at_least(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def _prepare(sizes, src_strides, dst_strides, keep: int | None) -> tuple[list[Dim], int, int]:
    """Steps 1 and 2: the dimensions other than ``keep``, outermost first, size-1 ones dropped,
    all destination strides made positive, contiguous neighbours merged; and the element shifts of
    the two views' element 0 that the reversals imply."""
    shift_s = shift_d = 0
    dims = []
    for i, (n, s, d) in enumerate(zip(sizes, src_strides, dst_strides)):
        if i == keep or n == 1:
            continue
        if d < 0 or (d == 0 and s < 0):
            shift_s += (n - 1) * s
            shift_d += (n - 1) * d
            s, d = -s, -d
        dims.append((n, s, d))
    dims.sort(key=lambda t: (t[2], abs(t[1])), reverse=True)
    merged: list[Dim] = []
    for n, s, d in dims:
        if merged and merged[-1][1] == n * s and merged[-1][2] == n * d:
            merged[-1] = (merged[-1][0] * n, s, d)
        else:
            merged.append((n, s, d))
    return merged, shift_s, shift_d


def _geo(outer: list[Dim], **fields: int) -> tuple[int, ...]:
    """The flat ``struct Geo`` for outer dimensions ``outer`` (outermost first) and named fields."""
    inner_first = outer[::-1]
    pad = [0] * (MAX_DIMS - len(inner_first))
    values = {
        "n": [t[0] for t in inner_first] + [1] * len(pad),
        "s": [t[1] for t in inner_first] + pad,
        "d": [t[2] for t in inner_first] + pad,
        "nd": len(inner_first),
        "rows": prod(t[0] for t in outer),
    }
    values.update(fields)
    flat: list[int] = []
    for name, count in GEO_FIELDS:
        v = values.get(name, 0)
        flat.extend(v if count > 1 else [v])
    return tuple(int(v) for v in flat)


def _launch(kernel: str, nblocks: int, block: tuple[int, int], geo: tuple[int, ...], shared: int = 0) -> Launch:
    return Launch(kernel, min(max(nblocks, 1), GRID_CAP), block, geo, shared)


def _aligned(align: int, shift_bytes: int, to: int) -> bool:
    return (align + shift_bytes) % to == 0


def _innermost(dims: list[Dim], col: int, prefer: int | None) -> int | None:
    """Index of the dimension with the smallest non-zero |stride| (column 1: source, 2:
    destination) among those of size > 1; ties go to ``prefer``, then to the later dimension."""
    best = None
    for i, t in enumerate(dims):
        if t[0] > 1 and t[col] != 0:
            key = (abs(t[col]), i != prefer, -i)
            if best is None or key < best[0]:
                best = (key, i)
    return None if best is None else best[1]


# ----------------------------------------------------------------------------------------------- copies


def plan_copy(esize: int, sizes, src_strides, dst_strides, src_align: int, dst_align: int) -> CopyPlan:
    """Plan ``dst[c] = src[c]`` for elements of ``esize`` bytes; ``*_align``: the byte address of
    each view's element 0 modulo 16."""
    dims, shift_s, shift_d = _prepare(sizes, src_strides, dst_strides, None)
    if not dims:
        dims = [(1, 1, 1)]
    src_align = (src_align + shift_s * esize) % VECTOR_BYTES
    dst_align = (dst_align + shift_d * esize) % VECTOR_BYTES
    y = len(dims) - 1
    x = _innermost(dims, 1, prefer=y)
    ny, sy, _ = dims[y]
    if x is not None and x != y and abs(sy) * esize >= 16 and dims[x][0] >= 8 and ny >= 8:
        launch = _copy_tiled(esize, dims, x, y, src_align, dst_align)
    else:
        launch = _copy_rows(esize, dims, src_align, dst_align)
    return CopyPlan(shift_s, shift_d, launch)


def _copy_tiled(esize: int, dims: list[Dim], x: int, y: int, src_align: int, dst_align: int) -> Launch:
    outer = [t for i, t in enumerate(dims) if i not in (x, y)]
    (nx, sx, dx), (ny, sy, dy) = dims[x], dims[y]
    (tile, w), scalar = COPY_TILES[esize]
    vector_ok = (
        sx == 1
        and dy == 1
        and nx % w == 0
        and ny % w == 0
        and sy % w == 0
        and dx % w == 0
        and _vector_ok(outer, w)
        and _aligned(src_align, 0, w * esize)
        and _aligned(dst_align, 0, w * esize)
    )
    if not vector_ok:
        tile, w = scalar
    tiles_x, tiles_y = _cdiv(nx, tile), _cdiv(ny, tile)
    nblocks = tiles_x * tiles_y * prod(t[0] for t in outer)
    geo = _geo(outer, nx=nx, sx=sx, dx=dx, ny=ny, sy=sy, dy=dy, tiles_x=tiles_x, tiles_y=tiles_y, nblocks=nblocks)
    return _launch(f"sl_copy_tiled<{esize}, {tile}, {w}>", nblocks, (THREADS, 1), geo)


def _copy_rows(esize: int, dims: list[Dim], src_align: int, dst_align: int) -> Launch:
    outer = dims[:-1]
    nx, sx, dx = dims[-1]
    v, mode = 1, 0
    vmax = VECTOR_BYTES // esize
    if abs(sx) == 2:
        vmax = COPY_STRIDE2_VECTOR.get(esize, vmax)
    if dx == 1 and nx % vmax == 0 and all(t[2] % vmax == 0 for t in outer) and _aligned(dst_align, 0, vmax * esize):
        v = vmax
        src_ok = all(t[1] % vmax == 0 for t in outer)
        back = {1: 0, -1: -(vmax - 1), 2: 0, -2: -(2 * vmax - 1)}.get(sx)  # first element read, from the group's
        if src_ok and back is not None and _aligned(src_align, back * esize, vmax * esize):
            mode = {1: 1, -1: 2, 2: 3, -2: 4}[sx]
    groups = nx // v
    tx = min(THREADS, _pow2_at_least(_cdiv(groups, COPY_ILP)))
    ty = THREADS // tx
    rows = prod(t[0] for t in outer)
    tiles_x, tiles_y = _cdiv(groups, tx * COPY_ILP), _cdiv(rows, ty)
    nblocks = tiles_x * tiles_y
    geo = _geo(outer, nx=groups, sx=sx, dx=dx, tiles_x=tiles_x, tiles_y=tiles_y, nblocks=nblocks)
    return _launch(f"sl_copy_rows<{esize}, {v}, {mode}>", nblocks, (tx, ty), geo)


# ----------------------------------------------------------------------------------------------- scans


def plan_scan(
    data_type: str,
    sizes,
    src_strides,
    dst_strides,
    axis: int,
    exclusive: bool,
    src_align: int,
    dst_align: int,
    sm_count: int,
    chunks: bool = True,
    *,
    shared_limit: int = SHARED_DEFAULT,
) -> ScanPlan:
    """Plan the running tally along ``axis`` (increasing coordinates) of a ``data_type`` view.
    ``sm_count`` (multiprocessors) decides when a long axis is worth cutting into chunks;
    ``shared_limit`` (bytes of shared memory a block may be given) which staged tiles fit."""
    traits, esize, _ = SCAN_TYPES[data_type]
    others, shift_s, shift_d = _prepare(sizes, src_strides, dst_strides, axis)
    src_align = (src_align + shift_s * esize) % VECTOR_BYTES
    dst_align = (dst_align + shift_d * esize) % VECTOR_BYTES
    na, sa, da = sizes[axis], src_strides[axis], dst_strides[axis]
    dims = [*others, (na, sa, da)]
    a = len(others)
    src_in = _innermost(dims, 1, prefer=a)
    dst_in = _innermost(dims, 2, prefer=a)
    if dst_in is None:
        dst_in = a
    ex = int(exclusive)  # 2 (internal): exclusive, first value the identity (chunk totals)
    ctx = (data_type, traits, esize, others, (na, sa, da), ex, src_align, dst_align, sm_count, chunks)

    def small(i: int) -> bool:
        return dims[i][0] < 8

    if dst_in == a:
        if src_in in (None, a) or abs(sa) * esize <= 8 or small(src_in):
            return _scan_lines(ctx, shift_s, shift_d)
        return _scan_tile_along(ctx, shift_s, shift_d, "ay", src_in)
    if src_in == a:
        if abs(da) * esize <= 8 or small(dst_in):
            return _scan_lines(ctx, shift_s, shift_d)
        return _scan_tile_along(ctx, shift_s, shift_d, "ax", dst_in)
    if src_in is None or src_in == dst_in or abs(dims[dst_in][1]) * esize <= 8 or small(src_in) or small(dst_in):
        return _scan_cols(ctx, shift_s, shift_d)
    return _scan_tile_an(ctx, shift_s, shift_d, src_in, dst_in, shared_limit)


def _vector_ok(dims: list[Dim], v: int) -> bool:
    return all(t[1] % v == 0 and t[2] % v == 0 for t in dims)


def _vectors_fit(w: int, esize: int, src_align: int, dst_align: int, strides: list[int], *sizes: int) -> bool:
    """Whether every access of ``w``-element vectors is aligned: ``strides`` (of the other
    dimensions) and ``sizes`` (of the vectorised ones) multiples of ``w``, element 0 of both views
    on a ``w * esize`` byte boundary."""
    return (
        all(s % w == 0 for s in strides)
        and all(n % w == 0 for n in sizes)
        and _aligned(src_align, 0, w * esize)
        and _aligned(dst_align, 0, w * esize)
    )


def _scan_lines(ctx, shift_s: int, shift_d: int) -> ScanPlan:
    data_type, traits, esize, outer, (na, sa, da), ex, src_align, dst_align, sm_count, chunks = ctx
    vmax = VECTOR_BYTES // esize
    v, rev = 1, False
    if sa == da and abs(sa) == 1 and na % vmax == 0 and _vector_ok(outer, vmax):
        back = -(vmax - 1) * esize if sa < 0 else 0
        if _aligned(src_align, back, VECTOR_BYTES) and _aligned(dst_align, back, VECTOR_BYTES):
            v, rev = vmax, sa < 0
    rows = prod(t[0] for t in outer)
    if v > 1:
        c = next((c for c in LINES_VECTORS if na >= LINES_MIN_LANES * c * v), LINES_VECTORS[-1])
    else:
        c = LINES_SCALAR[esize]
    group = c * v  # elements per lane per step
    nchunks, chunk = 1, na
    warps_wanted = sm_count * 64
    if chunks and rows < warps_wanted and na > 32 * group * 16:
        nchunks = min(_cdiv(2 * warps_wanted, rows), _cdiv(na, 32 * group * 16))
        chunk = _cdiv(_cdiv(na, nchunks), 32 * group) * 32 * group
        nchunks = _cdiv(na, chunk)
    lanes = 32 if nchunks > 1 else min(32, _pow2_at_least(_cdiv(na, group)))
    units = rows * nchunks
    nblocks = _cdiv(units, (THREADS // 32) * (32 // lanes))
    geo = _geo(outer, na=na, sa=sa, da=da, chunk=chunk, nchunks=nchunks, nblocks=nblocks, lanes=lanes, exclusive=ex)
    kernel = f"sl_scan_lines<{traits}, {v}, {c}, {str(rev).lower()}, {str(ex != 0).lower()}>"
    launch = _launch(kernel, nblocks, (THREADS, 1), geo)
    if nchunks == 1:
        return ScanPlan(shift_s, shift_d, launch)
    acc = SCAN_TYPES[data_type][2]
    partials = plan_scan(acc, (rows, nchunks), (nchunks, 1), (nchunks, 1), 1, 2, 0, 0, sm_count, chunks=False)
    return ScanPlan(shift_s, shift_d, launch, launch, units, acc, partials)


def _columns(outer: list[Dim], v: int) -> list[Dim]:
    """The outer dimensions with the innermost one counted in vectors of ``v`` elements."""
    if v == 1:
        return outer
    nx = outer[-1][0]
    return [*outer[:-1], (nx // v, v, v)]


def _scan_cols(ctx, shift_s: int, shift_d: int) -> ScanPlan:
    data_type, traits, esize, outer, (na, sa, da), ex, src_align, dst_align, sm_count, chunks = ctx
    widest = 1  # elements of the widest vectors that fit, along the innermost dimension
    if outer and outer[-1][1] == outer[-1][2] == 1:
        strides = [sa, da, *(s for t in outer[:-1] for s in t[1:])]
        fit = [w for w in _vector_widths(esize) if _vectors_fit(w, esize, src_align, dst_align, strides, outer[-1][0])]
        widest = fit[-1]
    elements = prod(t[0] for t in outer)
    v = widest
    if elements // v < sm_count * COLS_THREADS_PER_SM:  # few columns: more threads
        v = min(v, max(1, COLS_FEW_VECTOR_BYTES // esize))
    if esize in COLS_SPLIT:
        steps, vector_bytes, minb = COLS_SPLIT[esize]
        sv = vector_bytes // esize if vector_bytes else v
        cols = elements // sv
        if sv <= widest and sm_count * 32 * 4 <= cols < sm_count * COLS_SPLIT_BELOW and na >= 8 * steps:
            nblocks = _cdiv(cols, 32)
            geo = _geo(_columns(outer, sv), na=na, sa=sa, da=da, nblocks=nblocks, exclusive=ex)
            kernel = f"sl_scan_cols_split<{traits}, {sv}, {steps}, {minb}>"
            return ScanPlan(shift_s, shift_d, _launch(kernel, nblocks, (THREADS, 1), geo))
    outer = _columns(outer, v)
    cols = elements // v
    nchunks, chunk = 1, na
    if chunks and cols < sm_count * 128 and na >= 64:
        nchunks = min(_cdiv(sm_count * 2048 * 2, cols), _cdiv(na, 16))
        chunk = _cdiv(_cdiv(na, nchunks), COLS_STEPS) * COLS_STEPS
        nchunks = _cdiv(na, chunk)
    nblocks = _cdiv(cols * nchunks, THREADS)
    geo = _geo(outer, na=na, sa=sa, da=da, chunk=chunk, nchunks=nchunks, nblocks=nblocks, exclusive=ex)
    pipe = v * esize <= COLS_PIPELINE[0] and chunk >= COLS_PIPELINE[1]
    kernel = f"sl_scan_cols<{traits}, {v}, {COLS_STEPS}, {str(pipe).lower()}>"
    launch = _launch(kernel, nblocks, (THREADS, 1), geo)
    if nchunks == 1:
        return ScanPlan(shift_s, shift_d, launch)
    acc = SCAN_TYPES[data_type][2]
    width = cols * v
    partials = plan_scan(acc, (nchunks, width), (width, 1), (width, 1), 0, 2, 0, 0, sm_count, chunks=False)
    return ScanPlan(shift_s, shift_d, launch, launch, nchunks * width, acc, partials)


def _pass(tile: tuple) -> int:
    """Axis elements per pass of an axis tile: L lanes (32 unless given) times E."""
    return (tile[4] if len(tile) > 4 else 32) * tile[0]


def _axis_tile(tiles, na: int, unit_strides: bool, esize: int, src_align: int, dst_align: int, strides, n: int):
    """(E, VEC, TILE) of a tiled scan along the axis: the first vectorised candidate whose pass
    (32 * E axis elements) fits in the axis, or the last where none does, among those whose vectors
    fit (``unit_strides``: both vectorised sides have stride 1); else the element-by-element tile."""
    vectorised, scalar = tiles
    fitting = [t for t in vectorised if _pass(t) <= na] or [vectorised[-1]]
    for t in fitting:
        if unit_strides and _vectors_fit(t[0], esize, src_align, dst_align, strides, na, n):
            return t
    return scalar


def _scan_tile_along(ctx, shift_s: int, shift_d: int, kind: str, i: int) -> ScanPlan:
    """A tiled scan along the axis. ``kind`` "ax": the axis innermost in the source, dimension ``i``
    (Y) in the destination; "ay": the mirror, dimension ``i`` (X) innermost in the source and the
    axis in the destination. Vectors need stride 1 on the axis on the one side and on ``i`` on the
    other."""
    _, traits, esize, others, (na, sa, da), ex, src_align, dst_align, *_ = ctx
    n, s, d = others[i]
    outer = [t for j, t in enumerate(others) if j != i]
    if kind == "ax":
        tiles, unit, strides, dim = SCAN_AX_TILES, sa == 1 and d == 1, [s, da], "y"
    else:
        tiles, unit, strides, dim = SCAN_AY_TILES, s == 1 and da == 1, [sa, d], "x"
    strides += [v for t in outer for v in t[1:]]
    shape = _axis_tile(tiles[esize], na, unit, esize, src_align, dst_align, strides, n)
    ntiles = _cdiv(n, shape[2])
    nblocks = ntiles * prod(t[0] for t in outer)
    fields = {f"n{dim}": n, f"s{dim}": s, f"d{dim}": d, f"tiles_{dim}": ntiles}
    geo = _geo(outer, **fields, na=na, sa=sa, da=da, nblocks=nblocks, exclusive=ex)
    launch = _launch(_axis_tile_kernel(kind, traits, shape), nblocks, (THREADS, 1), geo)
    return ScanPlan(shift_s, shift_d, launch)


def _scan_tile_an(ctx, shift_s: int, shift_d: int, x: int, y: int, shared_limit: int) -> ScanPlan:
    """A tile across the axis: dimension ``x`` innermost in the source, ``y`` in the destination;
    the staged tile (``sl_scan_tile_staged``) where it fits, else a tile of SCAN_OUTER_TILES
    walking the whole axis (``sl_scan_tile_an``)."""
    _, traits, esize, others, (na, sa, da), ex, src_align, dst_align, sm_count, _ = ctx
    (nx, sx, dx), (ny, sy, dy) = others[x], others[y]
    outer = [t for i, t in enumerate(others) if i not in (x, y)]
    rows = prod(t[0] for t in outer)
    strides = [sy, dx, sa, da, *(s for t in outer for s in t[1:])]

    def vectors(w: int) -> bool:  # both tile sides in vectors of w elements
        return sx == 1 and dy == 1 and _vectors_fit(w, esize, src_align, dst_align, strides, nx, ny)

    tx, ty, ch, stages = SCAN_STAGED_TILES[esize]
    shared = stages * ch * ty * tx * esize
    if (
        shared <= shared_limit
        and na >= SCAN_STAGED_MIN_CHUNKS * ch
        and _cdiv(nx, tx) * _cdiv(ny, ty) * rows >= SCAN_STAGED_MIN_TILES_PER_SM[esize] * sm_count
        and vectors(VECTOR_BYTES // esize)
    ):
        kernel = _staged_kernel(traits, (tx, ty, ch, stages), ex != 0)
    else:
        many, few, scalar = SCAN_OUTER_TILES[esize]
        tile, steps, w, minb = many if _cdiv(nx, many[0]) * _cdiv(ny, many[0]) * rows >= 4 * sm_count else few
        if not vectors(w):
            tile, steps, w, minb = scalar
        tx = ty = tile
        shared = 0
        kernel = f"sl_scan_tile_an<{traits}, {tile}, {steps}, {w}, {minb}>"
    tiles_x, tiles_y = _cdiv(nx, tx), _cdiv(ny, ty)
    nblocks = tiles_x * tiles_y * rows
    geo = _geo(
        outer, nx=nx, sx=sx, dx=dx, ny=ny, sy=sy, dy=dy, na=na, sa=sa, da=da,
        tiles_x=tiles_x, tiles_y=tiles_y, nblocks=nblocks, exclusive=ex,
    )  # fmt: skip
    return ScanPlan(shift_s, shift_d, _launch(kernel, nblocks, (THREADS, 1), geo, shared))
