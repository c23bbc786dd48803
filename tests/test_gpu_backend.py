"""The CuPy backend against the NumPy reference: every test here needs a usable GPU (marked ``gpu``).

Random strided cases (seeded) run each primitive of :mod:`stridelab.ops.cupy.runtime` beside the same
primitive of the NumPy backend on copies of the same buffers, and compare the whole destination
buffers: padding the views do not reach must come back untouched.

Copies and integer scans must be bit-identical. Float scans combine in another order on the GPU
(per lane, then across lanes), so they agree within rounding: for the value at the ``m``-th
position of a running sum or product (``m`` terms), ``|gpu - cpu| <= 2 * m * 2**-24 * S`` where
``S`` is the sum (for products: the product) of the magnitudes of those terms (each of the two
results is within ``(m - 1) * 2**-24 * S`` of the exact one, to first order); FLOAT16 results may
in addition round to the neighbouring half, so one float16 spacing of the result is added to the
bound. Products take factors of magnitude 2**-0.5 to 2**0.5, whose logarithms are symmetric, so
that most long lines neither overflow nor vanish; where both backends reach the same infinity, they
agree.

Memory checking: ``STRIDELAB_TEST_NO_MEMORY_POOL=1 compute-sanitizer --tool memcheck python3 -m pytest
-m gpu tests/test_gpu_backend.py -k random`` (CuPy's pool switched off, so that every buffer is its own
allocation and an access past its end is caught).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest

from stridelab.dtypes import DATA_TYPES, data_type
from stridelab.ops._engine import forget_plans
from stridelab.ops._primitives import ScanOperator, canonical_pair
from stridelab.ops.cumulative_product import PRODUCT
from stridelab.ops.cumulative_summation import SUMMATION
from stridelab.ops.cupy import scan_plan, tuning

pytestmark = pytest.mark.gpu

cupy = pytest.importorskip("cupy")

if os.environ.get("STRIDELAB_TEST_NO_MEMORY_POOL"):
    # for compute-sanitizer: with CuPy's pool, an access past a buffer's end may land in pooled memory
    cupy.cuda.set_allocator(None)

SCAN_TYPES = ("FLOAT32", "FLOAT16", "UINT32", "UINT16")
DATA = Path(__file__).parent / "data" / "conformance"


OPERATORS = pytest.mark.parametrize("operator", [SUMMATION, PRODUCT], ids=["sum", "product"])


def _backends():
    from stridelab.ops import _numpy
    from stridelab.ops.cupy import runtime

    return runtime, _numpy


class BufferView(NamedTuple):
    """A logical tensor over ``buffer`` (1-D): the element at coordinates ``c`` is
    ``buffer[offset + dot(c, strides)]``."""

    buffer: Any
    offset: int
    sizes: tuple[int, ...]
    strides: tuple[int, ...]


def _copy(backend: Any, src: BufferView, dst: BufferView) -> None:
    """``dst[c] = src[c]`` through ``backend``'s primitive, as the engine prepares and runs it."""
    pair = canonical_pair(dst.sizes, src.strides, dst.strides)
    backend.prepare_copy(dst.buffer.dtype, pair)(src.buffer, src.offset, dst.buffer, dst.offset)


def _scan(backend: Any, src: BufferView, dst: BufferView, axis: int, exclusive: bool, operator: ScanOperator) -> None:
    """The running tally of ``src`` along ``axis`` into ``dst`` through ``backend``'s primitive."""
    pair = canonical_pair(dst.sizes, src.strides, dst.strides, axis)
    backend.prepare_scan(dst.buffer.dtype, pair, exclusive, operator)(src.buffer, src.offset, dst.buffer, dst.offset)


# ------------------------------------------------------------------------------------------ random views


def _layout(rng: np.random.Generator, sizes: list[int], *, negative: bool, broadcast: bool, step: int = 1):
    """(offset, strides, buffer length): a random memory order (packed, NHWC-like or any
    permutation), random padding after some dimensions, optionally broadcast dimensions (stride 0)
    and reversed dimensions (negative strides, as window strides make them). ``step`` > 1: padding
    and offset in multiples of it, so that 16-byte vector paths are taken."""
    rank = len(sizes)
    order = list(range(rank))
    kind = rng.integers(4)
    if kind == 1 and rank > 2:  # channels last: dimension 1 innermost
        order = [0, *range(2, rank), 1]
    elif kind >= 2:
        order = list(rng.permutation(rank))
    strides = [0] * rank
    stride = 1
    for i in reversed(order):
        strides[i] = stride
        pad = int(rng.choice([0, 1, 3])) * step if rng.random() < 0.3 else 0
        stride *= sizes[i] + pad
    if broadcast:
        strides = [0 if rng.random() < 0.1 else s for s in strides]
    offset = int(rng.choice([0, 0, 1, 2, 5, 8])) * step
    if negative:
        for i in range(rank):
            if strides[i] and rng.random() < 0.25:
                offset += (sizes[i] - 1) * strides[i]
                strides[i] = -strides[i]
    high = offset + sum((n - 1) * s for n, s in zip(sizes, strides) if s > 0)
    return offset, strides, high + 1 + int(rng.choice([0, 3]))


