"""A description read from text, and where it starts in its buffer.

A DirectML description has no offset: DirectML takes one where a buffer is bound. Text pasted from
NumPy or PyTorch often has one (``x.storage_offset()``), and a drawing or an overlap needs it, so
the one-line notation carries it (``FLOAT32 (2,3):(3,1) +5``) and :class:`PlacedDesc` holds the two
together; :meth:`TensorDesc.parse` reads only text that starts at element 0.

internal: ``PlacedDesc`` is public as ``stridelab.PlacedDesc``; the rest is reached through
:meth:`TensorDesc.parse`, :meth:`TensorDesc.parse_placed` and :meth:`TensorDesc.placed`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from . import _jsonc, _notation
from ._strides import UINT64_MAX
from ._validate import int_value, shown, wrong_type
from .desc import TensorDesc
from .errors import LayoutError

__all__: list[str] = []

#: The data type of a line that names none: what NumPy and PyTorch make by default.
DEFAULT_DATA_TYPE = "FLOAT32"


@dataclass(frozen=True)
class PlacedDesc:
    """A :class:`TensorDesc` and ``offset``, the buffer element where its coordinate 0 lies
    (PyTorch's ``storage_offset()``): element ``c`` is at ``offset + dot(c, strides)``.

    It unpacks as ``desc, offset``; ``str()`` writes the one-line notation that
    :meth:`TensorDesc.parse_placed` reads back. Drawn (Jupyter's display,
    :func:`stridelab.render_svg`, ``stridelab show``), its buffer strip counts the buffer's
    offsets and shows the ``offset`` slots before the tensor as unused.

    >>> p = TensorDesc("FLOAT32", (2, 3)).placed(5)
    >>> str(p), p.offset_bytes
    ('FLOAT32 (2,3):(3,1) +5', 20)
    >>> desc, offset = TensorDesc.parse_placed(str(p))
    >>> (desc, offset) == (p.desc, 5)
    True
    """

    desc: TensorDesc
    offset: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.desc, TensorDesc):
            raise wrong_type("desc", "a TensorDesc", self.desc)
        offset = int_value("offset", self.offset)
        if offset < 0:
            raise LayoutError(f"offset = {shown(offset)}: an offset into the buffer is 0 or more (in elements)")
        size = self.desc.element_size
        if offset > (UINT64_MAX - self.desc.buffer_size) // size:
            raise LayoutError(
                f"offset = {shown(offset)}: {offset} elements of {size} bytes before the tensor's "
                f"{self.desc.buffer_size} bytes pass 2**64 - 1 bytes (DirectML's buffer sizes and offsets are UINT64)"
            )
        object.__setattr__(self, "offset", offset)

    @property
    def offset_bytes(self) -> int:
        """The offset in bytes: ``offset * desc.element_size``."""
        return self.offset * self.desc.element_size

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> tuple[dict, dict]:
        """Jupyter's display: the memory-map picture, from the start of the buffer, as SVG and
        PNG, and the repr as text."""
        from .render.picture import display_bundle

        return display_bundle(self)

    def __iter__(self) -> Iterator[Any]:
        return iter((self.desc, self.offset))

    def __str__(self) -> str:
        desc = self.desc
        total = desc.buffer_size if desc.buffer_size > desc.required_size else None
        return _notation.format_notation(desc.data_type, desc.sizes, desc.strides, offset=self.offset, total=total)


def read_placed(cls: type[TensorDesc], text: Any) -> tuple[PlacedDesc, bool]:
    """What ``text`` describes (the notation or DxDispatch's JSON), built with ``cls``, and whether it
    names its data type (a line that names none is :data:`DEFAULT_DATA_TYPE`)."""
    if not isinstance(text, str):
        raise wrong_type("text", "a str", text)
    if text.lstrip().startswith("{"):
        _notation.check_length(text, "the JSON tensor description")
        return PlacedDesc(cls.from_json(_jsonc.loads(text, "cannot read the JSON tensor description"))), True
    line = _notation.parse_notation(text)
    desc = cls(line.data_type or DEFAULT_DATA_TYPE, line.sizes, line.strides, line.total)
    return PlacedDesc(desc, line.offset), line.data_type is not None


def parse_desc(cls: type[TensorDesc], text: Any) -> TensorDesc:
    """:meth:`TensorDesc.parse`: the description of text that starts at element 0 of its buffer."""
    placed, _ = read_placed(cls, text)
    if placed.offset:
        raise LayoutError(
            f"{shown(text, width=80)} starts at element {placed.offset} of its buffer (+{placed.offset}), and a "
            "TensorDesc has no offset (DirectML takes it where the buffer is bound); read it with "
            "TensorDesc.parse_placed(text), which gives the description and the offset"
        )
    return placed.desc
