"""The words of a memory-map drawing: the layout's name and the summary lines.

>>> from stridelab import TensorDesc
>>> layout_name(TensorDesc("FLOAT32", (1, 1, 3, 5), (15, 1, 5, 1)))
'NHWC'
>>> layout_name(TensorDesc("FLOAT32", (2, 3), (5, 1)))    # padded rows are still HW
'HW'
>>> layout_name(TensorDesc("FLOAT32", (1, 1, 4, 4), (1, 1, 4, 1)))   # size-1 strides are free
'NCHW'
>>> layout_name(TensorDesc("UINT8", (65536, 65536, 4), (262144, 4, 1)))  # WDH's would pass 32 bits
'DHW'

internal: used by the drawings (``stridelab.render_svg``, ``stridelab.draw_memory_map``) and the widgets.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from itertools import permutations

import numpy as np

from .._layout_names import packed_strides_in
from .._strides import DIMENSION_LETTERS
from ..desc import TensorDesc
from ..errors import LayoutError
from ..memmap import SlotKind

__all__: list[str] = []


@cache
def layout_names(rank: int) -> tuple[str, ...]:
    """Layout names for ``rank``, most common first: canonical, channels-last, then the rest."""
    letters = DIMENSION_LETTERS[rank]
    first = [letters]
    if rank >= 4:
        first.append(letters[0] + letters[2:] + letters[1])  # NHWC, NDHWC
    rest = ["".join(p) for p in permutations(letters) if "".join(p) not in first]
    return (*first, *rest)


def _nests(name: str, desc: TensorDesc) -> bool:
    """Whether the strides step through memory in the order ``name`` names, each dimension
    clearing the ones inside it (padding allowed); size-1 and broadcast dimensions are free."""
    canonical = DIMENSION_LETTERS[desc.dimension_count]
    extent = 1
    for letter in reversed(name):
        i = canonical.index(letter)
        n, s = desc.sizes[i], desc.strides[i]
        if n == 1 or s == 0:
            continue
        if s < extent:
            return False
        extent += (n - 1) * s
    return True


def layout_name(desc: TensorDesc) -> str | None:
    """The name of ``desc``'s memory order ("NCHW", "NHWC", "HW", "WH", "DHW", ...), or None.

    In order of preference: the canonical or channels-last name whose packed strides (with
    ``desc``'s broadcast dimensions) are exactly ``desc.strides``; then any name whose packed
    strides agree on every dimension of size > 1 (the strides of size-1 dimensions change no
    offset); then the first name whose order the strides follow with padding. Ranks 1 and 6 to 8
    have no letters, and overlapping strides fit no name. A name whose packed strides would pass
    DirectML's 32 bits is compared all the same (and never matches).
    """
    rank = desc.dimension_count
    if rank not in DIMENSION_LETTERS:
        return None
    broadcast = [s == 0 and n > 1 for n, s in zip(desc.sizes, desc.strides)]
    names = layout_names(rank)
    packed = {name: packed_strides_in(name, desc.sizes, broadcast) for name in names}
    common = names[:2] if rank >= 4 else names[:1]
    for name in common:
        if packed[name] == desc.strides:
            return name
    for name in names:
        if all(a == b for a, b, n in zip(packed[name], desc.strides, desc.sizes) if n > 1):
            return name
    return next((name for name in names if _nests(name, desc)), None)


def _decided(fact: Callable[[], bool]) -> bool | None:
    """A fact of a description, or None where the core cannot decide it within its work budget
    (the overlap of a large layout whose strides do not nest)."""
    try:
        return fact()
    except LayoutError:
        return None


def classification(desc: TensorDesc) -> str:
    """``packed``, ``padded``, ``broadcast``, ``overlapping`` (those that hold), else ``strided``;
    ``overlap: undecided`` where the overlap is not decided within the core's budget.

    >>> from stridelab import TensorDesc
    >>> classification(TensorDesc("UINT8", (3000, 3000), (3001, 2)))       # decided by the gcd of 3001 and 2
    'padded'
    >>> classification(TensorDesc("UINT8", (170, 170, 170), (160000, 1000, 3)))  # past the search budget
    'overlap: undecided'
    """
    overlapping = _decided(lambda: desc.is_overlapping)
    flags = (
        ("packed", _decided(lambda: desc.is_packed)),
        ("padded", _decided(lambda: desc.is_padded)),
        ("broadcast", desc.is_broadcast),
        ("overlapping", overlapping),
    )
    words = [name for name, flag in flags if flag]
    if overlapping is None:
        words.append("overlap: undecided")
    return ", ".join(words) or "strided"


def summary_lines(desc: TensorDesc, slot_kinds: np.ndarray | None) -> tuple[str, str]:
    """Two lines: what the description is, then what its buffer holds.

    ``slot_kinds`` is the map's :attr:`~stridelab.memmap.MemoryMap.slot_kinds` (None where the
    map is too large to build; the slot breakdown is then left out).
    """
    name = layout_name(desc)
    first = f"{desc.data_type} · sizes {list(desc.sizes)} · strides {list(desc.strides)}"
    if name:
        first += f" · layout {name}"
    slots = f"{desc.slot_count} physical slots"
    if slot_kinds is not None:
        counts = np.bincount(slot_kinds, minlength=4)
        extra = [
            f"{counts[kind]} {word}"
            for kind, word in (
                (SlotKind.SHARED, "shared"),
                (SlotKind.PADDING, "padding"),
                (SlotKind.ALIGNMENT, "alignment"),
            )
            if counts[kind]
        ]
        if extra:
            slots += f" ({', '.join(extra)})"
    size = f"{desc.buffer_size} bytes"
    if desc.buffer_size != desc.required_size:
        size += f" ({desc.required_size} required)"
    second = f"{classification(desc)} · {desc.element_count} logical elements · {slots} · buffer {size}"
    return first, second


def placement_line(desc: TensorDesc, offset: int) -> str:
    """Where a tensor placed at buffer element ``offset`` starts, and the buffer that holds it.

    >>> placement_line(TensorDesc("FLOAT32", (2, 3)), 5)
    'starts at element 5, byte 20 of its buffer · a buffer of at least 44 bytes holds it'
    """
    start = offset * desc.element_size
    end = start + desc.buffer_size
    return f"starts at element {offset}, byte {start} of its buffer · a buffer of at least {end} bytes holds it"
