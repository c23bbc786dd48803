"""Tensor descriptions (DirectML's ``DML_BUFFER_TENSOR_DESC``) and the stride arithmetic around them.

A description is a data type, 1 to 8 logical ``sizes`` and element ``strides``; the element at
logical coordinates ``c`` lives at buffer element ``dot(c, strides)``. All arithmetic here is in
Python ints, so it is exact at any size (a 2**40-element description is no special case).

>>> d = TensorDesc("FLOAT32", (1, 1, 3, 5))
>>> d.strides, d.offset_of((0, 0, 2, 1)), d.buffer_size
((15, 15, 5, 1), 11, 60)
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any, SupportsIndex

import numpy as np

from . import _analysis, _jsonc, _notation
from ._json_fields import Fields, data_type_name, enum, integer_list, uint
from ._validate import MAX_ITEMS, int_tuple, int_value, layout_error, shown, wrong_type
from .dtypes import DATA_TYPES, DataType, DataTypeLike
from .dtypes import data_type as _resolve_data_type
from .errors import LayoutError

__all__ = [
    "DIMENSION_LETTERS",
    "MAX_DIMENSIONS",
    "TensorDesc",
    "calc_buffer_tensor_size",
    "calculate_strides",
    "json_desc_alignment",
    "layout_strides",
    "packed_strides",
    "read_json_desc",
]

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


class TensorDesc:
    """An immutable DirectML buffer tensor description: data type, sizes and element strides.

    ``strides=None`` means packed row-major ("NCHW"); the resolved strides are always available.
    ``total_tensor_size_in_bytes`` may make the buffer larger than :func:`calc_buffer_tensor_size`
    requires (it must be a multiple of 4); the extra slots count as padding.

    Classification (``is_packed``, ``is_padded``, ``is_broadcast``, ``is_overlapping``) follows the
    strides page and is exact: see :mod:`stridelab._analysis` for how it is decided.
    """

    __slots__ = (
        "__dict__",
        "_count",
        "_data_type",
        "_hash",
        "_key",
        "_last",
        "_required",
        "_sizes",
        "_strides",
        "_total",
    )
    _data_type: DataType
    _sizes: tuple[int, ...]
    _strides: tuple[int, ...]
    _total: int | None
    _count: int
    _last: int
    _required: int
    _key: tuple
    _hash: int

    def __init__(
        self,
        data_type: DataTypeLike,
        sizes: Sequence[SupportsIndex],
        strides: Sequence[SupportsIndex] | None = None,
        total_tensor_size_in_bytes: int | None = None,
    ) -> None:
        dtype = _resolve_data_type(data_type)
        sizes = _check_sizes(sizes)
        if strides is None:
            strides = _within_uint(packed_strides(sizes), sizes)
        else:
            strides = _check_strides(strides, sizes)
        last = _last_index(sizes, strides)
        required = _required_bytes(dtype, sizes, strides, last)
        if total_tensor_size_in_bytes is not None:
            total = int_value("total_tensor_size_in_bytes", total_tensor_size_in_bytes)
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
            total_tensor_size_in_bytes = total
        object.__setattr__(self, "_data_type", dtype)
        object.__setattr__(self, "_sizes", sizes)
        object.__setattr__(self, "_strides", strides)
        object.__setattr__(self, "_total", total_tensor_size_in_bytes)
        # Facts every operator call asks for, computed once: a description never changes.
        count = 1
        for n in sizes:
            count *= n
        object.__setattr__(self, "_count", count)
        object.__setattr__(self, "_last", last)
        object.__setattr__(self, "_required", required)
        size = required if total_tensor_size_in_bytes is None else total_tensor_size_in_bytes
        key = (dtype.name, sizes, strides, size)
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "_hash", hash(key))

    # -- the description itself -------------------------------------------------------------
    @property
    def data_type(self) -> str:
        """The DirectML data type name, e.g. ``"FLOAT32"``."""
        return self._data_type.name

    @property
    def dtype(self) -> DataType:
        """The full :class:`~stridelab.dtypes.DataType` (numpy dtype, C type, element size)."""
        return self._data_type

    @property
    def sizes(self) -> tuple[int, ...]:
        return self._sizes

    @property
    def strides(self) -> tuple[int, ...]:
        """Element strides, always resolved (packed row-major where none were given)."""
        return self._strides

    @property
    def total_tensor_size_in_bytes(self) -> int | None:
        """The explicit buffer size given, or None."""
        return self._total

    @property
    def dimension_count(self) -> int:
        return len(self._sizes)

    @property
    def element_size(self) -> int:
        """Bytes per element."""
        return self._data_type.element_size

    @property
    def element_count(self) -> int:
        """Logical elements: the product of the sizes."""
        return self._count

    @property
    def last_offset(self) -> int:
        """Buffer element offset of the last logical element (the largest offset)."""
        return self._last

    @property
    def required_size(self) -> int:
        """``calc_buffer_tensor_size`` of this description, in bytes."""
        return self._required

    @property
    def buffer_size(self) -> int:
        """Bytes of the buffer: ``total_tensor_size_in_bytes`` if given, else the required size."""
        return self._required if self._total is None else self._total

    @property
    def slot_count(self) -> int:
        """Physical element slots in the buffer: ``buffer_size // element_size``."""
        return self.buffer_size // self.element_size

    def offset_of(self, coords: Sequence[SupportsIndex]) -> int:
        """Buffer element offset of the element at logical ``coords``: ``dot(coords, strides)``."""
        coords = int_tuple("coords", coords)
        if len(coords) != len(self._sizes):
            raise LayoutError(
                f"coords {list(coords)} has {len(coords)} entries but the tensor has {len(self._sizes)} dimensions"
            )
        for i, (c, n) in enumerate(zip(coords, self._sizes)):
            if not 0 <= c < n:
                raise LayoutError(
                    f"coords[{i}] = {shown(c)} is out of range for sizes[{i}] = {n} (0 <= coords[i] < sizes[i])"
                )
        return sum(c * s for c, s in zip(coords, self._strides))

    # -- classification ----------------------------------------------------------------------
    @cached_property
    def _facts(self) -> _analysis.LayoutFacts:
        return _analysis.analyze(self._sizes, self._strides)

    @property
    def is_broadcast(self) -> bool:
        """Some dimension of size > 1 has stride 0: its elements share slots."""
        return any(s == 0 and n > 1 for n, s in zip(self._sizes, self._strides))

    @property
    def is_overlapping(self) -> bool:
        """Two distinct coordinates share an offset without a zero stride explaining it."""
        return not self._facts.injective_apart_from_broadcast

    @property
    def is_packed(self) -> bool:
        """Every slot from 0 to the last element's offset holds exactly one element."""
        return (
            not self.is_broadcast
            and self._facts.injective_apart_from_broadcast
            and (self._facts.distinct_offsets == self.last_offset + 1)
        )

    @property
    def is_padded(self) -> bool:
        """Some slot that is not alignment holds no element.

        Alignment slots are those past the last element that exist only because buffer sizes round
        up to 4 bytes; slots past the required size (an explicit, larger
        ``total_tensor_size_in_bytes``) are padding.
        """
        distinct = self._facts.distinct_offsets
        if distinct is None:
            raise LayoutError(
                f"{self!r} overlaps, and counting its distinct offsets would enumerate more than "
                f"{_analysis.ENUMERATION_LIMIT} elements, so whether it is padded is not decided"
            )
        holes = self.last_offset + 1 - distinct
        return holes > 0 or self.slot_count > self.required_size // self.element_size

    def memory_map(self, limit: int | None = None):  # -> MemoryMap (imported lazily: memmap sits above desc)
        """The :class:`~stridelab.memmap.MemoryMap` of this description (see there for ``limit``)."""
        from .memmap import MemoryMap

        return MemoryMap(self) if limit is None else MemoryMap(self, limit=limit)

    # -- value semantics, serialisation, display ---------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TensorDesc):
            return NotImplemented
        return self is other or (self._hash == other._hash and self._key == other._key)

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple:
        return (TensorDesc, (self._data_type.name, self._sizes, self._strides, self._total))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"TensorDesc is immutable; cannot set {name!r} (use replace())")

    def replace(self, **changes: Any) -> TensorDesc:
        """A new description with some of ``data_type``, ``sizes``, ``strides``,
        ``total_tensor_size_in_bytes`` changed (the others kept)."""
        fields: dict[str, Any] = dict(
            data_type=self._data_type,
            sizes=self._sizes,
            strides=self._strides,
            total_tensor_size_in_bytes=self._total,
        )
        unknown = set(changes) - set(fields)
        if unknown:
            raise TypeError(
                f"replace() got unknown field(s) {shown(sorted(unknown))}; expected some of {sorted(fields)}"
            )
        fields.update(changes)
        return TensorDesc(**fields)

    def to_json(self) -> dict:
        """A JSON-ready dict with DxDispatch's field names (``DataType``, ``Sizes``, ``Strides``,
        ``TotalTensorSizeInBytes`` where one was given)."""
        obj: dict[str, Any] = {"DataType": self.data_type, "Sizes": list(self._sizes), "Strides": list(self._strides)}
        if self._total is not None:
            obj["TotalTensorSizeInBytes"] = self._total
        return obj

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> TensorDesc:
        """Read a DxDispatch tensor description (``DML_TENSOR_DESC``): flat, or nested as
        ``{"Type": "BUFFER", "Desc": {...}}``. ``DataType`` and ``Sizes`` are required; ``Strides``
        (default packed), ``DimensionCount`` (must agree with ``Sizes``), ``TotalTensorSizeInBytes``
        (0 or absent: what the layout needs), ``Flags`` (``NONE``) and
        ``GuaranteedBaseOffsetAlignment`` are optional; any other field is an error.

        >>> TensorDesc.from_json({"Type": "BUFFER", "Desc": {"DataType": "FLOAT16", "Sizes": [2, 3]}})
        TensorDesc('FLOAT16', sizes=(2, 3), strides=(3, 1))
        """
        if not isinstance(obj, Mapping):
            raise wrong_type("obj", "a mapping (a JSON object)", obj)
        return read_json_desc(obj, "tensor description")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> tuple[dict, dict]:
        """Jupyter's display: the memory-map picture (logical grid beside the physical buffer) as
        SVG and PNG, and the repr as text."""
        from .render.picture import display_bundle

        return display_bundle(self)

    def __repr__(self) -> str:
        total = "" if self._total is None else f", total_tensor_size_in_bytes={self._total}"
        return f"TensorDesc({self.data_type!r}, sizes={self._sizes}, strides={self._strides}{total})"

    # -- one-line notations ------------------------------------------------------------------
    def __str__(self) -> str:
        """One line: the data type and CuTe's ``(sizes):(strides)``, with `` bytes=N`` where the
        buffer was given larger than it needs to be; :meth:`parse` reads it back.

        >>> str(TensorDesc("FLOAT16", (1, 1, 2, 3), (0, 0, 5, 1)))
        'FLOAT16 (1,1,2,3):(0,0,5,1)'
        >>> str(TensorDesc("FLOAT32", (2, 3), (5, 1), total_tensor_size_in_bytes=40))
        'FLOAT32 (2,3):(5,1) bytes=40'
        """
        extra = f" bytes={self.buffer_size}" if self.buffer_size > self.required_size else ""
        return f"{self.data_type} {_notation.format_layout(self._sizes, self._strides)}{extra}"

    @classmethod
    def parse(cls, text: str) -> TensorDesc:
        """Read the one-line notation of :meth:`__str__` (spaces allowed), or JSON text with
        DxDispatch's field names in DxDispatch's dialect (comments and trailing commas allowed, a key
        given twice refused). Text of more than ``MAX_TEXT_CHARACTERS`` is refused unread.

        >>> TensorDesc.parse("FLOAT16 (1, 1, 2, 3) : (0, 0, 5, 1)")
        TensorDesc('FLOAT16', sizes=(1, 1, 2, 3), strides=(0, 0, 5, 1))
        >>> TensorDesc.parse('{"DataType": "UINT8", "Sizes": [2, 3]}')
        TensorDesc('UINT8', sizes=(2, 3), strides=(3, 1))
        """
        if not isinstance(text, str):
            raise wrong_type("text", "a str", text)
        if text.lstrip().startswith("{"):
            _notation.check_length(text, "the JSON tensor description")
            return cls.from_json(_jsonc.loads(text, "cannot read the JSON tensor description"))
        data_type, sizes, strides, total = _notation.parse_notation(text)
        return cls(data_type, sizes, strides, total)

    def to_cute(self) -> str:
        """CuTe's ``shape:stride`` for this layout (the same dot product of coordinates and strides).

        >>> TensorDesc("FLOAT16", (1, 1, 2, 3), (0, 0, 5, 1)).to_cute()
        '(1,1,2,3):(0,0,5,1)'
        """
        return _notation.format_layout(self._sizes, self._strides)

    @classmethod
    def from_cute(cls, text: str, data_type: DataTypeLike) -> TensorDesc:
        """A description from a CuTe layout: nested modes are flattened in order, bare integers are
        one mode, and negative strides are refused (DirectML's are unsigned).

        >>> TensorDesc.from_cute("((2,2),3):((1,4),2)", "FLOAT32")
        TensorDesc('FLOAT32', sizes=(2, 2, 3), strides=(1, 4, 2))
        >>> TensorDesc.from_cute("8:1", "UINT8")
        TensorDesc('UINT8', sizes=(8,), strides=(1,))
        """
        sizes, strides = _notation.parse_cute(text)
        return cls(data_type, sizes, strides)

    def export(self, kind: str, *, name: str | None = None) -> str:
        """Source that rebuilds this layout in another tool: ``"numpy"`` (``as_strided``, byte
        strides), ``"torch"`` (``torch.as_strided``, element strides), ``"cpp"`` (a DirectML
        ``DML_BUFFER_TENSOR_DESC`` initializer) or ``"json"`` (DxDispatch's fields); see
        :func:`stridelab.export.export`.

        >>> print(TensorDesc("FLOAT16", (1, 1, 2, 3), (0, 0, 5, 1)).export("numpy"))
        np.lib.stride_tricks.as_strided(buffer, shape=(1, 1, 2, 3), strides=(0, 0, 10, 2))  # byte strides
        """
        from .export import export  # export imports this module

        return export(self, kind, name=name)

    def coalesced(self) -> TensorDesc:
        """The description with the fewest dimensions that gives every element, taken in row-major
        order, the same offset (CuTe's ``coalesce``, in row-major order); no merged size passes
        ``2**32 - 1``.

        >>> TensorDesc("FLOAT32", (2, 3, 4)).coalesced()
        TensorDesc('FLOAT32', sizes=(24,), strides=(1,))
        >>> TensorDesc("FLOAT32", (1, 3, 4, 5), (60, 1, 15, 3)).coalesced()  # NHWC: C stays apart
        TensorDesc('FLOAT32', sizes=(3, 20), strides=(1, 3))
        """
        sizes, strides = _notation.coalesce(self._sizes, self._strides)
        total = None if self.buffer_size == self.required_size else self.buffer_size
        return TensorDesc(self._data_type, sizes, strides, total)


