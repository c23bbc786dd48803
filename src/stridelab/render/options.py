"""The drawing options every memory-map drawing takes, carried as one record.

:func:`~stridelab.render_svg`, :func:`~stridelab.draw_memory_map`,
:func:`~stridelab.render.scene.build_scene` and :class:`~stridelab.MemoryMapView` spell out the
same keyword arguments (``max_cells``, ``columns``, ``start``, ``window``, ``colour_by``,
``limit``) for ``help()``; inside, they travel as one :class:`DrawOptions`. A drawing may also
take its labels from another tensor's elements (:class:`LabelSource`).

internal: the public names are the keyword arguments.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validate import shown, wrong_type
from ..errors import LayoutError
from ..memmap import DEFAULT_LIMIT

if TYPE_CHECKING:
    from ..desc import TensorDesc

__all__: list[str] = []

#: Logical cells (and, separately, physical slots) drawn at most, unless asked for more: four 4x4
#: tiles or an 8x8 grid, readable at a glance, and a display (SVG and PNG) under 120 KB stored.
DEFAULT_MAX_CELLS = 64


@dataclass(frozen=True)
class DrawOptions:
    """What to draw of a memory map (see :func:`~stridelab.render.scene.build_scene` for each).

    >>> options = DrawOptions(max_cells=16)
    >>> options.moved(start=(1, 0)).start, options.moved(start=(1, 0)).max_cells
    ((1, 0), 16)
    """

    max_cells: int = DEFAULT_MAX_CELLS
    columns: int = 16
    start: tuple[int, ...] | None = None
    window: Sequence[tuple[int, int]] | None = None
    colour_by: int | None = None
    limit: int = DEFAULT_LIMIT
    labels_from: LabelSource | None = None

    def moved(self, *, start: Any = None, window: Sequence[tuple[int, int]] | None = None) -> DrawOptions:
        """The same options with the window at ``start`` (as a tuple), or exactly ``window``."""
        return dataclasses.replace(self, start=None if start is None else tuple(start), window=window)

    def capped(self, max_cells: int) -> DrawOptions:
        """At most ``max_cells`` cells, unless an exact window was asked for, which is drawn as asked."""
        if self.window is not None:
            return self
        return dataclasses.replace(self, max_cells=min(self.max_cells, max_cells))


@dataclass(frozen=True, eq=False)
class LabelSource:
    """Where a drawing's labels come from, said in a line of its header (``text``).

    With ``desc`` and ``elements``, the drawn element at coordinates ``c`` is labelled and coloured
    as element ``elements[c]`` (a row-major index) of ``desc`` is in ``desc``'s own drawing: e.g. a
    slice's output shows the letters of the input elements it copies. Without them, the drawing
    keeps its own labels and only says where they come from. A slot that several drawn elements
    share shows the first one's label.

    >>> from stridelab import TensorDesc
    >>> rows = TensorDesc("INT32", (2, 3))
    >>> source = LabelSource("letters from the rows, reversed", rows, np.array([[2, 1, 0], [5, 4, 3]]))
    >>> source.checked(rows).elements.tolist()
    [[2, 1, 0], [5, 4, 3]]
    """

    text: str
    desc: TensorDesc | None = None
    elements: Any = None

    def checked(self, drawn: TensorDesc, limit: int = DEFAULT_LIMIT) -> LabelSource:
        """This source with ``elements`` as an int64 array, checked against the ``drawn``
        description (its sizes) and ``desc`` (indices in range, a memory map within ``limit``)."""
        from ..desc import TensorDesc

        if not isinstance(self.text, str):
            raise wrong_type("LabelSource.text", "a str", self.text)
        if self.desc is None and self.elements is None:
            return self
        if not isinstance(self.desc, TensorDesc):
            raise wrong_type("LabelSource.desc", "a TensorDesc (given with elements)", self.desc)
        count = self.desc.element_count
        if max(count, self.desc.slot_count) > limit:
            raise LayoutError(
                f"LabelSource.desc {self.desc}: labels are taken from a description of at most {limit} "
                "elements and slots (its memory map)"
            )
        elements = np.asarray(self.elements)
        if elements.dtype.kind not in "iu":
            raise wrong_type("LabelSource.elements", "an array of integers", self.elements)
        if elements.shape != drawn.sizes:
            raise LayoutError(
                f"LabelSource.elements has shape {list(elements.shape)}: expected one index per drawn element, "
                f"the drawn sizes {list(drawn.sizes)}"
            )
        if elements.size and not (0 <= int(elements.min()) and int(elements.max()) < count):
            bad = elements[(elements < 0) | (elements >= count)].ravel()[0]
            raise LayoutError(
                f"LabelSource.elements holds {shown(int(bad))}: "
                f"indices of LabelSource.desc's elements are 0..{count - 1}"
            )
        return dataclasses.replace(self, elements=elements.astype(np.int64, copy=False))
