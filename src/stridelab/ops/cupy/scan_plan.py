"""Launch plans for the scan kernels (``scan_*.cu``): CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT.

A plan turns a source and a destination layout (sizes, signed element strides, and where element 0
of each lies modulo 16 bytes), an axis and an operator into launches, in plain Python ints: it needs
neither CuPy nor a GPU. The pair comes as the engine canonicalized it once, its
:func:`~stridelab.ops._primitives.canonical_pair` (the axis kept as it is, since the order of the
running tally matters); the kernel is picked from where each view's innermost dimension lies, so
that loads and stores are both coalesced. A scan runs along lines (axis innermost: lanes of a
warp share a line), down columns (axis outer: a thread per column, or, for columns too few to fill
the device, the warps of a block sharing 32 columns and splitting the axis) or through a tile (the
axis innermost in one view only, or in neither: then, where 16-byte vectors fit, a staged tile whose
block copies chunks of the axis to shared memory ahead of its scan); a long line or column with
little else to run in parallel is cut into chunks, scanned in three passes (chunk totals, their
exclusive scan, the chunks again from those carries).

The operator is a template argument only (``Scan<F32, Sum>``): every plan is the same for every
operator.

internal: used by the operators' CuPy backend.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import NamedTuple

from .._primitives import CanonicalPair, canonical_pair
from .geometry import (
    SHARED_DEFAULT,
    THREADS,
    VECTOR_BYTES,
    Dim,
    Launch,
    aligned,
    cdiv,
    geo,
    innermost,
    kernel_name,
    launch,
    pow2_at_least,
    vector_ok,
    vector_widths,
    vectors_fit,
)
from .tuning import (
    COLS_FEW_VECTOR_BYTES,
    COLS_PIPELINE,
    COLS_SPLIT,
    COLS_SPLIT_BELOW,
    COLS_STEPS,
    COLS_THREADS_PER_SM,
    LINES_MIN_LANES,
    LINES_SCALAR,
    LINES_VECTORS,
    SCAN_AX_TILES,
    SCAN_AY_TILES,
    SCAN_OUTER_TILES,
    SCAN_STAGED_MIN_STEPS,
    SCAN_STAGED_MIN_TILES_PER_SM,
    SCAN_STAGED_TILES,
)

__all__: list[str] = []


class ScanType(NamedTuple):
    """A DirectML data type as the scan kernels store it: the storage traits in
    ``scan_common.cuh``, bytes per element, and the data type of its running values (the chunk
    totals of a long axis)."""

    storage: str
    esize: int
    accumulator: str


#: DirectML data type of a scan -> how the kernels store and accumulate it.
SCAN_TYPES = {
    "FLOAT32": ScanType("F32", 4, "FLOAT32"),
    "FLOAT16": ScanType("F16", 2, "FLOAT32"),
    "UINT32": ScanType("U32", 4, "UINT32"),
    "UINT16": ScanType("U16", 2, "UINT32"),
}


def scan_traits(data_type: str, operator: str) -> str:
    """The kernels' first template argument: ``Scan<storage, operator>``."""
    return f"Scan<{SCAN_TYPES[data_type].storage}, {operator}>"


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


class ScanProblem(NamedTuple):
    """What every scan planner reads: the scan's traits (``Scan<F16, Sum>``), data type and
    element size, the dimensions other than the axis (outermost first), the axis (size, source
    and destination stride), the exclusive mode (0, 1, or 2: exclusive with the identity first,
    for chunk totals), both views' alignment, the device's multiprocessors, and whether a long axis
    may be cut into chunks."""

    traits: str
    data_type: str
    operator: str
    esize: int
    others: list[Dim]
    axis: Dim
    exclusive: int
    src_align: int
    dst_align: int
    sm_count: int
    chunks: bool


