"""Colours, fonts and sizes shared by every stridelab drawing (SVG, matplotlib, the widgets).

The fills are Paul Tol's *light* scheme, designed for cells that carry a text label and
distinguishable with the common forms of colour blindness. Colour only ever repeats what a label
already says: every cell and slot is labelled, padding is hatched and marked ``x``, alignment is
dashed and marked ``.``, shared slots carry a ``×n`` badge. Every drawing paints its own light
background, so it reads the same in JupyterLab's light and dark themes.

internal: used by the drawings (``stridelab.render_svg``, ``stridelab.draw_memory_map``) and the widgets.
"""

from __future__ import annotations

import colorsys
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__: list[str] = []

#: Paul Tol's light qualitative scheme: light blue, orange, light yellow, pink, light cyan, mint,
#: pear, olive. Black text is readable on all of them.
FILLS: tuple[str, ...] = ("#77AADD", "#EE8866", "#EEDD88", "#FFAABB", "#99DDFF", "#44BB99", "#BBCC33", "#AAAA00")
BACKGROUND = "#FFFFFF"
INK = "#1A1A1A"
MUTED = "#555555"
STROKE = "#333333"
PADDING_FILL = "#DDDDDD"
PADDING_HATCH = "#777777"
ALIGNMENT_FILL = "#F5F5F5"
FONT_FAMILY = "DejaVu Sans, Verdana, Arial, sans-serif"

#: One logical cell or physical slot, in pixels (SVG user units; points in matplotlib).
CELL_W = 32
CELL_H = 24


class TextRole:
    """How a piece of text in a drawing is set: size in pixels, weight, anchor, colour."""

    __slots__ = ("anchor", "colour", "size", "weight")

    def __init__(self, size: int, weight: str = "normal", anchor: str = "start", colour: str = INK) -> None:
        self.size = size
        self.weight = weight
        self.anchor = anchor
        self.colour = colour


#: Text roles of a drawing, by name (the name is also the SVG class of the text).
TEXT_ROLES: dict[str, TextRole] = {
    "summary": TextRole(12, "bold"),
    "detail": TextRole(12),
    "note": TextRole(11, colour="#8A3B00"),
    "caption": TextRole(12, "bold"),
    "axes": TextRole(10, colour=MUTED),
    "tile-caption": TextRole(11, colour=MUTED),
    "index": TextRole(10, anchor="middle", colour=MUTED),
    "index-row": TextRole(10, anchor="end", colour=MUTED),
    "offset": TextRole(10, anchor="middle", colour=MUTED),
    "byte": TextRole(9, anchor="middle", colour=MUTED),
    "legend": TextRole(11),
    "hint": TextRole(11, colour=MUTED),
}


@dataclass(frozen=True)
class MarkStyle:
    """How a marked cell or slot is drawn, as the widget stylesheet (``static/memory_map.css``)
    draws an element with ``data-mark``: its outline's colour, width (pixels) and dashes, and the
    opacity of the whole element (dimmed below 1)."""

    stroke: str = STROKE
    width: float = 1.0
    dash: tuple[int, int] | None = None
    opacity: float = 1.0


#: The marks the widgets put on cells and slots (the ``marks`` trait), by name: outlines in the
#: Okabe-Ito blue and vermilion, thick and (for written) dashed so that they read without colour.
MARKS: dict[str, MarkStyle] = {
    "window": MarkStyle("#0072B2", 2.5),
    "read": MarkStyle("#0072B2", 4.0),
    "written": MarkStyle("#D55E00", 4.0, (6, 2)),
    "pending": MarkStyle(opacity=0.3),
    "outside": MarkStyle(opacity=0.45),
}


def faded(colour: str, opacity: float) -> str:
    """``colour`` (``#RRGGBB``) seen at ``opacity`` over the drawings' white background.

    >>> faded("#000000", 0.45), faded("#77AADD", 1.0)   # 255 - 255 * 0.45 = 140.25
    ('#8C8C8C', '#77AADD')
    """
    if opacity >= 1:
        return colour
    channels = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(255 - (255 - c) * opacity):02X}" for c in channels)


#: The most fills a drawing uses: beyond, colours repeat (neighbouring indices still differ).
MAX_FILLS = 24


def fills_for(count: int) -> tuple[str, ...]:
    """Fills for ``count`` values of the colouring dimension: Paul Tol's eight for up to eight,
    else up to :data:`MAX_FILLS` light colours of evenly spaced hues, visited in steps of about
    0.38 of the circle and alternating two lightnesses, so that neighbouring values differ most
    (distinct for at least 16 values; black text reads on all).

    >>> fills_for(3)
    ('#77AADD', '#EE8866', '#EEDD88')
    >>> len(set(fills_for(16))), len(fills_for(64))
    (16, 24)
    """
    if count <= len(FILLS):
        return FILLS[: max(count, 1)]
    n = min(count, MAX_FILLS)
    step = round(n * 0.382)
    while math.gcd(step, n) != 1:
        step += 1
    fills = []
    for i in range(n):
        hue = (0.58 + (i * step % n) / n) % 1.0
        red, green, blue = colorsys.hls_to_rgb(hue, 0.78 if i % 2 == 0 else 0.66, 0.62)
        fills.append(f"#{round(red * 255):02X}{round(green * 255):02X}{round(blue * 255):02X}")
    return tuple(fills)


def label_font_size(label: str) -> int:
    """Font size (pixels) of a cell's ``label``: 12 for up to three characters, else 10 (cells
    widen to hold longer labels, see :func:`cell_width`)."""
    return 12 if len(label) <= 3 else 10


def text_width(text: str, size: float) -> int:
    """A generous estimate of the width of ``text`` at ``size`` pixels (no font metrics, so the
    same everywhere)."""
    return int(len(text) * size * 0.62) + 2


def cell_width(labels: Sequence[str], offsets: Sequence[int] | np.ndarray, element_size: int) -> int:
    """The width of every cell and slot of a drawing: :data:`CELL_W`, or wider where a label, or
    a slot's element or byte offset written above and below it, would not fit.

    >>> cell_width(["A", "B"], [0, 1], 4), cell_width(["1.235e+04"], [4194304], 4)
    (32, 64)
    """
    widest = max(
        [0]
        + [text_width(label, label_font_size(label)) + 6 for label in labels]
        + [text_width(str(offset), TEXT_ROLES["offset"].size) + 4 for offset in offsets[-1:]]
        + [text_width(str(offset * element_size), TEXT_ROLES["byte"].size) + 4 for offset in offsets[-1:]]
    )
    return max(CELL_W, widest + widest % 2)
