"""Measure launch-plan variants of the scans on the rows of ``benchmarks/gpu.py`` that miss their
targets, in one run, before choosing the planner's constants in ``stridelab/ops/_cupy_plan.py``.

    PYTHONPATH=. python3 benchmarks/gpu_variants.py [--reps 10]

Each variant changes planner constants (vectors per lane in a lines scan, steps loaded ahead in a
columns scan, tile shapes) for the run; the extra template instantiations it needs are added to
the kernels compiled. Every variant's result is checked against a float64 sum before it is timed
(device time, as in ``benchmarks/gpu.py``). Then a profile of the host's cost of small calls.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time

import numpy as np
from gpu import AXES, SHAPE, check_scan, copy_bandwidth, device_ms, nhwc

#: name -> planner constants to set (element size 2 or 4 implied by the dictionaries changed).
VARIANTS = {
    "defaults": {},
    "lines C up to 2": {"LINES_VECTORS": (2, 1)},
    "lines C 1": {"LINES_VECTORS": (1,)},
    "lines C up to 4, any lanes": {"LINES_MIN_LANES": 1},
    "cols without long steps": {"COLS_STEPS_LONG": {2: (16, 2**62)}},
    "an few f16 (32,8,2)": {"SCAN_OUTER_TILES": {2: ((64, 2, 4), (32, 8, 2), (32, 8, 1))}},
    "an few f16 (32,8,4)": {"SCAN_OUTER_TILES": {2: ((64, 2, 4), (32, 8, 4), (32, 8, 1))}},
    "an few f16 (32,16,2)": {"SCAN_OUTER_TILES": {2: ((64, 2, 4), (32, 16, 2), (32, 8, 1))}},
    "an few f32 (32,8,4)": {"SCAN_OUTER_TILES": {4: ((32, 8, 2), (32, 8, 4), (32, 8, 1))}},
    "ax/ay one tile (before)": {
        "SCAN_AX_TILES": {2: (((2, True, 64),), (2, False, 32))},
        "SCAN_AY_TILES": {4: (((4, True, 32),), (1, False, 32)), 2: (((4, True, 64),), (2, False, 32))},
    },
}

#: (dtype, input layout, output layout, axis) rows below target in the last table.
ROWS = [
    ("FLOAT32", "NCHW", "NCHW", 3),
    ("FLOAT32", "NHWC", "NHWC", 1),
    ("FLOAT32", "NHWC", "NCHW", 2),
    ("FLOAT32", "NCHW", "NHWC", 1),
    ("FLOAT16", "NCHW", "NCHW", 2),
    ("FLOAT16", "NCHW", "NCHW", 3),
    *(("FLOAT16", "NHWC", "NCHW", a) for a in range(4)),
    *(("FLOAT16", "NHWC", "NHWC", a) for a in range(4)),
    *(("FLOAT16", "NCHW", "NHWC", a) for a in range(4)),
]


def _names(plans) -> set[str]:
    return set(plans._scan_kernels())


def _apply(plans, variant: dict, saved: dict) -> None:
    """Set a variant's constants; a dictionary changes only the element sizes it names."""
    for k, v in variant.items():
        setattr(plans, k, {**saved[k], **v} if isinstance(v, dict) else v)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args()
    import cupy

    import stridelab as sl
    from stridelab.ops import _cupy
    from stridelab.ops import _cupy_plan as plans

    saved = {k: getattr(plans, k) for v in VARIANTS.values() for k in v}
    names = _names(plans)
    for variant in VARIANTS.values():
        _apply(plans, variant, saved)
        names |= _names(plans)
        for k in variant:
            setattr(plans, k, saved[k])
    _cupy._FAMILIES["scan"] = tuple(sorted(names))

    elements = int(np.prod(SHAPE))
    copy = {n: copy_bandwidth(elements * np.dtype(n.lower()).itemsize, args.reps) for n in ("FLOAT32", "FLOAT16")}
    inputs, outs = {}, {}
    for n in ("FLOAT32", "FLOAT16"):
        packed = cupy.random.default_rng(0).standard_normal(SHAPE, dtype=cupy.float32).astype(n.lower())
        inputs[n, "NCHW"] = packed
        inputs[n, "NHWC"] = nhwc(cupy.ascontiguousarray(packed.transpose(0, 2, 3, 1)))
        outs[n] = sl.StridedTensor.empty(sl.TensorDesc(n, SHAPE, sl.layout_strides("NHWC", SHAPE)), cupy)

    results: dict[str, list[str]] = {}
    for vname, variant in VARIANTS.items():
        _apply(plans, variant, saved)
        _cupy._plan_scan.cache_clear()
        cells = []
        for n, li, lo, axis in ROWS:
            x = inputs[n, li]
            if lo == "NCHW":
                fn = lambda x=x, axis=axis: sl.cumulative_summation(x, axis)  # noqa: E731
                check_scan(fn(), x, axis)
            else:
                fn = lambda x=x, axis=axis, o=outs[n]: sl.cumulative_summation(x, axis, out=o)  # noqa: E731
                check_scan(fn().view(), x, axis)
            ms = device_ms(fn, args.reps)
            share = 2 * x.nbytes / (ms * 1e-3) / 1e9 / copy[n]
            cells.append(f"{ms * 1e3:6.1f} {share:4.0%}")
        results[vname] = cells
        print(vname, " | ".join(cells), flush=True)
        for k in variant:
            setattr(plans, k, saved[k])
    _cupy._plan_scan.cache_clear()

    print("\ncopy GB/s:", {k: round(v) for k, v in copy.items()})
    head = [f"{n[-2:]} {li}>{lo} {AXES[a]}" for n, li, lo, a in ROWS]
    print("row".ljust(26) + "".join(h.rjust(13) for h in head))
    for vname, cells in results.items():
        print(vname.ljust(26) + "".join(c.rjust(13) for c in cells))

    # host cost of small calls
    x = cupy.asarray(np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4))
    big = inputs["FLOAT32", "NCHW"]
    calls = {
        "cumsum (1,1,3,4)": lambda: sl.cumulative_summation(x, 3),
        "slice1 (1,2,2,-2)": lambda: sl.slice1(big, (0, 0, 0, 0), SHAPE, (1, 2, 2, -2)),
    }
    for label, fn in calls.items():
        for _ in range(100):
            fn()
        cupy.cuda.Device().synchronize()
        t0 = time.perf_counter()
        for _ in range(2000):
            fn()
        t1 = time.perf_counter()
        cupy.cuda.Device().synchronize()
        print(f"\n{label}: {(t1 - t0) / 2000 * 1e6:.1f} us per call on the host")
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(2000):
            fn()
        prof.disable()
        cupy.cuda.Device().synchronize()
        text = io.StringIO()
        pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(14)
        print(text.getvalue()[-5000:])


if __name__ == "__main__":
    main()
