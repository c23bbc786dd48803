"""check_layouts on the GPU: CuPy RawKernels that assume packed memory, ignore the storage offset or
take the innermost stride as 1, each caught with its kinds per layout; a kernel that takes sizes
and signed element strides passed; CuPy ports of the NumPy tests' buggy functions (12 classes,
2 of them output bugs) caught and of 12 correct ones passed; strided_arrays on CuPy."""

import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from stridelab.testing import check_layouts, strided_arrays

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy")
as_strided = cupy.lib.stride_tricks.as_strided

SOURCE = r"""
extern "C" __global__ void scale_packed(const float* x, float* out, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = 2.0f * x[i];
}

extern "C" __global__ void scale_strided(const float* x, float* out, long long rows, long long cols,
                                         long long xs0, long long xs1, long long os0, long long os1) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= rows * cols) return;
    long long r = i / cols, c = i % cols;
    out[r * os0 + c * os1] = 2.0f * x[r * xs0 + c * xs1];
}

extern "C" __global__ void scale_unit_inner(const float* x, float* out, long long rows, long long cols,
                                            long long xs0, long long os0, long long os1) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= rows * cols) return;
    long long r = i / cols, c = i % cols;
    out[r * os0 + c * os1] = 2.0f * x[r * xs0 + c];
}
"""
THREADS = 128
X = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3)  # distinct values: a misplaced one shows
IMAGE = (np.arange(2 * 3 * 2 * 2) % 7).astype(np.float32).reshape(2, 3, 2, 2)
INTS = np.arange(24, dtype=np.int32).reshape(2, 3, 4) - 5
RANDOM = np.random.default_rng(5).standard_normal((3, 4, 5)).astype(np.float32)


@functools.cache
def kernel(name):
    return cupy.RawKernel(SOURCE, name)


