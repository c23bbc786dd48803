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
from ._layout_names import (
    LETTERS,
    ambiguous_dims,
    dim_name,
    dim_order,
    directml_name,
    first_wide,
    memory_order,
    numpy_name,
    packed_strides_in,
    pytorch_name,
    same_places,
)
from ._strides import MAX_DIMENSIONS, UINT_MAX
from .desc import TensorDesc
from .errors import LayoutError
from .tensor import StridedTensor

__all__: list[str] = []  # LayoutReport and explain are public as sl.LayoutReport and sl.explain


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
        wide = first_wide(desc.sizes, target)
        copy = None if wide is not None else self._copy_call(layout)
        no_copy = None
        if wide is not None:
            no_copy = f"no packed {name} copy: its strides would exceed 2**32 - 1 (strides[{wide}] = {target[wide]})"
        if same_places(desc.sizes, desc.strides, target) and not desc.is_broadcast:
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
        order = " > ".join(dim_name(self.desc.dimension_count, d) for d in self.dim_order)
        ambiguous = "; ".join(
            f"{dim_name(self.desc.dimension_count, d)}: {why}" for d, why in self.ambiguous_dims.items()
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
        ambiguous_dims=ambiguous_dims(sizes, strides),
        directml=directml_name(desc),
        numpy=numpy_name(sizes, strides),
        pytorch=pytorch_name(sizes, strides),
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
        names = ", ".join(dim_name(desc.dimension_count, d) for d in broadcast)
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
