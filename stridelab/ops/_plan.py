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

Backends: ``_numpy`` (the reference, vectorised) and ``_cupy`` (RawKernels from ``cuda/*.cu``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["BufferView"]


@dataclass(frozen=True)
class BufferView:
    """A logical tensor over ``buffer`` (1-D numpy or cupy): the element at coordinates ``c`` is
    ``buffer[offset + dot(c, strides)]``. Strides are in elements and may be negative; every
    reachable index lies in ``[0, buffer.size)`` (the planner checks that before building one)."""

    buffer: Any
    offset: int
    sizes: tuple[int, ...]
    strides: tuple[int, ...]