def launch(name, count, *args):
    kernel(name)((max(1, -(-count // THREADS)),), (THREADS,), args)


def steps(a):
    """``a``'s signed element strides as kernel arguments."""
    return [np.int64(s // a.itemsize) for s in a.strides]


def scale_packed(x, out):  # assumes both arrays packed: element i at slot i from the data pointer
    launch("scale_packed", x.size, x, out, np.int64(x.size))


def scale_strided(x, out):  # sizes and signed element strides of both arrays
    rows, cols = x.shape
    launch("scale_strided", x.size, x, out, np.int64(rows), np.int64(cols), *steps(x), *steps(out))


def scale_unit_inner(x, out):  # takes x's innermost stride as 1
    rows, cols = x.shape
    launch("scale_unit_inner", x.size, x, out, np.int64(rows), np.int64(cols), steps(x)[0], *steps(out))


def scale_from_allocation(x, out):  # the strided kernel, given the start of x's allocation, not x's data pointer
    start = cupy.ndarray((x.size,), x.dtype, cupy.cuda.MemoryPointer(x.data.mem, 0))
    rows, cols = x.shape
    launch("scale_strided", x.size, start, out, np.int64(rows), np.int64(cols), *steps(x), *steps(out))


def by_layout(check, varied):
    """Each failure's kinds by the layout of argument ``varied`` (0: input, -1: out), the other packed."""
    other = -1 if varied == 0 else 0
    return {
        str(f.layouts[varied][1]): f.kinds
        for f in check.failures
        if f.layouts[other][1].kind == "packed" and f.layouts[varied][1].kind != "packed"
    }


def check_of(fn):
    return check_layouts(fn, cupy.asarray(X), out=cupy.zeros((2, 3), cupy.float32))


def test_a_kernel_that_assumes_packed_arrays_is_caught_for_every_other_layout():
    check = check_of(scale_packed)
    assert by_layout(check, 0) == {
        "(2,3):(1,2)+0": ("wrong",),  # column-major, read in memory order
        "(2,3):(6,1)+0": ("reads-padding",),
        # slots 0..5 hold x00, pad, x01, pad, x02, pad: out (0,2) and (1,1) get x01 and x02
        "(2,3):(6,2)+0": ("wrong", "reads-padding"),
        "(2,3):(-3,1)+3": ("reads-padding",),  # slots past row 0, which lies last
        # from slot 2: x00, x12, x11, x10, then 2 slots of margin: (0,1) and (0,2) wrong
        "(2,3):(3,-1)+2": ("wrong", "reads-padding"),
        "(2,3):(0,1)+0": ("reads-padding",),  # a broadcast input has 3 slots, the kernel reads 6
        "(2,3):(1,0)+0": ("wrong", "reads-padding"),  # slot 1 holds x10, read for (0,1)
    }
    assert by_layout(check, -1) == {
        "(2,3):(1,2)+0": ("wrong",),
        "(2,3):(6,1)+0": ("unwritten", "writes-padding"),  # row 0 and the padding after it written
        "(2,3):(6,2)+0": ("wrong", "unwritten", "writes-padding"),
        "(2,3):(-3,1)+3": ("unwritten", "writes-padding"),
        "(2,3):(3,-1)+2": ("wrong", "unwritten", "writes-padding"),
    }


def test_a_kernel_that_ignores_the_offset_reads_the_slots_before_the_array():
    check = check_of(scale_from_allocation)
    assert by_layout(check, 0)["(2,3):(3,1)+3"] == ("reads-padding",)
    # every layout lies after poisoned slots, so the packed one is caught too
    packed = [f for f in check.failures if all(layout.kind == "packed" for _, layout in f.layouts)]
    assert [f.kinds for f in packed] == [("reads-padding",)]


def test_a_kernel_that_takes_the_innermost_stride_as_1_is_caught_where_it_is_not():
    check = check_of(scale_unit_inner)
    assert by_layout(check, 0) == {
        "(2,3):(1,2)+0": ("wrong",),
        "(2,3):(6,2)+0": ("wrong", "reads-padding"),  # (r, c) read at 6r + c: (0,2) gets x01
        "(2,3):(3,-1)+2": ("wrong", "reads-padding"),  # 2 + 3r + c: (0,1) gets x12
        "(2,3):(1,0)+0": ("wrong", "reads-padding"),  # r + c: (0,1) gets x10
    }
    assert by_layout(check, -1) == {}


def test_a_kernel_that_takes_sizes_and_signed_strides_raises_no_alarm():
    check = check_of(scale_strided)
    assert check.ok, str(check)
    assert len(check.rows) >= 15 and not check.skipped  # 9 input layouts, 6 more out layouts, drawn pairs


# -- CuPy ports of the NumPy functions ---------------------------------------------------------


def innermost_stride_assumed(x):
    return as_strided(x, x.shape, (x.strides[0], x.itemsize)).copy()


def row_pitch_sum(x):
    pitch = x.strides[0] // x.itemsize
    return as_strided(x, (x.shape[0], pitch), (x.strides[0], x.itemsize)).sum(axis=1)


def negative_sign_dropped(x):
    return as_strided(x, x.shape, tuple(abs(s) for s in x.strides)).copy()


def memory_as_nchw(x):  # the memory from coordinate 0, read as if it were NCHW
    return as_strided(x, (x.size,), (x.itemsize,)).reshape(x.shape).copy()


def doubles_its_input(x):
    x *= 2
    return x.copy()


def allocation_as_packed(x):  # the allocation's first x.size slots, as if they were x
    return cupy.ndarray(x.shape, x.dtype, cupy.cuda.MemoryPointer(x.data.mem, 0)) * 2


def partial_contiguity_check(x):  # checks only the last stride before treating x as packed
    if x.strides[-1] == x.itemsize:
        return as_strided(x, x.shape, (x.shape[1] * x.itemsize, x.itemsize)).copy()
    return cupy.ascontiguousarray(x)


def offset_ignored(x):  # x's strides, from the start of its allocation
    return cupy.ndarray(x.shape, x.dtype, cupy.cuda.MemoryPointer(x.data.mem, 0), x.strides).copy()


def nan_masked_pitch_min(x):  # nanmin over the row pitch: the padding is read
    pitch = x.strides[0] // x.itemsize
    return cupy.nanmin(as_strided(x, (x.shape[0], pitch), (x.strides[0], x.itemsize)), axis=1)


def size1_stride_as_step(x):  # the step between elements of a (4, 1) column taken from strides[1]
    return as_strided(x, (x.shape[0],), (x.strides[1],)).copy()


def writes_its_broadcast_input(x):  # an in-place update through a stride-0 view
    x += 1
    return x.copy()


BUGS = [
    (allocation_as_packed, X, "reads-padding", "(2,3):(3,1)+0"),
    (innermost_stride_assumed, X, "reads-padding", "(2,3):(6,2)+0"),
    (innermost_stride_assumed, X, "wrong", "(2,3):(1,2)+0"),
    (partial_contiguity_check, X, "reads-padding", "(2,3):(6,1)+0"),
    (offset_ignored, X, "reads-padding", "(2,3):(3,1)+3"),
    (negative_sign_dropped, X, "reads-padding", "(2,3):(-3,1)+3"),
    (memory_as_nchw, IMAGE, "wrong", "(2,3,2,2):(12,1,6,3)+0"),
    (row_pitch_sum, X, "reads-padding", "(2,3):(6,1)+0"),
    (nan_masked_pitch_min, X, "reads-padding", "(2,3):(6,1)+0"),
    (doubles_its_input, INTS, "writes-input", "(2,3,4):(12,4,1)+0"),
    (writes_its_broadcast_input, X, "writes-input", "(2,3):(0,1)+0"),
    (size1_stride_as_step, X.reshape(6, 1)[:4], "wrong", "(4,1):(1,0)+0"),
    (size1_stride_as_step, X.reshape(6, 1)[:4], "reads-padding", "(4,1):(1,9)+0"),
]


def write_through_copy(x, out):
    target = cupy.ascontiguousarray(out)
    target[...] = x * 2


def write_packed_span(x, out):
    as_strided(out, (out.size,), (out.itemsize,))[:] = (x * 2).ravel()


@pytest.mark.parametrize(
    ("fn", "kind", "layout"),
    [(write_through_copy, "unwritten", "(2,3):(6,1)+0"), (write_packed_span, "writes-padding", "(2,3):(6,1)+0")],
    ids=["write_through_copy", "write_packed_span"],
)
def test_a_cupy_output_bug_is_caught_with_its_kind(fn, kind, layout):
    check = check_layouts(fn, cupy.asarray(X), out=cupy.zeros((2, 3)))
    kinds = {str(f.layouts[-1][1]): f.kinds for f in check.failures if f.layouts[0][1].kind == "packed"}
    assert kind in kinds.get(layout, ()), str(check)


@pytest.mark.parametrize(("fn", "x", "kind", "layout"), BUGS, ids=lambda v: getattr(v, "__name__", None))
def test_a_cupy_bug_is_caught_with_its_kind(fn, x, kind, layout):
    check = check_layouts(fn, cupy.asarray(x))
    kinds = {str(f.layouts[0][1]): f.kinds for f in check.failures}
    assert kind in kinds.get(layout, ()), str(check)


CORRECT = [
    ("sum along 0", lambda x: x.sum(axis=0), (X,)),
    ("sum of all", lambda x: x.sum(), (RANDOM,)),
    ("reversed sum", lambda x: x[::-1, ::-1].sum(), (X,)),
    ("cumsum", lambda x: cupy.cumsum(x, axis=-1), (INTS,)),
    ("NaN-masked max", lambda x: cupy.where(cupy.isnan(x), -cupy.inf, x).max(axis=0), (np.where(X == 2, np.nan, X),)),
    ("matmul", cupy.matmul, (X, X.T.copy())),
    ("sort", lambda x: cupy.sort(x, axis=1), (RANDOM,)),
    ("transpose copy", lambda x: cupy.ascontiguousarray(x.T), (IMAGE,)),
    ("mean over 0 and 2", lambda x: x.mean(axis=(0, 2)), (RANDOM,)),
    ("sum in float64", lambda x: x.astype(cupy.float64).sum(axis=1), (RANDOM,)),
    ("NaN-ignoring min", lambda x: cupy.nanmin(x, axis=1), (np.where(X == 5, np.nan, X),)),
    ("reversed cumsum", lambda x: cupy.cumsum(x[..., ::-1], axis=-1)[..., ::-1], (INTS,)),
]


@pytest.mark.parametrize(("name", "fn", "inputs"), CORRECT, ids=[c[0] for c in CORRECT])
def test_a_correct_cupy_function_raises_no_alarm(name, fn, inputs):
    check = check_layouts(fn, *(cupy.asarray(x) for x in inputs))
    assert check.ok, str(check)
    assert len(check.rows) >= 8


def test_strided_arrays_draws_cupy_arrays_that_hold_their_values():
    seen = set()

    @settings(database=None, derandomize=True, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
    @given(strided_arrays((2, 1, 3), np.float32, xp=cupy))
    def check(x):
        assert isinstance(x, cupy.ndarray)
        assert np.array_equal(cupy.asnumpy(x), cupy.asnumpy(cupy.ascontiguousarray(x)), equal_nan=True)
        seen.add((x.strides, x.data.ptr - x.data.mem.ptr))

    check()
    assert len(seen) >= 10
