"""Drawings as PNG, painted from the same :class:`~stridelab.render.scene.Scene` as the SVG with
Pillow's ``ImageDraw`` (Pillow comes with matplotlib, the ``plot`` extra).

Text is set in DejaVu Sans, the SVG's first font, loaded from the file matplotlib's wheel ships
(``mpl-data/fonts/ttf``) by path: no system font and no fontconfig is needed, so a bare container
draws the same letters. Where matplotlib is absent, Pillow's own built-in font stands in.

The image is painted in palette mode at two pixels per drawing pixel: a few flat colours and
unsmoothed text, which a browser smooths when it shows the image at the drawing's size, and which
compresses to a small file (a drawing too large to store so is painted at one pixel per pixel).

>>> from stridelab import TensorDesc
>>> from stridelab.render.scene import build_scene
>>> pictures_png([build_scene(TensorDesc("UINT8", (2, 3)))], [""])[:8]
b'\\x89PNG\\r\\n\\x1a\\n'

internal: used by the drawings (``stridelab.render_svg``, ``stridelab.draw_memory_map``) and the widgets.
"""

from __future__ import annotations

import importlib.util
import io
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from ..memmap import SlotKind
from .layout import BEFORE_LABEL
from .palette import (
    ALIGNMENT_FILL,
    BACKGROUND,
    CELL_H,
    CELL_W,
    INK,
    MARKS,
    PADDING_FILL,
    PADDING_HATCH,
    TEXT_ROLES,
    MarkStyle,
    faded,
    label_font_size,
)
from .scene import STACK_CAPTION, Scene, stack_scenes

__all__: list[str] = []

_ANCHORS = {"start": "ls", "middle": "ms", "end": "rs"}
#: Dashes (on, off) of the SVG's ``stroke-dasharray``: alignment slots and gap markers.
_ALIGNMENT_DASH = (3, 2)
_GAP_DASH = (2, 2)
#: An unmarked cell or slot.
_PLAIN = MarkStyle()
_FONT_FILES = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}


def font_file(bold: bool = False) -> Path | None:
    """The DejaVu Sans file matplotlib's wheel ships, found without importing matplotlib; None
    where matplotlib is not installed."""
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations)), "mpl-data", "fonts", "ttf", _FONT_FILES[bold])
    return path if path.is_file() else None


@cache
def _font(size: int, bold: bool) -> ImageFont.FreeTypeFont:
    path = font_file(bold)
    if path is None:
        return ImageFont.load_default(size)  # type: ignore[return-value]  # FreeType: Pillow's wheels have it
    return ImageFont.truetype(str(path), size)


def pictures_png(scenes: Sequence[Scene], names: Sequence[str], *, max_bytes: int | None = None) -> bytes:
    """PNG of the picture :func:`~stridelab.render.svg.pictures_svg` draws, two image pixels per
    drawing pixel (sharp on high-density screens when shown at the drawing's size); where that PNG
    would be more than ``max_bytes``, painted at one pixel per drawing pixel (about half the bytes)."""
    data = _encoded(_painted(scenes, names, 2))
    if max_bytes is not None and len(data) > max_bytes:
        data = _encoded(_painted(scenes, names, 1))
    return data


def _painted(scenes: Sequence[Scene], names: Sequence[str], scale: int) -> Image.Image:
    named = not (len(scenes) == 1 and not names[0])
    if named:
        width, height, tops = stack_scenes(scenes)
    else:
        width, height, tops = scenes[0].width, scenes[0].height, [-STACK_CAPTION]
    image = Image.new("P", (width * scale, height * scale), BACKGROUND)
    painter = _Painter(ImageDraw.Draw(image), scale)
    for scene, name, top in zip(scenes, names, tops):
        if named:
            painter.dy = 0
            painter.text(10, top + 16, name, 13, INK, "start", bold=True)
        painter.scene(scene, top + STACK_CAPTION)
    return image


def _encoded(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="png")
    return out.getvalue()


