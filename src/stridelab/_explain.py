"""``sl.explain(obj)``: what layout a tensor has, in every tool's words, and how to reach another.

An engineer with an array in hand (NumPy, CuPy, PyTorch) or a description from a DirectML program
asks three things: which order are the dimensions stored in, what does each tool call that layout,
and what does it take (a view or a copy) to get the layout an operator needs. The answers here come
from the sizes and strides alone. PyTorch's names follow PyTorch's own rules, reimplemented here
(c10's contiguity checks, ``is_channels_last_strides_2d/3d`` behind ``suggest_memory_format``, and
the stride ordering behind ``Tensor.dim_order``) and compared in the tests with answers PyTorch
gave; nothing is imported to read a tensor that is not imported already.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from ._analysis import ENUMERATION_LIMIT, self_collision
from ._arrays import layout_of
from ._strides import DIMENSION_LETTERS, MAX_DIMENSIONS, UINT_MAX, layout_strides
from .desc import TensorDesc
from .errors import LayoutError
from .tensor import StridedTensor

__all__ = ["LayoutReport", "Reach", "explain", "packed_strides_in"]

#: Dimension letters by rank, as the strides page names layouts (a lone dimension is W); other
#: ranks use index permutations.
LETTERS = {1: "W", **DIMENSION_LETTERS}


@dataclass(frozen=True)
class Reach:
    """What it takes to hold the same logical tensor in ``layout``.

    ``already``: the strides are that layout's. ``view``: a permutation of the dimensions after
    which the buffer already is ``layout``, packed (a view of a differently ordered tensor, no data
    moved), or None, and ``view_call`` the call that makes it. ``copy``: the stridelab call that
    copies the tensor into a new buffer in ``layout`` (given also where none is needed), or None
    where ``layout``'s packed strides pass DirectML's 32 bits; ``no_copy`` then says so.
    """

    layout: str
    already: bool
    view: tuple[int, ...] | None
    view_call: str | None
    copy: str | None
    no_copy: str | None = None

    def __str__(self) -> str:
        if self.already:
            return f"{self.layout}: already (no view or copy needed)"
        view = f"a view, {self.view_call}; " if self.view_call else ""
        copy = f"a copy, {self.copy}" if self.copy is not None else self.no_copy
        return f"{self.layout}: {view}{copy}"


@dataclass(frozen=True)
class LayoutReport:
    """The layout of one tensor, explained. ``str(report)`` reads as text; in Jupyter it is a table."""

    desc: TensorDesc
    source: str
    #: Dimensions from the outermost to the innermost in memory (PyTorch's ``dim_order`` rule).
    dim_order: tuple[int, ...]
    #: Dimensions whose place in ``dim_order`` is not determined, with the reason.
    ambiguous_dims: dict[int, str]
    directml: str
    numpy: str
    pytorch: str
    #: Padding, broadcast and overlap, each with its evidence.
    facts: tuple[str, ...]

    def to_reach(self, layout: str | Sequence[int]) -> Reach:
        """Whether ``layout`` (NCHW, NHWC or any :func:`~stridelab.layout_strides` order) is held
        already, reachable by a view (which permutation), or needs a copy (the exact call); no
        copy where ``layout``'s packed strides would pass DirectML's 32 bits.

        >>> reach = explain(TensorDesc("UINT8", (3, 70000, 70000), (1, 3, 210000))).to_reach("DHW")
        >>> reach.view_call
        "sl.TensorDesc('UINT8', (70000, 70000, 3), (210000, 3, 1))"
        >>> reach.copy is None, reach.no_copy
        (True, 'no packed DHW copy: its strides would exceed 2**32 - 1 (strides[0] = 4900000000)')
        """
        desc = self.desc
        name = layout if isinstance(layout, str) else str(tuple(layout))
        target = packed_strides_in(layout, desc.sizes)
        wide = _first_wide(desc.sizes, target)
        copy = None if wide is not None else self._copy_call(layout)
        no_copy = None
        if wide is not None:
            no_copy = f"no packed {name} copy: its strides would exceed 2**32 - 1 (strides[{wide}] = {target[wide]})"
        if _same_places(desc.sizes, desc.strides, target) and not desc.is_broadcast:
            return Reach(name, True, None, None, copy, no_copy)
        permutation = _view_permutation(desc, layout)
        view_call = None if permutation is None else self._view_call(permutation)
        return Reach(name, False, permutation, view_call, copy, no_copy)

    def _copy_call(self, layout: str | Sequence[int]) -> str:
        """The call that copies ``x`` into ``layout``: stridelab's identity for arrays and
        descriptions, PyTorch's own permute-contiguous-permute for a torch tensor (which the
        operators do not take)."""
        desc = self.desc
        if self.source.startswith("torch"):
            order = memory_order(layout, desc.dimension_count)
            back = tuple(order.index(d) for d in range(desc.dimension_count))
            return f"x.permute{order}.contiguous().permute{back}"
        layout_text = repr(layout) if isinstance(layout, str) else repr(tuple(layout))
        dtype, sizes = desc.data_type, desc.sizes
        return (
            f"sl.element_wise_identity(x, sl.StridedTensor.empty(sl.TensorDesc({dtype!r}, {sizes}, "
            f"sl.layout_strides({layout_text}, {sizes}))))"
        )

    def _view_call(self, permutation: tuple[int, ...]) -> str:
        if self.source.startswith("torch"):
            return f"x.permute{permutation}"
        if self.source.startswith(("numpy", "cupy")):
            return f"x.transpose{permutation}"
        desc = self.desc
        sizes = tuple(desc.sizes[p] for p in permutation)
        strides = tuple(desc.strides[p] for p in permutation)
        return f"sl.TensorDesc({desc.data_type!r}, {sizes}, {strides})"

    def rows(self) -> list[tuple[str, str]]:
        """The report as (question, answer) rows, as the text and the table show it."""
        order = " > ".join(_dim_name(self.desc.dimension_count, d) for d in self.dim_order)
        ambiguous = "; ".join(
            f"{_dim_name(self.desc.dimension_count, d)}: {why}" for d, why in self.ambiguous_dims.items()
        )
        reach = [self.to_reach(name) for name in _reach_targets(self.desc.dimension_count)]
        return [
            ("layout", str(self.desc)),
            ("read from", self.source),
            ("memory order (outermost first)", order),
            ("ambiguous dimensions", ambiguous or "none"),
            ("DirectML", self.directml),
            ("NumPy", self.numpy),
            ("PyTorch", self.pytorch),
            *(("fact", fact) for fact in self.facts),
            *(("to reach " + r.layout, str(r).partition(": ")[2]) for r in reach),
        ]

    def __str__(self) -> str:
        rows = self.rows()
        width = max(len(question) for question, _ in rows)
        return "\n".join(f"{question:<{width}}  {answer}" for question, answer in rows)

    def __repr__(self) -> str:
        return f"LayoutReport({self.desc!r})"

    def _repr_html_(self) -> str:
        left = "style='text-align:left'"
        cells = "".join(
            f"<tr><th {left}>{escape(q)}</th><td {left}><code>{escape(a)}</code></td></tr>" for q, a in self.rows()
        )
        return f"<table>{cells}</table>"


def explain(obj: Any) -> LayoutReport:
    """Explain the layout of a TensorDesc, a StridedTensor, a NumPy or CuPy array or a PyTorch tensor.

    >>> import numpy as np
    >>> report = explain(np.zeros((2, 4, 4, 3), np.float32).transpose(0, 3, 1, 2))  # channels-last
    >>> report.dim_order, report.directml
    ((0, 2, 3, 1), 'packed NHWC (CalculateStrides(NHWC, ...))')
    >>> print(report.pytorch)  # doctest: +NORMALIZE_WHITESPACE
    channels_last (is_contiguous(memory_format=torch.channels_last);
                   suggest_memory_format() gives torch.channels_last)
    >>> reach = report.to_reach("NCHW")
    >>> reach.view_call
    'x.transpose(0, 2, 3, 1)'
    >>> print(reach.copy)  # doctest: +NORMALIZE_WHITESPACE
    sl.element_wise_identity(x, sl.StridedTensor.empty(sl.TensorDesc('FLOAT32', (2, 3, 4, 4),
                             sl.layout_strides('NCHW', (2, 3, 4, 4)))))
    """
    desc, source = _read(obj)
    sizes, strides = desc.sizes, desc.strides
    return LayoutReport(
        desc=desc,
        source=source,
        dim_order=dim_order(sizes, strides),
        ambiguous_dims=_ambiguous(sizes, strides),
        directml=_directml_name(desc),
        numpy=_numpy_name(sizes, strides),
        pytorch=_pytorch_name(sizes, strides),
        facts=_facts(desc),
    )


# -- reading the object ------------------------------------------------------------------------


def _read(obj: Any) -> tuple[TensorDesc, str]:
    """The description to explain: PyTorch's and NumPy's own strides, a size-1 dimension's kept as
    given (PyTorch's names depend on them); negative strides are refused, since no DirectML
    description has them."""
    if isinstance(obj, TensorDesc):
        return obj, "TensorDesc"
    if isinstance(obj, StridedTensor):
        return obj.desc, "StridedTensor"
    layout = layout_of(obj, "obj", "a TensorDesc, StridedTensor, numpy or cupy array or torch tensor")
    what = "torch tensor" if layout.kind == "torch.Tensor" else "array"
    return _desc(layout.dtype.name, layout.sizes, layout.strides, what), layout.kind


def _desc(dtype: str, sizes: tuple[int, ...], strides: tuple[int, ...], what: str) -> TensorDesc:
    if not 1 <= len(sizes) <= MAX_DIMENSIONS:
        raise LayoutError(f"{what} has {len(sizes)} dimensions; DirectML tensors have 1 to {MAX_DIMENSIONS}")
    # a size-1 stride moves nothing: any value below 32 bits describes the same tensor
    strides = tuple(min(abs(s), UINT_MAX) if n == 1 else s for n, s in zip(sizes, strides))
    negative = [i for i, s in enumerate(strides) if s < 0]
    if negative:
        raise LayoutError(
            f"{what} strides[{negative[0]}] = {strides[negative[0]]} is negative; DirectML strides are unsigned "
            "(a reversed view needs a copy, or SLICE1 with a negative window stride)"
        )
    return TensorDesc(dtype, sizes, strides)


# -- orders and names ---------------------------------------------------------------------------


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


def _ambiguous(sizes: Sequence[int], strides: Sequence[int]) -> dict[int, str]:
    why: dict[int, str] = {}
    for i, (n, s) in enumerate(zip(sizes, strides)):
        if n == 1:
            why[i] = "size 1: it is never stepped along, so any place in the order fits"
        elif s == 0:
            why[i] = "stride 0 (broadcast): its elements share slots, it has no place in memory"
        else:
            same = [j for j, (m, t) in enumerate(zip(sizes, strides)) if j != i and t == s and m > 1]
            if same:
                others = ", ".join(_dim_name(len(sizes), j) for j in same)
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


def _first_wide(sizes: Sequence[int], strides: Sequence[int]) -> int | None:
    """The first dimension stepped along (size > 1) whose stride passes 32 bits, or None."""
    return next((i for i, (n, s) in enumerate(zip(sizes, strides)) if n > 1 and s > UINT_MAX), None)


def _dim_name(rank: int, dim: int) -> str:
    letters = LETTERS.get(rank)
    return f"{dim} ({letters[dim]})" if letters else str(dim)


def _same_places(sizes: Sequence[int], strides: Sequence[int], target: Sequence[int]) -> bool:
    """Equal strides wherever a dimension is stepped along (a size-1 dimension's stride is free)."""
    return all(n == 1 or s == t for n, s, t in zip(sizes, strides, target))


def _letters_of(order: Sequence[int], rank: int) -> str | tuple[int, ...]:
    letters = LETTERS.get(rank)
    return "".join(letters[d] for d in order) if letters else tuple(order)


def _directml_name(desc: TensorDesc) -> str:
    sizes, strides, rank = desc.sizes, desc.strides, desc.dimension_count
    if _same_places(sizes, strides, packed_strides_in(tuple(range(rank)), sizes)):
        name = "packed NCHW" if rank == 4 else "packed row-major"
        return f"{name} (strides may be left out: nullptr / None)"
    if rank == 4 and _same_places(sizes, strides, packed_strides_in("NHWC", sizes)):
        return "packed NHWC (CalculateStrides(NHWC, ...))"
    order = dim_order(sizes, strides)
    layout = _letters_of(order, rank)
    broadcast = [n > 1 and s == 0 for n, s in zip(sizes, strides)]
    padding = _padding(sizes, strides, order, broadcast)
    if padding is None:
        return "strided: no layout_strides order gives these strides"
    args = [repr(layout), str(sizes)]
    if any(broadcast):
        args.append(f"broadcast={tuple(broadcast)}")
    if padding:
        keys = {(LETTERS[rank][d] if rank in LETTERS else d): p for d, p in padding.items()}
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


def _numpy_name(sizes: Sequence[int], strides: Sequence[int]) -> str:
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


def _pytorch_name(sizes: Sequence[int], strides: Sequence[int]) -> str:
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


def _view_permutation(desc: TensorDesc, layout: str | Sequence[int]) -> tuple[int, ...] | None:
    """A permutation p such that the tensor with dimensions p (sizes[p], strides[p]) is packed in
    ``layout``: its buffer already holds ``layout``'s order, for differently ordered dimensions."""
    if desc.is_broadcast:
        return None
    rank = desc.dimension_count
    order = dim_order(desc.sizes, desc.strides)
    permutation = [0] * rank
    for position, dim in zip(memory_order(layout, rank), order):
        permutation[position] = dim
    sizes = [desc.sizes[p] for p in permutation]
    strides = [desc.strides[p] for p in permutation]
    if not _same_places(sizes, strides, packed_strides_in(layout, sizes)):
        return None
    return tuple(permutation)


def _reach_targets(rank: int) -> list[str]:
    """The layouts a report shows the way to: NCHW and NHWC (or their 5-D forms), else row-major."""
    if rank in (4, 5):
        return [LETTERS[rank], LETTERS[rank][0] + LETTERS[rank][2:] + "C"]
    return [LETTERS[rank]] if rank in LETTERS else []


# -- facts with evidence ------------------------------------------------------------------------


def _facts(desc: TensorDesc) -> tuple[str, ...]:
    facts = []
    broadcast = [i for i, (n, s) in enumerate(zip(desc.sizes, desc.strides)) if n > 1 and s == 0]
    if broadcast:
        names = ", ".join(_dim_name(desc.dimension_count, d) for d in broadcast)
        facts.append(f"broadcast along {names} (stride 0): its elements share slots")
    try:
        overlapping = desc.is_overlapping
    except LayoutError:
        overlapping = None
        facts.append(f"overlap: undecided (past the search budget of {ENUMERATION_LIMIT} elements)")
    if overlapping:
        try:
            pair = self_collision(desc.sizes, desc.strides)
        except LayoutError:  # decided by counting: more elements than offsets
            pair = None
        if pair is None:
            facts.append(f"overlapping: {desc.element_count} elements in {desc.last_offset + 1} offsets")
        else:
            first, second = pair
            facts.append(f"overlapping: elements {first} and {second} share offset {desc.offset_of(first)}")
    try:
        padded = desc.is_padded
    except LayoutError:
        padded = None
    if padded and max(desc.slot_count, desc.element_count) <= ENUMERATION_LIMIT:
        slots = desc.memory_map().padding_slots.tolist()
        shown = ", ".join(map(str, slots[:8])) + (", ..." if len(slots) > 8 else "")
        facts.append(f"padded: {len(slots)} of {desc.slot_count} slots hold no element ({shown})")
    elif padded:
        facts.append(f"padded: the buffer spans {desc.last_offset + 1} elements for {desc.element_count}")
    if overlapping is not None and desc.is_packed:
        extra = desc.slot_count - desc.element_count
        rounding = f", then {extra} alignment slots (buffers round up to 4 bytes)" if extra else ""
        facts.append(f"packed: offsets 0 to {desc.last_offset} each hold one element{rounding}")
    return tuple(facts) or ("strided: no padding, broadcast or overlap, but not packed either",)
