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
        mark = ">" if (a if template == "rows" else b) != "1" else "="  # vectors or elements
        kernels.add(f"rows V{mark}1 mode {b}" if template == "rows" else f"tiled W{mark}1")
        got = (t.loads.requests, t.loads.sectors, t.stores.requests, t.stores.sectors)
        assert got == _reference(name, x, args, kwargs, src_at, out_at), (name, x.shape, args, kwargs, src_at, out_at)
    # every kernel shape met: rows element by element and in each vector mode, tiles of both kinds
    expected = {f"rows V>1 mode {m}" for m in range(5)} | {"rows V=1 mode 0", "tiled W>1", "tiled W=1"}
    assert kernels == expected


# ------------------------------------------------------------------------------ named cases


def _counts(t):
    return t.loads.requests, t.loads.sectors, t.stores.requests, t.stores.sectors


def test_a_packed_float32_copy_moves_16_byte_vectors():
    # 1024 * 1024 elements in 16-byte vectors of 4: 262144 vectors, 32 a warp request -> 8192
    # requests of 512 contiguous aligned bytes = 16 sectors each.
    x = np.zeros((1024, 1024), np.float32)
    out = StridedTensor.empty(TensorDesc("FLOAT32", (1024, 1024)))
    t = traffic(sl.element_wise_identity, x, out, addresses={"x": 0, "out": 0})
    assert t.kernels == ("sl_copy_rows<4, 4, 1>",) and t.async_loads == (0, 0, 0, 0, 0)
    assert _counts(t) == (8192, 8192 * 16, 8192, 8192 * 16)


def test_a_packed_float32_copy_without_vectors_touches_4_sectors_a_request():
    # 1023 elements: no whole vectors, one element a thread; 31 warps of 128 aligned bytes (4 sectors)
    # and a last one of 31 threads (124 bytes, 4 sectors).
    x = np.zeros((3, 341), np.float32)
    t = traffic("slice1", x, (0, 0), (3, 341), (1, 1), addresses={"x": 0})
    assert t.kernels == ("sl_copy_rows<4, 1, 0>",)
    assert _counts(t) == (32, 128, 32, 128)
    # 4 bytes past a line: each warp's 128 bytes straddle two lines (5 sectors); the last one's 124
    # bytes end exactly at a line (4 sectors)
    assert _counts(traffic("slice1", x, (0, 0), (3, 341), (1, 1), addresses={"x": 4, "out": 4})) == (
        32,
        31 * 5 + 4,
        32,
        31 * 5 + 4,
    )


def test_nchw_to_nhwc_goes_through_64_by_64_tiles_of_8_byte_vectors():
    # (2, 64, 32, 32) float32: X = H*W (1024, innermost in the source), Y = C (64, innermost in the
    # destination), N outer. Tiles of 64 x 64 in vectors of 2: 32 lanes a tile row, 8 rows a pass, 8
    # passes; 16 x 1 tiles a batch, 32 blocks. A warp is one tile row: 32 * 8 = 256 aligned bytes, 8
    # sectors, on both sides (C pairs of one pixel at x * 256 bytes in the destination).
    # 32 blocks * 8 warps * 8 passes = 2048 requests, 16384 sectors each way.
    sizes = (2, 64, 32, 32)
    out = StridedTensor.empty(TensorDesc("FLOAT32", sizes, sl.layout_strides("NHWC", sizes)))
    t = traffic("element_wise_identity", np.zeros(sizes, np.float32), out, addresses={"x": 0, "out": 0})
    assert t.kernels == ("sl_copy_tiled<4, 64, 2>",)
    assert _counts(t) == (2048, 16384, 2048, 16384)


