"""What every operator reduces to: element moves between two strided views of flat buffers.

The public operators validate their parameters and then describe their work as a *source* and a
*destination* :class:`BufferView` (a buffer, the element offset of logical coordinate 0, sizes and
signed element strides), so each backend implements just two primitives with identical arguments:

* ``copy(src, dst)``: ``dst[c] = src[c]`` for every coordinate ``c`` of ``dst.sizes``.
  SLICE1 is a copy from a view whose strides are ``window_strides * input strides`` and whose
  offset is the copy start; ELEMENT_WISE_IDENTITY is a copy between two descriptions.
* ``scan(src, dst, axis, exclusive)``: the running tally along ``axis`` in increasing coordinate
  order. A decreasing cumulative summation is the same scan over views that start at the end of
  the axis and step backwards (a negative stride).

``src`` and ``dst`` never share an element (they may share memory, interleaved), except in an in-place
scan: there both have the same buffer
object (``src.buffer is dst.buffer``) and the same offset, sizes and strides, and a backend must read
each element before it writes it. The front ends pass views already simplified by :func:`coalesce`.

Backends: ``_numpy`` (the reference, vectorised) and ``_cupy`` (RawKernels from ``cuda/*.cu``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["BufferView", "coalesce", "reversed_axis"]


@dataclass(frozen=True)
class BufferView:
    """A logical tensor over ``buffer`` (1-D numpy or cupy): the element at coordinates ``c`` is
    ``buffer[offset + dot(c, strides)]``. Strides are in elements and may be negative; every
    reachable index lies in ``[0, buffer.size)`` (the planner checks that before building one)."""

    buffer: Any
    offset: int
    sizes: tuple[int, ...]
    strides: tuple[int, ...]

    def __post_init__(self) -> None:
        # A size-1 dimension's stride moves no element, but a description may give it any value,
        # 2**70 included; zero it so backends never turn it into an overflowing byte stride.
        if 1 in self.sizes and any(n == 1 and s for n, s in zip(self.sizes, self.strides)):
            object.__setattr__(self, "strides", tuple(0 if n == 1 else s for n, s in zip(self.sizes, self.strides)))


def reversed_axis(view: BufferView, axis: int) -> BufferView:
    """The same elements with ``axis`` traversed from its last index to its first: the view starts
    at the axis's last index and steps back along it (its stride negated)."""
    strides = list(view.strides)
    step = strides[axis]
    strides[axis] = -step
    return BufferView(view.buffer, view.offset + (view.sizes[axis] - 1) * step, view.sizes, tuple(strides))


def coalesce(src: BufferView, dst: BufferView, axis: int | None = None) -> tuple[BufferView, BufferView, int | None]:
    """Fewer dimensions that pair the same source and destination elements in the same order.

    Drops dimensions of size 1 and merges a dimension into the one outside it wherever *both* views
    step through the pair as through a single dimension (outer stride = inner stride * inner size).
    ``axis`` (a scan axis) is kept, even at size 1, and never merged; its new index is returned.
    A packed NCHW copy becomes 1-D; an NCHW -> NHWC copy keeps its three independent dimensions.

    >>> v = BufferView(None, 0, (1, 2, 3, 4), (24, 12, 4, 1))
    >>> coalesce(v, v, axis=2)[0].sizes, coalesce(v, v, axis=2)[2]
    ((2, 3, 4), 1)
    """
    if src.sizes != dst.sizes:
        raise ValueError(f"source sizes {src.sizes} and destination sizes {dst.sizes} differ")
    sizes: list[int] = []
    src_strides: list[int] = []
    dst_strides: list[int] = []
    new_axis = None
    for i, (n, s, d) in enumerate(zip(src.sizes, src.strides, dst.strides)):
        if i == axis:
            new_axis = len(sizes)
        elif n == 1:
            continue
        elif sizes and new_axis != len(sizes) - 1 and src_strides[-1] == s * n and dst_strides[-1] == d * n:
            sizes[-1] *= n
            src_strides[-1] = s
            dst_strides[-1] = d
            continue
        sizes.append(n)
        src_strides.append(s)
        dst_strides.append(d)
    if not sizes:  # a single element
        sizes, src_strides, dst_strides = [1], [0], [0]
    shape = tuple(sizes)
    return (
        BufferView(src.buffer, src.offset, shape, tuple(src_strides)),
        BufferView(dst.buffer, dst.offset, shape, tuple(dst_strides)),
        new_axis,
    )
