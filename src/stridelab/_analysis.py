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

:func:`overlap` decides the same question for two descriptions over one buffer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, SupportsIndex

import numpy as np

from ._validate import int_value, wrong_type
from .errors import LayoutError

__all__ = ["ENUMERATION_LIMIT", "LayoutFacts", "analyze", "logical_offsets", "overlap", "self_collision"]

#: The most elements :func:`analyze` enumerates for a description whose strides do not nest: the
#: memory-map budget (:data:`stridelab.memmap.DEFAULT_LIMIT`), a fraction of a second of work.
ENUMERATION_LIMIT = 4_000_000

#: The most elements :func:`overlap` decodes, in chunks of ``_CHUNK``, against a description whose
#: strides nest (a few seconds of work at most).
DECODE_LIMIT = 16 * ENUMERATION_LIMIT
_CHUNK = 1 << 20

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
    must have the same element size (else TypeError). Exact at any size where the gcd of all strides
    does not divide the distance between the starts, where the two buffers' spans do not meet, and
    where the two descriptions have at most two dimensions of size > 1 between them (by the extended
    Euclidean algorithm); otherwise a search: one description's offsets, in chunks, decoded in the
    other where its strides nest (up to ``DECODE_LIMIT`` elements), else both sides' offsets
    intersected (up to ``ENUMERATION_LIMIT`` each); past that a LayoutError names the budget.

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
            raise LayoutError(f"{name} = {value}: an offset into the buffer is 0 or more")
    if a_offset + a.last_offset < b_offset or b_offset + b.last_offset < a_offset:
        return None
    da, db = _reduced(a.sizes, a.strides, peel=False), _reduced(b.sizes, b.strides, peel=False)
    target = b_offset - a_offset  # sum of a's steps - sum of b's steps must make up this distance
    g = math.gcd(*(d.stride for d in (*da, *db)))
    if g == 0 or target % g:
        return (_coords(a.dimension_count, [], []), _coords(b.dimension_count, [], [])) if target == 0 else None
    terms = [(d, 1) for d in da] + [(d, -1) for d in db]
    if len(terms) <= 2:
        steps = _solve([sign * d.stride for d, sign in terms], [d.size for d, _ in terms], target)
        if steps is None:
            return None
        return _coords(a.dimension_count, da, steps[: len(da)]), _coords(b.dimension_count, db, steps[len(da) :])
    return _search(a, da, a_offset, b, db, b_offset)


