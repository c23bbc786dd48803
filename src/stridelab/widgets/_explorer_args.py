"""What ``explore()`` accepts: its arguments checked, each against the control that shows it.

internal: used by :mod:`.explorer`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .._validate import shown
from ..desc import TensorDesc
from ..errors import LayoutError
from ..render.summary import DIMENSION_LETTERS, layout_names

__all__ = [
    "CUSTOM",
    "LETTERS",
    "checked_broadcast",
    "checked_layout",
    "checked_padding",
    "checked_sizes",
    "layout_choices",
    "parse_ints",
]

#: The layout choice under which strides are typed in.
CUSTOM = "custom strides"
LETTERS = {1: "W", **DIMENSION_LETTERS}


def layout_choices(rank: int) -> list[str]:
    """Memory orders the explorer offers for ``rank`` dimensions, most common first."""
    return ["W"] if rank == 1 else list(layout_names(rank))


def parse_ints(text: str, field: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.replace("(", "").replace(")", "").split(",") if part.strip())
    except ValueError:
        raise LayoutError(f"{field} {shown(text)} must be integers separated by commas, e.g. '15, 1, 5, 1'") from None


def checked_sizes(sizes: Sequence[int]) -> tuple[int, ...]:
    """Sizes the size sliders can take: 1 to 5 dimensions (the ranks with dimension letters),
    each a positive integer (checked as a TensorDesc checks them)."""
    sizes = tuple(sizes)
    if not 1 <= len(sizes) <= 5:
        raise LayoutError(
            f"sizes {list(sizes)} has {len(sizes)} dimensions; explore() names layouts for 1 to 5 "
            "(N, C, D, H, W): use MemoryMapView(TensorDesc(...)) for more"
        )
    return TensorDesc("UINT8", sizes).sizes


def checked_layout(layout: str, rank: int) -> str:
    """A layout the layout menu offers for ``rank`` dimensions (any case), or :data:`CUSTOM`."""
    if not isinstance(layout, str):
        raise TypeError(f"layout must be a string such as 'NHWC' or {CUSTOM!r}, not {type(layout).__name__}")
    options = layout_choices(rank)
    if layout == CUSTOM or layout.strip().upper() in options:
        return layout if layout == CUSTOM else layout.strip().upper()
    letters = ", ".join(LETTERS[rank])
    raise LayoutError(
        f"layout {layout!r} is not a memory order of the {rank} dimension letters {letters} "
        f"(e.g. {options[0]!r}, outermost first), nor {CUSTOM!r}"
    )


def checked_broadcast(broadcast: Sequence[bool], rank: int) -> tuple[bool, ...]:
    """One flag per dimension, each a bool."""
    flags = tuple(broadcast)
    if len(flags) != rank:
        raise LayoutError(f"broadcast {list(flags)} has {len(flags)} entries but there are {rank} dimensions")
    for i, flag in enumerate(flags):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"broadcast[{i}] must be a bool, not {type(flag).__name__} ({flag!r})")
    return tuple(bool(f) for f in flags)


def checked_padding(padding: Mapping[str | int, int], rank: int) -> dict[int, int]:
    """Padding per dimension index, from keys that are dimension letters (any case) or indices
    and values that are counts of elements, 0 or more."""
    letters = LETTERS[rank]
    result = {}
    for key, extra in padding.items():
        if isinstance(key, str):
            if len(key) != 1 or key.upper() not in letters:
                raise LayoutError(f"padding key {key!r} is not a dimension letter of {rank} dimensions ({letters})")
            index = letters.index(key.upper())
        elif isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            if not 0 <= key < rank:
                raise LayoutError(f"padding key {key} is not a dimension index in 0..{rank - 1}")
            index = int(key)
        else:
            raise TypeError(
                f"padding key {key!r} must be a dimension letter ({letters}) or index, not {type(key).__name__}"
            )
        if isinstance(extra, bool) or not isinstance(extra, (int, np.integer)):
            raise TypeError(f"padding[{key!r}] must be an integer count of elements, not {type(extra).__name__}")
        if extra < 0:
            raise LayoutError(f"padding[{key!r}] = {extra}: padding is a count of elements and must be 0 or more")
        result[index] = int(extra)
    return result