def plan_scan(
    data_type: str,
    pair: CanonicalPair,
    exclusive: bool | int,
    src_align: int,
    dst_align: int,
    sm_count: int,
    chunks: bool = True,
    *,
    operator: str = "Sum",
    shared_limit: int = SHARED_DEFAULT,
) -> ScanPlan:
    """Plan the running tally of ``operator`` (an operator trait of ``scan_common.cuh``: the plan
    is the same for every operator, only kernel names carry it) along the axis (increasing
    coordinates) of a canonical ``pair`` of ``data_type`` views; ``*_align``: the byte address of
    each view's element 0 (before the pair's shifts) modulo 16. ``sm_count`` (multiprocessors)
    decides when a long axis is worth cutting into chunks; ``shared_limit`` (bytes of shared memory
    a block may be given) which staged tiles fit."""
    if not operator.isidentifier():
        raise ValueError(f"operator {operator!r} is no CUDA operator trait name (a struct of scan_common.cuh)")
    esize = SCAN_TYPES[data_type].esize
    dims: list[Dim] = list(zip(pair.sizes, pair.src_strides, pair.dst_strides))
    shift_s, shift_d = pair.src_shift, pair.dst_shift
    src_align = (src_align + shift_s * esize) % VECTOR_BYTES
    dst_align = (dst_align + shift_d * esize) % VECTOR_BYTES
    a = len(dims) - 1
    others, (na, sa, da) = dims[:a], dims[a]
    src_in = innermost(dims, 1, prefer=a)
    dst_in = innermost(dims, 2, prefer=a)
    if dst_in is None:
        dst_in = a
    problem = ScanProblem(
        scan_traits(data_type, operator), data_type, operator, esize, others, (na, sa, da),
        int(exclusive),  # 2 (internal): exclusive, first value the identity (chunk totals)
        src_align, dst_align, sm_count, chunks,
    )  # fmt: skip

    def small(i: int) -> bool:
        return dims[i][0] < 8

    if dst_in == a:
        if src_in in (None, a) or abs(sa) * esize <= 8 or small(src_in):
            return _scan_lines(problem, shift_s, shift_d)
        return _scan_tile_along(problem, shift_s, shift_d, "ay", src_in)
    if src_in == a:
        if abs(da) * esize <= 8 or small(dst_in):
            return _scan_lines(problem, shift_s, shift_d)
        return _scan_tile_along(problem, shift_s, shift_d, "ax", dst_in)
    if src_in is None or src_in == dst_in or abs(dims[dst_in][1]) * esize <= 8 or small(src_in) or small(dst_in):
        return _scan_cols(problem, shift_s, shift_d)
    return _scan_tile_an(problem, shift_s, shift_d, src_in, dst_in, shared_limit)


def _partials(problem: ScanProblem, sizes, strides, axis: int) -> ScanPlan:
    """The in-place, identity-first exclusive scan of a long axis's chunk totals (never cut again)."""
    return plan_scan(
        SCAN_TYPES[problem.data_type].accumulator, canonical_pair(sizes, strides, strides, axis), 2, 0, 0,
        problem.sm_count, chunks=False, operator=problem.operator,
    )  # fmt: skip


