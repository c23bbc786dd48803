"""Pictures made of labelled boxes and texts (tables, strips of slots, grids of cells), painted as
SVG and as PNG the way memory maps are: the same fonts, palette, hatch and text roles, the SVG
deterministic, the PNG painted by Pillow at two pixels per drawing pixel.

>>> drawing = BoxDrawing(80, 40, "two boxes", (Box(10, 10, 32, 24, label="A"), Box(42, 10, 32, 24, HATCH, "x")))
>>> svg = boxes_svg(drawing)
>>> svg.count('<g class="box">'), svg.count('fill="url(#stridelab-hatch)"')
(2, 1)

internal: used by the pictures of objects that are no memory map (``sl.check_layouts``' answer).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from typing import Any

from .layout import Text
from .options import session_scale
from .palette import BACKGROUND, INK, STROKE, label_font_size
from .picture import PICTURE_BYTES, Bundle
from .svg import _DEFS, _HATCH_ID, _open, _texts

__all__: list[str] = []

#: The fill of a :class:`Box` hatched like padding.
HATCH = "hatch"


@dataclass(frozen=True)
class Box:
    """A rectangle at (``x``, ``y``), ``w`` by ``h`` pixels, of ``fill`` (a colour or
    :data:`HATCH`) with a centred ``label`` and a ``badge`` in its top left corner; its
    ``outline`` is ``thin``, ``thick`` (a marked box), ``dashed`` or ``none``. In the SVG it is
    a ``<g>`` of class ``kind`` carrying the ``data`` attributes (name, value)."""

    x: int
    y: int
    w: int
    h: int
    fill: str = BACKGROUND
    label: str = ""
    badge: str = ""
    outline: str = "thin"
    kind: str = "box"
    data: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class BoxDrawing:
    """A ``width`` by ``height`` picture of ``boxes`` under ``texts`` (set in the text roles of
    :data:`~stridelab.render.palette.TEXT_ROLES`), titled ``title``."""

    width: int
    height: int
    title: str
    boxes: tuple[Box, ...] = ()
    texts: tuple[Text, ...] = ()


def _svg_box(box: Box) -> str:
    fill = f"url(#{_HATCH_ID})" if box.fill == HATCH else box.fill
    stroke = {
        "thin": f'stroke="{STROKE}"',
        "thick": f'stroke="{STROKE}" stroke-width="2"',
        "dashed": f'stroke="{STROKE}" stroke-dasharray="3 2"',
        "none": 'stroke="none"',
    }[box.outline]
    data = "".join(f' data-{name}="{escape(value)}"' for name, value in box.data)
    parts = [
        f'<g class="{escape(box.kind)}"{data}>',
        f'<rect x="{box.x}" y="{box.y}" width="{box.w}" height="{box.h}" fill="{fill}" {stroke}/>',
    ]
    if box.label:
        size = label_font_size(box.label)
        font = "" if size == 12 else f' font-size="{size}"'
        weight = ' font-weight="bold"' if box.outline == "thick" else ""
        baseline = box.y + box.h // 2 + 4
        parts.append(f'<text x="{box.x + box.w // 2}" y="{baseline}"{font}{weight}>{escape(box.label)}</text>')
    if box.badge:
        parts.append(
            f'<text class="badge" x="{box.x + 2}" y="{box.y + 9}" font-size="9" font-weight="bold" '
            f'text-anchor="start">{escape(box.badge)}</text>'
        )
    parts.append("</g>")
    return "".join(parts)


def boxes_svg(drawing: BoxDrawing, scale: float = 1.0) -> str:
    """``drawing`` as a standalone SVG document, identical for identical input."""
    w, h = drawing.width, drawing.height
    return "\n".join(
        [
            _open(w, h, drawing.title, ' data-picture="boxes"', scale),
            _DEFS,
            f"<title>{escape(drawing.title)}</title>",
            f'<rect class="background" width="{w}" height="{h}" fill="{BACKGROUND}"/>',
            f'<g class="boxes" text-anchor="middle" font-size="12" fill="{INK}">',
            *(_svg_box(box) for box in drawing.boxes),
            "</g>",
            '<g class="texts">',
            *_texts(drawing.texts),
            "</g>",
            "</svg>",
        ]
    )


#: About how many bytes a PNG of boxes and texts takes per image pixel at two pixels per drawing
#: pixel (0.012 to 0.017 on the layout checks' pictures): a drawing whose estimate passes the
#: budget is painted at one pixel per drawing pixel straight away, rather than painted twice.
PNG_BYTES_PER_PIXEL = 0.016


def png_within(paint: Callable[[int], Any], width: int, height: int, max_bytes: int | None) -> bytes:
    """The PNG of a ``width`` x ``height`` drawing that ``paint(scale)`` paints, at two image pixels
    per drawing pixel; at one where that PNG would be more than ``max_bytes`` (estimated first, so
    that a large drawing is painted once)."""
    from .png import _encoded

    if max_bytes is not None and 4 * width * height * PNG_BYTES_PER_PIXEL > max_bytes:
        return _encoded(paint(1))
    data = _encoded(paint(2))
    if max_bytes is not None and len(data) > max_bytes:
        data = _encoded(paint(1))
    return data


def boxes_png(drawing: BoxDrawing, *, max_bytes: int | None = None) -> bytes:
    """``drawing`` as PNG at two image pixels per drawing pixel; at one where that PNG would be
    more than ``max_bytes``."""
    return png_within(lambda scale: _painted(drawing, scale), drawing.width, drawing.height, max_bytes)


def _painted(drawing: BoxDrawing, scale: int):  # -> PIL.Image.Image, imported on use
    from PIL import Image, ImageDraw

    from .palette import TEXT_ROLES
    from .png import _Painter

    image = Image.new("P", (drawing.width * scale, drawing.height * scale), BACKGROUND)
    painter = _Painter(ImageDraw.Draw(image), scale)
    for box in drawing.boxes:
        if box.outline == "none":
            k = scale
            painter.draw.rectangle((box.x * k, box.y * k, (box.x + box.w) * k - 1, (box.y + box.h) * k - 1), box.fill)
        elif box.fill == HATCH:
            painter.hatched(box.x, box.y, box.w, box.h)
        else:
            painter.box(box.x, box.y, box.w, box.h, box.fill, (3, 2) if box.outline == "dashed" else None)
        if box.outline == "thick":
            painter.box(box.x + 1, box.y + 1, box.w - 2, box.h - 2, None)
        if box.label:
            size, bold = label_font_size(box.label), box.outline == "thick"
            painter.text(box.x + box.w // 2, box.y + box.h // 2 + 4, box.label, size, INK, "middle", bold)
        if box.badge:
            painter.text(box.x + 2, box.y + 9, box.badge, 9, INK, "start", bold=True)
    for t in drawing.texts:
        role = TEXT_ROLES[t.role]
        painter.text(t.x, t.y, t.text, role.size, role.colour, role.anchor, bold=role.weight == "bold")
    return image


def boxes_bundle(drawing: BoxDrawing, text: str) -> Bundle:
    """The mime bundle and metadata of ``drawing`` as :func:`~stridelab.render.picture.picture_bundle`
    makes them for memory maps: ``text`` as the plain-text form, the SVG, and the PNG where Pillow
    is installed, within the same stored size; both shown at the session's scale (see
    :func:`stridelab.settings`)."""
    scale = session_scale(None)
    data = {"text/plain": text, "image/svg+xml": boxes_svg(drawing, scale)}
    try:
        png = boxes_png(drawing, max_bytes=(PICTURE_BYTES - len(data["image/svg+xml"])) * 3 // 4)
    except ImportError as error:
        if error.name != "PIL":
            raise
        return data, {}
    data["image/png"] = base64.b64encode(png).decode("ascii")
    return data, {"image/png": {"width": round(drawing.width * scale), "height": round(drawing.height * scale)}}
