"""The warp instructions of the tiled scan kernels (``scan_tiles.cu``), as phases of
:mod:`.scan_traffic_core`: ``sl_scan_tile_ax``, ``sl_scan_tile_ay``, ``sl_scan_tile_an`` and
``sl_scan_tile_staged`` (whose loads are ``cp.async`` copies). Shared memory is not counted; every
global access below is one instruction of its full vector width.

internal: used by :mod:`.scan_traffic`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .geometry import THREADS, cdiv
from .scan_traffic_core import (
    ASYNC_LOADS,
    LANE,
    LOADS,
    STORES,
    WARPS,
    Geo,
    Lanes,
    Phase,
    at_bytes,
    decompose,
    thread_ids,
)

__all__: list[str] = []

At = Callable[[np.ndarray, np.ndarray], Lanes]


def tile_phases(g: Geo, args: tuple[int, ...], es: int, src: int, dst: int, *_: int | None) -> list[Phase]:
    """The phases of a tiled kernel: ``args`` its template arguments after the traits, then which
    kernel (0 ``ax``, 1 ``ay``, 2 ``an``, 3 ``staged``)."""
    *shape, kind = args
    return (_along, _along, _across, _staged)[kind](g, tuple(shape), es, src, dst, kind == 1)


def _along(g: Geo, shape: tuple[int, ...], es: int, src: int, dst: int, ay: bool) -> list[Phase]:
    """``sl_scan_tile_ax<K, E, T, VEC, MINB, L>`` (``ay`` False) and its mirror ``sl_scan_tile_ay``.
    Each pass of TA = L E axis elements: the axis side (ax: loads, ay: stores) is IT instructions
    of a warp (E each where not VEC), 32 / L tile rows an instruction; the other side TA / ROWS
    instructions along the tile (vectors of W = E where VEC)."""
    e, tile, vec, _, lanes = (*shape, 32)[:5]
    ta, rpi, rpw = lanes * e, 32 // lanes, tile // WARPS
    it, w_el = rpw // rpi, e if vec else 1
    across = tile // w_el  # threads along the tile in the other side's accesses
    rows = THREADS // across
    npass = cdiv(g.na, ta)
    n_t, s_t, d_t = (g.nx, g.sx, g.dx) if ay else (g.ny, g.sy, g.dy)
    tiles = g.tiles_x if ay else g.tiles_y

    def block(w: np.ndarray):  # warp in block, threadIdx, t0, so, dO
        b, warp, tid = thread_ids(w)
        row = b // tiles
        so, do = decompose(g, row)
        return warp, tid, (b % tiles) * tile, so, do

    def axis_side(w: np.ndarray, j: np.ndarray) -> Lanes:
        warp, _, t0, so, do = block(w)
        i, rest = np.divmod(j, it * (1 if vec else e))
        r, el = np.divmod(rest, 1 if vec else e)
        p, sub = LANE % lanes, LANE // lanes
        t = t0 + warp * rpw + r[:, None] * rpi + sub
        k = (i * ta)[:, None] + p * e + (0 if vec else el[:, None])
        offset, stride, base, tstride = (do, g.da, dst, d_t) if ay else (so, g.sa, src, s_t)
        return at_bytes(base, offset + t * tstride + k * stride, es), (t < n_t) & (k < g.na)

    def tile_side(w: np.ndarray, j: np.ndarray) -> Lanes:
        _, tid, t0, so, do = block(w)
        i, q = np.divmod(j, ta // rows)
        tl, tr = tid % across, tid // across
        t = t0 + tl * w_el
        k = (i * ta + q * rows)[:, None] + tr
        offset, stride, base, tstride = (so, g.sa, src, s_t) if ay else (do, g.da, dst, d_t)
        return at_bytes(base, offset + t * tstride + k * stride, es), (t < n_t) & (k < g.na)

    warps = g.nblocks * WARPS
    axis = Phase(STORES if ay else LOADS, (e if vec else 1) * es, warps, npass * it * (1 if vec else e), axis_side)
    other = Phase(LOADS if ay else STORES, w_el * es, warps, npass * (ta // rows), tile_side)
    return [axis, other]


def _across(g: Geo, shape: tuple[int, ...], es: int, src: int, dst: int, _: bool) -> list[Phase]:
    """``sl_scan_tile_an<K, TILE, S, W, MINB>``: per S axis steps, PER = TILE / ROWS loads along X
    (rows y0 + tr + q ROWS) and PER stores along Y (rows x0 + tr + q ROWS) per step, vectors of W."""
    tile, s_steps, w_el = shape[0], shape[1], shape[2]
    across = tile // w_el
    rows = THREADS // across
    per = tile // rows
    per_warp = cdiv(g.na, s_steps) * s_steps * per

    def side(load: bool) -> At:
        def at(w: np.ndarray, j: np.ndarray) -> Lanes:
            tid, tx, ty, so, do = _tile_of(g, w)
            x0, y0 = tx * tile, ty * tile
            k, q = np.divmod(j, per)
            tl, tr = tid % across, tid // across
            if load:
                x, y = x0 + tl * w_el, y0 + tr + (q * rows)[:, None]
                offset, base, stride = so + x * g.sx + y * g.sy, src, g.sa
            else:
                x, y = x0 + tr + (q * rows)[:, None], y0 + tl * w_el
                offset, base, stride = do + x * g.dx + y * g.dy, dst, g.da
            kk = k[:, None]
            active = (x < g.nx) & (y < g.ny) & (kk < g.na)
            return at_bytes(base, offset + kk * stride, es), active

        return at

    warps = g.nblocks * WARPS
    return [
        Phase(LOADS, w_el * es, warps, per_warp, side(True)),
        Phase(STORES, w_el * es, warps, per_warp, side(False)),
    ]


def _tile_of(g: Geo, w: np.ndarray) -> tuple[np.ndarray, ...]:
    """For warps ``w`` of a tiled kernel: each lane's thread index in its block, the block's tile
    (x, y), and the source and destination element offsets of the tile's outer row."""
    b, _, tid = thread_ids(w)
    rest, tx = np.divmod(b, g.tiles_x)
    row, ty = np.divmod(rest, g.tiles_y)
    so, do = decompose(g, row)
    return tid, tx, ty, so, do


