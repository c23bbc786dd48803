"""scan_traffic against a literal simulation of the scan kernels and against counts worked by hand.

The reference below runs each kernel of ``scan_*.cu`` thread by thread, block by block, in plain
Python, following the CUDA source line by line: every global load, ``cp.async`` copy and store a
thread executes is recorded with the dynamic instruction it belongs to (the loop iterations of its
warp that execute it together). Grouping by (warp, instruction) gives the requests; the bytes they
cover give sectors, lines and bytes. Nothing of stridelab's traffic modules is used.
"""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

from stridelab import LayoutError
from stridelab._access import Counts
from stridelab.ops._primitives import canonical_pair
from stridelab.ops.cupy.geometry import GEO_FIELDS
from stridelab.ops.cupy.scan_plan import SCAN_TYPES, ScanPlan, plan_scan
from stridelab.ops.cupy.scan_traffic import scan_traffic

H100_SHARED = 232448


# --------------------------------------------------------------------------- the reference


def _geo(flat):
    g, at = {}, 0
    for name, count in GEO_FIELDS:
        g[name] = list(flat[at : at + count]) if count > 1 else flat[at]
        at += count
    return g


def _decompose(g, r):
    so = do = 0
    for i in range(g["nd"]):
        r, c = divmod(r, g["n"][i])
        so += c * g["s"][i]
        do += c * g["d"][i]
    return so, do


def _args(kernel):
    inner = kernel[kernel.index("<") + 1 : -1]
    rest = inner[inner.index(">") + 2 :]
    return [1 if a == "true" else 0 if a == "false" else int(a) for a in rest.split(", ")]