def _aligned_sizes(rng: np.random.Generator) -> list[int]:
    """Sizes of 3 to 5 dimensions, each a multiple of 8 (or 1): NCHW <-> NHWC pairs on vectors."""
    sizes = [int(rng.choice([1, 8, 16, 24, 32, 64])) for _ in range(int(rng.integers(3, 6)))]
    while np.prod(sizes) > 40000:
        sizes[int(rng.integers(len(sizes)))] = 8
    return sizes


def _sizes(rng: np.random.Generator, max_elements: int = 6000) -> list[int]:
    rank = int(rng.integers(1, 9))
    choices = [1, 1, 2, 3, 4, 5, 7, 8, 9, 16, 31, 32, 33, 64, 100]
    sizes = [int(rng.choice(choices)) for _ in range(rank)]
    while np.prod(sizes) > max_elements:
        sizes[int(rng.integers(rank))] = 1
    if rng.random() < 0.05:  # one long line
        sizes[int(rng.integers(rank))] = int(rng.choice([1000, 5000, 20000]))
        sizes = [n if n >= 1000 or np.prod(sizes) <= 40000 else 1 for n in sizes]
    return sizes


def _values(rng: np.random.Generator, dtype: np.dtype, n: int, operator: ScanOperator = SUMMATION) -> np.ndarray:
    if dtype.kind == "f":
        if operator is PRODUCT:  # magnitudes 2**-0.5 to 2**0.5 (log-symmetric), either sign
            return (2.0 ** rng.uniform(-0.5, 0.5, n) * rng.choice([-1, 1], n)).astype(dtype)
        return rng.uniform(-4, 4, n).astype(dtype)
    info = np.iinfo(dtype)
    if operator is PRODUCT:  # odd factors, whose products wrap without vanishing
        return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True) | dtype.type(1)
    if rng.random() < 0.5:  # near the top, so that sums wrap
        return rng.integers(info.max - 50, info.max, n, dtype=dtype, endpoint=True)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def _views(src_buf, src_layout, dst_buf, dst_layout, sizes):
    (so, ss, _), (do, ds, _) = src_layout, dst_layout
    return BufferView(src_buf, so, tuple(sizes), tuple(ss)), BufferView(dst_buf, do, tuple(sizes), tuple(ds))


def _to_gpu(view: BufferView, buffer) -> BufferView:
    return BufferView(buffer, view.offset, view.sizes, view.strides)


def _misalign(rng: np.random.Generator, host: np.ndarray, aligned: bool = False):
    """The buffer on the GPU, sometimes starting a few elements into a larger allocation, so that
    16-byte alignment of element 0 varies."""
    lead = 0 if aligned else int(rng.choice([0, 0, 1, 3]))
    whole = cupy.empty(host.size + lead, dtype=host.dtype)
    gpu = whole[lead:]
    gpu.set(host)
    return gpu


def _index(view: BufferView) -> np.ndarray:
    idx = np.full(view.sizes, view.offset, dtype=np.int64)
    for i, (n, s) in enumerate(zip(view.sizes, view.strides)):
        shape = [1] * len(view.sizes)
        shape[i] = n
        idx = idx + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return idx


def _scan_bound(src: BufferView, axis: int, exclusive: bool, operator: ScanOperator) -> np.ndarray:
    """The float bound of the module docstring at each logical position of the destination."""
    x = np.abs(src.buffer[_index(src)].astype(np.float64))
    if operator is PRODUCT:
        total = np.cumprod(x, axis=axis)
        if exclusive:
            total = total / x
    else:
        total = np.cumsum(x, axis=axis)
        if exclusive:
            total = total - x
    terms = np.arange(1, x.shape[axis] + 1, dtype=np.float64).reshape([-1 if i == axis else 1 for i in range(x.ndim)])
    if exclusive:
        terms = terms - 1
    return 2 * terms * 2.0**-24 * total


def _compare(gpu: np.ndarray, cpu: np.ndarray, dst: BufferView, bound: np.ndarray | None, dtype: np.dtype):
    if bound is None:
        np.testing.assert_array_equal(gpu.view(f"u{dtype.itemsize}"), cpu.view(f"u{dtype.itemsize}"))
        return
    idx = _index(dst)
    outside = np.ones(cpu.size, dtype=bool)
    outside[idx.ravel()] = False
    np.testing.assert_array_equal(gpu[outside].view(f"u{dtype.itemsize}"), cpu[outside].view(f"u{dtype.itemsize}"))
    g, c = gpu[idx].astype(np.float64), cpu[idx].astype(np.float64)
    top = float(np.finfo(dtype).max)
    if dtype == np.float16:
        # one float16 spacing; the spacing of the values from 2**15 up to the largest is 32 (that of
        # the largest itself is infinite: the next value up is inf)
        bound = bound + np.spacing(np.minimum(np.abs(cpu[idx]), np.float16(2**15))).astype(np.float64)
    with np.errstate(invalid="ignore"):  # inf - inf
        near = np.abs(g - c) <= bound
    # Equal values agree, infinities included; at the end of the range, the largest finite value
    # and the infinity of its sign are neighbours (a product whose rounding differs crosses there).
    saturated = (np.sign(g) == np.sign(c)) & ((np.isinf(c) & (np.abs(g) == top)) | (np.isinf(g) & (np.abs(c) == top)))
    bad = ~((g == c) | near | saturated)
    assert not bad.any(), f"{bad.sum()} values beyond the bound, e.g. gpu {g[bad][:5]} cpu {c[bad][:5]}"


