"""The front end the scan operators share: CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT differ only
in their :class:`~stridelab.ops._primitives.ScanOperator`, registered with the engine by
:func:`scan_operator`.

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
from ._engine import Operator, Views, register
from ._operands import Names, Operand, check_output
from ._primitives import ScanOperator

__all__ = ["documented", "scan_operator"]

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


def scan_operator(scan: ScanOperator, function: str) -> Operator:
    """Register the scan operator ``scan`` (its public function is named ``function``)."""

    def views(x: Operand, out: Any, names: Names, axis: Any, direction: Any, exclusive: Any) -> Views:
        return _views(scan, x, out, names, axis, direction, exclusive)

    return register(Operator(scan.name, scan.data_types, function, views, _key, scan))


def _key(args: tuple) -> tuple:
    """``axis`` and ``exclusive`` enter the signature with their types, since ``True`` equals ``1``
    and ``1.0`` equals ``1`` but only the int is an axis."""
    axis, direction, exclusive = args
    return (axis, type(axis), direction, exclusive, type(exclusive))


def _views(scan: ScanOperator, x: Operand, out: Any, names: Names, axis: Any, direction: Any, exclusive: Any) -> Views:
    axis = _axis(axis, len(x.sizes), names)
    decreasing = _direction(direction, names)
    if not isinstance(exclusive, (bool, np.bool_)):
        raise TypeError(f"{names.exclusive} must be a bool, not {type(exclusive).__name__} ({shown(exclusive)})")
    sizes = x.sizes
    if out is None:
        in_place, result = False, TensorDesc(x.dtype, sizes)
        dst_strides = result.strides
    else:
        in_place, result = check_output(out, x, scan.name, sizes, in_place=True, names=names), None
        dst_strides = out.desc.strides
    # In place, both views are one: the same buffer, offset and strides.
    src_strides = dst_strides if in_place else x.strides
    src_offset = dst_offset = 0
    if decreasing:
        last = sizes[axis] - 1
        src_offset, dst_offset = last * src_strides[axis], last * dst_strides[axis]
        src_strides = _negated(src_strides, axis)
        dst_strides = _negated(dst_strides, axis)
    return Views(sizes, src_strides, dst_strides, src_offset, dst_offset, axis, bool(exclusive), in_place, result)


def _negated(strides: tuple[int, ...], axis: int) -> tuple[int, ...]:
    return (*strides[:axis], -strides[axis], *strides[axis + 1 :])


def _axis(axis: Any, rank: int, names: Names) -> int:
    if isinstance(axis, bool):
        raise TypeError(f"{names.axis} must be an integer, not bool")
    try:
        index = _operator.index(axis)
    except TypeError:
        raise TypeError(f"{names.axis} must be an integer, not {type(axis).__name__} ({shown(axis)})") from None
    if not -rank <= index < rank:
        raise LayoutError(
            f"{names.axis} = {shown(index)} is out of range for {names.x} with {rank} dimensions; expected "
            f"{-rank} <= {names.axis} < {rank}"
        )
    return index % rank


def _direction(direction: Any, names: Names) -> bool:
    """True for a decreasing direction."""
    if not isinstance(direction, str):
        raise TypeError(f"{names.direction} must be a string, not {type(direction).__name__} ({shown(direction)})")
    try:
        return _DIRECTIONS[direction.strip().upper()]
    except KeyError:
        raise LayoutError(
            f"{names.direction} = {shown(direction)} is not an axis direction; expected 'increasing' or 'decreasing' "
            "(or DML_AXIS_DIRECTION_INCREASING / DML_AXIS_DIRECTION_DECREASING, any case)"
        ) from None
