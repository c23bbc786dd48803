"""The NumPy backend: ``copy`` and ``scan`` over :class:`~stridelab.ops._plan.BufferView` s.

The reference backend, and vectorised: no Python loop runs over elements or lines. Both primitives
read and write through strided views of the flat buffers (what ``as_strided`` makes, built directly
with the ``ndarray`` constructor: a seventh of the overhead, and numpy checks that every reachable
element lies inside the buffer), so a padded, transposed, broadcast or reversed input is never
packed first.

``scan`` picks its strategy from the layout. ``np.cumsum`` is fast only along the axis innermost in
memory (elsewhere it walks each line with a large stride, element after element); there it is used.
Along any other axis a loop over the axis's positions adds whole planes, ``acc += x[k]; out[k] = acc``,
each plane a single vectorised operation over every line at once, in the input's memory order. That
loop is also used along an innermost axis of at most :data:`SHORT_AXIS` positions, where the
per-line overhead of ``np.cumsum`` dominates, and is avoided where planes hold fewer than
:data:`SMALL_PLANE` elements, where the per-plane overhead of Python would. Large planes are split
into pieces of at most :data:`PIECE_BYTES` so that the accumulator stays in cache. Every strategy
adds the elements of each line in the same order, so all give the same bits.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ._plan import BufferView

__all__ = ["PIECE_BYTES", "SHORT_AXIS", "SMALL_PLANE", "copy", "scan"]

#: An innermost scan axis this short is scanned plane by plane (measured crossover: 4 to 8).
SHORT_AXIS = 4
#: Planes with fewer elements are scanned by ``np.cumsum`` (a Python step costs about a microsecond).
SMALL_PLANE = 1024
#: The largest accumulator piece of the plane loop, in bytes (fits a core's L2 cache).
PIECE_BYTES = 1 << 18


def _array(view: BufferView) -> np.ndarray:
    """The strided array ``view`` describes, over its buffer without copying (read-only where the
    buffer is). Negative strides reach back from the offset into the buffer."""
    buffer = view.buffer
    itemsize = buffer.itemsize
    return np.ndarray(
        view.sizes, buffer.dtype, buffer, view.offset * itemsize, tuple(s * itemsize for s in view.strides)
    )


def copy(src: BufferView, dst: BufferView) -> None:
    """``dst[c] = src[c]`` for every coordinate ``c`` (the views never share an element; where they
    share memory, interleaved, NumPy buffers the copy as needed)."""
    np.copyto(_array(dst), _array(src))


def scan(src: BufferView, dst: BufferView, axis: int, exclusive: bool) -> None:
    """Running tally of ``src`` along ``axis`` in increasing coordinate order, written to ``dst``.

    FLOAT32 accumulates in float32; FLOAT16 keeps the running total in float32 and rounds each
    written value once; integers wrap modulo 2**bits. Exclusive: the first written value is 0 and
    the total is never written. In place (``src.buffer is dst.buffer``), each element is read
    before it is written. Overflow to infinity is IEEE arithmetic here, as on a GPU, not a warning.
    """
    x = _array(src)
    y = _array(dst)
    if x.ndim > 1:  # visit dimensions in the input's memory order, outermost first (then the output's)
        order = sorted(range(x.ndim), key=lambda i: (-abs(src.strides[i]), -abs(dst.strides[i])))
        if order != list(range(x.ndim)):
            x = x.transpose(order)
            y = y.transpose(order)
            axis = order.index(axis)
    total = np.dtype(np.float32) if x.dtype == np.float16 else x.dtype
    if total.kind != "f":  # integer sums wrap silently
        _scan(x, y, axis, exclusive, total)
        return
    with np.errstate(over="ignore", invalid="ignore"):
        _scan(x, y, axis, exclusive, total)


def _scan(x: np.ndarray, y: np.ndarray, axis: int, exclusive: bool, total: np.dtype) -> None:
    """Pick the strategy from the layout (see the module docstring); ``x``'s dimensions are in its
    memory order."""
    innermost = _innermost(x, axis)
    if x.size // x.shape[axis] < SMALL_PLANE or (innermost and x.shape[axis] > SHORT_AXIS):
        _scan_cumsum(x, y, axis, exclusive, total)
    elif innermost or not _innermost(y, axis):
        _scan_planes(np.moveaxis(x, axis, 0), np.moveaxis(y, axis, 0), exclusive, total)
    else:  # planes written across the output's innermost axis would scatter every element: scan in
        # the input's order, then copy once
        scanned = np.empty(x.shape, y.dtype)
        _scan_planes(np.moveaxis(x, axis, 0), np.moveaxis(scanned, axis, 0), exclusive, total)
        np.copyto(y, scanned)


def _scan_cumsum(x: np.ndarray, y: np.ndarray, axis: int, exclusive: bool, total: np.dtype) -> None:
    """``np.cumsum`` (as ``np.add.accumulate``, without its wrapper's overhead) along ``axis``.

    An exclusive scan writes the cumulative sum of all but the last element one position further
    on, then zeroes the first position (after the sum: in place, that position still holds an input).
    """
    head = (slice(None),) * axis
    full = y
    if exclusive:
        n = x.shape[axis]
        x = x[(*head, slice(0, n - 1))]
        y = y[(*head, slice(1, n))]
    if x.dtype == total and _same_order(y):
        np.add.accumulate(x, axis, total, y)
    else:  # float16, or an output in another memory order: one temporary, then one cast or copy
        np.copyto(y, np.add.accumulate(x, axis, total), casting="same_kind")
    if exclusive:
        full[(*head, 0)] = 0


def _innermost(a: np.ndarray, axis: int) -> bool:
    """Whether ``axis`` has the smallest non-zero stride of ``a`` (among dimensions of size > 1)."""
    step = abs(a.strides[axis])
    return step != 0 and all(n == 1 or s == 0 or abs(s) >= step for n, s in zip(a.shape, a.strides))


def _same_order(y: np.ndarray) -> bool:
    """Whether ``y`` lays out its dimensions outermost first, as the input (already sorted) does."""
    strides = [abs(s) for n, s in zip(y.shape, y.strides) if n > 1]
    return strides == sorted(strides, reverse=True)


def _scan_planes(x: np.ndarray, y: np.ndarray, exclusive: bool, total: np.dtype) -> None:
    """The plane loop; the scan axis is axis 0, the others are in the input's memory order. As in
    ``np.cumsum``, the first tally is the first element itself (a -0.0 stays -0.0). ``a[k, ...]``
    is a view even where planes are 0-d."""
    n = x.shape[0]
    for piece in _pieces(x.shape[1:], total.itemsize):
        xs = x[(slice(None), *piece)]
        ys = y[(slice(None), *piece)]
        acc = xs[0, ...].astype(total)  # a copy, taken before anything is written (in place)
        if exclusive:
            ys[0, ...] = 0
            nxt = np.empty_like(acc)
            for k in range(1, n):
                np.add(acc, xs[k, ...], out=nxt)  # read x[k] before out[k] is written (in place)
                np.copyto(ys[k, ...], acc, casting="same_kind")
                acc, nxt = nxt, acc
        else:
            np.copyto(ys[0, ...], acc, casting="same_kind")
            for k in range(1, n):
                np.add(acc, xs[k, ...], out=acc)
                np.copyto(ys[k, ...], acc, casting="same_kind")


def _pieces(shape: tuple[int, ...], itemsize: int) -> Iterator[tuple[int | slice, ...]]:
    """Indices that split an array of ``shape`` (C order) into pieces of at most :data:`PIECE_BYTES`,
    outermost dimensions first; a single piece where it already fits."""
    size = itemsize
    for n in shape:
        size *= n
    if size <= PIECE_BYTES or not shape:
        yield ()
        return
    inner = size // shape[0]
    if inner > PIECE_BYTES:
        for i in range(shape[0]):
            for rest in _pieces(shape[1:], itemsize):
                yield (i, *rest)
    else:
        step = PIECE_BYTES // inner
        for i in range(0, shape[0], step):
            yield (slice(i, i + step),)
