"""The picture of a memory map, computed once and drawn by SVG, matplotlib and the widgets alike.

:func:`build_scene` turns a description (or a map, or a strided tensor) into a :class:`Scene`:
pixel positions of every logical cell and physical slot, their labels and colours, and every
piece of text. The drawing back ends only paint what the scene says, so the static SVG, the
matplotlib figure and the interactive widget show the same picture.

Large descriptions are windowed: at most ``max_cells`` logical cells (a window over the leading
corner, or at ``start``) and at most ``max_cells`` slots (those the drawn cells use, with short
runs of padding between them) are drawn, and the scene's notes say so.

>>> from stridelab import TensorDesc
>>> s = build_scene(TensorDesc("FLOAT32", (2, 3), (5, 1)))
>>> s.slot_labels
('A', 'B', 'C', 'x', 'x', 'D', 'E', 'F')

internal: used by the drawings (``stridelab.render_svg``, ``stridelab.draw_memory_map``) and the widgets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._desc_text import PlacedDesc
from .._validate import at_least, shown, wrong_type
from ..desc import TensorDesc
from ..errors import LayoutError
from ..memmap import DEFAULT_LIMIT, MemoryMap, SlotKind
from ..tensor import StridedTensor
from . import layout
from .labels import default_colour_dim, labels_from, slot_labels_and_colours
from .layout import BEFORE_LABEL, BYTE_DY, MARGIN, OFFSET_DY, Text, buffer_strip, legend, text_right
from .options import DEFAULT_MAX_CELLS, DrawOptions, LabelSource
from .palette import CELL_H, cell_width, fills_for
from .summary import placement_line, summary_lines
from .window import MAX_CELLS, Window, checked_max_cells, explicit_window, lead_slots, shown_slots, window_slots
from .window import window as fitted_window

__all__: list[str] = []

#: Drawings count offsets, in elements and in bytes, in int64: a window reaching further is refused.
OFFSET_MAX = int(np.iinfo(np.int64).max)

_LINE = 16
_PANEL_GAP = 36
#: The default width (pixels) drawings wrap their tiles and buffer strip to stay within; the strip
#: goes below the logical view where fewer than MIN_STRIP_COLUMNS slots would fit beside it. At
#: 200% zoom on a 1920 x 1080 screen JupyterLab's output area is 780 CSS pixels wide: a stored
#: picture within it grows with the prose instead of being shrunk to fit.
WRAP_WIDTH = 760
MIN_STRIP_COLUMNS = 8


@dataclass(frozen=True, eq=False)
class Scene:
    """Everything one memory-map drawing shows, in pixels (origin top left, y down).

    Cells are the drawn logical elements, slots the drawn physical buffer slots; arrays of the
    same length describe them column by column. ``cell_slot`` indexes the slot arrays, so a cell
    and its slot share ``slot_labels`` and ``slot_colours`` (-1: no fill colour).

    ``slot_offsets`` count from the description's element 0; ``offset`` is the buffer element
    where that lies (a :class:`~stridelab.PlacedDesc`'s, else 0), so slot ``i`` is buffer
    element ``offset + slot_offsets[i]``, and the slots drawn before the tensor have negative
    ``slot_offsets`` (kind :attr:`~stridelab.memmap.SlotKind.BEFORE`).
    """

    desc: TensorDesc
    width: int
    height: int
    title: str
    texts: tuple[Text, ...]
    cell_x: np.ndarray
    cell_y: np.ndarray
    cell_coords: np.ndarray  # (cells, rank)
    cell_index: np.ndarray  # flat (row-major) logical index
    cell_slot: np.ndarray
    slot_x: np.ndarray
    slot_y: np.ndarray
    slot_offsets: np.ndarray
    slot_kinds: np.ndarray
    slot_counts: np.ndarray
    slot_colours: np.ndarray
    fills: tuple[str, ...]  # the fill of colour index i is fills[i % len(fills)]
    cell_w: int  # the width of every cell and slot (wider than CELL_W for long labels)
    window: Window  # the logical coordinates drawn
    slot_labels: tuple[str, ...]
    gaps: tuple[tuple[int, int, int], ...]  # (x, y, slots skipped)
    legend: tuple[tuple[int, int, str], ...]  # (x, y, "padding" | "alignment" | "shared" | "gap")
    notes: tuple[str, ...]
    # what a widget puts on its drawing (see :mod:`.marks`): per cell and per slot a mark's name
    # or "", per cell a badge or ""; empty where nothing is marked
    cell_marks: tuple[str, ...] = ()
    slot_marks: tuple[str, ...] = ()
    cell_badges: tuple[str, ...] = ()
    offset: int = 0  # a Python int: with the byte offset it may pass int64
    # the byte address of buffer element 0: the strip's byte labels are addresses from it (an
    # access picture counts sectors in addresses); 0 gives byte offsets
    address0: int = 0

    @property
    def cell_count(self) -> int:
        return int(self.cell_x.size)

    @property
    def slot_count(self) -> int:
        return int(self.slot_x.size)

    def cell_labels(self) -> list[str]:
        return [self.slot_labels[i] for i in self.cell_slot.tolist()]

    def slot_texts(self) -> list[Text]:
        """Each drawn slot's element offset in the buffer above it and byte offset (or address,
        from ``address0``) below it."""
        size = self.desc.element_size
        out = []
        for x, y, slot in zip(self.slot_x.tolist(), self.slot_y.tolist(), self.slot_offsets.tolist()):
            offset = self.offset + slot
            out.append(Text(x + self.cell_w // 2, y + OFFSET_DY, str(offset), "offset"))
            out.append(Text(x + self.cell_w // 2, y + BYTE_DY, str(self.address0 + offset * size), "byte"))
        return out


#: How several scenes stack into one picture (the SVG and the PNG alike): a caption above each.
STACK_CAPTION = 22
STACK_GAP = 10


def stack_scenes(scenes: Sequence[Scene]) -> tuple[int, int, list[int]]:
    """Width and height of ``scenes`` drawn one above the other, each under a caption, and the
    top of each scene's caption."""
    width = max(scene.width for scene in scenes)
    tops, y = [], 0
    for scene in scenes:
        tops.append(y)
        y += STACK_CAPTION + scene.height + STACK_GAP
    return width, y - STACK_GAP, tops


