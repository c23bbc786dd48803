"""stridelab.ops.traffic: the sectors and requests of the copy kernels, against a literal simulation
of copy.cu, hand arithmetic and Nsight Compute measurements."""

import random
import re
from collections import defaultdict

import numpy as np
import pytest

import stridelab as sl
from stridelab import LayoutError, StridedTensor, TensorDesc
from stridelab.ops import Traffic, TrafficDevice, traffic
from stridelab.ops._engine import plan
from stridelab.ops.cupy.copy_plan import plan_copy
from stridelab.ops.cupy.geometry import GEO_FIELDS

# ------------------------------------------------------------- a literal simulation of copy.cu


def _geo(flat):
    fields, at = {}, 0
    for name, count in GEO_FIELDS:
        fields[name] = list(flat[at : at + count]) if count > 1 else flat[at]
        at += count
    return fields


def _decompose(g, r):  # sl_decompose
    so = do = 0
    for i in range(g["nd"]):
        r, c = divmod(r, g["n"][i])
        so += c * g["s"][i]
        do += c * g["d"][i]
    return so, do


def _simulate_rows(launch, e, v, mode, src, dst, record):
    g, (tx_, ty_) = _geo(launch.geo), launch.block
    for b in range(g["nblocks"]):
        by, bx = divmod(b, g["tiles_x"])
        for tid in range(tx_ * ty_):
            warp, (y, x_) = tid // 32, divmod(tid, tx_)
            row = by * ty_ + y
            if row >= g["rows"]:
                continue
            so, do = _decompose(g, row)
            for k in range(4):  # SL_COPY_ILP
                x = bx * tx_ * 4 + x_ + k * tx_
                if x >= g["nx"]:
                    continue
                key = (b, warp, "ld", k)
                if mode == 0 or (mode == 3 and x == g["nx"] - 1):
                    for j in range(v):
                        record[(*key, "s", j)].append((src + (so + (x * v + j) * g["sx"]) * e, e))
                elif mode == 1:
                    record[key].append((src + (so + x * v) * e, v * e))
                elif mode == 2:
                    record[key].append((src + (so - x * v - (v - 1)) * e, v * e))
                else:
                    p = so + 2 * x * v if mode == 3 else so - 2 * x * v - (2 * v - 1)
                    for j in range(v):
                        i = 2 * j if mode == 3 else 2 * v - 1 - 2 * j
                        # the compiler loads only the kept elements of 4- and 8-byte vectors (SASS, sm_90)
                        if e >= 4:
                            record[(*key, i)].append((src + (p + i) * e, e))
                        else:
                            record[(*key, i // v)].append((src + (p + i // v * v) * e, v * e))
                at = dst + (do + x * g["dx"]) * e if v == 1 else dst + (do + x * v) * e
                record[(b, warp, "st", k)].append((at, v * e))


def _simulate_tiled(launch, e, tile, w, src, dst, record):
    g = _geo(launch.geo)
    lanes = tile // w
    rows = 256 // lanes
    for b in range(g["nblocks"]):
        rest, tx = divmod(b, g["tiles_x"])
        row, ty = divmod(rest, g["tiles_y"])
        x0, y0 = tx * tile, ty * tile
        so, do = _decompose(g, row)
        for tid in range(256):
            tl, tr = tid % lanes, tid // lanes
            for q in range(tile // rows):
                if x0 + tl * w < g["nx"] and y0 + tr + q * rows < g["ny"]:
                    at = src + (so + (x0 + tl * w) * g["sx"] + (y0 + tr + q * rows) * g["sy"]) * e
                    record[(b, tid // 32, "ld", q)].append((at, w * e))
                if y0 + tl * w < g["ny"] and x0 + tr + q * rows < g["nx"]:
                    at = dst + (do + (y0 + tl * w) * g["dy"] + (x0 + tr + q * rows) * g["dx"]) * e
                    record[(b, tid // 32, "st", q)].append((at, w * e))


def simulate(copy, e, src, dst):
    """(load requests, load sectors, store requests, store sectors) of a CopyPlan's launch."""
    launch = copy.launch
    src, dst = src + copy.src_shift * e, dst + copy.dst_shift * e
    template, e_, a, b = re.match(r"(\w+)<(\d+), (\d+), (\d+)>", launch.kernel).groups()
    assert int(e_) == e
    record = defaultdict(list)
    simulate_kernel = _simulate_rows if template == "sl_copy_rows" else _simulate_tiled
    simulate_kernel(launch, e, int(a), int(b), src, dst, record)
    totals = {"ld": [0, 0], "st": [0, 0]}
    for key, accesses in record.items():
        sectors = {s for at, width in accesses for s in range(at // 32, (at + width - 1) // 32 + 1)}
        totals[key[2]][0] += 1
        totals[key[2]][1] += len(sectors)
    return (*totals["ld"], *totals["st"])


TYPES = {1: "UINT8", 2: "UINT16", 4: "UINT32", 8: "UINT64"}


def _strides(rng, sizes):
    """Strides of a random dimension order (outermost first), each dimension padded by 0 to 4."""
    strides, step = [0] * len(sizes), 1
    for i in reversed(rng.sample(range(len(sizes)), len(sizes))):
        strides[i] = step
        step *= sizes[i] + rng.choice((0, 0, 1, 4))
    return strides


def _random_call(rng):
    """A random small copy: an identity between two permuted, padded layouts, or a slice."""
    e = rng.choice((1, 2, 4, 8))
    rank = rng.randint(1, 4)
    sizes = tuple(rng.choice((1, 2, 3, 5, 8, 9, 16, 33, 64, 70)) for _ in range(rank))
    while np.prod(sizes) > 6000:
        sizes = sizes[1:]
    x = np.zeros(sizes, np.dtype(f"u{e}"))
    if e == 8 or rng.random() < 0.5:  # slice1 takes no 8-byte types
        out = StridedTensor.empty(TensorDesc(TYPES[e], sizes, _strides(rng, sizes)))
        desc = TensorDesc(TYPES[e], sizes, _strides(rng, sizes))
        tensor = StridedTensor(desc, np.zeros(desc.slot_count, x.dtype))
        return ("element_wise_identity", tensor, (), {"out": out}), e
    strides = [rng.choice((1, -1, 2, -2, 3)) for _ in sizes]
    if rng.random() < 0.5:  # vectors fit: a multiple of 16 elements copied along the innermost dimension
        sizes = (*sizes[:-1], rng.choice((16, 32, 48, 64)))
        big = (*(n * rng.choice((1, 2, 3)) + rng.choice((0, 1)) for n in sizes[:-1]), sizes[-1] * abs(strides[-1]))
    else:
        big = tuple(n * rng.choice((1, 2, 3)) + rng.choice((0, 1)) for n in sizes)
    x = np.zeros(big, x.dtype)
    windows = [min(n, abs(s) * m) for n, s, m in zip(big, strides, sizes)]
    return ("slice1", x, ([0] * len(big), windows, strides), {}), e


def _reference(name, x, args, kwargs, src_at, out_at):
    out = kwargs.get("out")
    p = plan(name.upper(), x, out, *args, parameters_only=True)
    e = p.dtype.element_size
    src = src_at + p.views.src_offset * e
    dst = out_at + p.views.dst_offset * e
    return simulate(plan_copy(e, p.pair, src % 16, dst % 16), e, src, dst)


def test_traffic_equals_a_literal_simulation_of_the_kernels_on_random_layouts():
    rng = random.Random(30)
    kernels = set()
    for _ in range(300):
        (name, x, args, kwargs), e = _random_call(rng)
        unit = rng.choice((e, 16))  # element-aligned, or on a vector boundary
        src_at, out_at = unit * rng.randrange(64), unit * rng.randrange(64)
        t = traffic(name, x, *args, addresses={"x": src_at, "out": out_at}, **kwargs)
        template, _, a, b = re.match(r"sl_copy_(\w+)<(\d+), (\d+), (\d+)>", t.kernels[0]).groups()
        kernels.add(f"rows V{'>' if a != '1' else '='}1 mode {b}" if template == "rows" else f"tiled W{'>' if b != '1' else '='}1")
        got = (t.loads.requests, t.loads.sectors, t.stores.requests, t.stores.sectors)
        assert got == _reference(name, x, args, kwargs, src_at, out_at), (name, x.shape, args, kwargs, src_at, out_at)
    # every kernel shape met: rows element by element and in each vector mode, tiles of both kinds
    expected = {f"rows V>1 mode {m}" for m in range(5)} | {"rows V=1 mode 0", "tiled W>1", "tiled W=1"}
    assert kernels == expected