def test_large_copies_are_counted_exactly_without_listing_them():
    sizes = (8, 64, 256, 256)  # 128 MiB each: np.zeros leaves the pages untouched
    out = StridedTensor.from_array(np.zeros((8, 256, 256, 64), np.float32).transpose(0, 3, 1, 2))
    t = traffic("element_wise_identity", np.zeros(sizes, np.float32), out, addresses={"x": 0, "out": 0})
    blocks = 8 * (256 * 256 // 64)  # the tiling above, 1024 tiles a batch
    assert _counts(t) == (blocks * 64, blocks * 64 * 8, blocks * 64, blocks * 64 * 8)
    x = np.zeros((1 << 26,), np.float32)
    t = traffic("slice1", x, (0,), (1 << 26,), (1,), addresses={"x": 0})
    # 2**26 elements in vectors of 4: 2**24 vectors, 2**19 warp requests of 16 sectors
    assert _counts(t) == (1 << 19, (1 << 19) * 16, 1 << 19, (1 << 19) * 16)


#: Measured with Nsight Compute (l1tex__t_{requests,sectors}_pipe_lsu_mem_global_op_{ld,st}.sum)
#: on an H200, operands at 0 modulo 128: (call, kernel, load requests, load sectors, store requests,
#: store sectors).
MEASURED = [
    (("ewi", "FLOAT32", (3, 50, 70, 9)), "sl_copy_tiled<4, 64, 2>", 1500, 12933, 1890, 13230),
    (("ewi", "FLOAT16", (2, 64, 32, 32)), "sl_copy_tiled<2, 64, 8>", 512, 8192, 512, 8192),
    (("ewi", "UINT8", (2, 64, 32, 32)), "sl_copy_tiled<1, 64, 4>", 1024, 4096, 1024, 4096),
    (("ewi", "UINT64", (2, 64, 32, 32)), "sl_copy_tiled<8, 32, 2>", 2048, 32768, 2048, 32768),
    (("FLOAT32", (300, 1000), (0, 0), (300, 1000), (1, -1)), "sl_copy_rows<4, 4, 2>", 2400, 37500, 2400, 37500),
    (("FLOAT32", (300, 1000), (0, 0), (300, 1000), (1, 2)), "sl_copy_rows<4, 2, 3>", 4690, 75002, 2344, 18750),
    (("FLOAT32", (300, 1000), (0, 0), (300, 1000), (1, -2)), "sl_copy_rows<4, 2, 4>", 4800, 75000, 2400, 19950),
    (("FLOAT32", (300, 1000), (0, 0), (300, 999), (1, 3)), "sl_copy_rows<4, 1, 0>", 3300, 37500, 3300, 15370),
    (("FLOAT32", (300, 1200), (0, 0), (300, 1200), (1, 3)), "sl_copy_rows<4, 4, 0>", 3752, 120000, 938, 15000),
    (("FLOAT32", (1000, 40), (0, 0), (1000, 40), (1, -1)), "sl_copy_rows<4, 4, 2>", 375, 5000, 375, 5000),
    (("FLOAT16", (100, 1032), (0, 0), (100, 1032), (1, 2)), "sl_copy_rows<2, 4, 3>", 812, 12904, 404, 3225),
    (("UINT8", (64, 777), (0, 3), (64, 770), (1, 1)), "sl_copy_rows<1, 1, 0>", 1600, 3090, 1600, 3040),
    (("UINT8", (64, 800), (0, 16), (64, 768), (1, 1)), "sl_copy_rows<1, 16, 1>", 96, 1728, 96, 1536),
    (("FLOAT16", (64, 800), (0, 8), (64, 768), (1, -2)), "sl_copy_rows<2, 4, 4>", 384, 6528, 192, 1536),
]


@pytest.mark.parametrize(("call", "kernel", *"abcd"), MEASURED)
def test_traffic_equals_nsight_compute_measurements(call, kernel, a, b, c, d):
    if call[0] == "ewi":
        _, data_type, sizes = call
        x = np.zeros(sizes, TensorDesc(data_type, sizes).dtype.numpy_dtype)
        out = StridedTensor.empty(TensorDesc(data_type, sizes, sl.layout_strides("NHWC", sizes)))
        t = traffic(sl.element_wise_identity, x, out=out, addresses={"x": 0, "out": 0})
    else:
        data_type, shape, *window = call
        x = np.zeros(shape, TensorDesc(data_type, shape).dtype.numpy_dtype)
        t = traffic(sl.slice1, x, *window, addresses={"x": 0})
    assert t.kernels == (kernel,)
    assert _counts(t) == (a, b, c, d)


def test_a_call_that_moves_nothing_launches_nothing():
    x = StridedTensor.empty(TensorDesc("FLOAT32", (4, 4)))
    assert traffic("element_wise_identity", x, x) == Traffic(())


def test_traffic_sums_its_launches():
    t = traffic("slice1", np.zeros((8, 8), np.float32), (0, 0), (8, 8), (1, 1), addresses={"x": 0})
    (launch,) = t.launches
    assert (t.loads, t.stores, t.kernels) == (launch.loads, launch.stores, (launch.kernel,))
    assert (launch.grid, launch.block) == (1, (4, 64))  # 16 vectors of 4, 4 a thread: 4 threads along X


# ---------------------------------------------------------------------------------- errors


def test_an_unknown_operator_is_refused():
    x = np.zeros((4, 4), np.float32)
    with pytest.raises(LayoutError, match=r"op = 'slice2' is not an operator with GPU kernels; the operators are"):
        traffic("slice2", x)
    with pytest.raises(TypeError, match="op must be one of the operator functions"):
        traffic(np.add, x)


def test_the_operators_own_errors_come_out():
    x = np.zeros((4, 4), np.float32)
    with pytest.raises(LayoutError) as own:
        sl.slice1(x, (0, 0), (4, 4), (1, 0))
    with pytest.raises(LayoutError) as predicted:
        traffic(sl.slice1, x, (0, 0), (4, 4), (1, 0))
    assert str(predicted.value) == str(own.value) == "window_strides[1] = 0: window strides may not be 0"
    with pytest.raises(LayoutError, match="x data type FLOAT64 is not supported by SLICE1"):
        traffic("slice1", np.zeros(4), (0,), (4,), (1,))
    with pytest.raises(TypeError, match=r"element_wise_identity\(\) missing a required argument: 'out'"):
        traffic("element_wise_identity", x)
    with pytest.raises(TypeError, match="out must be a StridedTensor"):
        traffic("element_wise_identity", x, x)
    with pytest.raises(TypeError, match=r"slice1\(\) got an unexpected keyword argument 'window'"):
        traffic("slice1", x, (0, 0), (4, 4), (1, 1), window=2)


@pytest.mark.parametrize(
    ("addresses", "error", "message"),
    [
        ([0], TypeError, r"addresses must be a mapping \{'x': int, 'out': int\}, not list \[0\]"),
        ({"y": 0}, LayoutError, r"addresses has the key 'y'; its keys are 'x' and 'out'"),
        ({"x": "0"}, TypeError, r"addresses\['x'\] must be an int \(a byte address\), not str '0'"),
        ({"out": True}, TypeError, r"addresses\['out'\] must be an int"),
        ({"x": -16}, LayoutError, r"addresses\['x'\] = -16 is negative"),
        ({"x": 2}, LayoutError, r"addresses\['x'\] = 2 is not a multiple of the element size, 4 bytes"),
    ],
)
def test_wrong_addresses_are_refused(addresses, error, message):
    with pytest.raises(error, match=message):
        traffic("slice1", np.zeros((4, 4), np.float32), (0, 0), (4, 4), (1, 1), addresses=addresses)


def test_wrong_devices_are_refused():
    with pytest.raises(TypeError, match="device must be a TrafficDevice or None, not str 'H100'"):
        traffic("slice1", np.zeros(4, np.float32), (0,), (4,), (1,), device="H100")
    with pytest.raises(LayoutError, match="TrafficDevice sm_count = 0 is below 1"):
        TrafficDevice(0)
    with pytest.raises(LayoutError, match="TrafficDevice shared_limit = 1024 is below 49152"):
        TrafficDevice(132, 1024)
    with pytest.raises(TypeError, match="TrafficDevice sm_count must be an int, not float 1.5"):
        TrafficDevice(1.5)
    assert TrafficDevice() == TrafficDevice(132, 232448)  # an H100


def test_addresses_count_modulo_a_line_however_large():
    x = np.zeros((64, 1024), np.float32)
    near = traffic(sl.cumulative_summation, x, 1, addresses={"x": 4})
    far = traffic(sl.cumulative_summation, x, 1, addresses={"x": 2**70 + 4})  # 2**70 is 0 modulo 128
    assert far == near and near.loads.requests == 2048  # at byte 4 no 16-byte vectors: a float a lane
