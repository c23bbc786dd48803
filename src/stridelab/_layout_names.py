"""The orders and names :func:`stridelab.explain` reports for a layout: the dimensions' order in
memory (PyTorch's ``dim_order``), and what DirectML, NumPy and PyTorch call the layout, each by its
own rules, from the sizes and strides alone.

internal: read through ``sl.explain``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._strides import DIMENSION_LETTERS, UINT_MAX, layout_strides
from .desc import TensorDesc

__all__: list[str] = []

#: Dimension letters by rank, as the strides page names layouts (a lone dimension is W); other
#: ranks use index permutations.
LETTERS = {1: "W", **DIMENSION_LETTERS}


def dim_order(sizes: Sequence[int], strides: Sequence[int]) -> tuple[int, ...]:
    """Dimensions from the outermost to the innermost in memory, as PyTorch's ``dim_order`` orders
    them: contiguous or (4-D) channels-last contiguous tensors, but not both, take that order;
    otherwise by stride, a tie going to the larger size, stride-0 dimensions compared with
    nothing, and the logical order kept where nothing decides (an insertion sort from the innermost)."""
    rank = len(sizes)
    contiguous = _c_contiguous(sizes, strides)
    channels_last = rank == 4 and _contiguous_in(_CHANNELS_LAST[4], sizes, strides)
    if contiguous != channels_last:
        return tuple(range(rank)) if contiguous else (0, 2, 3, 1)

    def should_swap(a: int, b: int) -> int:
        if strides[a] == 0 or strides[b] == 0:
            return 0
        if strides[a] != strides[b]:
            return -1 if strides[a] < strides[b] else 1
        return 1 if sizes[a] > sizes[b] else 0

    perm = list(reversed(range(rank)))  # innermost first
    for i in range(1, rank):
        inner = i
        for outer in reversed(range(i)):
            comparison = should_swap(perm[outer], perm[inner])
            if comparison > 0:
                perm[outer], perm[inner] = perm[inner], perm[outer]
                inner = outer
            elif comparison < 0:
                break
    return tuple(reversed(perm))


def ambiguous_dims(sizes: Sequence[int], strides: Sequence[int], axes: str | None = None) -> dict[int, str]:
    """Dimensions whose place in the memory order is not determined, with the reason (other
    dimensions named as :func:`dims_named` names them)."""
    why: dict[int, str] = {}
    for i, (n, s) in enumerate(zip(sizes, strides)):
        if n == 1:
            why[i] = "size 1: it is never stepped along, so any place in the order fits"
        elif s == 0:
            why[i] = "stride 0 (broadcast): its elements share slots, it has no place in memory"
        else:
            same = [j for j, (m, t) in enumerate(zip(sizes, strides)) if j != i and t == s and m > 1]
            if same:
                others = dims_named(same, axes)
                why[i] = f"the same stride as {others}: they step over the same memory"
    return why


def memory_order(layout: str | Sequence[int], rank: int) -> tuple[int, ...]:
    """The dimensions of a :func:`~stridelab.layout_strides` ``layout``, outermost first."""
    return dim_order([2] * rank, layout_strides(layout, [2] * rank))


def packed_strides_in(
    layout: str | Sequence[int], sizes: Sequence[int], broadcast: Sequence[bool] | None = None
) -> tuple[int, ...]:
    """The strides ``layout_strides(layout, sizes, broadcast)`` gives, worked out without its
    32-bit check: exact, and past ``2**32 - 1`` where no DirectML description holds ``sizes``
    packed in that order (so that asking about another order never fails).

    >>> packed_strides_in("DHW", (3, 70000, 70000))  # 70000 * 70000 = 4900000000
    (4900000000, 70000, 1)
    """
    strides = [0] * len(sizes)
    step = 1
    for d in reversed(memory_order(layout, len(sizes))):
        if not (broadcast and broadcast[d]):
            strides[d], step = step, step * sizes[d]
    return tuple(strides)


def first_wide(sizes: Sequence[int], strides: Sequence[int]) -> int | None:
    """The first dimension stepped along (size > 1) whose stride passes 32 bits, or None."""
    return next((i for i, (n, s) in enumerate(zip(sizes, strides)) if n > 1 and s > UINT_MAX), None)


def dims_named(dims: Sequence[int], axes: str | None) -> str:
    """Dimensions by index, each with its letter where ``axes`` (one letter per dimension) is
    declared: ``0 (N), 3 (W)``; else ``dimension 3`` or ``dimensions 0, 3``."""
    if axes:
        return ", ".join(f"{d} ({axes[d]})" for d in dims)
    return ("dimension " if len(dims) == 1 else "dimensions ") + ", ".join(map(str, dims))


def same_places(sizes: Sequence[int], strides: Sequence[int], target: Sequence[int]) -> bool:
    """Equal strides wherever a dimension is stepped along (a size-1 dimension's stride is free)."""
    return all(n == 1 or s == t for n, s, t in zip(sizes, strides, target))


def directml_name(desc: TensorDesc, axes: str | None = None) -> str:
    """What DirectML calls the layout: a ``layout_strides`` call, in letters where the dimensions
    are declared (``axes``, DirectML's order of sizes), else as a permutation of indices."""
    sizes, strides, rank = desc.sizes, desc.strides, desc.dimension_count
    if same_places(sizes, strides, packed_strides_in(tuple(range(rank)), sizes)):
        name = "packed NCHW" if axes == "NCHW" else "packed row-major"
        return f"{name} (strides may be left out: nullptr / None)"
    if axes == "NCHW" and same_places(sizes, strides, packed_strides_in("NHWC", sizes)):
        return "packed NHWC (CalculateStrides(NHWC, ...))"
    order = dim_order(sizes, strides)
    layout = "".join(axes[d] for d in order) if axes else tuple(order)
    broadcast = [n > 1 and s == 0 for n, s in zip(sizes, strides)]
    padding = _padding(sizes, strides, order, broadcast)
    if padding is None:
        return "strided: no layout_strides order gives these strides"
    args = [repr(layout), str(sizes)]
    if any(broadcast):
        args.append(f"broadcast={tuple(broadcast)}")
    if padding:
        keys = {(axes[d] if axes else d): p for d, p in padding.items()}
        args.append(f"padding={keys}")
    return f"layout_strides({', '.join(args)})"


def _padding(
    sizes: Sequence[int], strides: Sequence[int], order: Sequence[int], broadcast: Sequence[bool]
) -> dict[int, int] | None:
    """The padding after each dimension's run that makes ``layout_strides(order, sizes, ...)`` give
    ``strides`` (stepped dimensions only), or None where no padding does."""
    padding: dict[int, int] = {}
    step, previous = 1, None
    for d in reversed(order):  # innermost first
        if sizes[d] == 1 or broadcast[d]:
            continue
        if previous is not None:
            extra, rest = divmod(strides[d], step)
            if rest or extra < sizes[previous]:
                return None
            if extra > sizes[previous]:
                padding[previous] = extra - sizes[previous]
            step = strides[d]
        elif strides[d] != 1:
            return None
        previous = d
    return padding


def _c_contiguous(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    return _contiguous_in(range(len(sizes) - 1, -1, -1), sizes, strides)


def _contiguous_in(order: Sequence[int], sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """Packed with ``order`` innermost first, size-1 dimensions skipped (c10's contiguity checks)."""
    expected = 1
    for d in order:
        if sizes[d] != 1:
            if strides[d] != expected:
                return False
            expected *= sizes[d]
    return True


def numpy_name(sizes: Sequence[int], strides: Sequence[int]) -> str:
    c = _c_contiguous(sizes, strides)
    f = _c_contiguous(sizes[::-1], strides[::-1])
    if c and f:
        return "C- and F-contiguous (at most one dimension is stepped along)"
    if c:
        return "C-contiguous"
    if f:
        return "F-contiguous"
    return "neither C- nor F-contiguous"


_CHANNELS_LAST = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}


def _strides_like_channels_last(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """c10's ``is_channels_last_strides_2d/3d``: the strides grow from C through W, H(, D) to N,
    with PyTorch's tie-breaks towards NCHW for the cases its comments list (N111, N1H1, 1C1W)."""
    order = _CHANNELS_LAST.get(len(sizes))
    if order is None or strides[1] == 0:
        return False
    smallest = 0
    for d in order:
        if strides[d] < smallest:
            return False
        if d == 0 and smallest == strides[1]:
            return False
        smallest = strides[d] * (sizes[d] if sizes[d] > 1 else 1)
    return True


def pytorch_name(sizes: Sequence[int], strides: Sequence[int]) -> str:
    rank = len(sizes)
    formats = []
    if _c_contiguous(sizes, strides):
        formats.append(("contiguous_format", "is_contiguous()"))
    if rank in _CHANNELS_LAST and _contiguous_in(_CHANNELS_LAST[rank], sizes, strides):
        name = "channels_last" if rank == 4 else "channels_last_3d"
        formats.append((name, f"is_contiguous(memory_format=torch.{name})"))
    suggested = "contiguous_format"
    if _strides_like_channels_last(sizes, strides):
        suggested = "channels_last" if rank == 4 else "channels_last_3d"
    names = " and ".join(name for name, _ in formats) or "none of its memory formats"
    checks = "; ".join(check for _, check in formats)
    return f"{names} ({checks + '; ' if checks else ''}suggest_memory_format() gives torch.{suggested})"