def _scan_on_both(
    src: BufferView, dst: BufferView, axis: int, exclusive: bool, gsrc=None, gdst=None, operator=SUMMATION
) -> np.ndarray:
    """Scan ``src`` into ``dst`` with both backends: on the GPU in ``gsrc``/``gdst`` (by default
    copies of the host buffers, one buffer where ``dst`` shares ``src``'s), with NumPy in the host
    buffers; compare the whole destination buffers and return the GPU's."""
    cupy_backend, numpy_backend = _backends()
    dtype = dst.buffer.dtype
    bound = _scan_bound(src, axis, exclusive, operator) if dtype.kind == "f" else None
    gsrc = cupy.asarray(src.buffer) if gsrc is None else gsrc
    if gdst is None:
        gdst = gsrc if dst.buffer is src.buffer else cupy.asarray(dst.buffer)
    _scan(cupy_backend, _to_gpu(src, gsrc), _to_gpu(dst, gdst), axis, exclusive, operator)
    _scan(numpy_backend, src, dst, axis, exclusive, operator)
    got = gdst.get()
    _compare(got, dst.buffer, dst, bound, dtype)
    return got


def _copy_case(rng: np.random.Generator, aligned: bool = False):
    cupy_backend, numpy_backend = _backends()
    sizes = _aligned_sizes(rng) if aligned else _sizes(rng)
    dtype = data_type(str(rng.choice(DATA_TYPES))).numpy_dtype
    step = 8 if aligned else 1
    src_layout = _layout(rng, sizes, negative=True, broadcast=not aligned, step=step)
    dst_layout = _layout(rng, sizes, negative=False, broadcast=False, step=step)
    src_host = _values(rng, dtype, src_layout[2])
    dst_host = _values(rng, dtype, dst_layout[2])
    src, dst = _views(src_host, src_layout, dst_host.copy(), dst_layout, sizes)
    gsrc, gdst = _misalign(rng, src_host, aligned), _misalign(rng, dst_host, aligned)
    _copy(cupy_backend, _to_gpu(src, gsrc), _to_gpu(dst, gdst))
    _copy(numpy_backend, src, dst)
    _compare(gdst.get(), dst.buffer, dst, None, dtype)


def _scan_case(rng: np.random.Generator, aligned: bool = False):
    sizes = _aligned_sizes(rng) if aligned else _sizes(rng)
    step = 8 if aligned else 1
    name = str(rng.choice(SCAN_TYPES))
    operator = PRODUCT if rng.random() < 0.4 else SUMMATION
    dtype = data_type(name).numpy_dtype
    axis = int(rng.integers(len(sizes)))
    exclusive = bool(rng.random() < 0.5)
    in_place = bool(rng.random() < 0.2)
    src_layout = _layout(rng, sizes, negative=False, broadcast=not (in_place or aligned), step=step)
    dst_layout = src_layout if in_place else _layout(rng, sizes, negative=False, broadcast=False, step=step)
    src_host = _values(rng, dtype, src_layout[2], operator)
    dst_host = src_host if in_place else _values(rng, dtype, dst_layout[2])
    src, dst = _views(src_host.copy(), src_layout, dst_host.copy(), dst_layout, sizes)
    if in_place:
        dst = BufferView(src.buffer, dst.offset, dst.sizes, dst.strides)
    if rng.random() < 0.4:  # a decreasing tally: both views walk the axis backwards
        src, dst = _reverse(src, axis), _reverse(dst, axis)
    gsrc = _misalign(rng, src.buffer, aligned)
    gdst = gsrc if in_place else _misalign(rng, dst.buffer, aligned)
    _scan_on_both(src, dst, axis, exclusive, gsrc, gdst, operator)


def _reverse(view: BufferView, axis: int) -> BufferView:
    strides = list(view.strides)
    offset = view.offset + (view.sizes[axis] - 1) * strides[axis]
    strides[axis] = -strides[axis]
    return BufferView(view.buffer, offset, view.sizes, tuple(strides))


@pytest.mark.parametrize("seed", range(40))
def test_random_copies_match_numpy(seed):
    rng = np.random.default_rng(1000 + seed)
    for _ in range(50):
        _copy_case(rng)


@pytest.mark.parametrize("seed", range(40))
def test_random_scans_match_numpy(seed):
    rng = np.random.default_rng(2000 + seed)
    for _ in range(50):
        _scan_case(rng)


@pytest.fixture(params=["device", "one multiprocessor"])
def planned_for(request, monkeypatch):
    """Plan for the device as it is, or as if it had one multiprocessor: small tensors then take
    the paths (wide vectors down columns, fewer chunks) that large ones take on the real device."""
    from stridelab.ops.cupy import runtime

    if request.param != "device":
        monkeypatch.setattr(runtime, "_sm_count", lambda device_id: 1)
    forget_plans()  # their primitives keep the launches they resolved
    yield request.param
    forget_plans()


