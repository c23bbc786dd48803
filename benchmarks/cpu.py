"""NumPy-backend timings of stridelab's operators beside the plain NumPy equivalent, in one run.

For a (16, 64, 256, 256) float32 tensor (256 MiB), prints one Markdown table: the median time of
each operator, the median time of what NumPy itself offers for the same result, their ratio
(NumPy / stridelab: above 1 means stridelab is faster) and the goal from the operators' issue:

* cumulative summation at least 5 times faster than ``np.cumsum`` on the same array and axis
  along every axis but the one innermost in the input's memory (W for NCHW, C for NHWC), and no
  slower along that one;
* slices and copies within 1.2 times of NumPy (ratio at least 1 / 1.2).

The two calls of a row run alternately, so that a busy machine slows both alike. Cumulative
summations are timed twice: returning a new array (both sides allocate 256 MiB, whose first
touch alone costs tens of milliseconds) and writing into a preallocated ``out`` (``out=`` on both
sides). The NHWC rows read an NHWC-strided input (a transposed view, not a copy) and write NHWC,
the layout ``np.cumsum`` itself returns for it; the "-> packed" rows time the default packed NCHW
result of such an input against ``np.cumsum`` writing the same values into a new packed array
(``out=``): the same result in the same layout. Last, the front-end cost of
a call on a tiny (1, 1, 3, 4) tensor, where only the overhead counts: at most three times
``np.cumsum``'s on the same array.

Run: ``python benchmarks/cpu.py [--repeats N]`` (about three minutes on two cores, 1.5 GB of memory).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
import timeit
from collections.abc import Callable

import numpy as np

import stridelab as sl

SHAPE = (16, 64, 256, 256)
NHWC = (0, 2, 3, 1)  # memory order of an NHWC tensor, as indices into N, C, H, W
SPEEDUP = 5.0
SMALL_CALL = 3.0  # a (1, 1, 3, 4) call at most this many times np.cumsum's time
SAME = 1.0
WITHIN = 1 / 1.2
#: Run-to-run spread of these timings on a shared two-core machine; a ratio this close below its
#: goal is reported as "within noise" (both sides of such rows run the same NumPy loop).
NOISE = 0.05


def median_seconds(ours: Callable[[], object], theirs: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median seconds of each call, the two run alternately after one warm-up run each."""
    times: tuple[list[float], list[float]] = ([], [])
    for i in range(repeats + 1):
        for fn, record in ((ours, times[0]), (theirs, times[1])):
            start = time.perf_counter()
            fn()
            if i:
                record.append(time.perf_counter() - start)
    return statistics.median(times[0]), statistics.median(times[1])


def nhwc_tensor(sizes: tuple[int, ...]) -> sl.StridedTensor:
    return sl.StridedTensor.empty(sl.TensorDesc("FLOAT32", sizes, sl.layout_strides(NHWC, sizes)))


