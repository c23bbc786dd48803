"""The drawing options every memory-map drawing takes, carried as one record.

:func:`~stridelab.render_svg`, :func:`~stridelab.draw_memory_map`,
:func:`~stridelab.render.scene.build_scene` and :class:`~stridelab.MemoryMapView` spell out the
same keyword arguments (``max_cells``, ``columns``, ``start``, ``window``, ``colour_by``,
``limit``) for ``help()``; inside, they travel as one :class:`DrawOptions`.

internal: the public names are the keyword arguments.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..memmap import DEFAULT_LIMIT

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

    def moved(self, *, start: Any = None, window: Sequence[tuple[int, int]] | None = None) -> DrawOptions:
        """The same options with the window at ``start`` (as a tuple), or exactly ``window``."""
        return dataclasses.replace(self, start=None if start is None else tuple(start), window=window)

    def capped(self, max_cells: int) -> DrawOptions:
        """At most ``max_cells`` cells, unless an exact window was asked for, which is drawn as asked."""
        if self.window is not None:
            return self
        return dataclasses.replace(self, max_cells=min(self.max_cells, max_cells))
