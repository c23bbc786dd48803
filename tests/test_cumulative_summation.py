"""CUMULATIVE_SUMMATION: the page's examples, numerics, layouts, in-place runs and every rule."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from op_reference import (
    forbid_work,
    operator_input,
    poisoned,
    random_values,
    reference_cumulative,
    refused,
    same_bits,
    scan_cases,
    tensor_on,
    to_host,
)

import stridelab as sl
from stridelab.ops import _numpy
from stridelab.ops._engine import forget_plans

# The input of every example on the page: (Sizes:{1,1,3,4}, DataType:FLOAT32)
PAGE_INPUT = [[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]]

SUPPORTED = ("FLOAT32", "FLOAT16", "UINT32", "UINT16")


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    forbid_work(monkeypatch)


# -- the page's examples ----------------------------------------------------------------------------


def test_example_1_horizontal_slivers(xp):
    x = xp.asarray(PAGE_INPUT, dtype=xp.float32)
    result = sl.cumulative_summation(x, 3, direction="DML_AXIS_DIRECTION_INCREASING", exclusive=False)
    assert to_host(result).tolist() == [[[[2, 3, 6, 11], [3, 11, 18, 21], [9, 15, 17, 21]]]]


def test_example_2_exclusive_sums(xp):
    x = xp.asarray(PAGE_INPUT, dtype=xp.float32)
    result = sl.cumulative_summation(x, 3, direction="DML_AXIS_DIRECTION_INCREASING", exclusive=True)
    assert to_host(result).tolist() == [[[[0, 2, 3, 6], [0, 3, 11, 18], [0, 9, 15, 17]]]]


def test_example_3_axis_direction(xp):
    x = xp.asarray(PAGE_INPUT, dtype=xp.float32)
    result = sl.cumulative_summation(x, 3, direction="DML_AXIS_DIRECTION_DECREASING", exclusive=False)
    assert to_host(result).tolist() == [[[[11, 9, 8, 5], [21, 18, 10, 3], [21, 12, 6, 4]]]]


def test_example_4_summing_along_a_different_axis(xp):
    x = xp.asarray(PAGE_INPUT, dtype=xp.float32)
    result = sl.cumulative_summation(x, 2, direction="DML_AXIS_DIRECTION_INCREASING", exclusive=False)
    assert to_host(result).tolist() == [[[[2, 1, 3, 5], [5, 9, 10, 8], [14, 15, 12, 12]]]]


# -- parameters, results and numerics ---------------------------------------------------------------


@pytest.mark.parametrize("direction", ["decreasing", "DECREASING", "Dml_Axis_Direction_Decreasing"])
def test_direction_names_any_case(xp, direction):
    x = xp.asarray([1, 2, 3], dtype=xp.float32)
    assert to_host(sl.cumulative_summation(x, 0, direction=direction)).tolist() == [6, 5, 3]


def test_negative_axis_counts_from_the_end(xp):
    x = xp.asarray(PAGE_INPUT, dtype=xp.float32)
    assert same_bits(to_host(sl.cumulative_summation(x, -2)), to_host(sl.cumulative_summation(x, 2)))


def test_result_kinds(xp):
    x = xp.asarray(PAGE_INPUT, dtype=xp.float32)[..., ::2]  # strided: read in place, result packed
    array_result = sl.cumulative_summation(x, 3)
    assert type(array_result) is type(x) and array_result.flags.c_contiguous
    tensor_result = sl.cumulative_summation(sl.StridedTensor.from_array(x), 3)
    assert isinstance(tensor_result, sl.StridedTensor) and tensor_result.desc.is_packed
    assert to_host(tensor_result.to_array()).tolist() == [[[[2, 5], [3, 10], [9, 11]]]]
    out = sl.StridedTensor.empty(sl.TensorDesc("FLOAT32", (1, 1, 3, 2)), xp)
    assert sl.cumulative_summation(x, 3, out=out) is out


def test_float16_keeps_its_tally_in_float32(xp):
    # A float16 tally would stay at 2048 (2048 + 1 rounds back to it); a float32 one reaches 2050.
    x = xp.asarray([2048, 1, 1], dtype=xp.float16)
    assert to_host(sl.cumulative_summation(x, 0)).tolist() == [2048, 2048, 2050]
    assert to_host(sl.cumulative_summation(x, 0, exclusive=True)).tolist() == [0, 2048, 2048]


def test_unsigned_tallies_wrap(xp):
    x16 = xp.asarray([65535, 1, 2, 65534], dtype=xp.uint16)
    assert to_host(sl.cumulative_summation(x16, 0)).tolist() == [65535, 0, 2, 0]
    x32 = xp.asarray([2**32 - 1, 2, 2**31, 2**31], dtype=xp.uint32)
    assert to_host(sl.cumulative_summation(x32, 0)).tolist() == [2**32 - 1, 1, 2**31 + 1, 1]


def test_reads_negative_and_zero_strides_in_place(xp):
    base = xp.arange(12, dtype=xp.float32).reshape(3, 4)
    reversed_rows = base[::-1, ::2]  # negative and doubled strides: no copy is made
    assert to_host(sl.cumulative_summation(reversed_rows, 0)).tolist() == [[8, 10], [12, 16], [12, 18]]
    broadcast = xp.broadcast_to(xp.asarray([1, 2], dtype=xp.float32), (3, 2))
    assert to_host(sl.cumulative_summation(broadcast, 0)).tolist() == [[1, 2], [2, 4], [3, 6]]


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("direction", ["increasing", "decreasing"])
def test_in_place(xp, exclusive, direction):
    x = xp.asarray(PAGE_INPUT, dtype=xp.float32)
    expected = to_host(sl.cumulative_summation(x, 3, direction=direction, exclusive=exclusive))
    t = sl.StridedTensor.from_array(x.copy())
    assert sl.cumulative_summation(t, 3, direction=direction, exclusive=exclusive, out=t) is t
    assert same_bits(to_host(t.to_array()), expected)


def test_in_place_through_another_view_of_the_same_memory(xp):
    x = xp.asarray(PAGE_INPUT, dtype=xp.float32)
    sl.cumulative_summation(x, 2, out=sl.StridedTensor.from_array(x))
    assert to_host(x).tolist() == [[[[2, 1, 3, 5], [5, 9, 10, 8], [14, 15, 12, 12]]]]


# -- against the literal reference --------------------------------------------------------------------


@pytest.fixture(params=["default", "plane loop", "small blocks"])
def strategy(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The NumPy backend as tuned; forced to the plane loop in tiny pieces and blocks on every axis
    (small tensors otherwise always take ``np.cumsum``); and as tuned but with blocks of a few
    bytes (``np.cumsum`` through temporaries, a few lines at a time)."""
    if request.param != "default":
        monkeypatch.setattr(_numpy, "BLOCK_POSITIONS", 3)
        monkeypatch.setattr(_numpy, "BLOCK_BYTES", 24)
    if request.param == "plane loop":
        monkeypatch.setattr(_numpy, "SMALL_PLANE", 1)
        monkeypatch.setattr(_numpy, "SHORT_AXIS", 10**9)
        monkeypatch.setattr(_numpy, "PIECE_BYTES", 8)
    forget_plans()  # calls prepared under the other strategy
    yield request.param
    forget_plans()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=scan_cases(SUPPORTED))
