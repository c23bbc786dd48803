"""The GPU memory traffic of a layout: :func:`access_pattern` and its :class:`AccessReport`.

A kernel that gives consecutive threads consecutive logical elements (CuPy's element-wise kernels,
the first thing anyone writes) makes one request per warp of 32 threads. How many 32-byte sectors
each request moves is decided by the strides alone: one sector serves every thread of a request
that touches it, so a packed float32 read moves 4 sectors per request, a transposed one 32. The
counts are exact integer arithmetic over the whole tensor (``_access_count``), not a sample.

internal: :func:`access_pattern` and :class:`AccessReport` are public as ``stridelab.access_pattern``
and ``stridelab.AccessReport``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ._access import Counts, Walk, walk_addresses
from ._access_count import count_walk
from ._arrays import layout_of
from ._desc_text import PlacedDesc
from ._strides import MAX_DIMENSIONS, _check_sizes
from ._validate import int_tuple, int_value, shown, wrong_type
from .desc import TensorDesc
from .dtypes import DataType
from .dtypes import data_type as as_data_type
from .errors import LayoutError

__all__: list[str] = []

_LINE_SECTORS = 4  # a cache line holds four sectors
MAX_WARP = 64  # AMD's wavefronts; NVIDIA's warps are 32 threads
MAX_SECTOR = 128
MAX_VECTOR = 32  # the widest load a GPU thread makes (256 bits)
MAX_SPAN = 2**62


class Request(NamedTuple):
    """One warp request of an :class:`AccessReport`: per thread (lane) the logical coordinates
    it reads and the byte address it reads from (None for a lane past the tensor's end), and the
    sectors (byte address // sector size) the request touches, in increasing order."""

    number: int
    coordinates: tuple[tuple[int, ...] | None, ...]
    addresses: tuple[int | None, ...]
    sectors: tuple[int, ...]


class DimensionAccess(NamedTuple):
    """What a warp walking along one dimension alone would touch: ``sectors`` per request for
    ``threads`` consecutive indices of dimension ``dim``, ``stride`` elements (``stride_bytes``)
    apart."""

    dim: int
    threads: int
    stride: int
    stride_bytes: int
    sectors: int

    def __str__(self) -> str:
        return (
            f"a warp along dimension {self.dim} touches {self.sectors} sector{'s' * (self.sectors != 1)}: "
            f"stride {self.stride} element{'s' * (abs(self.stride) != 1)} = {self.stride_bytes} B"
        )


@dataclass(frozen=True, eq=False)
class AccessReport:
    """The memory traffic over one layout of a kernel whose warps take consecutive logical elements.

    ``requests`` (one per warp), ``sectors`` and ``lines`` touched (each counted once per request
    however many threads share it), ``bytes``: the distinct bytes requested, and ``ideal_sectors``:
    the fewest sectors that hold them. Made by :func:`access_pattern`.

    >>> import stridelab as sl
    >>> report = sl.access_pattern(sl.TensorDesc("FLOAT16", (8, 64)))
    >>> report.requests, report.sectors_per_request, report.request(0).sectors
    (16, 2.0, (0, 1))
    """

    data_type: str
    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    order: tuple[int, ...]
    offset: int
    bytes_per_thread: int
    warp_size: int
    sector_bytes: int
    requests: int
    sectors: int
    lines: int
    bytes: int
    ideal_sectors: int
    _walk: Walk = field(repr=False)
    _origin: int = field(repr=False)

    @property
    def line_bytes(self) -> int:
        """The bytes of a cache line: four sectors."""
        return self.sector_bytes * _LINE_SECTORS

    @property
    def sectors_per_request(self) -> float:
        """The average sectors a request moves (Nsight Compute's "sectors per request")."""
        return self.sectors / self.requests

    @property
    def ideal_sectors_per_request(self) -> float:
        """The sectors per request of the same bytes packed into as few sectors as they fit."""
        return self.ideal_sectors / self.requests

    @property
    def efficiency(self) -> float:
        """``ideal_sectors / sectors``: 1.0 when every sector moved is full of requested bytes."""
        return self.ideal_sectors / self.sectors

    def request(self, index: int) -> Request:
        """Request ``index`` (0 is the first warp's), lane by lane."""
        index = int_value("index", index)
        if not 0 <= index < self.requests:
            raise LayoutError(f"index = {index}: the requests are numbered 0..{self.requests - 1}")
        addresses, active = walk_addresses(self._walk, index, 1)
        shift = self._origin - self._walk.base  # the walk counts from the origin modulo a line
        per_thread = self.bytes_per_thread // as_data_type(self.data_type).element_size
        walked = [self.sizes[d] for d in self.order]
        walked[-1] //= per_thread
        lanes: list[tuple[int, ...] | None] = []
        for lane in range(self.warp_size):
            thread = index * self.warp_size + lane
            if not active[0, lane]:
                lanes.append(None)
                continue
            coords = [0] * len(self.sizes)
            for d, n in zip(reversed(self.order), reversed(walked)):
                thread, coords[d] = divmod(thread, n)
            coords[self.order[-1]] *= per_thread if self.order else 1
            lanes.append(tuple(coords))
        lanes_at = [a + shift if on else None for a, on in zip(addresses[0].tolist(), active[0].tolist())]
        width = self._walk.width
        touched = sorted(
            {
                s
                for a in lanes_at
                if a is not None
                for s in range(a // self.sector_bytes, (a + width - 1) // self.sector_bytes + 1)
            }
        )
        shown_addresses = tuple(lanes_at)
        return Request(index, tuple(lanes), shown_addresses, tuple(touched))

    def dimensions(self) -> tuple[DimensionAccess, ...]:
        """Per dimension of size more than 1, what a warp walking along it alone touches from the
        tensor's element 0: the question "why is NCHW slow along C?" answered per axis."""
        size = as_data_type(self.data_type).element_size
        out = []
        for dim, (n, stride) in enumerate(zip(self.sizes, self.strides)):
            if n == 1:
                continue
            threads = min(n, self.warp_size)
            walk = Walk((threads,), (stride * size,), self._walk.base, size, self.warp_size, self.sector_bytes)
            out.append(DimensionAccess(dim, threads, stride, stride * size, count_walk(walk).sectors))
        return tuple(out)

    def __str__(self) -> str:
        return (
            f"{self.requests} request{'s' * (self.requests != 1)} of "
            f"{self.warp_size} threads x {self.bytes_per_thread} B: "
            f"{self.sectors} sectors ({self.sectors_per_request:.2f} per request, "
            f"ideal {self.ideal_sectors_per_request:.2f}), efficiency {self.efficiency:.0%}"
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, str], dict[str, Any]]:
        """Jupyter's display: the picture of the first requests (SVG, and PNG where Pillow is
        installed: see :mod:`stridelab.render.access`) and ``str(self)`` as text; the text alone,
        saying why, for a layout no memory map can draw (strides past DirectML's 32-bit ones)."""
        from .render.access import access_drawing
        from .render.access_paint import access_bundle

        try:
            drawing = access_drawing(self)
        except LayoutError as error:
            return {"text/plain": f"{self}\n(not drawn: {error})"}, {}
        return access_bundle(drawing, str(self))

    def __repr__(self) -> str:
        return (
            f"AccessReport({self.data_type} sizes={self.sizes} strides={self.strides} order={self.order} "
            f"offset={self.offset}: requests={self.requests}, sectors={self.sectors}, lines={self.lines}, "
            f"bytes={self.bytes}, ideal_sectors={self.ideal_sectors})"
        )


def access_pattern(
    layout: Any,
    *,
    order: Any = None,
    offset: int = 0,
    bytes_per_thread: int | None = None,
    warp_size: int = 32,
    sector_bytes: int = 32,
    data_type: Any = None,
) -> AccessReport:
    """The sectors and requests of a kernel that gives consecutive threads consecutive logical
    elements of ``layout``, one ``bytes_per_thread`` access each, ``warp_size`` threads a request.

    Parameters
    ----------
    layout
        A :class:`TensorDesc`, a :class:`PlacedDesc` (its element 0 ``offset`` elements into the
        buffer), a NumPy/CuPy/PyTorch array (its own signed strides), or ``(sizes, strides)``
        with signed element strides and ``data_type=``.
    order
        The dimensions from the outermost to the innermost walked (a permutation of the dimension
        indices); default: C order over the logical sizes.
    offset
        The byte address of the buffer's start (only its place within a line matters): it decides
        which sectors the first elements share. With negative strides, the buffer starts at the
        lowest element. An array's own address is not read: pass that of its lowest element to
        count from where it lies (``a.ctypes.data`` of a NumPy array without negative strides).
    bytes_per_thread
        Bytes each thread reads at once (a vector load of a power of two, at most 32, and a
        multiple of the element size); the innermost walked dimension must then be contiguous and
        a multiple of that many elements, and every thread's address a multiple of it.
    warp_size, sector_bytes
        Threads a request (32 on NVIDIA GPUs, 64 on AMD's), and bytes a sector (32); a line is
        four sectors.

    Examples
    --------
    A float32 NHWC tensor read in NCHW order touches a sector per thread; in its own order, four
    per warp:

    >>> import stridelab as sl
    >>> nhwc = sl.TensorDesc("FLOAT32", (1, 64, 32, 32), sl.layout_strides("NHWC", (1, 64, 32, 32)))
    >>> sl.access_pattern(nhwc).sectors_per_request
    32.0
    >>> print(sl.access_pattern(nhwc, order=(0, 2, 3, 1)))
    2048 requests of 32 threads x 4 B: 8192 sectors (4.00 per request, ideal 4.00), efficiency 100%
    """
    dtype, sizes, strides, element0 = _layout(layout, data_type)
    rank = len(sizes)
    _check_walkable(sizes, strides, dtype.element_size)
    walk_order = _order(order, rank)
    offset = int_value("offset", offset)
    if offset < 0:
        raise LayoutError(f"offset = {shown(offset)}: a byte address is 0 or more")
    warp = _power_of_two("warp_size", warp_size, MAX_WARP)
    sector = _power_of_two("sector_bytes", sector_bytes, MAX_SECTOR)
    size = dtype.element_size
    walked_sizes = [sizes[d] for d in walk_order]
    walked_strides = [strides[d] * size for d in walk_order]
    lowest = sum((n - 1) * s for n, s in zip(sizes, strides) if s < 0)
    origin = offset + (element0 - lowest) * size
    width = size
    if bytes_per_thread is not None:
        width = _power_of_two("bytes_per_thread", bytes_per_thread, MAX_VECTOR)
    if width != size:
        _check_vector(width, dtype, walked_sizes, walked_strides, origin)
        walked_sizes[-1] //= width // size
        walked_strides[-1] = width
    line = sector * _LINE_SECTORS
    walk = Walk(tuple(walked_sizes), tuple(walked_strides), origin % line, width, warp, sector, line)
    counts: Counts = count_walk(walk)
    return AccessReport(dtype.name, sizes, strides, walk_order, offset, width, warp, sector, *counts, walk, origin)


def _layout(layout: Any, data_type: Any) -> tuple[DataType, tuple[int, ...], tuple[int, ...], int]:
    """The data type, sizes, signed element strides and element-0 offset (elements) of ``layout``."""
    if isinstance(layout, PlacedDesc):
        desc, element0 = layout.desc, layout.offset
    elif isinstance(layout, TensorDesc):
        desc, element0 = layout, 0
    elif isinstance(layout, tuple) and len(layout) == 2 and not hasattr(layout, "dtype"):
        if data_type is None:
            raise TypeError("access_pattern(layout=(sizes, strides)) needs data_type=, e.g. data_type='FLOAT32'")
        sizes = _check_sizes(layout[0])
        strides = int_tuple("strides", layout[1])
        if len(strides) != len(sizes):
            raise LayoutError(
                f"strides {shown(strides)} has {len(strides)} entries; sizes {shown(sizes)} has {len(sizes)}"
            )
        return as_data_type(data_type), sizes, strides, 0
    elif hasattr(layout, "shape") and (hasattr(layout, "strides") or hasattr(layout, "stride")):
        read = layout_of(layout, "layout")
        return read.dtype, read.sizes, read.strides, 0
    else:
        raise wrong_type("layout", "a TensorDesc, PlacedDesc, array or (sizes, strides)", layout)
    if data_type is not None and as_data_type(data_type) != desc.dtype:
        raise LayoutError(f"data_type = {shown(data_type)}: the layout's own data type is {desc.data_type}")
    return desc.dtype, desc.sizes, desc.strides, element0


def _check_walkable(sizes: tuple[int, ...], strides: tuple[int, ...], size: int) -> None:
    """Refuse layouts with no element, no dimension, more than a TensorDesc's, or a span of
    addresses no GPU has (the counts are exact for spans below 2**62 bytes)."""
    if not sizes:
        raise LayoutError("layout has no dimensions (a 0-d array): give it one, e.g. a.reshape(1)")
    if len(sizes) > MAX_DIMENSIONS:
        raise LayoutError(f"layout has {len(sizes)} dimensions; a tensor has at most {MAX_DIMENSIONS}")
    if 0 in sizes:
        raise LayoutError(f"layout sizes {shown(sizes)} hold no element: no thread reads anything")
    span = sum((n - 1) * abs(s) for n, s in zip(sizes, strides)) * size
    if span >= MAX_SPAN:
        raise LayoutError(
            f"layout sizes {shown(sizes)}, strides {shown(strides)} span {span} bytes; the traffic is counted "
            "for layouts spanning less than 2**62 bytes"
        )


def _order(order: Any, rank: int) -> tuple[int, ...]:
    if order is None:
        return tuple(range(rank))
    walk_order = int_tuple("order", order)
    if sorted(walk_order) != list(range(rank)):
        raise LayoutError(
            f"order = {shown(order)}: it lists the dimensions from the outermost to the innermost walked, "
            f"a permutation of 0..{rank - 1}"
        )
    return walk_order


def _power_of_two(name: str, value: Any, largest: int) -> int:
    number = int_value(name, value)
    if number < 1 or number > largest or number & (number - 1):
        raise LayoutError(f"{name} = {shown(value)}: it must be a power of two from 1 to {largest}")
    return number


def _check_vector(width: int, dtype: DataType, sizes: list[int], strides: list[int], origin: int) -> None:
    """Refuse a vector load of ``width`` bytes that a GPU cannot make over the walk (``strides``
    in bytes, the innermost last), starting at byte ``origin``."""
    size = dtype.element_size
    if width % size:
        raise LayoutError(
            f"bytes_per_thread = {width}: it must be a multiple of the element size, {size} B ({dtype.name})"
        )
    per = width // size
    if strides[-1] != size or sizes[-1] % per:
        raise LayoutError(
            f"bytes_per_thread = {width}: a thread reads {per} consecutive elements at once, so the innermost "
            f"walked dimension must have stride 1 and a size that is a multiple of {per}, "
            f"not size {sizes[-1]}, stride {strides[-1] // size}"
        )
    if origin % width or any(s % width for s in strides[:-1]):
        raise LayoutError(
            f"bytes_per_thread = {width}: a vector load of {width} bytes needs every thread's address to be a "
            f"multiple of {width}, and here element 0 lies at byte {origin} with strides of "
            f"{shown(tuple(strides))} bytes"
        )
