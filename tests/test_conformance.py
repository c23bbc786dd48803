"""The conformance vectors of the ONNX, web-platform-tests and webnn-baseline suites, converted to
DirectML parameters and vendored in ``tests/data/conformance`` (see its README for attribution):
every case through every backend.

Exact for every case of ``cumsum.json`` and ``slice1.json`` (integers and float16 included), within
each case's ULP bound for ``cumsum_tolerance.json``. A case in a type the operator does not support
runs in the supported types where all its values are exact (``also_exact_in``), and its own type
must be refused with the support table quoted. Cases run in their own rank and, where the file
gives one, in their 4-D form (the 0-D case only in that).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from op_reference import same_bits, to_host

import stridelab as sl

DATA = Path(__file__).parent / "data" / "conformance"
CUMSUM = json.loads((DATA / "cumsum.json").read_text())
CUMSUM_TOLERANCE = json.loads((DATA / "cumsum_tolerance.json").read_text())
SLICE1 = json.loads((DATA / "slice1.json").read_text())


def forms(case: dict[str, Any]) -> Iterator[tuple[list[int], dict[str, Any], list[int], str]]:
    """(input sizes, params, expected sizes, key of the alternative windows' params) of each form
    stridelab can run: the case's own rank where it is 1 to 8, and its 4-D form where given."""
    if case["input_sizes"]:
        yield case["input_sizes"], case["params"], case["expected_sizes"], "params"
    if case["rank4"]:
        rank4 = case["rank4"]
        yield rank4["input_sizes"], rank4["params"], rank4["expected_sizes"], "rank4_params"


def data_types(case: dict[str, Any]) -> list[str]:
    return [case["dtype"]] if case["dml_supported"] else case["also_exact_in"]


def array(xp: Any, values: list, data_type: str, sizes: list[int]) -> Any:
    return xp.asarray(np.asarray(values, dtype=sl.data_type(data_type).numpy_dtype).reshape(sizes))


def cumulative_summation(x: Any, params: dict[str, Any]) -> Any:
    return sl.cumulative_summation(x, params["axis"], direction=params["direction"], exclusive=params["exclusive"])


def test_every_file_is_complete():
    assert (len(CUMSUM), len(CUMSUM_TOLERANCE), len(SLICE1)) == (22, 3, 52)


@pytest.mark.parametrize("case", CUMSUM, ids=[case["id"] for case in CUMSUM])
def test_cumulative_summation(xp, case):
    for data_type in data_types(case):
        for sizes, params, expected_sizes, _ in forms(case):
            got = cumulative_summation(array(xp, case["input"], data_type, sizes), params)
            assert same_bits(to_host(got), array(np, case["expected"], data_type, expected_sizes)), data_type
    if not case["dml_supported"]:
        x = array(xp, case["input"], case["dtype"], case["input_sizes"])
        with pytest.raises(sl.LayoutError, match=f"{case['dtype']} is not supported by CUMULATIVE_SUMMATION"):
            cumulative_summation(x, case["params"])
        with pytest.raises(sl.LayoutError, match="FLOAT32, FLOAT16, UINT32, UINT16"):
            cumulative_summation(x, case["params"])


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How many float32 values lie between ``a`` and ``b`` (elementwise), signs included."""

    def ordered(v: np.ndarray) -> np.ndarray:
        bits = v.astype(np.float32).view(np.int32).astype(np.int64)
        return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)

    return np.abs(ordered(a) - ordered(b))


@pytest.mark.parametrize("case", CUMSUM_TOLERANCE, ids=[case["id"] for case in CUMSUM_TOLERANCE])
def test_cumulative_summation_within_ulps(xp, case):
    assert case["source_tolerance"]["metric"] == "ULP"
    for sizes, params, expected_sizes, _ in forms(case):
        got = to_host(cumulative_summation(array(xp, case["input"], case["dtype"], sizes), params))
        distance = ulp_distance(got, array(np, case["expected"], case["dtype"], expected_sizes))
        assert distance.max() <= case["source_tolerance"]["value"]
        if xp is np:  # the exact float32 running sum, which the expected values are this close to
            assert distance.max() <= case["max_ulp_vs_reference"]


@pytest.mark.parametrize("case", SLICE1, ids=[case["id"] for case in SLICE1])
def test_slice1(xp, case):
    for data_type in data_types(case):
        for sizes, params, expected_sizes, alt_key in forms(case):
            x = array(xp, case["input"], data_type, sizes)
            expected = array(np, case["expected"], data_type, expected_sizes)
            windows = [params] + [alt[alt_key] for alt in case.get("alt_windows", [])]
            for window in windows:
                got = sl.slice1(
                    x, window["offsets"], window["sizes"], window["strides"], output_sizes=window["output_sizes"]
                )
                assert same_bits(to_host(got), expected), (data_type, window)
