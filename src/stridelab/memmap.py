"""Memory maps: where every logical element of a description lives, and what every slot holds.

A :class:`MemoryMap` is the vectorised logical-to-physical map of one :class:`TensorDesc`: the
offset of every logical element, and for every physical slot of the buffer the logical elements
that land there (none: padding or alignment; several: broadcast or overlap). It renders as the
offset/value tables of DirectML's strides page.

>>> print(TensorDesc("UINT8", (2, 3), (5, 1)).memory_map().table())
Offset:|0|1|2|3|4|5|6|7
-|-|-|-|-|-|-|-|-
Value:|A|B|C|x|x|D|E|F

internal: ``MemoryMap`` is public as ``stridelab.MemoryMap``.
"""

from __future__ import annotations

import itertools
import string
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._analysis import ENUMERATION_LIMIT, logical_offsets
from ._validate import at_least, int_value, shown, wrong_type
from .desc import TensorDesc
from .errors import LayoutError

__all__: list[str] = []

#: The most logical elements, and the most physical slots, a memory map is built for by default.
DEFAULT_LIMIT = ENUMERATION_LIMIT


class SlotKind:
    """What a physical slot holds: the values of :attr:`MemoryMap.slot_kinds` (and, for
    drawings, of a slot before a tensor placed at an offset into its buffer)."""

    ELEMENT = 0  #: exactly one logical element
    SHARED = 1  #: several logical elements (broadcast or overlap)
    PADDING = 2  #: no element, inside the buffer's meaningful part
    ALIGNMENT = 3  #: no element, there only because buffer sizes round up to 4 bytes
    BEFORE = 4  #: no element: before the tensor's element 0 (a drawing of a PlacedDesc; never in a map)


#: Descriptions of at most this many elements label them with letters, as DirectML's pages do;
#: larger ones with the row-major (flat) index of each slot's first element, which stays readable.
LETTER_LABELS_UP_TO = 26


def element_label(index: int) -> str:
    """Spreadsheet-style letters for the ``index``-th distinct element: A..Z, AA..AZ, BA, ..."""
    label = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        label = chr(ord("A") + rest) + label
    return label


def element_labels_in_order(count: int) -> list[str]:
    """The first ``count`` labels of :func:`element_label`, A, B, ..., Z, AA, ..., made in bulk."""
    labels: list[str] = []
    length = 1
    while len(labels) < count:
        words = itertools.product(string.ascii_uppercase, repeat=length)
        labels.extend(map("".join, itertools.islice(words, count - len(labels))))
        length += 1
    return labels


def tiles_text(labels: np.ndarray, starts: Sequence[int] | None = None) -> str:
    """An array of labels as rows of text, its 2-D tiles separated by a blank line; where the rank
    is 4 or more, each tile is headed by its leading coordinates (counted from ``starts``, the
    coordinates of ``labels[0, ..., 0]``, default zeros)."""
    starts = (0,) * labels.ndim if starts is None else tuple(starts)
    width = max(len(s) for s in labels.ravel())
    grid = labels.reshape((1,) * max(0, 2 - labels.ndim) + labels.shape)
    tiles = []
    for lead in np.ndindex(*grid.shape[:-2]):
        rows = [" ".join(s.rjust(width) for s in row) for row in grid[lead].tolist()]
        if labels.ndim >= 4:
            rows.insert(0, "(" + ", ".join([*(str(s + i) for s, i in zip(starts, lead)), ":", ":"]) + ")")
        tiles.append("\n".join(rows))
    return "\n\n".join(tiles)


