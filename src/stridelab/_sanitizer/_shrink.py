"""The smallest failing case: a layout that fails on generated inputs, tried again in smaller
shapes, one dimension at a time, until no smaller size of any dimension fails it in the same way.

internal: :mod:`stridelab._sanitizer._run` uses it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._catalogue import ProbeLayout, catalogue
from ._compare import Outcome
from ._report import LayoutFailure, Trial

__all__: list[str] = []

#: The most calls of the function (verdicts, each of a few calls) spent shrinking one failure.
MAX_SHRINK_VERDICTS = 40

Verdict = Callable[[tuple[int, ...], Trial], Outcome]


def why_not_shrunk(arguments: Sequence[Any]) -> str | None:
    """Why the inputs cannot be shrunk, or None: stridelab shrinks only inputs it made itself, of
    one shape (it cannot know how the shapes of other inputs depend on each other)."""
    if any(argument.generated is None for argument in arguments):
        return "only inputs made by stridelab.testing.generated are shrunk"
    if len({argument.values.shape for argument in arguments}) != 1:
        return "the inputs have different shapes"
    return None


def _same_layout(layout: ProbeLayout, shape: tuple[int, ...]) -> ProbeLayout | None:
    """The layout of the same kind and description in ``shape``, if ``shape`` has one."""
    return next((found for found in catalogue(shape, [layout.kind]) if found.words == layout.words), None)


def resized(trial: Trial, shape: tuple[int, ...]) -> Trial | None:
    """``trial`` with every argument in the same layout of ``shape``, or None."""
    if any(layout.kind == "custom" for _, layout in trial.arguments):
        return None
    arguments = tuple((name, _same_layout(layout, shape)) for name, layout in trial.arguments)
    if any(layout is None for _, layout in arguments):
        return None
    return Trial(arguments)  # type: ignore[arg-type]  # None was excluded above


def _smaller(size: int) -> list[int]:
    return sorted({1, 2, 3, size // 2} & set(range(1, size)))


def smallest(
    failure: LayoutFailure, shape: tuple[int, ...], verdict: Verdict
) -> tuple[tuple[int, ...], Trial, Outcome] | None:
    """The smallest shape found whose same layouts still fail with one of ``failure``'s kinds, with
    the trial and its outcome there; None where no smaller shape fails."""
    found: tuple[tuple[int, ...], Trial, Outcome] | None = None
    verdicts = 0
    sizes = list(shape)
    for axis in range(len(sizes)):
        for size in _smaller(sizes[axis]):
            candidate = (*sizes[:axis], size, *sizes[axis + 1 :])
            trial = resized(failure.trial, candidate)
            if trial is None:
                continue
            if verdicts == MAX_SHRINK_VERDICTS:
                return found
            verdicts += 1
            outcome = verdict(candidate, trial)
            if set(outcome.kinds) & set(failure.kinds):
                sizes[axis] = size
                found = (candidate, trial, outcome)
                break
    return found