def cases(x: np.ndarray, x_nhwc: np.ndarray) -> list[tuple[str, Callable, Callable, float | None]]:
    """(name, stridelab call, NumPy call, goal ratio or None) for every row of the table."""
    out_nchw = sl.StridedTensor.empty(sl.TensorDesc("FLOAT32", SHAPE))
    out_nhwc = nhwc_tensor(SHAPE)
    numpy_nchw = np.empty(SHAPE, np.float32)
    numpy_nhwc = np.empty(tuple(SHAPE[i] for i in NHWC), np.float32).transpose(0, 3, 1, 2)
    rows = []
    for axis, letter in enumerate("NCHW"):
        goal = SAME if letter == "W" else SPEEDUP
        rows.append(
            (
                f"cumulative_summation NCHW axis {axis} ({letter}), new array",
                lambda axis=axis: sl.cumulative_summation(x, axis),
                lambda axis=axis: np.cumsum(x, axis),
                goal,
            )
        )
        rows.append(
            (
                f"cumulative_summation NCHW axis {axis} ({letter}), into out",
                lambda axis=axis: sl.cumulative_summation(x, axis, out=out_nchw),
                lambda axis=axis: np.cumsum(x, axis, out=numpy_nchw),
                goal,
            )
        )
    for axis, letter in enumerate("NCHW"):
        goal = SAME if letter == "C" else SPEEDUP
        rows.append(
            (
                f"cumulative_summation NHWC axis {axis} ({letter}), into NHWC out",
                lambda axis=axis: sl.cumulative_summation(x_nhwc, axis, out=out_nhwc),
                lambda axis=axis: np.cumsum(x_nhwc, axis, out=numpy_nhwc),
                goal,
            )
        )
    for axis, letter in enumerate("NCHW"):
        rows.append(
            (
                f"cumulative_summation NHWC axis {axis} ({letter}) -> packed, new array",
                lambda axis=axis: sl.cumulative_summation(x_nhwc, axis),
                lambda axis=axis: np.cumsum(x_nhwc, axis, out=np.empty(SHAPE, np.float32)),
                None,
            )
        )
    full = [0, 0, 0, 0]
    for strides, index in (((1, 2, 2, -2), np.s_[:, ::2, ::2, ::-2]), ((1, 1, 1, -1), np.s_[..., ::-1])):
        rows.append(
            (
                f"slice1 strides {strides}",
                lambda strides=strides: sl.slice1(x, full, SHAPE, strides),
                lambda index=index: np.ascontiguousarray(x[index]),
                WITHIN,
            )
        )
    rows.append(
        (
            "element_wise_identity NCHW -> NHWC",
            lambda: sl.element_wise_identity(x, out_nhwc),
            lambda: np.copyto(numpy_nhwc, x),
            WITHIN,
        )
    )
    rows.append(
        (
            "element_wise_identity NHWC -> NCHW",
            lambda: sl.element_wise_identity(x_nhwc, out_nchw),
            lambda: np.copyto(numpy_nchw, x_nhwc),
            WITHIN,
        )
    )
    return rows


def front_end_micros() -> tuple[float, float]:
    """Median microseconds of a (1, 1, 3, 4) cumulative summation and of np.cumsum on it."""
    tiny = np.array([[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]], np.float32)
    number = 2000

    def per_call(fn: Callable[[], object]) -> float:
        return statistics.median(timeit.repeat(fn, number=number, repeat=15)) / number * 1e6

    return per_call(lambda: sl.cumulative_summation(tiny, 3)), per_call(lambda: np.cumsum(tiny, 3))


def cpu_model() -> str:
    """The CPU's model name as lscpu reports it (Linux), else what the platform module knows."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per row (median reported)")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    x = rng.standard_normal(SHAPE, dtype=np.float32)
    x_nhwc = np.ascontiguousarray(x.transpose(NHWC)).transpose(0, 3, 1, 2)  # NCHW view of NHWC memory

    print(f"# stridelab NumPy backend, {SHAPE} float32, median of {args.repeats}")
    print(f"# {cpu_model()}, {os.cpu_count()} CPUs; numpy {np.__version__}, Python {platform.python_version()}")
    print()
    print("| operation | stridelab ms | NumPy ms | NumPy / stridelab | goal | met |")
    print("| --- | ---: | ---: | ---: | --- | --- |")
    for name, ours, theirs, goal in cases(x, x_nhwc):
        ours_s, theirs_s = median_seconds(ours, theirs, args.repeats)
        ratio = theirs_s / ours_s
        if goal is None:
            goal_text, met = "(layout change; no goal)", ""
        else:
            goal_text = f">= {goal:.2f}"
            met = "yes" if ratio >= goal else "within noise" if ratio >= goal * (1 - NOISE) else "**no**"
        print(f"| {name} | {ours_s * 1e3:.1f} | {theirs_s * 1e3:.1f} | {ratio:.2f} | {goal_text} | {met} |", flush=True)
    ours_us, numpy_us = front_end_micros()
    ratio = ours_us / numpy_us
    met = "met" if ratio <= SMALL_CALL else "**not met**"
    print()
    print(
        f"Front end: cumulative_summation on a (1, 1, 3, 4) float32 array: {ours_us:.1f} us per call "
        f"(np.cumsum: {numpy_us:.1f} us), {ratio:.2f} times np.cumsum's; goal <= {SMALL_CALL:.0f}: {met}."
    )


if __name__ == "__main__":
    main()
