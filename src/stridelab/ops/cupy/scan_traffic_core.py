"""What the scan kernels' traffic models share: ``struct Geo`` as named fields, template arguments,
and a *phase*: one kind of warp instruction of a kernel, listed per warp.

A phase answers, for arrays of (warp, instruction) pairs, the byte address each lane touches and
which lanes are active (the instruction's predicate). ``scan_traffic`` lists every phase of a plan
in bounded batches and counts them with :func:`stridelab._access.request_counts`. Warps are
numbered over the logical blocks of a launch (block ``w // 8``, warp ``w % 8`` of it), each block
once: the kernels' grid-stride loops visit every logical block exactly once, whatever the grid.

internal: used by :mod:`.scan_traffic` and :mod:`.scan_traffic_tiles`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .geometry import GEO_FIELDS, THREADS

__all__: list[str] = []

WARP = 32
WARPS = THREADS // WARP  # warps of a block
LANE = np.arange(WARP, dtype=np.int64)[None, :]  # lane of each column of a (requests, 32) array
ACC_BYTES = 4  # every accumulator type (float32, uint32) of the chunk totals

#: Which counter group of :class:`~stridelab._access.LaunchTraffic` a phase adds to.
LOADS, ASYNC_LOADS, STORES = 0, 1, 2

Lanes = tuple[np.ndarray, np.ndarray]  # (addresses, active), each (requests, 32)


class Geo(NamedTuple):
    """``struct Geo`` of ``common.cuh``: the outer dimensions innermost first (``n``, ``s``, ``d``
    cut to ``nd``), then the scalar fields, as the kernels read them."""

    n: tuple[int, ...]
    s: tuple[int, ...]
    d: tuple[int, ...]
    nd: int
    rows: int
    nx: int
    sx: int
    dx: int
    ny: int
    sy: int
    dy: int
    na: int
    sa: int
    da: int
    chunk: int
    nchunks: int
    tiles_x: int
    tiles_y: int
    nblocks: int
    lanes: int
    exclusive: int


def parse_geo(flat: tuple[int, ...]) -> Geo:
    """The named fields of a launch's flat ``struct Geo``."""
    values: dict[str, object] = {}
    at = 0
    for name, count in GEO_FIELDS:
        values[name] = tuple(flat[at : at + count]) if count > 1 else flat[at]
        at += count
    nd = int(values["nd"])  # type: ignore[call-overload]
    for name in "nsd":
        values[name] = values[name][:nd]  # type: ignore[index]
    return Geo(**values)  # type: ignore[arg-type]


def template_args(kernel: str) -> tuple[int, ...]:
    """The template arguments after the ``Scan<...>`` traits, as ints (``true`` is 1).

    >>> template_args("sl_scan_lines<Scan<F16, Sum>, 8, 4, true, false>")
    (8, 4, 1, 0)
    """
    inner = kernel[kernel.index("<") + 1 : kernel.rindex(">")]
    rest = inner[inner.index(">") + 1 :]
    return tuple(int({"true": "1", "false": "0"}.get(a.strip(), a.strip())) for a in rest.split(",")[1:])


def decompose(g: Geo, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sl_decompose``: element offsets (source, destination) of outer rows ``r``."""
    so = np.zeros(r.shape, dtype=np.int64)
    do = np.zeros(r.shape, dtype=np.int64)
    for n, s, d in zip(g.n, g.s, g.d):
        c = r % n
        r = r // n
        so += c * s
        do += c * d
    return so, do


class Phase(NamedTuple):
    """One kind of warp instruction: ``per_warp`` instances in each of ``warps`` warps, each lane
    moving ``width`` bytes; ``at(w, j)`` gives instance ``j`` of warp ``w`` (arrays of equal length)
    as (byte addresses, active lanes), each of shape ``(len(w), 32)``. ``group``: LOADS,
    ASYNC_LOADS or STORES."""

    group: int
    width: int
    warps: int
    per_warp: int
    at: Callable[[np.ndarray, np.ndarray], Lanes]

    @property
    def accesses(self) -> int:
        """Lanes listed for this phase (active or not)."""
        return self.warps * self.per_warp * WARP


def thread_ids(w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Logical block, warp in the block and ``threadIdx.x`` of every lane of warps ``w``, as
    ``(len(w), 1)``, ``(len(w), 1)`` and ``(len(w), 32)`` arrays."""
    block, warp = (w // WARPS)[:, None], (w % WARPS)[:, None]
    return block, warp, warp * WARP + LANE


def at_bytes(base: int, elements: np.ndarray, esize: int) -> np.ndarray:
    """Byte addresses of element offsets from a view's element 0 at ``base``."""
    return base + elements * esize
