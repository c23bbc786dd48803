"""How long ``stridelab.check_layouts`` takes, and how much of that is the sanitizer's own work.

For a (2, 3, 4, 5) and an (8, 64, 56, 56) float32 input, checking ``np.cumsum(x, axis=1)`` (and
``cupy.cumsum`` on the GPU, where CuPy and a usable GPU are present), prints one Markdown table:

* layouts: the layouts tried (rows of the report);
* calls: the calls of the function the check made (two per layout, with different poisons and
  sentinels, and two packed reference calls per broadcast pattern), counted by a wrapper;
* check: the median time of the whole ``check_layouts`` call;
* function: the median time of one call of the function on the packed input (a GPU call is timed
  up to its end, synchronised);
* overhead per call: check / calls - function, what the sanitizer adds to each call (building
  the poisoned buffers, the snapshots before and after, the comparisons);
* check / bare calls: check / (calls x function), how many times the bare calls' time the check takes.

The check and the bare calls of a row are timed alternately, so that a busy machine slows both alike.

Run: ``python benchmarks/sanitizer.py [--repeats N]`` (about a minute on two cores, 0.5 GB of memory).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
import timeit
from collections.abc import Callable
from typing import Any

import numpy as np
from cpu import cpu_model  # benchmarks/cpu.py, beside this script

import stridelab as sl

SHAPES = ((2, 3, 4, 5), (8, 64, 56, 56))
AXIS = 1


class Counted:
    """``fn``, counting its calls."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn, self.calls = fn, 0
        self.__qualname__ = getattr(fn, "__qualname__", "fn")

    def __call__(self, *args: Any) -> Any:
        self.calls += 1
        return self.fn(*args)


def bare_seconds(fn: Callable[[], object]) -> float:
    """Seconds per call of ``fn``, from as many calls as fill about 0.2 s."""
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    return timer.timeit(number) / number


def measure(fn: Callable[[Any], Any], x: Any, sync: Callable[[], None], repeats: int) -> dict[str, Any]:
    """The columns of one row: the check of ``fn`` on ``x`` and ``fn``'s own time, alternately."""
    counted = Counted(fn)
    check = sl.check_layouts(counted, x)  # also the warm-up: imports, kernel compilation, the allocator

    def bare() -> None:
        fn(x)
        sync()

    checks, calls = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        sl.check_layouts(fn, x)
        sync()
        checks.append(time.perf_counter() - start)
        calls.append(bare_seconds(bare))
    total, one = statistics.median(checks), statistics.median(calls)
    return {
        "layouts": len(check.rows),
        "calls": counted.calls,
        "ok": check.ok,
        "check": total,
        "function": one,
        "overhead": total / counted.calls - one,
        "ratio": total / (counted.calls * one),
    }


def milliseconds(seconds: float) -> str:
    return f"{seconds * 1e3:.3g}"


def row(backend: str, shape: tuple[int, ...], result: dict[str, Any]) -> str:
    verdict = "" if result["ok"] else " (the check failed: the figures time a failing report)"
    cells = [
        f"{backend} cumsum axis {AXIS}",
        "x".join(map(str, shape)),
        str(result["layouts"]),
        str(result["calls"]),
        milliseconds(result["check"]),
        milliseconds(result["function"]),
        milliseconds(result["overhead"]),
        f"{result['ratio']:.1f}{verdict}",
    ]
    return "| " + " | ".join(cells) + " |"


def cupy_or_why() -> tuple[Any, str | None]:
    """The cupy module where a usable GPU is present, else None and why not."""
    try:
        import cupy
    except ImportError as error:
        return None, f"CuPy is not importable ({error})"
    try:
        if cupy.is_available():
            return cupy, None
        return None, "CuPy sees no usable CUDA GPU"
    except Exception as error:  # a broken CUDA install is the same as none here
        return None, f"CuPy's CUDA is unusable ({type(error).__name__}: {error})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed checks per row (median reported)")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error(f"--repeats = {args.repeats}: it must be at least 1")

    cupy, why = cupy_or_why()
    print(f"# stridelab.check_layouts, float32 inputs, median of {args.repeats}")
    print(f"# {cpu_model()}, {os.cpu_count()} CPUs; numpy {np.__version__}, Python {platform.python_version()}")
    if cupy is not None:
        name = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
        print(f"# GPU: {name}, CuPy {cupy.__version__}")
    print()
    print("| function | shape | layouts | calls | check ms | function ms | overhead ms per call | check / bare calls |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    rng = np.random.default_rng(0)
    for shape in SHAPES:
        x = rng.standard_normal(shape, dtype=np.float32)
        print(row("np", shape, measure(lambda a: np.cumsum(a, axis=AXIS), x, lambda: None, args.repeats)), flush=True)
        if cupy is not None:
            sync = cupy.cuda.Device().synchronize
            fn = lambda a: cupy.cumsum(a, axis=AXIS)  # noqa: E731
            print(row("cupy", shape, measure(fn, cupy.asarray(x), sync, args.repeats)), flush=True)
    if cupy is None:
        print()
        print(f"CuPy rows skipped: {why}.")


if __name__ == "__main__":
    main()
