"""NumPy-backend timings of stridelab's operators beside the plain NumPy equivalent, in one run.

For a (16, 64, 256, 256) float32 tensor (256 MiB), prints one Markdown table: the median time of
each operator on one thread and on the threads stridelab takes by default (``--threads``), the
median time of what NumPy itself offers for the same result, the ratios (NumPy / stridelab: above
1 means stridelab is faster) and the goals from the operators' issues:

* cumulative summation at least 5 times faster than ``np.cumsum`` on the same array and axis
  along every axis but the one innermost in the input's memory (W for NCHW, C for NHWC), and no
  slower along that one on one thread;
* slices and copies within 1.2 times of NumPy (ratio at least 1 / 1.2) on one thread;
* on several threads, the rows whose goal on one thread is to match NumPy (the innermost axis,
  slices, copies) at least 1.3 times faster than NumPy, except where one thread already moves
  memory about as fast as a packed copy does (the "packed copy" row, timed in the same run): such
  a row is bandwidth-bound, and its goal is to be no slower than on one thread.

The three calls of a row run in turn, so that a busy machine slows all alike. Cumulative
summations are timed twice: returning a new array (both sides allocate 256 MiB, whose first
touch alone costs tens of milliseconds) and writing into a preallocated ``out`` (``out=`` on both
sides). The NHWC rows read an NHWC-strided input (a transposed view, not a copy) and write NHWC,
the layout ``np.cumsum`` itself returns for it; the "-> packed" rows time the default packed NCHW
result of such an input against ``np.cumsum`` writing the same values into a new packed array
(``out=``): the same result in the same layout. "GB/s" counts the bytes of the result twice (read
once, written once). Last, the front-end cost of a call on a tiny (1, 1, 3, 4) tensor, where only
the overhead counts: at most three times ``np.cumsum``'s on the same array.

Run: ``python benchmarks/cpu.py [--repeats N] [--threads N]`` (about four minutes on two cores,
1.5 GB of memory).
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
THREADED = 1.3  # on several threads, where the one-thread goal is SAME or WITHIN
#: A row moving at least this fraction of the packed copy's bytes per second on one thread is
#: bandwidth-bound.
BANDWIDTH_BOUND = 0.75
#: Run-to-run spread of these timings on a shared two-core machine; a ratio this close below its
#: goal is reported as "within noise" (both sides of such rows run the same NumPy loop).
NOISE = 0.05


def median_seconds(calls: list[Callable[[], object]], repeats: int) -> list[float]:
    """Median seconds of each call, the calls run in turn after one warm-up run each."""
    times: list[list[float]] = [[] for _ in calls]
    for i in range(repeats + 1):
        for fn, record in zip(calls, times):
            start = time.perf_counter()
            fn()
            if i:
                record.append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def nhwc_tensor(sizes: tuple[int, ...]) -> sl.StridedTensor:
    return sl.StridedTensor.empty(sl.TensorDesc("FLOAT32", sizes, sl.layout_strides(NHWC, sizes)))


def cases(x: np.ndarray, x_nhwc: np.ndarray) -> list[tuple[str, Callable, Callable, float | None]]:
    """(name, stridelab call, NumPy call, goal ratio or None) for every row of the table."""
    out_packed = sl.StridedTensor.empty(sl.TensorDesc("FLOAT32", SHAPE))
    out_nchw = sl.StridedTensor.empty(sl.TensorDesc("FLOAT32", SHAPE))
    out_nhwc = nhwc_tensor(SHAPE)
    numpy_nchw = np.empty(SHAPE, np.float32)
    numpy_nhwc = np.empty(tuple(SHAPE[i] for i in NHWC), np.float32).transpose(0, 3, 1, 2)
    rows: list[tuple[str, Callable, Callable, float | None]] = [
        (
            "packed copy (element_wise_identity NCHW -> NCHW)",
            lambda: sl.element_wise_identity(x, out_packed),
            lambda: np.copyto(numpy_nchw, x),
            WITHIN,
        )
    ]
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


def row_text(name: str, seconds: list[float], goal: float | None, packed_gbs: float, nbytes: int) -> str:
    """A row of the table from the median seconds of (one thread, threads, NumPy)."""
    one, many, theirs = seconds
    gbs = nbytes / one / 1e9
    if goal is None:
        goal_text, met = "(layout change; no goal)", ""
    elif goal == SPEEDUP:
        goal_text, met = f"NumPy / threads >= {goal:.2f}", verdict(theirs / many, goal)
    else:
        one_text = f"NumPy / 1 thread >= {goal:.2f}: {verdict(theirs / one, goal)}"
        if gbs >= BANDWIDTH_BOUND * packed_gbs:
            goal_text, met = f"{one_text}; bandwidth-bound: threads no slower", verdict(one / many, SAME)
        else:
            goal_text, met = f"{one_text}; NumPy / threads >= {THREADED:.2f}", verdict(theirs / many, THREADED)
    return (
        f"| {name} | {one * 1e3:.1f} | {many * 1e3:.1f} | {theirs * 1e3:.1f} | {theirs / one:.2f} | "
        f"{theirs / many:.2f} | {gbs:.1f} | {goal_text} | {met} |"
    )


def verdict(ratio: float, goal: float) -> str:
    return "yes" if ratio >= goal else "within noise" if ratio >= goal * (1 - NOISE) else "**no**"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per row (median reported)")
    parser.add_argument(
        "--threads", type=int, default=None, help="threads for the threaded column (default: stridelab's)"
    )
    args = parser.parse_args()
    threads = sl.threads(args.threads).count

    rng = np.random.default_rng(0)
    x = rng.standard_normal(SHAPE, dtype=np.float32)
    x_nhwc = np.ascontiguousarray(x.transpose(NHWC)).transpose(0, 3, 1, 2)  # NCHW view of NHWC memory

    print(f"# stridelab NumPy backend, {SHAPE} float32, median of {args.repeats}, 1 and {threads} threads")
    print(f"# {cpu_model()}, {os.cpu_count()} CPUs; numpy {np.__version__}, Python {platform.python_version()}")
    print()
    columns = "1 thread ms | threads ms | NumPy ms | NumPy / 1 thread | NumPy / threads | GB/s, 1 thread"
    print(f"| operation | {columns} | goal | met |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    packed_gbs = 0.0
    for name, ours, theirs, goal in cases(x, x_nhwc):
        seconds = median_seconds([in_threads(ours, 1), in_threads(ours, threads), theirs], args.repeats)
        nbytes = 2 * x.nbytes if "slice1" not in name else 2 * np.asarray(ours()).nbytes
        packed_gbs = packed_gbs or nbytes / seconds[0] / 1e9  # the first row is the packed copy
        print(row_text(name, seconds, goal, packed_gbs, nbytes), flush=True)
    ours_us, numpy_us = front_end_micros()
    ratio = ours_us / numpy_us
    met = "met" if ratio <= SMALL_CALL else "**not met**"
    print()
    print(
        f"Front end: cumulative_summation on a (1, 1, 3, 4) float32 array: {ours_us:.1f} us per call "
        f"(np.cumsum: {numpy_us:.1f} us), {ratio:.2f} times np.cumsum's; goal <= {SMALL_CALL:.0f}: {met}."
    )


def in_threads(fn: Callable[[], object], n: int) -> Callable[[], object]:
    def call() -> object:
        with sl.threads(n):
            return fn()

    return call


if __name__ == "__main__":
    main()
