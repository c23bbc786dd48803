"""``sl.check_layouts``: call a function with its inputs (and output) in every layout of the
catalogue, over poisoned buffers, and compare each answer with the answer for packed inputs.

internal: re-exported by :mod:`stridelab` and :mod:`stridelab.testing`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._arrays import is_torch, unbuildable
from .._validate import refuse_masked, shown
from ..backend import is_cupy_array
from ..errors import LayoutError
from ._buffers import Placed, fills, host_copy, host_values, packed_copy, place, snapshot, to_host
from ._catalogue import ProbeLayout, catalogue, packed_strides
from ._compare import Outcome, Result, Tolerance, judge
from ._evidence import Evidence
from ._generated import Generated
from ._isolate import IsolatedChecker, check_importable
from ._options import check_given, check_layouts_option, check_options
from ._probe import gather
from ._report import LayoutCheck, LayoutFailure, Row, Trial
from ._shrink import smallest, why_not_shrunk

__all__: list[str] = []


@dataclass(frozen=True)
class Argument:
    """An argument of the function: its ``name``, host ``values``, the object whose kind of array
    is built (``like``) and the layouts tried for it."""

    name: str
    values: np.ndarray
    like: Any
    layouts: tuple[ProbeLayout, ...]
    generated: Generated | None = None

    @property
    def packed(self) -> ProbeLayout:
        return ProbeLayout(self.values.shape, packed_strides(self.values.shape), 0, "packed", "packed (row-major)")

    def values_for(self, layout: ProbeLayout) -> np.ndarray:
        """The logical values ``layout`` holds: a broadcast dimension repeats its index 0."""
        values = self.values
        for axis in layout.broadcast_axes:
            values = np.broadcast_to(np.take(values, [0], axis=axis), values.shape)
        return values.copy(order="C")  # np.ascontiguousarray would make a 0-d array 1-d


def _layouts(shape: tuple[int, ...], layouts: Sequence[Any] | None, output: bool) -> tuple[ProbeLayout, ...]:
    if layouts is None:
        found = catalogue(shape)
    else:
        kinds = [k for k in layouts if isinstance(k, str)]
        given = [k for k in layouts if isinstance(k, ProbeLayout) and k.sizes == shape]
        for layout in given:
            check_given(layout)
        found = catalogue(shape, kinds) + given
    return tuple(layout for layout in found if not (output and layout.broadcast_axes))


def _argument(name: str, obj: Any, layouts: Sequence[Any] | None, output: bool) -> Argument:
    if isinstance(obj, Generated):
        return Argument(name, obj.values(), obj.array(), _layouts(obj.shape, layouts, output), obj)
    refuse_masked(name, obj)
    values = host_copy(name, obj)
    return Argument(name, values, obj, _layouts(values.shape, layouts, output))


def _trials(arguments: list[Argument], max_layouts: int, seed: int) -> tuple[list[Trial], list[tuple[str, str]]]:
    """Each argument varied alone (the output last), then every argument in the same layout (a fast
    path taken when all strides agree), then seeded joint draws: ``max_layouts`` at most."""
    packed = tuple((a.name, a.packed) for a in arguments)
    wanted: list[Trial] = []
    for i, argument in enumerate(arguments):
        for layout in argument.layouts:
            trial = Trial((*packed[:i], (argument.name, layout), *packed[i + 1 :]))
            if trial not in wanted:
                wanted.append(trial)
    wanted += [trial for trial in _together(arguments) if trial not in wanted]
    skipped = [(t.notation(), f"max_layouts = {max_layouts} reached") for t in wanted[max_layouts:]]
    trials = wanted[:max_layouts]
    rng = np.random.default_rng(seed)
    for _ in range(4 * max(0, max_layouts - len(trials))):  # a few tries per call left, as draws repeat
        if len(trials) >= max_layouts or len(arguments) < 2:
            break
        draw = Trial(tuple((a.name, a.layouts[rng.integers(len(a.layouts))]) for a in arguments if a.layouts))
        if len(draw.arguments) == len(arguments) and draw not in trials:
            trials.append(draw)
    return trials, skipped


def _together(arguments: list[Argument]) -> list[Trial]:
    """Every argument in the layout of one kind and description, where each has it."""
    if len(arguments) < 2:
        return []
    found = []
    for layout in arguments[0].layouts:
        key = (layout.kind, layout.words)
        same = [next((x for x in a.layouts if (x.kind, x.words) == key), None) for a in arguments]
        if layout.kind != "packed" and all(same):
            found.append(Trial(tuple((a.name, x) for a, x in zip(arguments, same))))  # type: ignore[misc]
    return found


def _call(fn: Callable[..., Any], args: list[Any], out: Any) -> tuple[Any, BaseException | None]:
    arrays = args if out is None else [*args, out]
    try:
        with np.errstate(all="ignore"):  # poison read as a number (infinity times 0) is no warning of the caller's
            value = fn(*arrays)
        _wait_for_device(arrays)
        return value, None
    except Exception as error:  # whatever the function raises is part of the verdict
        return None, error


def _wait_for_device(arrays: list[Any]) -> None:
    """Wait for the GPU work the call queued, so that a kernel's fault is the call's error rather
    than that of the next copy stridelab makes."""
    if any(is_cupy_array(array) for array in arrays):
        import cupy

        cupy.cuda.Device().synchronize()
    if any(is_torch(array) and array.device.type == "cuda" for array in arrays):
        sys.modules["torch"].cuda.synchronize()


@dataclass
class _Run:
    """One call of the function in one trial, with one poison and one sentinel."""

    fn: Callable[..., Any]
    trial: Trial
    arguments: list[Argument]
    has_out: bool

    def go(self, which: int) -> Result:
        return self.call(self.place(which))

    def place(self, which: int) -> list[Placed]:
        """Every argument in its layout, over buffers of poison (or sentinel) ``which``."""
        placed: list[Placed] = []
        for argument, (_, layout) in zip(self.arguments, self.trial.arguments):
            poison, sentinel = (fill[which] for fill in fills(argument.values.dtype))
            if self.has_out and argument is self.arguments[-1]:
                values = np.full(argument.values.shape, sentinel, argument.values.dtype)
                placed.append(place(layout, values, argument.like, sentinel))
            else:
                placed.append(place(layout, argument.values_for(layout), argument.like, poison))
        return placed

    def invoke(self, placed: list[Placed]) -> tuple[Any, BaseException | None]:
        inputs = placed[:-1] if self.has_out else placed
        return _call(self.fn, [p.array for p in inputs], placed[-1].array if self.has_out else None)

    def call(self, placed: list[Placed]) -> Result:
        before = [snapshot(p.buffer) for p in placed]
        value, error = self.invoke(placed)
        try:
            after = [snapshot(p.buffer) for p in placed]
        except Exception:  # a GPU fault of the call makes every later copy fail: the call's error is the news
            if error is None:
                raise
            return Result(None, error, False, 0, None)
        inputs = len(placed) - 1 if self.has_out else len(placed)
        changed_input = any(not np.array_equal(b, a) for b, a in zip(before[:inputs], after))
        if self.has_out:
            out = placed[-1]
            moved = np.any(before[-1] != after[-1], axis=1) & out.padding_mask()
            return Result(value, error, changed_input, int(moved.sum()), out, moved)
        return Result(value, error, changed_input, 0, None)

    def evidence(self, outcome: Outcome) -> Evidence:
        """What the picture of this trial's failure shows (a few more calls of the function)."""
        return gather(self, outcome, _normal)


