"""What the operator explorers share: the data they explore, inline errors, and the layout of
controls, status and the input/output maps."""

from __future__ import annotations

from html import escape
from typing import Any

import ipywidgets as w
import numpy as np

from .._arrays import read_array
from .._validate import at_least
from ..backend import array_module, location
from ..errors import LayoutError
from ..memmap import DEFAULT_LIMIT
from ..ops._operands import read_input
from ..render.options import session_scale
from ..render.scene import Scene, build_scene
from ..render.window import checked_max_cells
from ..tensor import StridedTensor
from ._panels import MapWidget, StaticFallback

__all__ = ["OperatorExplorer", "as_tensor", "first_line", "input_sizes", "negative_axes"]

ERROR_STYLE = "color:#B00020;border-left:3px solid #B00020;padding-left:6px"
#: Cells (and slots) per map in the static SVG that goes with an explorer.
STATIC_MAX_CELLS = 64


def negative_axes(x: Any) -> list[int]:
    """The axes along which array ``x`` steps backwards through memory (none for a StridedTensor)."""
    if isinstance(x, StridedTensor):
        return []
    return read_array(x).negative_axes


def as_tensor(x: Any) -> StridedTensor:
    """``x`` as a strided tensor to draw, read as the operators read it (and refused as they refuse
    it): a StridedTensor as it is, a numpy or cupy array viewed without copying. An array with
    negative strides, which no DirectML buffer description expresses, becomes a packed copy of its
    logical values: an explorer draws the logical input, which the copy holds."""
    read_input(x)
    if isinstance(x, StridedTensor):
        return x
    if negative_axes(x):
        x = array_module(x).ascontiguousarray(x)
    return StridedTensor.from_array(x)


def input_sizes(x: Any) -> tuple[int, ...]:
    """The logical sizes of an operator input, without copying it."""
    return read_input(x).sizes


def first_line(t: StridedTensor, axis: int) -> np.ndarray:
    """The elements along ``axis`` at index 0 of every other dimension, as a numpy array (copied
    from the GPU where ``t`` lives there): one line, however large the tensor."""
    index = tuple(slice(None) if i == axis else 0 for i in range(t.desc.dimension_count))
    line = t.view()[index]
    return line.get() if t.on_gpu else np.asarray(line)


class OperatorExplorer(StaticFallback, w.VBox):
    """Controls, a status line, the call being made, and the input and output maps side by side.

    Subclasses build their controls, then call :meth:`_start`; :meth:`_run` runs the operator and
    returns the status HTML, raising :class:`~stridelab.LayoutError` or ``TypeError`` for
    parameters the operator refuses, which are then shown inline instead.
    """

    def _start(
        self, x: Any, controls: list[w.Widget], max_cells: int, scale: float | None = None, limit: int = DEFAULT_LIMIT
    ) -> None:
        max_cells = checked_max_cells(max_cells)
        self.x = x
        self.input = as_tensor(x)
        reversed_axes = negative_axes(x)
        self._input_note = (
            f" · input drawn from a packed copy: x steps backwards along axes {reversed_axes}, "
            "and DirectML buffer strides are never negative"
            if reversed_axes
            else ""
        )
        self.output: StridedTensor | None = None
        self.error: str | None = None
        self._max_cells, self._limit = max_cells, at_least("limit", limit, 1)
        self._status = w.HTML()
        self._code = w.HTML()
        self.view = MapWidget()
        self.view._scale = self._scale = session_scale(scale)
        self.view.observe(lambda change: self._update(), "available_width")
        super().__init__([*controls, self._code, self._status, self.view])
        self.add_class("stridelab-operator")
        self._update()

    def _run(self) -> str:
        raise NotImplementedError

    def _call(self) -> str:
        raise NotImplementedError

    def _update(self, change: dict | None = None) -> None:
        self._code.value = f"<code>{escape(self._call())}</code>"
        try:
            status = self._run()
        except (LayoutError, TypeError) as error:
            self.output, self.error = None, str(error)
            self._status.value = f'<div class="stridelab-error" style="{ERROR_STYLE}">{escape(str(error))}</div>'
            self.view.show([self.scene(self.input)], ["input"])  # the data, without a result
            return
        self.error = None
        self._status.value = f"{status} · ran on {location(self.input.buffer)}{self._input_note}"

    def scene(self, source: Any, start: tuple[int, ...] | None = None):
        """The map of ``source``; a tensor larger than the cell budget windowed from ``start``."""
        return build_scene(
            source, max_cells=self._max_cells, start=start, limit=self._limit, width=self.view.layout_width
        )

    def static_scenes(self) -> tuple[list[Scene], list[str]]:
        """Static pictures of the input and output, each windowed from the first cell the live
        panel marks (so that a window, a read or a write far from the origin is in the picture);
        none where an error stopped the operator (the text repr names it)."""
        if self.output is None:
            return [], []
        scenes = []
        for panel, tensor in enumerate((self.input, self.output)):
            scene = build_scene(tensor, max_cells=STATIC_MAX_CELLS)
            outlined = self._outlined(panel)
            if outlined is not None and not _inside(outlined, scene.window):
                scene = build_scene(tensor, max_cells=STATIC_MAX_CELLS, start=tuple(outlined.min(axis=0).tolist()))
            scenes.append(scene)
        return scenes, ["input", "output"]

    def _outlined(self, panel: int) -> np.ndarray | None:
        """The coordinates of the cells the live ``panel`` outlines (window, read, written), one
        row each; None where it outlines none."""
        scenes, marks = self.view.scenes, self.view.marks
        if panel >= len(scenes) or panel >= len(marks):
            return None
        cells = marks[panel].get("cells", {})
        outlined = [p for mark, positions in cells.items() if mark not in ("outside", "pending") for p in positions]
        return scenes[panel].cell_coords[outlined] if outlined else None


def _inside(coords: np.ndarray, window: Any) -> bool:
    """Whether every row of ``coords`` lies in ``window``."""
    starts, counts = np.asarray(window.starts), np.asarray(window.counts)
    return bool(((coords >= starts) & (coords < starts + counts)).all())
