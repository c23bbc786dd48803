"""The labels and fill colours of a drawing's slots: letters (or indices, or values) of the
elements each holds, ``x`` for padding and ``.`` for alignment, coloured by one dimension's index.

>>> from stridelab import TensorDesc
>>> default_colour_dim((1, 3, 2, 2)), default_colour_dim((2, 3))   # C of NCHW; else the outer drawn dimension
(1, 0)

internal: used by the drawings (``stridelab.render_svg``, ``stridelab.draw_memory_map``) and the widgets.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..memmap import LETTER_LABELS_UP_TO, MemoryMap, SlotKind, element_label
from .options import LabelSource
from .palette import fills_for
from .window import format_value

__all__: list[str] = []


def default_colour_dim(sizes: tuple[int, ...]) -> int:
    """The channel dimension (C, dimension 1) of a 4-D or 5-D tensor where it has more than one
    index, so that NHWC's interleaving of channels shows; else the outermost drawn dimension of
    size > 1 other than the innermost (for 6 to 8 dimensions the leading ones are fixed, so not
    drawn); the innermost where there is none."""
    if len(sizes) in (4, 5) and sizes[1] > 1:
        return 1
    first = max(0, len(sizes) - 4)
    return next((i for i in range(first, len(sizes) - 1) if sizes[i] > 1), len(sizes) - 1)


def labels_from(source: LabelSource | None, drawn: tuple, fills: tuple[str, ...], limit: int) -> tuple:
    """The drawn slots' labels and colours, and the fills: the drawing's own (``drawn``'s, and
    ``fills``), or taken from ``source``, each slot that holds an element labelled and coloured as
    the source element it is given is in the source's own drawing."""
    labels, colours, firsts = drawn[2], drawn[3], drawn[6]
    if source is None or source.desc is None:
        return labels, colours, fills
    m = source.desc.memory_map(limit=limit)
    held = np.flatnonzero(firsts >= 0)
    source_slots = m.offsets.ravel()[source.elements.ravel()[firsts[held].astype(np.int64)]]
    source_dim = default_colour_dim(source.desc.sizes)
    source_labels, source_colours, _ = slot_labels_and_colours(m, source_slots, source_dim)
    labels, colours = list(labels), colours.copy()
    for i, label in zip(held.tolist(), source_labels):
        labels[i] = label
    colours[held] = source_colours
    return labels, colours, fills_for(source.desc.sizes[source_dim])


def slot_labels_and_colours(m: MemoryMap, slots: np.ndarray, colour_dim: int) -> tuple[list[str], np.ndarray, Any]:
    """Labels and fill colours of the drawn ``slots``, and the row-major index of each one's first
    element (-1 for none): as :meth:`MemoryMap.slot_labels` would label them, but computed for the
    drawn slots only, so that a million-slot map stays fast."""
    kinds = m.slot_kinds[slots]
    occupied, first = np.unique(m.offsets.ravel(), return_index=True)
    position = np.minimum(np.searchsorted(occupied, slots), occupied.size - 1)
    has_element = (kinds == SlotKind.ELEMENT) | (kinds == SlotKind.SHARED)
    inner = math.prod(m.desc.sizes[colour_dim + 1 :])
    coordinate = (first[position] // inner) % m.desc.sizes[colour_dim]
    colours = np.where(has_element, coordinate, -1).astype(np.int64)
    labels = ["x" if k == SlotKind.PADDING else "." for k in kinds.tolist()]
    if m.values is not None:
        values = m.values[slots[has_element]].tolist()
        names = [format_value(v) for v in values]
    elif m.desc.element_count > LETTER_LABELS_UP_TO:
        names = [str(i) for i in first[position[has_element]].tolist()]
    else:
        rank = np.empty(first.size, dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(first.size)
        names = [element_label(r) for r in rank[position[has_element]].tolist()]
    for i, name in zip(np.flatnonzero(has_element).tolist(), names):
        labels[i] = name
    return labels, colours, np.where(has_element, first[position], -1)