def _scan_lines(problem: ScanProblem, shift_s: int, shift_d: int) -> ScanPlan:
    traits, _, _, esize, outer, (na, sa, da), ex, src_align, dst_align, sm_count, chunks = problem
    vmax = VECTOR_BYTES // esize
    v, rev = 1, False
    if sa == da and abs(sa) == 1 and na % vmax == 0 and vector_ok(outer, vmax):
        back = -(vmax - 1) * esize if sa < 0 else 0
        if aligned(src_align, back, VECTOR_BYTES) and aligned(dst_align, back, VECTOR_BYTES):
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
        nchunks = min(cdiv(2 * warps_wanted, rows), cdiv(na, 32 * group * 16))
        chunk = cdiv(cdiv(na, nchunks), 32 * group) * 32 * group
        nchunks = cdiv(na, chunk)
    lanes = 32 if nchunks > 1 else min(32, pow2_at_least(cdiv(na, group)))
    units = rows * nchunks
    nblocks = cdiv(units, (THREADS // 32) * (32 // lanes))
    geometry = geo(outer, na=na, sa=sa, da=da, chunk=chunk, nchunks=nchunks, nblocks=nblocks, lanes=lanes, exclusive=ex)
    kernel = kernel_name("sl_scan_lines", traits, v, c, rev, ex != 0)
    first = launch(kernel, nblocks, (THREADS, 1), geometry)
    if nchunks == 1:
        return ScanPlan(shift_s, shift_d, first)
    partials = _partials(problem, (rows, nchunks), (nchunks, 1), 1)
    return ScanPlan(shift_s, shift_d, first, first, units, SCAN_TYPES[problem.data_type].accumulator, partials)


def _columns(outer: list[Dim], v: int) -> list[Dim]:
    """The outer dimensions with the innermost one counted in vectors of ``v`` elements."""
    if v == 1:
        return outer
    nx = outer[-1][0]
    return [*outer[:-1], (nx // v, v, v)]


def _scan_cols(problem: ScanProblem, shift_s: int, shift_d: int) -> ScanPlan:
    traits, _, _, esize, outer, (na, sa, da), ex, src_align, dst_align, sm_count, chunks = problem
    widest = 1  # elements of the widest vectors that fit, along the innermost dimension
    if outer and outer[-1][1] == outer[-1][2] == 1:
        strides = [sa, da, *(s for t in outer[:-1] for s in t[1:])]
        fit = [w for w in vector_widths(esize) if vectors_fit(w, esize, src_align, dst_align, strides, outer[-1][0])]
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
            nblocks = cdiv(cols, 32)
            geometry = geo(_columns(outer, sv), na=na, sa=sa, da=da, nblocks=nblocks, exclusive=ex)
            kernel = kernel_name("sl_scan_cols_split", traits, sv, steps, minb)
            return ScanPlan(shift_s, shift_d, launch(kernel, nblocks, (THREADS, 1), geometry))
    outer = _columns(outer, v)
    cols = elements // v
    nchunks, chunk = 1, na
    if chunks and cols < sm_count * 128 and na >= 64:
        nchunks = min(cdiv(sm_count * 2048 * 2, cols), cdiv(na, 16))
        chunk = cdiv(cdiv(na, nchunks), COLS_STEPS) * COLS_STEPS
        nchunks = cdiv(na, chunk)
    nblocks = cdiv(cols * nchunks, THREADS)
    geometry = geo(outer, na=na, sa=sa, da=da, chunk=chunk, nchunks=nchunks, nblocks=nblocks, exclusive=ex)
    pipe = v * esize <= COLS_PIPELINE[0] and chunk >= COLS_PIPELINE[1]
    kernel = kernel_name("sl_scan_cols", traits, v, COLS_STEPS, pipe)
    first = launch(kernel, nblocks, (THREADS, 1), geometry)
    if nchunks == 1:
        return ScanPlan(shift_s, shift_d, first)
    width = cols * v
    partials = _partials(problem, (nchunks, width), (width, 1), 0)
    accumulator = SCAN_TYPES[problem.data_type].accumulator
    return ScanPlan(shift_s, shift_d, first, first, nchunks * width, accumulator, partials)


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
        if unit_strides and vectors_fit(t[0], esize, src_align, dst_align, strides, na, n):
            return t
    return scalar


def _scan_tile_along(problem: ScanProblem, shift_s: int, shift_d: int, kind: str, i: int) -> ScanPlan:
    """A tiled scan along the axis. ``kind`` "ax": the axis innermost in the source, dimension ``i``
    (Y) in the destination; "ay": the mirror, dimension ``i`` (X) innermost in the source and the
    axis in the destination. Vectors need stride 1 on the axis on the one side and on ``i`` on the
    other."""
    traits, _, _, esize, others, (na, sa, da), ex, src_align, dst_align, *_ = problem
    n, s, d = others[i]
    outer = [t for j, t in enumerate(others) if j != i]
    if kind == "ax":
        tiles, unit, strides, dim = SCAN_AX_TILES, sa == 1 and d == 1, [s, da], "y"
    else:
        tiles, unit, strides, dim = SCAN_AY_TILES, s == 1 and da == 1, [sa, d], "x"
    strides += [v for t in outer for v in t[1:]]
    shape = _axis_tile(tiles[esize], na, unit, esize, src_align, dst_align, strides, n)
    ntiles = cdiv(n, shape[2])
    nblocks = ntiles * prod(t[0] for t in outer)
    fields = {f"n{dim}": n, f"s{dim}": s, f"d{dim}": d, f"tiles_{dim}": ntiles}
    geometry = geo(outer, **fields, na=na, sa=sa, da=da, nblocks=nblocks, exclusive=ex)
    return ScanPlan(shift_s, shift_d, launch(_axis_tile_kernel(kind, traits, shape), nblocks, (THREADS, 1), geometry))


def _scan_tile_an(problem: ScanProblem, shift_s: int, shift_d: int, x: int, y: int, shared_limit: int) -> ScanPlan:
    """A tile across the axis: dimension ``x`` innermost in the source, ``y`` in the destination;
    the staged tile (``sl_scan_tile_staged``) where it fits, else a tile of SCAN_OUTER_TILES
    walking the whole axis (``sl_scan_tile_an``)."""
    traits, _, _, esize, others, (na, sa, da), ex, src_align, dst_align, sm_count, _ = problem
    (nx, sx, dx), (ny, sy, dy) = others[x], others[y]
    outer = [t for i, t in enumerate(others) if i not in (x, y)]
    rows = prod(t[0] for t in outer)
    strides = [sy, dx, sa, da, *(s for t in outer for s in t[1:])]

    def vectors(w: int) -> bool:  # both tile sides in vectors of w elements
        return sx == 1 and dy == 1 and vectors_fit(w, esize, src_align, dst_align, strides, nx, ny)

    tx, ty, ch, stages = SCAN_STAGED_TILES[esize]
    shared = stages * ch * ty * tx * esize
    if (
        shared <= shared_limit
        and na >= SCAN_STAGED_MIN_STEPS
        and cdiv(nx, tx) * cdiv(ny, ty) * rows >= SCAN_STAGED_MIN_TILES_PER_SM[esize] * sm_count
        and vectors(VECTOR_BYTES // esize)
    ):
        kernel = _staged_kernel(traits, (tx, ty, ch, stages), ex != 0)
    else:
        many, few, scalar = SCAN_OUTER_TILES[esize]
        side = many[0][0]
        candidates = many if cdiv(nx, side) * cdiv(ny, side) * rows >= 4 * sm_count else (few,)
        tile, steps, w, minb = next((c for c in candidates if vectors(c[2])), scalar)
        tx = ty = tile
        shared = 0
        kernel = kernel_name("sl_scan_tile_an", traits, tile, steps, w, minb)
    tiles_x, tiles_y = cdiv(nx, tx), cdiv(ny, ty)
    nblocks = tiles_x * tiles_y * rows
    geometry = geo(
        outer, nx=nx, sx=sx, dx=dx, ny=ny, sy=sy, dy=dy, na=na, sa=sa, da=da,
        tiles_x=tiles_x, tiles_y=tiles_y, nblocks=nblocks, exclusive=ex,
    )  # fmt: skip
    return ScanPlan(shift_s, shift_d, launch(kernel, nblocks, (THREADS, 1), geometry, shared))


def _axis_tile_kernel(kind: str, traits: str, tile: tuple) -> str:
    """Template name of an axis tile (E, VEC, TILE, MINB[, L]); L (lanes per row) defaults to 32."""
    e, vec, t, minb, *lanes = tile
    extra = (lanes[0],) if lanes and lanes[0] != 32 else ()
    return kernel_name(f"sl_scan_tile_{kind}", traits, e, t, vec, minb, *extra)


def _staged_kernel(traits: str, shape: tuple[int, int, int, int], exclusive: bool) -> str:
    return kernel_name("sl_scan_tile_staged", traits, *shape, exclusive)


def scan_kernels(data_type: str, operator: str) -> tuple[str, ...]:
    """Every scan instantiation a plan can name for one data type and operator trait (the
    accumulator's partial-total scans included)."""
    names = list(_scan_kernels(scan_traits(data_type, operator), SCAN_TYPES[data_type].esize))
    accumulator = SCAN_TYPES[data_type].accumulator
    if accumulator != data_type:
        names += _scan_kernels(scan_traits(accumulator, operator), SCAN_TYPES[accumulator].esize)
    return tuple(names)


def _scan_kernels(traits: str, e: int) -> list[str]:
    """The instantiations for one ``Scan<...>`` traits of ``e``-byte elements."""
    names = []
    v = VECTOR_BYTES // e
    for x in (False, True):
        names += [kernel_name("sl_scan_lines", traits, 1, LINES_SCALAR[e], False, x)]
        names += [kernel_name("sl_scan_lines", traits, v, c, b, x) for c in LINES_VECTORS for b in (False, True)]
    names += [kernel_name("sl_scan_cols", traits, w, COLS_STEPS, False) for w in vector_widths(e)]
    piped = [w for w in vector_widths(e) if w * e <= COLS_PIPELINE[0]]
    names += [kernel_name("sl_scan_cols", traits, w, COLS_STEPS, True) for w in piped]
    if e in COLS_SPLIT:
        steps, vector_bytes, minb = COLS_SPLIT[e]
        widths = [vector_bytes // e] if vector_bytes else vector_widths(e)
        names += [kernel_name("sl_scan_cols_split", traits, w, steps, minb) for w in widths]
    for kind, (vectorised, scalar) in (("ax", SCAN_AX_TILES[e]), ("ay", SCAN_AY_TILES[e])):
        names += [_axis_tile_kernel(kind, traits, t) for t in (*vectorised, scalar)]
    many, few, plain = SCAN_OUTER_TILES[e]
    names += [kernel_name("sl_scan_tile_an", traits, *shape) for shape in dict.fromkeys((*many, few, plain))]
    names += [_staged_kernel(traits, SCAN_STAGED_TILES[e], x) for x in (False, True)]
    return names
