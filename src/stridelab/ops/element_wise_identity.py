"""ELEMENT_WISE_IDENTITY: copy a tensor between two layouts of the same sizes and data type.

This is how DirectML converts NCHW to NHWC, packs a padded tensor or materialises a broadcast: the
input and output descriptions differ only in their strides. The plan is one ``copy``.

internal: ``element_wise_identity`` is public as ``stridelab.element_wise_identity`` (and in :mod:`stridelab.ops`).
"""

from __future__ import annotations

from typing import Any

from ..dtypes import DATA_TYPES
from ..tensor import StridedTensor
from ._engine import Operator, Views, call, register
from ._operands import Names, Operand, check_output
from ._types import Input

__all__: list[str] = []

OPERATOR_NAME = "ELEMENT_WISE_IDENTITY"


def element_wise_identity(x: Input, out: StridedTensor) -> StridedTensor:
    """Copy every element of ``x`` into ``out``: ``out[c] = x[c]`` for every coordinate ``c``.

    Parameters
    ----------
    x : StridedTensor or numpy.ndarray or cupy.ndarray
        The input, read through its own strides (broadcast and overlapping inputs included). Any of
        the eleven data types; 1 to 8 dimensions.
    out : StridedTensor
        The output: the same sizes and data type as ``x``, any strides whose elements do not share
        slots. Padding slots are left untouched. It may share a buffer with ``x`` as long as none
        of its elements is one of x's (e.g. interleaved); ``out`` exactly over x's elements (x
        itself) copies nothing.

    Returns
    -------
    StridedTensor
        ``out``.

    Raises :class:`~stridelab.LayoutError` (or TypeError for wrong types) before anything is
    written.

    Examples
    --------
    NCHW to NHWC: the same logical tensor, with the channels now innermost in the buffer.

    >>> import numpy as np
    >>> from stridelab import StridedTensor, TensorDesc, layout_strides
    >>> x = np.arange(6, dtype=np.float32).reshape(1, 2, 1, 3)
    >>> nhwc = TensorDesc("FLOAT32", (1, 2, 1, 3), layout_strides("NHWC", (1, 2, 1, 3)))
    >>> out = element_wise_identity(x, StridedTensor.empty(nhwc))
    >>> out.buffer.tolist()
    [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    """
    return call(OPERATOR, x, out)


def _views(x: Operand, out: Any, names: Names) -> Views:
    onto_itself = check_output(out, x, OPERATOR_NAME, x.sizes, in_place=True, names=names)
    # every element copied onto itself moves nothing
    return Views(x.sizes, x.strides, out.desc.strides, moves=not onto_itself)


def _key(args: tuple) -> tuple:
    return ()


OPERATOR = register(Operator(OPERATOR_NAME, DATA_TYPES, "element_wise_identity", _views, _key))
