"""SLICE1: the page's examples, windows read from their end, layouts and every rule."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_reference import (
    descs,
    flips_for,
    forbid_work,
    operator_input,
    poisoned,
    random_values,
    reference_slice1,
    same_bits,
    sizes,
    tensor_on,
    to_host,
)

import stridelab as sl

# The input of both examples on the page: (Sizes:{1, 1, 4, 4}, DataType:FLOAT32)
PAGE_INPUT = [[[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]]]

SUPPORTED = ("FLOAT32", "FLOAT16", "INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8")


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    forbid_work(monkeypatch)


# -- the page's examples ----------------------------------------------------------------------------


def test_example_1_positive_strides(xp):
    x = xp.asarray(PAGE_INPUT, dtype=xp.float32)
    result = sl.slice1(x, (0, 0, 0, 1), (1, 1, 4, 3), (1, 1, 2, 2))
    assert result.shape == (1, 1, 2, 2)
    assert to_host(result).tolist() == [[[[2, 4], [10, 12]]]]


def test_example_2_negative_strides(xp):
    x = xp.asarray(PAGE_INPUT, dtype=xp.float32)
    result = sl.slice1(x, (0, 0, 0, 1), (1, 1, 4, 3), (1, 1, -2, 2))
    assert to_host(result).tolist() == [[[[14, 16], [6, 8]]]]


# -- windows, output sizes, results -----------------------------------------------------------------


def test_negative_stride_starts_at_the_end_of_the_window(xp):
    # Window 1..5 with stride -3: copying starts at 1 + 5 - 1 = 5 (not at the last element the
    # stride reaches from the start, 4), so 5, 2.
    x = xp.arange(8, dtype=xp.int32)
    assert to_host(sl.slice1(x, (1,), (5,), (-3,))).tolist() == [5, 2]


def test_max_copied_elements_uses_the_strides_magnitude(xp):
    x = xp.arange(10, dtype=xp.uint8)
    assert to_host(sl.slice1(x, (0,), (10,), (-4,))).tolist() == [9, 5, 1]  # 1 + 9 // 4 = 3 elements


def test_output_sizes_below_the_maximum(xp):
    x = xp.asarray(PAGE_INPUT, dtype=xp.float32)
    result = sl.slice1(x, (0, 0, 0, 0), (1, 1, 4, 4), (1, 1, -1, 1), output_sizes=(1, 1, 2, 3))
    assert to_host(result).tolist() == [[[[13, 14, 15], [9, 10, 11]]]]


def test_output_sizes_default_to_outs(xp):
    x = xp.asarray(PAGE_INPUT, dtype=xp.float32)
    out = sl.StridedTensor.empty(sl.TensorDesc("FLOAT32", (1, 1, 1, 2)), xp)
    assert sl.slice1(x, (0, 0, 0, 1), (1, 1, 4, 3), (1, 1, -2, 2), out=out) is out
    assert to_host(out.to_array()).tolist() == [[[[14, 16]]]]


def test_result_kinds(xp):
    x = xp.asarray(PAGE_INPUT, dtype=xp.int16)
    array_result = sl.slice1(x, (0, 0, 1, 1), (1, 1, 2, 2), (1, 1, 1, 1))
    assert type(array_result) is type(x) and array_result.flags.c_contiguous
    tensor_result = sl.slice1(sl.StridedTensor.from_array(x), (0, 0, 1, 1), (1, 1, 2, 2), (1, 1, 1, 1))
    assert isinstance(tensor_result, sl.StridedTensor) and tensor_result.desc.is_packed
    assert to_host(tensor_result.to_array()).tolist() == [[[[6, 7], [10, 11]]]]


def test_reads_the_input_through_its_strides(xp):
    x = xp.asarray(PAGE_INPUT, dtype=xp.float32)[0, 0].T[::-1]  # transposed and reversed: no copy
    assert to_host(sl.slice1(x, (0, 1), (2, 3), (1, -2))).tolist() == [[16, 8], [15, 7]]


def test_padded_output_keeps_its_padding(xp):
    x = xp.asarray(PAGE_INPUT, dtype=xp.float32)
    desc = sl.TensorDesc("FLOAT32", (1, 1, 2, 2), (6, 6, 3, 1), total_tensor_size_in_bytes=40)
    out = sl.StridedTensor(desc, xp.asarray(poisoned(desc)))
    sl.slice1(x, (0, 0, 0, 1), (1, 1, 4, 3), (1, 1, 2, 2), out=out)
    got = to_host(out.buffer)
    assert got[[0, 1, 3, 4]].tolist() == [2, 4, 10, 12]
    assert np.isnan(got[[2, 5, 6, 7, 8, 9]]).all()


# -- against the literal reference --------------------------------------------------------------------


@st.composite
def cases(draw: st.DrawFn) -> tuple:
    data_type = draw(st.sampled_from(SUPPORTED))
    shape = draw(sizes())
    offsets, window, strides, most = [], [], [], []
    for n in shape:
        size = draw(st.integers(1, n))
        offsets.append(draw(st.integers(0, n - size)))
        window.append(size)
        stride = draw(st.integers(1, 4)) * draw(st.sampled_from([1, -1]))
        strides.append(stride)
        most.append(1 + (size - 1) // abs(stride))
    out_sizes = tuple(draw(st.integers(1, m)) for m in most)
    x_desc = draw(descs(data_type, shape))
    out_desc = draw(descs(data_type, out_sizes, output=True))
    pass_sizes = draw(st.booleans())
    flips = draw(flips_for(len(shape)))
    return x_desc, out_desc, offsets, window, strides, pass_sizes, flips, draw(st.integers(0, 2**32 - 1))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=cases())
def test_matches_the_reference(xp, case):
    x_desc, out_desc, offsets, window, strides, pass_sizes, flips, seed = case
    rng = np.random.default_rng(seed)
    x, ref_desc, ref_buffer = operator_input(xp, x_desc, random_values(rng, x_desc.data_type, x_desc.slot_count), flips)
    out_buffer = poisoned(out_desc)
    expected = reference_slice1(ref_desc, ref_buffer, out_desc, out_buffer, offsets, window, strides)
    out = tensor_on(xp, out_desc, out_buffer)
    output_sizes = out_desc.sizes if pass_sizes else None
    sl.slice1(x, offsets, window, strides, output_sizes=output_sizes, out=out)
    assert same_bits(to_host(out.buffer), expected)  # padding slots included: they keep the sentinel


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shape=sizes(max_rank=4), seed=st.integers(0, 2**32 - 1))
def test_largest_output_by_default(xp, shape, seed):
    rng = np.random.default_rng(seed)
    values = random_values(rng, "INT8", int(np.prod(shape))).reshape(shape)
    strides = tuple(int(s) for s in rng.choice([-3, -2, -1, 1, 2, 3], size=len(shape)))
    result = to_host(sl.slice1(xp.asarray(values), (0,) * len(shape), shape, strides))
    index = tuple(slice(None, None, s) for s in strides)  # the whole axis: the same copy as NumPy's
    assert same_bits(result, np.ascontiguousarray(values[index]))


# -- every rule, refused before anything is allocated or written -----------------------------------


def refused(call, *fragments: str, error: type[Exception] = sl.LayoutError) -> None:
    with pytest.raises(error) as info:
        call()
    for fragment in fragments:
        assert fragment in str(info.value), (fragment, str(info.value))


WINDOW = ((0, 0, 0, 1), (1, 1, 4, 3), (1, 1, 2, 2))


def page(xp, data_type: str = "FLOAT32"):
    return xp.asarray(PAGE_INPUT, dtype=sl.data_type(data_type).numpy_dtype)


@pytest.mark.parametrize(
    ("window", "fragments"),
    [
        (((0, 0, 0), WINDOW[1], WINDOW[2]), ("window_offsets has 3 entries but x has 4 dimensions",)),
        ((WINDOW[0], (1, 1, 4, 3, 1), WINDOW[2]), ("window_sizes has 5 entries but x has 4 dimensions",)),
        ((WINDOW[0], WINDOW[1], (1, 2)), ("window_strides has 2 entries but x has 4 dimensions",)),
        ((WINDOW[0], WINDOW[1], (1, 1, 0, 2)), ("window_strides[2] = 0", "may not be 0")),
        ((WINDOW[0], (1, 1, 0, 3), WINDOW[2]), ("window_sizes[2] = 0", "may not be empty")),
        (((0, 0, -1, 1), WINDOW[1], WINDOW[2]), ("window_offsets[2] = -1", "0 or more")),
        (
            ((0, 0, 2, 1), WINDOW[1], WINDOW[2]),
            ("window_offsets[2] + window_sizes[2] = 6 exceeds input sizes[2] = 4", "inside the input"),
        ),
    ],
)
def test_window_rules(xp, no_work, window, fragments):
    refused(lambda: sl.slice1(page(xp), *window), *fragments)


def test_window_values_must_be_integers(xp, no_work):
    refused(lambda: sl.slice1(page(xp), (0, 0, 0, 1.5), *WINDOW[1:]), "window_offsets[3]", error=TypeError)


@pytest.mark.parametrize(
    ("output_sizes", "fragments"),
    [
        ((1, 1, 3, 2), ("output_sizes[2] = 3 is outside 1..MaxCopiedElements[2] = 2", "1 + (window_sizes[i] - 1)")),
        ((1, 1, 2, 0), ("output_sizes[3] = 0 is outside 1..MaxCopiedElements[3] = 2", "// |window_strides[i]|")),
        ((1, 1, 2), ("output_sizes has 3 entries but x has 4 dimensions",)),
    ],
)
def test_output_size_rules(xp, no_work, output_sizes, fragments):
    refused(lambda: sl.slice1(page(xp), *WINDOW, output_sizes=output_sizes), *fragments)


def test_out_sizes_beyond_the_window(xp, no_work):
    desc = sl.TensorDesc("FLOAT32", (1, 1, 2, 3))
    out = sl.StridedTensor(desc, xp.asarray(poisoned(desc)))
    before = to_host(out.buffer)
    refused(lambda: sl.slice1(page(xp), *WINDOW, out=out), "out sizes[3] = 3 is outside 1..MaxCopiedElements[3] = 2")
    refused(
        lambda: sl.slice1(page(xp), *WINDOW, output_sizes=(1, 1, 2, 2), out=out),
        "output_sizes [1, 1, 2, 2] differ from out sizes [1, 1, 2, 3]",
    )
    assert same_bits(to_host(out.buffer), before)


@pytest.mark.parametrize("data_type", ["FLOAT64", "INT64", "UINT64"])
def test_unsupported_data_type_quotes_the_table(xp, no_work, data_type):
    refused(
        lambda: sl.slice1(page(xp, data_type), *WINDOW),
        f"x data type {data_type} is not supported by SLICE1",
        "FLOAT32, FLOAT16, INT32, INT16, INT8, UINT32, UINT16, UINT8",
    )
