"""Measure launch-plan variants of the scans on the rows of ``benchmarks/gpu.py`` that miss their
targets, in one run, before choosing the planner's constants in ``stridelab/ops/cupy/tuning.py``.

    PYTHONPATH=src python3 benchmarks/gpu_variants.py [--reps 10]

Each variant changes the scan planner's constants (tiles of the scans across and along the axis,
the split columns) for the run; the template instantiations it names are compiled on first use.
Every variant's result is checked (scans against a float64 sum, slices against CuPy's) before it
is timed (device time, as in ``benchmarks/gpu.py``).
With --profile, then a profile of the host's cost of small calls.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time

import numpy as np
from gpu import AXES, SHAPE, check_equal, check_scan, copy_bandwidth, device_ms, nhwc, sector_bytes

_AY_WIDE = ((8, True, 32, 0), (4, True, 64, 0))  # float16 ay tiles for axes of 128 and more
_AY_SCALAR = (2, False, 32, 0)

#: name -> planner constants to set (element size 2 or 4 implied by the dictionaries changed).
VARIANTS = {
    "defaults": {},
    "not staged": {"SCAN_STAGED_MIN_CHUNKS": 10**9},
    "no columns split": {"COLS_SPLIT_BELOW": 0},
    "float16 split unbounded": {"COLS_SPLIT": {2: (8, 16, 0)}},
    # float16 along a 64-long axis innermost in the destination (NCHW -> NHWC along C)
    "ay 32x2": {"SCAN_AY_TILES": {2: ((*_AY_WIDE, (2, True, 64, 8)), _AY_SCALAR)}},
    "ay 16x4 minb0": {"SCAN_AY_TILES": {2: ((*_AY_WIDE, (4, True, 64, 0, 16)), _AY_SCALAR)}},
    "ay 8x8": {"SCAN_AY_TILES": {2: ((*_AY_WIDE, (8, True, 64, 8, 8)), _AY_SCALAR)}},
    "ay 8x8 minb0": {"SCAN_AY_TILES": {2: ((*_AY_WIDE, (8, True, 64, 0, 8)), _AY_SCALAR)}},
    "ay 16x4 tile32": {"SCAN_AY_TILES": {2: ((*_AY_WIDE, (4, True, 32, 8, 16)), _AY_SCALAR)}},
}

#: (dtype, input layout, output layout, axis) scan rows: those across the axis (NHWC <-> NCHW
#: along H, the staged tiles), those the float16 split columns take (packed and NHWC along H, NHWC
#: along W), float16 NCHW -> NHWC along C, and float32 packed H (split columns) as a control.
ROWS = [
    ("FLOAT16", "NHWC", "NCHW", 2),
    ("FLOAT32", "NHWC", "NCHW", 2),
    ("FLOAT16", "NCHW", "NHWC", 2),
    ("FLOAT16", "NCHW", "NCHW", 2),
    ("FLOAT16", "NHWC", "NHWC", 2),
    ("FLOAT16", "NHWC", "NHWC", 3),
    ("FLOAT16", "NCHW", "NHWC", 1),
    ("FLOAT32", "NCHW", "NCHW", 2),
]
#: slice1 window strides timed on the packed tensor of each type.
SLICES: list = []


def _apply(plans, variant: dict, saved: dict) -> None:
    """Set a variant's constants; a dictionary changes only the element sizes it names."""
    for k, v in variant.items():
        setattr(plans, k, {**saved[k], **v} if isinstance(v, dict) else v)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--profile", action="store_true", help="also profile the host's cost of small calls")
    parser.add_argument("--only", nargs="*", help="names of the variants to run (default: all)")
    args = parser.parse_args()
    variants = {k: v for k, v in VARIANTS.items() if not args.only or k in args.only}
    import cupy

    import stridelab as sl
    from stridelab.ops._engine import forget_plans  # each plan holds its primitive and its launches
    from stridelab.ops.cupy import scan_plan as plans

    saved = {k: getattr(plans, k) for v in variants.values() for k in v}

    elements = int(np.prod(SHAPE))
    copy = {n: copy_bandwidth(elements * np.dtype(n.lower()).itemsize, args.reps) for n in ("FLOAT32", "FLOAT16")}
    inputs, outs = {}, {}
    for n in ("FLOAT32", "FLOAT16"):
        packed = cupy.random.default_rng(0).standard_normal(SHAPE, dtype=cupy.float32).astype(n.lower())
        inputs[n, "NCHW"] = packed
        inputs[n, "NHWC"] = nhwc(cupy.ascontiguousarray(packed.transpose(0, 2, 3, 1)))
        outs[n] = sl.StridedTensor.empty(sl.TensorDesc(n, SHAPE, sl.layout_strides("NHWC", SHAPE)), cupy)

    results: dict[str, list[str]] = {}
    for vname, variant in variants.items():
        _apply(plans, variant, saved)
        forget_plans()
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
        for n, strides in SLICES:
            x = inputs[n, "NCHW"]
            view = x[tuple(slice(None, None, s) for s in strides)]
            fn = lambda x=x, strides=strides: sl.slice1(x, (0, 0, 0, 0), SHAPE, strides)  # noqa: E731
            check_equal(fn(), view, f"slice1 {strides}")
            ms = device_ms(fn, args.reps)
            share = (sector_bytes(view) + view.nbytes) / (ms * 1e-3) / 1e9 / copy[n]
            cells.append(f"{ms * 1e3:6.1f} {share:4.0%}")
        results[vname] = cells
        print(vname, " | ".join(cells), flush=True)
        for k in variant:
            setattr(plans, k, saved[k])
    forget_plans()

    print("\ncopy GB/s:", {k: round(v) for k, v in copy.items()})
    head = [f"{n[-2:]} {li}>{lo} {AXES[a]}" for n, li, lo, a in ROWS]
    head += [f"{n[-2:]} slice {','.join(map(str, s))}" for n, s in SLICES]
    print("row".ljust(26) + "".join(h.rjust(13) for h in head))
    for vname, cells in results.items():
        print(vname.ljust(26) + "".join(c.rjust(13) for c in cells))

    if not args.profile:
        return
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
