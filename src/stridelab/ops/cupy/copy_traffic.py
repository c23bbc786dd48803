"""The global memory traffic of a copy launch (``copy.cu``), warp instruction by warp instruction.

A :class:`~.copy_plan.CopyPlan` names one kernel, its grid, block and ``struct Geo``; this module
mirrors that kernel's thread-to-address arithmetic and counts what each warp-level load and store
instruction touches (:class:`~stridelab._access.Counts`), exactly and at any size:

* ``sl_copy_rows``: every instruction of the ILP loop is a set of threads that read or write along
  X at a fixed byte step, row after row: a :class:`~stridelab._access.Walk` over the outer
  dimensions and X, counted by :func:`~stridelab._access_count.count_walk`. Warps hold 32
  threads of one row, or, for blocks narrower than a warp, whole row segments of several rows.
* ``sl_copy_tiled``: what a block's warps touch depends only on its tile's first address modulo a
  line and on which of its threads are idle (edge tiles); blocks are counted by that residue
  (per-dimension residue counts, folded), and one block of each kind is listed.

The instructions are the ones the compiler emits for each template (checked in SASS for sm_90):
one per vector or element as the source reads, except that a stride-2 vector read of 4- or 8-byte
elements loads only the elements it keeps, one instruction each. Shared memory is not counted.

internal: used by :func:`stridelab.ops.traffic`.
"""

from __future__ import annotations

import re
from math import gcd

import numpy as np

from ..._access import NO_COUNTS, Counts, LaunchTraffic, Walk, bytes_touched, units_touched
from ..._access_count import count_walk
from .copy_plan import CopyPlan
from .geometry import GEO_FIELDS, THREADS, template_of
from .tuning import COPY_ILP

__all__: list[str] = []

WARP, SECTOR, LINE = 32, 32, 128


def copy_traffic(plan: CopyPlan, esize: int, src_address: int, dst_address: int) -> tuple[LaunchTraffic, ...]:
    """The one launch of ``plan`` for ``esize``-byte elements whose views start (element 0,
    before the plan's shifts) at byte addresses ``src_address`` and ``dst_address``."""
    launch = plan.launch
    src = src_address + plan.src_shift * esize
    dst = dst_address + plan.dst_shift * esize
    g = geo_fields(launch.geo)
    e, a, b = (int(v) for v in re.findall(r"-?\d+", launch.kernel.split("<", 1)[1]))
    if e != esize:
        raise ValueError(f"{launch.kernel} moves {e}-byte elements, not {esize}-byte ones")
    if template_of(launch.kernel) == "sl_copy_rows":
        loads, stores = _rows(g, launch.block, esize, a, b, src, dst)
    else:
        loads, stores = _tiled(g, esize, a, b, src, dst)
    return (LaunchTraffic(launch.kernel, launch.grid, launch.block, loads, NO_COUNTS, stores),)


def geo_fields(geo: tuple[int, ...]) -> dict[str, int | tuple[int, ...]]:
    """``struct Geo`` by field name (arrays as tuples)."""
    fields: dict[str, int | tuple[int, ...]] = {}
    at = 0
    for name, count in GEO_FIELDS:
        fields[name] = tuple(geo[at : at + count]) if count > 1 else geo[at]
        at += count
    return fields


