"""Predict, then check: the checkers of the tutorials' exercises.

A student works an answer out by hand (an offset, strides, a buffer size, an operator's output)
and hands it to a checker. The checker compares it with what stridelab computes and says
``right``, or names the mistake it recognises (bytes given for elements, NCHW and NHWC swapped,
the 4-byte rounding forgotten, a window's end off by one, a negative stride's sign, row-major and
column-major swapped) without printing the answer. An answer still left as ``...`` (the
notebooks' placeholder) is met with a reminder of what to write.

>>> from stridelab import TensorDesc
>>> dhw = TensorDesc("UINT8", (2, 2, 3))           # the strides page's DHW example
>>> check_offset(7, dhw, (1, 0, 1))                # element H
right: element (1, 0, 1) is at offset 7
>>> check_offset(9, dhw, (1, 0, 1)).correct
False
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._strides import calc_buffer_tensor_size, layout_strides
from ._validate import int_tuple, shown
from .desc import TensorDesc
from .dtypes import data_type as _data_type
from .errors import LayoutError

__all__ = [
    "Feedback",
    "check_buffer_size",
    "check_cumulative_summation",
    "check_offset",
    "check_slice1",
    "check_strides",
]


@dataclass(frozen=True)
class Feedback:
    """A checker's verdict: ``correct``, and a message that never gives the answer away."""

    correct: bool
    message: str

    def __bool__(self) -> bool:
        return self.correct

    def __repr__(self) -> str:
        return f"{'right' if self.correct else 'not yet'}: {self.message}"

    __str__ = __repr__


def _wrong(message: str) -> Feedback:
    return Feedback(False, message)


def _reminder(what: str) -> Feedback:
    """The reply to an answer still left as the exercise's ``...`` placeholder."""
    return _wrong(f"replace ... with your answer: {what}")


def _not_a(what: str, answer: Any) -> Feedback:
    """The reply to an answer of the wrong type: what to give instead."""
    return _wrong(f"give {what}, not {type(answer).__name__} {shown(answer)}")


def _integer(answer: Any) -> int | None:
    """``answer`` as a Python int, or None for anything that is not an integer (bools included)."""
    if isinstance(answer, (bool, np.bool_)):
        return None
    try:
        return operator.index(answer)
    except TypeError:
        return None


def check_offset(answer: Any, desc: TensorDesc, coords: Sequence[int]) -> Feedback:
    """Check the buffer offset (in elements) of the element at ``coords`` of ``desc``.

    Recognises: the byte offset given, and the dimensions taken in the opposite order (row-major
    and column-major swapped).
    """
    coords = int_tuple("coords", coords)
    expected = desc.offset_of(coords)
    if answer is ...:
        return _reminder("an offset, in elements")
    given = _integer(answer)
    if given is None:
        return _not_a("the offset as an integer (a count of elements)", answer)
    answer = given
    if answer == expected:
        return Feedback(True, f"element {coords} is at offset {expected}")
    if desc.element_size > 1 and answer == expected * desc.element_size:
        return _wrong("that is the offset in bytes; DirectML strides, and so offsets, count elements")
    row_major = layout_strides(tuple(range(desc.dimension_count)), desc.sizes)
    column_major = layout_strides(tuple(reversed(range(desc.dimension_count))), desc.sizes)
    swapped = {row_major: column_major, column_major: row_major}.get(desc.strides)
    if swapped is not None and answer == sum(c * s for c, s in zip(coords, swapped)):
        return _wrong("that takes the dimensions in the opposite order (row-major and column-major swapped)")
    return _wrong(f"the offset is the dot product of the coordinates {coords} with the strides {desc.strides}")