def resolve(obj: Any, limit: int = DEFAULT_LIMIT) -> tuple[TensorDesc, MemoryMap | None, str | None]:
    """The description of ``obj``, its memory map (bound to values for a strided tensor), and
    why there is no map where the description has more than ``limit`` elements or slots."""
    if isinstance(obj, MemoryMap):
        return obj.desc, obj, None
    if isinstance(obj, StridedTensor):
        desc = obj.desc
    elif isinstance(obj, TensorDesc):
        desc = obj
    else:
        raise wrong_type("obj", "a TensorDesc, MemoryMap or StridedTensor", obj)
    for what, count in (("logical elements", desc.element_count), ("physical slots", desc.slot_count)):
        if count > limit:
            return desc, None, f"{count} {what} are more than the {limit} a memory map is built for"
    built = obj.memory_map(limit=limit) if isinstance(obj, StridedTensor) else desc.memory_map(limit=limit)
    return desc, built, None


def build_scene(
    obj: Any,
    *,
    max_cells: int = DEFAULT_MAX_CELLS,
    columns: int = 16,
    start: tuple[int, ...] | None = None,
    window: Sequence[tuple[int, int]] | None = None,
    colour_by: int | None = None,
    limit: int = DEFAULT_LIMIT,
    width: int = WRAP_WIDTH,
    labels_from: LabelSource | None = None,
) -> Scene:
    """Lay out the memory-map drawing of a ``TensorDesc``, ``MemoryMap``, ``StridedTensor`` or
    ``PlacedDesc`` (a description from an offset into its buffer on: the strip then counts the
    buffer's offsets, and shows the slots before the tensor as unused).

    Parameters
    ----------
    max_cells : int
        The most logical cells, and the most physical slots, drawn; larger maps are windowed.
    columns : int
        Slots per row of the buffer strip (and cells per row of a 1-D logical view).
    start : tuple of int, optional
        Logical coordinates of the window's first corner (default: all zeros); the window then
        holds as much as ``max_cells`` allows. For 5 to 8 dimensions the leading ``rank - 4``
        indices are fixed at these values.
    window : sequence of (start, count) pairs, optional
        The window exactly, one pair per dimension (instead of ``start``).
    colour_by : int, optional
        The dimension whose index picks a slot's fill colour (default: C for a 4-D or 5-D tensor
        with several channels, else the outermost drawn dimension of size > 1 other than the
        innermost).
    limit : int
        The most logical elements (and slots) a full memory map is built for; beyond, the slots
        are worked out for the window's cells alone.
    width : int
        The width (pixels) the drawing wraps its tiles and buffer strip to stay within.
    labels_from : LabelSource, optional
        Labels and colours taken from another tensor's elements (e.g. those an operator copies
        into each drawn element), and a line of the header saying so; default: the drawing's own.

    A description too large for a memory map is drawn all the same: its window's cells, and the
    slots they use, worked out from the strides alone.

    >>> s = build_scene(TensorDesc("FLOAT32", (2, 3)).placed(5))
    >>> s.texts[2].text
    'starts at element 5, byte 20 of its buffer · a buffer of at least 44 bytes holds it'
    >>> s.slot_labels, [s.offset + i for i in s.slot_offsets.tolist()]
    (('-', '-', '-', '-', '-', 'A', 'B', 'C', 'D', 'E', 'F'), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    """
    options = DrawOptions(max_cells, columns, start, window, colour_by, limit, labels_from)
    what, offset = placement(obj)
    return scene_for(what, options, width, offset=offset)


