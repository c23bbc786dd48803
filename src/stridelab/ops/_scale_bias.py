"""DirectML's ``DML_SCALE_BIAS``: ``Scale * x + Bias`` on an operator's output, in place.

One function for both backends: ``out.view()`` is a NumPy array or a CuPy one, and the same array
expressions run on either, so the two give the same bits.

internal: used by :mod:`stridelab.dxdispatch` for ELEMENT_WISE_IDENTITY's ``ScaleBias``.
"""

from __future__ import annotations

import numpy as np

from ..tensor import StridedTensor

__all__: list[str] = []


def scale_bias(out: StridedTensor, scale: float, bias: float) -> None:
    """``Scale * out + Bias`` in place, as a multiply and an add, each rounded to float32 (float64
    for FLOAT64; no fused multiply-add, so NumPy and CuPy give the same bits), then converted once
    to the output type."""
    compute = np.dtype(np.float64 if out.desc.data_type == "FLOAT64" else np.float32)
    view = out.view()
    with np.errstate(over="ignore", invalid="ignore"):  # past the type's range is inf, as on DirectML
        values = view.astype(compute)
        values *= compute.type(scale)
        values += compute.type(bias)
        view[...] = values
