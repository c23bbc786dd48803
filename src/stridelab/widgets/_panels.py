"""What every stridelab map widget shares: the script, the drawings it shows, and a static
picture (SVG and PNG) beside the live view.

Python lays a drawing out (:func:`stridelab.render.scene.build_scene`) and paints it as SVG
(:func:`stridelab.render.svg.scene_svg`), the same SVG every other surface shows;
``static/memory_map.js`` only puts it on the page, lights the cells and slots a pointer rests on
(from the plain lists :func:`panel_data` sends beside it), and reports clicks back through the
``selected`` trait.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anywidget
import numpy as np
import traitlets

from .._validate import shown
from ..errors import LayoutError
from ..render.marks import carried, marks_text, shared_colours
from ..render.picture import picture_bundle
from ..render.scene import WRAP_WIDTH, Scene
from ..render.svg import KIND_NAMES, pictures_svg, scene_svg

__all__ = ["MapWidget", "RefusedType", "RefusedValue", "StaticFallback", "panel_data"]

_STATIC = Path(__file__).parent / "static"
_MIN_LAYOUT_WIDTH = 300  # narrower reports (a hidden or collapsed output) keep WRAP_WIDTH
_MAX_LAYOUT_WIDTH = 32768
#: Traits only Python sets: what the page sends for them is ignored.
_PYTHON_ONLY = frozenset({"panels", "marks", "stacked", "stale", "copy_lines"})


class RefusedValue(LayoutError, traitlets.TraitError):
    """A trait value refused: a LayoutError, and a TraitError so that traitlets puts the old value
    back (also where the value came in with others, as from the page)."""


class RefusedType(TypeError, traitlets.TraitError):
    """A trait value of the wrong type refused (see :class:`RefusedValue`)."""


_KINDS = [KIND_NAMES[k] for k in sorted(KIND_NAMES)]


def panel_data(
    scene: Scene, *, name: str = "", keys: Any = None, badges: list[str] | None = None, scale: float = 1.0
) -> dict:
    """A scene for the widget script: its SVG, painted here as for every other surface, and the
    plain lists the script needs to link what a pointer rests on.

    ``keys`` (per drawn cell an int, -1 for none, or a list of ints) links cells across the panels
    of one widget: pointing at a cell lights the cells that share a key with it in the other
    panels. The default key is the cell's row-major logical index, which links two descriptions
    of the same tensor; a list links a cell to several (an output to the inputs it sums).
    ``badges`` puts a small text in a cell's corner (e.g. the order in which it is copied).
    """
    keys = scene.cell_index if keys is None else keys
    return {
        "name": name,
        "svg": scene_svg(scene, badges, scale),
        "element_size": scene.desc.element_size,
        "kind_names": _KINDS,
        "cells": {
            "slot": scene.cell_slot.tolist(),
            "key": [[int(k) for k in key] if isinstance(key, list) else int(key) for key in keys],
            "coords": [",".join(map(str, c)) for c in scene.cell_coords.tolist()],
        },
        "slots": {
            "offset": scene.slot_offsets.tolist(),
            "kind": scene.slot_kinds.tolist(),
            "count": scene.slot_counts.tolist(),
            "label": list(scene.slot_labels),
        },
    }


class StaticFallback:
    """For widgets: alongside the live view, the static picture of what the widget shows (SVG
    and PNG, see :mod:`stridelab.render.picture`) and the deterministic repr as text.

    A live JupyterLab shows only the widget view; a saved notebook stored without it (as
    ``scripts/execute_notebooks.py`` stores it), an untrusted one and an HTML export show the
    picture. Subclasses say what to draw in :meth:`static_scenes`.
    """

    #: How many times its size the picture is shown (``scale=`` of the views, e.g. 2 on a projector).
    _scale: float = 1.0

    def static_scenes(self) -> tuple[list[Scene], list[str]]:
        """The scenes of the static picture and their captions; none where nothing is drawn."""
        raise NotImplementedError

    def static_text(self, picture: tuple[list[Scene], list[str]] | None = None) -> str:
        """The plain-text form: the repr, and for a widget in an error state, the error; else what
        the marks of its static ``picture`` (default: :meth:`static_picture`) pick out, if any."""
        error = getattr(self, "error", None)
        if error is not None:
            return f"{self!r}\nnot drawn: {error}"
        marks = marks_text(*(picture or self.static_picture()))
        return f"{self!r}\n{marks}" if marks else repr(self)

    def static_picture(self) -> tuple[list[Scene], list[str]]:
        """:meth:`static_scenes` with what the live view puts on its panels: the marks (outlined,
        dimmed) and badges the widget set, and the colours it shares across panels (see
        :meth:`MapWidget.live_marks`); the live view is the widget itself, or the map widget a
        composite one shows as its ``view``."""
        scenes, names = self.static_scenes()
        live = self if isinstance(self, MapWidget) else getattr(self, "view", None)
        if scenes and isinstance(live, MapWidget):
            scenes = live.live_marks(scenes, names)
        return scenes, names

    def to_svg(self) -> str:
        """The static picture as deterministic SVG ("" where nothing is drawn)."""
        scenes, names = self.static_picture()
        return pictures_svg(scenes, names, self._scale) if scenes else ""

    def _repr_mimebundle_(self, **kwargs: Any):
        bundle = super()._repr_mimebundle_(**kwargs)  # type: ignore[misc]  # a mixin: the widget class comes next
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        scenes, names = self.static_picture()
        text = self.static_text((scenes, names))
        if scenes:
            picture, picture_metadata = picture_bundle(scenes, names, text, self._scale)
            data.update(picture)
            metadata.update(picture_metadata)
        data["text/plain"] = text
        return data, metadata


class MapWidget(StaticFallback, anywidget.AnyWidget):
    """Base of the map widgets: one or more panels drawn side by side, linked on hover.

    Traits
    ------
    panels : list of dict
        The drawings, from :func:`panel_data`.
    marks : list of dict
        Per panel, ``{"cells": {mark: [cell positions]}, "slots": {mark: [slot positions]}}``;
        the script gives those elements ``data-mark="mark"`` (window, read, written, pending,
        outside), which the stylesheet outlines or dims.
    selected : dict
        ``{"panel": p, "slot": offset}`` of the slot last clicked (or set from Python), or ``{}``.
    stacked : bool
        Panels one above the other (else side by side, wrapping where the page is narrow).
    stale : bool
        The drawing no longer shows the current choice (e.g. the controls describe no tensor):
        the panels are dimmed until the next drawing.
    available_width : int
        The width of the output area in pixels, measured by the page (0 until it is shown); the
        owner of the widget redraws for it (see :attr:`layout_width`).
    copy_lines : list of str
        Lines shown under the drawings, each with a button that copies it (a layout's one-line
        notation, which :meth:`stridelab.TensorDesc.parse` reads back).
    """

    _esm = _STATIC / "memory_map.js"
    _css = _STATIC / "memory_map.css"
    panels = traitlets.List(traitlets.Dict()).tag(sync=True)
    marks = traitlets.List(traitlets.Dict()).tag(sync=True)
    selected = traitlets.Dict().tag(sync=True)
    stacked = traitlets.Bool(False).tag(sync=True)
    stale = traitlets.Bool(False).tag(sync=True)
    available_width = traitlets.Int(0).tag(sync=True)
    copy_lines = traitlets.List(traitlets.Unicode()).tag(sync=True)

    def set_state(self, sync_data: dict) -> None:
        """Take what the page sends: a selection and a width, each checked by its validator (a
        value refused there leaves the trait as it was); the drawings are Python's alone."""
        super().set_state({key: value for key, value in sync_data.items() if key not in _PYTHON_ONLY})

    @traitlets.validate("selected")
    def _check_selected(self, proposal: Any) -> dict:
        """``{}``, or ``{"panel": p, "slot": offset}`` naming a panel shown and a slot of its
        buffer (see :meth:`_check_slot`); anything else is refused, and the selection kept."""
        value = proposal["value"]
        if not value:
            return {}
        if set(value) != {"panel", "slot"}:
            raise RefusedValue(f"selected = {shown(value)}: a selection is {{}} or {{'panel': p, 'slot': offset}}")
        for key in ("panel", "slot"):
            number = value[key]
            if isinstance(number, bool) or not isinstance(number, (int, np.integer)):
                raise RefusedType(f"selected[{key!r}] must be an integer, not {type(number).__name__} {shown(number)}")
        panel, slot = int(value["panel"]), int(value["slot"])
        scenes = self.scenes
        if not 0 <= panel < len(scenes):
            raise RefusedValue(f"selected['panel'] = {panel} is out of range for {len(scenes)} panels")
        self._check_slot(scenes[panel], slot)
        return {"panel": panel, "slot": slot}

    def _check_slot(self, scene: Scene, slot: int) -> None:
        """Refuse a slot outside the panel's buffer."""
        count = scene.desc.slot_count
        if not 0 <= slot < count:
            raise RefusedValue(f"selected['slot'] = {slot} is out of range for a buffer of {count} slots")

    @traitlets.validate("available_width")
    def _check_width(self, proposal: Any) -> int:
        width = proposal["value"]
        if not 0 <= width <= _MAX_LAYOUT_WIDTH:
            raise RefusedValue(f"available_width = {shown(width)}: a width in pixels is 0 to {_MAX_LAYOUT_WIDTH}")
        return width

    @property
    def layout_width(self) -> int:
        """The width to lay drawings out for: the output area's, as the page measured and reported
        it, else the static drawings' WRAP_WIDTH; divided by ``scale``, so that an enlarged drawing
        still fits."""
        width = self.available_width if self.available_width >= _MIN_LAYOUT_WIDTH else WRAP_WIDTH
        return max(_MIN_LAYOUT_WIDTH, round(width / self._scale))

    def show(
        self,
        scenes: Sequence[Scene],
        names: Sequence[str] | None = None,
        keys: Sequence[Any] | None = None,
        badges: Sequence[list[str] | None] | None = None,
        *,
        keep_selection: bool = False,
    ) -> None:
        """Draw ``scenes`` as the panels (see :func:`panel_data` for ``keys`` and ``badges``),
        clearing marks and, unless ``keep_selection`` (the same drawing laid out anew), the
        selection."""
        names = list(names) if names is not None else [""] * len(scenes)
        given = list(keys) if keys is not None else None
        keys = given or [None] * len(scenes)
        badges = list(badges) if badges is not None else [None] * len(scenes)
        scenes = list(scenes) if given is None else shared_colours(scenes, given)
        self._scenes, self._names, self._keys, self._badges = scenes, names, given, badges
        if not keep_selection:
            self.selected = {}
        self.marks = []
        self.panels = [
            panel_data(s, name=n, keys=k, badges=b, scale=self._scale)
            for s, n, k, b in zip(scenes, names, keys, badges)
        ]

    def live_marks(self, scenes: Sequence[Scene], names: Sequence[str]) -> list[Scene]:
        """``scenes`` (a static picture of the panels ``names``, maybe through other windows) with
        the marks and badges the panels show, matched by logical index and slot offset, and, where
        :meth:`show` was given keys, one colour per element across them (an output element filled
        as the input element it is keyed to); unchanged where they are other panels."""
        if list(names) != self.panel_names or len(scenes) != len(self.scenes):
            return list(scenes)
        given = getattr(self, "_keys", None)
        out, keys = [], []
        for i, (scene, live) in enumerate(zip(scenes, self.scenes)):
            marks = self.marks[i] if i < len(self.marks) else None
            panel_keys = None if given is None else given[i]
            scene, scene_keys = carried(scene, live, marks, self._badges[i], panel_keys)
            out.append(scene)
            keys.append(scene_keys)
        return out if given is None else shared_colours(out, keys)

    @property
    def scenes(self) -> list[Scene]:
        """The scenes the panels draw."""
        return list(getattr(self, "_scenes", []))

    @property
    def panel_names(self) -> list[str]:
        """The panels' captions."""
        return list(getattr(self, "_names", []))

    def static_scenes(self) -> tuple[list[Scene], list[str]]:
        return self.scenes, self.panel_names

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
