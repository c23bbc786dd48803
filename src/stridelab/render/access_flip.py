"""A memory map of a layout with negative strides, which no :class:`~stridelab.TensorDesc` describes
(DirectML strides are never negative): the map of the layout with their absolute values, which
holds the same slots from the lowest element on, its cells moved, renumbered and relabelled so that
the logical view shows the layout's own coordinates.

>>> from stridelab import TensorDesc
>>> from stridelab.render.scene import build_scene
>>> scene = flipped_scene(build_scene(TensorDesc("UINT8", (2, 3), (3, 1))), (0,), (-3, 1))
>>> sorted(zip(map(tuple, scene.cell_coords.tolist()), scene.cell_labels()))[:3]
[((0, 0), 'A'), ((0, 1), 'B'), ((0, 2), 'C')]
>>> scene.slot_labels   # row 0 lies in the upper slots
('D', 'E', 'F', 'A', 'B', 'C', '.', '.')

internal: used by the access picture (:mod:`.access`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

import numpy as np

from ..memmap import LETTER_LABELS_UP_TO, element_label
from .layout import Text
from .scene import Scene
from .window import Window, flat_indices

__all__: list[str] = []

_NUMBER = re.compile(r"-?\d+")


def flipped_scene(scene: Scene, flipped: Sequence[int], strides: Sequence[int]) -> Scene:
    """``scene`` (the map of a layout's absolute strides) as the map of the layout with ``strides``,
    negative along the dimensions ``flipped``: coordinate ``c`` of the map is ``sizes - 1 - c``
    there along them."""
    sizes = scene.desc.sizes
    win = scene.window
    starts = tuple(n - s - k if d in flipped else s for d, (n, s, k) in enumerate(zip(sizes, win.starts, win.counts)))
    real = scene.cell_coords.copy()
    for d in flipped:
        real[:, d] = sizes[d] - 1 - real[:, d]
    place = np.ravel_multi_index(tuple((real - np.asarray(starts, dtype=np.int64)).T), win.counts)
    index = flat_indices(real, sizes)
    labels = _labels(scene, index, flipped)
    shift = {d: starts[d] - win.starts[d] for d in flipped}
    texts = _texts(scene, Window(starts, win.counts), shift, strides)
    title = " · ".join(t.text for t in texts if t.role in ("summary", "detail"))
    return dataclasses.replace(
        scene,
        cell_x=scene.cell_x[place],
        cell_y=scene.cell_y[place],
        cell_coords=real,
        cell_index=index,
        window=Window(starts, win.counts),
        slot_labels=labels,
        texts=tuple(texts),
        title=title,
    )


def _labels(scene: Scene, index: np.ndarray, flipped: Sequence[int]) -> tuple[str, ...]:
    """The slots' labels by the layout's own logical order: a slot holding drawn cells is named by
    the first of them; a slot named by a flat index (a large map) by that element's own index."""
    sizes = scene.desc.sizes
    first: dict[int, int] = {}
    for slot, i in zip(scene.cell_slot.tolist(), index.tolist()):
        first[slot] = min(first.get(slot, i), i)
    letters = scene.desc.element_count <= LETTER_LABELS_UP_TO
    rank = {i: r for r, i in enumerate(sorted(set(first.values())))}
    labels = list(scene.slot_labels)
    for k, label in enumerate(labels):
        if k in first:
            labels[k] = element_label(rank[first[k]]) if letters else str(first[k])
        elif label.isdigit() and not letters:
            coords = list(np.unravel_index(int(label), sizes))
            for d in flipped:
                coords[d] = sizes[d] - 1 - coords[d]
            labels[k] = str(int(np.ravel_multi_index(tuple(coords), sizes)))
    return tuple(labels)


def _texts(scene: Scene, win: Window, shift: dict[int, int], strides: Sequence[int]) -> list[Text]:
    """The scene's texts naming the layout's own coordinates and strides."""
    desc, rank = scene.desc, scene.desc.dimension_count
    notes = iter(win.notes(desc.sizes))
    out = []
    for t in scene.texts:
        text = t.text
        if t.role == "summary":
            text = (
                f"{desc.data_type} · sizes {list(desc.sizes)} · strides {list(strides)}: negative, so the buffer "
                f"runs from the lowest element (strides {list(desc.strides)} from there)"
            )
        elif t.role == "note" and text.startswith(("showing", "dimensions 0 to")) and "slots" not in text:
            text = next(notes, text)
        elif t.role == "index" and rank >= 2 and rank - 1 in shift:
            text = str(int(text) + shift[rank - 1])
        elif t.role == "index-row":
            dim = rank - 2 if rank >= 2 else 0
            text = str(int(text) + shift[dim]) if dim in shift else text
        elif t.role == "tile-caption":
            text = _shifted_caption(text, shift)
        out.append(Text(t.x, t.y, text, t.role) if text != t.text else t)
    return out


def _shifted_caption(caption: str, shift: dict[int, int]) -> str:
    """A tile caption ``(i, j, :, :)``, its n-th index (dimension n) moved by ``shift[n]``."""
    numbers = iter(range(len(caption)))
    return _NUMBER.sub(lambda m: str(int(m.group()) + shift.get(next(numbers), 0)), caption)
