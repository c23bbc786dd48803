"""Stride and buffer-size arithmetic: packed and layout strides, ``CalculateStrides`` and
``DMLCalcBufferTensorSize``, in exact Python ints, with the checks of sizes and strides that
:class:`~stridelab.desc.TensorDesc` shares.

internal: the public names are re-exported by :mod:`stridelab`.

>>> packed_strides((2, 3, 4))
(12, 4, 1)
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any, SupportsIndex

import numpy as np

from . import _notation
from ._validate import MAX_ITEMS, int_tuple, int_value, layout_error, shown, wrong_type
from .dtypes import DataType, DataTypeLike
from .dtypes import data_type as _resolve_data_type
from .errors import LayoutError

__all__: list[str] = []

#: The most dimensions a description has (DirectML's DML_TENSOR_DIMENSION_COUNT_MAX1).
MAX_DIMENSIONS = MAX_ITEMS
_CANONICAL_LETTERS = "NCDHW"
#: Letters of the dimensions, in canonical order, for the ranks DirectML names layouts for.
DIMENSION_LETTERS = {2: "HW", 3: "DHW", 4: "NCHW", 5: "NCDHW"}


def _bool_tuple(field: str, values: Any, rank: int) -> tuple[bool, ...]:
    """One bool (or numpy bool) per dimension; TypeError for strings, numbers and the like. At most
    ``rank + 1`` items are read."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise wrong_type(field, "a sequence of bools, one per dimension", values)
    flags = []
    for i, v in enumerate(itertools.islice(values, rank + 1)):
        if not isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{field}[{i}] must be a bool, not {type(v).__name__} ({shown(v)})")
        flags.append(bool(v))
    if len(flags) != rank:
        count = len(flags) if len(flags) <= rank else f"more than {rank}"
        raise LayoutError(f"{field} has {count} entries but sizes has {rank}; give one per dimension")
    return tuple(flags)


#: The largest size or stride: DirectML's are 32-bit ``UINT`` (element counts and buffer sizes are 64-bit).
UINT_MAX = 2**32 - 1
#: The largest buffer size: DMLCalcBufferTensorSize and TotalTensorSizeInBytes are ``UINT64``.
UINT64_MAX = 2**64 - 1


def _check_sizes(sizes: Any) -> tuple[int, ...]:
    sizes = int_tuple("sizes", sizes, rule=f"dimensions; DirectML tensors have 1 to {MAX_DIMENSIONS}")
    if not 1 <= len(sizes) <= MAX_DIMENSIONS:
        raise LayoutError(
            f"sizes {list(sizes)} has {len(sizes)} dimensions; DirectML tensors have 1 to {MAX_DIMENSIONS}"
        )
    for i, s in enumerate(sizes):
        if s < 1:
            raise layout_error(f"sizes[{i}]", s, "every size must be at least 1 (DirectML has no empty tensors)")
        if s > UINT_MAX:
            raise LayoutError(f"sizes[{i}] = {shown(s)} exceeds {UINT_MAX}: DirectML sizes are 32-bit UINTs")
    return sizes


def _check_strides(strides: Any, sizes: tuple[int, ...]) -> tuple[int, ...]:
    strides = int_tuple("strides", strides)
    if len(strides) != len(sizes):
        raise LayoutError(
            f"strides {list(strides)} has {len(strides)} entries but sizes {list(sizes)} has {len(sizes)}; "
            "they must have the same length"
        )
    for i, s in enumerate(strides):
        if s < 0:
            raise layout_error(f"strides[{i}]", s, "strides are element counts and must be 0 or more")
        if s > UINT_MAX:
            raise LayoutError(f"strides[{i}] = {shown(s)} exceeds {UINT_MAX}: DirectML strides are 32-bit UINTs")
    return strides


def _within_uint(strides: Sequence[int], sizes: Sequence[int], layout: Any = None) -> tuple[int, ...]:
    """Strides stridelab worked out (packed, or ``layout``'s), refused where one that a dimension
    steps along (of size > 1) passes 32 bits. A size-1 dimension's stride never moves an element,
    so past 32 bits it is held at ``2**32 - 1``: the description stays one DirectML (and
    :meth:`TensorDesc.parse`) takes.

    >>> _within_uint((2**33, 2**17, 2, 1), (1, 2**16, 2**16, 2))
    (4294967295, 131072, 2, 1)
    """
    for i, (n, s) in enumerate(zip(sizes, strides)):
        if n > 1 and s > UINT_MAX:
            what = f"sizes {list(sizes)} have the packed strides" if layout is None else f"the {shown(layout)} strides"
            raise LayoutError(
                f"{what} {list(strides)}: strides[{i}] = {s} exceeds {UINT_MAX}: DirectML strides are 32-bit UINTs"
            )
    return tuple(min(s, UINT_MAX) for s in strides)


