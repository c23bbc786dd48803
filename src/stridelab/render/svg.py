"""Memory maps as deterministic SVG: the same input gives the same bytes, on any machine.

No random ids, no addresses, integer coordinates only. Every logical cell is a ``<g
class="cell">`` with ``data-coords``, ``data-index`` (row-major), ``data-slot`` (its buffer element
offset) and ``data-label``; every drawn slot a ``<g class="slot KIND">`` with ``data-slot``,
``data-byte``, ``data-count`` and ``data-label``; so tests, stylesheets and scripts can find them.
Offsets are the buffer's: those of a ``PlacedDesc`` count from the start of its buffer, and the
slots before the tensor are ``<g class="slot before">``.

>>> from stridelab import TensorDesc
>>> svg = render_svg(TensorDesc("FLOAT32", (2, 3), (0, 1)))   # broadcast: height-stride 0
>>> svg.count('class="cell"'), svg.count('class="slot shared"')
(6, 3)

internal: ``render_svg`` is public as ``stridelab.render_svg``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from html import escape
from typing import Any

from .._validate import known_keywords, layout_error, shown
from ..memmap import DEFAULT_LIMIT, SlotKind
from .layout import BEFORE_LABEL
from .options import DEFAULT_MAX_CELLS, DrawOptions
from .palette import (
    ALIGNMENT_FILL,
    BACKGROUND,
    CELL_H,
    CELL_W,
    FONT_FAMILY,
    INK,
    MARKS,
    PADDING_FILL,
    PADDING_HATCH,
    STROKE,
    TEXT_ROLES,
    label_font_size,
)
from .scene import STACK_CAPTION, Scene, Text, placement, scene_for, stack_scenes

__all__: list[str] = []

#: The SVG class (and legend word) of each :class:`~stridelab.memmap.SlotKind`.
KIND_NAMES = {
    SlotKind.ELEMENT: "element",
    SlotKind.SHARED: "shared",
    SlotKind.PADDING: "padding",
    SlotKind.ALIGNMENT: "alignment",
    SlotKind.BEFORE: "before",
}
_HATCH_ID = "stridelab-hatch"
_DEFS = (
    f'<defs><pattern id="{_HATCH_ID}" width="6" height="6" patternUnits="userSpaceOnUse" '
    f'patternTransform="rotate(45)"><rect width="6" height="6" fill="{PADDING_FILL}"/>'
    f'<line x1="0" y1="0" x2="0" y2="6" stroke="{PADDING_HATCH}" stroke-width="2"/></pattern></defs>'
)


@known_keywords
def render_svg(
    obj: Any,
    *,
    max_cells: int = DEFAULT_MAX_CELLS,
    columns: int = 16,
    start: tuple[int, ...] | None = None,
    window: Sequence[tuple[int, int]] | None = None,
    colour_by: int | None = None,
    limit: int = DEFAULT_LIMIT,
    scale: float = 1.0,
) -> str:
    """The memory map of ``obj`` as an SVG document: the logical view beside the buffer strip.

    Parameters
    ----------
    obj : TensorDesc, MemoryMap, StridedTensor, PlacedDesc or AccessReport
        What to draw; a strided tensor's cells show its buffer's values, otherwise letters
        (A, B, ... in logical order, as on DirectML's strides page). A ``PlacedDesc`` (a
        description from an offset into its buffer on) is drawn at its offset: the strip shows
        the buffer's offsets and, hatched and marked ``-``, the slots before the tensor. An
        :class:`~stridelab.AccessReport` draws its layout's memory map coloured by request, the
        first requests' sectors outlined (see :mod:`stridelab.render.access`); ``colour_by``
        does not apply to it.
    max_cells : int
        The most logical cells and the most slots drawn; larger maps are windowed, and the
        drawing says so.
    columns : int
        Slots per row of the buffer strip.
    start, window, colour_by, limit
        See :func:`stridelab.render.scene.build_scene`: the window's first corner, or the window
        as one ``(start, count)`` pair per dimension; the dimension colours follow; the most
        elements a full memory map is built for.
    scale : float
        Show the drawing this many times its size (e.g. 2 on a projector); the same drawing.

    Returns
    -------
    str
        A standalone ``<svg>`` element with its own white background (readable in light and dark
        themes), identical for identical input.

    Examples
    --------
    >>> import stridelab as sl
    >>> svg = sl.render_svg(sl.TensorDesc("FLOAT32", (2, 3), (5, 1)))   # padded rows
    >>> svg.count('class="slot padding"')
    2
    >>> svg = sl.render_svg(sl.TensorDesc.parse_placed("FLOAT32 (2,3):(3,1) +5"))
    >>> svg.count('class="slot before"'), 'data-slot="5" data-byte="20"' in svg   # A is element 5
    (5, True)
    """
    scale = check_scale(scale)
    from .._access_report import AccessReport

    if isinstance(obj, AccessReport):
        if colour_by is not None:
            raise TypeError("colour_by does not apply to an AccessReport: its cells are coloured by request")
        from .access import access_drawing
        from .access_paint import access_svg

        drawing = access_drawing(obj, max_cells=max_cells, columns=columns, start=start, window=window, limit=limit)
        return access_svg(drawing, scale)
    what, offset = placement(obj)
    scene = scene_for(what, DrawOptions(max_cells, columns, start, window, colour_by, limit), offset=offset)
    return scene_svg(scene, scale=scale)


def slot_fill(kind: int, colour: int, fills: Sequence[str]) -> str:
    """The fill of a slot (and of its cells) of ``kind`` with colour index ``colour``."""
    if kind in (SlotKind.PADDING, SlotKind.BEFORE):
        return f"url(#{_HATCH_ID})"
    if kind == SlotKind.ALIGNMENT:
        return ALIGNMENT_FILL
    return fills[colour % len(fills)]


def _texts(texts: tuple[Text, ...]) -> list[str]:
    """The texts, one group per role (in order of first use) carrying the role's font and colour."""
    by_role: dict[str, list[Text]] = {}
    for t in texts:
        by_role.setdefault(t.role, []).append(t)
    out = []
    for name, group in by_role.items():
        role = TEXT_ROLES[name]
        weight = ' font-weight="bold"' if role.weight == "bold" else ""
        out.append(
            f'<g class="{name}" font-size="{role.size}"{weight} text-anchor="{role.anchor}" fill="{role.colour}">'
        )
        out.extend(f'<text x="{t.x}" y="{t.y}">{escape(t.text)}</text>' for t in group)
        out.append("</g>")
    return out