def _staged(g: Geo, shape: tuple[int, ...], es: int, src: int, dst: int, _: bool) -> list[Phase]:
    """``sl_scan_tile_staged<K, TX, TY, CH, STAGES, EXCL>``: per axis step, PY 16-byte ``cp.async``
    copies along X (rows y0 + ir + p RY) and PX 16-byte stores along Y (rows x0 + orow + p RX) per
    thread; the copies of chunks past the axis copy nothing. X and Y have stride 1 (vectors)."""
    tx_, ty_ = shape[0], shape[1]
    v = 16 // es
    lx, ly = tx_ // v, ty_ // v
    ry, rx = THREADS // lx, THREADS // ly
    py, px = ty_ // ry, tx_ // rx

    def side(load: bool, passes: int, reach: int) -> At:
        def at(w: np.ndarray, j: np.ndarray) -> Lanes:
            tid, tx, ty, so, do = _tile_of(g, w)
            x0, y0 = tx * tx_, ty * ty_
            k, p = np.divmod(j, passes)
            kk, pp = k[:, None], p[:, None]
            if load:
                x, y = x0 + (tid % lx) * v, y0 + tid // lx + pp * reach
                offset, base = so + x + y * g.sy + kk * g.sa, src
            else:
                x, y = x0 + tid // ly + pp * reach, y0 + (tid % ly) * v
                offset, base = do + x * g.dx + y + kk * g.da, dst
            return at_bytes(base, offset, es), (x < g.nx) & (y < g.ny)

        return at

    warps = g.nblocks * WARPS
    return [
        Phase(ASYNC_LOADS, 16, warps, g.na * py, side(True, py, ry)),
        Phase(STORES, 16, warps, g.na * px, side(False, px, rx)),
    ]
