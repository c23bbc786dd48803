"""How fast overlap is decided for large layouts whose strides do not nest, against a reference.

Each row times one decision (median of ``--repeat`` runs) beside a reference that answers the same
question in the same run: for a description's own overlap, counting its distinct offsets with
``np.unique`` (what an enumeration costs); for two descriptions over one buffer,
``np.shares_memory(max_work=None)`` (exact) on the equivalent NumPy views; for an operator writing
an output interleaved with its input, the same call into a fresh packed output. Goal: under 1 s for
each decision.

Usage: python benchmarks/overlap.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import stridelab as sl
from stridelab._analysis import logical_offsets


def median_s(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def distinct_offsets(desc: sl.TensorDesc) -> int:
    return np.unique(logical_offsets(desc.sizes, desc.strides)).size


def view(buffer: np.ndarray, desc: sl.TensorDesc, start: int) -> np.ndarray:
    byte_strides = [s * buffer.itemsize for s in desc.strides]
    return np.lib.stride_tricks.as_strided(buffer[start:], desc.sizes, byte_strides)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args(argv).repeat
    coprime = sl.TensorDesc("FLOAT32", (3000, 3000), (3001, 2))
    colliding = sl.TensorDesc("FLOAT32", (3000, 3000), (2999, 2))
    every_other = sl.TensorDesc("FLOAT32", (3000, 3000), (6000, 2))
    nhwc_pairs = sl.TensorDesc("FLOAT16", (8, 64, 128, 128), (2097152, 2, 16384, 128))
    arena32 = np.zeros(2 * 3000 * 3000, np.float32)
    arena16 = np.zeros(nhwc_pairs.last_offset + 2, np.float16)
    x = np.ones((3000, 3000), np.float32)
    out = sl.StridedTensor(coprime, np.zeros(coprime.last_offset + 1, np.float32))
    packed = sl.StridedTensor(sl.TensorDesc("FLOAT32", (3000, 3000)), np.zeros(9_000_000, np.float32))

    rows = [
        ("is_overlapping (3000,3000):(3001,2)", "no", lambda: coprime.replace().is_overlapping,
         "np.unique of its offsets", lambda: distinct_offsets(coprime)),
        ("is_overlapping (3000,3000):(2999,2)", "yes", lambda: colliding.replace().is_overlapping,
         "np.unique of its offsets", lambda: distinct_offsets(colliding)),
        ("overlap (3000,3000):(6000,2), +1", "no", lambda: sl.overlap(every_other, every_other, b_offset=1),
         "np.shares_memory", lambda: np.shares_memory(view(arena32, every_other, 0), view(arena32, every_other, 1),
                                                      max_work=None)),
        ("overlap FLOAT16 NHWC pairs, +1", "no", lambda: sl.overlap(nhwc_pairs, nhwc_pairs, b_offset=1),
         "np.shares_memory", lambda: np.shares_memory(view(arena16, nhwc_pairs, 0), view(arena16, nhwc_pairs, 1),
                                                      max_work=None)),
        ("cumulative_summation into (3001,2)", "runs", lambda: sl.cumulative_summation(x, 1, out=out),
         "into a packed output", lambda: sl.cumulative_summation(x, 1, out=packed)),
    ]  # fmt: skip
    print(f"median of {repeat} runs; the first column's call builds a new description (no cached facts)")
    print(f"| {'case':38} | answer | {'seconds':>9} | {'reference':26} | {'seconds':>9} | ratio |")
    print(f"|{'-' * 40}|--------|{'-' * 11}|{'-' * 28}|{'-' * 11}|-------|")
    for case, answer, ours, reference, theirs in rows:
        ours_s, theirs_s = median_s(ours, repeat), median_s(theirs, repeat)
        print(
            f"| {case:38} | {answer:6} | {ours_s:9.6f} | {reference:26} | {theirs_s:9.6f} | {ours_s / theirs_s:5.3g} |"
        )


if __name__ == "__main__":
    main()
