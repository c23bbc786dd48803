"""The first failure's evidence: its masks, a window of each varied argument's buffer, and which
poison slots of those windows the function reads, found by group testing.

The search sets a group of an input's poison slots to the other poison, calls the function again
and sees whether the answer changes; a group that changes it is halved until single slots are
left. Only the slots drawn are searched, and at most :data:`MAX_PROBE_CALLS` extra calls are made.

internal: :mod:`stridelab._sanitizer._run` uses it.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator
from typing import Any, Protocol

import numpy as np

from ._buffers import Placed, element_slots, fills, poison_range, restore_range, set_slots
from ._catalogue import ProbeLayout
from ._compare import Normal, Outcome, Result
from ._evidence import BufferView, Evidence, OutputMarks

__all__: list[str] = []

#: The most extra calls of the function one failure's evidence makes.
MAX_PROBE_CALLS = 48
#: Poison slots drawn before the lowest element and after the highest.
EDGE = 8
#: The most slots of one buffer drawn (and searched) whole; a longer buffer is drawn in pieces
#: (its start, its first run of padding, its end: at most 89 slots).
BUFFER_SLOTS = 96
#: The most buffers drawn.
MAX_BUFFERS = 3


class Runner(Protocol):
    """The calls of one trial: :class:`stridelab._sanitizer._run._Run`."""

    trial: Any
    arguments: list[Any]
    has_out: bool

    def place(self, which: int) -> list[Placed]: ...

    def call(self, placed: list[Placed]) -> Result: ...

    def invoke(self, placed: list[Placed]) -> tuple[Any, BaseException | None]: ...


def drawn_slots(elements: np.ndarray, budget: int = BUFFER_SLOTS) -> np.ndarray:
    """The slots of a buffer to draw, given its elements' slots: all of them with :data:`EDGE`
    poison slots on each side where they fit ``budget``; else the start, the first run of
    padding between elements (24 slots of it at most) and the end, each with :data:`EDGE` slots
    around it.

    >>> drawn_slots(np.array([0, 1, 2, 6, 7, 8])).tolist()[:3], drawn_slots(np.array([0, 1])).size
    ([-8, -7, -6], 18)
    """
    lo, hi = int(elements.min()), int(elements.max())
    if hi - lo + 1 + 2 * EDGE <= budget:
        return np.arange(lo - EDGE, hi + EDGE + 1, dtype=np.int64)
    occupied = np.zeros(hi - lo + 1, dtype=bool)
    occupied[elements - lo] = True
    pieces = [np.arange(lo - EDGE, lo + 24), np.arange(hi - EDGE, hi + EDGE + 1)]
    holes = np.flatnonzero(~occupied)
    if holes.size:
        start = lo + int(holes[0])
        run = int(np.argmax(occupied[start - lo :]))  # the hole's length: up to the next element
        pieces.append(np.arange(start - EDGE, start + min(run, 24) + EDGE))
    return np.unique(np.concatenate(pieces))


def first_elements(elements: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """For each of ``slots`` (sorted), the row-major index of the first element there, else -1.

    >>> first_elements(np.array([4, 0, 4, 1]), np.array([-1, 0, 1, 4])).tolist()  # 4 is shared
    [-1, 1, 3, 0]
    """
    lo = int(elements.min())
    drawn = np.zeros(int(elements.max()) - lo + 1, dtype=bool)
    inside = slots[(slots >= lo) & (slots < lo + drawn.size)]
    drawn[inside - lo] = True
    hits = np.flatnonzero(drawn[elements - lo])  # the elements in drawn slots, in row-major order
    where, first = np.unique(elements[hits], return_index=True)  # first occurrences
    found = np.full(slots.size, -1, dtype=np.int64)
    found[np.searchsorted(slots, where)] = hits[first]
    return found


def group_test(items: np.ndarray, changes: Callable[[np.ndarray], bool | None]) -> tuple[list, list, bool | None]:
    """The items that change the answer alone, the items left undecided where ``changes`` ran
    out of calls (it answers None), and whether all of them together change it. A group that
    changes the answer is halved; where its first half does not, the change lies in its second
    half, which is then not tested (single items always are, so that no item is marked without a
    call that singled it out).

    >>> group_test(np.arange(8), lambda group: bool(np.isin([2, 3], group).any()))
    ([2, 3], [], True)
    """
    found: list[int] = []
    undecided: list[int] = []

    def split(group: np.ndarray) -> None:
        if group.size == 1:
            found.append(int(group[0]))
            return
        left, right = group[: group.size // 2], group[group.size // 2 :]
        left_hit = changes(left)
        if left_hit is None:
            undecided.extend(group.tolist())
            return
        if left_hit:
            split(left)
        right_hit = changes(right) if left_hit or right.size == 1 else True
        if right_hit is None:
            undecided.extend(right.tolist())
        elif right_hit:
            split(right)

    whole = changes(items) if items.size else False
    if whole is None:
        undecided.extend(items.tolist())
    elif whole:
        split(items)
    return found, undecided, whole


def gather(run: Runner, outcome: Outcome, normal: Callable[[Any], Normal | None]) -> Evidence:
    """The evidence of ``run``'s trial, which failed with ``outcome``: at most
    :data:`MAX_PROBE_CALLS` more calls (none where nothing is searched and there is no output)."""
    outputs = _outputs(run, outcome)
    placed = run.place(0)
    wanted = "reads-padding" in outcome.kinds
    baseline = run.call(placed) if (run.has_out or wanted) else None
    why = _why_not(outcome, baseline) if wanted else None
    expected = None if why is not None or baseline is None else _normal_or_none(baseline, normal)
    calls = 1 if baseline is not None else 0
    views: list[BufferView] = []
    for index, (name, layout) in enumerate(run.trial.arguments):
        is_out = run.has_out and index == len(run.trial.arguments) - 1
        if (name, layout) not in run.trial.varied() or len(views) == MAX_BUFFERS or not _count(layout):
            continue
        marks = outputs[0] if is_out and outputs else None
        view = _view(name, layout, placed[index], marks, baseline if is_out else None)
        if wanted and not is_out and expected is not None:
            dtype = run.arguments[index].values.dtype
            search = _Search(placed[index], dtype, _Answer(run, placed, normal), expected, MAX_PROBE_CALLS - calls)
            view = _searched(view, placed[index], search)
            calls += view.calls
        elif wanted and not is_out:
            view = dataclasses.replace(view, why=why or "not searched for poison reads: the call returned no array")
        views.append(view)
    return Evidence(tuple(outputs), tuple(views))


def _outputs(run: Runner, outcome: Outcome) -> list[OutputMarks]:
    """The marks of each array of the answer, named as the report names them."""
    count = len(outcome.masks)
    names = ["out"] if run.has_out else ["result"] if count == 1 else [f"result {i}" for i in range(count)]
    return [
        OutputMarks(name, tuple(next(iter(masks.values())).shape), dict(masks))
        for name, masks in zip(names, outcome.masks)
    ]


def _count(layout: ProbeLayout) -> int:
    return int(np.prod(layout.sizes, dtype=np.int64))


def _normal_or_none(result: Result, normal: Callable[[Any], Normal | None]) -> Normal | None:
    try:
        return result.normal(normal)
    except TypeError:  # no array: the verdict says so, and nothing is searched
        return None


def _why_not(outcome: Outcome, baseline: Result | None) -> str | None:
    if "writes-input" in outcome.kinds or (baseline is not None and baseline.changed_input):
        return "not searched for poison reads: the function writes its input, so calls do not repeat"
    if baseline is None or baseline.error is not None:
        return "not searched for poison reads: the call raised"
    return None


def _view(name: str, layout: ProbeLayout, placed: Placed, out: OutputMarks | None, result: Result | None) -> BufferView:
    """The drawn window of ``placed``'s buffer, with an output's marks where it is the output."""
    elements = element_slots(layout, layout.offset)
    base = int(placed.slots[0]) - layout.offset
    slots = drawn_slots(elements)
    first = first_elements(elements, slots)
    poison = int(placed.buffer.shape[0]) - int(np.unique(elements).size)
    marks: dict[str, np.ndarray] = {}
    if out is not None:
        for kind in ("wrong", "unwritten"):
            if kind in out.masks:
                flat = out.masks[kind].reshape(-1)
                marks[kind] = (first >= 0) & flat[np.maximum(first, 0)]
    if result is not None and result.written is not None:
        marks["written"] = (first < 0) & result.written[slots + base]
    bounds = (-base, int(placed.buffer.shape[0]) - 1 - base)
    return BufferView(name, layout, slots, first, marks, poison, bounds)


class _Answer:
    """The answer of one more call with the placed arrays, an output reset to its sentinel first."""

    def __init__(self, run: Runner, placed: list[Placed], normal: Callable[[Any], Normal | None]) -> None:
        self.run, self.placed, self.normal = run, placed, normal

    def __call__(self) -> Any:
        if self.run.has_out:
            out = self.placed[-1]
            out.buffer[...] = fills(self.run.arguments[-1].values.dtype)[1][0]
        value, error = self.run.invoke(self.placed)
        if error is not None:
            return ("raised", f"{type(error).__name__}: {error}")
        try:
            return Result(value, None, False, 0, self.placed[-1] if self.run.has_out else None).normal(self.normal)
        except TypeError as problem:
            return ("no array", str(problem))


class _Search:
    """The search of one input's buffer for the poison slots the answer depends on, in the
    layout's numbering of slots (``base`` is the buffer index of its slot 0)."""

    def __init__(self, placed: Placed, dtype: np.dtype, answer: _Answer, expected: Normal, budget: int) -> None:
        self.placed, self.dtype, self.answer, self.expected = placed, dtype, answer, expected
        self.poisons = fills(dtype)[0]
        self.budget, self.calls = budget, 0

    @contextlib.contextmanager
    def flipped(self, index: np.ndarray) -> Iterator[None]:
        """The search with the poisons swapped on ``index`` (buffer slots): ``index`` holds the
        other poison and the answer expected is the one then (one call), so that a group set back
        to the first poison is what is tested (a NaN-ignoring maximum over several read slots
        changes only so)."""
        saved = self.expected, self.poisons
        set_slots(self.placed.buffer, index, self.poisons[1], self.dtype)
        try:
            if self.calls < self.budget:
                self.calls += 1
                self.expected, self.poisons = self.answer(), self.poisons[::-1]
            yield
        finally:
            set_slots(self.placed.buffer, index, saved[1][0], self.dtype)
            self.expected, self.poisons = saved

    def test(self, change: Callable[[], Any], undo: Callable[[Any], None]) -> bool | None:
        """Whether the answer changes with ``change`` made (None: no calls left)."""
        if self.calls >= self.budget:
            return None
        self.calls += 1
        done = change()
        try:
            return not _same(self.answer(), self.expected)
        finally:
            undo(done)

    def slots(self, group: np.ndarray, base: int) -> bool | None:
        """The test with the poison of ``group`` (layout numbering) changed."""
        buffer, index, (first, other) = self.placed.buffer, group + base, self.poisons
        return self.test(
            lambda: set_slots(buffer, index, other, self.dtype), lambda _: set_slots(buffer, index, first, self.dtype)
        )

    def span(self, start: int, stop: int, keep: np.ndarray) -> bool | None:
        """The test with the poison of the buffer slots ``start:stop`` changed."""
        buffer = self.placed.buffer
        return self.test(
            lambda: poison_range(buffer, start, stop, keep, self.poisons[1]),
            lambda old: restore_range(buffer, start, old),
        )

    def lowest(self) -> int | None:
        """The lowest buffer slot whose poison changes the answer alone, by halving the buffer."""
        keep = ~self.placed.padding_mask()
        lo, hi = 0, int(keep.size)
        if not self.span(lo, hi, keep):
            return None
        inferred = False
        while hi - lo > 1:
            mid = (lo + hi) // 2
            hit = self.span(lo, mid, keep)
            if hit is None:
                return None
            lo, hi, inferred = (lo, mid, False) if hit else (mid, hi, True)
        return lo if (not inferred or self.span(lo, hi, keep)) and not keep[lo] else None