def _outer(g: dict, column: str, esize: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The outer dimensions (outermost first): sizes and byte strides of one view (``s``, ``d``)."""
    nd = g["nd"]
    return tuple(g["n"][:nd][::-1]), tuple(v * esize for v in g[column][:nd][::-1])


# ------------------------------------------------------------------------------------------- rows

Instruction = tuple[int, int, int, int, int]  # (first x, end x, byte step along x, byte offset, width)


def _row_loads(esize: int, v: int, mode: int, nx: int, sx: int) -> list[Instruction]:
    """The load instructions of one ILP step: which x they serve and the bytes each thread reads."""
    e = esize
    if mode == 0:
        return [(0, nx, v * sx * e, j * sx * e, e) for j in range(v)]
    if mode in (1, 2):
        return [(0, nx, v * e if mode == 1 else -v * e, 0 if mode == 1 else -(v - 1) * e, v * e)]
    # Stride 2: two vectors of which every other element is kept; 4- and 8-byte elements are
    # loaded one kept element at a time, smaller ones as whole vectors.
    first = 0 if mode == 3 else -(2 * v - 1) * e
    kept = range(0 if mode == 3 else 1, v, 2)
    pieces = [(p * v * e + u * e, e) for p in (0, 1) for u in kept] if e >= 4 else [(0, v * e), (v * e, v * e)]
    step = 2 * v * e if mode == 3 else -2 * v * e
    end = nx - 1 if mode == 3 else nx  # mode 3 reads its last group one element at a time
    loads = [(0, end, step, first + offset, width) for offset, width in pieces]
    if mode == 3:
        loads += [(nx - 1, nx, step, 2 * j * e, e) for j in range(v)]
    return loads


def _rows(g: dict, block: tuple[int, int], esize: int, v: int, mode: int, src: int, dst: int) -> tuple[Counts, Counts]:
    nx, sx, dx = g["nx"], g["sx"], g["dx"]
    sizes, src_strides = _outer(g, "s", esize)
    _, dst_strides = _outer(g, "d", esize)
    stores = [(0, nx, dx * esize, 0, esize)] if v == 1 else [(0, nx, v * esize, 0, v * esize)]
    loads, writes = NO_COUNTS, NO_COUNTS
    for k in range(COPY_ILP):
        for first, end, step, offset, width in _row_loads(esize, v, mode, nx, sx):
            walks = _row_walks(block, g["tiles_x"], k, first, end, sizes, src_strides, step, src + offset, width)
            loads += sum((count_walk(w) for w in walks), NO_COUNTS)
        for first, end, step, offset, width in stores:
            walks = _row_walks(block, g["tiles_x"], k, first, end, sizes, dst_strides, step, dst + offset, width)
            writes += sum((count_walk(w) for w in walks), NO_COUNTS)
    return loads, writes


def _row_walks(
    block: tuple[int, int],
    tiles_x: int,
    k: int,
    first: int,
    end: int,
    sizes: tuple[int, ...],
    strides: tuple[int, ...],
    step: int,
    base: int,
    width: int,
) -> list[Walk]:
    """The requests of ILP step ``k`` of one instruction, as walks: thread x of every row is
    active where ``first <= x < end`` and reaches ``base + dot(row, strides) + x * step``."""
    tx = block[0]
    walks = []

    def segment(lo: int, count: int, warp: int) -> None:  # ``count`` threads a row from x = lo
        if count > 0:
            walks.append(Walk((*sizes, count), (*strides, step), base + lo * step, width, warp, SECTOR, LINE))

    if tx < WARP:  # one tile along X; a warp holds the segments of WARP // tx rows
        lo, hi = max(first, k * tx), min(end, (k + 1) * tx)
        segment(lo, hi - lo, (WARP // tx) * (hi - lo))
        return walks
    span = COPY_ILP * tx  # x0 of block bx, step k: bx * span + k * tx
    lo_block = max(0, -(-(first - k * tx - tx + 1) // span))  # blocks with an active thread
    hi_block = min(tiles_x - 1, (end - 1 - k * tx) // span)
    b1 = max(lo_block, -(-(first - k * tx) // span))  # blocks with every thread active
    b2 = min(hi_block, (end - (k + 1) * tx) // span)
    if b1 <= b2:
        walks.append(
            Walk((*sizes, b2 - b1 + 1, tx), (*strides, span * step, step), base + (b1 * span + k * tx) * step,
                 width, WARP, SECTOR, LINE)
        )  # fmt: skip
    partial = range(lo_block, hi_block + 1) if b1 > b2 else [*range(lo_block, b1), *range(b2 + 1, hi_block + 1)]
    for bx in partial:
        x0 = bx * span + k * tx
        lo, hi = max(first, x0), min(end, x0 + tx)
        if lo >= hi:
            continue
        full_lo = x0 + -(-(lo - x0) // WARP) * WARP  # warps whose 32 threads are all active
        full_hi = x0 + (hi - x0) // WARP * WARP
        if full_lo < full_hi:
            segment(full_lo, full_hi - full_lo, WARP)
            segment(lo, full_lo - lo, full_lo - lo)
            segment(full_hi, hi - full_hi, hi - full_hi)
        else:  # within one warp, or across the boundary of two
            middle = x0 + (lo - x0) // WARP * WARP + WARP
            if middle >= hi:
                segment(lo, hi - lo, hi - lo)
            else:
                segment(lo, middle - lo, middle - lo)
                segment(middle, hi - middle, hi - middle)
    return walks


# ------------------------------------------------------------------------------------------ tiled


def _tiled(g: dict, esize: int, tile: int, w: int, src: int, dst: int) -> tuple[Counts, Counts]:
    nx, ny = g["nx"], g["ny"]
    sizes, src_strides = _outer(g, "s", esize)
    _, dst_strides = _outer(g, "d", esize)
    src_rows = _folded([_residues(n, s) for n, s in zip(sizes, src_strides)], src)
    dst_rows = _folded([_residues(n, d) for n, d in zip(sizes, dst_strides)], dst)
    lanes = tile // w
    rows = THREADS // lanes
    thread = np.arange(THREADS)
    tl, tr = thread % lanes, thread // lanes
    tr = tr[None, :] + rows * np.arange(tile // rows)[:, None]  # (passes, threads): the tile row
    e = esize
    loads, stores = NO_COUNTS, NO_COUNTS
    for x_first, x_tiles, x_in in _tile_kinds(nx, tile):
        for y_first, y_tiles, y_in in _tile_kinds(ny, tile):
            x_steps, y_steps = (tile * g["sx"] * e, tile * g["dx"] * e), (tile * g["sy"] * e, tile * g["dy"] * e)
            src_blocks = _folded(
                [src_rows, _residues(x_tiles, x_steps[0], x_first), _residues(y_tiles, y_steps[0], y_first)]
            )
            dst_blocks = _folded(
                [dst_rows, _residues(x_tiles, x_steps[1], x_first), _residues(y_tiles, y_steps[1], y_first)]
            )
            # in along X: thread (tl, tr) reads x = tl * w.., y = tr; out along Y: writes y = tl * w.., x = tr
            rel = (tl * w * g["sx"] + tr * g["sy"]) * e
            active = (tl * w < x_in) & (tr < y_in)
            loads += _weighted(rel, active, src_blocks, w * e)
            rel = (tl * w * g["dy"] + tr * g["dx"]) * e
            active = (tl * w < y_in) & (tr < x_in)
            stores += _weighted(rel, active, dst_blocks, w * e)
    return loads, stores


def _tile_kinds(n: int, tile: int) -> list[tuple[int, int, int]]:
    """The tiles along a dimension of ``n``: (first tile, how many, elements in each) for the
    whole tiles and for the edge tile."""
    kinds = [(0, n // tile, tile)] if n >= tile else []
    if n % tile:
        kinds.append((n // tile, 1, n % tile))
    return kinds


def _residues(n: int, step: int, first: int = 0) -> np.ndarray:
    """How many of ``(first + i) * step`` for ``i in range(n)`` fall on each byte of a line."""
    period = LINE // gcd(step % LINE, LINE)
    counts = np.zeros(LINE, dtype=np.int64)
    i = np.arange(min(n, period), dtype=np.int64)
    np.add.at(counts, (first + i) * step % LINE, (n - i + period - 1) // period)
    return counts


def _folded(parts: list[np.ndarray], shift: int = 0) -> np.ndarray:
    """The residues of a sum of one choice from each of ``parts``, plus ``shift``."""
    total = np.zeros(LINE, dtype=np.int64)
    total[shift % LINE] = 1
    for part in parts:
        out = np.zeros(LINE, dtype=np.int64)
        for r in np.flatnonzero(part):
            out += part[r] * np.roll(total, r)
        total = out
    return total


def _weighted(rel: np.ndarray, active: np.ndarray, blocks: np.ndarray, width: int) -> Counts:
    """What the warps of every block touch: ``blocks[r]`` blocks start at byte ``r`` of a line,
    their threads ``width`` bytes from ``rel`` (relative to that start) where ``active``; one
    row of ``rel`` per instruction, of the block's threads."""
    rel, active = rel.reshape(-1, WARP), active.reshape(-1, WARP)
    live = active.any(axis=1)
    rel, active = rel[live], active[live]
    starts = np.flatnonzero(blocks)
    if not len(rel) or not len(starts):
        return NO_COUNTS
    addresses = (starts[:, None, None] + rel[None]).reshape(-1, WARP)
    mask = np.broadcast_to(active, (len(starts), *active.shape)).reshape(-1, WARP)
    weights = np.repeat(blocks[starts], len(rel))
    nbytes = bytes_touched(addresses, mask, width)
    return Counts(
        int(weights.sum()),
        int((weights * units_touched(addresses, mask, width, SECTOR)).sum()),
        int((weights * units_touched(addresses, mask, width, LINE)).sum()),
        int((weights * nbytes).sum()),
        int((weights * -(-nbytes // SECTOR)).sum()),
    )
