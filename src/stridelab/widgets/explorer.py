"""explore(): sizes, layout, broadcast, padding and data type as controls over a live memory map.

internal: ``explore`` is public as ``stridelab.explore``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

import ipywidgets as w

from .._strides import layout_strides
from .._validate import at_least, known_keywords
from ..desc import TensorDesc
from ..dtypes import DATA_TYPES, DataTypeLike
from ..dtypes import data_type as _resolve_data_type
from ..errors import LayoutError
from ..memmap import DEFAULT_LIMIT
from ..render.scene import Scene
from ..render.window import checked_max_cells
from ._controls import checkbox, fixed, row, slider
from ._explorer_args import (
    CUSTOM,
    LETTERS,
    checked_broadcast,
    checked_layout,
    checked_padding,
    checked_sizes,
    layout_choices,
    parse_ints,
)
from ._panels import StaticFallback
from .memory_map_view import MemoryMapView

__all__: list[str] = []

_ERROR_STYLE = "color:#B00020;border-left:3px solid #B00020;padding-left:6px"
#: The tallest the explorer's map is shown (CSS pixels): with the controls above it, the explorer
#: fits a 1080-pixel screen at 100% zoom (16^4 elements drew 1976 pixels tall at 256 cells).
MAP_HEIGHT = 640


class LayoutExplorer(StaticFallback, w.VBox):
    """Controls for a tensor description beside its live memory map. See :func:`explore`.

    The current choice is in ``desc`` (None while the controls describe no valid tensor, with the
    reason in ``error``); :meth:`configure` sets controls from Python.
    """

    @known_keywords
    def __init__(
        self,
        sizes: Sequence[int] = (1, 3, 2, 2),
        layout: str | None = None,
        *,
        data_type: DataTypeLike = "FLOAT32",
        broadcast: Sequence[bool] | None = None,
        padding: Mapping[str | int, int] | None = None,
        strides: Sequence[int] | None = None,
        max_size: int = 16,
        max_padding: int = 8,
        max_cells: int = 256,
        limit: int = DEFAULT_LIMIT,
        scale: float | None = None,
    ) -> None:
        sizes = checked_sizes(sizes)
        max_size = at_least("max_size", max_size, 1)  # a larger initial size widens its slider
        max_padding = at_least("max_padding", max_padding, 0)
        max_cells = checked_max_cells(max_cells)
        data_type = _resolve_data_type(data_type).name
        if strides is not None:
            layout = CUSTOM
        else:
            layout = layout_choices(len(sizes))[0] if layout is None else checked_layout(layout, len(sizes))
        self._max_size, self._max_padding = max_size, max_padding
        self._busy = False
        self.desc: TensorDesc | None = None
        self.error: str | None = None
        self._rank = fixed(w.Dropdown(options=[1, 2, 3, 4, 5], value=len(sizes), description="dims"), "150px")
        self._data_type = fixed(w.Dropdown(options=list(DATA_TYPES), value=data_type, description="data type"), "210px")
        self._layout = fixed(w.Dropdown(description="layout"), "240px")
        self._strides = fixed(
            w.Text(description="strides", placeholder="e.g. 15, 1, 5, 1", continuous_update=False), "300px"
        )
        self._rows = w.VBox()
        self._status = w.HTML()
        self.view = MemoryMapView(TensorDesc(data_type, sizes), max_cells=max_cells, limit=limit, scale=scale)
        self.view.max_height = MAP_HEIGHT
        self._scale = self.view._scale
        self._build_rows(sizes)
        self._set_layout_options(layout)
        self.configure(broadcast=broadcast, padding=padding, strides=strides)
        for control in (self._data_type, self._layout, self._strides):
            control.observe(self._changed, "value")
        self._rank.observe(self._rank_changed, "value")
        header = row([self._rank, self._data_type, self._layout, self._strides])
        super().__init__([header, self._rows, self._status, self.view])
        self.add_class("stridelab-explorer")
        self._update()

    # -- controls ---------------------------------------------------------------------------
    def _build_rows(self, sizes: Sequence[int]) -> None:
        rank = len(sizes)
        self.size_sliders, self.padding_sliders, self.broadcast_boxes, self.window_sliders = [], [], [], []
        rows = []
        for i, n in enumerate(sizes):
            letter = LETTERS[rank][i]
            size = slider("size", n, 1, max(self._max_size, n))
            size.add_class("stridelab-size")
            pad = slider("padding", 0, 0, self._max_padding)
            pad.add_class("stridelab-padding")
            flag = checkbox("broadcast", False)
            start = slider("window from", 0, 0, n - 1)
            start.add_class("stridelab-window")
            for control in (size, pad, flag, start):
                control.observe(self._changed, "value")
            self.size_sliders.append(size)
            self.padding_sliders.append(pad)
            self.broadcast_boxes.append(flag)
            self.window_sliders.append(start)
            rows.append(row([size, pad, flag, start], f"{letter} (dim {i})"))
        self._rows.children = rows

    def _set_layout_options(self, value: str) -> None:
        options = [*layout_choices(self._rank.value), CUSTOM]
        self._layout.options = options
        self._layout.value = value if value in options else options[0]

    def configure(
        self,
        *,
        sizes: Sequence[int] | None = None,
        layout: str | None = None,
        data_type: DataTypeLike | None = None,
        broadcast: Sequence[bool] | None = None,
        padding: Mapping[str | int, int] | None = None,
        strides: Sequence[int] | None = None,
    ) -> None:
        """Set some controls at once (one redraw). ``padding`` maps a dimension letter or index to
        padding elements; ``strides`` switches the layout to custom strides.

        A value no control can take (a layout of another rank, a size below 1, an unknown data
        type, a padding key that names no dimension, negative padding, a broadcast flag per
        dimension missing) raises :class:`~stridelab.LayoutError` or ``TypeError`` and changes
        nothing; values the controls can take but that describe no tensor together show the error
        inline, as moving the controls would.
        """
        sizes = self.sizes if sizes is None else checked_sizes(sizes)
        rank = len(sizes)
        layout = None if layout is None else checked_layout(layout, rank)
        name = None if data_type is None else _resolve_data_type(data_type).name
        flags = None if broadcast is None else checked_broadcast(broadcast, rank)
        extras = {} if padding is None else checked_padding(padding, rank)
        self._busy = True
        try:
            if rank != self._rank.value:
                self._rank.value = rank
                self._build_rows(sizes)
                self._set_layout_options(self._layout.value)
            for slider, n in zip(self.size_sliders, sizes):
                slider.max = max(slider.max, n)
                slider.value = n
            if name is not None:
                self._data_type.value = name
            if layout is not None:
                self._layout.value = layout
            for box, flag in zip(self.broadcast_boxes, flags or ()):
                box.value = flag
            for index, extra in extras.items():
                self.padding_sliders[index].max = max(self.padding_sliders[index].max, extra)
                self.padding_sliders[index].value = extra
            if strides is not None:
                self._layout.value = CUSTOM
                self._strides.value = ", ".join(str(s) for s in strides)
        finally:
            self._busy = False
        self._update()

    def _rank_changed(self, change: dict) -> None:
        if self._busy:
            return
        old = [s.value for s in self.size_sliders]
        rank = change["new"]
        sizes = ([1] * rank + old)[-rank:] if rank > len(old) else old[-rank:]
        self._busy = True
        try:
            self._build_rows(sizes)
            self._set_layout_options(self._layout.value)
        finally:
            self._busy = False
        self._update()

    def _changed(self, change: dict) -> None:
        if not self._busy:
            self._update()

    # -- the description the controls describe ---------------------------------------------------
    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(s.value for s in self.size_sliders)

    def _describe(self) -> TensorDesc:
        sizes, layout = self.sizes, self._layout.value
        custom = layout == CUSTOM
        for control in (*self.padding_sliders, *self.broadcast_boxes):
            control.disabled = custom
        self._strides.disabled = not custom
        if custom:
            return TensorDesc(self._data_type.value, sizes, parse_ints(self._strides.value, "strides"))
        letters = LETTERS[len(sizes)]
        padding: dict[str | int, int] = {letters[i]: s.value for i, s in enumerate(self.padding_sliders) if s.value}
        broadcast = [b.value for b in self.broadcast_boxes]
        return TensorDesc(self._data_type.value, sizes, layout_strides(layout, sizes, broadcast, padding))

    def _update(self) -> None:
        try:
            desc = self._describe()
        except (LayoutError, TypeError) as error:
            self.desc, self.error = None, str(error)
            self._status.value = (
                f'<div class="stridelab-error" style="{_ERROR_STYLE}">not drawn: {escape(str(error))}</div>'
            )
            self.view.stale = True
            return
        self.desc, self.error = desc, None
        if self._layout.value != CUSTOM:
            self._busy = True
            self._strides.value = ", ".join(map(str, desc.strides))
            self._busy = False
        self._status.value = (
            f'<code class="stridelab-desc">{escape(repr(desc))}</code> · '
            f"calc_buffer_tensor_size = {desc.required_size} bytes"
        )
        self.view.stale = False
        self.view.redraw(desc, start=self._window_start(desc.sizes))

    def _window_start(self, sizes: tuple[int, ...]) -> tuple[int, ...] | None:
        """The first corner of the drawn window, from the window sliders (each kept below its size)."""
        self._busy = True
        try:
            for slider, n in zip(self.window_sliders, sizes):
                slider.max = n - 1  # also brings a value past it back
        finally:
            self._busy = False
        start = tuple(slider.value for slider in self.window_sliders)
        return start if any(start) else None

    # -- display ----------------------------------------------------------------------------------
    def static_scenes(self) -> tuple[list[Scene], list[str]]:
        """The static picture of the current description, through the window the sliders chose;
        none in an error state (the text repr names the error)."""
        if self.desc is None:
            return [], []
        return self.view.static_scenes()

    def __repr__(self) -> str:
        if self.desc is None:
            return f"LayoutExplorer(error={self.error!r})"
        return f"LayoutExplorer({self.desc!r})"


@known_keywords
def explore(
    sizes: Sequence[int] = (1, 3, 2, 2),
    layout: str | None = None,
    *,
    data_type: DataTypeLike = "FLOAT32",
    broadcast: Sequence[bool] | None = None,
    padding: Mapping[str | int, int] | None = None,
    strides: Sequence[int] | None = None,
    max_size: int = 16,
    max_padding: int = 8,
    max_cells: int = 256,
    limit: int = DEFAULT_LIMIT,
    scale: float | None = None,
) -> LayoutExplorer:
    """A layout explorer: controls for a description and its live memory map.

    Controls: the number of dimensions, the data type, the layout (every memory order of the
    dimension letters, NCHW and NHWC first, or custom strides typed in), and per dimension its
    size, padding after it and whether it is broadcast. The map, the strides and the buffer size
    follow the controls; a combination that describes no valid tensor shows the error inline.
    An argument no control can take (a layout of another rank, an unknown data type, a padding
    key that names no dimension, negative padding, ...) raises :class:`~stridelab.LayoutError` or
    ``TypeError`` instead; none is clamped or replaced.

    Parameters
    ----------
    sizes : sequence of int
        Initial sizes, 1 to 5 dimensions, in canonical (N, C, D, H, W) order.
    layout : str, optional
        Initial memory order, outermost first, of the dimension letters of ``sizes`` (e.g. "NHWC"
        for four dimensions, "WH" for two; default: the canonical order, e.g. "NCHW").
    data_type, broadcast, padding, strides
        Initial data type (any spelling :func:`stridelab.data_type` takes), broadcast flags (one
        bool per dimension), padding per dimension (letter or index -> elements, 0 or more; the
        slider's range grows to fit), or custom strides (which switch the layout to custom).
    max_size, max_padding, max_cells
        Largest size the sliders offer (a larger initial size widens its slider); largest padding
        the padding sliders offer (a larger initial padding widens its slider); most cells the map
        draws (the window sliders move the window over a larger tensor).
    limit : int
        The most elements a full memory map is built for (beyond, the window's slots are worked
        out from the strides alone).
    scale : float, optional
        Show the map this many times its size (e.g. 2 on a projector; default: the
        session's, see :func:`stridelab.settings`).

    Examples
    --------
    >>> import stridelab as sl
    >>> e = sl.explore((2, 3), "HW", padding={"W": 2})
    >>> e.desc.strides
    (5, 1)
    >>> e.configure(padding={"H": 1})          # padding after the outermost dimension
    >>> e.error.split(";")[0]
    "padding['H'] = 1 follows the outermost dimension, which changes no stride"
    """
    return LayoutExplorer(
        sizes,
        layout,
        data_type=data_type,
        broadcast=broadcast,
        padding=padding,
        strides=strides,
        max_size=max_size,
        max_padding=max_padding,
        max_cells=max_cells,
        limit=limit,
        scale=scale,
    )