def placement(obj: Any) -> tuple[Any, int]:
    """What ``obj`` draws and the buffer element where it starts: a ``PlacedDesc``'s description
    and offset, anything else from element 0."""
    return (obj.desc, obj.offset) if isinstance(obj, PlacedDesc) else (obj, 0)


def scene_for(obj: Any, options: DrawOptions, width: int = WRAP_WIDTH, *, offset: int = 0) -> Scene:
    """:func:`build_scene` with its drawing options as one record, and the buffer element
    ``offset`` where ``obj`` starts (a ``PlacedDesc``'s: see :func:`placement`)."""
    max_cells, columns = checked_max_cells(options.max_cells), at_least("columns", options.columns, 1)
    limit, width = at_least("limit", options.limit, 1), at_least("width", width, 200)
    offset = at_least("offset", offset, 0)
    if options.start is not None and options.window is not None:
        raise TypeError("give start= or window=, not both: start= is the shorthand for a window from that corner")
    desc, memory_map, too_large = resolve(obj, limit)
    source = None if options.labels_from is None else options.labels_from.checked(desc, limit)
    lines = [*summary_lines(desc, None if memory_map is None else memory_map.slot_kinds)]
    lines += [placement_line(desc, offset)] if offset else []
    lines += [] if source is None else [source.text]
    win = _window(desc, options, max_cells)
    colour_by = options.colour_by
    colour_dim = default_colour_dim(desc.sizes) if colour_by is None else _check_dim(colour_by, desc.dimension_count)
    notes = win.notes(desc.sizes)
    if memory_map is not None:
        drawn = _mapped_slots(memory_map, win, colour_dim, max_cells, notes)
    else:
        drawn = _worked_out_slots(obj, desc, win, colour_dim, notes, too_large)
    offsets, slots, _, _, kinds, counts, _ = drawn
    labels, colours, fills = labels_from(source, drawn, fills_for(desc.sizes[colour_dim]), limit)
    own_slots = slots.size
    if offset:
        slots, kinds, counts, labels, colours = _with_slots_before(offset, max_cells, drawn, labels, colours)
    texts, top = _header(lines, notes)
    first_logical_text = len(texts)
    cell_w = cell_width(labels, [offset + last for last in slots[-1:].tolist()], desc.element_size)
    cells, logical_right, logical_bottom = layout.logical_view(desc, win, texts, MARGIN, top, columns, cell_w, width)
    captions = [t for t in texts[first_logical_text:] if t.role in ("caption", "axes", "tile-caption")]
    logical_right = max([logical_right, *(text_right(t) for t in captions)])
    # the strip beside the logical view, wrapped to keep the drawing within ``width``; below it
    # where fewer than MIN_STRIP_COLUMNS slots would fit beside it
    strip_x, strip_top = logical_right + _PANEL_GAP, top
    fit = (width - MARGIN - strip_x) // cell_w
    if fit < MIN_STRIP_COLUMNS:
        strip_x, strip_top = MARGIN, logical_bottom + 8
        fit = (width - 2 * MARGIN) // cell_w
    strip_columns = min(columns, max(MIN_STRIP_COLUMNS, fit))
    strip, gaps, strip_bottom = buffer_strip(desc, slots, texts, strip_x, strip_top, strip_columns, cell_w, offset)
    cell_slot = np.searchsorted(slots, offsets)
    parts = {**cells, **strip, "cell_slot": cell_slot, "slot_offsets": slots, "slot_colours": colours}
    parts["fills"], parts["cell_w"], parts["window"] = fills, cell_w, win
    parts["slot_kinds"], parts["slot_counts"], parts["offset"] = kinds, counts, offset
    legend_items = legend(parts, gaps, texts, max(logical_bottom, strip_bottom) + 14)
    if options.window is None and (win.size < desc.element_count or own_slots < desc.slot_count):
        _hint(texts, legend_items, max_cells)
    return _finish(desc, texts, parts, tuple(labels), gaps, tuple(notes), legend_items)


