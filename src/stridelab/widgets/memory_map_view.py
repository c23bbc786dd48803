"""MemoryMapView: one memory map, live; pointing at a cell lights its slot and vice versa.

internal: ``MemoryMapView`` is public as ``stridelab.MemoryMapView``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._access_report import AccessReport, access_pattern
from .._arrays import Layout, layout_of
from .._validate import at_least, known_keywords, wrong_type
from ..desc import TensorDesc
from ..errors import LayoutError
from ..memmap import DEFAULT_LIMIT, MemoryMap, SlotKind
from ..render.access import AccessDrawing, access_drawing
from ..render.access_paint import access_bundle, access_svg
from ..render.options import DrawOptions, session_scale
from ..render.scene import WRAP_WIDTH, Scene, resolve, scene_for
from ..render.svg import KIND_NAMES
from ..render.window import checked_max_cells
from ..tensor import StridedTensor
from ._panels import MapWidget, RefusedValue, StaticFallback

__all__: list[str] = []

#: Logical cells (and slots) a live view draws at most by default.
VIEW_MAX_CELLS = 256
#: Cells (and slots) of the static SVG that goes with every live view.
STATIC_MAX_CELLS = 64
#: The fewest cells a view fitted to a height (:attr:`MemoryMapView.max_height`) draws.
_MIN_FITTED_CELLS = 16


def as_source(obj: Any, field: str = "source") -> TensorDesc | MemoryMap | StridedTensor:
    """A description, map or strided tensor as it is; a numpy or cupy array (``field``, for
    messages) as a strided tensor."""
    if isinstance(obj, (TensorDesc, MemoryMap, StridedTensor)):
        return obj
    if hasattr(obj, "__array_interface__") or hasattr(obj, "__cuda_array_interface__"):
        _refuse_negative_strides(layout_of(obj, field))
        return StridedTensor.from_array(obj)
    raise wrong_type(field, "a TensorDesc, MemoryMap, StridedTensor or array", obj)


def _refuse_negative_strides(layout: Layout) -> None:
    """A memory map draws a DirectML buffer layout, and DirectML strides are never negative: say
    what to draw instead of an array that steps backwards through memory."""
    axes = [i for i, (n, s) in enumerate(zip(layout.sizes, layout.strides)) if n > 1 and s < 0]
    if axes:
        flip = ", ".join("::-1" if i in axes else ":" for i in range(len(layout.sizes)))
        byte_strides = [s * layout.dtype.element_size for s in layout.strides]
        raise LayoutError(
            f"array byte_strides {byte_strides} are negative along axes {axes}; a memory map draws a "
            "DirectML buffer layout, whose strides are 0 or more, so none describes this view: draw "
            f"array[{flip}] for the buffer layout it reads, or xp.ascontiguousarray(array) for its values "
            "packed row-major"
        )


def static_options(options: DrawOptions) -> DrawOptions:
    """A live view's drawing options for its static picture: at most STATIC_MAX_CELLS cells (kept
    small for saved notebooks), unless an exact window was asked for, which is drawn as asked."""
    return options.capped(STATIC_MAX_CELLS)


def desc_of(source: TensorDesc | MemoryMap | StridedTensor) -> TensorDesc:
    return source if isinstance(source, TensorDesc) else source.desc


class MemoryMapView(MapWidget):
    """A live memory map: the logical view beside the physical buffer, linked.

    Hovering a logical cell lights its slot and every other cell stored there (a broadcast slot
    lights several); hovering a slot lights its cells; clicking selects (``selection``). A strided
    tensor or array shows its values. More than ``max_cells`` cells are windowed, and the view
    says so, so a million-element tensor neither freezes the browser nor fills the notebook.

    With ``access=True`` it shows the GPU memory traffic of reading the layout a warp of
    consecutive threads at a time (:func:`stridelab.access_pattern`): cells and slots labelled by
    the thread that reads them and coloured by its request, the sectors of the first ``requests``
    requests outlined in the strip, and the report's numbers below; hovering a cell lights the
    sectors its thread reads and says "thread t of request r: address A, sector S".

    Parameters
    ----------
    source : TensorDesc, MemoryMap, StridedTensor or array
        An array with negative strides is refused, with what to draw instead: it has no DirectML
        buffer layout to draw.
    max_cells : int
        The most logical cells (and slots) drawn.
    columns : int
        Slots per row of the buffer strip.
    start : tuple of int, optional
        First corner of the window over a large tensor (the window holds what ``max_cells``
        allows).
    window : sequence of (start, count) pairs, optional
        The window exactly, one pair per dimension (instead of ``start``).
    colour_by : int, optional
        Dimension whose index picks the fill colour.
    limit : int
        The most elements a full memory map is built for; beyond, the window's slots are worked
        out from the strides alone.
    scale : float, optional
        Show the drawing this many times its size (e.g. 2 on a projector; default: the
        session's, see :func:`stridelab.settings`).
    name : str
        A caption above the drawing.
    access : bool
        Show the memory traffic (see above); ``order``, ``bytes_per_thread`` and ``requests``
        apply only then: the walk order and vector width :func:`stridelab.access_pattern` takes,
        and how many requests are outlined.

    Examples
    --------
    >>> import stridelab as sl
    >>> view = sl.MemoryMapView(sl.TensorDesc("FLOAT32", (2, 3), (0, 1)))
    >>> view.select((1, 2))
    >>> view.selection["elements"]
    [(0, 2), (1, 2)]
    >>> traffic = sl.MemoryMapView(sl.TensorDesc("FLOAT32", (8, 8), (1, 8)), access=True)
    >>> print(traffic.report)
    2 requests of 32 threads x 4 B: 16 sectors (8.00 per request, ideal 4.00), efficiency 50%
    """

    #: The tallest the drawing is shown (CSS pixels, scale included), or None: a drawing that would
    #: be taller draws fewer cells (halving ``max_cells``, to at least 16), unless an exact window
    #: was asked for. The explorer sets it so that its map fits a screen below its controls.
    max_height: int | None = None

    @known_keywords
    def __init__(
        self,
        source: Any,
        *,
        max_cells: int = VIEW_MAX_CELLS,
        columns: int = 16,
        start: tuple[int, ...] | None = None,
        window: Sequence[tuple[int, int]] | None = None,
        colour_by: int | None = None,
        limit: int = DEFAULT_LIMIT,
        scale: float | None = None,
        name: str = "",
        access: bool = False,
        order: Sequence[int] | None = None,
        bytes_per_thread: int | None = None,
        requests: int = 4,
    ) -> None:
        super().__init__()
        if not isinstance(access, bool):
            raise TypeError(f"access must be True or False, not {type(access).__name__}")
        self._access: dict[str, Any] | None = None
        if access:
            self._access = {"order": order, "bytes_per_thread": bytes_per_thread}
        self._requests = at_least("requests", requests, 1)
        self._report: AccessReport | None = None
        self._drawing: AccessDrawing | None = None
        self._scale = session_scale(scale)
        self._options = DrawOptions(checked_max_cells(max_cells), columns, start, window, colour_by, limit)
        self._name = name
        self._source: Any = None
        self._scene: Scene | None = None
        self.source = source
        self.observe(lambda change: self._draw(self._source, self._options, keep_selection=True), "available_width")

    @property
    def source(self) -> TensorDesc | MemoryMap | StridedTensor:
        """What the view draws; setting it redraws."""
        return self._source

    @source.setter
    def source(self, value: Any) -> None:
        self._draw(as_source(value), self._options)

    def _draw(self, source: Any, options: DrawOptions, *, keep_selection: bool = False) -> None:
        """Lay ``source`` out with ``options`` and show it; a refused layout changes nothing."""
        if self._access is not None:
            self._draw_access(source, options, keep_selection)
            return
        scene = self._fitted(source, options)
        self._source, self._options, self._scene = source, options, scene
        self.show([scene], [self._name], keep_selection=keep_selection)
        self.copy_lines = [str(scene.desc)]

    def _access_drawing(self, report: AccessReport, options: DrawOptions, width: int) -> AccessDrawing:
        return access_drawing(
            report,
            requests=self._requests,
            max_cells=options.max_cells,
            columns=options.columns,
            start=options.start,
            window=options.window,
            limit=options.limit,
            width=width,
        )

    def _draw_access(self, source: Any, options: DrawOptions, keep_selection: bool) -> None:
        """:meth:`_draw` for ``access=True``: the access picture, and per cell what pointing at it
        lights and says."""
        assert self._access is not None
        report = access_pattern(desc_of(source), **self._access)
        drawing = self._access_drawing(report, options, self.layout_width)
        self._source, self._options, self._scene = source, options, drawing.scene
        self._report, self._drawing = report, drawing
        with self.hold_sync():
            self.show([drawing.scene], [self._name], keep_selection=keep_selection)
            self.panels = [{**self.panels[0], "svg": access_svg(drawing, self._scale), "access": access_data(drawing)}]
            self.copy_lines = [str(drawing.scene.desc)]

    @property
    def report(self) -> AccessReport | None:
        """The memory traffic shown (``access=True``), else None."""
        return self._report

    def _fitted(self, source: Any, options: DrawOptions) -> Scene:
        """The scene of ``source`` within :attr:`max_height`, with fewer cells where needed."""
        scene = scene_for(source, options, self.layout_width)
        cells = options.max_cells
        while self.max_height is not None and options.window is None and cells > _MIN_FITTED_CELLS:
            if scene.height * self._scale <= self.max_height:
                break
            cells = max(_MIN_FITTED_CELLS, cells // 2)
            scene = scene_for(source, options.capped(cells), self.layout_width)
        return scene

    def redraw(self, source: Any, *, start: tuple[int, ...] | None = None) -> None:
        """Draw ``source`` with its window starting at ``start`` (one redraw, unlike setting
        ``source`` and ``start`` in turn, between which the old window may not fit the new source)."""
        self._draw(as_source(source), self._options.moved(start=start))

    @property
    def desc(self) -> TensorDesc:
        return self.scene.desc

    @property
    def scene(self) -> Scene:
        """The laid-out drawing (positions, labels, what was left out)."""
        assert self._scene is not None, "drawn in __init__"
        return self._scene

    @property
    def start(self) -> tuple[int, ...] | None:
        return self._options.start

    @start.setter
    def start(self, value: tuple[int, ...] | None) -> None:
        """Move the window over a large tensor; a start outside the tensor is refused and the view
        keeps its window."""
        self._draw(self._source, self._options.moved(start=value))

    @property
    def window(self) -> tuple[tuple[int, int], ...]:
        """The drawn window, one ``(start, count)`` pair per dimension; setting it redraws (a
        window that does not fit is refused and the view keeps its own)."""
        win = self.scene.window
        return tuple(zip(win.starts, win.counts))

    @window.setter
    def window(self, value: Sequence[tuple[int, int]] | None) -> None:
        self._draw(self._source, self._options.moved(window=value))

    def _memory_map(self) -> MemoryMap | None:
        """The source's memory map within the view's budget (as its drawing was built); None beyond it."""
        return resolve(self._source, self._options.limit)[1]

    def _check_slot(self, scene: Scene, slot: int) -> None:
        """A slot of the buffer; beyond the memory-map ``limit``, where only the drawn slots are
        worked out, one of those."""
        super()._check_slot(scene, slot)
        desc, limit = scene.desc, self._options.limit
        beyond = not isinstance(self._source, MemoryMap) and max(desc.element_count, desc.slot_count) > limit
        if beyond and slot not in scene.slot_offsets:
            raise RefusedValue(
                f"slot {slot} is not drawn, and beyond the memory-map limit of {limit} elements only the drawn "
                "slots are worked out: move the window (start=) to it"
            )

    def select(self, coords: Any = None, *, slot: int | None = None) -> None:
        """Select the slot of the element at logical ``coords``, or ``slot`` (an element offset);
        ``select()`` clears the selection."""
        if coords is not None and slot is not None:
            raise TypeError("select() takes coords or slot=, not both")
        if coords is not None:
            slot = self.desc.offset_of(coords)
        if slot is None:
            self.selected = {}
            return
        if isinstance(slot, bool) or not isinstance(slot, (int, np.integer)):
            raise TypeError(f"slot must be an integer element offset, not {type(slot).__name__}")
        if not 0 <= slot < self.desc.slot_count:
            raise LayoutError(f"slot = {slot} is out of range for a buffer of {self.desc.slot_count} slots")
        self.selected = {"panel": 0, "slot": int(slot)}

    @property
    def selection(self) -> dict | None:
        """The selected slot: its offsets, kind, label and every element stored there; or None.

        Beyond the view's memory-map ``limit`` only the drawn cells are known: the elements are
        those of the window stored there, the kind is what the window shows, and ``"complete"``
        is False."""
        if not self.selected:
            return None
        slot = int(self.selected["slot"])
        scene, m = self.scene, self._memory_map()
        drawn = np.flatnonzero(scene.slot_offsets == slot)
        label = scene.slot_labels[int(drawn[0])] if drawn.size else None
        if m is not None:
            kind = int(m.slot_kinds[slot])
            elements = m.elements_at(slot)
            if label is None:
                label = "x" if kind == SlotKind.PADDING else "." if kind == SlotKind.ALIGNMENT else None
        else:
            kind = int(scene.slot_kinds[int(drawn[0])]) if drawn.size else SlotKind.ELEMENT
            cells = np.flatnonzero(scene.slot_offsets[scene.cell_slot] == slot)
            elements = [tuple(int(i) for i in scene.cell_coords[c]) for c in cells.tolist()]
        return {
            "slot": slot,
            "byte": slot * self.desc.element_size,
            "kind": KIND_NAMES[kind],
            "label": label,
            "elements": elements,
            "complete": m is not None,
        }

    def static_scenes(self) -> tuple[list[Scene], list[str]]:
        if self._report is not None:
            return [self._static_drawing().scene], [self._name]
        return [scene_for(self._source, static_options(self._options))], [self._name]

    def _static_drawing(self) -> AccessDrawing:
        assert self._report is not None
        return self._access_drawing(self._report, static_options(self._options), WRAP_WIDTH)

    def to_svg(self) -> str:
        if self._report is None:
            return super().to_svg()
        return access_svg(self._static_drawing(), self._scale)

    def _repr_mimebundle_(self, **kwargs: Any):
        if self._report is None:
            return super()._repr_mimebundle_(**kwargs)
        bundle = super(StaticFallback, self)._repr_mimebundle_(**kwargs)
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        data, metadata = dict(data or {}), dict(metadata or {})
        text = f"{self!r}\n{self._report}"
        picture, picture_metadata = access_bundle(self._static_drawing(), text, self._scale)
        data.update(picture)
        metadata.update(picture_metadata)
        return data, metadata

    def __repr__(self) -> str:
        access = ", access=True" if self._access is not None else ""
        return f"MemoryMapView({self._source!r}{access})"


def access_data(drawing: AccessDrawing) -> dict:
    """What the script needs to light a cell's sectors: per drawn cell the text it shows, the drawn
    slots (positions ``start`` to ``stop - 1``) in its thread's sectors, and the positions of those
    sectors' outlines (the ``g.sector`` groups, in order)."""
    sector = drawing.report.sector_bytes
    outlines: dict[int, list[int]] = {}
    for i, outline in enumerate(drawing.outlines):
        outlines.setdefault(outline.sector, []).append(i)
    lit_outlines = []
    for first, last in drawing.cell_bytes:
        lit_outlines.append([i for s in range(first // sector, last // sector + 1) for i in outlines.get(s, [])])
    lit = [list(drawing.lit_slots(c)) for c in range(len(drawing.cell_bytes))]
    return {
        "info": [drawing.cell_text(c) for c in range(len(drawing.cell_bytes))],
        "slots": lit,
        "outlines": lit_outlines,
    }
