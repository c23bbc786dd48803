"""What Jupyter stores and shows for a drawing: static pictures and the text repr, never HTML.

Every surface that shows a saved notebook then has a picture it renders: JupyterLab shows the SVG
in a trusted notebook and the PNG in an untrusted one (where it renders neither SVG nor inline
``<svg>`` in HTML), and ``jupyter nbconvert --to html`` inlines the SVG. The SVG is deterministic,
so nbval compares it; the PNG is painted from the same scenes by Pillow (:mod:`.png`), which the
``plot`` extra brings, and left out where Pillow is not installed.

internal: used by the drawings (``stridelab.render_svg``, ``stridelab.draw_memory_map``) and the widgets.
"""

from __future__ import annotations

import base64
from typing import Any

from .options import session_scale
from .scene import Scene, build_scene, stack_scenes
from .svg import pictures_svg

__all__: list[str] = []

Bundle = tuple[dict[str, str], dict[str, Any]]

#: The stored bytes of a picture's SVG and base64 PNG beyond which the PNG is painted at one pixel
#: per drawing pixel instead of two (about half the bytes): a notebook output then stays under
#: 120 KB whatever is drawn. Only unusual drawings pass it at the default budget (e.g. offsets of
#: 12 digits on every slot), none of the tutorials'.
PICTURE_BYTES = 110_000


def picture_bundle(scenes: list[Scene], names: list[str], text: str, scale: float | None = None) -> Bundle:
    """The mime bundle and its metadata for ``scenes`` drawn as one picture, with ``text`` as the
    plain-text form, shown ``scale`` times its size (default: the session's, see
    :func:`stridelab.settings`).

    >>> from stridelab import TensorDesc
    >>> from stridelab.render.scene import build_scene
    >>> data, metadata = picture_bundle([build_scene(TensorDesc("UINT8", (2, 3)))], [""], "a 2x3 map")
    >>> sorted(data)  # with Pillow installed
    ['image/png', 'image/svg+xml', 'text/plain']
    >>> metadata["image/png"]  # shown at the drawing's size; the PNG has twice as many pixels
    {'width': 594, 'height': 205}
    """
    scale = session_scale(scale)
    data = {"text/plain": text, "image/svg+xml": pictures_svg(scenes, names, scale)}
    try:
        from .png import pictures_png
    except ImportError as error:
        if error.name != "PIL":
            raise
        return data, {}
    if len(scenes) == 1 and not names[0]:
        width, height = scenes[0].width, scenes[0].height
    else:
        width, height, _ = stack_scenes(scenes)
    room = (PICTURE_BYTES - len(data["image/svg+xml"])) * 3 // 4  # base64 stores 3 bytes as 4
    data["image/png"] = base64.b64encode(pictures_png(scenes, names, max_bytes=room)).decode("ascii")
    return data, {"image/png": {"width": round(width * scale), "height": round(height * scale)}}


def display_bundle(obj: Any) -> Bundle:
    """The picture bundle of a ``TensorDesc``, ``MemoryMap`` or ``StridedTensor``: its memory map,
    shown at the session's scale."""
    return picture_bundle([build_scene(obj)], [""], repr(obj))
