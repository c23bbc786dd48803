"""The memory map as text for a terminal, from the same :class:`~stridelab.render.scene.Scene` the
pictures paint: the summary, the logical view (2-D tiles of labels) and the buffer as the strides
page's ``Offset:|...`` / ``Value:|...`` table, wrapped and windowed like the drawing.

internal: used by the drawings (``stridelab.render_svg``, ``stridelab.draw_memory_map``) and the widgets.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..memmap import tiles_text
from .layout import BEFORE_LABEL
from .scene import Scene, build_scene

__all__: list[str] = []


#: A terminal shows fewer cells than a picture.
TEXT_MAX_CELLS = 32


def render_text(obj: Any, *, max_cells: int = TEXT_MAX_CELLS, columns: int = 16) -> str:
    """The memory map of a ``TensorDesc``, ``MemoryMap``, ``StridedTensor`` or ``PlacedDesc`` as
    text: at most ``max_cells`` cells and slots (larger maps are windowed, and the text says so),
    the buffer table ``columns`` slots wide, its offsets the buffer's.

    >>> from stridelab import TensorDesc
    >>> print(render_text(TensorDesc("FLOAT32", (2, 3), (5, 1))))
    FLOAT32 · sizes [2, 3] · strides [5, 1] · layout HW
    padded · 6 logical elements · 8 physical slots (2 padding) · buffer 32 bytes
    <BLANKLINE>
    logical view:
    A B C
    D E F
    <BLANKLINE>
    buffer (element offsets above, values below; x = padding):
    Offset:|0|1|2|3|4|5|6|7
    ------:|-|-|-|-|-|-|-|-
     Value:|A|B|C|x|x|D|E|F
    >>> text = render_text(TensorDesc("UINT8", (3,)).placed(2))   # 2 slots before the tensor
    >>> print(text[text.index("buffer ("):])
    buffer (element offsets above, values below; x = padding, - = before the tensor):
    Offset:|0|1|2|3|4|5
    ------:|-|-|-|-|-|-
     Value:|-|-|A|B|C|.
    """
    return scene_text(build_scene(obj, max_cells=max_cells, columns=columns), columns)


def scene_text(scene: Scene, columns: int = 16) -> str:
    lines = [t.text for t in scene.texts if t.role in ("summary", "detail", "note")]
    lines += ["", "logical view:", _logical(scene), ""]
    before = f", {BEFORE_LABEL} = before the tensor" if scene.offset else ""
    lines.append(f"buffer (element offsets above, values below; x = padding{before}):")
    lines.append(_buffer(scene, columns))
    return "\n".join(lines)


def _logical(scene: Scene) -> str:
    labels = np.array(scene.cell_labels(), dtype=object).reshape(scene.window.counts)
    return tiles_text(labels, scene.window.starts)


def _buffer(scene: Scene, columns: int) -> str:
    """The table over the drawn slots, ``…`` standing for each run left out, ``columns`` per block."""
    items: list[tuple[str, str]] = []
    previous = -scene.offset - 1
    for offset, label in zip(scene.slot_offsets.tolist(), scene.slot_labels):
        if offset > previous + 1:
            items.append(("…", f"+{offset - previous - 1}"))
        items.append((str(scene.offset + offset), label))
        previous = offset
    total = scene.desc.slot_count
    if previous < total - 1:
        items.append(("…", f"+{total - 1 - previous}"))
    blocks = []
    for first in range(0, len(items), columns):
        block = items[first : first + columns]
        widths = [max(len(o), len(v)) for o, v in block]
        blocks.append(
            "\n".join(
                (
                    "Offset:|" + "|".join(o.rjust(w) for (o, _), w in zip(block, widths)),
                    "------:|" + "|".join("-" * w for w in widths),
                    " Value:|" + "|".join(v.rjust(w) for (_, v), w in zip(block, widths)),
                )
            )
        )
    return "\n\n".join(blocks)
