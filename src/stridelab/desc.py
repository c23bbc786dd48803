"""Tensor descriptions (DirectML's ``DML_BUFFER_TENSOR_DESC``): a data type, sizes and strides.

A description is a data type, 1 to 8 logical ``sizes`` and element ``strides``; the element at
logical coordinates ``c`` lives at buffer element ``dot(c, strides)``. All arithmetic here is in
Python ints, so it is exact at any size (a 2**40-element description is no special case); the
stride arithmetic is :mod:`stridelab._strides`'s.

internal: :class:`TensorDesc` is public as ``stridelab.TensorDesc``.

>>> d = TensorDesc("FLOAT32", (1, 1, 3, 5))
>>> d.strides, d.offset_of((0, 0, 2, 1)), d.buffer_size
((15, 15, 5, 1), 11, 60)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, SupportsIndex

from . import _analysis, _notation
from ._strides import (
    _check_sizes,
    _check_strides,
    _check_total,
    _last_index,
    _required_bytes,
    _within_uint,
    packed_strides,
)
from ._validate import int_tuple, shown
from .dtypes import DataType, DataTypeLike
from .dtypes import data_type as _resolve_data_type
from .errors import LayoutError

if TYPE_CHECKING:
    from ._desc_text import PlacedDesc

__all__: list[str] = []


class TensorDesc:
    """An immutable DirectML buffer tensor description: data type, sizes and element strides.

    ``strides=None`` means packed row-major ("NCHW"); the resolved strides are always available.
    ``total_tensor_size_in_bytes`` may make the buffer larger than :func:`calc_buffer_tensor_size`
    requires (it must be a multiple of 4); the extra slots count as padding.

    Classification (``is_packed``, ``is_padded``, ``is_broadcast``, ``is_overlapping``) follows the
    strides page and is exact: see :mod:`stridelab._analysis` for how it is decided.

    Examples
    --------
    >>> import stridelab as sl
    >>> d = sl.TensorDesc("FLOAT32", (1, 1, 3, 5))
    >>> d.strides, d.buffer_size, d.offset_of((0, 0, 2, 1))
    ((15, 15, 5, 1), 60, 11)
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
            total_tensor_size_in_bytes = _check_total(total_tensor_size_in_bytes, required, sizes, strides)
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
        from ._json_desc import desc_from_json  # it imports this module

        return desc_from_json(obj)

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
        total = self.buffer_size if self.buffer_size > self.required_size else None
        return _notation.format_notation(self.data_type, self._sizes, self._strides, total=total)

    @classmethod
    def parse(cls, text: str) -> TensorDesc:
        """Read ``[DATA_TYPE] (sizes):(strides) [bytes=N]`` (spaces allowed; the type a DirectML,
        NumPy or PyTorch name, FLOAT32 where none is given; lists in brackets too), or DxDispatch
        JSON (comments and trailing commas allowed, a key given twice refused). Text that starts
        past element 0 (`` +5``) is refused: :meth:`parse_placed` reads it.

        >>> TensorDesc.parse("FLOAT16 (1, 1, 2, 3) : (0, 0, 5, 1)")
        TensorDesc('FLOAT16', sizes=(1, 1, 2, 3), strides=(0, 0, 5, 1))
        >>> TensorDesc.parse("torch.float16 [2, 3]:(1, 2)"), TensorDesc.parse("(2,3):(3,1)").data_type
        (TensorDesc('FLOAT16', sizes=(2, 3), strides=(1, 2)), 'FLOAT32')
        >>> TensorDesc.parse('{"DataType": "UINT8", "Sizes": [2, 3]}')
        TensorDesc('UINT8', sizes=(2, 3), strides=(3, 1))
        """
        from ._desc_text import parse_desc  # it imports this module

        return parse_desc(cls, text)

    @classmethod
    def parse_placed(cls, text: str) -> PlacedDesc:
        """Read text as :meth:`parse` does, with `` +OFFSET`` (``offset=``; 0 if none): ``desc, offset``.

        >>> TensorDesc.parse_placed("np.uint8 (2,3):(3,1) offset=5")
        PlacedDesc(desc=TensorDesc('UINT8', sizes=(2, 3), strides=(3, 1)), offset=5)
        """
        from ._desc_text import read_placed

        return read_placed(cls, text)[0]

    def placed(self, offset: int) -> PlacedDesc:
        """This description from buffer element ``offset`` on (PyTorch's ``storage_offset()``).

        >>> str(TensorDesc("FLOAT16", (2, 3)).placed(5))
        'FLOAT16 (2,3):(3,1) +5'
        """
        from ._desc_text import PlacedDesc

        return PlacedDesc(self, offset)

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
