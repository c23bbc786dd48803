"""The picture of a :class:`~stridelab._sanitizer._report.LayoutCheck`: the table of layouts tried,
and for the first failure the counts over the whole answer, a window of each varied argument's
buffer with the poison slots read, and the answer's logical grid with its wrong and unwritten
elements marked. Every mark is a letter as well as a colour, and the legend says each in words.

internal: :meth:`LayoutCheck._repr_mimebundle_` uses it.
"""

from __future__ import annotations

import math
import textwrap
from typing import TYPE_CHECKING

import numpy as np

from ..desc import TensorDesc
from ..errors import LayoutError
from ..memmap import LETTER_LABELS_UP_TO, element_label
from ..render import layout as grid_layout
from ..render.boxes import HATCH, Box, BoxDrawing
from ..render.layout import MARGIN, Text, text_right
from ..render.options import DEFAULT_MAX_CELLS
from ..render.palette import BACKGROUND, CELL_H, CELL_W, TEXT_ROLES, text_width
from ..render.window import Window, strip_items, window
from ._evidence import BufferView, Evidence, OutputMarks

if TYPE_CHECKING:
    from ._report import LayoutCheck

__all__: list[str] = []

#: The most rows of the table drawn (the text form lists them all).
MAX_ROWS = 32
#: The most characters of a table row drawn (its three cells together): a long cell is cut short.
ROW_CHARS = 126
#: Bins of the overview of a whole array, in row-major order.
BINS = 64
#: The most arrays of an answer drawn in the overview.
MAX_OUTPUTS = 4
WIDTH = 960
_ROW_H = 18
_STRIP_ROW = 14 + CELL_H + 8
_BAR_W, _BAR_H = 512, 16
FAIL_TINT = "#FCE3D6"
ELEMENT_FILL = "#99DDFF"
#: Each mark: its fill, its letter and what it means.
MARKS = {
    "wrong": ("#EE8866", "W", "wrong: differs from the packed answer"),
    "unwritten": ("#EEDD88", "U", "unwritten: still holds the value the output started with"),
    "reads-padding": ("#FFAABB", "P", "changes with the poison: the function read padding"),
    "read": ("#FFAABB", "R", "poison slot the answer depends on"),
    "undecided": (HATCH, "?", "poison slot not narrowed down before the calls ran out"),
    "written": ("#EE8866", "!", "padding the function wrote"),
}


def check_drawing(check: LayoutCheck) -> BoxDrawing:
    """The picture of ``check``."""
    sheet = _Sheet()
    title = f"check_layouts({check.name}): {check._headline()}"
    sheet.line(title, "summary")
    sheet.line("each layout called twice, over buffers whose padding holds two poisons, and compared", "detail")
    sheet.line("with the answer for packed inputs", "detail")
    sheet.table(check)
    failure = check.failures[0] if check.failures else None
    if failure is not None:
        sheet.gap(10)
        sheet.line(_clip(f"first failure: {failure.trial.notation()}", 130), "caption")
        verdict = next((row.verdict for row in check.rows if row.trial == failure.trial), ", ".join(failure.kinds))
        sheet.wrapped(f"{failure.trial.words()}: {verdict}", "detail")
        if failure.evidence is not None:
            sheet.evidence(failure.evidence)
    sheet.legend()
    return sheet.drawing(title)


