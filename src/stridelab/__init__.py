"""stridelab: DirectML tensor memory layouts, computed, drawn and tested.

A tensor description is a data type, logical sizes and element strides over a flat buffer; the
element at coordinates ``c`` lives at buffer element ``dot(c, strides)``.

The layout core is imported eagerly; the operators, renderings and widgets on first use, so that
``import stridelab`` needs only numpy and never imports cupy, matplotlib or the Jupyter packages.
"""

from importlib import import_module
from typing import Any

from ._analysis import overlap
from .desc import MAX_DIMENSIONS, TensorDesc, calc_buffer_tensor_size, calculate_strides, layout_strides
from .dtypes import DATA_TYPES, DataType, data_type
from .errors import LayoutError
from .memmap import MemoryMap
from .tensor import StridedTensor

__version__ = "0.1.0"

# Public names provided by modules that are imported when first used.
_LAZY = {
    "cumulative_summation": ".ops",
    "cumulative_product": ".ops",
    "slice1": ".ops",
    "element_wise_identity": ".ops",
    "explain": "._explain",
    "LayoutReport": "._explain",
    "render_svg": ".render",
    "draw_memory_map": ".render",
    "MemoryMapView": ".widgets",
    "explore": ".widgets",
    "compare": ".widgets",
    "SliceExplorer": ".widgets",
    "CumulativeSummationExplorer": ".widgets",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'stridelab' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "DATA_TYPES",
    "MAX_DIMENSIONS",
    "DataType",
    "LayoutError",
    "MemoryMap",
    "StridedTensor",
    "TensorDesc",
    "calc_buffer_tensor_size",
    "calculate_strides",
    "data_type",
    "layout_strides",
    "overlap",
    *_LAZY,
]
