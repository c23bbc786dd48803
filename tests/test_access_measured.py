"""benchmarks/access-measured.json: Nsight Compute's counters of real launches, against stridelab's
predictions of them. The element-wise kernel's loads and stores are predicted by
``stridelab.access_pattern`` (requests exactly, sectors within 5%); stridelab's operators by
``stridelab.ops.traffic``, launch by launch (within 5%; a scan kernel family that differs is named
in ``EXPLAINED`` with the section of benchmarks/RESULTS.md that says why)."""

import json
import re
from math import prod
from pathlib import Path

import numpy as np
import pytest

import stridelab as sl

ROOT = Path(__file__).resolve().parents[1]
MEASURED = json.loads((ROOT / "benchmarks" / "access-measured.json").read_text(encoding="ascii"))
CASES = MEASURED["cases"]
COPY_CASES = [c for c in CASES if c["operator"] == "copy"]
OPERATOR_CASES = [c for c in CASES if c["operator"] != "copy"]
GROUPS = ("loads", "async_loads", "stores")
TOLERANCE = 0.05
#: Scan kernel families whose measured sectors differ from the prediction by more than 5%, each
#: with the RESULTS.md section that explains the difference.
EXPLAINED: dict[str, str] = {}
DTYPES = {"FLOAT32": np.float32, "FLOAT16": np.float16}


def counter(launch: dict, group: str, kind: str) -> int:
    """A launch's sectors or requests of one group, as the record derives them from ncu's counters."""
    return launch["counts"][group][kind]


def name(case: dict) -> str:
    return f"{case['operator']} {case['data_type']} {case['name']}"


def numpy_view(operand: dict) -> np.ndarray:
    """An array of the operand's data type, sizes and signed element strides."""
    dtype = np.dtype(DTYPES[operand["data_type"]])
    sizes, strides = operand["sizes"], operand["strides"]
    lowest = sum((n - 1) * s for n, s in zip(sizes, strides) if s < 0)
    buffer = np.empty(1 + sum((n - 1) * abs(s) for n, s in zip(sizes, strides)), dtype)
    byte_strides = [s * dtype.itemsize for s in strides]
    return np.lib.stride_tricks.as_strided(buffer[-lowest:], sizes, byte_strides, writeable=False)


def test_the_record_says_where_and_how_it_was_measured():
    device = MEASURED["device"]
    assert device["name"] and device["sm_count"] > 0 and device["shared_limit"] >= 48 * 1024
    assert device["cuda_runtime"] > 0 and device["cuda_driver"] > 0 and device["cupy"]
    assert re.search(r"\d{4}\.\d", MEASURED["ncu_version"]), MEASURED["ncu_version"]
    assert re.fullmatch(r"[0-9a-f]{7,40}", MEASURED["commit"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", MEASURED["date"])
    command = MEASURED["ncu_command"]
    assert command.startswith("ncu ") and "benchmarks/access.py launch" in command
    for op in ("op_ld", "op_st"):
        for kind in ("sectors", "requests"):
            assert f"l1tex__t_{kind}_pipe_lsu_mem_global_{op}.sum" in MEASURED["metrics"]
    assert "gpu__time_duration.sum" in MEASURED["metrics"]
    assert set(MEASURED["groups"]) == set(GROUPS)


def test_the_loads_are_the_global_load_instructions_alone():
    """On Hopper, ncu's l1tex op_ld also counts cp.async's loads; the record's loads leave them out,
    which the per-instruction (SASS) count of global loads confirms launch by launch."""
    for case in CASES:
        for launch in case["measured"]:
            assert (
                counter(launch, "loads", "sectors") == launch["sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ld.sum"]
            )
            total = launch["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
            assert counter(launch, "loads", "sectors") + counter(launch, "async_loads", "sectors") == total


def test_the_cases_cover_the_layouts_data_types_and_operators():
    assert len(CASES) >= 60
    assert {c["data_type"] for c in CASES} == {"FLOAT32", "FLOAT16"}
    operators = {c["operator"] for c in CASES}
    assert {"copy", "slice1", "element_wise_identity", "cumulative_summation"} <= operators
    strides = [s for c in CASES for s in c["x"]["strides"]]
    assert 0 in strides and any(s < 0 for s in strides)  # broadcast and reversed inputs
    assert any(1 in c["x"]["sizes"] for c in CASES)
    assert {c["params"]["axis"] for c in CASES if c["operator"] == "cumulative_summation"} == {0, 1, 2, 3}
    assert any(prod(c["x"]["sizes"]) % 32 for c in CASES)  # a partial warp
    for case in CASES:
        assert len(case["measured"]) == len(case["planned"]) >= 1, name(case)


@pytest.mark.parametrize("case", COPY_CASES, ids=name)
def test_access_pattern_predicts_the_element_wise_kernel(case):
    """CuPy's ElementwiseKernel gives thread i logical element i (C order): access_pattern of the
    strided view from its element 0's address, and of the packed result."""
    x, out = case["x"], case["out"]
    esize = np.dtype(DTYPES[x["data_type"]]).itemsize
    lowest = sum((n - 1) * s for n, s in zip(x["sizes"], x["strides"]) if s < 0)
    load = sl.access_pattern(numpy_view(x), offset=(x["address"] + lowest * esize) % 128)
    store = sl.access_pattern(numpy_view(out), offset=out["address"] % 128)
    (launch,) = case["measured"]
    assert load.requests == counter(launch, "loads", "requests")
    assert store.requests == counter(launch, "stores", "requests")
    assert load.sectors == pytest.approx(counter(launch, "loads", "sectors"), rel=TOLERANCE)
    assert store.sectors == pytest.approx(counter(launch, "stores", "sectors"), rel=TOLERANCE)
    assert counter(launch, "async_loads", "sectors") == 0


def operands(case: dict) -> tuple:
    """The case's x (a NumPy view of its layout), out (None for a new result) and addresses."""
    x, out = numpy_view(case["x"]), None
    addresses = {"x": case["x"]["address"] % 128}
    if not case["out"].get("allocated"):
        record = case["out"]
        desc = sl.TensorDesc(record["data_type"], record["sizes"], record["strides"])
        out = sl.StridedTensor(desc, np.empty(desc.slot_count, DTYPES[record["data_type"]]))
        addresses["out"] = record["address"] % 128
    return x, out, addresses


@pytest.mark.parametrize("case", OPERATOR_CASES, ids=name)
def test_traffic_predicts_stridelab_launches(case):
    from stridelab.ops.traffic import TrafficDevice

    x, out, addresses = operands(case)
    device = TrafficDevice(MEASURED["device"]["sm_count"], MEASURED["device"]["shared_limit"])
    traffic = sl.ops.traffic(
        getattr(sl, case["operator"]), x, out=out, addresses=addresses, device=device, **case["params"]
    )
    assert [launch.kernel for launch in traffic.launches] == [p["kernel"] for p in case["planned"]]
    for predicted, measured in zip(traffic.launches, case["measured"]):
        family = predicted.kernel.split("<")[0]
        if family in EXPLAINED:
            continue
        for group in GROUPS:
            counts = getattr(predicted, group)
            assert counts.sectors == pytest.approx(counter(measured, group, "sectors"), rel=TOLERANCE), (family, group)
            assert counts.requests == pytest.approx(counter(measured, group, "requests"), rel=TOLERANCE), (
                family,
                group,
            )