def test_matches_the_reference(xp, strategy, case):
    x_desc, out_desc, in_place, flips, axis, decreasing, exclusive, seed = case
    rng = np.random.default_rng(seed)
    x_buffer = random_values(rng, x_desc.data_type, x_desc.slot_count)
    x, ref_desc, ref_buffer = operator_input(xp, x_desc, x_buffer, flips)
    out_buffer = x_buffer if in_place else poisoned(out_desc)
    expected = reference_cumulative("sum", ref_desc, ref_buffer, out_desc, out_buffer, axis, decreasing, exclusive)
    out = x if in_place else tensor_on(xp, out_desc, out_buffer)
    direction = "decreasing" if decreasing else "increasing"
    sl.cumulative_summation(x, axis, direction=direction, exclusive=exclusive, out=out)
    got = to_host(out.buffer)
    if xp is np or x_desc.dtype.numpy_dtype.kind == "u":
        assert same_bits(got, expected)  # padding slots included: they keep the sentinel
    else:  # another backend may sum floats in another order; padding must still be untouched
        np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-2, equal_nan=True)


def test_first_tally_is_the_first_element(xp, strategy):
    # Every strategy gives the same bits, the sign of zero included: -0.0 stays -0.0, as in np.cumsum.
    x = xp.asarray([[-0.0, -0.0], [1.0, -0.0]], dtype=xp.float32)
    got = to_host(sl.cumulative_summation(x, 0))
    assert np.signbit(got).tolist() == [[True, True], [False, True]]


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("out_layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("axis", [0, 1, 2, 3])
def test_large_planes_in_every_strategy(xp, layout, out_layout, axis):
    """Tensors large enough for the tuned thresholds, so that every strategy runs (np.cumsum along
    an innermost axis, the plane loop in pieces over 256 KiB planes, a short innermost axis, the
    scan into a temporary where the output's innermost axis is the scan axis), against np.cumsum:
    the same float32 additions in the same order, so the same bits."""
    shape = (2, 4, 160, 200)
    rng = np.random.default_rng(axis)
    values = rng.standard_normal(shape).astype(np.float32)
    x_desc = sl.TensorDesc("FLOAT32", shape, sl.layout_strides(layout, shape))
    host = sl.StridedTensor(x_desc, np.empty(x_desc.slot_count, np.float32))
    host.view()[...] = values
    x = sl.StridedTensor(x_desc, xp.asarray(host.buffer))
    out = sl.StridedTensor.empty(sl.TensorDesc("FLOAT32", shape, sl.layout_strides(out_layout, shape)), xp)
    # Decreasing: E[i] = x[i] + ... + x[n-1], summed from the end; exclusive: E[i + 1], then 0.
    inclusive = np.flip(np.cumsum(np.flip(values, axis), axis, dtype=np.float32), axis)
    exclusive = np.concatenate([np.delete(inclusive, 0, axis), np.zeros_like(np.take(inclusive, [0], axis))], axis)
    for flag, expected in ((False, inclusive), (True, exclusive)):
        sl.cumulative_summation(x, axis, direction="decreasing", exclusive=flag, out=out)
        got = to_host(out.to_array())
        if xp is np:
            assert same_bits(got, expected)
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-3)