def _window(desc: TensorDesc, options: DrawOptions, max_cells: int) -> Window:
    """The logical coordinates drawn: ``options.window`` as given, else as much from
    ``options.start`` as ``max_cells`` allows."""
    if options.window is None:
        win = fitted_window(desc.sizes, max_cells, options.start)
    else:
        win = explicit_window(desc.sizes, options.window, max_cells)
    _check_reach(desc, win)
    return win


def _header(lines: list[str], notes: list[str]) -> tuple[list[Text], int]:
    """The texts of the summary, its further lines and the notes, one under another; and the
    top of the views below them."""
    texts = [Text(MARGIN, MARGIN + 12 + i * _LINE, line, "detail" if i else "summary") for i, line in enumerate(lines)]
    y = MARGIN + 12 + len(lines) * _LINE
    texts += [Text(MARGIN, y + i * _LINE, note, "note") for i, note in enumerate(notes)]
    return texts, y + len(notes) * _LINE + 2


def _mapped_slots(memory_map: MemoryMap, win: Window, colour_dim: int, max_cells: int, notes: list[str]) -> tuple:
    """The window's offsets and the drawn slots' offsets, labels, colours, kinds, counts and first
    elements, read from a full memory map; a note added where slots were left out."""
    offsets = win.offsets(memory_map)
    slots, slot_note = shown_slots(memory_map, offsets, max_cells)
    if slot_note:
        notes.append(slot_note)
    labels, colours, firsts = slot_labels_and_colours(memory_map, slots, colour_dim)
    return offsets, slots, labels, colours, memory_map.slot_kinds[slots], memory_map.slot_counts[slots], firsts