def _cdiv(a, b):
    return -(-a // b)


def _lines(g, a, es, src, dst, partial, carry, emit):
    V, C, REV = a[0], a[1], a[2]
    L = g["lanes"]
    step = V * C * L
    ntiles = _cdiv(g["chunk"], step)
    per_block = 8 * (32 // L)
    units = g["rows"] * g["nchunks"]
    for b in range(g["nblocks"]):
        for tid in range(256):
            lane, p = tid % 32, tid % 32 % L
            unit = b * per_block + (tid // 32) * (32 // L) + lane // L
            so = dO = k0 = k1 = 0
            if unit < units:
                line, c = divmod(unit, g["nchunks"])
                so, dO = _decompose(g, line)
                k0 = c * g["chunk"]
                k1 = min(k0 + g["chunk"], g["na"])
                if carry is not None:
                    emit("ld", b, tid, "carry", carry + 4 * unit, 4)
            for t in range(ntiles):
                kb = k0 + t * step + p * V
                for c in range(C):
                    k = kb + c * L * V
                    if k < k1:
                        s_el = so + k * g["sa"] if V == 1 else (so - k - (V - 1) if REV else so + k)
                        emit("ld", b, tid, ("g", t, c), src + s_el * es, V * es)
                for c in range(C):
                    k = kb + c * L * V
                    if partial is None and k < k1:
                        d_el = dO + k * g["da"] if V == 1 else (dO - k - (V - 1) if REV else dO + k)
                        emit("st", b, tid, ("g", t, c), dst + d_el * es, V * es)
            if partial is not None and p == 0 and unit < units:
                emit("st", b, tid, "partial", partial + 4 * unit, 4)


def _cols(g, a, es, src, dst, partial, carry, emit):
    V, U = a[0], a[1]
    units = g["rows"] * g["nchunks"]
    for u in range(units):
        b, tid = divmod(u, 256)
        c, col = divmod(u, g["rows"])
        so, dO = _decompose(g, col)
        k0 = c * g["chunk"]
        k1 = min(k0 + g["chunk"], g["na"])
        for j in range(V):
            if carry is not None:
                emit("ld", b, tid, ("carry", j), carry + 4 * (u * V + j), 4)
        k, batch = k0, 0
        while k + U <= k1:  # the PIPE loop loads and stores the same batches
            for q in range(U):
                emit("ld", b, tid, ("batch", batch, q), src + (so + (k + q) * g["sa"]) * es, V * es)
                if partial is None:
                    emit("st", b, tid, ("batch", batch, q), dst + (dO + (k + q) * g["da"]) * es, V * es)
            k, batch = k + U, batch + 1
        n = U // 2
        while n >= 1:  # sl_cols_tail
            if k + n <= k1:
                for q in range(n):
                    emit("ld", b, tid, ("tail", n, q), src + (so + (k + q) * g["sa"]) * es, V * es)
                    if partial is None:
                        emit("st", b, tid, ("tail", n, q), dst + (dO + (k + q) * g["da"]) * es, V * es)
                k += n
            n //= 2
        for j in range(V):
            if partial is not None:
                emit("st", b, tid, ("partial", j), partial + 4 * (u * V + j), 4)


def _cols_split(g, a, es, src, dst, partial, carry, emit):
    V, R = a[0], a[1]
    for b in range(g["nblocks"]):
        for tid in range(256):
            warp, lane = divmod(tid, 32)
            u = b * 32 + lane
            live = u < g["rows"]
            so, dO = _decompose(g, u) if live else (0, 0)
            for a0 in range(0, g["na"], 8 * R):
                k0 = a0 + warp * R
                for q in range(R):
                    if live and k0 + q < g["na"]:
                        emit("ld", b, tid, (a0, q), src + (so + (k0 + q) * g["sa"]) * es, V * es)
                        emit("st", b, tid, (a0, q), dst + (dO + (k0 + q) * g["da"]) * es, V * es)


def _tile_ax(g, a, es, src, dst, partial, carry, emit):
    E, TY, VEC = a[0], a[1], a[2]
    L = a[4] if len(a) > 4 else 32
    TA, RPI, RPW = L * E, 32 // L, TY // 8
    IT, W = RPW // RPI, E if VEC else 1
    LANES = TY // W
    ROWS = 256 // LANES
    for b in range(g["nblocks"]):
        row, ty = divmod(b, g["tiles_y"])
        y0 = ty * TY
        so, dO = _decompose(g, row)
        for tid in range(256):
            warp, lane = divmod(tid, 32)
            p, sub = lane % L, lane // L
            tl, tr = tid % LANES, tid // LANES
            ps = so + (y0 + warp * RPW + sub) * g["sy"] + p * E * g["sa"]
            pd = dO + (y0 + tl * W) * g["dy"] + tr * g["da"]
            yin = y0 + tl * W < g["ny"]
            for a0 in range(0, g["na"], TA):
                for r in range(IT):
                    inside = y0 + warp * RPW + r * RPI + sub < g["ny"]
                    for e in range(E if not VEC else 1):
                        if inside and a0 + p * E + e < g["na"]:
                            addr = src + (ps + r * RPI * g["sy"] + e * g["sa"]) * es
                            emit("ld", b, tid, (a0, r, e), addr, (E if VEC else 1) * es)
                for q in range(TA // ROWS):
                    if yin and a0 + tr + q * ROWS < g["na"]:
                        emit("st", b, tid, (a0, q), dst + (pd + q * ROWS * g["da"]) * es, W * es)
                ps += TA * g["sa"]
                pd += TA * g["da"]


def _tile_ay(g, a, es, src, dst, partial, carry, emit):
    E, TX, VEC = a[0], a[1], a[2]
    L = a[4] if len(a) > 4 else 32
    TA, RPI, RPW = L * E, 32 // L, TX // 8
    IT, W = RPW // RPI, E if VEC else 1
    LANES = TX // W
    ROWS = 256 // LANES
    for b in range(g["nblocks"]):
        row, tx = divmod(b, g["tiles_x"])
        x0 = tx * TX
        so, dO = _decompose(g, row)
        for tid in range(256):
            warp, lane = divmod(tid, 32)
            p, sub = lane % L, lane // L
            tl, tr = tid % LANES, tid // LANES
            ps = so + (x0 + tl * W) * g["sx"] + tr * g["sa"]
            pd = dO + (x0 + warp * RPW + sub) * g["dx"] + p * E * g["da"]
            xin = x0 + tl * W < g["nx"]
            for a0 in range(0, g["na"], TA):
                for q in range(TA // ROWS):
                    if xin and a0 + tr + q * ROWS < g["na"]:
                        emit("ld", b, tid, (a0, q), src + (ps + q * ROWS * g["sa"]) * es, W * es)
                for r in range(IT):
                    if x0 + warp * RPW + r * RPI + sub < g["nx"]:
                        for e in range(E if not VEC else 1):
                            if a0 + p * E + e < g["na"]:
                                addr = dst + (pd + r * RPI * g["dx"] + e * g["da"]) * es
                                emit("st", b, tid, (a0, r, e), addr, (E if VEC else 1) * es)
                ps += TA * g["sa"]
                pd += TA * g["da"]


def _tile_an(g, a, es, src, dst, partial, carry, emit):
    TILE, S, W = a[0], a[1], a[2]
    LANES = TILE // W
    ROWS = 256 // LANES
    PER = TILE // ROWS
    for b in range(g["nblocks"]):
        rest, tx = divmod(b, g["tiles_x"])
        row, ty = divmod(rest, g["tiles_y"])
        x0, y0 = tx * TILE, ty * TILE
        so, dO = _decompose(g, row)
        for tid in range(256):
            tl, tr = tid % LANES, tid // LANES
            ps = so + (x0 + tl * W) * g["sx"] + (y0 + tr) * g["sy"]
            pd = dO + (y0 + tl * W) * g["dy"] + (x0 + tr) * g["dx"]
            xin, yin = x0 + tl * W < g["nx"], y0 + tl * W < g["ny"]
            for k0 in range(0, g["na"], S):
                for s in range(S):
                    for q in range(PER):
                        if xin and k0 + s < g["na"] and y0 + tr + q * ROWS < g["ny"]:
                            addr = src + (ps + s * g["sa"] + q * ROWS * g["sy"]) * es
                            emit("ld", b, tid, (k0, s, q), addr, W * es)
                for s in range(S):
                    if k0 + s < g["na"]:
                        for q in range(PER):
                            if yin and x0 + tr + q * ROWS < g["nx"]:
                                addr = dst + (pd + s * g["da"] + q * ROWS * g["dx"]) * es
                                emit("st", b, tid, (k0, s, q), addr, W * es)
                ps += S * g["sa"]
                pd += S * g["da"]


def _staged(g, a, es, src, dst, partial, carry, emit):
    TX, TY, CH, STAGES = a[0], a[1], a[2], a[3]
    V = 16 // es
    LX, LY = TX // V, TY // V
    RY, RX = 256 // LX, 256 // LY
    PY, PX = TY // RY, TX // RX
    nchunks = _cdiv(g["na"], CH)
    for b in range(g["nblocks"]):
        rest, tx = divmod(b, g["tiles_x"])
        row, ty = divmod(rest, g["tiles_y"])
        x0, y0 = tx * TX, ty * TY
        so, dO = _decompose(g, row)
        for tid in range(256):
            il, ir = tid % LX, tid // LX
            ol, orow = tid % LY, tid // LY
            ps = so + x0 + il * V + (y0 + ir) * g["sy"]
            for c in range(nchunks + STAGES - 1):  # issue(c) for every c once
                steps = max(0, min(CH, g["na"] - c * CH))
                for p in range(PY):
                    if x0 + il * V < g["nx"] and y0 + ir + p * RY < g["ny"]:
                        for s in range(steps):
                            addr = src + (ps + p * RY * g["sy"] + c * CH * g["sa"] + s * g["sa"]) * es
                            emit("cp", b, tid, (c, p, s), addr, 16)
            for c in range(nchunks):
                k0 = c * CH
                for p in range(PX):
                    x = orow + p * RX
                    pd = dO + (x0 + x) * g["dx"] + y0 + ol * V + k0 * g["da"]
                    for s in range(min(CH, g["na"] - k0)):
                        if x0 + x < g["nx"] and y0 + ol * V < g["ny"]:
                            emit("st", b, tid, (c, p, s), dst + (pd + s * g["da"]) * es, 16)


_KERNELS = {
    "sl_scan_lines": _lines,
    "sl_scan_cols": _cols,
    "sl_scan_cols_split": _cols_split,
    "sl_scan_tile_ax": _tile_ax,
    "sl_scan_tile_ay": _tile_ay,
    "sl_scan_tile_an": _tile_an,
    "sl_scan_tile_staged": _staged,
}


def _counts(requests):
    """Counts of requests given as {key: [(address, width) of each active lane]}."""
    total = [0, 0, 0, 0, 0]
    for accesses in requests.values():
        covered = {x for addr, width in accesses for x in range(addr, addr + width)}
        total[0] += 1
        total[1] += len({x // 32 for x in covered})
        total[2] += len({x // 128 for x in covered})
        total[3] += len(covered)
        total[4] += _cdiv(len(covered), 32)
    return Counts(*total)


def _simulated_launch(launch, es, src, dst, partial, carry):
    groups = {"ld": defaultdict(list), "cp": defaultdict(list), "st": defaultdict(list)}

    def emit(op, block, tid, key, address, width):
        groups[op][(block, tid // 32, key)].append((address, width))

    template = launch.kernel.split("<")[0]
    _KERNELS[template](_geo(launch.geo), _args(launch.kernel), es, src, dst, partial, carry, emit)
    return launch.kernel, _counts(groups["ld"]), _counts(groups["cp"]), _counts(groups["st"])


def _simulated(plan: ScanPlan, es: int, src: int, dst: int) -> list:
    src += plan.src_shift * es
    dst += plan.dst_shift * es
    if plan.first is None:
        return [_simulated_launch(plan.launch, es, src, dst, None, None)]
    return [
        _simulated_launch(plan.first, es, src, dst, 0, None),
        *_simulated(plan.partial_plan, 4, 0, 0),
        _simulated_launch(plan.launch, es, src, dst, None, 0),
    ]


def _modelled(plan, es, src, dst):
    return [(t.kernel, t.loads, t.async_loads, t.stores) for t in scan_traffic(plan, es, src, dst)]


# --------------------------------------------------------------------------- the problems


def _packed(sizes, order):
    strides, step = [0] * len(sizes), 1
    for d in reversed(order):
        strides[d], step = step, step * sizes[d]
    return tuple(strides)


# (data type, sizes, source order, destination order, axis, sm_count, the family the plan takes)
CASES = [
    ("FLOAT32", (3, 40), (0, 1), (0, 1), 1, 132, "sl_scan_lines"),
    ("FLOAT16", (5, 24), (0, 1), (0, 1), 1, 132, "sl_scan_lines"),
    ("FLOAT32", (2, 8500), (0, 1), (0, 1), 1, 1, "sl_scan_lines"),  # chunks: three passes
    ("FLOAT16", (3, 2100), (0, 1), (0, 1), 1, 1, "sl_scan_lines"),
    ("FLOAT32", (70, 12), (0, 1), (0, 1), 0, 132, "sl_scan_cols"),
    ("UINT16", (37, 2, 40), (0, 1, 2), (0, 1, 2), 0, 132, "sl_scan_cols"),
    ("FLOAT32", (100, 40), (0, 1), (0, 1), 0, 1, "sl_scan_cols"),  # chunks: three passes
    ("FLOAT32", (130, 512), (0, 1), (0, 1), 0, 1, "sl_scan_cols_split"),
    ("FLOAT16", (70, 2048), (0, 1), (0, 1), 0, 1, "sl_scan_cols_split"),
    ("FLOAT32", (40, 50), (0, 1), (1, 0), 1, 132, "sl_scan_tile_ax"),
    ("FLOAT16", (2, 37, 45), (0, 1, 2), (0, 2, 1), 2, 132, "sl_scan_tile_ax"),
    ("FLOAT16", (36, 100), (0, 1), (1, 0), 1, 132, "sl_scan_tile_ax"),  # 16 lanes a row
    ("FLOAT32", (40, 70), (1, 0), (0, 1), 1, 132, "sl_scan_tile_ay"),
    ("FLOAT32", (36, 100), (1, 0), (0, 1), 1, 132, "sl_scan_tile_ay"),  # 16 lanes a row
    ("FLOAT16", (40, 96), (1, 0), (0, 1), 1, 132, "sl_scan_tile_ay"),  # 8 lanes a row
    ("FLOAT16", (36, 300), (1, 0), (0, 1), 1, 132, "sl_scan_tile_ay"),
    ("FLOAT32", (9, 40, 36), (0, 1, 2), (0, 2, 1), 0, 132, "sl_scan_tile_an"),
    ("FLOAT16", (5, 20, 17), (0, 1, 2), (0, 2, 1), 0, 132, "sl_scan_tile_an"),
    ("FLOAT32", (35, 32, 64), (0, 1, 2), (0, 2, 1), 0, 132, "sl_scan_tile_staged"),
    ("FLOAT16", (33, 64, 32), (0, 1, 2), (0, 2, 1), 0, 1, "sl_scan_tile_staged"),
    ("FLOAT32", (35, 40, 36), (0, 1, 2), (0, 2, 1), 0, 132, "sl_scan_tile_staged"),  # partial tiles
]


def _plan(case, src_align=0, dst_align=0, exclusive=False):
    name, sizes, src_order, dst_order, axis, sm_count, _ = case
    pair = canonical_pair(sizes, _packed(sizes, src_order), _packed(sizes, dst_order), axis)
    return plan_scan(name, pair, exclusive, src_align, dst_align, sm_count, shared_limit=H100_SHARED)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[6]}-{c[0]}-{'x'.join(map(str, c[1]))}")
def test_every_family_matches_the_simulation(case):
    """Each family on a small problem, element 0 of both views at a random address modulo 128
    (whole vectors where the plan vectorises): the model's counts are the simulation's."""
    rng = random.Random(hash(case[1]) & 0xFFFF)
    es = SCAN_TYPES[case[0]].esize
    for src, dst in ((0, 0), (rng.randrange(0, 128, 16), rng.randrange(0, 128, 16))):
        plan = _plan(case, src % 16, dst % 16)
        assert plan.launch.kernel.startswith(case[6] + "<"), plan.launch.kernel
        assert _modelled(plan, es, src, dst) == _simulated(plan, es, src, dst)


def test_misaligned_views_and_exclusive_scans_match_the_simulation():
    """Views whose element 0 is off the 16-byte grid take the element-by-element kernels."""
    for case in CASES:
        es = SCAN_TYPES[case[0]].esize
        src, dst = 6 * es + 64, 3 * es
        plan = _plan(case, src % 16, dst % 16, exclusive=True)
        assert _modelled(plan, es, src, dst) == _simulated(plan, es, src, dst), case


def test_random_views_match_the_simulation():
    """Random small views (reversed and strided sources included) at random addresses."""
    rng = random.Random(7)
    for _ in range(40):
        nd = rng.randint(1, 3)
        sizes = tuple(rng.choice([1, 2, 3, 8, 17, 33, 40]) for _ in range(nd))
        src_strides = tuple(rng.choice([1, -1, 2, 8, -40, 64]) for _ in sizes)
        order = list(range(nd))
        rng.shuffle(order)
        name = rng.choice(list(SCAN_TYPES))
        es = SCAN_TYPES[name].esize
        pair = canonical_pair(sizes, src_strides, _packed(sizes, order), rng.randrange(nd))
        src, dst = rng.randrange(0, 4096, es), rng.randrange(0, 128, es)
        plan = plan_scan(name, pair, rng.random() < 0.3, src % 16, dst % 16, rng.choice([1, 132]))
        assert _modelled(plan, es, src, dst) == _simulated(plan, es, src, dst), (sizes, src_strides, order)


# --------------------------------------------------------------------------- counts by hand


def test_a_short_float32_line_by_hand():
    """64 packed float32 at address 0: sl_scan_lines<V=4, C=4> with 4 lanes on the line (64 / 16
    elements a lane, rounded up to a power of two). Each of the 4 load instructions has lanes 0-3
    active, 16 bytes each at 64 c + 16 p: 64 consecutive bytes = 2 sectors of 1 line. Loads: 4
    requests, 8 sectors, 4 lines, 256 bytes, 8 ideal sectors; the stores the same."""
    plan = plan_scan("FLOAT32", canonical_pair((64,), (1,), (1,), 0), False, 0, 0, 132)
    (t,) = scan_traffic(plan, 4, 0, 0)
    assert (t.kernel, t.grid, t.block) == ("sl_scan_lines<Scan<F32, Sum>, 4, 4, false, false>", 1, (256, 1))
    assert t.loads == t.stores == Counts(4, 8, 4, 256, 8)
    assert t.async_loads == Counts(0, 0, 0, 0, 0)


def test_columns_off_a_line_boundary_by_hand():
    """(10, 64) packed float32 scanned down axis 0, source at byte 8, destination at 0: 32 threads
    of 2-column vectors (8 bytes; 16-byte vectors would leave too few threads), U = 8 steps: one
    batch of 8 and a tail batch of 2, so 10 requests each way. A step covers 256 consecutive bytes:
    loaded from 8 + 256 k, sectors 8 k .. 8 k + 8 (9) in lines 2 k .. 2 k + 2 (3): 90 sectors, 30
    lines; stored from 256 k: 8 sectors, 2 lines: 80 and 20. 2560 bytes each way, 80 ideal sectors."""
    plan = plan_scan("FLOAT32", canonical_pair((10, 64), (64, 1), (64, 1), 0), False, 8, 0, 132)
    (t,) = scan_traffic(plan, 4, 8, 0)
    assert t.kernel == "sl_scan_cols<Scan<F32, Sum>, 2, 8, false>"
    assert t.loads == Counts(10, 90, 30, 2560, 80)
    assert t.stores == Counts(10, 80, 20, 2560, 80)


def test_the_chunk_totals_of_a_three_pass_columns_scan_by_hand():
    """(100, 40) packed float32 down axis 0 on one multiprocessor: 20 threads of 2-column vectors,
    the axis cut into 7 chunks of 16 steps (ceil(ceil(100 / 7) / 8) * 8): 140 units, 5 warps, the
    last of 12 lanes. The first pass stores each unit's 2 totals (4 bytes each, one instruction per
    total, lane u at 8 u + 4 j of the temporary): a full warp spans 256 bytes, 8 sectors, 2 lines,
    128 bytes; the last (units 128-139) bytes 1024 + 4 j .. 1115 + 4 j: 3 sectors, 1 line, 48 bytes.
    Stores: 10 requests, 4 * 2 * 8 + 2 * 3 = 70 sectors, 8 * 2 + 2 = 18 lines, 1120 bytes,
    8 * 4 + 2 * 2 = 36 ideal sectors. The last pass loads them back as carries: the same again."""
    plan = plan_scan("FLOAT32", canonical_pair((100, 40), (40, 1), (40, 1), 0), False, 0, 0, 1)
    first, partials, last = scan_traffic(plan, 4, 0, 0)
    totals = Counts(10, 70, 18, 1120, 36)
    assert first.stores == totals
    assert tuple(a - b for a, b in zip(last.loads, first.loads)) == totals
    assert partials.kernel.startswith("sl_scan_cols<Scan<F32, Sum>")


def test_too_many_accesses_to_list_is_refused():
    plan = plan_scan("FLOAT32", canonical_pair((16384, 16384), (16384, 1), (16384, 1), 1), False, 0, 0, 132)
    with pytest.raises(LayoutError, match=r"more than the 67108864 \(2\*\*26\) that are counted lane by lane"):
        scan_traffic(plan, 4, 0, 0)


def test_bad_arguments():
    plan = plan_scan("FLOAT32", canonical_pair((64,), (1,), (1,), 0), False, 0, 0, 132)
    with pytest.raises(LayoutError, match=r"esize = 3; the scan kernels store 2- or 4-byte elements"):
        scan_traffic(plan, 3, 0, 0)
    with pytest.raises(TypeError, match=r"src_address must be an int, not str"):
        scan_traffic(plan, 4, "0", 0)  # type: ignore[arg-type]
