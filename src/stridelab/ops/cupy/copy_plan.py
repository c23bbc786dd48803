"""Launch plans for the copy kernels (``copy.cu``): SLICE1 and ELEMENT_WISE_IDENTITY on the GPU.

A plan turns a source and a destination layout (sizes, signed element strides, and where element 0
of each lies modulo 16 bytes) into one launch, in plain Python ints: it needs neither CuPy nor a
GPU. The pair comes as its :func:`~stridelab.ops._primitives.canonical_pair` (the engine's); the kernel
is picked from where each view's innermost dimension lies, so that loads and stores are both
coalesced: rows (same innermost dimension; 16-byte vectors where sizes, strides and addresses
allow), or a shared-memory tile (innermost dimensions differ, as NCHW against NHWC).

internal: used by the operators' CuPy backend.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from .._primitives import CanonicalPair
from .geometry import (
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
)
from .tuning import COPY_ILP, COPY_STRIDE2_VECTOR, COPY_TILES

__all__: list[str] = []


@dataclass(frozen=True)
class CopyPlan:
    """A copy: shift each view's element 0 by these elements (dimensions reversed), then launch."""

    src_shift: int
    dst_shift: int
    launch: Launch


def copy_kernels(element_sizes: tuple[int, ...] = (1, 2, 4, 8)) -> tuple[str, ...]:
    """Every copy instantiation a plan can name for elements of these sizes (bytes)."""
    names = []
    for e in element_sizes:
        names.append(kernel_name("sl_copy_rows", e, 1, 0))
        names.extend(kernel_name("sl_copy_rows", e, VECTOR_BYTES // e, mode) for mode in range(5))
        if e in COPY_STRIDE2_VECTOR:
            names.extend(kernel_name("sl_copy_rows", e, COPY_STRIDE2_VECTOR[e], mode) for mode in (0, 3, 4))
        names.extend(kernel_name("sl_copy_tiled", e, t, w) for t, w in COPY_TILES[e])
    return tuple(names)


#: Every copy instantiation a plan can name.
COPY_KERNELS = copy_kernels()


def plan_copy(esize: int, pair: CanonicalPair, src_align: int, dst_align: int) -> CopyPlan:
    """Plan ``dst[c] = src[c]`` over a canonical ``pair`` for elements of ``esize`` bytes;
    ``*_align``: the byte address of each view's element 0 (before the pair's shifts) modulo 16."""
    dims: list[Dim] = list(zip(pair.sizes, pair.src_strides, pair.dst_strides))
    shift_s, shift_d = pair.src_shift, pair.dst_shift
    src_align = (src_align + shift_s * esize) % VECTOR_BYTES
    dst_align = (dst_align + shift_d * esize) % VECTOR_BYTES
    y = len(dims) - 1
    x = innermost(dims, 1, prefer=y)
    ny, sy, _ = dims[y]
    if x is not None and x != y and abs(sy) * esize >= 16 and dims[x][0] >= 8 and ny >= 8:
        launch = _copy_tiled(esize, dims, x, y, src_align, dst_align)
    else:
        launch = _copy_rows(esize, dims, src_align, dst_align)
    return CopyPlan(shift_s, shift_d, launch)


def _copy_tiled(esize: int, dims: list[Dim], x: int, y: int, src_align: int, dst_align: int) -> Launch:
    outer = [t for i, t in enumerate(dims) if i not in (x, y)]
    (nx, sx, dx), (ny, sy, dy) = dims[x], dims[y]
    *vectorised, scalar = COPY_TILES[esize]

    def fits(w: int) -> bool:  # both tile sides in aligned vectors of w elements
        return (
            sx == 1
            and dy == 1
            and nx % w == 0
            and ny % w == 0
            and sy % w == 0
            and dx % w == 0
            and vector_ok(outer, w)
            and aligned(src_align, 0, w * esize)
            and aligned(dst_align, 0, w * esize)
        )

    tile, w = next((c for c in vectorised if fits(c[1])), scalar)
    tiles_x, tiles_y = cdiv(nx, tile), cdiv(ny, tile)
    nblocks = tiles_x * tiles_y * prod(t[0] for t in outer)
    geometry = geo(outer, nx=nx, sx=sx, dx=dx, ny=ny, sy=sy, dy=dy, tiles_x=tiles_x, tiles_y=tiles_y, nblocks=nblocks)
    return launch(kernel_name("sl_copy_tiled", esize, tile, w), nblocks, (THREADS, 1), geometry)


def _copy_rows(esize: int, dims: list[Dim], src_align: int, dst_align: int) -> Launch:
    outer = dims[:-1]
    nx, sx, dx = dims[-1]
    v, mode = 1, 0
    vmax = VECTOR_BYTES // esize
    if abs(sx) == 2:
        vmax = COPY_STRIDE2_VECTOR.get(esize, vmax)
    if dx == 1 and nx % vmax == 0 and all(t[2] % vmax == 0 for t in outer) and aligned(dst_align, 0, vmax * esize):
        v = vmax
        src_ok = all(t[1] % vmax == 0 for t in outer)
        back = {1: 0, -1: -(vmax - 1), 2: 0, -2: -(2 * vmax - 1)}.get(sx)  # first element read, from the group's
        if src_ok and back is not None and aligned(src_align, back * esize, vmax * esize):
            mode = {1: 1, -1: 2, 2: 3, -2: 4}[sx]
    groups = nx // v
    tx = min(THREADS, pow2_at_least(cdiv(groups, COPY_ILP)))
    ty = THREADS // tx
    rows = prod(t[0] for t in outer)
    tiles_x, tiles_y = cdiv(groups, tx * COPY_ILP), cdiv(rows, ty)
    nblocks = tiles_x * tiles_y
    geometry = geo(outer, nx=groups, sx=sx, dx=dx, tiles_x=tiles_x, tiles_y=tiles_y, nblocks=nblocks)
    return launch(kernel_name("sl_copy_rows", esize, v, mode), nblocks, (tx, ty), geometry)