@pytest.mark.parametrize("seed", range(10))
def test_random_vector_layouts_match_numpy(seed, planned_for):
    """Sizes, paddings and offsets in multiples of 8 elements: the vectorised kernels' paths."""
    rng = np.random.default_rng(3000 + seed)
    for _ in range(30):
        _copy_case(rng, aligned=True)
        _scan_case(rng, aligned=True)


def _channels_last(sizes) -> tuple[int, ...]:
    """Element strides of an (N, C, H, W) view stored N, H, W, C."""
    _, c, h, w = sizes
    return (h * w * c, 1, w * c, c)


@OPERATORS
@pytest.mark.parametrize("name", SCAN_TYPES)
def test_long_axes_on_vectors_match_numpy(name, planned_for, operator):
    """Axes of 256 elements or more, NCHW and NHWC on either side, every axis: the widest tiles
    along the axis, the deeper loads of long columns, the vectorised tiles across the axis, and
    (H of 264 between NCHW and NHWC) the few-blocks or the staged tile across it walking a long axis."""
    dtype = data_type(name).numpy_dtype
    rng = np.random.default_rng(4000 + SCAN_TYPES.index(name))
    for sizes in ((2, 64, 8, 256), (2, 256, 16, 64), (2, 16, 264, 8)):
        packed = (sizes[1] * sizes[2] * sizes[3], sizes[2] * sizes[3], sizes[3], 1)
        last = _channels_last(sizes)
        for src_strides, dst_strides in ((packed, last), (last, packed), (last, last), (packed, packed)):
            for axis in range(4):
                length = 1 + sum((n - 1) * abs(s) for n, s in zip(sizes, src_strides))
                src = BufferView(_values(rng, dtype, length, operator), 0, sizes, src_strides)
                dlength = 1 + sum((n - 1) * abs(s) for n, s in zip(sizes, dst_strides))
                dst = BufferView(_values(rng, dtype, dlength), 0, sizes, dst_strides)
                if rng.random() < 0.3:
                    src, dst = _reverse(src, axis), _reverse(dst, axis)
                _scan_on_both(src, dst, axis, bool(rng.random() < 0.5), operator=operator)


def _column_scans(name: str, cases, operator: ScanOperator):
    """Scans along axis 1 of packed shapes, planned for one multiprocessor, against NumPy: in place
    or not, forwards or reversed. ``cases``: (sizes, the kernel the plan must launch with the
    traits as ``{traits}``, whether the axis is cut into chunks and scanned in three passes)."""
    dtype = data_type(name).numpy_dtype
    traits = scan_plan.scan_traits(name, operator.cuda)
    rng = np.random.default_rng(5000 + SCAN_TYPES.index(name))
    for sizes, kernel, chunked in cases:
        strides = (sizes[1] * sizes[2], sizes[2], 1)
        pair = canonical_pair(sizes, strides, strides, 1)
        plan = scan_plan.plan_scan(name, pair, False, 0, 0, 1, operator=operator.cuda)
        assert (plan.launch.kernel, plan.first is not None) == (kernel.format(traits=traits), chunked)
        for in_place, reverse, exclusive in ((False, False, False), (True, False, True), (False, True, True)):
            src = BufferView(_values(rng, dtype, int(np.prod(sizes)), operator), 0, sizes, strides)
            dst = src if in_place else BufferView(_values(rng, dtype, src.buffer.size), 0, sizes, strides)
            if reverse:
                src, dst = _reverse(src, 1), _reverse(dst, 1)
            _scan_on_both(src, dst, 1, exclusive, operator=operator)


@OPERATORS
@pytest.mark.parametrize("planned_for", ["one multiprocessor"], indirect=True)
@pytest.mark.parametrize("name", SCAN_TYPES)
def test_double_buffered_columns_match_numpy(name, planned_for, monkeypatch, operator):
    """Columns of 8-byte vectors down an axis of 128 steps or more, the split columns kernel
    switched off: the double-buffered columns scan. Axis lengths end its loop on either buffer
    (128, 136 steps: 16 and 17 batches of 8) and leave last steps for the smaller batches (143,
    255); an axis of 6000 over 100 columns of vectors (and over 101 single columns) is cut into 40
    chunks of 152 steps, whose totals pass writes nothing and whose last pass starts from carries."""
    monkeypatch.setattr(scan_plan, "COLS_SPLIT", {})
    v = 8 // scan_plan.SCAN_TYPES[name].esize  # elements of an 8-byte vector
    cases = [((2, n, 128 * v), f"sl_scan_cols<{{traits}}, {v}, 8, true>", False) for n in (128, 136, 143, 255)]
    cases += [
        ((1, 6000, 100 * v), f"sl_scan_cols<{{traits}}, {v}, 8, true>", True),
        ((1, 6000, 101), "sl_scan_cols<{traits}, 1, 8, true>", True),
    ]
    _column_scans(name, cases, operator)


