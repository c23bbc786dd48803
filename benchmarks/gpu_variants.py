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
from gpu import SHAPE, check_equal, check_scan, copy_bandwidth, device_ms, nhwc, sector_bytes

_AY_WIDE = ((8, True, 32, 0), (4, True, 64, 0))  # float16 ay tiles for axes of 128 and more
_AY_SCALAR = (2, False, 32, 0)
_F32_AY_SCALAR = (1, False, 32, 0)


def _outer(esize: int, many: tuple) -> dict:
    """SCAN_OUTER_TILES with one tile for many blocks (the tiles across the axis)."""
    from stridelab.ops.cupy.tuning import SCAN_OUTER_TILES

    return {"SCAN_OUTER_TILES": {esize: ((many,), *SCAN_OUTER_TILES[esize][1:])}}


#: Row groups (keys of ROWS) a variant changes; the defaults time every row.
_ACROSS = ("f32 NCHW>NHWC N", "f32 NHWC>NCHW N", "f16 NCHW>NHWC N", "f16 NHWC>NCHW N")
_ACROSS_H = ("f32 NCHW>NHWC H", "f32 NHWC>NCHW H", "f16 NCHW>NHWC H", "f16 NHWC>NCHW H")

#: name -> (planner constants to set (element size 2 or 4 implied by the dictionaries changed),
#: the rows it can change, or None for every row).
VARIANTS: dict[str, tuple[dict, tuple[str, ...] | None]] = {
    "defaults": ({}, None),
    # float32 tiles across an axis too short to stage (along N): TILE, steps per barrier pair, vector
    "f32 an 64x64 s1 w2": (_outer(4, (64, 1, 2, 0)), _ACROSS[:2]),
    "f32 an 64x64 s2 w2": (_outer(4, (64, 2, 2, 0)), _ACROSS[:2]),
    "f32 an 64x64 s1 w2 b6": (_outer(4, (64, 1, 2, 6)), _ACROSS[:2]),
    "f32 an 64x64 s2 w4": (_outer(4, (64, 2, 4, 0)), _ACROSS[:2]),
    "f32 an 32x32 s8 w4": (_outer(4, (32, 8, 4, 0)), _ACROSS[:2]),
    "f32 an 32x32 s4 w2": (_outer(4, (32, 4, 2, 0)), _ACROSS[:2]),
    "f16 an 64x64 s1 w4 b6": (_outer(2, (64, 1, 4, 6)), _ACROSS[2:]),
    "f16 an 64x64 s1 w4": (_outer(2, (64, 1, 4, 0)), _ACROSS[2:]),
    "f16 an 64x64 s4 w4": (_outer(2, (64, 4, 4, 0)), _ACROSS[2:]),
    "f16 an 64x64 s2 w8": (_outer(2, (64, 2, 8, 0)), _ACROSS[2:]),
    "f16 an 64x64 s1 w8": (_outer(2, (64, 1, 8, 0)), _ACROSS[2:]),
    "f16 an 64x64 s4 w8": (_outer(2, (64, 4, 8, 0)), _ACROSS[2:]),
    # staged tiles with shorter chunks: the short axis (N) staged too, more blocks a multiprocessor
    "f32 staged 32x32 ch8 st2": ({"SCAN_STAGED_TILES": {4: (32, 32, 8, 2)}}, (*_ACROSS[:2], *_ACROSS_H[:2])),
    "f32 staged 32x32 ch8 st3": ({"SCAN_STAGED_TILES": {4: (32, 32, 8, 3)}}, (*_ACROSS[:2], *_ACROSS_H[:2])),
    "f16 staged 64x32 ch8 st2": ({"SCAN_STAGED_TILES": {2: (64, 32, 8, 2)}}, (*_ACROSS[2:], *_ACROSS_H[2:])),
    "f16 staged 64x32 ch8 st3": ({"SCAN_STAGED_TILES": {2: (64, 32, 8, 3)}}, (*_ACROSS[2:], *_ACROSS_H[2:])),
    # float32 along an axis innermost in the destination: 64 long (NCHW -> NHWC along C), 256 (W)
    "f32 ay 16x4": (
        {"SCAN_AY_TILES": {4: (((4, True, 32, 0), (4, True, 32, 0, 16)), _F32_AY_SCALAR)}},
        ("f32 NCHW>NHWC C",),
    ),
    "f32 ay 16x4 t64": (
        {"SCAN_AY_TILES": {4: (((4, True, 32, 0), (4, True, 64, 0, 16)), _F32_AY_SCALAR)}},
        ("f32 NCHW>NHWC C",),
    ),
    "f32 ay 8x8": (
        {"SCAN_AY_TILES": {4: (((4, True, 32, 0), (8, True, 32, 0, 8)), _F32_AY_SCALAR)}},
        ("f32 NCHW>NHWC C",),
    ),
    "f32 ay 32x2 t64": (
        {"SCAN_AY_TILES": {4: (((4, True, 32, 0), (2, True, 64, 0)), _F32_AY_SCALAR)}},
        ("f32 NCHW>NHWC C",),
    ),
    "f32 ay 32x4 t64": (
        {"SCAN_AY_TILES": {4: (((4, True, 64, 0), (2, True, 32, 0)), _F32_AY_SCALAR)}},
        ("f32 NHWC>NCHW W",),
    ),
    "f32 ay 16x4 long": (
        {"SCAN_AY_TILES": {4: (((4, True, 32, 0, 16), (2, True, 32, 0)), _F32_AY_SCALAR)}},
        ("f32 NHWC>NCHW W",),
    ),
    "f16 ay 32x8 t64": (
        {"SCAN_AY_TILES": {2: (((8, True, 64, 0), (4, True, 64, 0), (8, True, 64, 8, 8)), _AY_SCALAR)}},
        ("f16 NHWC>NCHW W",),
    ),
    "f16 ay 16x8": (
        {"SCAN_AY_TILES": {2: (((8, True, 32, 0, 16), (4, True, 64, 0), (8, True, 64, 8, 8)), _AY_SCALAR)}},
        ("f16 NHWC>NCHW W",),
    ),
    # float16 transposing copy tile
    "f16 copy 64 w8": ({"COPY_TILES": {2: ((64, 8), (64, 1))}}, ("f16 identity NCHW>NHWC", "f16 identity NHWC>NCHW")),
    "f16 copy 128 w8": ({"COPY_TILES": {2: ((128, 8), (64, 1))}}, ("f16 identity NCHW>NHWC", "f16 identity NHWC>NCHW")),
    "f16 copy 128 w4": ({"COPY_TILES": {2: ((128, 4), (64, 1))}}, ("f16 identity NCHW>NHWC", "f16 identity NHWC>NCHW")),
    "defaults again": ({}, None),
}

