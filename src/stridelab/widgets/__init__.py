"""Interactive memory maps and explorers for JupyterLab (anywidget drawings, ipywidgets controls).

Python computes every map and paints it as SVG; the browser only shows it, lights what the pointer
rests on and reports clicks. Every widget also carries a static picture (SVG and PNG) of what it
shows, so saved notebooks read well where no kernel runs.

internal: the widgets are public as ``stridelab.MemoryMapView``, ``stridelab.explore``,
``stridelab.compare``, ``stridelab.SliceExplorer`` and ``stridelab.CumulativeSummationExplorer``.
"""

from __future__ import annotations

from .._optional import optional_imports

with optional_imports("widgets", "stridelab's widgets (MemoryMapView, explore, compare, the explorers)"):
    from .compare import Comparison as Comparison
    from .compare import compare as compare
    from .cumsum_explorer import CumulativeSummationExplorer as CumulativeSummationExplorer
    from .explorer import LayoutExplorer as LayoutExplorer
    from .explorer import explore as explore
    from .memory_map_view import MemoryMapView as MemoryMapView
    from .slice_explorer import SliceExplorer as SliceExplorer

__all__: list[str] = []
