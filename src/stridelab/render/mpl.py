"""Memory maps on a matplotlib axes of your own, for figures, PDF export and slides: the picture
of the SVG.

matplotlib is imported here only, and this module only when :func:`draw_memory_map` is first
used; nothing here calls ``plt.show()``.

internal: ``draw_memory_map`` is public as ``stridelab.draw_memory_map``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._optional import optional_imports
from .._validate import known_keywords
from ..memmap import DEFAULT_LIMIT, SlotKind

with optional_imports("plot", "sl.draw_memory_map"):
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Rectangle

from .options import DEFAULT_MAX_CELLS, DrawOptions
from .palette import (
    ALIGNMENT_FILL,
    BACKGROUND,
    CELL_H,
    CELL_W,
    INK,
    PADDING_FILL,
    STROKE,
    TEXT_ROLES,
    label_font_size,
)
from .scene import Scene, scene_for

__all__: list[str] = []

_ALIGN = {"start": "left", "middle": "center", "end": "right"}


def figure_size(scene: Scene, dpi: float = 100.0) -> tuple[float, float]:
    """Figure size in inches at which one scene pixel is one figure pixel at ``dpi``."""
    return scene.width / dpi, scene.height / dpi


@known_keywords
def draw_memory_map(
    ax: Any,
    obj: Any,
    *,
    max_cells: int = DEFAULT_MAX_CELLS,
    columns: int = 16,
    start: tuple[int, ...] | None = None,
    window: Sequence[tuple[int, int]] | None = None,
    colour_by: int | None = None,
    limit: int = DEFAULT_LIMIT,
) -> list[Any]:
    """Draw the memory map of ``obj`` on ``ax``: the picture :func:`~stridelab.render_svg` draws.

    The axes get equal aspect, no frame or ticks, and limits that hold the picture; font sizes
    are fixed from the axes' size when drawn (size the figure first, e.g. with
    :func:`figure_size`).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    obj : TensorDesc, MemoryMap or StridedTensor
    max_cells, columns, start, window, colour_by, limit
        As for :func:`~stridelab.render_svg`.

    Returns
    -------
    list of matplotlib.artist.Artist
        The background, one collection per kind of box, and the texts.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import stridelab as sl
    >>> fig, ax = plt.subplots(figsize=(7, 2))
    >>> artists = sl.draw_memory_map(ax, sl.TensorDesc("FLOAT32", (2, 3), (5, 1)))
    >>> plt.close(fig)
    """
    if not hasattr(ax, "add_patch"):
        raise TypeError(f"ax must be a matplotlib Axes (e.g. from plt.subplots()), not {type(ax).__name__}")
    scene = scene_for(obj, DrawOptions(max_cells, columns, start, window, colour_by, limit))
    return draw_scene(ax, scene)


def draw_scene(ax: Any, scene: Scene) -> list[Any]:
    """Paint a laid-out :class:`~stridelab.render.scene.Scene` on ``ax`` (see :func:`draw_memory_map`)."""
    ax.set_xlim(0, scene.width)
    ax.set_ylim(scene.height, 0)
    ax.set_aspect("equal", adjustable="box")
    ax.set_axis_off()
    scale = _points_per_pixel(ax, scene)
    background = Rectangle((0, 0), scene.width, scene.height, facecolor=BACKGROUND, edgecolor="none", zorder=0)
    ax.add_patch(background)
    artists: list[Any] = [background]
    artists += _boxes(ax, scene)
    artists += _labels(ax, scene, scale)
    artists += [
        ax.text(
            t.x,
            t.y,
            t.text,
            fontsize=TEXT_ROLES[t.role].size * scale,
            fontweight=TEXT_ROLES[t.role].weight,
            color=TEXT_ROLES[t.role].colour,
            ha=_ALIGN[TEXT_ROLES[t.role].anchor],
            va="baseline",
            zorder=3,
        )
        for t in (*scene.texts, *scene.slot_texts())
    ]
    return artists


def _points_per_pixel(ax: Any, scene: Scene) -> float:
    fig = ax.figure
    box = ax.get_position()
    width_pt = box.width * fig.get_figwidth() * 72
    height_pt = box.height * fig.get_figheight() * 72
    return min(width_pt / scene.width, height_pt / scene.height)


def _boxes(ax: Any, scene: Scene) -> list[Any]:
    """One collection per look: plain fills, padding (hatched), alignment (dashed), gaps."""
    groups: dict[str, list[tuple[Rectangle, str]]] = {"plain": [], "padding": [], "alignment": [], "gap": []}
    for slot, (x, y) in zip(scene.cell_slot.tolist(), zip(scene.cell_x.tolist(), scene.cell_y.tolist())):
        _add(groups, x, y, scene.cell_w, int(scene.slot_kinds[slot]), int(scene.slot_colours[slot]), scene.fills)
    for x, y, kind, colour in zip(
        scene.slot_x.tolist(), scene.slot_y.tolist(), scene.slot_kinds.tolist(), scene.slot_colours.tolist()
    ):
        _add(groups, x, y, scene.cell_w, kind, colour, scene.fills)
    for x, y, _ in scene.gaps:
        groups["gap"].append((Rectangle((x, y), CELL_W // 2, CELL_H), "none"))
    for x, y, name in scene.legend:
        kind = {"padding": SlotKind.PADDING, "alignment": SlotKind.ALIGNMENT}.get(name)
        if kind is None:
            groups["gap" if name == "gap" else "plain"].append((Rectangle((x, y), 16, 14), BACKGROUND))
        else:
            _add(groups, x, y, 16, kind, -1, scene.fills, height=14)
    style: dict[str, dict[str, Any]] = {
        "plain": {},
        "padding": {"hatch": "//"},
        "alignment": {"linestyle": (0, (3, 2))},
        "gap": {"linestyle": (0, (2, 2))},
    }
    artists = []
    for name, items in groups.items():
        if not items:
            continue
        collection = PatchCollection(
            [r for r, _ in items],
            facecolors=[f for _, f in items],
            edgecolors=STROKE,
            linewidths=0.8,
            zorder=1,
            match_original=False,
            **style[name],
        )
        ax.add_collection(collection)
        artists.append(collection)
    return artists


def _add(
    groups, x: int, y: int, width: int, kind: int, colour: int, fills: tuple[str, ...], height: int = CELL_H
) -> None:
    box = Rectangle((x, y), width, height)
    if kind == SlotKind.PADDING:
        groups["padding"].append((box, PADDING_FILL))
    elif kind == SlotKind.ALIGNMENT:
        groups["alignment"].append((box, ALIGNMENT_FILL))
    else:
        groups["plain"].append((box, fills[colour % len(fills)]))


def _labels(ax: Any, scene: Scene, scale: float) -> list[Any]:
    """The labels inside cells and slots, shared-slot badges, gap and legend marks."""
    w = scene.cell_w
    items = [(x, y, w, label) for x, y, label in zip(scene.cell_x.tolist(), scene.cell_y.tolist(), scene.cell_labels())]
    items += [(x, y, w, label) for x, y, label in zip(scene.slot_x.tolist(), scene.slot_y.tolist(), scene.slot_labels)]
    items += [(x, y, CELL_W // 2, "⋯") for x, y, _ in scene.gaps]
    artists = [
        ax.text(
            x + width / 2,
            y + 16,
            label,
            fontsize=label_font_size(label) * scale,
            color=INK,
            ha="center",
            va="baseline",
            zorder=2,
        )
        for x, y, width, label in items
    ]
    for x, y, kind, count in zip(
        scene.slot_x.tolist(), scene.slot_y.tolist(), scene.slot_kinds.tolist(), scene.slot_counts.tolist()
    ):
        if kind == SlotKind.SHARED:
            artists.append(
                ax.text(
                    x + scene.cell_w - 2,
                    y + 8,
                    f"×{count}",
                    fontsize=8 * scale,
                    color=INK,
                    ha="right",
                    va="baseline",
                    zorder=2,
                )
            )
    marks = {"padding": "x", "alignment": ".", "shared": "×n", "gap": "⋯"}
    artists += [
        ax.text(x + 8, y + 11, marks[name], fontsize=9 * scale, color=INK, ha="center", va="baseline", zorder=2)
        for x, y, name in scene.legend
    ]
    return artists