def _label(x: int, y: int, label: str, cell_w: int) -> str:
    size = label_font_size(label)
    font = "" if size == 12 else f' font-size="{size}"'
    return f'<text x="{x + cell_w // 2}" y="{y + 16}"{font}>{escape(label)}</text>'


def _badge(x: int, y: int, badge: str | None) -> str:
    if not badge:
        return ""
    return (
        f'<text class="badge" x="{x + 2}" y="{y + 9}" font-size="9" font-weight="bold" '
        f'text-anchor="start">{escape(badge)}</text>'
    )


def _marked(mark: str) -> tuple[str, str]:
    """The attributes a ``mark`` (see :data:`~.palette.MARKS`) gives an element's group and its
    rectangle, as the widget stylesheet draws ``[data-mark]``; nothing for no mark."""
    style = MARKS.get(mark)
    if style is None:
        return (f' data-mark="{escape(mark)}"' if mark else ""), f' stroke="{STROKE}"'
    group = f' data-mark="{mark}"' + (f' opacity="{style.opacity:g}"' if style.opacity < 1 else "")
    rect = f' stroke="{style.stroke}"' + (f' stroke-width="{style.width:g}"' if style.width != 1 else "")
    if style.dash is not None:
        rect += f' stroke-dasharray="{style.dash[0]} {style.dash[1]}"'
    return group, rect