class _Checker:
    """The state of one check: the arguments, the references by broadcast pattern, the verdicts."""

    def __init__(self, fn: Callable[..., Any], arguments: list[Argument], has_out: bool, tolerance: Tolerance):
        self.fn, self.arguments, self.has_out, self.tolerance = fn, arguments, has_out, tolerance
        self.references: dict[tuple, Any] = {}

    def reference(self, trial: Trial) -> tuple[Any, str | None]:
        """The packed answer for ``trial``'s logical values, run twice; or why there is none."""
        key = tuple(layout.broadcast_axes for _, layout in trial.arguments)
        if key not in self.references:
            runs = [self._packed_run(trial, which) for which in (0, 1)]
            self.references[key] = runs
        runs = self.references[key]
        if runs[0][1] is not None:
            return None, f"the packed call raised {type(runs[0][1]).__name__}: {runs[0][1]}"
        if not _same(runs[0][0], runs[1][0]):
            return None, "nondeterministic"
        return runs[0][0], None

    def _packed_run(self, trial: Trial, which: int) -> tuple[Any, BaseException | None]:
        args = []
        for argument, (_, layout) in zip(self.arguments, trial.arguments):
            values = argument.values_for(layout)
            if self.has_out and argument is self.arguments[-1]:
                values = np.full(values.shape, fills(values.dtype)[1][which], values.dtype)
            args.append(packed_copy(values, argument.like))
        value, error = _call(self.fn, args[:-1] if self.has_out else args, args[-1] if self.has_out else None)
        if error is None and self.has_out:
            value = to_host(args[-1])
        return (None if error else _normal(value)), error

    def evidence(self, trial: Trial, outcome: Outcome) -> Evidence:
        """What the picture of ``trial``'s failure shows (a few more calls of the function)."""
        return _Run(self.fn, trial, self.arguments, self.has_out).evidence(outcome)

    def verdict(self, trial: Trial, strict: bool) -> Outcome:
        reference, problem = self.reference(trial)
        if problem == "nondeterministic":
            return Outcome(("nondeterministic",), {}, {}, "two packed calls gave different answers")
        if problem is not None:
            return Outcome((), {}, {}, problem, skipped=True)
        run = _Run(self.fn, trial, self.arguments, self.has_out)
        first = run.go(0)
        second = first if first.error is not None else run.go(1)  # an error decides the verdict alone
        return judge(reference, first, second, self.tolerance, strict, _normal)


