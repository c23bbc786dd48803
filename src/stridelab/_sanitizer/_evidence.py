"""What the picture of a check's first failure shows, captured while the function can still be
called: where each array of the answer is wrong or unwritten, and a window of each varied
argument's buffer with the poison slots the function was found to read.

internal: :mod:`stridelab._sanitizer._probe` gathers it, :class:`~._report.LayoutFailure` keeps it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._catalogue import ProbeLayout

__all__: list[str] = []

#: The kinds an answer's elements are marked with, in the order a report lists them.
ELEMENT_KINDS = ("wrong", "unwritten", "reads-padding")
_WORDS = {"wrong": "wrong", "unwritten": "unwritten", "reads-padding": "change{s} with the poison"}


@dataclass(frozen=True, eq=False)
class OutputMarks:
    """One array of the answer (``name``: ``result``, ``result 1``, ``out``) of ``shape``, with a
    boolean mask of its shape for each kind of :data:`ELEMENT_KINDS` compared."""

    name: str
    shape: tuple[int, ...]
    masks: dict[str, np.ndarray]

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def counts(self) -> list[tuple[str, int]]:
        """The marked kinds and how many elements each marks, in :data:`ELEMENT_KINDS` order."""
        found = [(kind, int(np.count_nonzero(self.masks[kind]))) for kind in ELEMENT_KINDS if kind in self.masks]
        return [(kind, count) for kind, count in found if count]

    def words(self) -> str:
        """``result: 12 of 24 elements wrong`` (every marked kind), or where none is marked."""
        counts = self.counts()
        if not counts:
            return f"{self.name}: every element as packed"
        parts = [
            f"{count} of {self.size} element{'s' * (self.size != 1)} {_WORDS[kind].format(s='s' * (count == 1))}"
            for kind, count in counts
        ]
        return f"{self.name}: " + ", ".join(parts)


@dataclass(frozen=True, eq=False)
class BufferView:
    """A window of the buffer of argument ``name`` in ``layout``: the drawn ``slots``, numbered as
    the layout numbers them (its lowest element at slot 0 or ``layout.offset``, the poisoned
    margins before it negative), each one's first element (row-major index, -1 for poison),
    and ``marks``, one boolean per drawn slot for each of ``read`` (poison the answer depends on),
    ``undecided`` (searched, not narrowed down before the calls ran out), ``written`` (an
    output's padding written), ``unwritten`` and ``wrong`` (an output's elements).

    ``poison`` counts the poison slots of the whole buffer, whose first and last slots are
    ``bounds``; ``searched`` those searched for
    reads one by one (the drawn ones), with ``calls`` more calls of the function; ``beyond``
    where none of the slots first drawn was read and the whole buffer was searched for its lowest
    read slot (then drawn, with the slots around it); ``stopped`` where the calls ran out before
    the search ended; ``why`` says why no search ran where one
    was wanted."""

    name: str
    layout: ProbeLayout
    slots: np.ndarray
    elements: np.ndarray
    marks: dict[str, np.ndarray]
    poison: int
    bounds: tuple[int, int]
    searched: int = 0
    calls: int = 0
    beyond: bool = False
    stopped: bool = False
    why: str | None = None

    def slots_marked(self, mark: str) -> list[int]:
        """The drawn slots carrying ``mark``, in the layout's numbering."""
        return self.slots[self.marks[mark]].tolist() if mark in self.marks else []

    def search_words(self) -> str | None:
        """What the search for poison reads found, in words; None where none was asked for."""
        if self.why is not None:
            return f"{self.name}: {self.why}"
        if not self.calls:
            return None
        read, undecided = self.slots_marked("read"), self.slots_marked("undecided")
        scope = f"searched: the {self.searched} poison slots drawn"
        if self.beyond:
            scope += ", the whole buffer for its lowest read slot"
        scope += f"; {self.poison} in its buffer; {self.calls} call{'s' * (self.calls != 1)}"
        if self.stopped:
            scope += ", where the search stopped" + (f" with {len(undecided)} slots undecided (?)" if undecided else "")
        if read:
            slots = f"{'at least ' * self.stopped}slots {_slot_list(read)} of its layout"
            return f"{self.name} reads poison from {slots} ({scope})"
        return f"{self.name}: no single poison slot found that changes the answer ({scope})"


def _slot_list(slots: list[int], most: int = 12) -> str:
    shown = ", ".join(map(str, slots[:most]))
    return shown + (f" and {len(slots) - most} more" if len(slots) > most else "")


@dataclass(frozen=True, eq=False)
class Evidence:
    """The first failure's ``outputs`` (one per array of the answer compared element by element)
    and ``buffers`` (a window of each varied argument's buffer)."""

    outputs: tuple[OutputMarks, ...] = ()
    buffers: tuple[BufferView, ...] = ()

    def lines(self) -> list[str]:
        """The counts of each output, then what each search for poison reads found."""
        found = [output.words() for output in self.outputs if output.counts()]
        return found + [words for view in self.buffers if (words := view.search_words())]