# -- every rule, refused before anything is allocated or written -----------------------------------


def page_tensor(xp, data_type: str = "FLOAT32") -> sl.StridedTensor:
    return sl.StridedTensor.from_array(xp.asarray(PAGE_INPUT, dtype=sl.data_type(data_type).numpy_dtype))


@pytest.mark.parametrize("axis", [4, -5])
def test_axis_out_of_range(xp, no_work, axis):
    refused(lambda: sl.cumulative_summation(page_tensor(xp), axis), f"axis = {axis}", "-4 <= axis < 4")


def test_axis_must_be_an_integer(xp, no_work):
    refused(lambda: sl.cumulative_summation(page_tensor(xp), 1.0), "axis must be an integer", error=TypeError)


@pytest.mark.parametrize("data_type", ["INT32", "FLOAT64", "UINT8", "INT64"])
def test_unsupported_data_type_quotes_the_table(xp, no_work, data_type):
    refused(
        lambda: sl.cumulative_summation(page_tensor(xp, data_type), 3),
        f"x data type {data_type} is not supported by CUMULATIVE_SUMMATION",
        "FLOAT32, FLOAT16, UINT32, UINT16",
    )


def test_unknown_direction(xp, no_work):
    refused(
        lambda: sl.cumulative_summation(page_tensor(xp), 3, direction="sideways"),
        "direction = 'sideways'",
        "'increasing' or 'decreasing'",
    )


@pytest.mark.parametrize("flag", ["no", 1.0, 1, None])
def test_exclusive_must_be_a_bool(xp, no_work, flag):
    refused(lambda: sl.cumulative_summation(page_tensor(xp), 3, exclusive=flag), "exclusive", error=TypeError)


def _out(xp, data_type="FLOAT32", sizes=(1, 1, 3, 4), strides=None) -> sl.StridedTensor:
    desc = sl.TensorDesc(data_type, sizes, strides)
    return sl.StridedTensor(desc, xp.asarray(poisoned(desc)))


