"""The access picture (:mod:`.access`) painted: the memory map's SVG and PNG, as every memory map is
painted (:func:`~.svg.scene_svg`, :mod:`.png`), with the sector outlines, sector boundaries and
request legend on top; and its mime bundle, stored as :func:`~.picture.picture_bundle` stores
memory maps (SVG and PNG within the same byte budget, shown at the session's scale).

In the SVG the overlay is ``<g class="access">`` (it takes no pointer events, so a widget's cells
and slots under it still answer the pointer): a ``<g class="sector" data-request="r"
data-sector="s">`` per outlined sector of a drawn request, a ``<line class="sector-start"
data-byte="A">`` where a drawn slot begins a sector, and the legend's swatches.

>>> import stridelab as sl
>>> from stridelab.render.access import access_drawing
>>> svg = access_svg(access_drawing(sl.access_pattern(sl.TensorDesc("FLOAT32", (8, 8), (1, 8)))))
>>> svg.count('<g class="sector" data-request="0"'), svg.count('class="sector-start"')
(8, 8)

internal: used by ``AccessReport``'s display and ``MemoryMapView(..., access=True)``.
"""

from __future__ import annotations

import base64
from html import escape

from .access import DASHES, AccessDrawing
from .options import session_scale
from .palette import CELL_H, INK, MarkStyle
from .picture import PICTURE_BYTES, Bundle
from .svg import scene_svg

__all__: list[str] = []

_BOUNDARY = "#1A1A1A"
_SWATCH = 18


def _dash(position: int) -> tuple[int, ...] | None:
    return DASHES[position % len(DASHES)]


def overlay_svg(drawing: AccessDrawing) -> list[str]:
    """The SVG elements drawn over the memory map (see the module)."""
    sector = drawing.report.sector_bytes
    out = [
        f'<g class="access" data-sector-bytes="{sector}" data-offset="{drawing.report.offset}" '
        'pointer-events="none" fill="none">'
    ]
    for x, y in drawing.boundaries:
        out.append(
            f'<line class="sector-start" x1="{x}" y1="{y - 4}" x2="{x}" y2="{y + CELL_H + 4}" '
            f'stroke="{_BOUNDARY}" stroke-width="3"/>'
        )
    for o in drawing.outlines:
        dash = _dash(o.colour)
        dashes = "" if dash is None else f' stroke-dasharray="{" ".join(map(str, dash))}"'
        out.append(f'<g class="sector" data-request="{o.request}" data-sector="{o.sector}">')
        out.extend(
            f'<rect x="{x}" y="{y}" width="{w}" height="{h}" stroke="{drawing.strokes[o.colour]}" '
            f'stroke-width="2.5"{dashes}/>'
            for x, y, w, h in o.rects
        )
        out.append("</g>")
    for x, y, position in drawing.legend:
        dash = _dash(position)
        dashes = "" if dash is None else f' stroke-dasharray="{" ".join(map(str, dash))}"'
        out.append(
            f'<g class="access-legend" data-request="{drawing.requests[position]}">'
            f'<rect x="{x}" y="{y}" width="{_SWATCH}" height="16" fill="{drawing.scene.fills[position]}" '
            f'stroke="{drawing.strokes[position]}" stroke-width="2.5"{dashes}/>'
            f'<text x="{x + _SWATCH // 2}" y="{y + 12}" font-size="9" font-weight="bold" text-anchor="middle" '
            f'fill="{INK}">{escape(str(drawing.requests[position]))}</text></g>'
        )
    out.append("</g>")
    return out


def access_svg(drawing: AccessDrawing, scale: float = 1.0) -> str:
    """``drawing`` as a standalone SVG document, identical for identical input."""
    svg = scene_svg(drawing.scene, scale=scale)
    head, tail = svg.rsplit("</svg>", 1)
    return "\n".join([head.rstrip("\n"), *overlay_svg(drawing), "</svg>" + tail])


def access_png(drawing: AccessDrawing, *, max_bytes: int | None = None) -> bytes:
    """``drawing`` as PNG, two image pixels per drawing pixel; one where that would be more than
    ``max_bytes`` (:func:`~.boxes.png_within`)."""
    from .boxes import png_within

    return png_within(lambda scale: _painted(drawing, scale), drawing.width, drawing.height, max_bytes)


def _painted(drawing: AccessDrawing, scale: int):  # -> PIL.Image.Image, imported on use
    from PIL import ImageDraw

    from .png import _painted as painted_scenes
    from .png import _Painter

    image = painted_scenes([drawing.scene], [""], scale)
    painter = _Painter(ImageDraw.Draw(image), scale)
    k = scale
    for x, y in drawing.boundaries:
        painter.draw.rectangle(((x * k) - k, (y - 4) * k, (x * k) + k, (y + CELL_H + 4) * k), fill=_BOUNDARY)
    for o in drawing.outlines:
        style = MarkStyle(drawing.strokes[o.colour], 2.5, _pair(_dash(o.colour)))
        for x, y, w, h in o.rects:
            painter.box(x, y, w, h, None, style=style)
    for x, y, position in drawing.legend:
        style = MarkStyle(drawing.strokes[position], 2.5, _pair(_dash(position)))
        painter.box(x, y, _SWATCH, 16, drawing.scene.fills[position], style=style)
        painter.text(x + _SWATCH // 2, y + 12, str(drawing.requests[position]), 9, INK, "middle", bold=True)
    return image


def _pair(dash: tuple[int, ...] | None) -> tuple[int, int] | None:
    """A dash pattern as the PNG painter's (on, off) pair: its first two lengths."""
    return None if dash is None else (dash[0], dash[1])


def access_bundle(drawing: AccessDrawing, text: str, scale: float | None = None) -> Bundle:
    """The mime bundle and metadata of ``drawing`` with ``text`` as its plain-text form: the SVG,
    and the PNG where Pillow is installed, within :data:`~.picture.PICTURE_BYTES` together, shown
    ``scale`` times their size (default: the session's, see :func:`stridelab.settings`)."""
    scale = session_scale(scale)
    data = {"text/plain": text, "image/svg+xml": access_svg(drawing, scale)}
    try:
        png = access_png(drawing, max_bytes=(PICTURE_BYTES - len(data["image/svg+xml"])) * 3 // 4)
    except ImportError as error:
        if error.name != "PIL":
            raise
        return data, {}
    data["image/png"] = base64.b64encode(png).decode("ascii")
    size = {"width": round(drawing.width * scale), "height": round(drawing.height * scale)}
    return data, {"image/png": size}