class MemoryMap:
    """The logical-to-physical map of ``desc``, optionally bound to a buffer's ``values``.

    Refuses, before allocating anything, a description with more than ``limit`` logical elements
    or physical slots (default :data:`DEFAULT_LIMIT`).

    Attributes
    ----------
    offsets : numpy.ndarray
        int64 array of shape ``desc.sizes``: the buffer element offset of each logical element.
    slot_counts : numpy.ndarray
        For each of the ``desc.slot_count`` slots, how many logical elements land there.
    slot_kinds : numpy.ndarray
        For each slot, a :class:`SlotKind` value.

    Examples
    --------
    >>> import stridelab as sl
    >>> m = sl.TensorDesc("UINT8", (2, 3), strides=(5, 1)).memory_map()
    >>> m.offsets.tolist()
    [[0, 1, 2], [5, 6, 7]]
    >>> m.slot_counts.tolist()  # slots 3 and 4 are padding
    [1, 1, 1, 0, 0, 1, 1, 1]
    """

    def __init__(self, desc: TensorDesc, values: Any | None = None, *, limit: int = DEFAULT_LIMIT) -> None:
        if not isinstance(desc, TensorDesc):
            raise wrong_type("desc", "a TensorDesc", desc)
        limit = at_least("limit", limit, 1)
        for what, count in (("logical elements", desc.element_count), ("physical slots", desc.slot_count)):
            if count > limit:
                raise LayoutError(
                    f"{desc!r} has {count} {what}; memory maps are built for at most {limit} "
                    "(pass a larger limit= if you mean it)"
                )
        self.desc = desc
        self.offsets = np.ascontiguousarray(logical_offsets(desc.sizes, desc.strides))
        flat = self.offsets.ravel()
        self._order = np.argsort(flat, kind="stable")
        self.slot_counts = np.bincount(flat, minlength=desc.slot_count)
        self._starts = np.concatenate(([0], np.cumsum(self.slot_counts)))
        aligned_from = desc.last_offset + 1
        aligned_to = desc.required_size // desc.element_size
        kinds = np.full(desc.slot_count, SlotKind.PADDING, dtype=np.int8)
        kinds[aligned_from:aligned_to] = SlotKind.ALIGNMENT
        kinds[self.slot_counts == 1] = SlotKind.ELEMENT
        kinds[self.slot_counts > 1] = SlotKind.SHARED
        self.slot_kinds = kinds
        self.values = None if values is None else self._check_values(values)

    def _check_values(self, values: Any) -> np.ndarray:
        values = np.asarray(values)
        if values.ndim != 1 or values.size <= self.desc.last_offset:
            raise LayoutError(
                f"values must be a 1-D buffer of at least {self.desc.last_offset + 1} elements "
                f"for {self.desc!r}; got shape {values.shape}"
            )
        return values

    # -- queries ------------------------------------------------------------------------------
    @property
    def element_count(self) -> int:
        return self.offsets.size

    @property
    def slot_count(self) -> int:
        return self.slot_counts.size

    def slots_of(self, kind: int) -> np.ndarray:
        """Indices of the slots of one :class:`SlotKind`."""
        return np.flatnonzero(self.slot_kinds == kind)

    @property
    def padding_slots(self) -> np.ndarray:
        return self.slots_of(SlotKind.PADDING)

    @property
    def alignment_slots(self) -> np.ndarray:
        return self.slots_of(SlotKind.ALIGNMENT)

    @property
    def shared_slots(self) -> np.ndarray:
        return self.slots_of(SlotKind.SHARED)

    def elements_at(self, slot: int) -> list[tuple[int, ...]]:
        """Logical coordinates of the elements stored at ``slot``, in row-major order."""
        slot = int_value("slot", slot)
        if not 0 <= slot < self.slot_count:
            raise LayoutError(f"slot {shown(slot)} is out of range for a buffer of {self.slot_count} slots")
        flat = self._order[self._starts[slot] : self._starts[slot + 1]]
        return [tuple(int(i) for i in c) for c in zip(*np.unravel_index(flat, self.desc.sizes))]

    def slot_labels(self) -> list[str]:
        """A label per slot: its value (bound); else the letter of its first element in logical
        order (A, B, ... for at most 26 elements, as on DirectML's pages) or, for larger
        descriptions, that element's row-major index; ``x`` for padding and ``.`` for alignment."""
        return self._slot_labels().tolist()

    def _slot_labels(self) -> np.ndarray:
        labels = np.where(self.slot_kinds == SlotKind.PADDING, "x", ".").astype(object)
        slots = np.flatnonzero(self.slot_counts > 0)
        if self.values is not None:
            labels[slots] = list(map(str, self.values[slots].tolist()))
            return labels
        # each occupied slot's first element in row-major order (the sort by offset is stable)
        first = self._order[self._starts[slots]]
        if self.desc.element_count > LETTER_LABELS_UP_TO:
            labels[slots] = list(map(str, first.tolist()))
        else:
            labels[slots[np.argsort(first)]] = element_labels_in_order(slots.size)
        return labels

    def element_labels(self) -> np.ndarray:
        """The label of each logical element (that of its slot), as an array of shape ``sizes``."""
        return self._slot_labels()[self.offsets]

    # -- text rendering -----------------------------------------------------------------------
    def table(self, include_alignment: bool = False) -> str:
        """The strides page's offset/value table (padding ``x``; alignment ``.`` when included)."""
        labels = self.slot_labels()
        shown = [i for i, k in enumerate(self.slot_kinds.tolist()) if include_alignment or k != SlotKind.ALIGNMENT]
        return "\n".join(
            (
                "Offset:|" + "|".join(str(i) for i in shown),
                "-|" + "|".join("-" for _ in shown),
                "Value:|" + "|".join(labels[i] for i in shown),
            )
        )

    def logical_text(self) -> str:
        """The logical view as on the strides page: rows of labels, 2-D tiles separated by a blank
        line, each tile headed by its leading coordinates where the rank is 4 or more."""
        return tiles_text(self.element_labels())

    def summary(self) -> str:
        """One line: data type, sizes, strides, classification, elements, slots and bytes."""
        d = self.desc
        kinds = [
            name
            for name, flag in (
                ("packed", d.is_packed),
                ("padded", d.is_padded),
                ("broadcast", d.is_broadcast),
                ("overlapping", d.is_overlapping),
            )
            if flag
        ]
        counts = np.bincount(self.slot_kinds, minlength=4)
        return (
            f"{d.data_type} sizes {list(d.sizes)} strides {list(d.strides)}: {', '.join(kinds) or 'strided'}; "
            f"{self.element_count} logical elements in {self.slot_count} slots "
            f"({counts[SlotKind.ELEMENT]} single, {counts[SlotKind.SHARED]} shared, "
            f"{counts[SlotKind.PADDING]} padding, {counts[SlotKind.ALIGNMENT]} alignment); "
            f"{d.buffer_size} bytes"
        )

    def __str__(self) -> str:
        return f"{self.logical_text()}\n\n{self.table()}\n\n{self.summary()}"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> tuple[dict, dict]:
        """Jupyter's display: the memory-map picture (logical grid beside the physical buffer) as
        SVG and PNG, and the repr as text."""
        from .render.picture import display_bundle

        return display_bundle(self)

    def __repr__(self) -> str:
        bound = "" if self.values is None else ", bound to values"
        return f"MemoryMap({self.desc!r}{bound})"
