"""Exact facts about the logical-to-physical map ``c -> dot(c, strides)`` of a description.

Two facts decide the classification of a description: how many distinct buffer offsets its
elements use, and whether the map is one-to-one once broadcast dimensions (stride 0) are set aside.
They are decided without guessing:

* by reasoning, where the strides *nest*: sorted by stride, each stride is at least the extent
  ``1 + sum((n - 1) * s)`` of the dimensions inside it. Every NCHW, NHWC, permuted, padded or
  broadcast layout nests; then the map is one-to-one and uses ``prod(n)`` offsets, at any size;
* by the pigeonhole principle, where more elements than offsets exist (then it overlaps);
* by enumerating the offsets, where neither applies and the element count is within
  ``ENUMERATION_LIMIT``;
* otherwise by refusing with :class:`~stridelab.errors.LayoutError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .errors import LayoutError

__all__ = ["ENUMERATION_LIMIT", "LayoutFacts", "analyze", "logical_offsets"]

#: The most elements :func:`analyze` enumerates for a description whose strides do not nest: the
#: memory-map budget (:data:`stridelab.memmap.DEFAULT_LIMIT`), a fraction of a second of work.
ENUMERATION_LIMIT = 4_000_000

_INT64_SAFE = 1 << 62


@dataclass(frozen=True)
class LayoutFacts:
    """``distinct_offsets``: offsets used by at least one element (None where only the pigeonhole
    principle decided the overlap, beyond the enumeration limit). ``injective_apart_from_broadcast``:
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


def analyze(sizes: Sequence[int], strides: Sequence[int]) -> LayoutFacts:
    """Decide the :class:`LayoutFacts` of a description exactly (see the module docstring)."""
    dims = sorted((s, n) for n, s in zip(sizes, strides) if n > 1 and s > 0)
    count = _product([n for _, n in dims])
    extent = 1
    for s, n in dims:
        if s < extent:
            break
        extent += (n - 1) * s
    else:
        return LayoutFacts(count, True)
    last = sum((n - 1) * s for s, n in dims)
    if count > last + 1:  # pigeonhole: more elements than offsets, so some share one
        if count > ENUMERATION_LIMIT:
            return LayoutFacts(None, False)
    elif count > ENUMERATION_LIMIT:
        raise LayoutError(
            f"strides {list(strides)} with sizes {list(sizes)} do not nest, and deciding whether they overlap "
            f"would enumerate {count} elements (limit {ENUMERATION_LIMIT})"
        )
    offsets = np.sort(logical_offsets([n for _, n in dims], [s for s, _ in dims]), axis=None)
    distinct = 1 + int(np.count_nonzero(offsets[1:] != offsets[:-1]))
    return LayoutFacts(distinct, distinct == count)
