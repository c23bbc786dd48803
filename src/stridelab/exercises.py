"""Predict, then check: the checkers of the tutorials' exercises.

A student works an answer out by hand (an offset, strides, a buffer size, an operator's output)
and hands it to a checker. The checker compares it with what stridelab computes and says
``right``, or names the mistake it recognises (bytes given for elements, NCHW and NHWC swapped,
strides listed in memory order, coordinates counted from 1, the 4-byte rounding forgotten, a
window's end off by one, a negative stride's sign, the wrong axis or direction) without printing
the answer, or anything but the exercise's own givens. An answer still left as ``...`` (the
notebooks' placeholder), or of the wrong type, is met with what to write.

>>> from stridelab import TensorDesc
>>> dhw = TensorDesc("UINT8", (2, 2, 3))           # the strides page's DHW example
>>> check_offset(7, dhw, (1, 0, 1))                # element H
right: element (1, 0, 1) is at offset 7
>>> check_offset(7, dhw, "H").correct              # the element named by its letter
True
>>> check_offset(9, dhw, (1, 0, 1)).correct
False
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._exercise_outputs import check_cumulative_summation, check_slice1
from ._exercise_traffic import check_sectors_per_request
from ._feedback import Feedback, integer_answer, not_a, reminder, wrong
from ._layout_names import memory_order, packed_strides_in
from ._strides import DIMENSION_LETTERS, calc_buffer_tensor_size, layout_strides
from ._validate import int_tuple, shown
from .desc import TensorDesc
from .dtypes import data_type as _data_type
from .errors import LayoutError
from .memmap import LETTER_LABELS_UP_TO

__all__ = [
    "Feedback",
    "check_buffer_size",
    "check_cumulative_summation",
    "check_offset",
    "check_sectors_per_request",
    "check_slice1",
    "check_strides",
]


def _dot(coords: Sequence[int], strides: Sequence[int]) -> int:
    return sum(c * s for c, s in zip(coords, strides))


def _element(desc: TensorDesc, coords: Any) -> tuple[tuple[int, ...], str | None]:
    """The coordinates ``coords`` names, and the letter that named them (None for coordinates)."""
    if not isinstance(coords, str):
        return int_tuple("coords", coords), None
    if desc.element_count > LETTER_LABELS_UP_TO:
        raise LayoutError(
            f"coords = {shown(coords)}: elements have letters only in descriptions of at most "
            f"{LETTER_LABELS_UP_TO} elements, and this one has {desc.element_count}; give coordinates"
        )
    labels = desc.memory_map().element_labels()
    found = np.argwhere(labels == coords)
    if len(found) != 1:
        letters = sorted(set(labels.ravel().tolist()))
        named = "no element" if len(found) == 0 else f"{len(found)} elements sharing a slot"
        raise LayoutError(
            f"coords = {shown(coords)} is the letter of {named}; the elements' letters run "
            f"{letters[0]} to {letters[-1]}: give coordinates or one element's letter"
        )
    return tuple(int(i) for i in found[0]), coords


def check_offset(answer: Any, desc: TensorDesc, coords: Sequence[int] | str) -> Feedback:
    """Check the buffer offset (in elements) of the element at ``coords`` of ``desc``.

    ``coords`` are coordinates, or the element's letter as ``desc.memory_map()`` labels it
    (descriptions of at most 26 elements), which leaves finding the coordinates to the student.
    Recognises: the byte offset given, the dimensions taken in the opposite order (row-major and
    column-major swapped), the packed row-major offset given for another layout, coordinates
    paired with the wrong strides or counted from 1, and one dimension's term left out.

    >>> from stridelab import TensorDesc
    >>> check_offset(12, TensorDesc("FLOAT32", (2, 3)), (1, 0))  # bytes, not elements
    not yet: that is the offset in bytes; DirectML strides, and so offsets, count elements
    """
    coords, letter = _element(desc, coords)
    expected = desc.offset_of(coords)
    if answer is ...:
        return reminder("an offset, in elements")
    given = integer_answer(answer)
    if given is None:
        return not_a("the offset as an integer (a count of elements)", answer)
    if given == expected:
        where = f"{letter}, at {coords}," if letter else str(coords)
        return Feedback(True, f"element {where} is at offset {expected}")
    mistake = _offset_mistake(given, desc, coords)
    if mistake is not None:
        return wrong(mistake)
    if letter is None:
        return wrong(f"the offset adds up coordinate × stride over the dimensions, for the coordinates {coords}")
    held = desc.memory_map().slot_labels()[given] if 0 <= given <= desc.last_offset else None
    holds = f"offset {given} holds {held}, not {letter}: " if held and held.isalpha() else ""
    return wrong(
        f"{holds}find {letter}'s coordinates in the logical view (counting from 0), then add up coordinate × stride"
    )


def _offset_mistake(given: int, desc: TensorDesc, coords: tuple[int, ...]) -> str | None:
    """The mistake that gives ``given`` for the offset of ``coords``, where one is recognised."""
    strides, expected = desc.strides, desc.offset_of(coords)
    if desc.element_size > 1 and given == expected * desc.element_size:
        return "that is the offset in bytes; DirectML strides, and so offsets, count elements"
    rank = desc.dimension_count
    row_major = packed_strides_in(tuple(range(rank)), desc.sizes)
    column_major = packed_strides_in(tuple(reversed(range(rank))), desc.sizes)
    swapped = {row_major: column_major, column_major: row_major}.get(strides)
    if swapped is not None and given == _dot(coords, swapped):
        return "that takes the dimensions in the opposite order (row-major and column-major swapped)"
    if given == _dot(coords, row_major):
        nchw = " (NCHW)" if rank == 4 else ""
        return f"that is the offset in the packed row-major layout{nchw}; this tensor has other strides: use its own"
    if any(given == _dot(p, strides) for p in set(itertools.permutations(coords)) if p != coords):
        return "that pairs the coordinates with the wrong strides: both go in the sizes' order, dimension 0 first"
    if given == _dot([c + 1 for c in coords], strides):
        return "coordinates count from 0: the first element along each dimension is at coordinate 0"
    for i, (c, s) in enumerate(zip(coords, strides)):
        if c * s and given == expected - c * s:
            return f"dimension {i}'s term (its coordinate × its stride) is missing from the sum"
    return None


def _dimension_names(layout: str | Sequence[int], rank: int) -> list[str]:
    """What the hints call each dimension: its letter where ``layout`` is letters, else its index."""
    if isinstance(layout, str):
        return sorted(layout.upper(), key=DIMENSION_LETTERS[5].index)  # letters in the sizes' order
    return [f"dimension {d}" for d in range(rank)]


def check_strides(answer: Any, sizes: Sequence[int], layout: str | Sequence[int], *, data_type: Any = None) -> Feedback:
    """Check packed ``strides`` for ``sizes`` stored in ``layout`` (a memory order such as
    ``"NHWC"`` or ``"WH"``, outermost first, or a permutation of dimension indices such as
    ``(1, 0)``; see :func:`~stridelab.layout_strides`).

    Recognises: NCHW and NHWC swapped, the opposite order (row-major and column-major swapped),
    strides listed in memory order, a size-1 dimension's stride, the first dimension (from the
    innermost) whose stride is off, and, with ``data_type``, strides given in bytes.

    >>> check_strides((1, 2), (2, 3), "WH")  # column-major: H is the innermost
    right: WH strides of sizes [2, 3]
    >>> check_strides((3, 1), (2, 3), "WH")
    not yet: those store the dimensions in the opposite order (row-major and column-major swapped)
    """
    sizes = int_tuple("sizes", sizes)
    expected = layout_strides(layout, sizes)
    if answer is ...:
        return reminder("a tuple of strides, in elements, one per dimension")
    one_each = wrong(f"give one stride per dimension: sizes {list(sizes)} has {len(sizes)}")
    try:
        answer = int_tuple("answer", answer)
    except TypeError:
        return not_a("the strides as a tuple of integers, one per dimension", answer)
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
            return wrong("those are byte strides; DirectML strides count elements")
    return wrong(_strides_mistake(answer, sizes, layout, expected))


def _strides_mistake(
    answer: tuple[int, ...], sizes: tuple[int, ...], layout: str | Sequence[int], expected: tuple[int, ...]
) -> str:
    """What is wrong with ``answer``, the strides of ``sizes`` in ``layout`` (not ``expected``)."""
    rank, names = len(sizes), _dimension_names(layout, len(sizes))
    if isinstance(layout, str):
        swapped = {"NCHW": "NHWC", "NHWC": "NCHW", "NCDHW": "NDHWC", "NDHWC": "NCDHW"}.get(layout.upper())
        if swapped and answer == layout_strides(swapped, sizes):
            return f"those are the {swapped} strides: in {layout} the channels are stored as its letters say"
    order = memory_order(layout, rank)
    if rank > 1 and answer == layout_strides(tuple(reversed(order)), sizes):
        return "those store the dimensions in the opposite order (row-major and column-major swapped)"
    if answer == tuple(expected[d] for d in order):
        in_memory, in_sizes = ", ".join(names[d] for d in order), ", ".join(names)
        return f"those are listed in memory order ({in_memory}); strides go in the sizes' order ({in_sizes})"
    differ = [d for d in range(rank) if answer[d] != expected[d]]
    if all(sizes[d] == 1 for d in differ):
        which = ", ".join(names[d] for d in differ)
        return (
            f"only the stride of {which} is off, a dimension of size 1: any stride gives the same offsets there, "
            "but a packed stride is the product of the sizes inside it"
        )
    innermost = order[-1]
    if answer[innermost] != 1:
        outside = "each dimension outside it strides over all inside"
        return f"the innermost dimension ({names[innermost]}) has stride 1; {outside}"
    off = next(d for d in reversed(order) if answer[d] != expected[d])
    inside = ", ".join(names[d] for d in order[order.index(off) + 1 :])
    return f"{names[off]}'s stride is off: a packed stride is the product of the inner sizes ({inside})"


def check_buffer_size(
    answer: Any, data_type: Any, sizes: Sequence[int], strides: Sequence[int] | None = None
) -> Feedback:
    """Check the buffer size in bytes, as DMLCalcBufferTensorSize computes it.

    Recognises: elements given for bytes, the 4-byte rounding forgotten, and the logical element
    count used where padding or broadcasting makes the buffer differ from it.

    >>> check_buffer_size(12, "FLOAT16", (1, 5))  # 10 bytes, rounded up to a multiple of 4
    right: the buffer takes 12 bytes
    >>> check_buffer_size(5, "FLOAT16", (1, 5))
    not yet: that counts elements; the buffer size is in bytes
    """
    desc = TensorDesc(data_type, sizes, strides)
    expected = calc_buffer_tensor_size(data_type, sizes, strides)
    if answer is ...:
        return reminder("a size in bytes")
    given = integer_answer(answer)
    if given is None:
        return not_a("the size as an integer (a count of bytes)", answer)
    if given == expected:
        return Feedback(True, f"the buffer takes {expected} bytes")
    span = desc.last_offset + 1  # elements from offset 0 to the last element's, inclusive
    if given == span * desc.element_size:
        return wrong("the 4-byte rounding is forgotten: DirectML rounds buffer sizes up to a multiple of 4 bytes")
    if given in (span, -(-span * desc.element_size // 4) * 4 // desc.element_size) and desc.element_size > 1:
        return wrong("that counts elements; the buffer size is in bytes")
    if given in (desc.element_count * desc.element_size, -(-desc.element_count * desc.element_size // 4) * 4):
        return wrong("that counts the logical elements; the buffer runs from offset 0 to the last element's offset")
    return wrong(
        "the buffer runs from offset 0 to the last element's offset (the dot product of sizes - 1 and strides)"
    )