def _normal(value: Any) -> tuple[str, list[np.ndarray]] | None:
    """A result as its kind and host arrays: None, an array or scalar, a tuple or list of them."""
    if value is None:
        return ("None", [])
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, [host_values(v) for v in value])
    return ("array", [host_values(value)])


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None or a[0] != b[0] or len(a[1]) != len(b[1]):
        return a == b if a is None or b is None else False
    return all(x.shape == y.shape and np.array_equal(x, y, equal_nan=x.dtype.kind in "fc") for x, y in zip(a[1], b[1]))


def check_layouts(
    fn: Callable[..., Any],
    *inputs: Any,
    out: Any = None,
    layouts: Sequence[Any] | None = None,
    rtol: float | None = None,
    atol: float | None = None,
    max_layouts: int = 64,
    seed: int = 0,
    strict: bool = False,
    isolate: bool = False,
) -> LayoutCheck:
    """Call ``fn`` with ``inputs`` (and ``out``) in every layout of the catalogue and say where
    its answer differs from the answer for packed inputs (see :mod:`stridelab.testing`).

    ``inputs``/``out``: arrays (NumPy, CuPy, torch), or inputs that stridelab makes
    (:func:`~stridelab.testing.generated`), small whole numbers, shrunk to the smallest failing
    shape; ``layouts``: layouts or kind names to try instead of the whole catalogue;
    ``rtol``/``atol``: the float tolerance (default: exact for integers, ``8 * eps * N * max|x|``
    for floats, which is tiny for generated inputs, of magnitude 3 at most); ``max_layouts``: the
    most layouts tried; ``strict``: a ValueError or TypeError fails too; ``isolate``: call ``fn``
    in a worker process, so that a crash or a GPU fault fails one layout, not the check (``fn``
    must be importable by name).

    >>> import numpy as np
    >>> check_layouts(lambda x: x.sum(axis=0), np.arange(6).reshape(2, 3)).ok
    True
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, not {shown(fn)}")
    check_options(max_layouts, seed, rtol, atol, strict, isolate)
    check_layouts_option(layouts)
    if isolate:
        check_importable(fn)
    arguments = [_argument(f"input {i}", x, layouts, False) for i, x in enumerate(inputs)]
    if out is not None:
        arguments.append(_argument("out", out, layouts, True))
    if not arguments:
        raise TypeError("check_layouts needs at least one input array")
    shapes = {a.values.shape for a in arguments}
    unmatched = next((k for k in layouts or () if isinstance(k, ProbeLayout) and k.sizes not in shapes), None)
    if unmatched is not None:
        raise LayoutError(f"layouts has {unmatched}, whose sizes are no argument's: {sorted(shapes)}")
    values = [a.values for a in arguments[: len(inputs)]]
    checks = _Checks(fn, out is not None, Tolerance.for_inputs(values, rtol, atol), strict, isolate)
    report = LayoutCheck(getattr(fn, "__qualname__", None) or repr(fn))
    with checks.checker(arguments) as checker:
        _run_trials(report, checker, checks.strict, arguments, max_layouts, seed)
    if report.failures:
        _shrink(report, checks, arguments)
    return report


@dataclass(frozen=True)
class _Checks:
    """What every check of one ``check_layouts`` call shares; its checkers (one per shape: a
    shrunk case has arguments of its own) run in a worker process where ``isolate``."""

    fn: Callable[..., Any]
    has_out: bool
    tolerance: Tolerance
    strict: bool
    isolate: bool

    @contextmanager
    def checker(self, arguments: list[Argument]) -> Iterator[Any]:
        checker = _Checker(self.fn, arguments, self.has_out, self.tolerance)
        if not self.isolate:
            yield checker
            return
        isolated = IsolatedChecker(checker)
        try:
            yield isolated
        finally:
            isolated.close()


def _run_trials(
    report: LayoutCheck, checker: Any, strict: bool, arguments: list[Argument], max_layouts: int, seed: int
) -> None:
    trials, report.skipped = _trials(arguments, max_layouts, seed)
    for trial in trials:
        reasons = (unbuildable(a.like, layout.strides) for a, (_, layout) in zip(arguments, trial.arguments))
        why = next((reason for reason in reasons if reason is not None), None)
        if why is not None:
            report.skipped.append((trial.notation(), why))
            continue
        outcome = checker.verdict(trial, strict)
        if outcome.skipped:
            report.skipped.append((trial.notation(), outcome.detail or ""))
            continue
        report.rows.append(Row(trial, outcome.words()))
        if outcome.kinds:
            evidence = None if report.failures else checker.evidence(trial, outcome)
            report.failures.append(_failure(trial, outcome, evidence))


def _failure(trial: Trial, outcome: Outcome, evidence: Evidence | None = None) -> LayoutFailure:
    return LayoutFailure(trial, outcome.kinds, outcome.counts, outcome.first, outcome.detail, evidence=evidence)


def _shrink(report: LayoutCheck, checks: _Checks, arguments: list[Argument]) -> None:
    """The smallest failing case of the first failure, where stridelab made the inputs."""
    report.not_shrunk = why_not_shrunk(arguments)
    if report.not_shrunk is not None:
        return
    first = report.failures[0]

    def verdict(shape: tuple[int, ...], trial: Trial) -> Outcome:
        resized = [_argument(a.name, a.generated.resized(shape), None, False) for a in arguments]  # type: ignore[union-attr]
        with checks.checker(resized) as checker:
            return checker.verdict(trial, checks.strict)

    found = smallest(first, arguments[0].values.shape, verdict)
    report.smallest = first if found is None else _failure(found[1], found[2])