def _worked_out_slots(
    obj: Any, desc: TensorDesc, win: Window, colour_dim: int, notes: list[str], too_large: str | None
) -> tuple:
    """As :func:`_mapped_slots`, worked out from the strides for the window's cells alone (a
    description too large for a memory map), with notes that say so."""
    values = obj.buffer if isinstance(obj, StridedTensor) else None
    found = window_slots(desc, win, colour_dim, values)
    notes.append(f"{too_large}: the strip shows the window's own slots only (sharing counted within it)")
    if win.size < desc.element_count:
        notes.append("⋯ marks slots not worked out (padding or elements outside the window); start= moves it")
    else:
        notes.append("⋯ marks slots not worked out (padding between the elements)")
    return found.offsets, found.slots, found.labels, found.colours, found.kinds, found.counts, found.firsts


def _with_slots_before(offset: int, max_cells: int, drawn: tuple, labels: list[str], colours: np.ndarray) -> tuple:
    """The drawn slots, kinds, counts, labels and colours, led by the slots before a tensor that
    starts at buffer element ``offset`` (those that fit the slot budget: :func:`lead_slots`)."""
    slots, kinds, counts = drawn[1], drawn[4], drawn[5]
    before = lead_slots(offset, max_cells - slots.size)
    none = np.full(before.size, -1, dtype=np.int64)
    return (
        np.concatenate([before, slots]),
        np.concatenate([np.full(before.size, SlotKind.BEFORE, dtype=kinds.dtype), kinds]),
        np.concatenate([np.zeros_like(before), counts]),
        [BEFORE_LABEL] * before.size + list(labels),
        np.concatenate([none, colours]),
    )


def _hint(texts: list[Text], legend_items: list[tuple[int, int, str]], max_cells: int) -> None:
    """Under a windowed drawing, how to see more of it."""
    more = min(MAX_CELLS, 4 * max_cells)
    lines = (
        f"to see more: sl.render_svg(obj, max_cells={more}) draws up to {more} cells,",
        "start=(...) moves the window, sl.MemoryMapView(obj) explores it live",
    )
    y = max([t.y for t in texts] + [y + 14 for _, y, _ in legend_items]) + 18
    texts.extend(Text(MARGIN, y + i * _LINE, line, "hint") for i, line in enumerate(lines))


def _check_reach(desc: TensorDesc, win: Window) -> None:
    """Refuse a window whose last byte offset int64 cannot count (only a window far into a
    description whose offsets pass 2**63 reaches so far: the default window never does)."""
    last = sum((s + n - 1) * stride for s, n, stride in zip(win.starts, win.counts, desc.strides))
    if last * desc.element_size > OFFSET_MAX:
        raise LayoutError(
            f"the window from {list(win.starts)} reaches byte offset {last * desc.element_size}, past the "
            f"{OFFSET_MAX} (2**63 - 1) a drawing counts to; draw a window whose cells lie nearer offset 0"
        )


def _finish(desc, texts, parts, labels, gaps, notes, legend=()) -> Scene:
    """The scene, sized to hold every cell, slot and text."""
    right = max(text_right(t) for t in texts if t.role not in ("index", "index-row"))
    bottom = max(t.y for t in texts) + 8
    for xs, ys, below in ((parts["cell_x"], parts["cell_y"], 8), (parts["slot_x"], parts["slot_y"], 14)):
        if xs.size:
            right = max(right, int(xs.max()) + parts["cell_w"])
            bottom = max(bottom, int(ys.max()) + CELL_H + below)
    for _x, y, _name in legend:
        bottom = max(bottom, y + 16)
    title = " · ".join(t.text for t in texts if t.role in ("summary", "detail"))
    return Scene(
        desc=desc,
        width=right + MARGIN,
        height=bottom + MARGIN,
        title=title,
        texts=tuple(texts),
        slot_labels=labels,
        gaps=gaps,
        legend=tuple(legend),
        notes=notes,
        **parts,
    )


def _check_dim(dim: int, rank: int) -> int:
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or not -rank <= dim < rank:
        raise LayoutError(f"colour_by = {shown(dim)}: it must be a dimension index in 0..{rank - 1}")
    return int(dim) % rank
