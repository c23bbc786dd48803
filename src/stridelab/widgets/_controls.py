"""The explorers' controls, laid out so that none shrinks below a usable width at any browser zoom.

ipywidgets squeezes the children of a row to fit it: at 200% zoom (half as many CSS pixels across)
an explorer's slider tracks measured 0 to 2 pixels and its labels were cut to ``C (dim``. Here a
row wraps its controls onto the next line instead, and every control keeps its own width: labels
as wide as their text, slider tracks at least :data:`MIN_TRACK` pixels. Browser zoom scales text
and pixels alike, so widths in CSS pixels hold at every zoom.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ipywidgets as w

__all__ = ["MIN_TRACK", "checkbox", "fixed", "label", "row", "slider"]

#: The narrowest slider track (CSS pixels) a control is given: room to aim at a value of 16.
MIN_TRACK = 120
#: A slider's own width: the description (80 px, the ipywidgets default), the track, and the
#: readout with its margins (about 96 px), with room to spare.
_SLIDER_WIDTH = 80 + MIN_TRACK + 120
#: The same for a slider whose description is as wide as its text ("window from": about 90 px).
_WIDE_SLIDER_WIDTH = _SLIDER_WIDTH + 40


def fixed(widget: w.DOMWidget, width: str | None = None) -> Any:
    """``widget`` kept at ``width`` (a CSS length; default: its own), never squeezed by its row."""
    widget.layout.flex = "0 0 auto"
    if width is not None:
        widget.layout.width = width
    return widget


def row(children: Sequence[w.Widget], title: str | None = None) -> w.HBox:
    """Controls side by side, wrapping onto the next line where the output area is too narrow;
    with a ``title``, that label first, in a column of its own (wrapped controls stay beside it)."""
    controls = w.HBox(list(children), layout=w.Layout(flex_flow="row wrap", align_items="center", flex="1 1 0%"))
    if title is None:
        return controls
    return w.HBox([label(title), controls], layout=w.Layout(align_items="flex-start"))


def label(text: str, min_width: str = "6.5em") -> w.Label:
    """A row's label, shown whole: as wide as its text, at least ``min_width`` (so that the
    controls of rows whose labels differ a little still line up)."""
    return fixed(w.Label(text, layout=w.Layout(width="auto", min_width=min_width, margin="0 8px 0 0")))


def slider(description: str, value: int, low: int, high: int) -> w.IntSlider:
    """An integer slider whose track is at least :data:`MIN_TRACK` pixels wide; a description
    longer than a word gets its own width (``window from``)."""
    wide = " " in description
    style = {"description_width": "initial"} if wide else {}
    control = w.IntSlider(value=value, min=low, max=high, description=description, style=style)
    return fixed(control, f"{_WIDE_SLIDER_WIDTH if wide else _SLIDER_WIDTH}px")


def checkbox(description: str, value: bool) -> w.Checkbox:
    """A checkbox as wide as its description (ipywidgets gives it 300 px)."""
    control = fixed(w.Checkbox(value=value, description=description, indent=False), "auto")
    control.layout.margin = "2px 24px 2px 4px"  # apart from the next control's description
    return control
