"""GPU memory traffic of layouts: Nsight Compute's counters against stridelab's predictions.

    PYTHONPATH=src python3 benchmarks/access.py measure [--out PATH] [--commit HASH]   # GPU, ncu
    PYTHONPATH=src python3 benchmarks/access.py table [PATH] [--only copy|stridelab]  # CPU

``measure`` runs this script's ``launch`` mode under ``ncu`` (one process): it builds every case
of ``_access_cases.py``, calls each once as a warm-up (compiling its kernels) outside the profiled
range, then, between ``cudaProfilerStart`` and ``cudaProfilerStop``, calls each exactly once, so
that the profiled launches are the cases' in order (``-k regex:sl_`` keeps only the cases'
kernels). It writes ``access-measured.json`` (default: beside this script): per case the operands'
layouts (data type, sizes, signed element strides) and the byte address of each one's element 0,
the operator and its parameters, the launches stridelab's planner chose (kernel, grid, block) and,
per launch, the counters ncu measured; and the device (name, multiprocessors, shared memory a
block may opt in to), the CUDA, CuPy and ncu versions, the commit and the ncu command line.

``table`` reads that file and puts beside each measured launch its prediction:
``stridelab.access_pattern`` of the strided view (loads) and of the packed result (stores) for the
element-wise ``copy`` kernel, ``stridelab.ops.traffic`` for stridelab's operators. ``of copy``:
the case's logical bytes (each output element read once and written once) per second, as a share
of ``REFERENCE``'s in the same data type; ``pred eff``: the predicted ideal sectors over sectors.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import _access_cases as cases_module

HERE = Path(__file__).resolve().parent
GROUPS = {"loads": "op_ld", "async_loads": "op_ldgsts", "stores": "op_st"}
COUNTERS = [f"l1tex__t_{c}_pipe_lsu_mem_global_{op}.sum" for op in GROUPS.values() for c in ("sectors", "requests")]
#: The same counts taken per SASS instruction. ncu 2025.3 on Hopper has no l1tex op_ldgsts counter
#: (only ``op_ldgsts_cache_access``, cp.async's L1-cached form), and its l1tex op_ld counts the
#: L1-bypassing cp.async too: the SASS counters tell the two apart (see ``GROUP_RULES``).
SASS = [c.replace("l1tex__t_", "sm__sass_l1tex_t_") for c in COUNTERS if "_op_st" not in c]
GROUP_RULES = {
    "loads": "l1tex__t_{sectors,requests}_pipe_lsu_mem_global_op_ld.sum, less the op_ldgsts of async_loads "
    "where ncu has no l1tex op_ldgsts counter (its op_ld then includes cp.async's loads)",
    "async_loads": "l1tex__t_{sectors,requests}_pipe_lsu_mem_global_op_ldgsts.sum where ncu has it, "
    "else sm__sass_l1tex_t_{sectors,requests}_pipe_lsu_mem_global_op_ldgsts.sum",
    "stores": "l1tex__t_{sectors,requests}_pipe_lsu_mem_global_op_st.sum",
}
METRICS = [*COUNTERS, *SASS, "gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum"]
#: Per data type, the case whose bytes per second the others are compared with: stridelab's copy of a
#: packed tensor (16-byte vectors), the fastest copy of those bytes measured in the same run.
REFERENCE = ("element_wise_identity", "packed -> NCHW")


def _operand(a: Any, allocated: bool = False) -> dict[str, Any]:
    """A CuPy array's or StridedTensor's layout and element 0's byte address."""
    import stridelab as sl
    from stridelab.dtypes import data_type

    if isinstance(a, sl.StridedTensor):
        sizes, strides, dtype, address = a.desc.sizes, a.desc.strides, a.desc.data_type, a.buffer.data.ptr
    else:
        sizes, dtype, address = a.shape, data_type(a.dtype).name, a.data.ptr
        strides = tuple(s // a.itemsize for s in a.strides)
    record = {"data_type": dtype, "sizes": list(sizes), "strides": list(strides), "address": int(address)}
    record["address_mod_128"] = int(address) % 128
    return {**record, "allocated": True} if allocated else record


def _out(xp: Any, x: Any, layout: str | None) -> Any:
    """A new ``out`` of x's data type and sizes in ``layout`` (None: no out)."""
    import stridelab as sl
    from stridelab.dtypes import data_type

    if layout is None:
        return None
    desc = sl.TensorDesc(data_type(x.dtype).name, x.shape, sl.layout_strides(layout, x.shape))
    return sl.StridedTensor.empty(desc, xp)


def _planned(function: str, x: Any, out: Any, params: dict[str, Any]) -> list[dict[str, Any]]:
    """The launches stridelab's CuPy backend makes for this call, in order, from the engine's plan
    and the planners, as ``runtime._resolve`` does (``out`` None: a new result, 16-byte aligned)."""
    from stridelab.ops import _engine
    from stridelab.ops.cupy import runtime
    from stridelab.ops.cupy.copy_plan import plan_copy
    from stridelab.ops.cupy.scan_plan import plan_scan

    (op,) = [o for o in _engine.OPERATORS.values() if o.function == function]
    p = _engine.plan(op, x, out, **({"output_sizes": None, **params} if function == "slice1" else params))
    esize = p.dtype.element_size
    src = x if p.read is None else p.read(x)
    sp = src.data.ptr + p.src_offset * esize
    dp = (0 if out is None else out.buffer.data.ptr) + p.dst_offset * esize
    device = src.data.device_id
    if op.scan is None:
        launches = [plan_copy(esize, p.pair, sp % 16, dp % 16).launch]
    else:
        plan = plan_scan(
            p.dtype.name, p.pair, p.views.exclusive, sp % 16, dp % 16, runtime._sm_count(device),
            operator=op.scan.cuda, shared_limit=runtime._shared_limit(device),
        )  # fmt: skip
        launches = _scan_launches(plan)
    return [{"kernel": la.kernel, "grid": la.grid, "block": list(la.block), "shared": la.shared} for la in launches]


def _scan_launches(plan: Any) -> list[Any]:
    if plan.first is None:
        return [plan.launch]
    return [plan.first, *_scan_launches(plan.partial_plan), plan.launch]


def launch(cases_path: Path) -> None:
    """Build, warm up, then call each case once inside the profiled range; record the cases."""
    import cupy

    import stridelab as sl

    copy = cupy.ElementwiseKernel("T x", "T y", "y = x", "sl_measure_copy")
    calls = []
    for case in cases_module.all_cases():
        x = case.x(cupy, cases_module.DTYPES[case.data_type])
        out = cupy.empty(x.shape, x.dtype) if case.operator == "copy" else _out(cupy, x, case.out)
        if case.operator == "copy":
            run = lambda x=x, out=out: copy(x, out)  # noqa: E731
        else:
            function = getattr(sl, case.operator)
            kwargs = dict(case.params) if out is None else {**case.params, "out": out}
            run = lambda f=function, x=x, k=kwargs: f(x, **k)  # noqa: E731
        run()  # the warm-up: compiles, plans, and allocates outside the profiled range
        calls.append((case, x, out, run))
    runtime = cupy.cuda.runtime
    runtime.deviceSynchronize()
    runtime.profilerStart()  # ncu --profile-from-start off profiles from here
    results = [run() for _, _, _, run in calls]
    runtime.deviceSynchronize()
    runtime.profilerStop()
    records = []
    for (case, x, out, _), result in zip(calls, results):
        record = {"name": case.name, "operator": case.operator, "data_type": case.data_type, "params": case.params}
        record["x"] = _operand(x)
        if case.operator == "copy":
            record["out"] = _operand(out, allocated=True)
            record["planned"] = [{"kernel": "sl_measure_copy", "grid": None, "block": None, "shared": 0}]
        else:
            record["out"] = _operand(result, allocated=out is None)
            record["planned"] = _planned(case.operator, x, out, case.params)
        records.append(record)
    cases_path.write_text(json.dumps({"device": _device(), "cases": records}))


def _device() -> dict[str, Any]:
    import cupy

    runtime = cupy.cuda.runtime
    device = runtime.getDevice()
    return {
        "name": runtime.getDeviceProperties(device)["name"].decode(),
        "sm_count": runtime.deviceGetAttribute(runtime.cudaDevAttrMultiProcessorCount, device),
        "shared_limit": runtime.deviceGetAttribute(runtime.cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
        "cuda_runtime": runtime.runtimeGetVersion(),
        "cuda_driver": runtime.driverGetVersion(),
        "cupy": cupy.__version__,
    }


def _ncu() -> str:
    found = shutil.which("ncu") or next(iter(sorted(Path("/opt/nvidia/nsight-compute").glob("*/ncu"))), None)
    if found is None:
        sys.exit("ncu (Nsight Compute) is not on the PATH nor under /opt/nvidia/nsight-compute")
    return str(found)


def _available(ncu: str) -> tuple[list[str], list[str]]:
    """The metrics this ncu knows on this device, and those it does not."""
    listed = subprocess.run([ncu, "--query-metrics"], capture_output=True, text=True).stdout
    names = {line.split()[0] for line in listed.splitlines() if line.strip()}
    known = [m for m in METRICS if m.rsplit(".", 1)[0] in names]
    return known, [m for m in METRICS if m not in known]


def measure(out: Path, commit: str | None) -> None:
    ncu = _ncu()
    metrics, missing = _available(ncu)
    work = out.parent / "access-ncu"
    work.mkdir(parents=True, exist_ok=True)
    report, cases_path = work / "access.ncu-rep", work / "cases.json"
    command = [
        ncu, "--profile-from-start", "off", "-k", "regex:sl_", "--clock-control", "none", "--cache-control", "all",
        "--metrics", ",".join(metrics), "--export", str(report), "-f",
        sys.executable, str(Path(__file__).resolve()), "launch", str(cases_path),
    ]  # fmt: skip
    subprocess.run(command, check=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    raw = subprocess.run(
        [ncu, "--import", str(report), "--csv", "--page", "raw", "--print-units", "base"],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    (work / "raw.csv").write_text(raw)
    launched = json.loads(cases_path.read_text())
    shown = [report.name if a == str(report) else a for a in command]
    version = subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    record = {
        "device": launched["device"],
        "ncu_version": version,
        "commit": commit or _commit(),
        "date": datetime.date.today().isoformat(),
        "ncu_command": " ".join(["ncu", *shown[1:-4], "python3", "benchmarks/access.py", "launch", cases_path.name]),
        "metrics": metrics,
        "metrics_missing": missing,
        "groups": GROUP_RULES,
        "cases": _attach(launched["cases"], _rows(raw)),
    }
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"{len(record['cases'])} cases written to {out}")


def _commit() -> str | None:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True)
    return done.stdout.strip() or None


def _number(text: str) -> float | int:
    text = text.replace(",", "")
    value = float(text)
    return int(value) if value.is_integer() else value


def _rows(raw: str) -> list[dict[str, Any]]:
    """ncu's raw page, one dict per profiled launch in launch order."""
    rows = [r for r in csv.DictReader(io.StringIO(raw)) if r.get("ID", "").strip().isdigit()]
    rows.sort(key=lambda r: int(r["ID"]))
    found = []
    for r in rows:
        counters = {m: _number(r[m]) for m in METRICS if r.get(m, "").strip() not in ("", "n/a")}
        launch = {"kernel": r["Kernel Name"], "grid": r["Grid Size"], "block": r["Block Size"]}
        found.append({**launch, "counts": _groups(counters), **counters})
    return found


def _groups(counters: dict[str, Any]) -> dict[str, dict[str, int]]:
    """A launch's loads, async loads and stores (sectors, requests) from ncu's counters, by ``GROUP_RULES``."""
    kinds = ("sectors", "requests")

    def l1tex(kind: str, op: str) -> Any:
        return counters.get(f"l1tex__t_{kind}_pipe_lsu_mem_global_{op}.sum")

    if l1tex("sectors", "op_ldgsts") is not None:
        async_loads = {k: l1tex(k, "op_ldgsts") for k in kinds}
        loads = {k: l1tex(k, "op_ld") for k in kinds}
    else:
        async_loads = {k: counters[f"sm__sass_l1tex_t_{k}_pipe_lsu_mem_global_op_ldgsts.sum"] for k in kinds}
        loads = {k: l1tex(k, "op_ld") - async_loads[k] for k in kinds}
    return {"loads": loads, "async_loads": async_loads, "stores": {k: l1tex(k, "op_st") for k in kinds}}


def _attach(records: list[dict[str, Any]], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Give each case its launches' counters, checking that the launches are the planned ones."""
    expected = sum(len(r["planned"]) for r in records)
    if expected != len(rows):
        sys.exit(f"ncu profiled {len(rows)} launches; the cases planned {expected}")
    position = 0
    for record in records:
        measured = rows[position : position + len(record["planned"])]
        position += len(record["planned"])
        for planned, row in zip(record["planned"], measured):
            if planned["kernel"].split("<")[0] not in row["kernel"]:
                sys.exit(f"case {record['name']}: planned {planned['kernel']}, ncu profiled {row['kernel']}")
        record["measured"] = measured
    return records


def predict_copy(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The element-wise kernel's one launch: ``access_pattern`` of the strided view read in C
    order from its element 0's address, and of the packed result written."""
    import stridelab as sl

    x, out = case["x"], case["out"]
    esize = cases_module.np.dtype(cases_module.DTYPES[x["data_type"]]).itemsize
    lowest = sum((n - 1) * s for n, s in zip(x["sizes"], x["strides"]) if s < 0)
    # access_pattern's offset is the address of the lowest element: element 0 lies -lowest past it
    load = sl.access_pattern(
        (x["sizes"], x["strides"]), data_type=x["data_type"], offset=(x["address"] + lowest * esize) % 128
    )
    store = sl.access_pattern((out["sizes"], out["strides"]), data_type=out["data_type"], offset=out["address"] % 128)
    none = (0, 0, 0)
    counts = [(r.requests, r.sectors, r.ideal_sectors) for r in (load, store)]
    return [{"kernel": "sl_measure_copy", "loads": counts[0], "async_loads": none, "stores": counts[1]}]


def predict_stridelab(case: dict[str, Any], device: dict[str, Any]) -> list[dict[str, Any]]:
    """Every launch of a stridelab operator's call, from ``stridelab.ops.traffic``."""
    import importlib

    import stridelab as sl

    traffic_module = importlib.import_module("stridelab.ops.traffic")
    x, out = cases_module.cpu_array(case["x"]), cases_module.cpu_out(case["out"])
    addresses = {"x": case["x"]["address"] % 128}
    if out is not None:
        addresses["out"] = case["out"]["address"] % 128
    traffic = sl.ops.traffic(
        getattr(sl, case["operator"]), x, out=out, addresses=addresses,
        device=traffic_module.TrafficDevice(device["sm_count"], device["shared_limit"]), **case["params"],
    )  # fmt: skip
    return [
        {"kernel": la.kernel, **{g: (c.requests, c.sectors, c.ideal_sectors) for g, c in zip(GROUPS, la[3:])}}
        for la in traffic.launches
    ]


def _difference(predicted: int, measured: int) -> float:
    return 0.0 if predicted == measured else abs(predicted - measured) / max(measured, 1)


def _rate(case: dict[str, Any]) -> float:
    """The case's logical bytes (each output element read and written once) per nanosecond."""
    out = case["out"]
    esize = cases_module.np.dtype(cases_module.DTYPES[out["data_type"]]).itemsize
    elements = cases_module.prod(out["sizes"])
    return 2 * elements * esize / sum(m["gpu__time_duration.sum"] for m in case["measured"])


def table_rows(record: dict[str, Any], only: str | None = None) -> list[list[str]]:
    """One row per measured launch: predicted / measured counters, the largest difference, the
    case's share of the copy's bytes per second and its predicted sector efficiency."""
    cases = record["cases"]
    reference = {c["data_type"]: _rate(c) for c in cases if (c["operator"], c["name"]) == REFERENCE}
    rows = []
    for case in cases:
        is_copy = case["operator"] == "copy"
        if only is not None and is_copy != (only == "copy"):
            continue
        predicted = predict_copy(case) if is_copy else predict_stridelab(case, record["device"])
        ideal = sum(p[g][2] for p in predicted for g in GROUPS)
        sectors = sum(p[g][1] for p in predicted for g in GROUPS)
        for i, (p, m) in enumerate(zip(predicted, case["measured"])):
            cells, worst = [], 0.0
            for group in GROUPS:
                if is_copy and group == "async_loads":
                    continue
                for k, kind in ((1, "sectors"), (0, "requests")):
                    got = m["counts"][group][kind]
                    cells.append(f"{p[group][k]} / {got}")
                    worst = max(worst, _difference(p[group][k], got))
            last = i == len(predicted) - 1
            share = f"{_rate(case) / reference[case['data_type']]:.3f}" if last else ""
            efficiency = f"{ideal / sectors:.2f}" if last and sectors else ""
            name = f"{case['operator']} {case['data_type']} {case['name']}" if i == 0 else ""
            kernel = p["kernel"].split("<")[0]
            rows.append([name, kernel, *cells, f"{100 * worst:.1f}", share, efficiency])
    return rows


def print_table(record: dict[str, Any], only: str | None = None) -> None:
    device = record["device"]
    print(f"{device['name']}, {device['sm_count']} SMs, commit {record['commit']}, {record['date']}")
    for kind in [only] if only else ["copy", "stridelab"]:
        groups = ["ld", "st"] if kind == "copy" else ["ld", "ldgsts", "st"]
        head = ["case", "kernel", *(f"{g} {k} pred / meas" for g in groups for k in ("sectors", "requests"))]
        head += ["max diff %", "of copy", "pred eff"]
        try:
            rows = table_rows(record, kind)
        except (ImportError, AttributeError) as error:  # a stridelab without ops.traffic
            print(f"\n(no predictions for stridelab's operators: {error})")
            continue
        print("\n| " + " | ".join(head) + " |\n|" + "---|" * len(head))
        for row in rows:
            print("| " + " | ".join(row) + " |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    m = sub.add_parser("measure", help="run the cases under ncu and write the JSON (needs a GPU)")
    m.add_argument("--out", type=Path, default=HERE / "access-measured.json")
    m.add_argument("--commit", help="the commit measured (default: git rev-parse --short HEAD)")
    la = sub.add_parser("launch", help="(run by measure, under ncu) launch every case once")
    la.add_argument("cases", type=Path)
    t = sub.add_parser("table", help="print predictions beside the measurements (CPU)")
    t.add_argument("path", type=Path, nargs="?", default=HERE / "access-measured.json")
    t.add_argument("--only", choices=("copy", "stridelab"), help="only the element-wise or stridelab's cases")
    args = parser.parse_args(argv)
    if args.mode == "measure":
        measure(args.out, args.commit)
    elif args.mode == "launch":
        launch(args.cases)
    else:
        print_table(json.loads(args.path.read_text()), only=args.only)


if __name__ == "__main__":
    main()
