"""stridelab: DirectML tensor memory layouts, computed, drawn and tested.

A tensor description is a data type, logical sizes and element strides over a flat buffer; the
element at coordinates ``c`` lives at buffer element ``dot(c, strides)``.

The layout core is imported eagerly; the operators, renderings and widgets on first use, so that
``import stridelab`` needs only numpy and never imports cupy, matplotlib or the Jupyter packages.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._desc_text import PlacedDesc
from ._overlap import overlap
from ._strides import MAX_DIMENSIONS, calc_buffer_tensor_size, calculate_strides, layout_strides
from .desc import TensorDesc
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
    "threads": ".ops._threads",
    "explain": "._explain",
    "access_pattern": "._access_report",
    "AccessReport": "._access_report",
    "check_layouts": "._sanitizer",
    "LayoutCheck": "._sanitizer",
    "LayoutReport": "._explain",
    "render_svg": ".render",
    "draw_memory_map": ".render",
    "MemoryMapView": ".widgets",
    "explore": ".widgets",
    "compare": ".widgets",
    "SliceExplorer": ".widgets",
    "CumulativeSummationExplorer": ".widgets",
    "settings": ".render.options",
}


if TYPE_CHECKING:  # what __getattr__ gives, as type checkers should see it (re-exported: "x as x")
    from ._access_report import AccessReport as AccessReport
    from ._access_report import access_pattern as access_pattern
    from ._explain import LayoutReport as LayoutReport
    from ._explain import explain as explain
    from ._sanitizer import LayoutCheck as LayoutCheck
    from ._sanitizer import check_layouts as check_layouts
    from .ops._threads import threads as threads
    from .ops.cumulative_product import cumulative_product as cumulative_product
    from .ops.cumulative_summation import cumulative_summation as cumulative_summation
    from .ops.element_wise_identity import element_wise_identity as element_wise_identity
    from .ops.slice1 import slice1 as slice1
    from .render import render_svg as render_svg
    from .render.mpl import draw_memory_map as draw_memory_map
    from .render.options import settings as settings
    from .widgets import CumulativeSummationExplorer as CumulativeSummationExplorer
    from .widgets import MemoryMapView as MemoryMapView
    from .widgets import SliceExplorer as SliceExplorer
    from .widgets import explore as explore
    from .widgets.compare import compare as compare


if not TYPE_CHECKING:  # hidden from type checkers, which would read any attribute as Any through it

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
    "PlacedDesc",
    "StridedTensor",
    "TensorDesc",
    "calc_buffer_tensor_size",
    "calculate_strides",
    "data_type",
    "layout_strides",
    "overlap",
    *_LAZY,
]