def _cells(scene: Scene, badges: Sequence[str | None] | None = None) -> list[str]:
    labels = scene.cell_labels()
    badges = badges if badges is not None else scene.cell_badges or [None] * scene.cell_count
    marks = scene.cell_marks or ("",) * scene.cell_count
    out = []
    for x, y, coords, index, slot, label, badge, mark in zip(
        scene.cell_x.tolist(),
        scene.cell_y.tolist(),
        scene.cell_coords.tolist(),
        scene.cell_index.tolist(),
        scene.cell_slot.tolist(),
        labels,
        badges,
        marks,
    ):
        offset = scene.offset + int(scene.slot_offsets[slot])
        fill = slot_fill(int(scene.slot_kinds[slot]), int(scene.slot_colours[slot]), scene.fills)
        group, stroke = _marked(mark)
        out.append(
            f'<g class="cell" data-coords="{",".join(map(str, coords))}" data-index="{index}" '
            f'data-slot="{offset}" data-label="{escape(label)}"{group}>'
            f'<rect x="{x}" y="{y}" width="{scene.cell_w}" height="{CELL_H}" fill="{fill}"{stroke}/>'
            f"{_label(x, y, label, scene.cell_w)}{_badge(x, y, badge)}</g>"
        )
    return out


def _slots(scene: Scene) -> list[str]:
    size = scene.desc.element_size
    marks = scene.slot_marks or ("",) * scene.slot_count
    out = []
    for x, y, slot, kind, count, colour, label, mark in zip(
        scene.slot_x.tolist(),
        scene.slot_y.tolist(),
        scene.slot_offsets.tolist(),
        scene.slot_kinds.tolist(),
        scene.slot_counts.tolist(),
        scene.slot_colours.tolist(),
        scene.slot_labels,
        marks,
    ):
        group, stroke = _marked(mark)
        offset = scene.offset + slot
        dash = ' stroke-dasharray="3 2"' if kind == SlotKind.ALIGNMENT and "dasharray" not in stroke else ""
        badge = (
            f'<text class="count" x="{x + scene.cell_w - 2}" y="{y + 8}" font-size="8" '
            f'text-anchor="end">×{count}</text>'
            if kind == SlotKind.SHARED
            else ""
        )
        out.append(
            f'<g class="slot {KIND_NAMES[kind]}" data-slot="{offset}" data-byte="{offset * size}" '
            f'data-count="{count}" data-label="{escape(label)}"{group}>'
            f'<rect x="{x}" y="{y}" width="{scene.cell_w}" height="{CELL_H}" '
            f'fill="{slot_fill(kind, colour, scene.fills)}"{stroke}{dash}/>'
            f"{_label(x, y, label, scene.cell_w)}{badge}</g>"
        )
    return out


def _gaps(scene: Scene) -> list[str]:
    return [
        f'<g class="gap" data-skipped="{skipped}"><rect x="{x}" y="{y}" width="{CELL_W // 2}" height="{CELL_H}" '
        f'fill="none" stroke="{STROKE}" stroke-dasharray="2 2"/><text x="{x + CELL_W // 4}" y="{y + 16}">⋯</text>'
        f"<title>{skipped} slots not drawn</title></g>"
        for x, y, skipped in scene.gaps
    ]


def _legend(scene: Scene) -> list[str]:
    out, hatch = [], f"url(#{_HATCH_ID})"
    for x, y, name in scene.legend:
        fill = {"padding": hatch, "before": hatch, "alignment": ALIGNMENT_FILL}.get(name, BACKGROUND)
        dash = ' stroke-dasharray="3 2"' if name in ("alignment", "gap") else ""
        mark = {"before": BEFORE_LABEL, "padding": "x", "alignment": ".", "shared": "×n", "gap": "⋯"}[name]
        out.append(
            f'<g class="legend-{name}"><rect x="{x}" y="{y}" width="16" height="14" fill="{fill}" '
            f'stroke="{STROKE}"{dash}/><text x="{x + 8}" y="{y + 11}" font-size="9">{mark}</text></g>'
        )
    return out