#: label -> (dtype, input layout, output layout, axis or None for element_wise_identity): the scans
#: and copies below 90% of copy in the table at c923823, and the float32 identity as a control.
ROWS = {
    f"{n[0].lower()}{n[-2:]} {li}>{lo} {'NCHW'[a]}": (n, li, lo, a)
    for n in ("FLOAT32", "FLOAT16")
    for li, lo, axes in (("NCHW", "NHWC", (0, 1, 2)), ("NHWC", "NCHW", (0, 2, 3)))
    for a in axes
}
ROWS.update(
    {
        "f32 identity NCHW>NHWC": ("FLOAT32", "NCHW", "NHWC", None),
        "f16 identity NCHW>NHWC": ("FLOAT16", "NCHW", "NHWC", None),
        "f16 identity NHWC>NCHW": ("FLOAT16", "NHWC", "NCHW", None),
    }
)
#: slice1 window strides timed on the packed tensor of each type.
SLICES: list = [("FLOAT32", (1, 2, 2, -2)), ("FLOAT16", (1, 2, 2, -2))]


def _apply(modules, variant: dict, saved: dict) -> None:
    """Set a variant's constants (COPY_* in the copy planner, the others in the scan planner); a
    dictionary changes only the element sizes it names."""
    for k, v in variant.items():
        setattr(modules[k.startswith("COPY")], k, {**saved[k], **v} if isinstance(v, dict) else v)


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
    from stridelab.ops.cupy import copy_plan, scan_plan

    modules = (scan_plan, copy_plan)
    saved = {k: getattr(modules[k.startswith("COPY")], k) for v, _ in variants.values() for k in v}

    elements = int(np.prod(SHAPE))
    copy = {n: copy_bandwidth(elements * np.dtype(n.lower()).itemsize, args.reps) for n in ("FLOAT32", "FLOAT16")}
    inputs, outs = {}, {}
    for n in ("FLOAT32", "FLOAT16"):
        packed = cupy.random.default_rng(0).standard_normal(SHAPE, dtype=cupy.float32).astype(n.lower())
        inputs[n, "NCHW"] = packed
        inputs[n, "NHWC"] = nhwc(cupy.ascontiguousarray(packed.transpose(0, 2, 3, 1)))
        outs[n, "NHWC"] = sl.StridedTensor.empty(sl.TensorDesc(n, SHAPE, sl.layout_strides("NHWC", SHAPE)), cupy)
        outs[n, "NCHW"] = sl.StridedTensor.empty(sl.TensorDesc(n, SHAPE), cupy)

    results: dict[str, dict[str, str]] = {}
    for vname, (variant, only) in variants.items():
        _apply(modules, variant, saved)
        forget_plans()
        for label, (n, li, lo, axis) in ROWS.items():
            if only is not None and label not in only:
                continue
            x = inputs[n, li]
            try:
                if axis is None:
                    fn = lambda x=x, o=outs[n, lo]: sl.element_wise_identity(x, o)  # noqa: E731
                    check_equal(fn().view(), x, f"element_wise_identity {label}")
                elif lo == "NCHW":
                    fn = lambda x=x, axis=axis: sl.cumulative_summation(x, axis)  # noqa: E731
                    check_scan(fn(), x, axis)
                else:
                    fn = lambda x=x, axis=axis, o=outs[n, lo]: sl.cumulative_summation(x, axis, out=o)  # noqa: E731
                    check_scan(fn().view(), x, axis)
                ms = device_ms(fn, args.reps)
            except Exception as error:  # a variant that fails to compile or to check is reported, not fatal
                cell = f"failed: {type(error).__name__}: {str(error)[:200]}"
            else:
                cell = f"{ms * 1e3:6.1f} us {2 * x.nbytes / (ms * 1e-3) / 1e9 / copy[n]:4.0%}"
            results.setdefault(label, {})[vname] = cell
            print(f"{vname} | {label} | {cell}", flush=True)
        for n, strides in SLICES if only is None else ():
            x = inputs[n, "NCHW"]
            view = x[tuple(slice(None, None, s) for s in strides)]
            fn = lambda x=x, strides=strides: sl.slice1(x, (0, 0, 0, 0), SHAPE, strides)  # noqa: E731
            check_equal(fn(), view, f"slice1 {strides}")
            ms = device_ms(fn, args.reps)
            share = (sector_bytes(view) + view.nbytes) / (ms * 1e-3) / 1e9 / copy[n]
            label = f"{n[0].lower()}{n[-2:]} slice {','.join(map(str, strides))}"
            results.setdefault(label, {})[vname] = f"{ms * 1e3:6.1f} us {share:4.0%}"
            print(f"{vname} | {label} | {results[label][vname]}", flush=True)
        for k in variant:
            setattr(modules[k.startswith("COPY")], k, saved[k])
    forget_plans()

    print("\ncopy GB/s:", {k: round(v) for k, v in copy.items()})
    for label, cells in results.items():
        print(f"\n{label}")
        for vname, cell in cells.items():
            print(f"  {vname.ljust(28)} {cell}")

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
