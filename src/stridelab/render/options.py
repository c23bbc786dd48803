"""The drawing options every memory-map drawing takes, carried as one record, and the scale every
picture of a session is shown at (the classroom setting, :func:`settings`).

:func:`~stridelab.render_svg`, :func:`~stridelab.draw_memory_map`,
:func:`~stridelab.render.scene.build_scene` and :class:`~stridelab.MemoryMapView` spell out the
same keyword arguments (``max_cells``, ``columns``, ``start``, ``window``, ``colour_by``,
``limit``) for ``help()``; inside, they travel as one :class:`DrawOptions`. A drawing may also
take its labels from another tensor's elements (:class:`LabelSource`).

A teacher on a projector (or a reader at 200% browser zoom) sets the scale once, at the top of a
notebook, with ``stridelab.settings(scale=2)``, or for every session with the environment variable
``STRIDELAB_SCALE=2`` (read once, when the first picture is shown). An explicit ``scale=`` given to
a widget still wins.

internal: the public names are the keyword arguments, and ``settings`` as ``stridelab.settings``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validate import layout_error, shown, wrong_type
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


#: The environment variable that sets the scale for every session.
SCALE_VARIABLE = "STRIDELAB_SCALE"
_SCALE_RULE = "how many times its size every picture is shown must be more than 0 and at most 8 (e.g. 2)"

# The scale set by settings(); None where none is set, and STRIDELAB_SCALE's (read once) holds.
_scale: float | None = None


@dataclass(frozen=True)
class Settings:
    """The settings in force, as :func:`settings` returns them; leaving a ``with`` block puts back
    those in force before the call."""

    scale: float
    _previous: float | None = field(default=None, repr=False, compare=False)

    def __enter__(self) -> Settings:
        return self

    def __exit__(self, *exc: object) -> None:
        global _scale
        _scale = self._previous


def settings(*, scale: Any = None) -> Settings:
    """Set how many times its size every picture and widget of this session is shown.

    Called with ``scale``, sets it for the rest of the session, or, in a ``with`` statement, until
    the block ends; called without, changes nothing. Either way returns the settings now in force.
    One call serves a whole class: every memory map a ``TensorDesc``, ``MemoryMap`` or
    ``StridedTensor`` displays, every DxDispatch model picture, and every widget made afterwards
    (``MemoryMapView``, ``explore``, ``compare``, the explorers) whose ``scale=`` is not given. A
    widget keeps the scale it was made with. Without a call, the scale is the environment variable
    ``STRIDELAB_SCALE`` (read once, when first needed), else 1.

    Parameters
    ----------
    scale : float, optional
        More than 0 and at most 8: e.g. 2 on a projector or for readers at 200% browser zoom.
        Anything else is refused (:class:`~stridelab.LayoutError` for a value out of range,
        ``TypeError`` for a value that is no number) and the settings are kept.

    Examples
    --------
    >>> import stridelab as sl
    >>> desc = sl.TensorDesc("UINT8", (2, 3))
    >>> with sl.settings(scale=2):
    ...     data, metadata = desc._repr_mimebundle_()   # what Jupyter shows for `desc`
    >>> metadata["image/png"]  # twice the drawing's 594 x 205 pixels (with Pillow installed)
    {'width': 1188, 'height': 410}
    >>> sl.settings().scale    # back to the session's own
    1.0
    """
    global _scale
    previous = _scale
    if scale is not None:
        from .svg import check_scale

        scale = check_scale(scale)
        with contextlib.suppress(LayoutError):  # a bad variable is refused where it is used
            _environment_scale()  # read once, now: a with block puts back the session's own
        _scale = scale
    return Settings(_current(), previous)


def _current() -> float:
    """The scale in force: set by :func:`settings`, else ``STRIDELAB_SCALE``'s."""
    return _environment_scale() if _scale is None else _scale


@functools.lru_cache(maxsize=1)
def _environment_scale() -> float:
    """``STRIDELAB_SCALE``'s scale, read once (a value refused is read again, and refused again)."""
    return scale_from_environment(os.environ.get(SCALE_VARIABLE))


def scale_from_environment(text: str | None) -> float:
    """The scale ``STRIDELAB_SCALE`` gives (``text``; unset or blank: 1), or a LayoutError naming
    the variable, its value and the rule.

    >>> scale_from_environment(" 1.5 ")
    1.5
    >>> scale_from_environment("big")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    stridelab.errors.LayoutError: STRIDELAB_SCALE = 'big': how many times its size every picture is shown must be ...
    """
    if text is None or not text.strip():
        return 1.0
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= 8:
        raise layout_error(SCALE_VARIABLE, text, _SCALE_RULE)
    return value


def session_scale(scale: Any = None) -> float:
    """``scale`` checked (a float in (0, 8]), or the session's scale where it is None.

    >>> session_scale(3)
    3.0
    """
    if scale is None:
        return _current()
    from .svg import check_scale

    return check_scale(scale)
