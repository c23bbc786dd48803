"""What :func:`stridelab.check_layouts` found: a :class:`LayoutCheck`, one row per layout tried.

internal: re-exported by :mod:`stridelab` and :mod:`stridelab.testing`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._catalogue import ProbeLayout
from ._evidence import Evidence

__all__: list[str] = []

#: What can go wrong with one layout, in the order a report lists them.
VERDICTS = (
    "wrong",
    "unwritten",
    "reads-padding",
    "writes-padding",
    "writes-input",
    "different-result",
    "raised",
    "nondeterministic",
)


def elements(count: int) -> str:
    """``1 element``, ``3 elements``."""
    return f"{count} element{'s' * (count != 1)}"


@dataclass(frozen=True)
class Trial:
    """One call's layouts: ``arguments`` pairs each argument's name with its layout."""

    arguments: tuple[tuple[str, ProbeLayout], ...]

    def varied(self) -> tuple[tuple[str, ProbeLayout], ...]:
        """The arguments not in the packed layout (all of them where every one is packed)."""
        varied = tuple((name, layout) for name, layout in self.arguments if layout.kind != "packed")
        return varied or self.arguments[:1]

    def notation(self) -> str:
        return ", ".join(f"{name} {layout}" for name, layout in self.varied())

    def words(self) -> str:
        return ", ".join(f"{name} {layout.words}" for name, layout in self.varied())


@dataclass(frozen=True)
class LayoutFailure:
    """A layout (or several, one per argument) a function got wrong: the ``kinds`` of
    :data:`VERDICTS` seen, the elements each concerns (``counts``), the ``first`` coordinates of
    a wrong or unwritten element, and the ``exception`` raised, if any. The first failure of a
    check keeps its ``evidence`` for the picture: where each array of the answer is wrong or
    unwritten, and which poison slots of the drawn buffers the function reads.

    Examples
    --------
    >>> import numpy as np
    >>> import stridelab as sl
    >>> check = sl.check_layouts(lambda x: x.ravel(order="K").reshape(x.shape), np.arange(6.0).reshape(2, 3))
    >>> failure = check.failures[0]
    >>> failure.kinds, failure.counts, failure.first
    (('wrong',), {'wrong': 4}, {'wrong': (0, 1)})
    """

    trial: Trial
    kinds: tuple[str, ...]
    counts: dict[str, int] = field(default_factory=dict)
    first: dict[str, tuple[int, ...]] = field(default_factory=dict)
    exception: str | None = None
    evidence: Evidence | None = field(default=None, repr=False, compare=False)

    @property
    def layouts(self) -> tuple[tuple[str, ProbeLayout], ...]:
        return self.trial.arguments

    def summary(self) -> str:
        """One line: the layouts and what went wrong."""
        parts = []
        for kind in self.kinds:
            part = kind
            if kind in self.counts:
                part += f" ({elements(self.counts[kind])}"
                part += f", first at {list(self.first[kind])})" if kind in self.first else ")"
            parts.append(part)
        if self.exception:
            parts.append(self.exception)
        return f"{self.trial.notation()}: {'; '.join(parts)}"


@dataclass(frozen=True)
class Row:
    """One layout tried and its verdict in words."""

    trial: Trial
    verdict: str


@dataclass
class LayoutCheck:
    """The answer of :func:`stridelab.check_layouts`: ``ok`` where no layout failed;
    ``failures``, ``skipped`` (layouts not tried, with the reason) and one row per layout tried;
    ``smallest``, the first failure shrunk to the smallest shape that still fails it (for inputs
    stridelab made; else None, and ``not_shrunk`` says why).

    >>> LayoutCheck(name="f").ok  # no layout tried
    False
    """

    name: str
    rows: list[Row] = field(default_factory=list)
    failures: list[LayoutFailure] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    smallest: LayoutFailure | None = None
    not_shrunk: str | None = None

    @property
    def ok(self) -> bool:
        """No layout failed, and at least one was tried."""
        return not self.failures and bool(self.rows)

    def assert_ok(self) -> None:
        """AssertionError naming the first failing layouts and what went wrong there, if any failed,
        or why no layout could be tried."""
        if not self.rows:
            why = f": {self.skipped[0][1]}" if self.skipped else ""
            raise AssertionError(f"{self.name}: no layout could be tried{why}")
        if self.failures:
            shown = "\n".join(f"  {failure.summary()}" for failure in self.failures[:5])
            more = f"\n  ... and {len(self.failures) - 5} more" if len(self.failures) > 5 else ""
            raise AssertionError(
                f"{self.name} gives wrong answers for {len(self.failures)} of {len(self.rows)} layouts:\n{shown}{more}"
            )

    def table(self) -> list[tuple[str, str, str]]:
        """The rows as (layouts in notation, layouts in words, verdict)."""
        return [(row.trial.notation(), row.trial.words(), row.verdict) for row in self.rows]

    def __str__(self) -> str:
        rows = [("layout", "what it is", "verdict"), *self.table()]
        widths = [max(len(row[i]) for row in rows) for i in range(2)]
        lines = [f"check_layouts({self.name}): {self._headline()}"]
        lines += [f"{a.ljust(widths[0])}  {b.ljust(widths[1])}  {c}" for a, b, c in rows]
        lines += self._first_failure()
        lines += [f"skipped {what}: {why}" for what, why in self.skipped]
        if self.smallest is not None:
            lines.append(f"smallest failing case: {self.smallest.summary()}")
        return "\n".join(lines)

    def _first_failure(self) -> list[str]:
        """The first failure's counts (and the poison reads found), where it kept its evidence."""
        evidence = self.failures[0].evidence if self.failures else None
        found = evidence.lines() if evidence is not None else []
        if not found:
            return []
        return [f"first failure, {self.failures[0].trial.notation()}: {found[0]}", *(f"  {line}" for line in found[1:])]

    def __repr__(self) -> str:
        return str(self)

    def _headline(self) -> str:
        skipped = f", {len(self.skipped)} skipped" if self.skipped else ""
        if not self.rows:
            return f"nothing tried{skipped}"
        if self.ok:
            return f"ok, {len(self.rows)} layout{'s' * (len(self.rows) != 1)} tried{skipped}"
        return f"{len(self.failures)} of {len(self.rows)} layout{'s' * (len(self.rows) != 1)} fail{skipped}"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> tuple[dict, dict]:
        """Jupyter's display: the picture (the layouts tried and the first failure's evidence) as
        SVG and PNG, and the text form; no HTML, which JupyterLab would show instead of the SVG
        and, in an untrusted notebook, instead of the PNG."""
        from ..render.boxes import boxes_bundle
        from ._picture import check_drawing

        return boxes_bundle(check_drawing(self), str(self))
