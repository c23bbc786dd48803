"""The global-memory requests and sectors of every launch of a scan plan, exact, from the kernels'
own thread-to-address arithmetic.

Each kernel of ``scan_*.cu`` is mirrored here (and in :mod:`.scan_traffic_tiles`) warp instruction
by warp instruction: which lanes each load, ``cp.async`` copy and store has active, at which byte
address and how wide (the widths are the kernels' PTX: every ``Pack`` is moved by one instruction of
its full width, a chunk total or carry by a 4-byte one per accumulator). The instructions are
listed in batches and counted by :func:`stridelab._access.request_counts`, so the counts are those
of Nsight Compute's ``l1tex__t_{requests,sectors}_pipe_lsu_mem_global_op_{ld,ldgsts,st}`` for an
L1 of 32-byte sectors in 128-byte lines (shared-memory traffic is not counted). A plan of three
passes adds its chunk totals' traffic: the first pass stores them, the in-place scan of them moves
them, the last pass loads them as carries; the temporary is a fresh allocation (0 modulo 128).

internal: used by ``stridelab.ops.traffic``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..._access import NO_COUNTS, LaunchTraffic, request_counts
from ...errors import LayoutError
from .geometry import Launch, cdiv, template_of
from .scan_plan import SCAN_TYPES, ScanPlan
from .scan_traffic_core import (
    ACC_BYTES,
    LANE,
    LOADS,
    STORES,
    WARP,
    WARPS,
    Geo,
    Lanes,
    Phase,
    at_bytes,
    decompose,
    parse_geo,
    template_args,
    thread_ids,
)
from .scan_traffic_tiles import tile_phases

__all__: list[str] = []

#: Lanes (active or not) a plan's instructions may list in all, past which scan_traffic refuses.
LISTED_ACCESSES = 2**26
_BATCH = 2**15  # warp instructions counted at a time (a million lanes)

Family = Callable[[Geo, tuple[int, ...], int, int, int, int | None, int | None], list[Phase]]


def scan_traffic(plan: ScanPlan, esize: int, src_address: int, dst_address: int) -> tuple[LaunchTraffic, ...]:
    """What every launch of ``plan`` moves through L1, in launch order: global loads, ``cp.async``
    loads and stores, each as :class:`~stridelab._access.Counts`.

    ``esize``: bytes per element of the scanned views (2 or 4); ``src_address``, ``dst_address``:
    byte address of each view's element 0 before the plan's shifts (only its value modulo 128
    matters). Raises :class:`~stridelab.LayoutError` where the plan's instructions would list more
    than :data:`LISTED_ACCESSES` lanes, before listing any.

    >>> from stridelab.ops._primitives import canonical_pair
    >>> from stridelab.ops.cupy.scan_plan import plan_scan
    >>> plan = plan_scan("FLOAT32", canonical_pair((64,), (1,), (1,), 0), False, 0, 0, 132)
    >>> [(t.kernel, t.loads.requests, t.loads.sectors, t.stores.sectors) for t in scan_traffic(plan, 4, 0, 0)]
    [('sl_scan_lines<Scan<F32, Sum>, 4, 4, false, false>', 4, 8, 8)]
    """
    for name, value in (("esize", esize), ("src_address", src_address), ("dst_address", dst_address)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"scan_traffic: {name} must be an int, not {type(value).__name__}")
    if esize not in (2, 4):
        raise LayoutError(f"scan_traffic: esize = {esize!r}; the scan kernels store 2- or 4-byte elements")
    launches = _launches(plan, esize, src_address, dst_address)
    listed = sum(p.accesses for _, phases in launches for p in phases)
    if listed > LISTED_ACCESSES:
        raise LayoutError(
            f"traffic: this scan's kernels ({', '.join(template_of(k.kernel) for k, _ in launches)}) make "
            f"{listed} lane accesses, more than the {LISTED_ACCESSES} (2**26) that are counted lane by lane: "
            "count a smaller tensor of the same layout"
        )
    return tuple(_counted(launch, phases) for launch, phases in launches)


def _launches(plan: ScanPlan, esize: int, src: int, dst: int) -> list[tuple[Launch, list[Phase]]]:
    """Each launch of ``plan`` with its phases, the partial-totals plan's included (recursively)."""
    src += plan.src_shift * esize
    dst += plan.dst_shift * esize
    if plan.first is None:
        return [(plan.launch, _phases(plan.launch, esize, src, dst, None, None))]
    assert plan.partial_plan is not None, "a plan with a first pass scans its partials"
    temporary = 0  # a fresh allocation: 0 modulo 128
    partial_esize = SCAN_TYPES[plan.partial_type].esize
    return [
        (plan.first, _phases(plan.first, esize, src, dst, temporary, None)),
        *_launches(plan.partial_plan, partial_esize, temporary, temporary),
        (plan.launch, _phases(plan.launch, esize, src, dst, None, temporary)),
    ]


