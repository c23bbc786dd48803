"""The NumPy backend: the ``copy`` and ``scan`` primitives of :mod:`._primitives` on NumPy buffers.

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

Large calls run on several threads (:mod:`._threads`): the views are cut into tiles along a
dimension other than the scan axis, each tile scanned or copied by the strategy above, so every
line is still added in one place in the same order and the bits do not depend on the thread count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

import numpy as np

from . import _threads
from ._primitives import CanonicalPair, ScanOperator

__all__ = [
    "BLOCK_BYTES",
    "BLOCK_POSITIONS",
    "MIN_PLANE_BYTES",
    "PIECE_BYTES",
    "SHORT_AXIS",
    "SMALL_PLANE",
    "TILES_PER_THREAD",
    "prepare_copy",
    "prepare_scan",
]

#: An innermost scan axis this short is scanned plane by plane (the crossover lies between 4 and 8).
SHORT_AXIS = 4
#: Planes with fewer elements are scanned by ``np.cumsum`` (a Python step costs about a microsecond).
SMALL_PLANE = 1024
#: The largest accumulator piece of the plane loop, in bytes (fits a core's L2 cache).
PIECE_BYTES = 1 << 18
#: Where the scan axis is the output's innermost one, planes go out in blocks of this many axis
#: positions (each output line then gets runs of that many elements) through a temporary of at
#: most BLOCK_BYTES.
BLOCK_POSITIONS = 8
BLOCK_BYTES = 1 << 19
#: Large calls run on several threads (:mod:`._threads`) in tiles of at least ``_threads.MIN_BYTES``,
#: this many a thread; the plane loop only where each tile's planes hold this many bytes.
TILES_PER_THREAD = 4
MIN_PLANE_BYTES = 1 << 16

Runner = Callable[[np.ndarray, int, np.ndarray, int], None]
Step = Callable[[np.ndarray, np.ndarray], None]


def prepare_copy(dtype: np.dtype, pair: CanonicalPair) -> Runner:
    """``run(src_buffer, src_offset, dst_buffer, dst_offset)``: ``dst[c] = src[c]`` for every
    coordinate ``c`` of the canonical ``pair`` (the views never share an element; where they share
    memory, interleaved, NumPy buffers the copy as needed)."""
    shape, itemsize = pair.sizes, dtype.itemsize
    src_bytes = tuple(s * itemsize for s in pair.src_strides)
    dst_bytes = tuple(d * itemsize for d in pair.dst_strides)
    src_shift, dst_shift = pair.src_shift, pair.dst_shift
    nbytes = _size(shape) * itemsize

    def run(src: np.ndarray, src_offset: int, dst: np.ndarray, dst_offset: int) -> None:
        y = np.ndarray(shape, dtype, dst, (dst_offset + dst_shift) * itemsize, dst_bytes)
        x = np.ndarray(shape, dtype, src, (src_offset + src_shift) * itemsize, src_bytes)
        if nbytes < 2 * _threads.MIN_BYTES:
            np.copyto(y, x)
        else:
            _in_parallel(_copy, x, y, nbytes, None)

    return run


def _copy(x: np.ndarray, y: np.ndarray) -> None:
    np.copyto(y, x)


def _in_parallel(
    step: Step, x: np.ndarray, y: np.ndarray, nbytes: int, keep: int | None, plane: int | None = None
) -> None:
    """``step(x, y)`` as tiles of both cut along a dimension other than ``keep``, each tile at least
    :data:`~._threads.MIN_BYTES` of the ``nbytes`` written, :data:`TILES_PER_THREAD` tiles a thread
    (so that threads that finish early take more). ``plane``: the bytes of each NumPy operation of a
    step that loops in Python (the plane loop), of which a tile keeps at least :data:`MIN_PLANE_BYTES`.
    Each tile holds whole lines along ``keep``, so every element gets the same operations in the
    same order as in one call."""
    most = nbytes // _threads.MIN_BYTES
    if plane is not None:
        most = min(most, plane // MIN_PLANE_BYTES)
    workers = min(_threads.thread_count(), most)
    parts = _threads.tiles(x.shape, min(most, workers * TILES_PER_THREAD), keep) if workers > 1 else [()]
    if len(parts) < 2:
        step(x, y)
    else:
        _threads.run([partial(step, x[p], y[p]) for p in parts], workers)


def prepare_scan(dtype: np.dtype, pair: CanonicalPair, exclusive: bool, operator: ScanOperator) -> Runner:
    """``run(src_buffer, src_offset, dst_buffer, dst_offset)``: the running tally of ``operator``
    along the canonical ``pair``'s axis in increasing coordinate order, written to the destination.

    FLOAT32 accumulates in float32; FLOAT16 keeps the running total in float32 and rounds each
    written value once; integers wrap modulo 2**bits. Exclusive: the first written value is the
    operator's identity and the total is never written. In place (the same buffer and view), each
    element is read before it is written. Overflow to infinity is IEEE arithmetic here, as on a
    GPU, not a warning.
    """
    itemsize = dtype.itemsize
    # visit dimensions in the input's memory order, outermost first (then the output's)
    order = sorted(range(len(pair.sizes)), key=lambda i: (-abs(pair.src_strides[i]), -abs(pair.dst_strides[i])))
    shape = tuple(pair.sizes[i] for i in order)
    src_bytes = tuple(pair.src_strides[i] * itemsize for i in order)
    dst_bytes = tuple(pair.dst_strides[i] * itemsize for i in order)
    assert pair.axis is not None, "a scan's pair keeps its axis"
    axis = order.index(pair.axis)
    total = np.dtype(np.float32) if dtype == np.float16 else dtype
    identity = operator.identity if exclusive else None
    step, plane = _strategy(shape, src_bytes, dst_bytes, axis, dtype, total, identity, operator.ufunc)
    src_shift, dst_shift = pair.src_shift, pair.dst_shift
    floats = total.kind == "f"
    # on every thread of a large call: NumPy's error state is per thread
    tile = partial(_ignoring_overflow, step) if floats else step
    nbytes = _size(shape) * itemsize

    def run(src: np.ndarray, src_offset: int, dst: np.ndarray, dst_offset: int) -> None:
        x: np.ndarray = np.ndarray(shape, dtype, src, (src_offset + src_shift) * itemsize, src_bytes)
        y: np.ndarray = np.ndarray(shape, dtype, dst, (dst_offset + dst_shift) * itemsize, dst_bytes)
        if nbytes >= 2 * _threads.MIN_BYTES:
            _in_parallel(tile, x, y, nbytes, axis, plane)
        elif floats:
            with np.errstate(over="ignore", invalid="ignore"):
                step(x, y)
        else:  # integer tallies wrap silently
            step(x, y)

    return run


def _ignoring_overflow(step: Step, x: np.ndarray, y: np.ndarray) -> None:
    with np.errstate(over="ignore", invalid="ignore"):
        step(x, y)


def _size(shape: tuple[int, ...]) -> int:
    size = 1
    for n in shape:
        size *= n
    return size


def _strategy(
    shape, src_bytes, dst_bytes, axis: int, dtype: np.dtype, total: np.dtype, identity, ufunc
) -> tuple[Step, int | None]:
    """Pick the strategy from the layout (see the module docstring), with every choice that depends
    only on the layout made here; dimensions are in the input's memory order. Also the bytes of a
    plane where the step is the plane loop."""
    innermost = _innermost(shape, src_bytes, axis)
    if _size(shape) // shape[axis] < SMALL_PLANE or (innermost and shape[axis] > SHORT_AXIS):
        return _accumulate(shape, dst_bytes, axis, dtype, total, identity, ufunc), None

    # planes written across the output's innermost axis would scatter every element: they go out
    # in blocks instead
    blocks = not innermost and _innermost(shape, dst_bytes, axis)

    def planes(x: np.ndarray, y: np.ndarray) -> None:
        _scan_planes(np.moveaxis(x, axis, 0), np.moveaxis(y, axis, 0), identity, total, ufunc, blocks)

    return planes, _size(shape) // shape[axis] * dtype.itemsize


def _accumulate(shape, dst_bytes, axis: int, dtype: np.dtype, total: np.dtype, identity, ufunc) -> Step:
    """``ufunc.accumulate`` (``np.cumsum`` for ``np.add``, without its wrapper's overhead) along
    ``axis``: straight into the output where it has the input's memory order and type, else through
    cache-sized temporaries, each then cast or copied out.

    An exclusive scan writes the scan of all but the last element one position further on, then
    writes the identity at the first position (after the scan: in place, that position still holds
    an input).
    """
    direct = dtype == total and _descending([abs(b) for n, b in zip(shape, dst_bytes) if n > 1])

    def inclusive(x: np.ndarray, y: np.ndarray) -> None:
        if direct:
            ufunc.accumulate(x, axis, total, y)
            return
        # through temporaries of at most BLOCK_BYTES, a piece of the dimensions before the axis
        # at a time: one as large as the output would cost a second new array's first touch
        inner = x.itemsize
        for n in x.shape[axis:]:
            inner *= n
        for piece in _pieces(x.shape[:axis], inner, BLOCK_BYTES):
            dropped = sum(isinstance(i, int) for i in piece)
            np.copyto(y[piece], ufunc.accumulate(x[piece], axis - dropped, total), casting="same_kind")

    if identity is None:
        return inclusive
    head: tuple[slice, ...] = (slice(None),) * axis
    n = shape[axis]
    inputs, outputs = (*head, slice(0, n - 1)), (*head, slice(1, n))
    first: tuple[slice | int, ...] = (*head, 0)

    def exclusive(x: np.ndarray, y: np.ndarray) -> None:
        inclusive(x[inputs], y[outputs])
        y[first] = identity

    return exclusive


def _innermost(shape, strides, axis: int) -> bool:
    """Whether ``axis`` has the smallest non-zero stride (among dimensions of size > 1)."""
    step = abs(strides[axis])
    return step != 0 and all(n == 1 or s == 0 or abs(s) >= step for n, s in zip(shape, strides))


def _descending(strides: list[int]) -> bool:
    """Whether strides lay dimensions out outermost first, as the input's (already sorted) are."""
    return strides == sorted(strides, reverse=True)


def _scan_planes(
    x: np.ndarray, y: np.ndarray, identity, total: np.dtype, ufunc: np.ufunc, blocks: bool = False
) -> None:
    """The plane loop; the scan axis is axis 0, the others are in the input's memory order. As in
    ``ufunc.accumulate``, the first tally is the first element itself (a -0.0 stays -0.0).
    ``a[k, ...]`` is a view even where planes are 0-d.

    ``blocks``: the scan axis is the output's innermost one, where planes written straight there
    would scatter every element. Each piece of the planes is then scanned
    :data:`BLOCK_POSITIONS` positions at a time into a temporary in the input's order, which is
    copied out whole, so every output line gets a run of that many elements and the temporary
    stays in cache. The same operations in the same order either way.
    """
    n = x.shape[0]
    if blocks:
        step, itemsize, limit = BLOCK_POSITIONS, y.itemsize, BLOCK_BYTES // BLOCK_POSITIONS
    else:
        step, itemsize, limit = n, total.itemsize, None
    for piece in _pieces(x.shape[1:], itemsize, limit):
        index = (slice(None), *piece)
        xs, ys = x[index], y[index]
        block = np.empty((min(step, n), *xs.shape[1:]), y.dtype) if blocks else None
        acc = xs[0, ...].astype(total)  # a copy, taken before anything is written (in place)
        nxt = np.empty_like(acc)
        for start in range(0, n, step):
            stop = min(n, start + step)
            out = ys[start:stop] if block is None else block[: stop - start]
            for k in range(start, stop):
                target = out[k - start, ...]
                if k == 0:
                    if identity is None:
                        np.copyto(target, acc, casting="same_kind")
                    else:
                        target[...] = identity
                elif identity is None:
                    ufunc(acc, xs[k, ...], out=acc)
                    np.copyto(target, acc, casting="same_kind")
                else:
                    ufunc(acc, xs[k, ...], out=nxt)  # read x[k] before out[k] is written (in place)
                    np.copyto(target, acc, casting="same_kind")
                    acc, nxt = nxt, acc
            if blocks:
                np.copyto(ys[start:stop], out)


def _pieces(shape: tuple[int, ...], itemsize: int, limit: int | None = None) -> Iterator[tuple[int | slice, ...]]:
    """Indices that split an array of ``shape`` (C order) into pieces of at most ``limit`` bytes
    (default :data:`PIECE_BYTES`), outermost dimensions first; a single piece where it already fits."""
    limit = PIECE_BYTES if limit is None else limit
    size = itemsize
    for n in shape:
        size *= n
    if size <= limit or not shape:
        yield ()
        return
    inner = size // shape[0]
    if inner > limit:
        for i in range(shape[0]):
            for rest in _pieces(shape[1:], itemsize, limit):
                yield (i, *rest)
    else:
        step = limit // inner
        for i in range(0, shape[0], step):
            yield (slice(i, i + step),)