def _body(scene: Scene, badges: Sequence[str | None] | None = None) -> list[str]:
    """Everything inside the ``<svg>`` element but the hatch pattern it refers to."""
    w, h = scene.width, scene.height
    sizes = ",".join(map(str, scene.desc.sizes))
    slots = f'data-slots="{scene.desc.slot_count}"'
    if scene.offset:
        slots = f'data-slots="{scene.offset + scene.desc.slot_count}" data-offset="{scene.offset}"'
    return [
        f"<title>{escape(scene.title)}</title>",
        f'<rect class="background" width="{w}" height="{h}" fill="{BACKGROUND}"/>',
        '<g class="texts">',
        *_texts((*scene.texts, *scene.slot_texts())),
        "</g>",
        f'<g class="logical" data-sizes="{sizes}" text-anchor="middle" font-size="12" fill="{INK}">',
        *_cells(scene, badges),
        "</g>",
        f'<g class="buffer" {slots} text-anchor="middle" font-size="12" fill="{INK}">',
        *_slots(scene),
        *_gaps(scene),
        "</g>",
        f'<g class="legend" text-anchor="middle" fill="{INK}">',
        *_legend(scene),
        "</g>",
    ]


def _open(w: int, h: int, title: str, extra: str = "", scale: float = 1.0) -> str:
    """The ``<svg>`` element of a ``w`` x ``h`` drawing, shown ``scale`` times its size."""
    shown_w, shown_h = round(w * scale), round(h * scale)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="stridelab-map"{extra} width="{shown_w}" height="{shown_h}" '
        f'viewBox="0 0 {w} {h}" font-family="{FONT_FAMILY}" role="img" aria-label="{escape(title)}">'
    )


def check_scale(scale: Any) -> float:
    """``scale`` as a float in (0, 8]: how many times its size a drawing is shown (e.g. 2 on a projector)."""
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
        raise TypeError(f"scale must be a number, not {type(scale).__name__} ({shown(scale)})")
    try:
        value = float(scale)
    except OverflowError:  # an integer or fraction past any float
        value = math.inf
    if not 0 < value <= 8:
        raise layout_error("scale", scale, "it must be more than 0 and at most 8")
    return value


def scene_svg(scene: Scene, badges: Sequence[str | None] | None = None, scale: float = 1.0) -> str:
    """Paint a :class:`~stridelab.render.scene.Scene` as a standalone SVG document; ``badges``
    (one text or None per drawn cell) go in the cells' top left corners (e.g. a copy order)."""
    opening = _open(scene.width, scene.height, scene.title, scale=scale)
    return "\n".join([opening, _DEFS, *_body(scene, badges), "</svg>"])


def scenes_svg(scenes: list[Scene], names: list[str], scale: float = 1.0) -> str:
    """Several scenes in one SVG document, one above the other under its name (e.g. a layout),
    so that their buffer strips line up for comparison."""
    width, height, tops = stack_scenes(scenes)
    title = " | ".join(f"{n}: {s.title}" if n else s.title for s, n in zip(scenes, names))
    parts = [
        _open(width, height, title, f' data-panels="{len(scenes)}"', scale),
        _DEFS,
        f'<rect class="background" width="{width}" height="{height}" fill="{BACKGROUND}"/>',
    ]
    for i, (scene, name, y) in enumerate(zip(scenes, names, tops)):
        parts.append(
            f'<text class="panel-name" x="10" y="{y + 16}" font-size="13" font-weight="bold" '
            f'fill="{INK}">{escape(name)}</text>'
        )
        parts.append(
            f'<svg class="panel" data-panel="{i}" x="0" y="{y + STACK_CAPTION}" width="{scene.width}" '
            f'height="{scene.height}" viewBox="0 0 {scene.width} {scene.height}">'
        )
        parts.extend(_body(scene))
        parts.append("</svg>")
    parts.append("</svg>")
    return "\n".join(parts)


def pictures_svg(scenes: list[Scene], names: list[str], scale: float = 1.0) -> str:
    """One unnamed scene as :func:`scene_svg`, otherwise as :func:`scenes_svg`."""
    if len(scenes) == 1 and not names[0]:
        return scene_svg(scenes[0], scale=scale)
    return scenes_svg(scenes, names, scale)
