"""The verdict on one layout: two poisoned runs compared with each other and with the packed answer.

internal: :mod:`stridelab._sanitizer._run` uses it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._buffers import Placed, fills, to_host
from ._report import VERDICTS, elements

__all__: list[str] = []

Normal = tuple[str, list[np.ndarray]]


@dataclass(frozen=True)
class Tolerance:
    """How close a float answer must be to the packed one: exact, or within ``atol + rtol * |ref|``;
    ``reordering`` where the bound is stridelab's own (``8 * eps * N * max|x|``)."""

    rtol: float = 0.0
    atol: float = 0.0
    reordering: bool = False

    @classmethod
    def for_inputs(cls, values: Sequence[np.ndarray], rtol: float | None, atol: float | None) -> Tolerance:
        """The tolerance for the float ``values`` the user gave (exact where there are none)."""
        if rtol is not None or atol is not None:
            return cls(float(rtol or 0.0), float(atol or 0.0))
        floats = [v for v in values if v.dtype.kind in "fc" and v.size]
        if not floats:
            return cls()
        eps = max(float(np.finfo(v.dtype).eps) for v in floats)
        count = max(v.size for v in values)
        largest = max(float(np.max(np.abs(v[np.isfinite(v)]), initial=0.0)) for v in floats)
        return cls(0.0, 8 * eps * count * largest, True)

    def close(self, got: np.ndarray, expected: np.ndarray) -> np.ndarray:
        """Where ``got`` is as close to ``expected`` as allowed (integers exactly)."""
        if got.dtype.kind not in "fc":
            return np.asarray(got == expected)
        same = (got == expected) | (np.isnan(got) & np.isnan(expected))
        if not (self.atol or self.rtol):
            return np.asarray(same)
        with np.errstate(invalid="ignore", over="ignore"):
            return np.asarray(same | (np.abs(got - expected) <= self.atol + self.rtol * np.abs(expected)))


@dataclass
class Result:
    """What one call did: its return ``value`` or ``error``, whether an input buffer changed,
    how many output slots outside the elements changed, and the output placed (if any) with
    ``written``, where each of its buffer's slots outside the elements changed."""

    value: Any
    error: BaseException | None
    changed_input: bool
    padding_writes: int
    out: Placed | None
    written: np.ndarray | None = None

    def normal(self, normal: Callable[[Any], Normal | None]) -> Normal | None:
        if self.out is None:
            return normal(self.value)
        return ("array", [to_host(self.out.buffer)[self.out.slots].reshape(self.out.array.shape)])


@dataclass
class Outcome:
    """The verdict: the ``kinds`` of :data:`VERDICTS` seen, with element counts and first
    coordinates; ``masks``, one per result array, where each element is wrong, unwritten or
    changed with the poison (``reads-padding``), for the kinds compared element by element."""

    kinds: tuple[str, ...]
    counts: dict[str, int] = field(default_factory=dict)
    first: dict[str, tuple[int, ...]] = field(default_factory=dict)
    detail: str | None = None
    skipped: bool = False
    masks: tuple[dict[str, np.ndarray], ...] = field(default=(), repr=False, compare=False)

    def words(self) -> str:
        if not self.kinds and self.detail and self.detail.startswith("refused"):
            return self.detail
        if not self.kinds:
            return "ok" + (f" ({self.detail})" if self.detail else "")
        parts = [f"{k} ({elements(self.counts[k])})" if k in self.counts else k for k in self.kinds]
        return ", ".join(parts) + (f": {self.detail}" if self.detail else "")


def _mark(found: dict[str, np.ndarray], kind: str, mask: np.ndarray) -> None:
    if mask.any() and kind not in found:
        found[kind] = mask


def _sentinel(array: np.ndarray, which: int) -> np.ndarray:
    value = fills(array.dtype)[1][which]
    if isinstance(value, float) and np.isnan(value):
        return np.isnan(array)
    return np.asarray(array == value)


def _compare(reference: Normal, a: Normal, b: Normal, tolerance: Tolerance, out: bool) -> Outcome:
    found: dict[str, np.ndarray] = {}
    masks: list[dict[str, np.ndarray]] = []
    inexact = False
    for expected, got, again in zip(reference[1], a[1], b[1]):
        unwritten = _sentinel(got, 0) & _sentinel(again, 1) if out else np.zeros(got.shape, bool)
        _mark(found, "unwritten", unwritten)
        exact = Tolerance()
        moved = ~unwritten & ~exact.close(got, again)
        _mark(found, "reads-padding", moved)
        # an element that changed with the poison is reads-padding, not also wrong
        judged = ~unwritten & ~moved
        wrong = judged & ~tolerance.close(got, expected)
        masks.append({"unwritten": unwritten, "reads-padding": moved, "wrong": wrong})
        _mark(found, "wrong", wrong)
        inexact |= bool((judged & ~wrong & ~exact.close(got, expected)).any())  # accepted by the bound alone
    kinds = tuple(k for k in VERDICTS if k in found)
    counts = {k: int(found[k].sum()) for k in kinds}
    first = {k: tuple(int(i) for i in np.unravel_index(int(np.argmax(found[k])), found[k].shape)) for k in kinds}
    detail = (
        f"compared within the float reordering bound, atol = {tolerance.atol:.3g}"
        if inexact and tolerance.reordering
        else None
    )
    return Outcome(kinds, counts, first, detail, masks=tuple(masks))


def _structure(reference: Normal, got: Normal | None) -> str | None:
    """Why ``got`` is not the same kind of result as ``reference``, or None."""
    if got is None or got[0] != reference[0] or len(got[1]) != len(reference[1]):
        kind = "nothing" if got is None else f"{got[0]} of {len(got[1])}"
        return f"returned {kind} where packed returned {reference[0]} of {len(reference[1])}"
    for i, (x, y) in enumerate(zip(got[1], reference[1])):
        if x.shape != y.shape or x.dtype != y.dtype:
            return f"result {i} is {x.dtype}{list(x.shape)} where packed gave {y.dtype}{list(y.shape)}"
    return None


def judge(
    reference: Normal,
    first: Result,
    second: Result,
    tolerance: Tolerance,
    strict: bool,
    normal: Callable[[Any], Normal | None],
) -> Outcome:
    """The verdict on a layout from its two runs (different poisons and sentinels)."""
    side = [k for k, hit in (("writes-input", first.changed_input or second.changed_input),) if hit]
    counts = {"writes-padding": max(first.padding_writes, second.padding_writes)}
    if counts["writes-padding"]:
        side.append("writes-padding")
    error = first.error or second.error
    if error is not None:
        text = f"{type(error).__name__}: {error}"
        if isinstance(error, (ValueError, TypeError)) and not strict and not side:
            return Outcome((), detail=f"refused, {text}")
        return _with(Outcome(("raised",), detail=text), side, counts)
    try:
        got, again = first.normal(normal), second.normal(normal)
    except TypeError as problem:
        return _with(Outcome(("different-result",), detail=str(problem)), side, counts)
    why = _structure(reference, got) or _structure(reference, again)
    if why is not None or got is None or again is None:
        return _with(Outcome(("different-result",), detail=why), side, counts)
    return _with(_compare(reference, got, again, tolerance, first.out is not None), side, counts)


def _with(outcome: Outcome, side: list[str], counts: dict[str, int]) -> Outcome:
    kinds = set(outcome.kinds) | set(side)
    outcome.kinds = tuple(k for k in VERDICTS if k in kinds)
    if "writes-padding" in side:
        outcome.counts["writes-padding"] = counts["writes-padding"]
    return outcome
