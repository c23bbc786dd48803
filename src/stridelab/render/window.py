"""Which part of a large memory map a drawing shows, and how the buffer strip wraps.

A drawing shows at most a budget of logical cells: a window ``[start : start + count]`` per
dimension, shrunk by halving its longest side until it fits (leading dimensions beyond four are
fixed at one index). It shows the slots those cells use, with the padding between them where
the budget allows, and marks the runs of slots it leaves out.

internal: used by the drawings (``stridelab.render_svg``, ``stridelab.draw_memory_map``) and the widgets.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._strides import packed_strides
from .._validate import at_least, int_tuple, int_value, shown
from ..desc import TensorDesc
from ..errors import LayoutError
from ..memmap import MemoryMap, SlotKind

__all__: list[str] = []

#: Runs of at most this many undrawn slots between drawn ones are drawn too (padding to see).
_SMALL_HOLE = 8

#: Slots drawn just before a placed tensor whose earlier slots do not all fit the drawing.
_LEAD = 4

#: The most cells (and slots) a drawing shows: a drawing's time and size grow with its cells, and
#: this many already take about half a second and 10 MB of SVG (benchmarks/RESULTS.md), so a
#: larger ``max_cells`` is refused rather than left to run for minutes.
MAX_CELLS = 16384


def checked_max_cells(max_cells: Any) -> int:
    """``max_cells`` as an int from 1 to :data:`MAX_CELLS`.

    >>> checked_max_cells(10**9)
    Traceback (most recent call last):
    ...
    stridelab.errors.LayoutError: max_cells = 1000000000: at most 16384 cells are drawn
    """
    value = at_least("max_cells", max_cells, 1)
    if value > MAX_CELLS:
        raise LayoutError(f"max_cells = {shown(value)}: at most {MAX_CELLS} cells are drawn")
    return value


@dataclass(frozen=True)
class Window:
    """The logical coordinates drawn: ``starts[i] <= c[i] < starts[i] + counts[i]``."""

    starts: tuple[int, ...]
    counts: tuple[int, ...]

    @property
    def size(self) -> int:
        return math.prod(self.counts)

    def slices(self) -> tuple[slice, ...]:
        return tuple(slice(s, s + n) for s, n in zip(self.starts, self.counts))

    def coords(self) -> np.ndarray:
        """Coordinates of the window's elements, row-major, as an array of shape (size, rank)."""
        grid = np.indices(self.counts, dtype=np.int64).reshape(len(self.counts), -1).T
        return grid + np.asarray(self.starts, dtype=np.int64)

    def offsets(self, m: MemoryMap) -> np.ndarray:
        """Buffer offsets of the window's elements, row-major (from the map, not recomputed)."""
        return np.ascontiguousarray(m.offsets[self.slices()]).ravel()

    def notes(self, sizes: Sequence[int], movable: bool = True) -> list[str]:
        """What the drawing leaves out, in words (nothing where the window is everything);
        ``movable``: the drawing takes ``start=`` to show another block."""
        total = math.prod(sizes)
        if self.size == total:
            return []
        ranges = ", ".join(
            str(s) if (i < len(sizes) - 4 and n == 1) else f"{s}:{s + n}"
            for i, (s, n) in enumerate(zip(self.starts, self.counts))
        )
        notes = [f"showing {self.size} of {total} logical elements: the window [{ranges}]"]
        fixed = len(sizes) - 4
        if fixed > 0:
            notes.append(
                f"dimensions 0 to {fixed - 1} fixed at {list(self.starts[:fixed])} "
                f"(one of {math.prod(sizes[:fixed])} 4-D blocks{'; pass start= for another' * movable})"
            )
        return notes