@OPERATORS
@pytest.mark.parametrize("planned_for", ["one multiprocessor"], indirect=True)
@pytest.mark.parametrize("name", ["FLOAT32", "UINT32"])
def test_split_columns_match_numpy(name, planned_for, operator):
    """Few columns of 4-byte elements down a long axis, split between the warps of a block: one
    pass exactly (128 steps), passes with a partial last one (129, 300, 1000), 150 columns of 2
    elements, whose groups of 32 cross the outer dimension and leave a block part-empty, and columns
    of single elements (129 wide) and of 4-element vectors."""
    pairs = "sl_scan_cols_split<{traits}, 2, 16, 0>"
    cases = [((2, 128, 256), pairs, False), ((2, 129, 256), pairs, False), ((5, 300, 60), pairs, False)]
    cases += [((1, 1000, 512), pairs, False), ((2, 200, 129), "sl_scan_cols_split<{traits}, 1, 16, 0>", False)]
    cases += [((1, 130, 2048), "sl_scan_cols_split<{traits}, 4, 16, 0>", False)]
    _column_scans(name, cases, operator)


@OPERATORS
@pytest.mark.parametrize("planned_for", ["one multiprocessor"], indirect=True)
@pytest.mark.parametrize("name", ["FLOAT16", "UINT16"])
def test_split_columns_of_16_byte_vectors_match_numpy(name, planned_for, operator):
    """Few columns of 2-byte elements in 16-byte vectors, split between the warps of a block (8
    steps a warp, 64 a pass): one pass exactly, partial passes (65, 300, 1000 steps), 150 columns
    whose groups of 32 cross the outer dimension and leave a block part-empty; columns whose
    vectors are narrower (1028 wide: 8-byte vectors) are not split."""
    split = "sl_scan_cols_split<{traits}, 8, 8, 2>"
    cases = [((2, 64, 1024), split, False), ((2, 65, 1024), split, False), ((5, 300, 240), split, False)]
    cases += [((1, 1000, 2048), split, False), ((1, 100, 1028), "sl_scan_cols<{traits}, 4, 8, false>", False)]
    _column_scans(name, cases, operator)


@OPERATORS
@pytest.mark.parametrize("planned_for", ["one multiprocessor"], indirect=True)
@pytest.mark.parametrize("name", SCAN_TYPES)
def test_staged_tiles_match_numpy(name, planned_for, operator):
    """Scans along H between NHWC and NCHW (X innermost in the source, Y in the destination) that
    take the staged tile, planned for one multiprocessor so that few tiles suffice: two whole
    chunks of whole tiles, partial tiles along X and Y with a partial last chunk, tiles narrower
    than the tile over an axis of many chunks, the mirror layout, and more tiles than the device
    holds blocks at once; each inclusive and exclusive (its first values the operator's, +0 or 1,
    bit for bit), forwards and reversed."""
    from stridelab.ops.cupy import runtime

    traits, size = scan_plan.scan_traits(name, operator.cuda), scan_plan.SCAN_TYPES[name].esize
    tx, ty, ch, stages = tuning.SCAN_STAGED_TILES[size]
    if stages * ch * ty * tx * size > runtime._shared_limit(0):
        pytest.skip(f"this GPU gives a block less shared memory than the {name} staged tile takes")
    dtype = data_type(name).numpy_dtype
    rng = np.random.default_rng(6000 + SCAN_TYPES.index(name))
    na = max(2 * ch, tuning.SCAN_STAGED_MIN_STEPS)  # whole chunks, the shortest axis staged
    cases = [((2, tx, na, ty), True), ((1, tx + 8, na + 5, ty + 8), True), ((3, 8, 7 * ch + 1, 16), True)]
    cases += [((2, 2 * ty + 8, na + ch, tx + 16), False), ((36, 2 * tx, na, 4 * ty), True)]
    for sizes, nhwc_in in cases:
        packed = (sizes[1] * sizes[2] * sizes[3], sizes[2] * sizes[3], sizes[3], 1)
        src_strides, dst_strides = (_channels_last(sizes), packed) if nhwc_in else (packed, _channels_last(sizes))
        for reverse, exclusive in ((False, False), (False, True), (True, False), (True, True)):
            n = int(np.prod(sizes))
            src = BufferView(_values(rng, dtype, n, operator), 0, sizes, src_strides)
            dst = BufferView(_values(rng, dtype, n), 0, sizes, dst_strides)
            if reverse:
                src, dst = _reverse(src, 2), _reverse(dst, 2)
            align = (src.offset * size % 16, dst.offset * size % 16)
            plan = scan_plan.plan_scan(
                name, canonical_pair(sizes, src.strides, dst.strides, 2), exclusive, *align, 1,
                operator=operator.cuda, shared_limit=runtime._shared_limit(0),
            )  # fmt: skip
            kernel = f"sl_scan_tile_staged<{traits}, {tx}, {ty}, {ch}, {stages}, {str(exclusive).lower()}>"
            assert plan.launch.kernel == kernel, (sizes, plan.launch.kernel)
            got = _scan_on_both(src, dst, 2, exclusive, operator=operator)
            if exclusive:  # _compare sees -0 == +0
                first = got[_index(dst)[:, :, 0, :]].view(f"u{size}")
                expected = np.array(operator.identity, dtype).view(f"u{size}")
                assert (first == expected).all(), f"exclusive scan starts with {np.unique(first)[:4]}, not {expected}"