def packed_strides(sizes: Sequence[int]) -> tuple[int, ...]:
    """Row-major ("NCHW") strides: each dimension's stride is the product of the sizes inside it."""
    strides = []
    step = 1
    for size in reversed(sizes):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


def _last_index(sizes: Sequence[int], strides: Sequence[int]) -> int:
    return sum((n - 1) * s for n, s in zip(sizes, strides))


def _check_total(total: Any, required: int, sizes: tuple[int, ...], strides: tuple[int, ...]) -> int:
    """``total_tensor_size_in_bytes`` checked against DirectML's rules for the ``required`` bytes."""
    total = int_value("total_tensor_size_in_bytes", total)
    if total > UINT64_MAX:
        raise layout_error(
            "total_tensor_size_in_bytes", total, f"it exceeds {UINT64_MAX}: DirectML's is a 64-bit UINT64"
        )
    if total < required:
        raise LayoutError(
            f"total_tensor_size_in_bytes = {shown(total)} is smaller than the {required} bytes that "
            f"sizes {list(sizes)} with strides {list(strides)} need (DMLCalcBufferTensorSize)"
        )
    if total % 4:
        raise LayoutError(
            f"total_tensor_size_in_bytes = {shown(total)} must be a multiple of 4 "
            "(DirectML binds DWORD-aligned buffers)"
        )
    return total


def _round_up_4(nbytes: int) -> int:
    return (nbytes + 3) & ~3


def _required_bytes(dtype: DataType, sizes: tuple[int, ...], strides: tuple[int, ...], last: int) -> int:
    """The bytes DMLCalcBufferTensorSize gives, refused where they pass its 64-bit result."""
    required = _round_up_4((last + 1) * dtype.element_size)
    if required > UINT64_MAX:
        raise LayoutError(
            f"{dtype.name} {_notation.format_layout(sizes, strides)} needs {required} bytes, more than "
            f"{UINT64_MAX}: DirectML buffer sizes are 64-bit (DMLCalcBufferTensorSize returns a UINT64)"
        )
    return required


def calc_buffer_tensor_size(
    data_type: DataTypeLike, sizes: Sequence[SupportsIndex], strides: Sequence[SupportsIndex] | None = None
) -> int:
    """``DMLCalcBufferTensorSize``: the fewest bytes a buffer for this description may have.

    One past the offset of the last element, times the element size, rounded up to a multiple of
    4 bytes (DirectML binds only DWORD-aligned buffers). Follows the newer listing, but in exact
    Python ints: the result is right for buffers over 4 GiB, which the 32-bit index of the listing
    is not. Zero sizes and negative strides are refused rather than underflowing, and a size past
    the listing's 64-bit result rather than wrapping.

    >>> calc_buffer_tensor_size("FLOAT16", (1, 1, 2, 3), (0, 0, 5, 1))
    16
    """
    dtype = _resolve_data_type(data_type)
    sizes = _check_sizes(sizes)
    strides = packed_strides(sizes) if strides is None else _check_strides(strides, sizes)
    return _required_bytes(dtype, sizes, strides, _last_index(sizes, strides))


def calculate_strides(
    layout: str, sizes: Sequence[SupportsIndex], broadcast: Sequence[bool | np.bool_] | None = None
) -> tuple[int, int, int, int]:
    """``CalculateStrides`` as listed: 4-D strides for an "NCHW" or "NHWC" layout.

    ``sizes`` are in NCHW order whatever the layout; a broadcast dimension gets stride 0 and counts
    as size 1 for the strides outside it.

    >>> calculate_strides("NHWC", (1, 1, 3, 5))
    (15, 1, 5, 1)
    """
    if not isinstance(layout, str):
        raise TypeError(f"layout must be 'NCHW' or 'NHWC' (a str), not {type(layout).__name__} ({shown(layout)})")
    if layout.upper() not in ("NCHW", "NHWC"):
        raise LayoutError(
            f"layout {shown(layout)}: CalculateStrides knows 'NCHW' and 'NHWC'; use layout_strides for others"
        )
    sizes = _check_sizes(sizes)
    if len(sizes) != 4:
        raise LayoutError(f"sizes {list(sizes)} has {len(sizes)} dimensions; CalculateStrides takes 4 (N, C, H, W)")
    return layout_strides(layout.upper(), sizes, broadcast)  # type: ignore[return-value]


