"""SLICE1 (``DML_SLICE1_OPERATOR_DESC``): copy a strided window of the input, forwards or backwards.

Following the page's pseudo-code literally::

    CopyStart = InputWindowOffsets
    for dimension i: if InputWindowStrides[i] < 0: CopyStart[i] += InputWindowSizes[i] - 1
    OutputTensor[OutputCoordinates] = InputTensor[CopyStart + InputWindowStrides * OutputCoordinates]

so a negative window stride starts at the *end of the window*, not at the last element the stride
reaches. The plan is one ``copy`` from a view of the input whose offset is ``dot(CopyStart, input
strides)`` and whose strides are ``window_strides[i] * input strides[i]``.

internal: ``slice1`` is public as ``stridelab.slice1`` (and in :mod:`stridelab.ops`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, SupportsIndex, overload

import numpy as np
import numpy.typing as npt

from .._validate import MAX_ITEMS, layout_error, shown
from ..desc import TensorDesc
from ..errors import LayoutError
from ..tensor import StridedTensor
from ._engine import UNCACHED, Operator, Views, call, register
from ._operands import Names, Operand, check_output, int_parameter
from ._types import Input, Scalar

__all__: list[str] = []

OPERATOR_NAME = "SLICE1"
INT_MIN, INT_MAX = -(2**31), 2**31 - 1

#: The data types of the operator's DirectML tensor support table (feature level 3.0 and above).
SUPPORTED_DATA_TYPES = ("FLOAT32", "FLOAT16", "INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8")


@overload
def slice1(
    x: StridedTensor,
    window_offsets: Sequence[SupportsIndex],
    window_sizes: Sequence[SupportsIndex],
    window_strides: Sequence[SupportsIndex],
    *,
    output_sizes: Sequence[SupportsIndex] | None = ...,
    out: None = ...,
) -> StridedTensor: ...
@overload
def slice1(
    x: npt.NDArray[Scalar],
    window_offsets: Sequence[SupportsIndex],
    window_sizes: Sequence[SupportsIndex],
    window_strides: Sequence[SupportsIndex],
    *,
    output_sizes: Sequence[SupportsIndex] | None = ...,
    out: None = ...,
) -> npt.NDArray[Scalar]: ...
@overload
def slice1(
    x: Input,
    window_offsets: Sequence[SupportsIndex],
    window_sizes: Sequence[SupportsIndex],
    window_strides: Sequence[SupportsIndex],
    *,
    output_sizes: Sequence[SupportsIndex] | None = ...,
    out: StridedTensor,
) -> StridedTensor: ...
def slice1(
    x: Any,
    window_offsets: Sequence[SupportsIndex],
    window_sizes: Sequence[SupportsIndex],
    window_strides: Sequence[SupportsIndex],
    *,
    output_sizes: Sequence[SupportsIndex] | None = None,
    out: StridedTensor | None = None,
) -> Any:
    """Copy the window of ``x`` that DirectML's SLICE1 describes.

    Parameters
    ----------
    x : StridedTensor or numpy.ndarray or cupy.ndarray
        The input, read through its own strides. Data types FLOAT32, FLOAT16, INT32, INT16, INT8,
        UINT32, UINT16, UINT8; 1 to 8 dimensions.
    window_offsets, window_sizes : sequence of int
        Where the window begins and how far it extends in each dimension: ``window_sizes[i] >= 1``
        and ``window_offsets[i] + window_sizes[i] <= sizes[i]``.
    window_strides : sequence of int
        Signed, non-zero steps through the window; a negative one copies from the window's end
        (``offset + size - 1``) backwards.
    output_sizes : sequence of int, optional
        How many elements to copy in each dimension, ``1 <= output_sizes[i] <= MaxCopiedElements[i]``
        where ``MaxCopiedElements[i] = 1 + (window_sizes[i] - 1) // |window_strides[i]|``. Default:
        ``out``'s sizes where ``out`` is given, else the largest valid output.
    out : StridedTensor, optional
        Where to write, with any non-sharing layout: padding slots are left untouched. It may share a
        buffer with ``x`` as long as none of its elements is one of x's (e.g. interleaved).

    Returns
    -------
    StridedTensor or numpy.ndarray or cupy.ndarray
        ``out`` where given; else a new packed (row-major) array for an array input, or a
        StridedTensor over a new packed buffer for a StridedTensor input.

    Raises :class:`~stridelab.LayoutError` (or TypeError for wrong types) before anything is
    allocated or written.

    Examples
    --------
    Example 2 of the page: the window's rows are copied from its end (row 3) backwards.

    >>> import numpy as np
    >>> x = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> slice1(x, (0, 0, 0, 1), (1, 1, 4, 3), (1, 1, -2, 2)).tolist()
    [[[[14.0, 16.0], [6.0, 8.0]]]]
    """
    return call(OPERATOR, x, out, window_offsets, window_sizes, window_strides, output_sizes)


def _key(args: tuple) -> Any:
    frozen = tuple(_frozen(v) for v in args)
    return UNCACHED if UNCACHED in frozen else frozen


def _frozen(values: Any) -> Any:
    """A parameter as part of a call's signature: None, or a tuple of its integers (Python or
    NumPy ints, which validate alike); anything else keeps the call out of the cache
    (``UNCACHED``), to be validated afresh every time, as is a list too long to be one."""
    if values is None:
        return None
    if type(values) in (tuple, list) and len(values) <= MAX_ITEMS:
        if all(type(v) is int for v in values):
            return tuple(values)
        if all(type(v) is int or isinstance(v, np.integer) for v in values):
            return tuple(int(v) for v in values)
    return UNCACHED


def _views(
    x: Operand,
    out: Any,
    names: Names,
    window_offsets: Sequence[SupportsIndex],
    window_sizes: Sequence[SupportsIndex],
    window_strides: Sequence[SupportsIndex],
    output_sizes: Sequence[SupportsIndex] | None = None,
) -> Views:
    rank = len(x.sizes)
    offsets = int_parameter(names.window_offsets, window_offsets, rank, names.x)
    sizes = int_parameter(names.window_sizes, window_sizes, rank, names.x)
    strides = int_parameter(names.window_strides, window_strides, rank, names.x)
    most = _check_window(x.sizes, offsets, sizes, strides, names)
    field = names.output_sizes
    copied = None if output_sizes is None else int_parameter(names.output_sizes, output_sizes, rank, names.x)
    if out is not None:
        check_output(out, x, OPERATOR_NAME, None, names=names)
        if copied is None:
            copied, field = out.desc.sizes, f"{names.out} sizes"
        elif copied != out.desc.sizes:
            raise LayoutError(
                f"{names.output_sizes} {list(copied)} differ from {names.out} sizes {list(out.desc.sizes)}"
            )
    elif copied is None:
        copied = most
    for i, (n, m) in enumerate(zip(copied, most)):
        if not 1 <= n <= m:
            raise LayoutError(
                f"{field}[{i}] = {shown(n)} is outside 1..MaxCopiedElements[{i}] = {m}, where MaxCopiedElements[i] = "
                f"1 + ({names.window_sizes}[i] - 1) // |{names.window_strides}[i]|"
            )
    result = TensorDesc(x.dtype, copied) if out is None else None
    dst_strides = (result or out.desc).strides
    start = (o + n - 1 if s < 0 else o for o, n, s in zip(offsets, sizes, strides))
    src_offset = sum(c * t for c, t in zip(start, x.strides))
    src_strides = tuple(s * t for s, t in zip(strides, x.strides))
    return Views(copied, src_strides, dst_strides, src_offset, result=result)


def _check_window(
    input_sizes: tuple[int, ...],
    offsets: tuple[int, ...],
    sizes: tuple[int, ...],
    strides: tuple[int, ...],
    names: Names,
) -> tuple[int, ...]:
    """Check the window against the page's rules; return ``MaxCopiedElements`` per dimension."""
    most = []
    for i, (n, o, w, s) in enumerate(zip(input_sizes, offsets, sizes, strides)):
        if s == 0:
            raise LayoutError(f"{names.window_strides}[{i}] = 0: window strides may not be 0")
        if not INT_MIN <= s <= INT_MAX:
            raise layout_error(
                f"{names.window_strides}[{i}]", s, f"DirectML window strides are 32-bit INTs ({INT_MIN} to {INT_MAX})"
            )
        if w < 1:
            raise layout_error(
                f"{names.window_sizes}[{i}]", w, "the window may not be empty (window sizes are at least 1)"
            )
        if o < 0:
            raise layout_error(f"{names.window_offsets}[{i}]", o, "window offsets are unsigned (UINT), 0 or more")
        if o + w > n:
            raise LayoutError(
                f"{names.window_offsets}[{i}] + {names.window_sizes}[{i}] = {shown(o + w)} exceeds input "
                f"sizes[{i}] = {n}; the window must lie inside the input (no out-of-bounds reads)"
            )
        most.append(1 + (w - 1) // abs(s))
    return tuple(most)


OPERATOR = register(Operator(OPERATOR_NAME, SUPPORTED_DATA_TYPES, "slice1", _views, _key))
