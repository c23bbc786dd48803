"""CumulativeSummationExplorer: the running tally walked along the axis, step by step.

internal: ``CumulativeSummationExplorer`` is public as ``stridelab.CumulativeSummationExplorer``.
"""

from __future__ import annotations

import math
import operator
from html import escape
from typing import Any

import ipywidgets as w
import numpy as np

from .._validate import known_keywords
from ..memmap import DEFAULT_LIMIT
from ..render.summary import DIMENSION_LETTERS
from ..render.window import format_value
from ._controls import checkbox, fixed, row, slider
from ._operator import OperatorExplorer, as_tensor, first_line, input_sizes

__all__: list[str] = []

DIRECTIONS = ("increasing", "decreasing")
_TALLY_TERMS = 8  # a tally of more terms shows the first seven, "…" and the last
_INTERVAL_MS = 800
# the page shows a tooltip only for a control without a description, which Play never shows anyway
_PLAY_TIP = "play: walk the steps, one every 0.8 s · pause · stop: back to step 1 · repeat: start again at the end"


class CumulativeSummationExplorer(OperatorExplorer):
    """Run :func:`stridelab.cumulative_summation` on ``x`` under controls, and walk its tally.

    Controls choose the axis, the direction and whether the sum is exclusive; a play/step control
    walks along the axis. At each step the input element read and the output slot written are
    outlined in both buffers, outputs not yet written are dimmed, and the status line spells out
    the tally of the first line along the axis, with the value the operator wrote. Pointing at a
    cell lights the element at the same coordinates in the other map. The operator runs where
    ``x`` lives (on the GPU for a cupy array).

    Parameters
    ----------
    x : numpy or cupy array, or StridedTensor
        Read as the operator reads it. An array with negative strides (``a[::-1]``) is drawn from a
        packed copy of its values, since no DirectML buffer description has negative strides.
    axis, direction, exclusive
        Initial parameters, as :func:`stridelab.cumulative_summation` takes them (default: the last
        axis, increasing, inclusive) and refused as it refuses them (:class:`~stridelab.LayoutError`
        or ``TypeError``): negative axes count from the end, ``exclusive`` is a bool.
    max_cells : int
        The most cells each map draws; a larger input is drawn through a window, which the
        explorer places where the operator is at work.
    limit : int
        The most elements a full memory map is built for (beyond, the window's slots are worked
        out from the strides alone).
    scale : float, optional
        Show the maps this many times their size (e.g. 2 on a projector; default: the
        session's, see :func:`stridelab.settings`).

    Examples
    --------
    >>> import numpy as np, stridelab as sl
    >>> x = np.array([[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]], dtype=np.float32)
    >>> e = sl.CumulativeSummationExplorer(x, axis=3, exclusive=True)
    >>> e.output.to_array()[0, 0, 0].tolist()
    [0.0, 2.0, 3.0, 6.0]
    >>> e.step.value = 3                       # steps count from 1, as the tally does
    >>> e.tally
    'step 3 of 4 along axis 3 (W), increasing, exclusive: output[0, 0, 0, 2] = 2 + 1 = 3'
    """

    @known_keywords
    def __init__(
        self,
        x: Any,
        axis: int | None = None,
        direction: str = "increasing",
        exclusive: bool = False,
        *,
        max_cells: int = 256,
        limit: int = DEFAULT_LIMIT,
        scale: float | None = None,
    ) -> None:
        from ..ops._engine import plan

        sizes = input_sizes(x)
        rank = len(sizes)
        axis = rank - 1 if axis is None else axis
        # the operator's own checks and messages, running nothing
        plan("CUMULATIVE_SUMMATION", x, parameters_only=True, axis=axis, direction=direction, exclusive=exclusive)
        axis = operator.index(axis) % rank
        name = direction.strip().lower().removeprefix("dml_axis_direction_")
        letters = DIMENSION_LETTERS.get(rank, "")
        names = [(f"{i} ({letters[i]}, size {n})" if letters else f"{i} (size {n})", i) for i, n in enumerate(sizes)]
        self.axis = w.Dropdown(options=names, value=axis, description="axis")
        self.direction = w.ToggleButtons(options=list(DIRECTIONS), value=name)
        self.exclusive = checkbox("exclusive", bool(exclusive))
        self.step = slider("step", 1, 1, 1)
        self.step.add_class("stridelab-step")
        self.play = fixed(w.Play(value=1, min=1, max=1, interval=_INTERVAL_MS, tooltip=_PLAY_TIP))
        w.jslink((self.play, "value"), (self.step, "value"))
        self.tally = ""
        self._tally_line = w.HTML()
        self._tally_line.add_class("stridelab-tally")
        for control in (self.axis, self.direction, self.exclusive):
            control.observe(self._update, "value")
        self.step.observe(self._mark_step, "value")
        controls = [row([fixed(self.axis), fixed(self.direction), self.exclusive]), row([self.play, self.step])]
        controls.append(self._tally_line)
        self._start(x, controls, max_cells, scale, limit)

    def _call(self) -> str:
        direction = self.direction.value
        return (
            f"sl.cumulative_summation(x, axis={self.axis.value}, direction={direction!r}, "
            f"exclusive={self.exclusive.value})"
        )

    def _run(self) -> str:
        from .. import cumulative_summation

        axis = self.axis.value
        self.tally = self._tally_line.value = ""
        output = as_tensor(
            cumulative_summation(self.x, axis, direction=self.direction.value, exclusive=self.exclusive.value)
        )
        self.output = output
        self._show(None)
        # the tally spells out the first line along the axis: read that line, not the tensors
        self._input_line, self._output_line = first_line(self.input, axis), first_line(output, axis)
        n = self.input.desc.sizes[axis]
        self.play.max = self.step.max = n
        self._mark_step()
        return f"running tally along axis {axis} over {n} elements"

    def _show(self, start: tuple[int, ...] | None) -> None:
        """Draw input and output, windowed from ``start`` where they are larger than the budget."""
        self._window_start = start
        self._scenes = (self.scene(self.input, start), self.scene(self.output, start))
        keys = [None, self._summed_keys(self._scenes[0], self._scenes[1], self.axis.value)]
        self.view.show(self._scenes, ["input", "output"], keys)

    def _follow(self, position: int) -> None:
        """Move the window along the axis where the current step lies outside it."""
        axis, scene = self.axis.value, self._scenes[0]
        if position in scene.cell_coords[:, axis]:
            return
        start = list(self._window_start or (0,) * self.input.desc.dimension_count)
        drawn = len(np.unique(scene.cell_coords[:, axis]))
        # the window reaches ahead of the walk: from the step on when increasing, up to it when not
        first = position if self.direction.value == "increasing" else position - drawn + 1
        start[axis] = max(0, min(first, self.input.desc.sizes[axis] - drawn))
        self._show(tuple(start))

    def _summed_keys(self, drawn_input: Any, scene: Any, axis: int) -> list[list[int]]:
        """Per output cell, the row-major indices of the drawn input elements its value sums:
        pointing at an output lights them, pointing at an input lights every output it adds to.
        Only drawn inputs are linked, so a long axis costs no more than the drawing."""
        along = math.prod(self.input.desc.sizes[axis + 1 :])
        drawn = np.unique(drawn_input.cell_coords[:, axis])  # positions along the axis on show
        positions = scene.cell_coords[:, axis]
        firsts = scene.cell_index - positions * along
        skip = 1 if self.exclusive.value else 0
        keys = []
        for position, first in zip(positions.tolist(), firsts.tolist()):
            if self.direction.value == "increasing":
                summed = drawn[drawn <= position - skip]
            else:
                summed = drawn[drawn >= position + skip]
            keys.append((first + summed * along).tolist())
        return keys

    def _position(self, step: int) -> int:
        """The index along the axis of ``step`` (counted from 1, as the slider and the tally count)."""
        n = self.input.desc.sizes[self.axis.value]
        return step - 1 if self.direction.value == "increasing" else n - step

    def _mark_step(self, change: dict | None = None) -> None:
        """Outline the element read and the slot written at this step; dim what is still to come."""
        if self.output is None:
            self.tally = self._tally_line.value = ""
            return
        axis, step = self.axis.value, self.step.value
        position = self._position(step)
        self._follow(position)
        order = [self._position(k) for k in range(1, self.step.max + 1)]
        done = set(order[:step])
        marks = []
        for scene, role in zip(self._scenes, ("read", "written")):
            along = scene.cell_coords[:, axis]
            now = np.flatnonzero(along == position)
            cells = {role: now.tolist()}
            slots = {role: np.unique(scene.cell_slot[now]).tolist()}
            if role == "written":  # outputs not written yet are dimmed in the grid and in the buffer
                pending = np.flatnonzero(~np.isin(along, list(done)))
                cells["pending"] = pending.tolist()
                slots["pending"] = np.unique(scene.cell_slot[pending]).tolist()
            marks.append({"cells": cells, "slots": slots})
        self.view.marks = marks
        self.tally = self._tally(axis, step, order)
        self._tally_line.value = f"<b>{escape(self.tally)}</b>"

    def _tally(self, axis: int, step: int, order: list[int]) -> str:
        """The first line's sum at ``step`` (from 1), in words, with the value the operator wrote."""
        line = [0] * self.input.desc.dimension_count
        terms = order[: step - 1] if self.exclusive.value else order[:step]
        shown = terms if len(terms) <= _TALLY_TERMS else [*terms[: _TALLY_TERMS - 1], terms[-1]]
        values = [format_value(self._input_line[k].item()) for k in shown]
        line[axis] = order[step - 1]
        written = format_value(self._output_line[order[step - 1]].item())
        kind = ", exclusive" if self.exclusive.value else ""
        letters = DIMENSION_LETTERS.get(len(line))
        name = f" ({letters[axis]})" if letters else ""
        where = ", ".join(map(str, line))
        if not terms:
            summed = f"{written} (nothing summed yet)"
        elif len(terms) == 1:
            summed = written  # the first element itself: "2 = 2" would say nothing
        elif len(terms) <= _TALLY_TERMS:
            summed = f"{' + '.join(values)} = {written}"
        else:  # the first terms and the last: a long axis keeps a short line
            summed = f"{' + '.join(values[:-1])} + … + {values[-1]} = {written} ({len(terms)} terms)"
        return (
            f"step {step} of {len(order)} along axis {axis}{name}, {self.direction.value}{kind}: "
            f"output[{where}] = {summed}"
        )

    def __repr__(self) -> str:
        return (
            f"CumulativeSummationExplorer({self.input.desc!r}, axis={self.axis.value}, "
            f"direction={self.direction.value!r}, exclusive={self.exclusive.value})"
        )