def check_strides(answer: Any, sizes: Sequence[int], layout: str | Sequence[int], *, data_type: Any = None) -> Feedback:
    """Check packed ``strides`` for ``sizes`` stored in ``layout`` (a memory order such as
    ``"NHWC"`` or ``"WH"``, outermost first, or a permutation of dimension indices such as
    ``(1, 0)``; see :func:`~stridelab.layout_strides`).

    Recognises: NCHW and NHWC swapped, the opposite order (row-major and column-major swapped),
    and, with ``data_type``, strides given in bytes.
    """
    sizes = int_tuple("sizes", sizes)
    expected = layout_strides(layout, sizes)
    if answer is ...:
        return _reminder("a tuple of strides, in elements, one per dimension")
    one_each = _wrong(f"give one stride per dimension: sizes {list(sizes)} has {len(sizes)}")
    try:
        answer = int_tuple("answer", answer)
    except TypeError:
        return _not_a("the strides as a tuple of integers, one per dimension", answer)
    except LayoutError:  # more entries than any tensor has dimensions
        return one_each
    if len(answer) != len(sizes):
        return one_each
    name = layout if isinstance(layout, str) else f"layout {list(layout)}"
    if answer == expected:
        return Feedback(True, f"{name} strides of sizes {list(sizes)}")
    if data_type is not None:
        size = _data_type(data_type).element_size
        if size > 1 and answer == tuple(s * size for s in expected):
            return _wrong("those are byte strides; DirectML strides count elements")
    if isinstance(layout, str):
        swapped = {"NCHW": "NHWC", "NHWC": "NCHW", "NCDHW": "NDHWC", "NDHWC": "NCDHW"}.get(layout.upper())
        if swapped and answer == layout_strides(swapped, sizes):
            return _wrong(f"those are the {swapped} strides: in {layout} the channels are stored as its letters say")
        reversed_layout: str | tuple[int, ...] = layout[::-1]
        innermost = layout[-1]
    else:
        reversed_layout = tuple(reversed(int_tuple("layout", layout)))
        innermost = f"dimension {reversed_layout[0]}"
    if answer == layout_strides(reversed_layout, sizes) and len(sizes) > 1:
        return _wrong("those store the dimensions in the opposite order (row-major and column-major swapped)")
    return _wrong(
        f"the innermost dimension ({innermost}) has stride 1; each dimension outside it strides over all inside"
    )


