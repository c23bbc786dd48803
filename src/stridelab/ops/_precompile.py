"""Compile the GPU kernels ahead of their first use: for container images, CI and benchmarks.

Each kernel variant is otherwise compiled the first time a call needs it (a fraction of a second
to a few seconds), and CuPy's disk cache keeps it for later processes; a first call in a fresh
container therefore waits for its compile. ``precompile()`` pays that once, up front.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from .._optional import optional_imports
from .._validate import known_keywords, layout_error, shown, wrong_type
from ..dtypes import DATA_TYPES, data_type
from ..errors import LayoutError
from ._engine import OPERATORS
from .cupy.copy_plan import copy_kernels
from .cupy.scan_plan import scan_kernels

__all__ = ["gpu_operators", "kernel_names", "precompile"]

#: The most names read from ``operators`` or ``data_types`` (there are far fewer, repeats allowed).
_MAX_NAMES = 64


def gpu_operators() -> dict[str, tuple[str, ...]]:
    """The operators with GPU kernels, by function name (in alphabetical order), and the data types
    each takes."""
    return {op.function: op.data_types for op in sorted(OPERATORS.values(), key=lambda op: op.function)}


def _chosen(field: str, values: Iterable[str] | None, known: Iterable[str]) -> list[str]:
    known = list(known)
    if values is None:
        return known
    if isinstance(values, str):
        raise TypeError(f"{field} must be a list of names, not the string {shown(values)} (write [{shown(values)}])")
    if not isinstance(values, Iterable):
        raise wrong_type(field, "a list of names", values)
    given = list(itertools.islice(values, _MAX_NAMES + 1))
    if len(given) > _MAX_NAMES:
        raise layout_error(field, values, f"it gives more than {_MAX_NAMES} names; there are {len(known)}")
    chosen: dict[str, None] = {}
    for value in given:
        name = data_type(value).name if field == "data_types" else value
        if name not in known:
            raise LayoutError(f"{field} holds {shown(value)}, which is none of {', '.join(known)}")
        chosen[name] = None
    return list(chosen)


def kernel_names(operators: Iterable[str] | None = None, data_types: Iterable[str] | None = None) -> list[str]:
    """The kernel variants ``precompile`` compiles for these operators and data types (default:
    all), in the planner's order, without repeats.

    >>> len(kernel_names(["slice1"], ["UINT8"]))  # the copy kernels for one-byte elements
    8
    """
    table = gpu_operators()
    names: dict[str, None] = {}
    chosen_types = _chosen("data_types", data_types, DATA_TYPES)
    chosen_operators = _chosen("operators", operators, table)
    for name in chosen_types:
        if data_types is not None and not any(name in table[op] for op in chosen_operators):
            raise LayoutError(f"data_types holds {name}, which none of {', '.join(chosen_operators)} takes")
    scans = {op.function: op.scan for op in OPERATORS.values() if op.scan is not None}
    for operator in chosen_operators:
        for name in (t for t in chosen_types if t in table[operator]):
            if operator in scans:
                names.update(dict.fromkeys(scan_kernels(name, scans[operator].cuda)))
            else:
                names.update(dict.fromkeys(copy_kernels((data_type(name).element_size,))))
    return list(names)


@known_keywords
def precompile(operators: Iterable[str] | None = None, data_types: Iterable[str] | None = None) -> int:
    """Compile, on the current CUDA device, every kernel variant the given operators can use for
    the given data types (default: all of them); returns how many this process compiled.

    Needs CuPy and a GPU. Run it where compile time should not land on a first call: in a
    container image's build (CuPy's disk cache then ships with the image), before a benchmark, or
    at the start of a notebook on a GPU machine::

        import stridelab.ops
        stridelab.ops.precompile(["cumulative_summation"], ["FLOAT32", "FLOAT16"])

    Examples
    --------
    Names are checked before CuPy is imported:

    >>> import stridelab.ops
    >>> stridelab.ops.precompile(["cumsum"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    stridelab.errors.LayoutError: operators holds 'cumsum', which is none of cumulative_product, ...
    """
    names = kernel_names(operators, data_types)
    with optional_imports("gpu", "stridelab.ops.precompile"):
        import cupy  # noqa: F401  (the kernels are CuPy RawKernels)
    from .cupy import runtime

    return runtime.precompile_kernels(names)
