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
from ._desc_text import PlacedDesc
from ._layout_names import (
    LETTERS,
    ambiguous_dims,
    dim_order,
    dims_named,
    directml_name,
    first_wide,
    memory_order,
    numpy_name,
    packed_strides_in,
    pytorch_name,
    same_places,
)
from ._strides import MAX_DIMENSIONS, UINT_MAX
from ._validate import shown, wrong_type
from .desc import TensorDesc
from .errors import LayoutError
from .tensor import StridedTensor

__all__: list[str] = []  # LayoutReport and explain are public as sl.LayoutReport and sl.explain


@dataclass(frozen=True)
class Reach:
    """What it takes to hold the same logical tensor in ``layout``.

    ``already``: the strides are that layout's. ``view``: a permutation of the dimensions after
    which the buffer already is ``layout``, packed (a view of a differently ordered tensor, no data
    moved), or None; ``view_call`` the call that makes it and ``view_dimensions`` the dimensions it
    has, in order. ``copy``: the call that copies the tensor into a new buffer in ``layout``
    (given also where none is needed), or None where ``layout``'s packed strides pass DirectML's
    32 bits; ``no_copy`` then says so. ``copy_first``: the copy is the usual way (PyTorch's
    ``.contiguous()``), so the text names it first.
    """

    layout: str
    already: bool
    view: tuple[int, ...] | None
    view_call: str | None
    copy: str | None
    no_copy: str | None = None
    view_dimensions: str | None = None
    copy_first: bool = False

    def __str__(self) -> str:
        if self.already:
            return f"{self.layout}: already (no view or copy needed)"
        view = self.view_call and f"a view, {self.view_call}, whose dimensions are {self.view_dimensions} in that order"
        copy = f"a copy, {self.copy}" if self.copy is not None else self.no_copy
        ways = [copy, view] if self.copy_first else [view, copy]
        return f"{self.layout}: " + "; ".join(way for way in ways if way)


#: PyTorch's channels-last memory formats as memory orders (its contiguous_format is row-major).
_NAMED_ORDERS = {"channels_last": (0, 2, 3, 1), "channels_last_3d": (0, 2, 3, 4, 1)}