def check_buffer_size(
    answer: Any, data_type: Any, sizes: Sequence[int], strides: Sequence[int] | None = None
) -> Feedback:
    """Check the buffer size in bytes, as DMLCalcBufferTensorSize computes it.

    Recognises: elements given for bytes, the 4-byte rounding forgotten, and the logical element
    count used where padding or broadcasting makes the buffer differ from it.
    """
    desc = TensorDesc(data_type, sizes, strides)
    expected = calc_buffer_tensor_size(data_type, sizes, strides)
    if answer is ...:
        return _reminder("a size in bytes")
    given = _integer(answer)
    if given is None:
        return _not_a("the size as an integer (a count of bytes)", answer)
    answer = given
    if answer == expected:
        return Feedback(True, f"the buffer takes {expected} bytes")
    span = desc.last_offset + 1  # elements from offset 0 to the last element's, inclusive
    if answer == span * desc.element_size:
        return _wrong("the 4-byte rounding is forgotten: DirectML rounds buffer sizes up to a multiple of 4 bytes")
    if answer in (span, -(-span * desc.element_size // 4) * 4 // desc.element_size) and desc.element_size > 1:
        return _wrong("that counts elements; the buffer size is in bytes")
    if answer in (desc.element_count * desc.element_size, -(-desc.element_count * desc.element_size // 4) * 4):
        return _wrong("that counts the logical elements; the buffer runs from offset 0 to the last element's offset")
    return _wrong(
        "the buffer runs from offset 0 to the last element's offset (the dot product of sizes - 1 and strides)"
    )


def _same(given: np.ndarray, expected: np.ndarray) -> bool:
    return given.shape == expected.shape and bool(np.array_equal(given, expected))


def _read_output(answer: Any) -> np.ndarray | Feedback:
    """An output answer as float64 numbers, or the reply to an answer that is no nested lists of
    real numbers (text, complex numbers, ragged lists, other objects)."""
    try:
        given = np.asarray(answer)
    except (ValueError, TypeError, OverflowError):  # ragged lists, or objects no array holds
        given = None
    if given is None or given.dtype.kind not in "biuf":
        real = ", real ones" if given is not None and given.dtype.kind == "c" else ""
        return _not_a(f"the output as nested lists of numbers{real}", answer)
    return given.astype(np.float64)


def _shape_error(given: np.ndarray, expected: np.ndarray) -> Feedback | None:
    if given.shape != expected.shape:
        return _wrong(
            f"the output has {expected.ndim} dimensions of sizes {list(expected.shape)}, not {list(given.shape)}"
        )
    return None


def check_slice1(
    answer: Any,
    x: Any,
    window_offsets: Sequence[int],
    window_sizes: Sequence[int],
    window_strides: Sequence[int],
) -> Feedback:
    """Check the output of :func:`stridelab.slice1` with these parameters.

    Recognises: a window's end off by one (one element too many or too few), and a negative
    stride read from the window's start instead of its end.
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
        return _reminder("the output as nested lists of numbers")
    answer = _read_output(answer)
    if isinstance(answer, Feedback):
        return answer
    shape_error = _shape_error(answer, expected)
    if _same(answer, expected):
        return Feedback(True, "the output the operator writes")
    sizes, strides = list(int_tuple("window_sizes", window_sizes)), list(int_tuple("window_strides", window_strides))
    for i, stride in enumerate(strides):
        if stride < 0:
            flipped = run(sizes, [*strides[:i], -stride, *strides[i + 1 :]])
            if flipped is not None and _same(answer, flipped):
                return _wrong(
                    f"window_strides[{i}] is negative: that dimension is copied from the window's end backwards"
                )
    for i in range(len(sizes)):
        for step in (-1, 1):
            shorter = run([*sizes[:i], sizes[i] + step, *sizes[i + 1 :]], strides)
            if shorter is not None and _same(answer, shorter):
                return _wrong(
                    f"the window's end along dimension {i} is off by one: it covers window_offsets[{i}] to "
                    f"window_offsets[{i}] + window_sizes[{i}] - 1"
                )
    if shape_error is not None:
        return shape_error
    return _wrong("output[o] = input[start + window_strides * o]: check the elements the window reaches")


def check_cumulative_summation(
    answer: Any, x: Any, axis: int, *, direction: str = "increasing", exclusive: bool = False
) -> Feedback:
    """Check the output of :func:`stridelab.cumulative_summation` with these parameters.

    Recognises: an exclusive sum given for an inclusive one (or the reverse), and the direction
    reversed.
    """
    from .ops import cumulative_summation

    def run(direction: str, exclusive: bool) -> np.ndarray:
        result = cumulative_summation(x, axis, direction=direction, exclusive=exclusive)
        return np.asarray(result.tolist(), dtype=np.float64)

    expected = run(direction, exclusive)
    if answer is ...:
        return _reminder("the output as nested lists of numbers")
    answer = _read_output(answer)
    if isinstance(answer, Feedback):
        return answer
    shape_error = _shape_error(answer, expected)
    if _same(answer, expected):
        return Feedback(True, "the output the operator writes")
    if _same(answer, run(direction, not exclusive)):
        kind = (
            "exclusive: each output leaves its own element out"
            if exclusive
            else "inclusive: each output adds its own element"
        )
        return _wrong(f"this sum is {kind}")
    other = "decreasing" if direction.strip().lower().endswith("increasing") else "increasing"
    if _same(answer, run(other, exclusive)):
        first = "first" if other == "decreasing" else "last"
        return _wrong(f"that runs the other way: this sum runs {direction}, from the {first} element")
    if shape_error is not None:
        return shape_error
    return _wrong("each output is the sum of the elements before it along the axis, in the sum's direction")