def _searched(view: BufferView, placed: Placed, search: _Search) -> BufferView:
    """``view`` with the poison slots the answer depends on marked ``read``: those drawn, by
    group testing; where none of them is read, the lowest read slot of the whole buffer, found
    by halving it, drawn with the slots around it and those searched too."""
    base = int(placed.slots[0]) - view.layout.offset

    def group_search(slots: np.ndarray) -> tuple[list[int], list[int], bool | None]:
        found, undecided, whole = group_test(slots, lambda group: search.slots(group, base))
        if whole and not found and not undecided:  # together, not alone: try the other way round
            with search.flipped(slots + base):
                found, undecided, _ = group_test(slots, lambda group: search.slots(group, base))
        return found, undecided, whole

    found, undecided, whole = group_search(view.slots[view.elements < 0])
    beyond = whole is False and search.calls < search.budget
    if beyond and (lowest := search.lowest()) is not None:
        slot = lowest - base
        piece = np.arange(max(slot - EDGE, -base), min(slot + 24, int(placed.buffer.shape[0]) - base))
        view = _with_slots(view, piece)
        more = view.slots[(view.elements < 0) & np.isin(view.slots, piece) & (view.slots != slot)]
        found, undecided, _ = group_search(more)
        found.append(slot)
    marks = {**view.marks, "read": np.isin(view.slots, found), "undecided": np.isin(view.slots, undecided)}
    searched = int(np.count_nonzero(view.elements < 0))
    stopped = search.calls >= search.budget
    return dataclasses.replace(view, marks=marks, searched=searched, calls=search.calls, beyond=beyond, stopped=stopped)


def _with_slots(view: BufferView, more: np.ndarray) -> BufferView:
    """``view`` drawing ``more`` slots too."""
    slots = np.union1d(view.slots, more)
    elements = first_elements(element_slots(view.layout, view.layout.offset), slots)
    marks = {name: np.isin(slots, view.slots[mark]) for name, mark in view.marks.items()}
    return dataclasses.replace(view, slots=slots, elements=elements, marks=marks)


def _same(a: Any, b: Any) -> bool:
    """Whether two answers are the same, bit for bit (NaN equals NaN)."""
    if not (isinstance(a, tuple) and isinstance(b, tuple)) or a[0] != b[0] or type(a[1]) is not type(b[1]):
        return False
    if isinstance(a[1], str):
        return a[1] == b[1]
    return len(a[1]) == len(b[1]) and all(
        x.shape == y.shape and x.dtype == y.dtype and np.array_equal(x, y, equal_nan=x.dtype.kind in "fc")
        for x, y in zip(a[1], b[1])
    )
