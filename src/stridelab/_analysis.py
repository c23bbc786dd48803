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

:func:`stridelab._overlap.overlap` decides the same question for two descriptions over one buffer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .errors import LayoutError

__all__: list[str] = []

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


def _nests(dims: Sequence[_Dim]) -> bool:
    """Each stride (sorted) reaches past every offset the smaller ones span."""
    extent = 1
    for d in dims:
        if d.stride < extent:
            return False
        extent += (d.size - 1) * d.stride
    return True
