"""Drawings of memory maps: deterministic SVG (also what the widgets show), PNG painted with
Pillow (beside the SVG in the objects' Jupyter display, see :mod:`stridelab.render.picture`), and
matplotlib for axes of your own.

All paint the same :class:`~stridelab.render.scene.Scene`. Pillow is imported only when a PNG is
first needed and matplotlib only when :func:`draw_memory_map` is, so rendering SVG (and importing
stridelab) needs neither.

internal: ``render_svg`` and ``draw_memory_map`` are public as ``stridelab.render_svg`` and
``stridelab.draw_memory_map``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .svg import render_svg as render_svg

__all__: list[str] = []


if TYPE_CHECKING:
    from .mpl import draw_memory_map as draw_memory_map
else:  # matplotlib is imported on first use

    def __getattr__(name: str) -> Any:
        if name == "draw_memory_map":
            from .mpl import draw_memory_map

            return draw_memory_map
        raise AttributeError(f"module 'stridelab.render' has no attribute {name!r}")
