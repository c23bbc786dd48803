"""stridelab: DirectML tensor memory layouts, computed, drawn and tested.

A tensor description is a data type, logical sizes and element strides over a flat buffer; the
element at coordinates ``c`` lives at buffer element ``dot(c, strides)``.
"""

from .desc import MAX_DIMENSIONS, TensorDesc, calc_buffer_tensor_size, calculate_strides, layout_strides
from .dtypes import DATA_TYPES, DataType, data_type
from .errors import LayoutError
from .memmap import MemoryMap
from .tensor import StridedTensor

__version__ = "0.1.0"

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
]
