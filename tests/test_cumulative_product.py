"""CUMULATIVE_PRODUCT: DirectML's examples, numerics, in-place runs, the literal reference, and the
rules it shares with CUMULATIVE_SUMMATION (tested in full there) refused under its own name."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from op_reference import (
    forbid_work,
    operator_input,
    poisoned,
    reference_cumulative,
    refused,
    same_bits,
    scan_cases,
    tensor_on,
    to_host,
)

import stridelab as sl

# The input of every example of DML_CUMULATIVE_PRODUCT_OPERATOR_DESC: (Sizes:{1,1,3,4}, FLOAT32)
EXAMPLE_INPUT = [[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]]

SUPPORTED = ("FLOAT32", "FLOAT16", "UINT32", "UINT16")


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    forbid_work(monkeypatch)


# -- DirectML's examples --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("axis", "direction", "exclusive", "expected"),
    [
        (3, "DML_AXIS_DIRECTION_INCREASING", False, [[2, 2, 6, 30], [3, 24, 168, 504], [9, 54, 108, 432]]),
        (3, "DML_AXIS_DIRECTION_INCREASING", True, [[1, 2, 2, 6], [1, 3, 24, 168], [1, 9, 54, 108]]),
        (3, "DML_AXIS_DIRECTION_DECREASING", False, [[30, 15, 15, 5], [504, 168, 21, 3], [432, 48, 8, 4]]),
        (2, "DML_AXIS_DIRECTION_INCREASING", False, [[2, 1, 3, 5], [6, 8, 21, 15], [54, 48, 42, 60]]),
    ],
    ids=["horizontal", "exclusive", "decreasing", "vertical"],
)
def test_directml_examples(xp, axis, direction, exclusive, expected):
    x = xp.asarray(EXAMPLE_INPUT, dtype=xp.float32)
    result = sl.cumulative_product(x, axis, direction=direction, exclusive=exclusive)
    assert to_host(result).tolist() == [[expected]]


# -- numerics, results, in place -------------------------------------------------------------------


def test_float16_keeps_its_running_product_in_float32(xp):
    # 40 factors of 1 + 2**-10, the float16 after 1: exactly, 1.03982; as float16 that is 1.0400390625.
    # A float16 running product rounds the small square terms away at every step and ends at
    # 1 + 40 * 2**-10 = 1.0390625.
    x = xp.full(40, 1 + 2.0**-10, dtype=xp.float16)
    got = to_host(sl.cumulative_product(x, 0))
    assert float(got[-1]) == float(np.float16((1 + 2.0**-10) ** 40)) == 1.0400390625


def test_unsigned_products_wrap(xp):
    x16 = xp.asarray([300, 300, 3, 65535], dtype=xp.uint16)
    assert to_host(sl.cumulative_product(x16, 0)).tolist() == [
        300,
        90000 % 2**16,
        270000 % 2**16,
        270000 * 65535 % 2**16,
    ]
    x32 = xp.asarray([2**31 + 1, 2, 3, 2**32 - 1], dtype=xp.uint32)
    expected = [(2**31 + 1) % 2**32, (2**32 + 2) % 2**32, 6, 6 * (2**32 - 1) % 2**32]
    assert to_host(sl.cumulative_product(x32, 0)).tolist() == expected


def test_an_exclusive_product_writes_1_first_in_every_type(xp):
    for data_type in SUPPORTED:
        x = xp.asarray([5, 7, 9], dtype=sl.data_type(data_type).numpy_dtype)
        assert to_host(sl.cumulative_product(x, 0, exclusive=True)).tolist() == [1, 5, 35]
        assert to_host(sl.cumulative_product(x, 0, direction="decreasing", exclusive=True)).tolist() == [63, 9, 1]


def test_zeros_infinities_and_nan_follow_ieee(xp):
    x = xp.asarray([2, 0, np.inf, 3, -1, np.nan, 1], dtype=xp.float32)
    got = to_host(sl.cumulative_product(x, 0)).tolist()
    assert got[:2] == [2, 0] and all(np.isnan(v) for v in got[2:])  # 0 * inf is NaN, and NaN stays
    big = xp.asarray([1e30, 1e30, -1], dtype=xp.float32)
    assert to_host(sl.cumulative_product(big, 0)).tolist() == [float(np.float32(1e30)), np.inf, -np.inf]


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("direction", ["increasing", "decreasing"])
def test_in_place(xp, exclusive, direction):
    x = xp.asarray(EXAMPLE_INPUT, dtype=xp.float32)
    expected = to_host(sl.cumulative_product(x, 3, direction=direction, exclusive=exclusive))
    t = sl.StridedTensor.from_array(x.copy())
    assert sl.cumulative_product(t, 3, direction=direction, exclusive=exclusive, out=t) is t
    assert same_bits(to_host(t.to_array()), expected)


def test_reads_transposed_padded_and_broadcast_inputs_in_place(xp):
    base = xp.asarray([[1, 2, 3], [4, 5, 6]], dtype=xp.float32)
    assert to_host(sl.cumulative_product(base.T, 1)).tolist() == [[1, 4], [2, 10], [3, 18]]
    assert to_host(sl.cumulative_product(base[:, ::-2], 1)).tolist() == [[3, 3], [6, 24]]
    broadcast = xp.broadcast_to(xp.asarray([2, 3], dtype=xp.float32), (3, 2))
    assert to_host(sl.cumulative_product(broadcast, 0)).tolist() == [[2, 3], [4, 9], [8, 27]]


# -- against the literal reference ------------------------------------------------------------------


def _factors(rng: np.random.Generator, data_type: str, count: int) -> np.ndarray:
    """Floats of magnitude 0.5 to 2, either sign (long products neither overflow nor vanish);
    integers over their whole range, odd and even (so products wrap, and some reach 0)."""
    dtype = sl.data_type(data_type).numpy_dtype
    if dtype.kind == "u":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=count, endpoint=True, dtype=dtype)
    return (rng.uniform(0.5, 2, count) * rng.choice([-1, 1], count)).astype(dtype)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=scan_cases(SUPPORTED))
def test_matches_the_literal_reference(xp, case):
    """NumPy multiplies in the reference's order: the same bits. The GPU groups the products
    differently: float32 within n * 2**-23 of the reference, relative, at the n-th position of a
    line; float16 within one float16 ULP; integers the same bits. Padding is untouched either way."""
    x_desc, out_desc, in_place, flips, axis, decreasing, exclusive, seed = case
    x_buffer = _factors(np.random.default_rng(seed), x_desc.data_type, x_desc.slot_count)
    x, ref_desc, ref_buffer = operator_input(xp, x_desc, x_buffer, flips)
    out_buffer = x_buffer if in_place else poisoned(out_desc)
    expected = reference_cumulative("product", ref_desc, ref_buffer, out_desc, out_buffer, axis, decreasing, exclusive)
    out = x if in_place else tensor_on(xp, out_desc, out_buffer)
    direction = "decreasing" if decreasing else "increasing"
    sl.cumulative_product(x, axis, direction=direction, exclusive=exclusive, out=out)
    got = to_host(out.buffer)
    if xp is np or x_desc.dtype.numpy_dtype.kind == "u":
        assert same_bits(got, expected)
        return
    values = sl.StridedTensor(out_desc, got).to_array().astype(np.float64)
    want = sl.StridedTensor(out_desc, expected).to_array().astype(np.float64)
    rank = len(out_desc.sizes)
    n = np.arange(1, out_desc.sizes[axis] + 1).reshape([-1 if i == axis % rank else 1 for i in range(rank)])
    if decreasing:
        n = np.flip(n, axis)
    if x_desc.data_type == "FLOAT32":
        assert (np.abs(values - want) <= n * 2.0**-23 * np.abs(want)).all()
    else:
        assert (np.abs(values - want) <= np.spacing(np.abs(want).astype(np.float16)).astype(np.float64)).all()
    untouched = np.ones(got.size, bool)
    untouched[[out_desc.offset_of(c) for c in np.ndindex(*out_desc.sizes)]] = False
    assert same_bits(got[untouched], expected[untouched])


# -- the shared rules, under this operator's name -----------------------------------------------------


def example_tensor(xp, data_type: str = "FLOAT32") -> sl.StridedTensor:
    return sl.StridedTensor.from_array(xp.asarray(EXAMPLE_INPUT, dtype=sl.data_type(data_type).numpy_dtype))


@pytest.mark.parametrize("data_type", ["INT32", "FLOAT64", "UINT8", "INT16"])
def test_unsupported_data_type_quotes_the_table(xp, no_work, data_type):
    refused(
        lambda: sl.cumulative_product(example_tensor(xp, data_type), 3),
        f"x data type {data_type} is not supported by CUMULATIVE_PRODUCT",
        "FLOAT32, FLOAT16, UINT32, UINT16",
    )


def test_out_rules_name_the_operator(xp, no_work):
    desc = sl.TensorDesc("FLOAT16", (1, 1, 3, 4))
    out = sl.StridedTensor(desc, xp.asarray(poisoned(desc)))
    refused(
        lambda: sl.cumulative_product(example_tensor(xp), 3, out=out),
        "out data type FLOAT16 differs from x data type FLOAT32; CUMULATIVE_PRODUCT requires the same data type",
    )


@pytest.mark.parametrize(
    ("kwargs", "fragments", "error"),
    [
        ({"axis": 4}, ("axis = 4 is out of range", "-4 <= axis < 4"), sl.LayoutError),
        ({"axis": True}, ("axis must be an integer, not bool",), TypeError),
        ({"axis": 3, "direction": "up"}, ("direction = 'up'",), sl.LayoutError),
        ({"axis": 3, "exclusive": 1}, ("exclusive must be a bool",), TypeError),
    ],
)
def test_parameters_are_checked(xp, no_work, kwargs, fragments, error):
    refused(lambda: sl.cumulative_product(example_tensor(xp), **kwargs), *fragments, error=error)


def test_misspelt_keywords_are_errors(xp):
    with pytest.raises(TypeError, match="exlusive"):
        sl.cumulative_product(example_tensor(xp), 3, exlusive=True)
