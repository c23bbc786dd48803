"""The two primitives every operator reduces to, and the one simplification of their views.

* ``copy``: ``dst[c] = src[c]`` for every coordinate ``c``. SLICE1 is a copy from a view whose
  strides are ``window_strides * input strides`` and whose offset is the copy start;
  ELEMENT_WISE_IDENTITY is a copy between two descriptions.
* ``scan``: the running tally of a :class:`ScanOperator` along an axis in increasing coordinate
  order. A decreasing tally is the same scan over views that start at the end of the axis and step
  backwards (a negative stride).

A view is a flat buffer, the element offset of logical coordinate 0, sizes and signed element
strides. The engine (:mod:`._engine`) brings each pair of views to its :func:`canonical_pair` once;
each backend (``_numpy``, the reference, and ``cupy.runtime``) prepares a primitive for that pair
(``prepare_copy`` / ``prepare_scan``) and runs it on the buffers and offsets of a call.

``src`` and ``dst`` never share an element (they may share memory, interleaved), except in an in-place
scan: there both have the same buffer object and the same offset, sizes and strides, and a backend
must read each element before it writes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

__all__ = ["CanonicalPair", "ScanOperator", "canonical_pair"]


@dataclass(frozen=True)
class ScanOperator:
    """A running tally: how each backend combines two values.

    ``name``: the DirectML operator (``CUMULATIVE_SUMMATION``); ``ufunc``: the NumPy ufunc whose
    ``accumulate`` is the inclusive scan and whose ``identity`` an exclusive scan writes first;
    ``cuda``: the operator trait in ``cuda/scan_common.cuh`` (``Sum``); ``data_types``: the DirectML
    tensor support table.
    """

    name: str
    ufunc: np.ufunc
    cuda: str
    data_types: tuple[str, ...]
    identity: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "identity", int(self.ufunc.identity))


class CanonicalPair(NamedTuple):
    """A source and a destination layout reduced to the fewest dimensions that pair the same
    elements in the same order (see :func:`canonical_pair`); offsets in elements, from each view's
    logical coordinate 0."""

    sizes: tuple[int, ...]
    src_strides: tuple[int, ...]
    dst_strides: tuple[int, ...]
    axis: int | None
    src_shift: int
    dst_shift: int


def canonical_pair(sizes, src_strides, dst_strides, axis: int | None = None) -> CanonicalPair:
    """The one simplification of a strided (source, destination) pair that both backends use.

    Dimensions of size 1 are dropped; those the destination walks backwards are reversed in both
    views (element 0 of each shifts by ``src_shift`` / ``dst_shift``); the rest are sorted by
    destination stride, outermost first, and neighbours that step through both views as through a
    single dimension (outer stride = inner stride * inner size) are merged. A scan's ``axis`` is
    kept out of all this (its order matters, and a size-1 axis gets stride 0) and put last.
    A packed copy becomes one dimension whatever its rank; an NCHW -> NHWC copy keeps three.

    >>> canonical_pair((1, 2, 3, 4), (24, 12, 4, 1), (24, 12, 4, 1), axis=2)
    CanonicalPair(sizes=(2, 4, 3), src_strides=(12, 1, 4), dst_strides=(12, 1, 4), axis=2, src_shift=0, dst_shift=0)
    """
    if not len(sizes) == len(src_strides) == len(dst_strides):
        raise ValueError(
            f"sizes {sizes}, source strides {src_strides} and destination strides {dst_strides} differ in rank"
        )
    shift_s = shift_d = 0
    dims = []
    for i, (n, s, d) in enumerate(zip(sizes, src_strides, dst_strides)):
        if i == axis or n == 1:
            continue
        if d < 0 or (d == 0 and s < 0):
            shift_s += (n - 1) * s
            shift_d += (n - 1) * d
            s, d = -s, -d
        dims.append((n, s, d))
    dims.sort(key=lambda t: (t[2], abs(t[1])), reverse=True)
    merged: list[tuple[int, int, int]] = []
    for n, s, d in dims:
        if merged and merged[-1][1] == n * s and merged[-1][2] == n * d:
            merged[-1] = (merged[-1][0] * n, s, d)
        else:
            merged.append((n, s, d))
    if axis is not None:
        n = sizes[axis]
        merged.append((n, src_strides[axis], dst_strides[axis]) if n > 1 else (1, 0, 0))
    elif not merged:  # a single element
        merged.append((1, 0, 0))
    return CanonicalPair(
        tuple(t[0] for t in merged),
        tuple(t[1] for t in merged),
        tuple(t[2] for t in merged),
        None if axis is None else len(merged) - 1,
        shift_s,
        shift_d,
    )