def _phases(launch: Launch, esize: int, src: int, dst: int, partial: int | None, carry: int | None) -> list[Phase]:
    template = template_of(launch.kernel)
    families: dict[str, Family] = {"sl_scan_lines": _lines, "sl_scan_cols": _cols, "sl_scan_cols_split": _cols_split}
    family = families.get(template, tile_phases)
    args = template_args(launch.kernel)
    if template.startswith("sl_scan_tile"):
        args = (*args, ("ax", "ay", "an", "staged").index(template.rsplit("_", 1)[1]))
    return [p for p in family(parse_geo(launch.geo), args, esize, src, dst, partial, carry) if p.per_warp > 0]


def _counted(launch: Launch, phases: list[Phase]) -> LaunchTraffic:
    totals = [NO_COUNTS, NO_COUNTS, NO_COUNTS]
    for phase in phases:
        n = phase.warps * phase.per_warp
        for first in range(0, n, _BATCH):
            i = np.arange(first, min(n, first + _BATCH), dtype=np.int64)
            addresses, active = phase.at(i // phase.per_warp, i % phase.per_warp)
            totals[phase.group] += request_counts(addresses, active, phase.width, 32, 128)
    return LaunchTraffic(launch.kernel, launch.grid, launch.block, *totals)


def _group(v: int, rev: bool, base: int, offset: np.ndarray, k: np.ndarray, stride: int, esize: int) -> np.ndarray:
    """Byte address of ``sl_load_group`` / ``sl_store_group``'s access: element k at ``stride``, or
    the ``v``-element vector starting at k (``rev``: ending at k, stride -1)."""
    if v == 1:
        return at_bytes(base, offset + k * stride, esize)
    return at_bytes(base, offset - k - (v - 1) if rev else offset + k, esize)


def _lines(
    g: Geo, args: tuple[int, ...], es: int, src: int, dst: int, partial: int | None, carry: int | None
) -> list[Phase]:
    """``sl_scan_lines<K, V, C, REV, EXCL>``: per warp, ntiles x C group loads and (no partial)
    stores, a carry load per lane (carry) and a chunk-total store per unit (partial)."""
    v, c_count, rev = args[0], args[1], bool(args[2])
    lanes = g.lanes
    step = v * c_count * lanes
    ntiles = cdiv(g.chunk, step)
    units = g.rows * g.nchunks
    warps = g.nblocks * WARPS

    def unit_of(w: np.ndarray):  # unit, position p, valid, so, dO, k0, k1 of each lane
        unit = w[:, None] * (WARP // lanes) + LANE // lanes
        valid = unit < units
        line, c = np.divmod(np.where(valid, unit, 0), g.nchunks)
        so, do = decompose(g, line)
        k0 = np.where(valid, c * g.chunk, 0)
        k1 = np.where(valid, np.minimum(k0 + g.chunk, g.na), 0)
        return unit, LANE % lanes, valid, so, do, k0, k1

    def groups(load: bool) -> Callable[[np.ndarray, np.ndarray], Lanes]:
        def at(w: np.ndarray, j: np.ndarray) -> Lanes:
            _, p, _, so, do, k0, k1 = unit_of(w)
            t, c = np.divmod(j, c_count)
            k = k0 + (t * step + c * lanes * v)[:, None] + p * v
            base, offset, stride = (src, so, g.sa) if load else (dst, do, g.da)
            return _group(v, rev, base, offset, k, stride, es), k < k1

        return at

    def totals(base: int, first_lane: bool) -> Callable[[np.ndarray, np.ndarray], Lanes]:
        def at(w: np.ndarray, j: np.ndarray) -> Lanes:
            unit, p, valid, *_ = unit_of(w)
            return base + unit * ACC_BYTES, valid & (p == 0) if first_lane else valid

        return at

    phases = [Phase(LOADS, v * es, warps, ntiles * c_count, groups(True))]
    if partial is None:
        phases.append(Phase(STORES, v * es, warps, ntiles * c_count, groups(False)))
    else:
        phases.append(Phase(STORES, ACC_BYTES, warps, 1, totals(partial, True)))
    if carry is not None:
        phases.append(Phase(LOADS, ACC_BYTES, warps, 1, totals(carry, False)))
    return phases


def _cols(
    g: Geo, args: tuple[int, ...], es: int, src: int, dst: int, partial: int | None, carry: int | None
) -> list[Phase]:
    """``sl_scan_cols<K, V, U, PIPE>``: a thread per (chunk, column); per warp, the batches of U
    steps its lanes share (batch i: the lanes with more than i whole batches), then the tail batches
    of U/2, ..., 1 steps (the lanes whose remainder has that bit), V carry loads and V chunk-total
    stores of 4 bytes each. Double buffering (PIPE) reorders the loads, not what they touch."""
    v, u_steps = args[0], args[1]
    units = g.rows * g.nchunks
    warps = cdiv(units, WARP)
    tail = [(n, q) for n in (u_steps >> i for i in range(1, u_steps.bit_length())) for q in range(n)]
    tail_n = np.array([n for n, _ in tail], dtype=np.int64)
    tail_q = np.array([q for _, q in tail], dtype=np.int64)

    def column(w: np.ndarray):  # u, valid, so, dO, k0, whole batches, remainder of each lane
        u = w[:, None] * WARP + LANE
        valid = u < units
        c, col = np.divmod(np.where(valid, u, 0), g.rows)
        so, do = decompose(g, col)
        k0 = c * g.chunk
        length = np.where(valid, np.minimum(k0 + g.chunk, g.na) - k0, 0)
        return u, valid, so, do, k0, length // u_steps, length % u_steps

    def steps(load: bool, in_tail: bool) -> Callable[[np.ndarray, np.ndarray], Lanes]:
        def at(w: np.ndarray, j: np.ndarray) -> Lanes:
            _, _, so, do, k0, whole, rem = column(w)
            if in_tail:
                n, q = tail_n[j][:, None], tail_q[j][:, None]
                active = (rem & n) != 0
                k = k0 + whole * u_steps + (rem & ~(2 * n - 1)) + q
            else:
                active = whole > (j // u_steps)[:, None]
                k = k0 + j[:, None]
            offset, stride, base = (so, g.sa, src) if load else (do, g.da, dst)
            return at_bytes(base, offset + k * stride, es), active

        return at

    def totals(base: int) -> Callable[[np.ndarray, np.ndarray], Lanes]:
        def at(w: np.ndarray, j: np.ndarray) -> Lanes:
            u, valid, *_ = column(w)
            return base + (u * v + j[:, None]) * ACC_BYTES, valid

        return at

    main = g.chunk // u_steps * u_steps
    sides = (True, False) if partial is None else (True,)
    phases = [
        Phase(LOADS if load else STORES, v * es, warps, n, steps(load, in_tail))
        for load in sides
        for in_tail, n in ((False, main), (True, len(tail)))
    ]
    if partial is not None:
        phases.append(Phase(STORES, ACC_BYTES, warps, v, totals(partial)))
    if carry is not None:
        phases.append(Phase(LOADS, ACC_BYTES, warps, v, totals(carry)))
    return phases


def _cols_split(g: Geo, args: tuple[int, ...], es: int, src: int, dst: int, *_: int | None) -> list[Phase]:
    """``sl_scan_cols_split<K, V, R, MINB>``: a block's 8 warps share 32 columns (vectors of V);
    pass i of 8 R steps, warp w loads and stores steps i * 8 R + w R + q, q < R."""
    v, r = args[0], args[1]
    per_warp = cdiv(g.na, WARPS * r) * r

    def steps(load: bool) -> Callable[[np.ndarray, np.ndarray], Lanes]:
        def at(w: np.ndarray, j: np.ndarray) -> Lanes:
            block, warp, _ = thread_ids(w)
            u = block * WARP + LANE
            live = u < g.rows
            so, do = decompose(g, np.where(live, u, 0))
            i, q = np.divmod(j, r)
            k = (i * WARPS * r + q)[:, None] + warp * r
            offset, stride, base = (so, g.sa, src) if load else (do, g.da, dst)
            return at_bytes(base, offset + k * stride, es), live & (k < g.na)

        return at

    return [
        Phase(LOADS, v * es, g.nblocks * WARPS, per_warp, steps(True)),
        Phase(STORES, v * es, g.nblocks * WARPS, per_warp, steps(False)),
    ]
