"""The front end the scan operators share: CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT differ only
in their :class:`~stridelab.ops._plan.ScanOperator`.

A call is one ``scan`` of two views. A decreasing tally is the same scan over views that start at
the axis's last index and step back along it, so backends only ever scan in increasing coordinate
order.
"""

from __future__ import annotations

import operator as _operator
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from .._validate import shown
from ..desc import TensorDesc
from ..errors import LayoutError
from ._common import Prepared, backend_for, call, check_data_type, check_output, prepare, read_input
from ._plan import ScanOperator

__all__ = ["documented", "scan_call"]

_PARAMETERS = """Parameters
    ----------
    x : StridedTensor or numpy.ndarray or cupy.ndarray
        The input, read through its own strides (padded, broadcast, transposed or reversed layouts
        are read in place, never packed first). Data types FLOAT32, FLOAT16, UINT32, UINT16;
        1 to 8 dimensions.
    axis : int
        The dimension to {verb} along (DirectML's ``Axis``); negative values count from the end, as
        in NumPy.
    direction : str, optional
        ``"increasing"`` (ascending index) or ``"decreasing"`` (DirectML's ``AxisDirection``); also
        the ``DML_AXIS_DIRECTION_*`` names. Any case.
    exclusive : bool, optional
        DirectML's ``{exclusive}``: leave the current element out of the value written, so the
        first written value is {first} and the total is never written.
    out : StridedTensor, optional
        Where to write, with any non-sharing layout: padding slots are left untouched. It may be
        ``x`` itself (the same memory and description): in-place execution, as the page allows.

    Returns
    -------
    StridedTensor or numpy.ndarray or cupy.ndarray
        ``out`` where given; else a new packed (row-major) array for an array input, or a
        StridedTensor over a new packed buffer for a StridedTensor input.

    Notes
    -----
    Numerics: FLOAT32 {verbs} in float32; FLOAT16 keeps its running value in float32 and rounds
    each written value once to float16; UINT16 and UINT32 wrap modulo 2**bits. The GPU groups the
    operations differently from a loop, so float results agree with the CPU's within rounding.

    Raises :class:`~stridelab.LayoutError` (or TypeError for wrong types) before anything is
    allocated or written."""


F = TypeVar("F", bound=Callable[..., Any])


def documented(verb: str, verbs: str, exclusive: str, first: str) -> Callable[[F], F]:
    """Put the parameters every scan operator shares into a front end's docstring, where it says
    ``{parameters}``."""

    def document(function: F) -> F:
        shared = _PARAMETERS.format(verb=verb, verbs=verbs, exclusive=exclusive, first=first)
        function.__doc__ = (function.__doc__ or "{parameters}").replace("{parameters}", shared)
        return function

    return document


_DIRECTIONS = {
    "INCREASING": False,
    "DECREASING": True,
    "DML_AXIS_DIRECTION_INCREASING": False,
    "DML_AXIS_DIRECTION_DECREASING": True,
}


def scan_call(operator: ScanOperator, x: Any, axis: Any, direction: Any, exclusive: Any, out: Any) -> Any:
    """Run ``operator``'s running tally of ``x`` along ``axis`` (see ``cumulative_summation`` for the
    parameters). ``axis`` and ``exclusive`` enter the signature with their types, since ``True``
    equals ``1`` and ``1.0`` equals ``1`` but only the int is an axis."""
    key = (operator.name, axis, type(axis), direction, exclusive, type(exclusive))
    return call(key, _prepare, x, out, operator, axis, direction, exclusive)


def _prepare(x: Any, out: Any, operator: ScanOperator, axis: Any, direction: Any, exclusive: Any) -> Prepared:
    src = read_input(x)
    check_data_type(src, operator.name, operator.data_types)
    axis = _axis(axis, len(src.sizes))
    decreasing = _direction(direction)
    if not isinstance(exclusive, (bool, np.bool_)):
        raise TypeError(f"exclusive must be a bool, not {type(exclusive).__name__} ({shown(exclusive)})")
    sizes = src.sizes
    if out is None:
        in_place, out_desc = False, TensorDesc(src.dtype, sizes)
        dst_strides = out_desc.strides
    else:
        in_place, out_desc = check_output(out, src, operator.name, sizes, in_place=True), None
        dst_strides = out.desc.strides
    # In place, both views are one: the same buffer, offset and strides.
    src_strides = dst_strides if in_place else src.strides
    src_offset = dst_offset = 0
    if decreasing:
        last = sizes[axis] - 1
        src_offset, dst_offset = last * src_strides[axis], last * dst_strides[axis]
        src_strides = _negated(src_strides, axis)
        dst_strides = _negated(dst_strides, axis)
    run = backend_for(src.buffer).prepare_scan(
        src.dtype.numpy_dtype, sizes, src_strides, dst_strides, axis, bool(exclusive), operator
    )
    return prepare(src, src_offset, dst_offset, in_place, out_desc, run)


def _negated(strides: tuple[int, ...], axis: int) -> tuple[int, ...]:
    return (*strides[:axis], -strides[axis], *strides[axis + 1 :])


def _axis(axis: Any, rank: int) -> int:
    if isinstance(axis, bool):
        raise TypeError("axis must be an integer, not bool")
    try:
        index = _operator.index(axis)
    except TypeError:
        raise TypeError(f"axis must be an integer, not {type(axis).__name__} ({shown(axis)})") from None
    if not -rank <= index < rank:
        raise LayoutError(
            f"axis = {shown(index)} is out of range for x with {rank} dimensions; expected {-rank} <= axis < {rank}"
        )
    return index % rank


def _direction(direction: Any) -> bool:
    """True for a decreasing direction."""
    if not isinstance(direction, str):
        raise TypeError(f"direction must be a string, not {type(direction).__name__} ({shown(direction)})")
    try:
        return _DIRECTIONS[direction.strip().upper()]
    except KeyError:
        raise LayoutError(
            f"direction = {shown(direction)} is not an axis direction; expected 'increasing' or 'decreasing' "
            "(or DML_AXIS_DIRECTION_INCREASING / DML_AXIS_DIRECTION_DECREASING, any case)"
        ) from None