class _Painter:
    """Paints scenes on one image: drawing pixels times ``scale``, shifted down by a scene's top."""

    def __init__(self, draw: ImageDraw.ImageDraw, scale: int) -> None:
        self.draw, self.k, self.dy = draw, scale, 0

    def text(self, x: float, y: float, text: str, size: int, colour: str, anchor: str, bold: bool = False) -> None:
        k = self.k
        self.draw.text(
            (x * k, (y + self.dy) * k), text, fill=colour, font=_font(size * k, bold), anchor=_ANCHORS[anchor]
        )

    def box(
        self,
        x: int,
        y: int,
        w: int,
        h: int,
        fill: str | None,
        dash: tuple[int, int] | None = None,
        style: MarkStyle = _PLAIN,
    ) -> None:
        """A rectangle with the SVG's stroke centred on its edge (1 pixel unless ``style`` says
        otherwise; dashed where asked), everything seen at ``style``'s opacity."""
        k, y, o = self.k, y + self.dy, style.opacity
        t = max(1, round(style.width * k))  # the stroke's image pixels
        half, rest = t // 2, t - t // 2 - 1  # the stroke's pixels before and after the edge
        left, top, right, bottom = x * k - half, y * k - half, (x + w) * k + rest, (y + h) * k + rest
        stroke, fill = faded(style.stroke, o), None if fill is None else faded(fill, o)
        dash = style.dash or dash
        if dash is None:
            self.draw.rectangle((left, top, right, bottom), fill=fill, outline=stroke, width=t)
            return
        if fill is not None:
            self.draw.rectangle((left + t, top + t, right - t, bottom - t), fill=fill)
        on, off = dash[0] * k, dash[1] * k
        for edge in (top, bottom - t + 1):
            for start in range(left, right + 1, on + off):
                self.draw.rectangle((start, edge, min(start + on - 1, right), edge + t - 1), fill=stroke)
        for edge in (left, right - t + 1):
            for start in range(top, bottom + 1, on + off):
                self.draw.rectangle((edge, start, edge + t - 1, min(start + on - 1, bottom)), fill=stroke)

    def hatched(self, x: int, y: int, w: int, h: int, style: MarkStyle = _PLAIN) -> None:
        """Padding: grey with dark diagonal lines, as the SVG's hatch pattern."""
        self.box(x, y, w, h, PADDING_FILL, style=style)
        k, y = self.k, y + self.dy
        left, top, width, height = (x + 1) * k, (y + 1) * k, (w - 2) * k, (h - 2) * k
        hatch = faded(PADDING_HATCH, style.opacity)
        for i in range(0, width + height, 8 * k):
            t0, t1 = max(0, i - width), min(height, i)
            if t0 < t1:
                self.draw.line((left + i - t0, top + t0, left + i - t1, top + t1), fill=hatch, width=k)

    def slot_box(self, x: int, y: int, w: int, kind: int, colour: int, fills: Sequence[str], mark: str = "") -> None:
        style = MARKS.get(mark, _PLAIN)
        if kind in (SlotKind.PADDING, SlotKind.BEFORE):
            self.hatched(x, y, w, CELL_H, style)
        elif kind == SlotKind.ALIGNMENT:
            self.box(x, y, w, CELL_H, ALIGNMENT_FILL, _ALIGNMENT_DASH, style)
        else:
            self.box(x, y, w, CELL_H, fills[colour % len(fills)], style=style)

    def label(self, x: int, y: int, w: int, label: str, mark: str = "") -> None:
        ink = faded(INK, MARKS.get(mark, _PLAIN).opacity)
        self.text(x + w // 2, y + 16, label, label_font_size(label), ink, "middle")

    def scene(self, scene: Scene, top: int) -> None:
        self.dy = top
        w, kinds, colours = scene.cell_w, scene.slot_kinds.tolist(), scene.slot_colours.tolist()
        self.cells(scene)
        slot_marks = scene.slot_marks or ("",) * scene.slot_count
        for x, y, kind, colour, count, label, mark in zip(
            scene.slot_x.tolist(),
            scene.slot_y.tolist(),
            kinds,
            colours,
            scene.slot_counts.tolist(),
            scene.slot_labels,
            slot_marks,
        ):
            self.slot_box(x, y, w, kind, colour, scene.fills, mark)
            self.label(x, y, w, label, mark)
            if kind == SlotKind.SHARED:
                self.text(x + w - 2, y + 8, f"×{count}", 8, faded(INK, MARKS.get(mark, _PLAIN).opacity), "end")
        for x, y, _ in scene.gaps:
            self.box(x, y, CELL_W // 2, CELL_H, None, _GAP_DASH)
            self.text(x + CELL_W // 4, y + 16, "⋯", 12, INK, "middle")
        self.legend(scene)
        for t in (*scene.texts, *scene.slot_texts()):
            role = TEXT_ROLES[t.role]
            self.text(t.x, t.y, t.text, role.size, role.colour, role.anchor, bold=role.weight == "bold")

    def cells(self, scene: Scene) -> None:
        """The logical view's cells, with their marks and badges."""
        w, kinds, colours = scene.cell_w, scene.slot_kinds.tolist(), scene.slot_colours.tolist()
        marks = scene.cell_marks or ("",) * scene.cell_count
        badges = scene.cell_badges or ("",) * scene.cell_count
        xs, ys, slots = scene.cell_x.tolist(), scene.cell_y.tolist(), scene.cell_slot.tolist()
        for x, y, slot, label, mark, badge in zip(xs, ys, slots, scene.cell_labels(), marks, badges):
            self.slot_box(x, y, w, kinds[slot], colours[slot], scene.fills, mark)
            self.label(x, y, w, label, mark)
            if badge:
                self.text(x + 2, y + 9, badge, 9, faded(INK, MARKS.get(mark, _PLAIN).opacity), "start", bold=True)

    def legend(self, scene: Scene) -> None:
        marks = {"before": BEFORE_LABEL, "padding": "x", "alignment": ".", "shared": "×n", "gap": "⋯"}
        for x, y, name in scene.legend:
            if name in ("padding", "before"):
                self.hatched(x, y, 16, 14)
            else:
                fill = ALIGNMENT_FILL if name == "alignment" else BACKGROUND
                self.box(x, y, 16, 14, fill, _ALIGNMENT_DASH if name in ("alignment", "gap") else None)
            self.text(x + 8, y + 11, marks[name], 9, INK, "middle")
