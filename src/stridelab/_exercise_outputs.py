"""The checkers of exercises whose answer is an operator's output: SLICE1 and cumulative summation.

internal: public as ``stridelab.exercises.check_slice1`` and ``check_cumulative_summation``.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._feedback import Feedback, not_a, reminder, wrong
from ._validate import int_tuple

__all__: list[str] = []


def _same(given: np.ndarray, expected: np.ndarray | None) -> bool:
    return expected is not None and given.shape == expected.shape and bool(np.array_equal(given, expected))


def _read_output(answer: Any) -> np.ndarray | Feedback:
    """An output answer as float64 numbers, or the reply to an answer that is no nested lists of
    real numbers (a lone number, text, complex numbers, ragged lists, other objects)."""
    try:
        given = np.asarray(answer)
    except (ValueError, TypeError, OverflowError):  # ragged lists, or objects no array holds
        given = None
    if given is None or given.dtype.kind not in "biuf" or given.ndim == 0:
        real = ", real ones" if given is not None and given.dtype.kind == "c" else ""
        return not_a(f"the output as nested lists of numbers{real}", answer)
    return given.astype(np.float64)


def _mismatch(given: np.ndarray, expected: np.ndarray, rule: str) -> Feedback:
    """The reply to an output with no mistake recognised: its shape, else how many outputs differ,
    where the first is, and ``rule``."""
    if given.shape != expected.shape:
        return wrong(
            f"the output has {expected.ndim} dimensions of sizes {list(expected.shape)}, not {list(given.shape)}"
        )
    differing = np.argwhere(given != expected)
    first = ", ".join(str(int(i)) for i in differing[0])
    differ = "differs" if len(differing) == 1 else "differ"
    return wrong(f"{len(differing)} of {expected.size} outputs {differ}, the first at output[{first}]; {rule}")


def check_slice1(
    answer: Any, x: Any, window_offsets: Sequence[int], window_sizes: Sequence[int], window_strides: Sequence[int]
) -> Feedback:
    """Check the output of :func:`stridelab.slice1` with these parameters.

    Recognises: a window's end off by one (one element too many or too few), negative strides
    read from the window's start instead of its end, and otherwise where the first wrong output is.

    >>> import numpy as np
    >>> x = np.arange(6, dtype=np.float32).reshape(2, 3)
    >>> check_slice1([[1, 2]], x, (0, 1), (1, 2), (1, 1))
    right: the output the operator writes
    """
    from .ops import slice1

    def run(sizes: Sequence[int], strides: Sequence[int]) -> np.ndarray | None:
        try:
            return np.asarray(slice1(x, window_offsets, sizes, strides).tolist(), dtype=np.float64)
        except ValueError:  # a LayoutError: that variant is no valid window
            return None

    # the parameters themselves are checked as slice1 checks them (a LayoutError or TypeError)
    expected = np.asarray(slice1(x, window_offsets, window_sizes, window_strides).tolist(), dtype=np.float64)
    if answer is ...:
        return reminder("the output as nested lists of numbers")
    answer = _read_output(answer)
    if isinstance(answer, Feedback):
        return answer
    if _same(answer, expected):
        return Feedback(True, "the output the operator writes")
    sizes, strides = list(int_tuple("window_sizes", window_sizes)), list(int_tuple("window_strides", window_strides))
    negative = [i for i, stride in enumerate(strides) if stride < 0]
    for flipped in (f for count in range(1, len(negative) + 1) for f in itertools.combinations(negative, count)):
        if _same(answer, run(sizes, [-s if i in flipped else s for i, s in enumerate(strides)])):
            named = " and ".join(f"window_strides[{i}]" for i in flipped)
            those = "that dimension is" if len(flipped) == 1 else "those dimensions are"
            verb = "is" if len(flipped) == 1 else "are"
            return wrong(f"{named} {verb} negative: {those} copied from the window's end backwards")
    for i in range(len(sizes)):
        for step in (-1, 1):
            if _same(answer, run([*sizes[:i], sizes[i] + step, *sizes[i + 1 :]], strides)):
                return wrong(
                    f"the window's end along dimension {i} is off by one: it covers window_offsets[{i}] to "
                    f"window_offsets[{i}] + window_sizes[{i}] - 1"
                )
    return _mismatch(answer, expected, "output[o] = input[start + window_strides * o]")


def check_cumulative_summation(
    answer: Any, x: Any, axis: int, *, direction: str = "increasing", exclusive: bool = False
) -> Feedback:
    """Check the output of :func:`stridelab.cumulative_summation` with these parameters.

    Recognises: an exclusive sum given for an inclusive one (or the reverse), the direction
    reversed, the sum along another axis, and otherwise where the first wrong output is.

    >>> import numpy as np
    >>> x = np.arange(6, dtype=np.float32).reshape(2, 3)
    >>> check_cumulative_summation([[0, 1, 3], [3, 7, 12]], x, 1)
    right: the output the operator writes
    >>> check_cumulative_summation([[0, 0, 1], [0, 3, 7]], x, 1)
    not yet: this sum is inclusive: each output adds its own element
    """
    from .ops import cumulative_summation

    def run(axis: int, direction: str, exclusive: bool) -> np.ndarray:
        result = cumulative_summation(x, axis, direction=direction, exclusive=exclusive)
        return np.asarray(result.tolist(), dtype=np.float64)

    expected = run(axis, direction, exclusive)
    if answer is ...:
        return reminder("the output as nested lists of numbers")
    answer = _read_output(answer)
    if isinstance(answer, Feedback):
        return answer
    if _same(answer, expected):
        return Feedback(True, "the output the operator writes")
    if _same(answer, run(axis, direction, not exclusive)):
        kind = (
            "exclusive: each output leaves its own element out"
            if exclusive
            else "inclusive: each output adds its own element"
        )
        return wrong(f"this sum is {kind}")
    other = "decreasing" if direction.strip().lower().endswith("increasing") else "increasing"
    if _same(answer, run(axis, other, exclusive)):
        first = "first" if other == "decreasing" else "last"
        return wrong(f"that runs the other way: this sum runs {direction}, from the {first} element")
    along = operator.index(axis) % expected.ndim
    for elsewhere in (a for a in range(expected.ndim) if a != along and expected.shape[a] > 1):
        if _same(answer, run(elsewhere, direction, exclusive)):
            return wrong(f"that sums along axis {elsewhere}; this sum runs along axis {axis}")
    own = "before its own" if exclusive else "up to and including its own"
    return _mismatch(answer, expected, f"each output sums the elements {own} along axis {axis}")
