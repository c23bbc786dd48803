"""CUMULATIVE_PRODUCT (``DML_CUMULATIVE_PRODUCT_OPERATOR_DESC``): running products along an axis.

internal: ``cumulative_product`` is public as ``stridelab.cumulative_product`` (and in :mod:`stridelab.ops`).
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

#: Multiplication as a scan: ``np.multiply`` on the CPU, the ``Product`` trait of
#: ``cuda/scan_common.cuh`` on the GPU.
PRODUCT = ScanOperator("CUMULATIVE_PRODUCT", np.multiply, "Product", SUPPORTED_DATA_TYPES)
OPERATOR = scan_operator(PRODUCT, "cumulative_product")


@overload
def cumulative_product(
    x: StridedTensor, axis: SupportsIndex, *, direction: str = ..., exclusive: bool | np.bool_ = ..., out: None = ...
) -> StridedTensor: ...
@overload
def cumulative_product(
    x: npt.NDArray[Scalar],
    axis: SupportsIndex,
    *,
    direction: str = ...,
    exclusive: bool | np.bool_ = ...,
    out: None = ...,
) -> npt.NDArray[Scalar]: ...
@overload
def cumulative_product(
    x: Input, axis: SupportsIndex, *, direction: str = ..., exclusive: bool | np.bool_ = ..., out: StridedTensor
) -> StridedTensor: ...
@documented("multiply", "multiplies", "HasExclusiveProduct", "1")
def cumulative_product(
    x: Any,
    axis: SupportsIndex,
    *,
    direction: str = "increasing",
    exclusive: bool | np.bool_ = False,
    out: StridedTensor | None = None,
) -> Any:
    """Running product of ``x`` along ``axis``, as DirectML's CUMULATIVE_PRODUCT computes it.

    {parameters}

    Examples
    --------
    The page's input, along its last axis, and from the end of it:

    >>> import numpy as np
    >>> x = np.array([[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]], dtype=np.float32)
    >>> cumulative_product(x, axis=1).tolist()
    [[2.0, 2.0, 6.0, 30.0], [3.0, 24.0, 168.0, 504.0], [9.0, 54.0, 108.0, 432.0]]
    >>> cumulative_product(x, 1, direction="decreasing").tolist()
    [[30.0, 15.0, 15.0, 5.0], [504.0, 168.0, 21.0, 3.0], [432.0, 48.0, 8.0, 4.0]]
    """
    return call(OPERATOR, x, out, axis, direction, exclusive)