SLICE_TYPES = ("FLOAT32", "FLOAT16", "INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8")


@pytest.mark.parametrize("name", SLICE_TYPES)
def test_strided_windows_match_numpy(name):
    """Window strides of magnitude 1 and 2 in either direction over aligned tensors: the vector
    gathers of the copy kernel (a reversed vector, every other element of two vectors)."""
    import stridelab as sl

    dtype = data_type(name).numpy_dtype
    host = _values(np.random.default_rng(7), dtype, 4 * 6 * 16 * 64).reshape(4, 6, 16, 64)
    gpu = cupy.asarray(host)
    for strides in ((1, 2, 2, -2), (1, 1, 1, -1), (1, 1, 2, 2), (2, -1, 1, 2), (1, 1, -1, -2), (1, 1, 1, 1)):
        for offsets, sizes in (
            ((0, 0, 0, 0), (4, 6, 16, 64)),
            ((1, 2, 3, 5), (3, 4, 13, 57)),
            ((0, 0, 0, 8), (4, 6, 16, 48)),
        ):
            expected = sl.slice1(host, offsets, sizes, strides)
            got = sl.slice1(gpu, offsets, sizes, strides).get()
            np.testing.assert_array_equal(got, expected, err_msg=f"{strides} {offsets} {sizes}")


# ------------------------------------------------------------------------------ through the public API


def _cases(name: str) -> list[dict]:
    path = DATA / name
    if not path.exists():
        pytest.skip(f"{path} is not vendored")
    return json.loads(path.read_text())


def _runnable(case: dict, supported: tuple[str, ...]) -> tuple[str, dict] | None:
    """(data type, case in a form stridelab accepts) or None: a type outside the operator's table
    runs in one of its exact ``also_exact_in`` types; a 0-D case in its rank-4 form."""
    name = case["dtype"]
    if name not in supported:
        name = next((t for t in case.get("also_exact_in", ()) if t in supported), None)
        if name is None:
            return None
    if not case["input_sizes"]:
        case = {**case, **case["rank4"]}
    return name, case


def _run_cumsum(x, params):
    import stridelab as sl

    return sl.cumulative_summation(x, params["axis"], direction=params["direction"], exclusive=params["exclusive"])


def _run_slice(x, params):
    import stridelab as sl

    return sl.slice1(x, params["offsets"], params["sizes"], params["strides"], output_sizes=params["output_sizes"])


def _conformance(file: str, supported: tuple[str, ...], run) -> int:
    count = 0
    for case in _cases(file):
        runnable = _runnable(case, supported)
        if runnable is None:
            continue
        name, case = runnable
        dtype = data_type(name).numpy_dtype
        host = np.array(case["input"], dtype=np.float64).astype(dtype).reshape(case["input_sizes"])
        expected = np.array(case["expected"], dtype=np.float64).astype(dtype).reshape(case["expected_sizes"])
        gpu = run(cupy.asarray(host), case["params"]).get()
        np.testing.assert_array_equal(gpu, expected, err_msg=case["id"])
        np.testing.assert_array_equal(gpu, run(host, case["params"]), err_msg=case["id"])
        for alt in case.get("alt_windows", ()):
            params = alt["params"] if len(alt["params"]["sizes"]) == host.ndim else alt["rank4_params"]
            np.testing.assert_array_equal(run(cupy.asarray(host), params).get(), expected, err_msg=case["id"])
        count += 1
    return count


def test_conformance_cumulative_summation():
    assert _conformance("cumsum.json", SCAN_TYPES, _run_cumsum) > 0


def test_conformance_slice1():
    supported = ("FLOAT32", "FLOAT16", "INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8")
    assert _conformance("slice1.json", supported, _run_slice) > 0


def test_conformance_cumulative_summation_tolerance():
    for case in _cases("cumsum_tolerance.json"):
        dtype = data_type(case["dtype"]).numpy_dtype
        host = np.array(case["input"], dtype=dtype).reshape(case["input_sizes"])
        expected = np.array(case["expected"], dtype=dtype).reshape(case["expected_sizes"])
        gpu = _run_cumsum(cupy.asarray(host), case["params"]).get()
        ulps = np.abs(gpu.astype(np.float64) - expected) / np.spacing(np.abs(expected)).astype(np.float64)
        assert ulps.max() <= case["source_tolerance"]["value"], case["id"]


def test_page_examples_on_the_gpu():
    import stridelab as sl

    x = cupy.asarray(np.array([[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]], dtype=np.float32))
    assert sl.cumulative_summation(x, 3).get().tolist() == [[[[2, 3, 6, 11], [3, 11, 18, 21], [9, 15, 17, 21]]]]
    assert sl.cumulative_summation(x, 3, exclusive=True).get().tolist() == [
        [[[0, 2, 3, 6], [0, 3, 11, 18], [0, 9, 15, 17]]]
    ]
    assert sl.cumulative_summation(x, 3, direction="decreasing").get().tolist() == [
        [[[11, 9, 8, 5], [21, 18, 10, 3], [21, 12, 6, 4]]]
    ]
    assert sl.cumulative_summation(x, 2).get().tolist() == [[[[2, 1, 3, 5], [5, 9, 10, 8], [14, 15, 12, 12]]]]
    y = cupy.arange(1, 17, dtype=cupy.float32).reshape(1, 1, 4, 4)
    assert sl.slice1(y, (0, 0, 0, 1), (1, 1, 4, 3), (1, 1, 2, 2)).get().tolist() == [[[[2, 4], [10, 12]]]]
    assert sl.slice1(y, (0, 0, 0, 1), (1, 1, 4, 3), (1, 1, -2, 2)).get().tolist() == [[[[14, 16], [6, 8]]]]


