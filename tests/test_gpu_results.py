"""benchmarks/gpu-results.json, which 07-gpu charts on every machine: the file ``benchmarks/gpu.py
--json`` writes, and the committed run in the shape the notebook reads."""

import importlib.util
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "gpu-results.json"


def _gpu_benchmark():
    spec = importlib.util.spec_from_file_location("gpu_benchmark", ROOT / "benchmarks" / "gpu.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # imports numpy only: CuPy is imported when a run starts
    return module


def test_json_rows_give_microseconds_and_the_shares_of_copy():
    table = _gpu_benchmark().Table({"FLOAT32": 4000.0})
    # 2 GB moved in 0.5 ms of device time is 4000 GB/s: all of the copy's 4000 GB/s; the one call
    # took 0.625 ms end to end where a copy call of those bytes took 0.5 ms: 80% of it
    table.add(
        "slice1", "FLOAT32", "NCHW", "NCHW (new)", "strides (1,1,1,-1)", 0.5, 0.625, (12.0, 8.0), 2_000_000_000,
        0.5, 1.0, None,
    )  # fmt: skip
    assert table.json_rows() == [
        {"operator": "slice1", "dtype": "FLOAT32", "input": "NCHW", "output": "NCHW (new)",
         "params": "strides (1,1,1,-1)", "device_us": 500.0, "call_us": 625.0, "host_us_small": 12.0,
         "copyto_host_us_small": 8.0, "gbps": 4000.0, "of_copy": 1.0, "end_to_end_of_copy": 0.8,
         "cupy_device_us": 1000.0, "torch_device_us": None}
    ]  # fmt: skip
    assert "| 12.0 | 1.50 |" in table.render(markdown=True)


def test_the_committed_run_has_what_the_gpu_tutorial_charts():
    results = json.loads(RESULTS.read_text(encoding="ascii"))
    assert set(results) == {"device", "date", "commit", "shape", "reps", "copy_gbps", "rows", "small_call_us"}
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", results["date"]) and re.fullmatch(r"[0-9a-f]{7,40}", results["commit"])
    assert results["device"] and results["shape"] == [16, 64, 256, 256]
    dtypes = set(results["copy_gbps"])
    assert dtypes == {"FLOAT32", "FLOAT16"}
    cases: dict[tuple, set] = {}
    for row in results["rows"]:
        assert row["operator"] in {"cumulative_summation", "cumulative_product", "slice1", "element_wise_identity"}
        assert 0 < row["end_to_end_of_copy"] <= 1.2 and row["host_us_small"] > 0, row
        assert 0 < row["of_copy"] <= 1.2, row  # a share of the copy's speed; above it only by noise
        assert abs(row["gbps"] / results["copy_gbps"][row["dtype"]] - row["of_copy"]) < 0.002, row
        cases.setdefault((row["operator"], row["input"], row["output"], row["params"]), set()).add(row["dtype"])
    assert all(found == dtypes for found in cases.values())  # the chart pairs every case's two bars
    assert len(cases) == 36
