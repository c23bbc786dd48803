"""compare(): two descriptions of the same logical tensor side by side, linked cell by cell.

internal: ``compare`` is public as ``stridelab.compare``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._strides import layout_strides
from .._validate import known_keywords, shown
from ..desc import TensorDesc
from ..errors import LayoutError
from ..memmap import DEFAULT_LIMIT
from ..render.options import DrawOptions, session_scale
from ..render.scene import Scene, scene_for
from ..render.summary import layout_name
from ..render.window import checked_max_cells
from ._panels import MapWidget
from .memory_map_view import as_source, desc_of, static_options

__all__: list[str] = []

#: The tensor compare() draws when given layouts only: N=1, C=3, H=2, W=2.
DEFAULT_SIZES = (1, 3, 2, 2)


class Comparison(MapWidget):
    """Two memory maps, one above the other so their buffer strips line up; pointing at a cell in
    one lights the same logical element, and the slots that hold it, in both. See :func:`compare`."""

    def __init__(
        self,
        a: Any,
        b: Any,
        *,
        names: Sequence[str] = ("", ""),
        max_cells: int = 512,
        columns: int = 16,
        window: Sequence[tuple[int, int]] | None = None,
        limit: int = DEFAULT_LIMIT,
        scale: float | None = None,
    ) -> None:
        super().__init__()
        self._scale = session_scale(scale)
        max_cells = checked_max_cells(max_cells)
        sources = [as_source(a, "a"), as_source(b, "b")]
        descs = [desc_of(s) for s in sources]
        if descs[0].sizes != descs[1].sizes:
            raise LayoutError(
                f"compare() shows two descriptions of the same logical tensor, but a has sizes "
                f"{list(descs[0].sizes)} and b has sizes {list(descs[1].sizes)}"
            )
        self._sources = sources
        if isinstance(names, str) or len(names) != 2:
            raise LayoutError(f"names must give one caption for each of the two sides, not {shown(names)}")
        self._names = [str(n) for n in names]
        self._options = DrawOptions(max_cells, columns, window=window, limit=limit)
        self._redraw()
        self.stacked = True
        self.observe(lambda change: self._redraw(keep_selection=True), "available_width")

    def _redraw(self, *, keep_selection: bool = False) -> None:
        scenes = [scene_for(s, self._options, self.layout_width) for s in self._sources]
        self.show(scenes, self._names, keep_selection=keep_selection)

    @property
    def sources(self) -> list[Any]:
        return list(self._sources)

    def static_scenes(self) -> tuple[list[Scene], list[str]]:
        options = static_options(self._options)
        return [scene_for(s, options) for s in self._sources], list(self._names)

    def __repr__(self) -> str:
        return f"Comparison({self._sources[0]!r}, {self._sources[1]!r})"


def _side(value: Any, sizes: Sequence[int], data_type: str, field: str) -> tuple[Any, str]:
    """A layout (name or permutation) as a description over ``sizes``; anything else as is."""
    if isinstance(value, str) or (
        isinstance(value, Sequence) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        desc = TensorDesc(data_type, sizes, layout_strides(value, sizes))
        return desc, value if isinstance(value, str) else f"order {list(value)}"
    source = as_source(value, field)
    return source, layout_name(desc_of(source)) or "strided"


@known_keywords
def compare(
    a: Any = "NCHW",
    b: Any = "NHWC",
    *,
    sizes: Sequence[int] = DEFAULT_SIZES,
    data_type: str = "FLOAT32",
    max_cells: int = 512,
    columns: int = 16,
    window: Sequence[tuple[int, int]] | None = None,
    limit: int = DEFAULT_LIMIT,
    scale: float | None = None,
) -> Comparison:
    """Two descriptions of one logical tensor side by side, live and as static SVG.

    Parameters
    ----------
    a, b : TensorDesc, StridedTensor, MemoryMap, array, layout name or permutation
        A layout ("NCHW", "NHWC", "WH", ...) or a permutation of dimension indices is laid over
        ``sizes`` with :func:`stridelab.layout_strides`.
    sizes, data_type
        The logical tensor for the sides given as layouts.
    max_cells, columns, window, limit, scale
        As for :class:`MemoryMapView`.

    Returns
    -------
    Comparison
        A widget; ``to_svg()`` gives its static picture (SVG; also stored as PNG in saved notebooks).

    Examples
    --------
    >>> import stridelab as sl
    >>> c = sl.compare()                     # NCHW beside NHWC over sizes (1, 3, 2, 2)
    >>> [s.strides for s in c.sources]
    [(12, 4, 2, 1), (12, 1, 6, 3)]
    """
    (sa, na), (sb, nb) = _side(a, sizes, data_type, "a"), _side(b, sizes, data_type, "b")
    return Comparison(
        sa, sb, names=(na, nb), max_cells=max_cells, columns=columns, window=window, limit=limit, scale=scale
    )
