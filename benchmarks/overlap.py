"""How long overlap searches take per step, and how long until a search past its budget refuses.

``stridelab._search.STEP_BUDGET`` is calibrated from this table: a search stops after at most that
many steps, which should be about one second for its slowest kind of step. The first rows time each
kind of step on problems with no solution (every stride even, the distance odd: the search goes
through every candidate, as it does where nothing is shared); the next ones run the public calls
at the real budget; the last ones are the issue's cases, now decided by arithmetic. Each row is the
median of ``--repeat`` runs.

Usage: python benchmarks/overlap.py [--repeat 5] [--steps 2000000]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Callable

import numpy as np

import stridelab as sl
from stridelab._search import STEP_BUDGET, Term, Work, last_search, scan, solve


def median_run(fn: Callable[[], object], repeat: int) -> tuple[float, int, str]:
    """Median seconds, the steps the last run spent, and how it ended."""
    times, outcome = [], ""
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            fn()
            outcome = "decided"
        except sl.LayoutError:
            outcome = "refused"
        times.append(time.perf_counter() - start)
    work = last_search()
    return statistics.median(times), work.spent if work else 0, outcome


def side(rank: int, count: int, stride: int) -> tuple[list[int], list[int]]:
    """``count`` elements in ``rank`` dimensions with even strides that nest (sorted by stride)."""
    n = round(count ** (1 / rank))
    sizes = [n] * (rank - 1) + [math.ceil(count / n ** (rank - 1))]
    strides, extent = [], 1
    for size in sizes:
        strides.append(stride * extent)
        extent *= size
    return sizes, strides


def kinds(steps: int) -> list[tuple[str, Callable[[int], object]]]:
    """Each kind of step, on a problem without a solution, taking ``steps`` steps (or the budget)."""
    width = round(steps ** (1 / 3))
    reach = 10**9  # the two solved by gcd can make up any even rest: narrowing the ranges leaves them
    solved = [Term(-2, -reach, reach), Term(2 * 7919, -reach, reach)]
    even = [Term(2 * 1009**k, 0, width - 1) for k in range(3)] + solved
    wide = [Term(t.coefficient * 2**31, t.low, t.high) for t in even]
    ours, theirs = side(3, steps, 2), side(3, steps, 2)
    big = 2**62
    return [
        ("solve: 3 enumerated, 2 by gcd", lambda budget: solve(even, 1, Work("solve", budget))),
        ("solve, past 2**62", lambda budget: solve(wide, 2**31, Work("solve", budget))),
        ("scan: decoded (theirs nest)", lambda budget: scan(ours, 1, theirs, True, Work("decode", budget))),
        ("scan: decoded, past 2**62", lambda budget: scan(ours, big + 1, theirs, True, Work("decode", budget))),
        (
            "scan: their offsets sorted",
            lambda budget: scan(ours, 1, side(3, steps // 4, 2), False, Work("sorted", budget)),
        ),
    ]


def issue_cases() -> list[tuple[str, Callable[[], object]]]:
    coprime = sl.TensorDesc("FLOAT32", (3000, 3000), (3001, 2))
    # 4001 = 2 * 2000 + 1: one row down is half a row across too many, so the two never meet
    rows = sl.TensorDesc("FLOAT32", (2000, 2000), (4001, 2))
    arena = np.zeros(rows.last_offset + 2, np.float32)
    source, target = sl.StridedTensor(rows, arena), sl.StridedTensor(rows, arena[1:])
    three = sl.TensorDesc("UINT8", (170, 170, 170), (160000, 1000, 3))
    other = sl.TensorDesc("UINT8", (170, 170, 170), (160001, 1001, 3))
    return [
        ("overlap (3000,3000):(3001,2), +1", lambda: sl.overlap(coprime, coprime, b_offset=1)),
        ("identity (2000,2000):(4001,2) into itself +1", lambda: sl.element_wise_identity(source, target)),
        ("overlap (170,)*3 against other strides, +2", lambda: sl.overlap(three, other, b_offset=2)),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--steps", type=int, default=2_000_000)
    args = parser.parse_args(argv)
    print(f"STEP_BUDGET = {STEP_BUDGET}; median of {args.repeat} runs")
    print(f"| {'case':46} | {'ends':8} | {'steps':>9} | {'seconds':>8} | ns/step |")
    print(f"|{'-' * 48}|{'-' * 10}|{'-' * 11}|{'-' * 10}|---------|")

    def row(case: str, fn: Callable[[], object]) -> None:
        seconds, steps, outcome = median_run(fn, args.repeat)
        per_step = f"{1e9 * seconds / steps:7.1f}" if steps > 1000 else "      -"
        print(f"| {case:46} | {outcome:8} | {steps:9} | {seconds:8.4f} | {per_step} |")

    for case, fn in kinds(args.steps):
        row(f"{case}", lambda fn=fn: fn(args.steps * 10))
    for case, fn in kinds(2 * STEP_BUDGET):
        row(f"{case}, at the budget", lambda fn=fn: fn(STEP_BUDGET))
    for case, call in issue_cases():
        row(case, call)


if __name__ == "__main__":
    main()