def window(sizes: Sequence[int], max_cells: int, start: Sequence[int] | None = None) -> Window:
    """The window of at most ``max_cells`` elements beginning at ``start`` (default: zeros)."""
    max_cells, rank = checked_max_cells(max_cells), len(sizes)
    starts = (0,) * rank if start is None else int_tuple("start", start)
    if len(starts) != rank:
        raise LayoutError(f"start {list(starts)} has {len(starts)} entries but sizes {list(sizes)} has {rank}")
    for i, (s, n) in enumerate(zip(starts, sizes)):
        if not 0 <= s < n:
            raise LayoutError(f"start[{i}] = {s} is out of range for sizes[{i}] = {n} (0 <= start[i] < sizes[i])")
    counts = [1 if i < rank - 4 else n - s for i, (s, n) in enumerate(zip(starts, sizes))]
    while math.prod(counts) > max_cells:
        longest = max(range(rank), key=lambda i: (counts[i], -i))
        counts[longest] = (counts[longest] + 1) // 2
    return Window(starts, tuple(counts))


@dataclass(frozen=True)
class WindowSlots:
    """The slots of a window's cells, worked out from the strides alone (no memory map)."""

    offsets: np.ndarray  # per cell, its buffer offset
    slots: np.ndarray  # the distinct offsets, sorted
    kinds: np.ndarray  # per slot: ELEMENT, or SHARED where several of the window's cells use it
    counts: np.ndarray  # per slot, how many of the window's cells use it
    labels: list[str]  # per slot, its value, else the flat index of its first cell
    colours: np.ndarray  # per slot, its first cell's index along the colouring dimension
    firsts: np.ndarray  # per slot, its first cell's row-major index


def window_slots(desc: TensorDesc, win: Window, colour_dim: int, values: Any = None) -> WindowSlots:
    """The slots of ``win``'s cells for a description too large for a memory map: only what the
    window's own cells use is known (what lies between them, padding or elements outside the
    window, is not worked out). ``values`` is the tensor's buffer, where there is one."""
    coords = win.coords()
    offsets = coords @ np.asarray(desc.strides, dtype=np.int64)
    slots, first, counts = np.unique(offsets, return_index=True, return_counts=True)
    firsts = flat_indices(coords[first], desc.sizes)
    if values is not None:
        picked = values[slots]
        labels = [format_value(v) for v in (picked.get() if hasattr(picked, "get") else picked).tolist()]
    else:
        labels = [str(i) for i in firsts.tolist()]
    kinds = np.where(counts > 1, SlotKind.SHARED, SlotKind.ELEMENT).astype(np.int8)
    return WindowSlots(offsets, slots, kinds, counts, labels, coords[first, colour_dim], firsts)


def flat_indices(coords: np.ndarray, sizes: Sequence[int]) -> np.ndarray:
    """The row-major flat index of each row of ``coords``: int64, or Python ints (an object
    array) for tensors of more elements than int64 counts."""
    if math.prod(sizes) <= np.iinfo(np.int64).max:
        return np.ravel_multi_index(tuple(coords.T), sizes).astype(np.int64)
    row_major = packed_strides(sizes)
    return np.array([sum(c * s for c, s in zip(coord, row_major)) for coord in coords.tolist()], dtype=object)


def explicit_window(sizes: Sequence[int], pairs: Any, max_cells: int) -> Window:
    """The window given as one ``(start, count)`` pair per dimension, checked against ``sizes``
    and the cell budget.

    >>> explicit_window((4, 6), [(1, 2), (0, 3)], 16)
    Window(starts=(1, 0), counts=(2, 3))
    """
    max_cells, rank = checked_max_cells(max_cells), len(sizes)
    if isinstance(pairs, (str, bytes)) or not hasattr(pairs, "__len__") or len(pairs) != rank:
        raise LayoutError(
            f"window must give one (start, count) pair per dimension of sizes {list(sizes)}, not {shown(pairs)}"
        )
    starts, counts = [], []
    for i, (pair, n) in enumerate(zip(pairs, sizes)):
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise LayoutError(f"window[{i}] = {shown(pair)}: it must be a (start, count) pair")
        start, count = int_value(f"window[{i}] start", pair[0]), int_value(f"window[{i}] count", pair[1])
        if not 0 <= start < n or not 1 <= count <= n - start:
            raise LayoutError(
                f"window[{i}] = ({start}, {count}) does not fit sizes[{i}] = {n} "
                "(0 <= start < size and 1 <= count <= size - start)"
            )
        if i < rank - 4 and count != 1:
            raise LayoutError(
                f"window[{i}] count = {count}: drawings fix each dimension before the last four at one index"
            )
        starts.append(start)
        counts.append(count)
    win = Window(tuple(starts), tuple(counts))
    if win.size > max_cells:
        raise LayoutError(f"window {list(map(tuple, pairs))} holds {win.size} cells, more than max_cells = {max_cells}")
    return win