def test_results_live_where_the_input_lives():
    import stridelab as sl

    x = cupy.arange(24, dtype=cupy.uint16).reshape(2, 3, 4)
    assert isinstance(sl.cumulative_summation(x, 1), cupy.ndarray)
    t = sl.StridedTensor.from_array(x)
    result = sl.cumulative_summation(t, 1)
    assert isinstance(result, sl.StridedTensor) and result.on_gpu
    out = sl.StridedTensor.empty(sl.TensorDesc("UINT16", (2, 3, 4), sl.layout_strides("HWC", (2, 3, 4))), cupy)
    assert sl.element_wise_identity(x, out) is out
    np.testing.assert_array_equal(out.to_array().get(), x.get())


def test_mixing_devices_is_a_type_error():
    import stridelab as sl

    x = cupy.zeros((2, 3), dtype=cupy.float32)
    host_out = sl.StridedTensor.from_array(np.zeros((2, 3), dtype=np.float32))
    with pytest.raises(TypeError, match="cupy"):
        sl.element_wise_identity(x, host_out)
    gpu_out = sl.StridedTensor.from_array(cupy.zeros((2, 3), dtype=cupy.float32))
    with pytest.raises(TypeError, match="numpy"):
        sl.cumulative_summation(np.zeros((2, 3), dtype=np.float32), 0, out=gpu_out)


def test_from_array_takes_cuda_array_interface_objects_without_copying():
    import stridelab as sl

    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    t = torch.arange(12, dtype=torch.float32, device="cuda").reshape(3, 4).t()
    s = sl.StridedTensor.from_array(t)
    assert s.on_gpu and s.desc.sizes == (4, 3) and s.desc.strides == (1, 4)
    assert s.buffer.data.ptr == t.data_ptr()
    np.testing.assert_array_equal(sl.cumulative_summation(s, 0).to_array().get(), np.cumsum(t.cpu().numpy(), axis=0))


# ------------------------------------------------------------------------------------------ big tensors

_PATTERN_U8 = "x = (unsigned char)((i * 2654435761ull) >> 13)"


@pytest.fixture
def gpu_memory():
    """Skip where the GPU has less free memory than a test needs (GiB)."""

    def need(gib: float) -> None:
        free, _ = cupy.cuda.runtime.memGetInfo()
        if free < gib * 2**30:
            pytest.skip(f"needs {gib} GiB of free GPU memory, {free / 2**30:.1f} GiB free")

    yield need
    cupy.get_default_memory_pool().free_all_blocks()


def _pattern_u8(shape) -> cupy.ndarray:
    x = cupy.empty(shape, dtype=cupy.uint8)
    cupy.ElementwiseKernel("", "uint8 x", _PATTERN_U8, "stridelab_test_pattern_u8")(x)
    return x


@pytest.mark.slow
def test_slice_of_a_5_gib_uint8_tensor(gpu_memory):
    import stridelab as sl

    gpu_memory(9)
    x = _pattern_u8((5, 1024, 1024, 1024))  # 5 GiB: the last image starts 4 GiB in
    offsets, sizes, strides = (1, 3, 0, 5), (4, 1019, 1024, 1010), (2, -3, 1, -7)
    out = sl.slice1(x, offsets, sizes, strides)
    windows = []
    for o, n, s in zip(offsets, sizes, strides):
        start = o + (n - 1 if s < 0 else 0)
        count = 1 + (n - 1) // abs(s)
        stop = start + s * count
        windows.append(slice(start, None if stop < 0 else stop, s))
    expected = x[tuple(windows)]
    assert out.shape == expected.shape == (2, 340, 1024, 145)
    assert bool(cupy.array_equal(out, expected))


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["NHWC", "padded"])
def test_copy_of_a_5_gib_uint8_tensor(gpu_memory, layout):
    import stridelab as sl

    gpu_memory(12)
    shape = (40, 128, 1024, 1024)
    x = _pattern_u8(shape)
    if layout == "NHWC":
        strides = sl.layout_strides("NHWC", shape)
    else:
        strides = sl.layout_strides("NCHW", shape, padding={"W": 16})
    out = sl.StridedTensor.empty(sl.TensorDesc("UINT8", shape, strides), cupy)
    sl.element_wise_identity(x, out)
    view = out.view()
    for i in range(0, shape[0], 8):
        assert bool(cupy.array_equal(view[i : i + 8], x[i : i + 8])), f"images {i} to {i + 7}"


_PATTERN_U16 = "x = (unsigned short)(7ull * i + 3)"
# Inclusive sum of 7k + 3 over k = 0..i, modulo 2**16 (unsigned 64-bit arithmetic wraps modulo 2**64,
# a multiple of 2**16, so the low 16 bits are exact).
_PREFIX_U16 = "unsigned long long k = i; y = (unsigned short)(7ull * (k * (k + 1) / 2) + 3ull * (k + 1))"