_TENSOR_DESC_FIELDS = "DML_BUFFER_TENSOR_DESC"
#: DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT: a buffer tensor's base address is a multiple of this many bytes.
MINIMUM_ALIGNMENT = 16


def json_desc_alignment(obj: Mapping[str, Any]) -> int:
    """The base-offset alignment, in bytes, a JSON tensor description read by :func:`read_json_desc`
    guarantees: its ``GuaranteedBaseOffsetAlignment``, or DirectML's minimum of 16 where that is 0
    or absent."""
    fields = obj["Desc"] if "Desc" in obj else obj
    return fields.get("GuaranteedBaseOffsetAlignment") or MINIMUM_ALIGNMENT


def read_json_desc(obj: Any, where: str) -> TensorDesc:
    """A :class:`TensorDesc` from DxDispatch's JSON for a ``DML_TENSOR_DESC`` (see
    :meth:`TensorDesc.from_json`); every message starts with ``where``."""
    outer = Fields(obj, where, "DML_TENSOR_DESC")
    kind = outer.optional("Type")
    if kind is not None:
        enum(outer.at("Type"), kind, "DML_TENSOR_TYPE_", ("BUFFER",))
    fields = outer
    if "Desc" in outer:
        fields = Fields(outer.required("Desc"), f"{where}.Desc", _TENSOR_DESC_FIELDS)
        outer.done()
    data_type = data_type_name(fields.at("DataType"), fields.required("DataType"), DATA_TYPES)
    rank_rule = f"DirectML tensors have 1 to {MAX_DIMENSIONS} dimensions"
    sizes = integer_list(fields.at("Sizes"), fields.required("Sizes"), max_items=MAX_DIMENSIONS, rule=rank_rule)
    strides = fields.optional("Strides")
    if strides is not None:
        strides = integer_list(fields.at("Strides"), strides, max_items=MAX_DIMENSIONS, rule=rank_rule)
    count = fields.optional("DimensionCount")
    if count is not None and uint(fields.at("DimensionCount"), count) != len(sizes):
        raise LayoutError(f"{where}: DimensionCount = {count} but Sizes {list(sizes)} has {len(sizes)} entries")
    flags = fields.optional("Flags")
    if flags is not None and enum(fields.at("Flags"), flags, "DML_TENSOR_FLAG_", ("NONE", "OWNED_BY_DML")) != "NONE":
        raise LayoutError(
            f"{where}: Flags = {shown(flags)}: tensors owned by DirectML (bound at initialization) are not supported; "
            "bind the tensor's buffer at dispatch instead (Flags NONE)"
        )
    total = fields.optional("TotalTensorSizeInBytes")
    if total is not None:
        total = uint(fields.at("TotalTensorSizeInBytes"), total, limit=None, type_name="UINT64") or None
    alignment = fields.optional("GuaranteedBaseOffsetAlignment")
    if alignment is not None:
        value = uint(fields.at("GuaranteedBaseOffsetAlignment"), alignment)
        if value and (value < MINIMUM_ALIGNMENT or value & (value - 1)):
            raise LayoutError(
                f"{fields.at('GuaranteedBaseOffsetAlignment')} = {value}: it must be 0 or a power of two of at least "
                f"{MINIMUM_ALIGNMENT} (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT)"
            )
    fields.done()
    try:
        return TensorDesc(data_type, sizes, strides, total)
    except (LayoutError, TypeError) as error:  # in the JSON's field names
        message = re.sub(r"\b(sizes|strides|total_tensor_size_in_bytes)\b", lambda m: _JSON_NAMES[m[1]], str(error))
        raise LayoutError(f"{where}: {message}") from None


_JSON_NAMES = {"sizes": "Sizes", "strides": "Strides", "total_tensor_size_in_bytes": "TotalTensorSizeInBytes"}
