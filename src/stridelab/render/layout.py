"""Where each piece of a memory-map drawing goes: the logical view's tiles, the buffer strip and
the legend, as pixel positions and :class:`Text` items (origin top left, y down).

:func:`~stridelab.render.scene.build_scene` decides what is drawn (the window, the slots, their
labels and colours) and calls these to place it.

internal: used by the drawings (``stridelab.render_svg``, ``stridelab.draw_memory_map``) and the widgets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..desc import TensorDesc
from ..memmap import SlotKind
from .palette import CELL_H, CELL_W, TEXT_ROLES, text_width
from .summary import DIMENSION_LETTERS
from .window import Window, flat_indices, strip_items

__all__: list[str] = []

MARGIN = 10
_TILE_GAP = 14
_ROW_HEADER = 26
_COL_HEADER = 12
_TILE_CAPTION = 16
_STRIP_ROW = 10 + CELL_H + 10 + 8  # element offset above, slot, byte offset below, gap
_GAP_W = CELL_W // 2
#: More tiles than this in one column (C at one index) are laid across instead, wrapped.
MAX_TILES_DOWN = 8
#: Baselines of a slot's element offset (above it) and byte offset (below it), from its top.
OFFSET_DY = -3
BYTE_DY = CELL_H + 9


@dataclass(frozen=True)
class Text:
    """A piece of text at (``x``, ``y``) (the baseline), set in :data:`TEXT_ROLES` ``role``."""

    x: int
    y: int
    text: str
    role: str


def text_right(t: Text) -> int:
    """Where a text ends, estimated (no font metrics: deterministic everywhere)."""
    role = TEXT_ROLES[t.role]
    width = text_width(t.text, role.size)
    return t.x if role.anchor == "end" else t.x + width // 2 if role.anchor == "middle" else t.x + width


def logical_view(
    desc: TensorDesc,
    win: Window,
    texts: list[Text],
    x0: int,
    y0: int,
    columns: int,
    cell_w: int,
    width: int,
    letters: bool = True,
):
    """Cell positions of the logical view (tiles of 2-D grids) and the view's right and bottom.
    ``letters``: name the dimensions by DirectML's letters (a description's sizes are N, C, H, W),
    else by index (an array's own axes)."""
    rank = desc.dimension_count
    tiles_r = win.counts[-4] if rank >= 4 else win.counts[0] if rank == 3 else 1
    tiles_c = win.counts[-3] if rank >= 4 else 1
    # a long column of tiles (C one index) is laid across instead, wrapped like C's tiles
    across = tiles_c == 1 and tiles_r > MAX_TILES_DOWN
    texts.append(Text(x0, y0 + 12, "logical view", "caption"))
    texts.append(Text(x0, y0 + 26, _axes(desc, columns, across, letters), "axes"))
    top = y0 + 34
    coords = win.coords()
    rows, cols, grid_r, grid_c, tile_r, tile_c, row_names, col_names = _grid(win, coords, rank, columns)
    caption_h = _TILE_CAPTION if rank >= 3 else 0
    tile_w = _ROW_HEADER + cols * cell_w + _TILE_GAP
    tile_h = caption_h + _COL_HEADER + rows * CELL_H + _TILE_GAP
    down, along = (1, tiles_r) if across else (tiles_r, tiles_c)
    band_r, band_c = (np.zeros_like(tile_r), tile_r) if across else (tile_r, tile_c)
    # tiles across (C) wrap onto further rows to keep the view within ``width``
    per_row = max(1, min(along, (width - 2 * MARGIN + _TILE_GAP) // tile_w))
    bands = -(-along // per_row)
    for tr in range(tiles_r):
        for tc in range(tiles_c):
            lr, lc = (0, tr) if across else (tr, tc)
            tx, ty = x0 + (lc % per_row) * tile_w, top + (lr * bands + lc // per_row) * tile_h
            if rank >= 3:
                texts.append(Text(tx + _ROW_HEADER, ty + 11, _tile_caption(win, tr, tc), "tile-caption"))
            gx, gy = tx + _ROW_HEADER, ty + caption_h + _COL_HEADER
            texts.extend(Text(gx + c * cell_w + cell_w // 2, gy - 3, name, "index") for c, name in enumerate(col_names))
            texts.extend(Text(gx - 4, gy + r * CELL_H + 16, name, "index-row") for r, name in enumerate(row_names))
    cells = {
        "cell_x": (x0 + (band_c % per_row) * tile_w + _ROW_HEADER + grid_c * cell_w).astype(np.int64),
        "cell_y": (
            top + (band_r * bands + band_c // per_row) * tile_h + caption_h + _COL_HEADER + grid_r * CELL_H
        ).astype(np.int64),
        "cell_coords": coords,
        "cell_index": flat_indices(coords, desc.sizes),
    }
    return cells, x0 + per_row * tile_w - _TILE_GAP, top + down * bands * tile_h - _TILE_GAP


def _grid(win: Window, coords: np.ndarray, rank: int, columns: int) -> tuple:
    """Each cell's row and column in its tile and its tile's row and column, the rows and columns of
    a tile, and their index names: a 1-D window wraps at ``columns``, higher ranks tile 2-D grids."""
    if rank == 1:
        flat = coords[:, 0] - win.starts[0]
        rows, cols = -(-win.counts[0] // columns), min(columns, win.counts[0])
        grid_r, grid_c = flat // columns, flat % columns
        tile_r = tile_c = np.zeros_like(flat)
        row_names = [str(win.starts[0] + r * columns) for r in range(rows)]
        col_names = [f"+{c}" for c in range(cols)]
    else:
        rows, cols = win.counts[-2], win.counts[-1]
        grid_r, grid_c = coords[:, -2] - win.starts[-2], coords[:, -1] - win.starts[-1]
        tile_r = tile_c = np.zeros_like(grid_r)
        if rank == 3:
            tile_r = coords[:, 0] - win.starts[0]
        elif rank >= 4:
            tile_r, tile_c = coords[:, -4] - win.starts[-4], coords[:, -3] - win.starts[-3]
        row_names = [str(win.starts[-2] + r) for r in range(rows)]
        col_names = [str(win.starts[-1] + c) for c in range(cols)]
    return rows, cols, grid_r, grid_c, tile_r, tile_c, row_names, col_names


def _axes(desc: TensorDesc, columns: int, across: bool, by_letter: bool) -> str:
    """Which dimension runs along the rows, the columns and the tiles of the logical view."""
    rank = desc.dimension_count
    if rank == 1:
        return f"index, {columns} to a row"
    letters = DIMENSION_LETTERS.get(rank) if by_letter else None
    name = (lambda i: letters[i]) if letters else (lambda i: f"dim {i}")
    axes = f"rows {name(rank - 2)}, columns {name(rank - 1)}"
    if across:
        axes += f"; tiles {name(max(0, rank - 4))} across, wrapped"
    elif rank >= 4:
        axes += f"; tiles {name(rank - 4)} down, {name(rank - 3)} across"
    elif rank == 3:
        axes += f"; tiles {name(0)} down"
    return axes


def _tile_caption(win: Window, tr: int, tc: int) -> str:
    rank = len(win.starts)
    lead = list(win.starts[: max(0, rank - 4)])
    if rank >= 4:
        lead += [win.starts[-4] + tr, win.starts[-3] + tc]
    else:
        lead += [win.starts[0] + tr]
    return "(" + ", ".join(str(i) for i in lead) + ", :, :)"


def buffer_strip(
    desc: TensorDesc, slots: np.ndarray, texts: list[Text], x0: int, y0: int, columns: int, cell_w: int, before: int = 0
):
    """Slot positions of the buffer strip, wrapped into rows of ``columns`` slots, with markers
    where slots are left out (the offsets above and below each slot: :meth:`Scene.slot_texts`);
    the strip begins ``before`` slots before the tensor (``slots`` counting from its element 0)."""
    size = desc.element_size
    texts.append(Text(x0, y0 + 12, "physical buffer", "caption"))
    texts.append(Text(x0, y0 + 26, f"slots in offset order, {size} byte{'s' if size > 1 else ''} each", "axes"))
    top = y0 + 34 + _COL_HEADER
    width = columns * cell_w
    xs, ys, gaps = strip_items(slots, desc.slot_count, x0, top, width, cell_w, _GAP_W, _STRIP_ROW, first=-before)
    bottom = (int(ys.max()) if ys.size else top) + CELL_H + 10
    return {"slot_x": xs, "slot_y": ys}, gaps, bottom


#: The label of a slot before a tensor placed at an offset into its buffer (no element of it).
BEFORE_LABEL = "-"

_LEGEND = {
    "before": f"{BEFORE_LABEL} before the tensor (its offset)",
    "padding": "x padding",
    "alignment": ". alignment (rounding up to 4 bytes)",
    "shared": "×n shared by n elements",
    "gap": "⋯ slots not drawn",
}


def legend(parts: dict[str, np.ndarray], gaps: tuple, texts: list[Text], y: int):
    """Legend entries for the kinds of slot the drawing shows, and how to read the strip."""
    kinds = set(parts["slot_kinds"].tolist())
    present = [
        name
        for name, flag in (
            ("before", SlotKind.BEFORE in kinds),
            ("padding", SlotKind.PADDING in kinds),
            ("alignment", SlotKind.ALIGNMENT in kinds),
            ("shared", SlotKind.SHARED in kinds),
            ("gap", bool(gaps)),
        )
        if flag
    ]
    texts.append(Text(MARGIN, y + 4, "buffer strip: element offset above each slot, byte offset below", "legend"))
    entries = []
    x = MARGIN
    for name in present:
        y_box = y + 12
        entries.append((x, y_box, name))
        texts.append(Text(x + 20, y_box + 11, _LEGEND[name], "legend"))
        x += 26 + text_width(_LEGEND[name], TEXT_ROLES["legend"].size)
    return entries