@pytest.mark.slow
def test_cumulative_summation_over_more_than_2_31_uint16_elements(gpu_memory):
    import stridelab as sl

    gpu_memory(14)
    n = 2**31 + 2**20 + 7
    x = cupy.empty(n, dtype=cupy.uint16)
    cupy.ElementwiseKernel("", "uint16 x", _PATTERN_U16, "stridelab_test_pattern_u16")(x)
    out = sl.cumulative_summation(x, 0)
    expected = cupy.empty(n, dtype=cupy.uint16)
    cupy.ElementwiseKernel("", "uint16 y", _PREFIX_U16, "stridelab_test_prefix_u16")(expected)
    assert int(cupy.count_nonzero(out != expected)) == 0
    del out
    # in place, decreasing and exclusive, down 8 columns of 2**28 + 3 rows: out[r] = total - prefix[r]
    rows = 2**28 + 3
    t = sl.StridedTensor.from_array(x[: rows * 8].reshape(rows, 8))
    sl.cumulative_summation(t, 0, direction="decreasing", exclusive=True, out=t)
    check = cupy.ElementwiseKernel(
        "uint16 got, int64 rows",
        "bool bad",
        """
        unsigned long long r = i / 8, c = i % 8, last = rows - 1;
        // column c holds 7 * (8 r + c) + 3 = 56 r + (7 c + 3); sum over r' = r+1..last, modulo 2**16
        unsigned long long upto_last = 56ull * (last * (last + 1) / 2) + (7ull * c + 3) * (last + 1);
        unsigned long long upto_r = 56ull * (r * (r + 1) / 2) + (7ull * c + 3) * (r + 1);
        bad = got != (unsigned short)(upto_last - upto_r);
        """,
        "stridelab_test_check_decreasing",
    )
    assert int(cupy.count_nonzero(check(t.buffer[: rows * 8], rows))) == 0


@pytest.mark.parametrize("name", SCAN_TYPES)
@pytest.mark.parametrize("layout", ["packed", "padded"])
def test_many_short_lines_match_numpy(name, layout, planned_for):
    """Lines contiguous along the axis, many of them: scanned through shared memory (planned for
    one multiprocessor, small tensors already count as many lines)."""
    import stridelab as sl

    dtype = data_type(name).numpy_dtype
    sizes = (4, 40, 128)
    strides = (40 * 136, 136, 1) if layout == "padded" else (40 * 128, 128, 1)
    rng = np.random.default_rng(11)
    for exclusive in (False, True):
        for in_place in (False, True):
            host = _values(rng, dtype, 4 * 40 * 136)
            desc = sl.TensorDesc(name, sizes, strides)
            cpu_in = sl.StridedTensor(desc, host.copy())
            gpu_in = sl.StridedTensor(desc, cupy.asarray(host))
            cpu = sl.cumulative_summation(cpu_in, 2, exclusive=exclusive, out=cpu_in if in_place else None)
            gpu = sl.cumulative_summation(gpu_in, 2, exclusive=exclusive, out=gpu_in if in_place else None)
            got, expected = gpu.to_array().get(), cpu.to_array()
            if in_place:  # slots outside the description (padding, the buffer's tail) untouched
                outside = np.ones(host.size, dtype=bool)
                outside[_index(BufferView(None, 0, sizes, strides)).ravel()] = False
                np.testing.assert_array_equal(gpu_in.buffer.get()[outside], host[outside])
            if dtype.kind != "f":
                np.testing.assert_array_equal(got, expected)
                continue
            x = np.abs(sl.StridedTensor(desc, host).to_array().astype(np.float64))
            bound = 2 * 128 * 2.0**-24 * np.cumsum(x, axis=2) + np.spacing(np.abs(expected)).astype(np.float64)
            assert (np.abs(got.astype(np.float64) - expected) <= bound).all()


def test_kernels_compile_one_variant_at_a_time_and_precompile_fills_the_cache(monkeypatch, caplog):
    import logging

    import stridelab.ops as ops
    from stridelab.ops._precompile import kernel_names
    from stridelab.ops.cupy import runtime as _cupy

    names = kernel_names(["slice1"], ["UINT8"])
    compiled = ops.precompile(["slice1"], ["UINT8"])
    assert 0 <= compiled <= len(names)
    assert ops.precompile(["slice1"], ["UINT8"]) == 0  # all there now
    # a compile still running past the threshold is announced once, at INFO
    monkeypatch.setattr(_cupy, "ANNOUNCE_AFTER_S", 0.0)
    monkeypatch.setattr(_cupy, "_announced", type(_cupy._announced)())
    _cupy._kernel.cache_clear()  # compiled again (from CuPy's disk cache, so quickly)
    with caplog.at_level(logging.INFO, logger="stridelab"):
        ops.precompile(["slice1"], ["INT8"])
    assert [r.levelno for r in caplog.records] == [logging.INFO]
    assert "compiling the CUDA kernel sl_copy_rows<1," in caplog.records[0].message
