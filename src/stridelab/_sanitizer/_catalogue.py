"""The layouts a function is checked on: one :class:`ProbeLayout` per way a caller can lay out an
array, in a fixed order, for one shape.

internal: :func:`stridelab.testing.layouts_for` and :func:`stridelab.check_layouts` use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import permutations

from .._validate import shown
from ..errors import LayoutError

__all__: list[str] = []

#: The kinds of layout the catalogue builds, in the order it lists them (``layouts_for``'s ``kinds``).
KINDS = (
    "packed",
    "column-major",
    "channels-last",
    "permutation",
    "padded",
    "stepped",
    "negative",
    "offset",
    "size-1",
    "broadcast",
)
#: The most elements of an argument checked: each layout's buffers hold several copies of it.
MAX_ELEMENTS = 1 << 24
PAD = 3  # elements of padding after a dimension: odd, so no accidental alignment
STEP = 2
STORAGE_OFFSET = 3


@dataclass(frozen=True)
class ProbeLayout:
    """Logical ``sizes``, signed element ``strides`` and the ``offset`` of coordinate 0 in the
    layout's own buffer; ``kind`` (one of :data:`KINDS`) and ``words`` say what it is.

    >>> ProbeLayout((2, 3), (3, -1), 2, "negative", "negative stride along dimension 1")
    ProbeLayout('(2,3):(3,-1)+2')
    """

    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int = 0
    kind: str = field(default="custom", compare=False)
    words: str = field(default="a layout of your own", compare=False)

    def __str__(self) -> str:
        sizes = ",".join(map(str, self.sizes))
        strides = ",".join(map(str, self.strides))
        return f"({sizes}):({strides})+{self.offset}"

    def __repr__(self) -> str:
        return f"ProbeLayout('{self}')"

    @property
    def broadcast_axes(self) -> tuple[int, ...]:
        """The dimensions of more than one element that stride 0 maps onto one slot."""
        return tuple(i for i, (n, s) in enumerate(zip(self.sizes, self.strides)) if n > 1 and s == 0)


def packed_strides(sizes: Sequence[int], order: Sequence[int] | None = None) -> tuple[int, ...]:
    """Packed strides with the dimensions in memory ``order`` (outermost first; default 0, 1, ...).

    >>> packed_strides((2, 3, 4), (2, 0, 1))  # dimension 1 innermost, then 0, then 2
    (3, 1, 6)
    """
    order = range(len(sizes)) if order is None else order
    strides, step = [0] * len(sizes), 1
    for axis in reversed(tuple(order)):
        strides[axis] = step
        step *= sizes[axis]
    return tuple(strides)


def _negative_offset(sizes: Sequence[int], strides: Sequence[int]) -> int:
    return sum((n - 1) * -s for n, s in zip(sizes, strides) if s < 0 and n > 0)


def _orders(sizes: tuple[int, ...]) -> Iterable[tuple[str, str, tuple[int, ...]]]:
    rank = len(sizes)
    if rank == 0:
        return
    if rank >= 2:
        yield "column-major", "column-major (dimension 0 innermost)", tuple(reversed(range(rank)))
    if rank in (4, 5):
        name = "NHWC" if rank == 4 else "NDHWC"
        yield "channels-last", f"packed {name}", (0, *range(2, rank), 1)
    candidates = permutations(range(rank)) if rank <= 4 else _innermost_once(rank)
    for order in candidates:
        if sizes[order[-1]] > 1:
            words = "memory order " + ",".join(map(str, order)) + " (outermost first)"
            yield "permutation", words, tuple(order)


def _innermost_once(rank: int) -> Iterable[tuple[int, ...]]:
    """Above rank 4, a covering subset of the memory orders: each dimension innermost once."""
    for axis in range(rank):
        yield (*(a for a in range(rank) if a != axis), axis)


def _padded(sizes: tuple[int, ...]) -> Iterable[ProbeLayout]:
    for axis in range(1, len(sizes)):
        if all(n == 1 for n in sizes[:axis]):
            continue  # the padding would fall after the last element only
        strides, step = [0] * len(sizes), 1
        for j in reversed(range(len(sizes))):
            strides[j] = step
            step = step * sizes[j] + (PAD if j == axis else 0)
        yield ProbeLayout(sizes, tuple(strides), 0, "padded", f"padded after dimension {axis}")


def _with_stride(sizes: tuple[int, ...], axis: int, stride: int) -> tuple[int, ...]:
    strides = list(packed_strides(sizes))
    strides[axis] = stride
    return tuple(strides)


def _single(sizes: tuple[int, ...]) -> Iterable[ProbeLayout]:
    large = 2 * max(1, _count(sizes)) + 1
    for axis, n in enumerate(sizes):
        if n == 1:
            for stride in (0, 1, large):
                words = f"size-1 dimension {axis} with stride {stride}"
                yield ProbeLayout(sizes, _with_stride(sizes, axis, stride), 0, "size-1", words)


def _broadcast(sizes: tuple[int, ...]) -> Iterable[ProbeLayout]:
    for axis, n in enumerate(sizes):
        if n > 1:
            rest = packed_strides((*sizes[:axis], 1, *sizes[axis + 1 :]))
            strides = (*rest[:axis], 0, *rest[axis + 1 :])
            yield ProbeLayout(sizes, strides, 0, "broadcast", f"broadcast along dimension {axis}")


def _count(sizes: Sequence[int]) -> int:
    count = 1
    for n in sizes:
        count *= n
    return count


def _all(sizes: tuple[int, ...]) -> Iterable[ProbeLayout]:
    packed = packed_strides(sizes)
    yield ProbeLayout(sizes, packed, 0, "packed", "packed (row-major)")
    for kind, words, order in _orders(sizes):
        yield ProbeLayout(sizes, packed_strides(sizes, order), 0, kind, words)
    yield from _padded(sizes)
    if _count(sizes) > 1:
        yield ProbeLayout(sizes, tuple(STEP * s for s in packed), 0, "stepped", f"every {STEP}nd element")
    for axis, n in enumerate(sizes):
        if n > 1:
            strides = _with_stride(sizes, axis, -packed[axis])
            words = f"negative stride along dimension {axis}"
            yield ProbeLayout(sizes, strides, _negative_offset(sizes, strides), "negative", words)
    yield ProbeLayout(sizes, packed, STORAGE_OFFSET, "offset", f"storage offset {STORAGE_OFFSET}")
    yield from _single(sizes)
    yield from _broadcast(sizes)


def catalogue(sizes: Sequence[int], kinds: Iterable[str] | None = None) -> list[ProbeLayout]:
    """The layouts of ``sizes`` of the given ``kinds`` (default: all of :data:`KINDS`), in a fixed
    order, each once.

    >>> [str(layout) for layout in catalogue((2, 3), ["packed", "negative"])]
    ['(2,3):(3,1)+0', '(2,3):(-3,1)+3', '(2,3):(3,-1)+2']
    """
    wanted = set(KINDS if kinds is None else _kinds(kinds))
    found: list[ProbeLayout] = []
    for layout in _all(tuple(int(n) for n in sizes)):
        if layout.kind in wanted and layout not in found:
            found.append(layout)
    return found


#: Other names people give some kinds.
ALIASES = {"nhwc": "channels-last", "ndhwc": "channels-last", "channels_last": "channels-last"}


def _kinds(kinds: Iterable[str]) -> list[str]:
    found = []
    for kind in kinds:
        kind = ALIASES.get(kind.lower(), kind) if isinstance(kind, str) else kind
        if kind not in KINDS:
            raise LayoutError(f"kinds has {shown(kind)}, which is no layout kind; expected some of {list(KINDS)}")
        found.append(kind)
    return found