def _memory_order(layout: str | Sequence[SupportsIndex], rank: int) -> tuple[int, ...]:
    """Dimension indices (into canonical-order sizes) from the outermost to the innermost in memory."""
    if isinstance(layout, str):
        letters = layout.upper()
        if not letters or any(c not in _CANONICAL_LETTERS for c in letters) or len(set(letters)) != len(letters):
            raise LayoutError(
                f"layout {shown(layout)} must name each of the dimension letters {', '.join(_CANONICAL_LETTERS)} "
                "at most once, outermost first (e.g. 'NHWC'), or be a permutation of dimension indices"
            )
        if len(letters) != rank:
            raise LayoutError(f"layout {shown(layout)} names {len(letters)} dimensions but sizes has {rank}")
        canonical = sorted(letters, key=_CANONICAL_LETTERS.index)
        return tuple(canonical.index(c) for c in letters)
    order = int_tuple("layout", layout)
    if sorted(order) != list(range(rank)):
        raise LayoutError(f"layout {list(order)} must be a permutation of the dimension indices 0..{rank - 1}")
    return order


def _dimension_index(key: str | int, layout: str | Sequence[SupportsIndex], rank: int, field: str) -> int:
    """The canonical index of a dimension named by letter (for letter layouts) or by index."""
    if isinstance(key, str):
        letter = key.upper()
        if not isinstance(layout, str) or len(letter) != 1 or letter not in layout.upper():
            raise LayoutError(f"{field} key {shown(key)} is not a dimension letter of layout {shown(layout)}")
        return sorted(layout.upper(), key=_CANONICAL_LETTERS.index).index(letter)
    index = int_value(f"{field} key", key)
    if not 0 <= index < rank:
        raise LayoutError(f"{field} key {shown(index)} is not a dimension index in 0..{rank - 1}")
    return index


def layout_strides(
    layout: str | Sequence[SupportsIndex],
    sizes: Sequence[SupportsIndex],
    broadcast: Sequence[bool | np.bool_] | None = None,
    padding: Mapping[str | int, int] | None = None,
) -> tuple[int, ...]:
    """Element strides for ``sizes`` stored in the memory order ``layout``.

    ``layout`` lists the dimensions from the outermost to the innermost in memory, either as
    letters of N, C, D, H, W ("NHWC", "WH", "NDHWC") or as a permutation of dimension indices for
    any rank. ``sizes`` and the returned strides are in canonical order: the letters in N, C, D, H, W
    order, or index order. ``broadcast[i]`` gives dimension ``i`` stride 0 (and size 1 for the
    dimensions outside it). ``padding`` maps a dimension (letter or index) to extra elements left
    after each run of that dimension in memory.

    >>> layout_strides("WH", (2, 3))            # column-major
    (1, 2)
    >>> layout_strides("HW", (2, 3), padding={"W": 2})
    (5, 1)
    """
    sizes = _check_sizes(sizes)
    rank = len(sizes)
    order = _memory_order(layout, rank)
    flags = (False,) * rank if broadcast is None else _bool_tuple("broadcast", broadcast, rank)
    pad = [0] * rank
    if padding is not None and not isinstance(padding, Mapping):
        raise wrong_type("padding", "a mapping of dimension to element count", padding)
    if padding is not None and len(padding) > rank:
        raise layout_error("padding", padding, f"it has {len(padding)} entries; sizes has {rank} dimensions")
    for key, extra in (padding or {}).items():
        index = _dimension_index(key, layout, rank, "padding")
        extra = int_value(f"padding[{shown(key)}]", extra)
        if extra < 0:
            raise layout_error(f"padding[{shown(key)}]", extra, "padding is a count of elements and must be 0 or more")
        if extra and index == order[0]:
            raise LayoutError(
                f"padding[{shown(key)}] = {shown(extra)} follows the outermost dimension, which changes no stride; "
                "give total_tensor_size_in_bytes to TensorDesc for padding at the end of the buffer"
            )
        pad[index] = extra
    strides = [0] * rank
    step = 1
    for index in reversed(order):
        strides[index] = 0 if flags[index] else step
        step *= (1 if flags[index] else sizes[index]) + pad[index]
    return _within_uint(strides, sizes, layout)
