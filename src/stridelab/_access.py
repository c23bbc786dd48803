"""What a warp's memory request touches: sectors, lines and bytes, counted from addresses.

A GPU serves one load or store instruction of a warp as one *request*; the memory system moves the
32-byte *sectors* (of 128-byte *lines*) that its active threads' bytes fall in, each sector once
however many threads share it. These are the counters Nsight Compute reports as
``l1tex__t_requests_pipe_lsu_mem_global_op_{ld,st}`` and ``l1tex__t_sectors_...``.

:class:`Walk` is the access pattern of the simplest kernel: thread ``t`` of the grid reads
``width`` bytes at the address of logical element ``t`` (in the walk's order), warp ``w`` holding
threads ``w * warp .. w * warp + warp - 1``. :func:`walk_addresses` lists the addresses of some of
its requests; :func:`request_counts` counts what given requests touch (any kernel's, however its
threads map to elements). ``_access_count`` counts a whole walk exactly without listing it.

internal: used by :func:`stridelab.access_pattern` and ``stridelab.ops.traffic``.
"""

from __future__ import annotations

from math import prod
from typing import NamedTuple

import numpy as np

__all__: list[str] = []


class Walk(NamedTuple):
    """Thread ``t`` reads ``width`` bytes at ``base + dot(index(t), strides)``, where ``index(t)``
    is the ``t``-th multi-index of ``sizes`` in C order (outermost first); ``strides`` in bytes,
    signed. ``warp`` threads make one request; memory moves in ``sector``-byte sectors of
    ``line``-byte lines (both powers of two)."""

    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    base: int
    width: int
    warp: int = 32
    sector: int = 32
    line: int = 128

    @property
    def threads(self) -> int:
        """How many threads (logical elements) the walk has."""
        return prod(self.sizes)

    @property
    def requests(self) -> int:
        """How many warp requests: one per warp, the last one possibly partial."""
        return -(-self.threads // self.warp)


class Counts(NamedTuple):
    """Totals over requests: ``sectors`` and ``lines`` touched (each once per request),
    ``bytes``: the distinct bytes each request touches, summed; ``ideal_sectors``: the fewest
    sectors that could hold each request's bytes (``ceil(bytes / sector)`` per request), summed."""

    requests: int
    sectors: int
    lines: int
    bytes: int
    ideal_sectors: int

    def __add__(self, other: object) -> Counts:
        if not isinstance(other, Counts):
            return NotImplemented
        return Counts(*(a + b for a, b in zip(self, other)))


NO_COUNTS = Counts(0, 0, 0, 0, 0)


class LaunchTraffic(NamedTuple):
    """What one kernel launch moves through L1: its global loads (Nsight Compute's ``op_ld``),
    loads staged into shared memory by ``cp.async`` (``op_ldgsts``) and stores (``op_st``)."""

    kernel: str
    grid: int
    block: tuple[int, int]
    loads: Counts
    async_loads: Counts
    stores: Counts


def walk_addresses(walk: Walk, first: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The byte addresses of requests ``first .. first + count - 1`` of ``walk``: an int64 array
    of shape ``(count, warp)`` and a boolean array of which threads are active (those past the
    walk's last element are not, and their address is 0).

    >>> addresses, active = walk_addresses(Walk((2, 3), (12, 4), base=0, width=4, warp=4), 0, 2)
    >>> addresses.tolist(), active.tolist()
    ([[0, 4, 8, 12], [16, 20, 0, 0]], [[True, True, True, True], [True, True, False, False]])
    """
    threads = np.arange(first * walk.warp, (first + count) * walk.warp, dtype=np.int64).reshape(count, walk.warp)
    active = threads < walk.threads
    addresses = np.full(threads.shape, walk.base, dtype=np.int64)
    rest = np.where(active, threads, 0)
    for size, stride in zip(reversed(walk.sizes), reversed(walk.strides)):
        addresses += (rest % size) * stride
        rest //= size
    addresses[~active] = 0
    return addresses, active


def request_counts(addresses: np.ndarray, active: np.ndarray, width: int, sector: int, line: int) -> Counts:
    """What the requests in the rows of ``addresses`` touch, each thread ``width`` bytes from its
    address (inactive threads touch nothing; a request with no active thread is not counted).

    >>> a = np.array([[0, 4, 8, 12], [0, 0, 0, 0], [0, 64, 128, 192]])
    >>> request_counts(a, np.ones(a.shape, bool), 4, 32, 128)
    Counts(requests=3, sectors=6, lines=4, bytes=36, ideal_sectors=3)
    """
    live = active.any(axis=1)
    addresses, active = addresses[live], active[live]
    if not len(addresses):
        return NO_COUNTS
    return Counts(
        len(addresses),
        int(units_touched(addresses, active, width, sector).sum()),
        int(units_touched(addresses, active, width, line).sum()),
        int((nbytes := bytes_touched(addresses, active, width)).sum()),
        int((-(-nbytes // sector)).sum()),
    )


def units_touched(addresses: np.ndarray, active: np.ndarray, width: int, unit: int) -> np.ndarray:
    """Per row, how many distinct ``unit``-byte units the active threads' bytes fall in."""
    first, last = addresses // unit, (addresses + width - 1) // unit
    # An inactive thread stands for its row's first active thread's first unit, counted once anyway.
    lead = np.take_along_axis(first, active.argmax(axis=1)[:, None], axis=1)
    first, last = np.where(active, first, lead), np.where(active, last, lead)
    spans = int((last - first).max(initial=0))
    units = np.concatenate([np.minimum(first + k, last) for k in range(spans + 1)], axis=1)
    units.sort(axis=1)
    return 1 + (np.diff(units, axis=1) != 0).sum(axis=1)


def bytes_touched(addresses: np.ndarray, active: np.ndarray, width: int) -> np.ndarray:
    """Per row, how many distinct bytes the active threads' ``width``-byte accesses cover."""
    lead = np.take_along_axis(addresses, active.argmax(axis=1)[:, None], axis=1)
    starts = np.sort(np.where(active, addresses, lead), axis=1)
    return width + np.minimum(np.diff(starts, axis=1), width).sum(axis=1)
