"""Bounded searches for an element two descriptions share: a budget of steps, and the searches.

The question is one linear equation in bounded integers: ``sum(c[k] * v[k]) == target`` with
``low[k] <= v[k] <= high[k]`` (a :class:`Term` per unknown). :func:`solve` narrows every range
by the bounds of the others, enumerates all unknowns but the two with the widest ranges, and
solves those two for each choice at once by the extended Euclidean algorithm. :func:`scan`
instead enumerates one description's offsets and looks each up among the other's: decoded
where its strides nest, else found among its sorted offsets.

Both count their work in steps (one step: one choice of the enumerated unknowns, or one offset
enumerated, sorted or looked up) against a :class:`Work` budget, and stop with a
:class:`~stridelab.errors.LayoutError` that names the budget once it is spent.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from typing import Any, NamedTuple

import numpy as np

from .errors import LayoutError

__all__ = ["STEP_BUDGET", "Term", "Work", "last_search", "scan", "solve", "solve_cost", "tighten"]

#: The most steps one search takes before it refuses: about one second of work on a 2-core
#: machine, calibrated with ``python benchmarks/overlap.py`` on its slowest kind of step (one
#: choice enumerated by :func:`solve`); the figures are in benchmarks/RESULTS.md.
STEP_BUDGET = 5_000_000
#: Steps charged per candidate where offsets pass 2**62 and are worked out in Python ints (object
#: arrays): such a candidate costs about as much as this many ordinary steps in the benchmark.
WIDE_COST = 16
#: Steps charged per offset looked up among sorted offsets (a binary search, about twice as slow
#: as decoding one).
LOOKUP_COST = 2
#: Candidates worked out together (each chunk's steps are spent before it runs).
CHUNK = 1 << 16

_INT64_SAFE = 1 << 62
_TIGHTEN_ROUNDS = 64


class Work:
    """The steps one search has spent against its ``budget`` (default :data:`STEP_BUDGET`); ``what``
    it decides, for messages."""

    __slots__ = ("budget", "spent", "what")

    def __init__(self, what: str, budget: int | None = None) -> None:
        self.what, self.budget, self.spent = what, STEP_BUDGET if budget is None else budget, 0
        _last.set(self)

    def _refuse(self, needed: int) -> LayoutError:
        found = f"after {self.spent} steps without finding a shared element, " if self.spent else ""
        return LayoutError(
            f"{self.what} is not decided within the search budget of {self.budget} steps: {found}the search "
            f"needs {needed} more"
        )

    def spend(self, steps: int) -> None:
        """Take ``steps`` at once, or refuse where they are more than what is left."""
        if self.spent + steps > self.budget:
            raise self._refuse(steps)
        self.spent += steps

    def chunks(self, total: int, cost: int = 1) -> Iterator[tuple[int, int]]:
        """``(first, stop)`` ranges covering ``range(total)``, each paid for (``cost`` steps per
        candidate) before it is yielded; refuses once the budget cannot pay for the next one."""
        first = 0
        while first < total:
            allowed = (self.budget - self.spent) // cost
            if allowed <= 0:
                raise self._refuse((total - first) * cost)
            stop = min(total, first + CHUNK, first + allowed)
            self.spent += (stop - first) * cost
            yield first, stop
            first = stop


_last: ContextVar[Work | None] = ContextVar("stridelab_last_search", default=None)


def last_search() -> Work | None:
    """The :class:`Work` of the latest search in this context (for tests and benchmarks)."""
    return _last.get()


class Term(NamedTuple):
    """One unknown: ``coefficient * v`` with ``low <= v <= high`` (coefficient non-zero)."""

    coefficient: int
    low: int
    high: int


def _ceil_div(p: Any, q: Any) -> Any:  # ints, or int64 and object arrays alike
    return -((-p) // q)


def tighten(terms: Sequence[Term], target: int) -> list[Term] | None:
    """The ranges narrowed to values the other unknowns' bounds leave possible (exact: nothing
    that solves the equation is dropped); None where some range empties, so nothing solves it."""
    result = list(terms)
    for _ in range(_TIGHTEN_ROUNDS):
        lows = [min(t.coefficient * t.low, t.coefficient * t.high) for t in result]
        highs = [max(t.coefficient * t.low, t.coefficient * t.high) for t in result]
        total_low, total_high = sum(lows), sum(highs)
        changed = False
        for k, (t, low, high) in enumerate(zip(result, lows, highs)):
            # coefficient * v lies within target minus what the others can make up
            bottom, top = target - (total_high - high), target - (total_low - low)
            c = t.coefficient
            first, last = (_ceil_div(bottom, c), top // c) if c > 0 else (_ceil_div(top, c), bottom // c)
            first, last = max(first, t.low), min(last, t.high)
            if first > last:
                return None
            if (first, last) != (t.low, t.high):
                result[k], changed = Term(c, first, last), True
        if not changed:
            break
    return result


def _widths(terms: Sequence[Term]) -> list[int]:
    return [t.high - t.low + 1 for t in terms]


def solve_cost(terms: Sequence[Term]) -> int:
    """Choices :func:`solve` enumerates: the product of all ranges but the two widest."""
    return math.prod(sorted(_widths(terms))[:-2])


def _range_of_k(start: Any, step: int, low: int, high: int) -> tuple[Any, Any]:
    """The k with ``low <= start + k * step <= high`` (``step`` non-zero), as (first, last)."""
    if step > 0:
        return _ceil_div(low - start, step), (high - start) // step
    return _ceil_div(high - start, step), (low - start) // step


def _solve_last(terms: Sequence[Term], rest: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """For each ``rest``, whether the one or two ``terms`` make it up within their ranges, and the
    values that do (the smallest solution along the line of solutions)."""
    if len(terms) == 1:
        ((c, low, high),) = terms
        value = rest // c
        return (rest % c == 0) & (value >= low) & (value <= high), [value]
    (c1, low1, high1), (c2, low2, high2) = terms
    g, p, q = _extended_gcd(abs(c1), abs(c2))
    p, q = (p if c1 > 0 else -p), (q if c2 > 0 else -q)  # p * c1 + q * c2 == g
    m, r = rest // g, rest % g  # (np.divmod takes no object arrays)
    x0, y0, along_x, along_y = p * m, q * m, c2 // g, -(c1 // g)  # x0 + k * along_x, y0 + k * along_y
    first_x, last_x = _range_of_k(x0, along_x, low1, high1)
    first_y, last_y = _range_of_k(y0, along_y, low2, high2)
    first, last = np.maximum(first_x, first_y), np.minimum(last_x, last_y)
    return (r == 0) & (first <= last), [x0 + first * along_x, y0 + first * along_y]


def _extended_gcd(a: int, b: int) -> tuple[int, int, int]:
    """``(g, p, q)`` with ``p * a + q * b == g == gcd(a, b)``, for a, b > 0."""
    p0, q0, p1, q1 = 1, 0, 0, 1
    while b:
        quotient, a, b = a // b, b, a % b
        p0, p1 = p1, p0 - quotient * p1
        q0, q1 = q1, q0 - quotient * q1
    return a, p0, q0


def solve(terms: Sequence[Term], target: int, work: Work) -> list[int] | None:
    """Values ``low <= v[k] <= high`` with ``sum(coefficient[k] * v[k]) == target``, or None.

    Spends one step per choice of the unknowns enumerated (:func:`solve_cost`; ``WIDE_COST``
    each where the numbers pass 2**62), at least one.

    >>> solve([Term(3001, -2999, 2999), Term(2, -2999, 2999)], 1, Work("example"))
    [-1, 1501]
    """
    narrowed = tighten(terms, target)
    work.spend(1)
    if narrowed is None:
        return None
    if not narrowed:
        return [] if target == 0 else None
    order = sorted(range(len(narrowed)), key=lambda k: narrowed[k].high - narrowed[k].low)
    enumerated, last = order[:-2], order[-2:]
    widths = _widths([narrowed[k] for k in enumerated])
    reach = abs(target) + sum(abs(t.coefficient) * max(abs(t.low), abs(t.high)) for t in narrowed)
    wide = max(abs(t.coefficient) for t in narrowed) * reach >= _INT64_SAFE
    dtype = object if wide else np.int64
    for first, stop in work.chunks(math.prod(widths), WIDE_COST if wide else 1):
        index = np.arange(first, stop, dtype=np.int64)
        rest = np.full(stop - first, target, dtype=dtype)
        values = {}
        for k, n in zip(reversed(enumerated), reversed(widths)):  # the last enumerated varies fastest
            values[k] = (index % n).astype(dtype) + narrowed[k].low
            index //= n
            rest = rest - narrowed[k].coefficient * values[k]
        ok, solved = _solve_last([narrowed[k] for k in last], rest)
        values.update(zip(last, solved))
        hits = np.flatnonzero(ok)
        if hits.size:
            return [int(values[k][hits[0]]) for k in range(len(narrowed))]
    return None


def _offsets(sizes: Sequence[int], strides: Sequence[int], first: int, stop: int, wide: bool) -> np.ndarray:
    """Offsets of the elements ``first`` to ``stop - 1`` (row-major over ``sizes``)."""
    offsets = np.zeros(stop - first, dtype=object if wide else np.int64)
    index = np.arange(first, stop, dtype=np.int64)
    for n, s in zip(reversed(sizes), reversed(strides)):
        offsets += (index % n).astype(offsets.dtype) * s
        index //= n
    return offsets


def _steps(index: int, sizes: Sequence[int]) -> list[int]:
    """The steps along ``sizes`` of the element ``index`` in row-major order."""
    steps = []
    for n in reversed(sizes):
        index, step = divmod(index, n)
        steps.append(step)
    return steps[::-1]


def _decode(relative: np.ndarray, sizes: Sequence[int], strides: Sequence[int]) -> tuple[int, list[int]] | None:
    """The first of the ``relative`` offsets that is one of the offsets of dimensions whose strides
    nest (sorted by stride), as its index and its steps; None if there is none."""
    rest = relative.copy()
    valid = np.asarray(rest >= 0, dtype=bool)
    steps = []
    for n, s in zip(reversed(sizes), reversed(strides)):  # outermost first: each step is determined
        step = np.where(valid, rest // s, 0)
        valid &= np.asarray(step < n, dtype=bool)
        rest = rest - step * s
        steps.append(step)
    valid &= np.asarray(rest == 0, dtype=bool)
    hits = np.flatnonzero(valid)
    if not hits.size:
        return None
    k = int(hits[0])
    return k, [int(s[k]) for s in reversed(steps)]


def scan(
    ours: tuple[Sequence[int], Sequence[int]],
    shift: int,
    theirs: tuple[Sequence[int], Sequence[int]],
    nested: bool,
    work: Work,
) -> tuple[list[int], list[int]] | None:
    """Steps along ``ours`` and ``theirs`` (each ``(sizes, strides)``) of two elements at the same
    offset, ours moved by ``shift``; None where there are none.

    Our offsets are enumerated in chunks and looked up among theirs: decoded where their strides
    nest (``nested``, sorted by stride), else found in their sorted offsets, which costs one step
    per offset of theirs before the first chunk and ``LOOKUP_COST`` per offset of ours. One step
    per offset of ours decoded; ``WIDE_COST`` times as many past 2**62.
    """
    (sizes, strides), (their_sizes, their_strides) = ours, theirs
    count, their_count = math.prod(sizes), math.prod(their_sizes)
    top = sum((n - 1) * s for n, s in zip([*sizes, *their_sizes], [*strides, *their_strides]))
    wide = top + abs(shift) >= _INT64_SAFE
    cost = WIDE_COST if wide else 1
    if not nested:
        work.spend(their_count * cost)
        cost *= LOOKUP_COST
        known = _offsets(their_sizes, their_strides, 0, their_count, wide)
        order = np.argsort(known, kind="stable")
        known = known[order]
    for first, stop in work.chunks(count, cost):
        relative = _offsets(sizes, strides, first, stop, wide) + shift
        if nested:
            hit = _decode(relative, their_sizes, their_strides)
            if hit is not None:
                return _steps(first + hit[0], sizes), hit[1]
            continue
        at = np.minimum(np.searchsorted(known, relative), their_count - 1)
        hits = np.flatnonzero(known[at] == relative)
        if hits.size:
            k = int(hits[0])
            return _steps(first + k, sizes), _steps(int(order[at[k]]), their_sizes)
    return None
