"""overlap(): whether two descriptions over one buffer share an element, decided exactly.

The reduction of each description to the dimensions that matter is :mod:`stridelab._analysis`'s;
the search for a shared element within a budget of work counted in steps is
:mod:`stridelab._search`'s.

internal: :func:`overlap` is public as ``stridelab.overlap``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, SupportsIndex

from ._analysis import Coords, _coords, _Dim, _nests, _product, _reduced
from ._desc_text import PlacedDesc
from ._search import Term, Work, scan, solve, solve_cost
from ._validate import int_value, shown, wrong_type
from .desc import TensorDesc
from .errors import LayoutError

__all__: list[str] = []


def overlap(
    a: Any, b: Any, *, a_offset: SupportsIndex = 0, b_offset: SupportsIndex = 0
) -> tuple[Coords, Coords] | None:
    """Whether two descriptions over one buffer share an element: None, or one pair of coordinates
    (of ``a``, of ``b``) that land on the same element.

    ``a_offset`` and ``b_offset`` are where each description starts in the buffer, in elements; a
    description read with its offset (:meth:`TensorDesc.parse_placed`, :meth:`TensorDesc.placed`)
    brings its own instead. Both must have the same element size (else TypeError). Decided by
    arithmetic where the gcd of all strides does not divide the distance between the starts, where
    the two spans do not meet, and where the dimensions left over (those of equal stride in ``a``
    and ``b`` taken together, so the same strides at different offsets leave one per stride) number
    at most two, or where narrowing each one's range by the others' leaves few choices; otherwise by
    enumerating one side's offsets, decoded in the other where its strides nest. Whichever is
    cheaper; the work is bounded by :data:`stridelab._search.STEP_BUDGET` steps, past which a
    LayoutError names the budget.

    >>> from stridelab import TensorDesc
    >>> even = TensorDesc("FLOAT32", (4, 1000), (2000, 2))          # every other element
    >>> overlap(even, even, b_offset=1) is None                     # and the ones in between
    True
    >>> overlap(TensorDesc("UINT8", (3, 4)), TensorDesc("UINT8", (2, 2), (4, 1)), b_offset=5)
    ((1, 1), (0, 0))
    >>> overlap(TensorDesc.parse_placed("UINT8 (3):(4) +1"), TensorDesc.parse("UINT8 (3,4):(4,1)"))
    ((2,), (2, 1))
    """
    a, a_offset = _placed("a", a, a_offset)
    b, b_offset = _placed("b", b, b_offset)
    if a.element_size != b.element_size:
        raise TypeError(
            f"a has {a.element_size}-byte elements ({a.data_type}) but b has {b.element_size}-byte ones "
            f"({b.data_type}); offsets in elements compare only for the same element size"
        )
    a_offset, b_offset = int_value("a_offset", a_offset), int_value("b_offset", b_offset)
    for name, value in (("a_offset", a_offset), ("b_offset", b_offset)):
        if value < 0:
            raise LayoutError(f"{name} = {shown(value)}: an offset into the buffer is 0 or more")
    work = Work(f"whether {a} and {b} share an element")
    if a_offset + a.last_offset < b_offset or b_offset + b.last_offset < a_offset:
        return None
    da, db = _reduced(a.sizes, a.strides, peel=False), _reduced(b.sizes, b.strides, peel=False)
    target = b_offset - a_offset  # sum of a's steps - sum of b's steps must make up this distance
    g = math.gcd(*(d.stride for d in (*da, *db)))
    if g == 0 or target % g:
        return ((0,) * a.dimension_count, (0,) * b.dimension_count) if target == 0 else None
    terms, owners = _terms(da, db, merge=len(da) + len(db) > 2)
    if len(terms) > 2 and target == 0:  # both start at one element
        return (0,) * a.dimension_count, (0,) * b.dimension_count
    plans = [(solve_cost(terms), 0)]
    count_a, count_b = _product([d.size for d in da]), _product([d.size for d in db])
    plans.append((count_a + (0 if _nests(db) else count_b), 1))
    plans.append((count_b + (0 if _nests(da) else count_a), 2))
    plan = min(plans)[1]
    if plan == 0:
        values = solve(terms, target, work)
        if values is None:
            return None
        steps_a, steps_b = _steps_of(values, owners, len(da), len(db))
    else:
        ours, theirs, shift = (da, db, a_offset - b_offset) if plan == 1 else (db, da, b_offset - a_offset)
        found = scan(_sizes_strides(ours), shift, _sizes_strides(theirs), _nests(theirs), work)
        if found is None:
            return None
        steps_a, steps_b = found if plan == 1 else found[::-1]
    return _coords(a.dimension_count, da, steps_a), _coords(b.dimension_count, db, steps_b)


def _placed(name: str, desc: Any, offset: SupportsIndex) -> tuple[TensorDesc, SupportsIndex]:
    """``desc``'s description and offset: a :class:`PlacedDesc`'s own, else ``offset``."""
    if isinstance(desc, PlacedDesc):
        if offset != 0:
            raise LayoutError(
                f"{name}_offset = {shown(offset)} but {name} = '{desc}' starts at element {desc.offset} already; "
                f"give {name}_offset with a TensorDesc, or a PlacedDesc alone"
            )
        return desc.desc, desc.offset
    if not isinstance(desc, TensorDesc):
        raise wrong_type(name, "a TensorDesc", desc)
    return desc, offset


def _sizes_strides(dims: Sequence[_Dim]) -> tuple[list[int], list[int]]:
    return [d.size for d in dims], [d.stride for d in dims]


Owner = tuple[int | None, int | None]


def _terms(da: Sequence[_Dim], db: Sequence[_Dim], merge: bool) -> tuple[list[Term], list[Owner]]:
    """The unknowns of ``sum(a's strides * steps) - sum(b's strides * steps) == distance``, with the
    dimensions (of a, of b) each stands for. With ``merge``, a dimension of a and one of b with the
    same stride make one unknown, their difference (a's step minus b's), from ``-(b's size - 1)``
    to ``a's size - 1``: any value of it is made by one step count at 0 and the other at its value."""
    terms: list[Term] = []
    owners: list[Owner] = []
    unmatched = list(range(len(db)))
    for i, d in enumerate(da):
        j = next((j for j in unmatched if db[j].stride == d.stride), None) if merge else None
        if j is None:
            terms.append(Term(d.stride, 0, d.size - 1))
        else:
            unmatched.remove(j)
            terms.append(Term(d.stride, 1 - db[j].size, d.size - 1))
        owners.append((i, j))
    for j in unmatched:
        terms.append(Term(-db[j].stride, 0, db[j].size - 1))
        owners.append((None, j))
    return terms, owners


def _steps_of(values: Sequence[int], owners: Sequence[Owner], rank_a: int, rank_b: int) -> tuple[list, list]:
    """Steps along a's and b's reduced dimensions from the unknowns' values (see :func:`_terms`)."""
    steps_a, steps_b = [0] * rank_a, [0] * rank_b
    for v, (i, j) in zip(values, owners):
        if i is not None and j is not None:
            steps_a[i], steps_b[j] = max(v, 0), max(-v, 0)
        elif i is not None:
            steps_a[i] = v
        elif j is not None:
            steps_b[j] = v
    return steps_a, steps_b