class _Sheet:
    """Boxes and texts laid out top to bottom from a cursor ``y``."""

    def __init__(self) -> None:
        self.boxes: list[Box] = []
        self.texts: list[Text] = []
        self.y = MARGIN
        self.used: set[str] = set()

    def gap(self, pixels: int) -> None:
        self.y += pixels

    def line(self, text: str, role: str, x: int = MARGIN) -> None:
        self.texts.append(Text(x, self.y + TEXT_ROLES[role].size, text, role))
        self.y += TEXT_ROLES[role].size + 5

    def wrapped(self, text: str, role: str, x: int = MARGIN) -> None:
        chars = max(20, int((WIDTH - x - MARGIN) / (TEXT_ROLES[role].size * 0.62)))
        for piece in textwrap.wrap(text, chars)[:4]:
            self.line(piece, role, x)

    def table(self, check: LayoutCheck) -> None:
        """One row per layout tried: ok or FAIL (a tinted row), the layout, what it is, the verdict."""
        self.gap(8)
        self.line("layouts tried", "caption")
        header = ("layout", "what it is", "verdict")
        table = check.table()[:MAX_ROWS]
        most = _column_chars([max(len(row[i]) for row in [header, *table]) for i in range(3)], ROW_CHARS)
        rows = [tuple(_clip(cell, n) for cell, n in zip(row, most)) for row in table]
        widths = [max(text_width(r[i], 11) for r in [header, *rows]) + 14 for i in range(3)]
        xs = [MARGIN + 44, MARGIN + 44 + widths[0], MARGIN + 44 + widths[0] + widths[1]]
        self.texts.extend(Text(x, self.y + 10, name, "axes") for x, name in zip(xs, header))
        self.y += 14
        failed = {failure.trial for failure in check.failures}
        for row, cells in zip(check.rows, rows):
            bad = row.trial in failed
            if bad:
                self.boxes.append(Box(MARGIN, self.y, xs[2] + widths[2] - MARGIN, _ROW_H, FAIL_TINT, outline="none"))
            base = self.y + 13
            self.texts.append(Text(MARGIN + 4, base, "FAIL" if bad else "ok", "summary" if bad else "legend"))
            self.texts.extend(Text(x, base, cell, "legend") for x, cell in zip(xs, cells))
            self.y += _ROW_H
        if len(check.rows) > MAX_ROWS:
            self.line(f"… and {len(check.rows) - MAX_ROWS} more layouts: print the check to see them all", "hint")
        if check.skipped:
            self.line(f"{len(check.skipped)} layouts skipped: print the check to see why", "hint")

    def evidence(self, evidence: Evidence) -> None:
        outputs = evidence.outputs[:MAX_OUTPUTS]
        if outputs:
            self.gap(8)
            self.line("the whole answer, element by element in row-major order", "caption")
            for output in outputs:
                self.overview(output)
        for view in evidence.buffers:
            self.buffer(view)
        marked = next((output for output in outputs if output.counts()), None)
        if marked is not None:
            self.grid(marked)

    def overview(self, output: OutputMarks) -> None:
        """The counts of ``output``, and a bar of :data:`BINS` bins per marked kind, each bin as
        high as the share of its elements marked."""
        self.line(output.words(), "detail")
        size = output.size
        bins = min(BINS, size)
        if not bins:
            return
        edges = np.arange(bins, dtype=np.int64) * size // bins
        bin_w = _BAR_W // bins
        for kind, _count in output.counts():
            fill, letter, _ = MARKS[kind]
            self.used.add(kind)
            flat = output.masks[kind].reshape(-1).view(np.uint8)
            share = np.add.reduceat(flat, edges, dtype=np.int64) / np.diff(np.append(edges, size))
            x0, y = MARGIN + 90, self.y
            self.texts.append(Text(x0 - 8, y + 12, f"{letter} {kind}", "index-row"))
            self.boxes.append(Box(x0, y, bins * bin_w, _BAR_H, kind=f"overview {kind}"))
            for i, part in enumerate(share.tolist()):
                if part > 0:
                    h = max(2, round(part * (_BAR_H - 2)))
                    self.boxes.append(Box(x0 + i * bin_w + 1, y + _BAR_H - 1 - h, bin_w - 1, h, fill, outline="none"))
            self.texts.append(Text(x0, y + _BAR_H + 11, "element 0", "axes"))
            self.texts.append(Text(x0 + bins * bin_w, y + _BAR_H + 11, f"element {size - 1}", "index-row"))
            self.y += _BAR_H + 18

    def buffer(self, view: BufferView) -> None:
        """A strip of the drawn slots of ``view``'s buffer, numbered above, poison hatched."""
        self.gap(8)
        self.line(_clip(f"{view.name}'s buffer in {view.layout} ({view.layout.words})", 130), "caption")
        self.line("slots numbered as its layout numbers them (its lowest element at 0, or at the offset)", "axes")
        labels = [_element_label(int(i), view) for i in view.elements.tolist()]
        cell_w = max([CELL_W, *(text_width(s, 10) + 6 for s in (*labels, *map(str, view.slots[[0, -1]].tolist())))])
        cell_w += cell_w % 2
        lo, hi = view.bounds
        xs, ys, gaps = strip_items(
            view.slots - lo, hi - lo + 1, MARGIN, self.y + 14, WIDTH - 2 * MARGIN, cell_w, CELL_W // 2, _STRIP_ROW
        )
        for i, (x, y, slot, label) in enumerate(zip(xs.tolist(), ys.tolist(), view.slots.tolist(), labels)):
            self.texts.append(Text(x + cell_w // 2, y - 3, str(slot), "offset"))
            self.boxes.append(self.slot_box(view, i, label, x, y, cell_w))
        for x, y, skipped in gaps:
            data = (("skipped", str(skipped)),)
            self.boxes.append(Box(x, y, CELL_W // 2, CELL_H, label="⋯", outline="dashed", kind="gap", data=data))
        self.y = int(ys.max()) + CELL_H + 8
        words = view.search_words()
        if words:
            self.wrapped(words, "note")

    def slot_box(self, view: BufferView, i: int, label: str, x: int, y: int, w: int) -> Box:
        """The ``i``-th drawn slot of ``view``: an element, or poison (hatched), lettered where marked."""
        slot, element = int(view.slots[i]), int(view.elements[i])
        marks = [
            m for m in ("read", "undecided", "written", "wrong", "unwritten") if m in view.marks and view.marks[m][i]
        ]
        data = (("slot", str(slot)), ("element", str(element)))
        kind = "poison" if element < 0 else "element"
        self.used.add(kind)
        if not marks:
            fill = HATCH if element < 0 else ELEMENT_FILL
            return Box(x, y, w, CELL_H, fill, label, kind=f"slot {kind}", data=data)
        fill, letter, _ = MARKS[marks[0]]
        self.used.add(marks[0])
        label, badge = (letter, "") if element < 0 else (label, letter)
        return Box(x, y, w, CELL_H, fill, label, badge, "thick", f"slot {kind} {marks[0]}", data)

    def grid(self, output: OutputMarks) -> None:
        """``output``'s logical grid (a window of it where it is large), its marked cells lettered."""
        shape = output.shape or (1,)
        try:
            desc = TensorDesc("UINT8", shape)
        except LayoutError:
            return  # an empty answer, or more than 8 dimensions: the counts above say it all
        masks = {kind: mask.reshape(shape) for kind, mask in output.masks.items()}
        win = _grid_window(shape, masks)
        self.gap(8)
        self.line(f"{output.name}'s elements, marked where they differ from the packed answer", "caption")
        for note in win.notes(shape, movable=False):
            self.line(note, "note")
        texts: list[Text] = []
        cells, _right, bottom = grid_layout.logical_view(
            desc, win, texts, MARGIN, self.y - 14, 16, CELL_W, WIDTH, letters=False
        )
        self.texts.extend(t for t in texts if t.role != "caption")  # the caption above says what it is
        coords = cells["cell_coords"]
        for x, y, coord in zip(cells["cell_x"].tolist(), cells["cell_y"].tolist(), coords.tolist()):
            where = tuple(coord)
            kind = next((k for k in MARKS if k in masks and masks[k][where]), None)
            data = (("coords", ",".join(map(str, coord))),)
            if kind is None:
                self.used.add("cell")
                self.boxes.append(Box(x, y, CELL_W, CELL_H, kind="cell", data=data))
            else:
                self.used.add(kind)
                fill, letter, _ = MARKS[kind]
                self.boxes.append(
                    Box(x, y, CELL_W, CELL_H, fill, letter, outline="thick", kind=f"cell {kind}", data=data)
                )
        self.y = bottom + 10

    def legend(self) -> None:
        """The marks used, each as a small box and its meaning in words, wrapped to the width."""
        entries = [(ELEMENT_FILL, "A", "element (its row-major index, or letter)")] if "element" in self.used else []
        if "poison" in self.used:
            entries.append((HATCH, "x", "poison: a slot that holds no element"))
        if "cell" in self.used:
            entries.append((BACKGROUND, "", "an element as in the packed answer"))
        entries += [(f, letter, words) for kind, (f, letter, words) in MARKS.items() if kind in self.used]
        if not entries:
            return
        self.gap(6)
        x = MARGIN
        for fill, letter, words in entries:
            width = 24 + text_width(words, 11) + 12
            if x > MARGIN and x + width > WIDTH - MARGIN:
                x, self.y = MARGIN, self.y + 20
            self.boxes.append(Box(x, self.y, 18, 16, fill, letter, kind="legend"))
            self.texts.append(Text(x + 24, self.y + 12, words, "legend"))
            x += width
        self.y += 20

    def drawing(self, title: str) -> BoxDrawing:
        right = max([text_right(t) for t in self.texts] + [b.x + b.w for b in self.boxes])
        return BoxDrawing(right + MARGIN, self.y + MARGIN, title, tuple(self.boxes), tuple(self.texts))


def _column_chars(lengths: list[int], budget: int) -> list[int]:
    """The most characters of each column: the longest cut to one length, as long as fits ``budget``.

    >>> _column_chars([20, 90, 60], 126)
    [20, 53, 53]
    """
    cap = max(lengths)
    while sum(min(n, cap) for n in lengths) > budget:
        cap -= 1
    return [min(n, cap) for n in lengths]


def _clip(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: chars - 1] + "…"


def _element_label(index: int, view: BufferView) -> str:
    if index < 0:
        return "x"
    count = math.prod(view.layout.sizes)
    return element_label(index) if count <= LETTER_LABELS_UP_TO else str(index)


def _grid_window(shape: tuple[int, ...], masks: dict[str, np.ndarray]) -> Window:
    """The window of :data:`DEFAULT_MAX_CELLS` cells of the default drawing, moved to hold the
    first marked element near its middle."""
    fitted = window(shape, DEFAULT_MAX_CELLS)
    marked = np.logical_or.reduce([m for k, m in masks.items() if k in MARKS]) if masks else None
    if marked is None or not marked.any():
        return fitted
    first = np.unravel_index(int(np.argmax(marked)), shape)
    starts = tuple(
        int(c) if count == 1 else min(max(0, int(c) - count // 2), n - count)
        for c, n, count in zip(first, shape, fitted.counts)
    )
    return Window(starts, fitted.counts)
