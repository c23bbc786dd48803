"""The checks of ``check_layouts``' own arguments: each wrong value named with the rule it breaks,
before any array is built.

internal: :mod:`stridelab._sanitizer._run` uses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validate import shown
from ..errors import LayoutError
from ._buffers import element_slots
from ._catalogue import ProbeLayout

__all__: list[str] = []


def check_layouts_option(layouts: Any) -> None:
    if layouts is None:
        return
    if isinstance(layouts, (str, bytes, ProbeLayout)) or not isinstance(layouts, Sequence):
        raise TypeError(f"layouts must be a list of layout kinds (str) or ProbeLayouts, or None, not {shown(layouts)}")
    if not layouts:
        raise LayoutError("layouts = [] names no layout; give kinds such as ['padded', 'negative'], or None for all")
    bad = next((k for k in layouts if not isinstance(k, (str, ProbeLayout))), None)
    if bad is not None:
        raise TypeError(f"layouts must hold layout kinds (str) or ProbeLayout, not {shown(bad)}")


def check_given(layout: ProbeLayout) -> None:
    """LayoutError unless the user's ``layout`` gives each element a slot of its own."""
    if len(layout.strides) != len(layout.sizes):
        raise LayoutError(f"layouts has {layout}, which needs one stride per dimension")
    low = sum((n - 1) * s for n, s in zip(layout.sizes, layout.strides) if s < 0)
    slots = element_slots(layout, 0)
    if layout.offset + low < 0 or np.unique(slots).size != slots.size:
        raise LayoutError(
            f"layouts has {layout}: its offset must leave room for its negative strides, and no two elements may "
            "share a slot (broadcast layouts come from the catalogue, with a reference of their own)"
        )


def check_options(max_layouts: Any, seed: Any, rtol: Any, atol: Any, strict: Any, isolate: Any) -> None:
    for name, value in (("strict", strict), ("isolate", isolate)):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, not {shown(value)}")
    for name, value in (("max_layouts", max_layouts), ("seed", seed)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name} must be an int, not {shown(value)}")
    if max_layouts < 1:
        raise LayoutError(f"max_layouts = {max_layouts} must be at least 1")
    if seed < 0:
        raise LayoutError(f"seed = {seed} must be at least 0")
    for name, value in (("rtol", rtol), ("atol", atol)):
        number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
        if value is not None and not number:
            raise TypeError(f"{name} must be a number or None, not {shown(value)}")
        if value is not None and not value >= 0:
            raise LayoutError(f"{name} = {shown(value)} must be at least 0")