@dataclass(frozen=True)
class LayoutReport:
    """The layout of one tensor, explained. ``str(report)`` reads as text; in Jupyter it is a table.

    Dimensions are named by index, and also by letter where ``axes`` declares them (a DirectML
    description's sizes are N, C, H, W; ``explain(x, axes="NCHW")`` says so of an array).

    Examples
    --------
    >>> import stridelab as sl
    >>> report = sl.explain(sl.TensorDesc("FLOAT32", (2, 3), strides=(1, 2)))
    >>> report.dim_order, report.numpy
    ((1, 0), 'F-contiguous')
    """

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
    #: One letter per dimension, in DirectML's order of sizes, or None: dimensions named by index.
    axes: str | None = None
    #: The buffer element where coordinate 0 lies (a :class:`PlacedDesc`'s offset); offsets in the
    #: facts count from it.
    offset: int = 0

    def to_reach(self, layout: str | Sequence[int]) -> Reach:
        """Whether ``layout`` is held already, reachable by a view (which permutation), or needs a
        copy (the exact call); no copy where ``layout``'s packed strides would pass DirectML's 32
        bits. ``layout`` is a :func:`~stridelab.layout_strides` order (letters name the sizes in
        DirectML's order, N, C, H, W), ``"row-major"``, or PyTorch's ``"contiguous_format"``,
        ``"channels_last"`` or ``"channels_last_3d"``.

        >>> reach = explain(TensorDesc("UINT8", (3, 70000, 70000), (1, 3, 210000))).to_reach("DHW")
        >>> reach.view_call, reach.view_dimensions
        ("sl.TensorDesc('UINT8', (70000, 70000, 3), (210000, 3, 1))", 'W, H, D')
        >>> reach.copy is None, reach.no_copy
        (True, 'no packed DHW copy: its strides would exceed 2**32 - 1 (strides[0] = 4900000000)')
        """
        desc = self.desc
        name = layout if isinstance(layout, str) else str(tuple(layout))
        layout = _order_of(layout, desc.dimension_count)
        target = packed_strides_in(layout, desc.sizes)
        wide = first_wide(desc.sizes, target)
        copy = None if wide is not None else self._copy_call(layout)
        no_copy = None
        if wide is not None:
            no_copy = f"no packed {name} copy: its strides would exceed 2**32 - 1 (strides[{wide}] = {target[wide]})"
        torch = self.source.startswith("torch")
        if same_places(desc.sizes, desc.strides, target) and not desc.is_broadcast:
            return Reach(name, True, None, None, copy, no_copy, copy_first=torch)
        permutation = _view_permutation(desc, layout)
        if permutation is None:
            return Reach(name, False, None, None, copy, no_copy, copy_first=torch)
        dims = ", ".join(self.axes[d] for d in permutation) if self.axes else "x's " + ", ".join(map(str, permutation))
        return Reach(name, False, permutation, self._view_call(permutation), copy, no_copy, dims, torch)

    def _copy_call(self, layout: str | Sequence[int]) -> str:
        """The call that copies ``x`` into ``layout``: stridelab's identity for arrays and
        descriptions; for a torch tensor (which the operators do not take) PyTorch's own
        ``.contiguous()`` for its memory formats, else permute-contiguous-permute."""
        desc, rank = self.desc, self.desc.dimension_count
        if self.source.startswith("torch"):
            order = memory_order(layout, rank)
            if order == tuple(range(rank)):
                return "x.contiguous()"
            formats = [name for name, named in _NAMED_ORDERS.items() if named == order]
            if formats:
                return f"x.contiguous(memory_format=torch.{formats[0]})"
            back = tuple(order.index(d) for d in range(rank))
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
        rank, axes = self.desc.dimension_count, self.axes
        order = " > ".join(f"{d} ({axes[d]})" for d in self.dim_order) if axes else None
        ambiguous = "; ".join(f"{dims_named([d], axes)}: {why}" for d, why in self.ambiguous_dims.items())
        reach = [self.to_reach(name) for name in _reach_targets(rank, axes, self.source)]
        start = []
        if self.offset:
            k, first = self.offset, str((0,) * rank).replace(",)", ")")
            where = f"buffer element {k}, byte {k * self.desc.element_size}: element {first} lies there"
            before = "the slot before it is" if k == 1 else f"the {k} slots before it are"
            start = [("starts at", f"{where}, {before} not its own, and offsets below count from it")]
        return [
            ("layout", str(PlacedDesc(self.desc, self.offset))),
            *start,
            ("read from", self.source),
            ("dimensions", _dimensions_row(rank, axes, self.source)),
            ("memory order (outermost first)", order or "dimensions " + " > ".join(map(str, self.dim_order))),
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
        return f"LayoutReport({self.desc!r}{f', offset={self.offset}' if self.offset else ''})"

    def _repr_html_(self) -> str:
        left = "style='text-align:left'"
        cells = "".join(
            f"<tr><th {left}>{escape(q)}</th><td {left}><code>{escape(a)}</code></td></tr>" for q, a in self.rows()
        )
        return f"<table>{cells}</table>"


def explain(obj: Any, *, axes: str | None = None) -> LayoutReport:
    """Explain the layout of a TensorDesc, a StridedTensor, a NumPy or CuPy array or a PyTorch tensor,
    or of a TensorDesc from an offset on (:meth:`TensorDesc.placed`: the report says where it starts).

    Dimensions are named by index. A description's sizes are in DirectML's order, so its dimensions
    also get their letters (N, C, H, W in 4-D); ``axes`` declares the same of an array: its
    dimensions are in that order (``"NCHW"``, ``"NCDHW"``, ``"DHW"``, ``"HW"`` or ``"W"``).

    >>> import numpy as np
    >>> x = np.zeros((2, 4, 4, 3), np.float32).transpose(0, 3, 1, 2)  # channels-last
    >>> report = explain(x, axes="NCHW")
    >>> report.dim_order, report.directml
    ((0, 2, 3, 1), 'packed NHWC (CalculateStrides(NHWC, ...))')
    >>> print(report.pytorch)  # doctest: +NORMALIZE_WHITESPACE
    channels_last (is_contiguous(memory_format=torch.channels_last);
                   suggest_memory_format() gives torch.channels_last)
    >>> reach = report.to_reach("NCHW")
    >>> print(reach)  # doctest: +NORMALIZE_WHITESPACE
    NCHW: a view, x.transpose(0, 2, 3, 1), whose dimensions are N, H, W, C in that order; a copy,
    sl.element_wise_identity(x, sl.StridedTensor.empty(sl.TensorDesc('FLOAT32', (2, 3, 4, 4),
    sl.layout_strides('NCHW', (2, 3, 4, 4)))))
    >>> explain(x).directml  # without axes, by index
    'layout_strides((0, 2, 3, 1), (2, 3, 4, 4))'
    """
    offset = obj.offset if isinstance(obj, PlacedDesc) else 0
    desc, source, declared = _read(obj.desc if isinstance(obj, PlacedDesc) else obj)
    rank = desc.dimension_count
    axes = declared if axes is None else _declared_axes(axes, rank, source)
    sizes, strides = desc.sizes, desc.strides
    return LayoutReport(
        desc=desc,
        source=source,
        dim_order=dim_order(sizes, strides),
        ambiguous_dims=ambiguous_dims(sizes, strides, axes),
        directml=directml_name(desc, axes),
        numpy=numpy_name(sizes, strides),
        pytorch=pytorch_name(sizes, strides),
        facts=_facts(desc, axes),
        axes=axes,
        offset=offset,
    )


def _declared_axes(axes: Any, rank: int, source: str) -> str:
    """``axes`` checked: the letters of DirectML's order of sizes for ``rank`` dimensions."""
    if not isinstance(axes, str):
        raise wrong_type("axes", "the dimension letters in DirectML's order of sizes, e.g. 'NCHW'", axes)
    letters = LETTERS.get(rank)
    if letters is None:
        raise LayoutError(f"axes = {shown(axes)}: letters name tensors of 1 to 5 dimensions, not {rank}; leave it out")
    if axes.upper() == letters:
        return letters
    if sorted(axes.upper()) == sorted(letters):
        order = tuple(axes.upper().index(letter) for letter in letters)
        call = f"x.permute{order}" if source.startswith("torch") else f"x.transpose{order}"
        raise LayoutError(
            f"axes = {shown(axes)}: explain names dimensions in DirectML's order of sizes, {letters}; for a "
            f"tensor whose dimensions are {', '.join(axes.upper())}, explain {call} with axes={letters!r}"
        )
    raise LayoutError(f"axes = {shown(axes)}: a tensor of {rank} dimensions has axes={letters!r} or none declared")


def _dimensions_row(rank: int, axes: str | None, source: str) -> str:
    if axes:
        declared = "as a DirectML description's sizes" if source in ("TensorDesc", "StridedTensor") else "as declared"
        return f"{', '.join(axes)} ({declared})"
    letters = LETTERS.get(rank)
    if letters is None:
        return "by index"
    return f"by index; explain(x, axes={letters!r}) declares them {', '.join(letters)} (DirectML's order of sizes)"


def _order_of(layout: str | Sequence[int], rank: int) -> str | Sequence[int]:
    """``layout`` as ``layout_strides`` takes it: row-major and PyTorch's memory formats as
    permutations of indices."""
    if not isinstance(layout, str):
        return layout
    if layout in ("row-major", "contiguous_format"):
        return tuple(range(rank))
    if layout in _NAMED_ORDERS:
        if len(_NAMED_ORDERS[layout]) != rank:
            raise LayoutError(
                f"layout {layout!r} is a memory format of {len(_NAMED_ORDERS[layout])} dimensions, not {rank}"
            )
        return _NAMED_ORDERS[layout]
    return layout


# -- reading the object ------------------------------------------------------------------------


def _read(obj: Any) -> tuple[TensorDesc, str, str | None]:
    """The description to explain, where it comes from, and its dimensions' letters where its sizes
    are DirectML's (a description's). PyTorch's and NumPy's own strides, a size-1 dimension's kept
    as given (PyTorch's names depend on them); negative strides are refused, since no DirectML
    description has them."""
    if isinstance(obj, (TensorDesc, StridedTensor)):
        desc = obj if isinstance(obj, TensorDesc) else obj.desc
        return desc, "TensorDesc" if isinstance(obj, TensorDesc) else "StridedTensor", LETTERS.get(desc.dimension_count)
    layout = layout_of(obj, "obj", "a TensorDesc, StridedTensor, numpy or cupy array or torch tensor")
    what = "torch tensor" if layout.kind == "torch.Tensor" else "array"
    return _desc(layout.dtype.name, layout.sizes, layout.strides, what), layout.kind, None


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
    if not same_places(sizes, strides, packed_strides_in(layout, sizes)):
        return None
    return tuple(permutation)


def _reach_targets(rank: int, axes: str | None, source: str) -> list[str]:
    """The layouts a report shows the way to: with declared dimensions NCHW and NHWC (or their
    5-D forms, else the row-major order's letters); PyTorch's memory formats for a torch tensor;
    else the row-major order."""
    if axes:
        return [axes, axes[0] + axes[2:] + axes[1]] if rank in (4, 5) else [axes]
    if source.startswith("torch"):
        return ["contiguous_format", *(name for name, order in _NAMED_ORDERS.items() if len(order) == rank)]
    return ["row-major"]


# -- facts with evidence ------------------------------------------------------------------------


def _facts(desc: TensorDesc, axes: str | None) -> tuple[str, ...]:
    facts = []
    broadcast = [i for i, (n, s) in enumerate(zip(desc.sizes, desc.strides)) if n > 1 and s == 0]
    if broadcast:
        facts.append(f"broadcast along {dims_named(broadcast, axes)} (stride 0): its elements share slots")
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
