"""What a widget puts on its drawings, carried into its static picture: marks on cells and slots,
badges in cell corners, and one colour per logical element across the panels of one picture.

A map widget's ``marks`` name, per panel, the cells and slots (by position in the panel's scene)
that its script outlines or dims (:data:`~.palette.MARKS`); ``badges`` put a short text in a
cell's corner; ``keys`` link a cell to the cells of the other panels that show the same element.
The static picture may be drawn through another window than the live view, so all three are
matched by what they name: a cell by its row-major logical index, a slot by its buffer offset.

>>> from stridelab import TensorDesc
>>> from stridelab.render.scene import build_scene
>>> live = build_scene(TensorDesc("UINT8", (2, 3)))
>>> static = build_scene(TensorDesc("UINT8", (2, 3)), start=(1, 0))   # the second row only
>>> carried(static, live, {"cells": {"outside": [0, 4]}, "slots": {"read": [5]}}, None, None)[0].cell_marks
('', 'outside', '')

internal: used by the widgets' static pictures (``stridelab.widgets._panels``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .palette import MARKS
from .scene import Scene

__all__: list[str] = []

Key = Any  # a cell's key: an int (-1 for none), or a list of ints (linked to several elements)


def _named(positions: Any, count: int) -> list[int]:
    """The positions among ``count`` drawn items that exist (the widget script ignores others)."""
    return [int(p) for p in positions if 0 <= int(p) < count]


def _per_item(groups: Mapping[str, Any], count: int) -> tuple[str, ...]:
    """One mark name (or "") per item from ``{mark: [positions]}``: a later mark replaces an
    earlier one on the same item, as the script sets one ``data-mark`` after another."""
    if not groups:
        return ()
    out = [""] * count
    for name, positions in groups.items():
        for p in _named(positions, count):
            out[p] = str(name)
    return tuple(out)


def marked(scene: Scene, marks: Mapping[str, Any] | None, badges: Sequence[Any] | None = None) -> Scene:
    """``scene`` with ``marks`` (``{"cells": {mark: [positions]}, "slots": {...}}``, positions
    in ``scene``) and ``badges`` (a text or None per cell) on it, for the static picture."""
    marks = marks or {}
    return dataclasses.replace(
        scene,
        cell_marks=_per_item(marks.get("cells") or {}, scene.cell_count),
        slot_marks=_per_item(marks.get("slots") or {}, scene.slot_count),
        cell_badges=() if badges is None else tuple("" if b is None else str(b) for b in badges),
    )


def _where(wanted: np.ndarray, drawn: np.ndarray) -> list[int]:
    """For each of ``wanted`` (indices or offsets), its position in ``drawn``, or -1."""
    at = {int(v): i for i, v in enumerate(drawn.tolist())}
    return [at.get(int(v), -1) for v in wanted.tolist()]


def carried(
    scene: Scene, live: Scene, marks: Mapping[str, Any] | None, badges: Sequence[Any] | None, keys: Sequence[Key] | None
) -> tuple[Scene, list[Key]]:
    """``scene`` with the marks and badges that the widget put on ``live`` (a drawing of the same
    tensor, maybe through another window), and the key of each of its cells: ``keys`` names them
    for ``live``'s cells (None: each cell's row-major index); a cell ``live`` does not draw gets
    no mark, no badge and key -1 (its own index where ``keys`` is None)."""
    marks = marks or {}
    cell_at = _where(live.cell_index, scene.cell_index)
    slot_at = _where(live.slot_offsets, scene.slot_offsets)
    moved: dict[str, dict[str, list[int]]] = {}
    for part, at in (("cells", cell_at), ("slots", slot_at)):
        moved[part] = {
            name: [at[p] for p in _named(positions, len(at)) if at[p] >= 0]
            for name, positions in (marks.get(part) or {}).items()
        }
    from_live = _where(scene.cell_index, live.cell_index)
    shown_badges = None
    if badges is not None:
        shown_badges = [badges[i] if 0 <= i < len(badges) else None for i in from_live]
    if keys is None:
        scene_keys: list[Key] = scene.cell_index.tolist()
    else:
        scene_keys = [keys[i] if 0 <= i < len(keys) else -1 for i in from_live]
    return marked(scene, moved, shown_badges), scene_keys


def _single(key: Key) -> int:
    """A key naming one element, as an int; -1 for none or several."""
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        return int(key)
    return -1


def shared_colours(scenes: Sequence[Scene], keys: Sequence[Sequence[Key] | None]) -> list[Scene]:
    """The scenes with one colour per element across them: each slot of a later panel that holds a
    cell keyed as one element of the first panel is filled as that element is there (the first
    such cell in the drawing decides a slot shared by several). Cells keyed as several elements
    (a sum) or as none keep their own colours.

    >>> from stridelab import TensorDesc
    >>> from stridelab.render.scene import build_scene
    >>> rows, column = build_scene(TensorDesc("FLOAT32", (3, 2))), build_scene(TensorDesc("FLOAT32", (3,)))
    >>> column.slot_colours.tolist()   # its own: by its only dimension
    [0, 1, 2]
    >>> # output element i copied from input element (2 - i, 0): the input colours rows
    >>> shared_colours([rows, column], [[2, -1, 1, -1, 0, -1], None])[1].slot_colours.tolist()
    [2, 1, 0]
    """
    if len(scenes) < 2:
        return list(scenes)
    first = scenes[0]
    source: dict[int, int] = {}
    first_keys = first.cell_index.tolist() if keys[0] is None else keys[0]
    for key, slot in zip(first_keys, first.cell_slot.tolist()):
        colour = int(first.slot_colours[slot])
        if _single(key) >= 0 and colour >= 0:
            source.setdefault(_single(key), colour % len(first.fills))
    out = [first]
    for scene, scene_keys in zip(scenes[1:], keys[1:]):
        out.append(_coloured_as(scene, scene.cell_index.tolist() if scene_keys is None else scene_keys, source, first))
    return out


def _coloured_as(scene: Scene, keys: Sequence[Key], source: dict[int, int], first: Scene) -> Scene:
    """``scene`` with its keyed slots coloured from ``source`` (colour indices into ``first``'s
    fills) and its other slots keeping their fills, all as indices into one fills tuple."""
    colours = scene.slot_colours.copy()
    taken = np.zeros(scene.slot_count, dtype=bool)
    for key, slot in zip(keys, scene.cell_slot.tolist()):
        if not taken[slot] and colours[slot] >= 0 and _single(key) in source:
            colours[slot], taken[slot] = source[_single(key)], True
    if not taken.any():
        return scene
    fills = first.fills + tuple(dict.fromkeys(f for f in scene.fills if f not in first.fills))
    for slot in np.flatnonzero(~taken & (colours >= 0)).tolist():
        colours[slot] = fills.index(scene.fills[colours[slot] % len(scene.fills)])
    return dataclasses.replace(scene, slot_colours=colours, fills=fills)


def _mark_order(mark: str) -> tuple[int, str]:
    """Marks in the order of :data:`~.palette.MARKS`, others after them by name."""
    order = list(MARKS)
    return (order.index(mark), "") if mark in order else (len(order), mark)


def _counted(count: int, what: str) -> str:
    return f"{count} {what}" + ("" if count == 1 else "s")


def marks_text(scenes: Sequence[Scene], names: Sequence[str]) -> str:
    """What the marks and badges on ``scenes`` pick out, counted, for the plain-text form of a
    picture; "" where nothing is marked.

    >>> from stridelab import TensorDesc
    >>> from stridelab.render.scene import build_scene
    >>> scene = marked(build_scene(TensorDesc("FLOAT32", (2, 2))), {"cells": {"read": [0, 1]}, "slots": {"read": [1]}})
    >>> marks_text([scene], ["input"])
    'marked: input: read 2 cells and 1 slot'
    """
    panels = []
    for scene, name in zip(scenes, names):
        counts: dict[str, list[str]] = {}
        for items, what in ((scene.cell_marks, "cell"), (scene.slot_marks, "slot")):
            for mark in sorted({m for m in items if m}, key=_mark_order):
                counts.setdefault(mark, []).append(_counted(items.count(mark), what))
        numbered = sum(1 for badge in scene.cell_badges if badge)
        if numbered:
            counts.setdefault("numbered", []).append(_counted(numbered, "cell"))
        if counts:
            parts = ", ".join(f"{mark} {' and '.join(what)}" for mark, what in counts.items())
            panels.append(f"{name}: {parts}" if name else parts)
    return "marked: " + "; ".join(panels) if panels else ""