def shown_slots(m: MemoryMap, cell_offsets: np.ndarray, max_slots: int) -> tuple[np.ndarray, str | None]:
    """The slots to draw (sorted offsets) and a note where some are left out.

    Every slot of a drawn cell is drawn. All slots are drawn where they fit the budget; else the
    span from the first to the last drawn cell's slot where that fits; else the cells' slots and
    the short runs of undrawn slots between them, as far as the budget allows.
    """
    total = m.slot_count
    if total <= max_slots:
        return np.arange(total, dtype=np.int64), None
    used = np.unique(cell_offsets)
    first, last = int(used[0]), int(used[-1])
    if last - first + 1 <= max_slots:
        grow = max_slots - (last - first + 1)
        span_end = min(total, last + 1 + grow)
        shown = np.arange(first, span_end, dtype=np.int64)
    else:
        holes = np.diff(used) - 1
        small = (holes > 0) & (holes <= _SMALL_HOLE)
        shown = used
        if used.size + int(holes[small].sum()) <= max(max_slots, used.size):
            fills = [np.arange(a + 1, a + 1 + h) for a, h in zip(used[:-1][small].tolist(), holes[small].tolist())]
            shown = np.unique(np.concatenate([used, *fills])) if fills else used
    return shown, f"showing {shown.size} of {total} slots: those of the elements shown"


def strip_items(
    slots: np.ndarray, total: int, x0: int, y0: int, width: int, slot_w: int, gap_w: int, row_h: int, first: int = 0
) -> tuple[np.ndarray, np.ndarray, tuple[tuple[int, int, int], ...]]:
    """Positions of ``slots`` (offsets from ``first`` up to ``total``) in a strip wrapped at
    ``width`` pixels, with a narrow marker for each run of undrawn slots (before the first, between
    two, after the last). Returns slot x and y arrays and the markers as ``(x, y, slots skipped)``."""
    if slots.size == total - first:  # everything drawn: a plain grid
        per_row = max(1, width // slot_w)
        index = np.arange(slots.size, dtype=np.int64)
        return x0 + (index % per_row) * slot_w, y0 + (index // per_row) * row_h, ()
    xs = np.empty(slots.size, dtype=np.int64)
    ys = np.empty(slots.size, dtype=np.int64)
    gaps = []
    x, y = x0, y0
    previous = first - 1
    for i, offset in enumerate(slots.tolist()):
        if offset > previous + 1:
            if x + gap_w > x0 + width:
                x, y = x0, y + row_h
            gaps.append((x, y, offset - previous - 1))
            x += gap_w
        if x + slot_w > x0 + width:
            x, y = x0, y + row_h
        xs[i], ys[i] = x, y
        x += slot_w
        previous = offset
    if previous < total - 1:
        if x + gap_w > x0 + width:
            x, y = x0, y + row_h
        gaps.append((x, y, total - 1 - previous))
    return xs, ys, tuple(gaps)


def lead_slots(offset: int, room: int) -> np.ndarray:
    """The slots before a tensor that starts at buffer element ``offset`` which its drawing shows,
    counted from the tensor's element 0 (``-offset`` to -1): all of them where they fit in ``room``
    more slots or are only a few, else the last few (a marker stands for the rest).

    >>> lead_slots(5, 58).tolist(), lead_slots(2**40, 58).tolist()
    ([-5, -4, -3, -2, -1], [-4, -3, -2, -1])
    """
    drawn = offset if offset <= max(room, _LEAD) else _LEAD
    return np.arange(-drawn, 0, dtype=np.int64)


def format_value(value: object) -> str:
    """A buffer value as a short label: integers as they are, floats to 4 significant digits."""
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)
