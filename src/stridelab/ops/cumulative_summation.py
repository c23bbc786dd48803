"""CUMULATIVE_SUMMATION (``DML_CUMULATIVE_SUMMATION_OPERATOR_DESC``): running sums along an axis.

internal: ``cumulative_summation`` is public as ``stridelab.cumulative_summation`` (and in :mod:`stridelab.ops`).
"""

from __future__ import annotations

from typing import Any, SupportsIndex, overload

import numpy as np
import numpy.typing as npt

from ..tensor import StridedTensor
from ._engine import call
from ._primitives import ScanOperator
from ._scan import documented, scan_operator
from ._types import Input, Scalar

__all__: list[str] = []

#: The data types of the operator's DirectML tensor support table.
SUPPORTED_DATA_TYPES = ("FLOAT32", "FLOAT16", "UINT32", "UINT16")

#: Addition as a scan: ``np.add`` on the CPU, the ``Sum`` trait of ``cuda/scan_common.cuh`` on the GPU.
SUMMATION = ScanOperator("CUMULATIVE_SUMMATION", np.add, "Sum", SUPPORTED_DATA_TYPES)
OPERATOR = scan_operator(SUMMATION, "cumulative_summation")


@overload
def cumulative_summation(
    x: StridedTensor, axis: SupportsIndex, *, direction: str = ..., exclusive: bool | np.bool_ = ..., out: None = ...
) -> StridedTensor: ...
@overload
def cumulative_summation(
    x: npt.NDArray[Scalar],
    axis: SupportsIndex,
    *,
    direction: str = ...,
    exclusive: bool | np.bool_ = ...,
    out: None = ...,
) -> npt.NDArray[Scalar]: ...
@overload
def cumulative_summation(
    x: Input, axis: SupportsIndex, *, direction: str = ..., exclusive: bool | np.bool_ = ..., out: StridedTensor
) -> StridedTensor: ...
@documented("sum", "sums", "HasExclusiveSum", "0")
def cumulative_summation(
    x: Any,
    axis: SupportsIndex,
    *,
    direction: str = "increasing",
    exclusive: bool | np.bool_ = False,
    out: StridedTensor | None = None,
) -> Any:
    """Running tally of ``x`` along ``axis``, as DirectML's CUMULATIVE_SUMMATION computes it.

    {parameters}

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[2, 1, 3, 5], [3, 8, 7, 3]], dtype=np.float32)
    >>> cumulative_summation(x, axis=1).tolist()
    [[2.0, 3.0, 6.0, 11.0], [3.0, 11.0, 18.0, 21.0]]
    >>> cumulative_summation(x, -1, direction="decreasing", exclusive=True).tolist()
    [[9.0, 8.0, 5.0, 0.0], [18.0, 10.0, 3.0, 0.0]]
    """
    return call(OPERATOR, x, out, axis, direction, exclusive)
