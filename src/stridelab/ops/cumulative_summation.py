"""CUMULATIVE_SUMMATION (``DML_CUMULATIVE_SUMMATION_OPERATOR_DESC``): running tallies along an axis.

The plan is one ``scan`` over two :class:`~stridelab.ops._plan.BufferView` s. A decreasing tally is
the same scan over views that start at the axis's last index and step back along it, so backends
only ever scan in increasing coordinate order.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ..errors import LayoutError
from ._common import (
    allocate_output,
    backend_for,
    check_data_type,
    check_output,
    output_view,
    read_input,
)
from ._plan import coalesce, reversed_axis

__all__ = ["SUPPORTED_DATA_TYPES", "cumulative_summation"]

OPERATOR = "CUMULATIVE_SUMMATION"

#: The data types of the operator's DirectML tensor support table.
SUPPORTED_DATA_TYPES = ("FLOAT32", "FLOAT16", "UINT32", "UINT16")

_DIRECTIONS = {
    "INCREASING": False,
    "DECREASING": True,
    "DML_AXIS_DIRECTION_INCREASING": False,
    "DML_AXIS_DIRECTION_DECREASING": True,
}


def cumulative_summation(
    x: Any, axis: int, *, direction: str = "increasing", exclusive: bool = False, out: Any = None
) -> Any:
    """Running tally of ``x`` along ``axis``, as DirectML's CUMULATIVE_SUMMATION computes it.

    Parameters
    ----------
    x : StridedTensor or numpy.ndarray or cupy.ndarray
        The input, read through its own strides (padded, broadcast, transposed or reversed layouts
        are read in place, never packed first). Data types FLOAT32, FLOAT16, UINT32, UINT16;
        1 to 8 dimensions (the page says 4; later DirectML feature levels accept 1 to 8).
    axis : int
        The dimension to sum along; negative values count from the end, as in NumPy.
    direction : str, optional
        ``"increasing"`` (ascending index) or ``"decreasing"``; also the ``DML_AXIS_DIRECTION_*``
        names. Any case.
    exclusive : bool, optional
        Leave the current element out of the value written: the first written value is 0 and the
        total is never written.
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
    Numerics: FLOAT32 accumulates in float32; FLOAT16 keeps its running total in float32 and rounds
    each written value once to float16; UINT16 and UINT32 wrap modulo 2**bits.

    Raises :class:`~stridelab.LayoutError` (or TypeError for wrong types) before anything is
    allocated or written.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[2, 1, 3, 5], [3, 8, 7, 3]], dtype=np.float32)
    >>> cumulative_summation(x, axis=1).tolist()
    [[2.0, 3.0, 6.0, 11.0], [3.0, 11.0, 18.0, 21.0]]
    >>> cumulative_summation(x, -1, direction="decreasing", exclusive=True).tolist()
    [[9.0, 8.0, 5.0, 0.0], [18.0, 10.0, 3.0, 0.0]]
    """
    src = read_input(x)
    check_data_type(src, OPERATOR, SUPPORTED_DATA_TYPES)
    axis = _axis(axis, len(src.sizes))
    decreasing = _direction(direction)
    if not isinstance(exclusive, (bool, np.bool_)):
        raise TypeError(f"exclusive must be a bool, not {type(exclusive).__name__} ({exclusive!r})")
    if out is None:
        result, dst = allocate_output(src, src.sizes)
        source = src.view()
    else:
        in_place = check_output(out, src, OPERATOR, src.sizes, in_place=True)
        result, dst = out, output_view(out)
        # In place, both views are one: the same buffer object, offset and strides.
        source = dst if in_place else src.view()
    if decreasing:
        source, dst = reversed_axis(source, axis), reversed_axis(dst, axis)
    source, dst, axis = coalesce(source, dst, axis)
    backend_for(dst.buffer).scan(source, dst, axis, bool(exclusive))
    return result


def _axis(axis: Any, rank: int) -> int:
    if isinstance(axis, bool):
        raise TypeError("axis must be an integer, not bool")
    try:
        index = operator.index(axis)
    except TypeError:
        raise TypeError(f"axis must be an integer, not {type(axis).__name__} ({axis!r})") from None
    if not -rank <= index < rank:
        raise LayoutError(
            f"axis = {index} is out of range for x with {rank} dimensions; expected {-rank} <= axis < {rank}"
        )
    return index % rank


def _direction(direction: Any) -> bool:
    """True for a decreasing direction."""
    if not isinstance(direction, str):
        raise TypeError(f"direction must be a string, not {type(direction).__name__} ({direction!r})")
    try:
        return _DIRECTIONS[direction.strip().upper()]
    except KeyError:
        raise LayoutError(
            f"direction = {direction!r} is not an axis direction; expected 'increasing' or 'decreasing' "
            "(or DML_AXIS_DIRECTION_INCREASING / DML_AXIS_DIRECTION_DECREASING, any case)"
        ) from None
