"""Exact facts about the logical-to-physical map ``c -> dot(c, strides)`` of a description.

Two facts decide the classification of a description: how many distinct buffer offsets its
elements use, and whether the map is one-to-one once broadcast dimensions (stride 0) are set aside.
They are decided without guessing:

* by reasoning, where the strides *nest*: sorted by stride, each stride is at least the extent
  ``1 + sum((n - 1) * s)`` of the dimensions inside it. Every NCHW, NHWC, permuted, padded or
  broadcast layout nests; then the map is one-to-one and uses ``prod(n)`` offsets, at any size;
* by the pigeonhole principle, where more elements than offsets exist (then it overlaps);
* by arithmetic, where at most two dimensions can collide once the others are set aside (size 1,
  stride 0, or a stride past the span of all smaller ones) and merged ones joined: two dimensions
  collide exactly when each one's stride over their gcd is less than the other's size;
* by enumerating the offsets, where none of these applies and the element count is within
  ``ENUMERATION_LIMIT``;
* otherwise by refusing with :class:`~stridelab.errors.LayoutError`.

:func:`overlap` decides the same question for two descriptions over one buffer, within a budget
of work counted in steps (see :mod:`stridelab._search`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, SupportsIndex

import numpy as np

from ._search import Term, Work, scan, solve, solve_cost
from ._validate import int_value, shown, wrong_type
from .errors import LayoutError

__all__ = ["ENUMERATION_LIMIT", "LayoutFacts", "analyze", "logical_offsets", "overlap", "self_collision"]

#: The most elements :func:`analyze` enumerates for a description whose strides do not nest: the
#: memory-map budget (:data:`stridelab.memmap.DEFAULT_LIMIT`), a fraction of a second of work.
ENUMERATION_LIMIT = 4_000_000

_INT64_SAFE = 1 << 62


@dataclass(frozen=True)
class LayoutFacts:
    """``distinct_offsets``: offsets used by at least one element (None where the layout overlaps
    and has more elements than the enumeration limit, so they were not counted). ``injective_apart_from_broadcast``:
    no two elements share an offset unless a zero stride makes them."""

    distinct_offsets: int | None
    injective_apart_from_broadcast: bool


def _product(values: Sequence[int]) -> int:
    result = 1
    for v in values:
        result *= v
    return result


def logical_offsets(sizes: Sequence[int], strides: Sequence[int]) -> np.ndarray:
    """The buffer offset of every logical element, as an array of shape ``sizes``.

    int64 where the largest offset fits, else Python ints in an object array (exact, slow).
    """
    last = sum((n - 1) * s for n, s in zip(sizes, strides))
    dtype = np.int64 if last < _INT64_SAFE else object
    offsets = np.zeros((1,) * len(sizes), dtype=dtype)
    for axis, (n, s) in enumerate(zip(sizes, strides)):
        if n == 1:  # moves nothing, whatever its stride (which may not even fit in int64)
            continue
        shape = [1] * len(sizes)
        shape[axis] = n
        offsets = offsets + (np.arange(n, dtype=np.int64).astype(dtype) * s).reshape(shape)
    return np.broadcast_to(offsets, tuple(sizes))


Coords = tuple[int, ...]


class _Dim(NamedTuple):
    """A dimension of the reduced problem: ``size`` steps of ``stride``, made of original ``parts``
    ((axis, size) pairs, innermost first) that merged because each strides over the one inside it."""

    size: int
    stride: int
    parts: tuple[tuple[int, int], ...]


def _reduced(sizes: Sequence[int], strides: Sequence[int], peel: bool = True) -> list[_Dim]:
    """The dimensions that can make two elements collide, sorted by stride.

    Size-1 and stride-0 dimensions cannot (a stride of 0 is broadcast, not overlap); a dimension
    whose stride is the size times the stride of another merges with it (the same offsets); and,
    with ``peel``, a dimension whose stride reaches past every offset the others span takes no part
    in a collision of the description with itself, since the others cannot make up even one of its
    steps.
    """
    dims: list[_Dim] = []
    for axis, n, s in sorted(((i, n, s) for i, (n, s) in enumerate(zip(sizes, strides)) if n > 1 and s > 0),
                             key=lambda d: d[2]):  # fmt: skip
        if dims and s == dims[-1].size * dims[-1].stride:
            last = dims.pop()
            dims.append(_Dim(last.size * n, last.stride, (*last.parts, (axis, n))))
        else:
            dims.append(_Dim(n, s, ((axis, n),)))
    while peel and len(dims) > 1 and dims[-1].stride >= 1 + sum((d.size - 1) * d.stride for d in dims[:-1]):
        dims.pop()
    return dims


def _coords(rank: int, dims: Sequence[_Dim], steps: Sequence[int]) -> Coords:
    """Original coordinates of the element ``steps`` along each reduced dimension (0 elsewhere)."""
    coords = [0] * rank
    for dim, step in zip(dims, steps):
        for axis, n in dim.parts:
            coords[axis] = step % n
            step //= n
    return tuple(coords)


def _budget_error(what: str, count: int, budget: int) -> LayoutError:
    return LayoutError(
        f"{what} is not decided: its strides neither nest nor reduce to two dimensions, and the search "
        f"would enumerate {count} elements (budget {budget})"
    )


def self_collision(sizes: Sequence[int], strides: Sequence[int], budget: int = ENUMERATION_LIMIT) -> tuple | None:
    """Two coordinates of one description that land on the same element, or None.

    Pairs that differ only along stride-0 dimensions (broadcast) are not collisions. Exact at any
    size where the dimensions that remain after :func:`_reduced` number at most two (two by the
    gcd of their strides: the smallest equal multiples); otherwise by enumerating up to ``budget``
    elements, past which a LayoutError names the budget.
    """
    dims = _reduced(sizes, strides)
    rank = len(sizes)
    if len(dims) < 2:
        return None
    if len(dims) == 2:
        (n1, s1, _), (n2, s2, _) = dims
        g = math.gcd(s1, s2)
        if s2 // g < n1 and s1 // g < n2:  # (s2/g) steps of s1 land where (s1/g) steps of s2 do
            return _coords(rank, dims, (s2 // g, 0)), _coords(rank, dims, (0, s1 // g))
        return None
    count = _product([d.size for d in dims])
    if count > budget:
        raise _budget_error(f"whether sizes {list(sizes)} with strides {list(strides)} overlap", count, budget)
    offsets = logical_offsets([d.size for d in dims], [d.stride for d in dims]).reshape(-1)
    order = np.argsort(offsets, kind="stable")
    same = np.flatnonzero(offsets[order][1:] == offsets[order][:-1])
    if not same.size:
        return None
    shape = [d.size for d in dims]
    first, second = (np.unravel_index(int(order[k]), shape) for k in (same[0], same[0] + 1))
    return _coords(rank, dims, [int(v) for v in first]), _coords(rank, dims, [int(v) for v in second])


def analyze(sizes: Sequence[int], strides: Sequence[int]) -> LayoutFacts:
    """Decide the :class:`LayoutFacts` of a description exactly (see the module docstring)."""
    dims = _reduced(sizes, strides, peel=False)
    count = _product([d.size for d in dims])
    if _nests(dims):
        return LayoutFacts(count, True)
    if count <= ENUMERATION_LIMIT:  # count the offsets, which decides the overlap too
        offsets = np.sort(logical_offsets([d.size for d in dims], [d.stride for d in dims]), axis=None)
        distinct = 1 + int(np.count_nonzero(offsets[1:] != offsets[:-1]))
        return LayoutFacts(distinct, distinct == count)
    last = sum((d.size - 1) * d.stride for d in dims)
    # pigeonhole: more elements than offsets, so some share one; else arithmetic, within the budget
    injective = count <= last + 1 and self_collision(sizes, strides) is None
    return LayoutFacts(count if injective else None, injective)


def overlap(
    a: Any, b: Any, *, a_offset: SupportsIndex = 0, b_offset: SupportsIndex = 0
) -> tuple[Coords, Coords] | None:
    """Whether two descriptions over one buffer share an element: None, or one pair of coordinates
    (of ``a``, of ``b``) that land on the same element.

    ``a_offset`` and ``b_offset`` are where each description starts in the buffer, in elements; both
    must have the same element size (else TypeError). Decided by arithmetic where the gcd of all
    strides does not divide the distance between the starts, where the two spans do not meet, and
    where the dimensions left over (those of equal stride in ``a`` and ``b`` taken together, so the
    same strides at different offsets leave one per stride) number at most two, or where narrowing
    each one's range by the others' leaves few choices; otherwise by enumerating one side's offsets,
    decoded in the other where its strides nest. Whichever is cheaper; the work is bounded by
    :data:`stridelab._search.STEP_BUDGET` steps, past which a LayoutError names the budget.

    >>> from stridelab import TensorDesc
    >>> even = TensorDesc("FLOAT32", (4, 1000), (2000, 2))          # every other element
    >>> overlap(even, even, b_offset=1) is None                     # and the ones in between
    True
    >>> overlap(TensorDesc("UINT8", (3, 4)), TensorDesc("UINT8", (2, 2), (4, 1)), b_offset=5)
    ((1, 1), (0, 0))
    """
    from .desc import TensorDesc  # desc imports this module

    for name, desc in (("a", a), ("b", b)):
        if not isinstance(desc, TensorDesc):
            raise wrong_type(name, "a TensorDesc", desc)
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


def _nests(dims: Sequence[_Dim]) -> bool:
    """Each stride (sorted) reaches past every offset the smaller ones span."""
    extent = 1
    for d in dims:
        if d.stride < extent:
            return False
        extent += (d.size - 1) * d.stride
    return True