def _solve(coefficients: Sequence[int], sizes: Sequence[int], target: int) -> list[int] | None:
    """Steps ``0 <= x[i] < sizes[i]`` with ``sum(coefficients[i] * x[i]) == target``, for one or
    two non-zero coefficients, or None; ``target`` is a multiple of their gcd (overlap checks it)."""
    if len(coefficients) == 1:
        (c,), (n,) = coefficients, sizes
        return [target // c] if 0 <= target // c < n else None
    (c1, c2), (n1, n2) = coefficients, sizes
    g, p, q = _extended_gcd(abs(c1), abs(c2))
    p, q = p * (1 if c1 > 0 else -1), q * (1 if c2 > 0 else -1)  # p * c1 + q * c2 == g
    x0, y0, along_x, along_y = p * (target // g), q * (target // g), c2 // g, -(c1 // g)
    low, high = _steps_within(x0, along_x, n1 - 1), _steps_within(y0, along_y, n2 - 1)  # x = x0 + k * along_x
    first, last = max(low[0], high[0]), min(low[1], high[1])
    if first > last:
        return None
    return [x0 + first * along_x, y0 + first * along_y]


def _steps_within(start: int, step: int, top: int) -> tuple[int, int]:
    """The range of k with ``0 <= start + k * step <= top`` (``step`` non-zero)."""
    if step > 0:
        return -(start // step), (top - start) // step
    return -((top - start) // -step), start // -step


def _extended_gcd(a: int, b: int) -> tuple[int, int, int]:
    """``(g, p, q)`` with ``p * a + q * b == g == gcd(a, b)``, for a, b > 0."""
    p0, q0, p1, q1 = 1, 0, 0, 1
    while b:
        quotient, a, b = a // b, b, a % b
        p0, p1 = p1, p0 - quotient * p1
        q0, q1 = q1, q0 - quotient * q1
    return a, p0, q0


def _nests(dims: Sequence[_Dim]) -> bool:
    """Each stride (sorted) reaches past every offset the smaller ones span."""
    extent = 1
    for d in dims:
        if d.stride < extent:
            return False
        extent += (d.size - 1) * d.stride
    return True


def _search(a: Any, da: list[_Dim], a_offset: int, b: Any, db: list[_Dim], b_offset: int) -> tuple | None:
    """Enumerate one description's offsets, in chunks, and decode each in the other where its strides
    nest (up to ``DECODE_LIMIT`` elements); where neither nests, intersect both sides' offsets (up to
    ``ENUMERATION_LIMIT`` each)."""
    count_a, count_b = _product([d.size for d in da]), _product([d.size for d in db])
    decodable = [(count_a, False)] if _nests(db) else []
    decodable += [(count_b, True)] if _nests(da) else []
    what = f"whether {a} and {b} share an element"
    if decodable:
        count, swapped = min(decodable)
        if count > DECODE_LIMIT:
            raise LayoutError(f"{what} is not decided: it would decode {count} elements (budget {DECODE_LIMIT})")
    elif max(count_a, count_b) > ENUMERATION_LIMIT:
        raise _budget_error(what, max(count_a, count_b), ENUMERATION_LIMIT)
    else:
        swapped = False
    if swapped:
        a, da, a_offset, b, db, b_offset = b, db, b_offset, a, da, a_offset
    shift = a_offset - b_offset  # an offset of a, relative to b's start
    wide = a.last_offset + b.last_offset + abs(shift) >= _INT64_SAFE  # past int64: Python ints
    found = _decode_chunks(da, shift, db, wide) if decodable else _intersect(da, shift, db, wide)
    if found is None:
        return None
    steps_a, steps_b = found
    pair = _coords(a.dimension_count, da, steps_a), _coords(b.dimension_count, db, steps_b)
    return (pair[1], pair[0]) if swapped else pair


def _chunk_offsets(dims: Sequence[_Dim], first: int, stop: int, wide: bool) -> np.ndarray:
    """Offsets of the elements ``first`` to ``stop - 1`` (row-major over ``dims``)."""
    offsets = np.zeros(stop - first, dtype=object if wide else np.int64)
    if dims:  # no dimensions: a single element, at 0
        steps = np.unravel_index(np.arange(first, stop, dtype=np.int64), [d.size for d in dims])
        for d, step in zip(dims, steps):
            offsets += step.astype(offsets.dtype) * d.stride
    return offsets


def _steps(index: int, dims: Sequence[_Dim]) -> list[int]:
    """The steps along ``dims`` of the element ``index`` in row-major order."""
    return [int(v) for v in np.unravel_index(index, [d.size for d in dims])] if dims else []


def _decode_chunks(da: list[_Dim], shift: int, db: list[_Dim], wide: bool) -> tuple | None:
    count = _product([d.size for d in da])
    for first in range(0, count, _CHUNK):
        relative = _chunk_offsets(da, first, min(count, first + _CHUNK), wide) + shift
        hit = _decode(relative, db)
        if hit is not None:
            index, steps_b = hit
            return _steps(first + index, da), steps_b
    return None


def _intersect(da: list[_Dim], shift: int, db: list[_Dim], wide: bool) -> tuple | None:
    ours = _chunk_offsets(da, 0, _product([d.size for d in da]), wide) + shift
    theirs = _chunk_offsets(db, 0, _product([d.size for d in db]), wide)
    _, in_a, in_b = np.intersect1d(ours, theirs, return_indices=True)
    if not in_a.size:
        return None
    return _steps(int(in_a[0]), da), _steps(int(in_b[0]), db)


def _decode(relative: np.ndarray, dims: list[_Dim]) -> tuple[int, list[int]] | None:
    """The first of the ``relative`` offsets that is one of the offsets of ``dims`` (whose strides
    nest), as its index and its steps along ``dims``; None if there is none."""
    rest = relative.copy()
    valid = np.asarray(rest >= 0, dtype=bool)
    steps = []
    for d in reversed(dims):  # outermost first: each step count is determined, as the rest is smaller
        step = np.where(valid, rest // d.stride, 0)
        valid &= np.asarray(step < d.size, dtype=bool)
        rest = rest - step * d.stride
        steps.append(step)
    valid &= np.asarray(rest == 0, dtype=bool)
    hits = np.flatnonzero(valid)
    if not hits.size:
        return None
    k = int(hits[0])
    return k, [int(s[k]) for s in reversed(steps)]