@pytest.mark.parametrize(
    ("out_args", "fragments"),
    [
        (("FLOAT32", (1, 1, 3, 5)), ("out sizes [1, 1, 3, 5] differ from x sizes [1, 1, 3, 4]", "same sizes")),
        (("FLOAT16", (1, 1, 3, 4)), ("out data type FLOAT16 differs from x data type FLOAT32", "same data type")),
        (("FLOAT32", (1, 3, 4)), ("out has 3 dimensions but x has 4", "same dimension count")),
        (("FLOAT32", (1, 1, 3, 4), (0, 0, 0, 1)), ("out strides [0, 0, 0, 1]", "broadcast", "share slots")),
        (("FLOAT32", (1, 1, 3, 4), (12, 12, 1, 1)), ("out strides [12, 12, 1, 1]", "overlapping", "share slots")),
    ],
)
def test_output_description_rules(xp, no_work, out_args, fragments):
    out = _out(xp, *out_args)
    before = to_host(out.buffer)
    refused(lambda: sl.cumulative_summation(page_tensor(xp), 3, out=out), *fragments)
    assert same_bits(to_host(out.buffer), before)


def test_out_sharing_memory_other_than_in_place(xp, no_work):
    x = page_tensor(xp)
    shifted = sl.StridedTensor(sl.TensorDesc("FLOAT32", (1, 1, 3, 4), (12, 12, 1, 3)), x.buffer)
    before = to_host(x.buffer)
    refused(
        lambda: sl.cumulative_summation(x, 3, out=shifted),
        "out element (0, 0, 2, 3) is x element (0, 0, 2, 3) (the same memory)",  # the last, for one
        "only in place, with out addressing exactly x's elements",
    )
    assert same_bits(to_host(x.buffer), before)


def test_read_only_out(no_work):
    buffer = poisoned(sl.TensorDesc("FLOAT32", (1, 1, 3, 4)))
    buffer.flags.writeable = False
    out = sl.StridedTensor(sl.TensorDesc("FLOAT32", (1, 1, 3, 4)), buffer)
    refused(lambda: sl.cumulative_summation(page_tensor(np), 3, out=out), "out buffer is read-only")


@pytest.mark.parametrize(
    ("x", "fragments", "error"),
    [
        ([1.0, 2.0], ("x must be a StridedTensor or a numpy or cupy array, not list",), TypeError),
        (np.float32(1.0), ("x must be a StridedTensor or a numpy or cupy array",), TypeError),
        (np.zeros((), np.float32), ("x has 0 dimensions", "1 to 8"), sl.LayoutError),
        (np.zeros((2, 0), np.float32), ("sizes[1] = 0", "at least 1"), sl.LayoutError),
        (np.zeros((1,) * 9, np.float32), ("x has 9 dimensions", "1 to 8"), sl.LayoutError),
        (np.zeros(3, bool), ("numpy dtype bool has no DirectML data type",), sl.LayoutError),
    ],
)
def test_inputs_that_are_no_tensor(no_work, x, fragments, error):
    refused(lambda: sl.cumulative_summation(x, 0), *fragments, error=error)


def test_out_must_be_a_strided_tensor(no_work):
    refused(
        lambda: sl.cumulative_summation(page_tensor(np), 3, out=np.zeros((1, 1, 3, 4), np.float32)),
        "out must be a StridedTensor",
        error=TypeError,
    )


@pytest.mark.gpu
def test_inputs_on_two_devices(no_work):
    import cupy

    out = _out(cupy)
    refused(
        lambda: sl.cumulative_summation(page_tensor(np), 3, out=out),
        "x lives in numpy (CPU) but out lives in cupy (GPU)",
        error=TypeError,
    )


def test_a_size_1_dimension_with_a_huge_stride_scans_and_views():
    # the stride of a size-1 dimension moves nothing, even the largest a UINT holds
    desc = sl.TensorDesc("FLOAT32", (3, 1), (1, 2**32 - 1))
    x = sl.StridedTensor(desc, np.array([1, 2, 3], np.float32))
    assert x.to_array().tolist() == [[1.0], [2.0], [3.0]]
    assert sl.cumulative_summation(x, 0).to_array().tolist() == [[1.0], [3.0], [6.0]]
    assert sl.cumulative_summation(x, 1).to_array().tolist() == [[1.0], [2.0], [3.0]]
    out = sl.StridedTensor(desc, np.zeros(3, np.float32))
    sl.cumulative_summation(x, 0, out=out)
    assert out.buffer.tolist() == [1.0, 3.0, 6.0]
