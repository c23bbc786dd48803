"""Counting a whole :class:`~stridelab._access.Walk` exactly, without listing its requests.

A walk of a 16 GiB tensor has hundreds of millions of requests, yet what one request touches
depends on few things: the position of its first thread in the few innermost dimensions, whether
it runs past the end of the dimension that fills a warp (and, if it does, how many outer
dimensions carry), and its first address modulo a line. :func:`count_walk` counts how many
requests share each of those (per-dimension residue counts, folded dimension by dimension), then
counts each distinct request once. Small walks are listed outright (:data:`LISTED_REQUESTS`).

internal: used by :func:`stridelab.access_pattern` and ``stridelab.ops.traffic``.
"""

from __future__ import annotations

from collections import defaultdict
from math import gcd, prod

import numpy as np

from ._access import NO_COUNTS, Counts, Walk, bytes_touched, request_counts, units_touched, walk_addresses

__all__: list[str] = []

#: Walks of at most this many requests are counted by listing every request's addresses.
LISTED_REQUESTS = 4096

Residues = dict[tuple[int, int], int]  # (linear index mod warp, address mod line) -> how many


def count_walk(walk: Walk) -> Counts:
    """Exactly what every request of ``walk`` touches, summed.

    >>> count_walk(Walk((1024, 1024), (4, 4096), base=0, width=4))  # a transposed float32 read
    Counts(requests=32768, sectors=1048576, lines=1048576, bytes=4194304, ideal_sectors=131072)
    """
    walk = simplified(walk)
    if walk.requests <= LISTED_REQUESTS:
        return count_listed(walk)
    return count_folded(walk)


def simplified(walk: Walk) -> Walk:
    """``walk`` without size-1 dimensions and with each pair of dimensions that walks memory as
    one dimension merged: the same addresses, thread by thread."""
    sizes: list[int] = []
    strides: list[int] = []
    for size, stride in zip(walk.sizes, walk.strides):
        if size == 1:
            continue
        if sizes and strides[-1] == stride * size:
            sizes[-1] *= size
            strides[-1] = stride
        else:
            sizes.append(size)
            strides.append(stride)
    return walk._replace(sizes=tuple(sizes), strides=tuple(strides))


def count_listed(walk: Walk, chunk: int = 4096) -> Counts:
    """Count ``walk`` by listing its requests' addresses, ``chunk`` requests at a time."""
    total = NO_COUNTS
    for first in range(0, walk.requests, chunk):
        addresses, active = walk_addresses(walk, first, min(chunk, walk.requests - first))
        total += request_counts(addresses, active, walk.width, walk.sector, walk.line)
    return total


def count_folded(walk: Walk) -> Counts:
    """Count ``walk`` by classes of requests that touch the same (see the module's docstring)."""
    warp, mod = walk.warp, walk.line
    sizes, strides = walk.sizes[::-1], walk.strides[::-1]  # innermost first from here on
    if prod(sizes) <= warp:
        return count_listed(walk)
    pivot, low = 0, 1  # the dimension that fills a warp, and the product of those inside it
    while low * sizes[pivot] < warp:
        low *= sizes[pivot]
        pivot += 1
    low_walk = Walk(sizes[:pivot][::-1], strides[:pivot][::-1], 0, walk.width, max(low, 1))
    low_addresses = walk_addresses(low_walk, 0, 1)[0][0].tolist() if pivot else [0]
    size, stride = sizes[pivot], strides[pivot]

    carry, jumps = _outer_carries(sizes, strides, pivot, warp, mod)
    overflow = len(sizes) - 1 - pivot

    # The pivot: far from its end (`far` indices) no request carries; near it, each index apart.
    far = max(size - warp, 0)
    outer_all: Residues = defaultdict(int)
    for dist in carry.values():
        for key, n in dist.items():
            outer_all[key] += n
    classes: dict[tuple[int, int | None, int | None], np.ndarray] = defaultdict(lambda: np.zeros(mod, dtype=object))
    bulk = folded(residue_counts(far, low, stride, warp, mod), outer_all, warp, mod)
    for u in range(low):
        _gather(classes[(u, None, None)], bulk, -u, walk.base + low_addresses[u], warp, mod)
    for index in range(far, size):
        end = size - 1 - index
        point = (index * low % warp, index * stride % mod)
        for u in range(low):
            carries = (u + warp - 1) // low > end
            for lv, dist in carry.items():
                cls = (u, end, lv) if carries else (u, None, None)
                _gather(classes[cls], folded({point: 1}, dist, warp, mod), -u, walk.base + low_addresses[u], warp, mod)

    total = NO_COUNTS
    for (u, near, carried), per_residue in classes.items():
        jump = None if carried is None or carried == overflow else jumps[carried]
        total += _class_counts(walk, per_residue, _relative(u, near, jump, low_addresses, size, stride, warp, low))
    return total


def _outer_carries(
    sizes: tuple[int, ...], strides: tuple[int, ...], pivot: int, warp: int, mod: int
) -> tuple[dict[int, Residues], dict[int, int]]:
    """The dimensions outside the pivot (``sizes`` innermost first): per carry level L (how many
    of them are at their last index, so that a step past the pivot's end carries into dimension
    ``pivot + 1 + L``), the residues of their part of a request's first thread, and the byte jump
    of that carry. The last level (all at their last index) runs off the walk's end: no jump."""
    carry: dict[int, Residues] = {}
    last_point = (0, 0)
    for level, dim in enumerate(range(pivot + 1, len(sizes))):
        weight = prod(sizes[:dim])
        below = residue_counts(sizes[dim] - 1, weight, strides[dim], warp, mod)
        top = ((sizes[dim] - 1) * weight % warp, (sizes[dim] - 1) * strides[dim] % mod)
        every = dict(below)
        every[top] = every.get(top, 0) + 1
        carry = {lv: folded(dist, every, warp, mod) for lv, dist in carry.items()}
        if below:
            carry[level] = folded({last_point: 1}, below, warp, mod)
        last_point = ((last_point[0] + top[0]) % warp, (last_point[1] + top[1]) % mod)
    overflow = len(sizes) - 1 - pivot
    carry[overflow] = {last_point: 1}
    jumps = {
        lv: strides[pivot + 1 + lv] - sum((sizes[d] - 1) * strides[d] for d in range(pivot + 1, pivot + 1 + lv))
        for lv in carry
        if lv != overflow
    }
    return carry, jumps


def residue_counts(n: int, weight: int, stride: int, warp: int, mod: int) -> Residues:
    """How many ``r`` in ``range(n)`` give each ``(r * weight % warp, r * stride % mod)``."""
    along_warp, along_mod = warp // gcd(weight, warp), mod // gcd(stride, mod)
    period = along_warp * along_mod // gcd(along_warp, along_mod)
    counts: Residues = {}
    for r in range(min(period, n)):
        key = (r * weight % warp, r * stride % mod)
        counts[key] = counts.get(key, 0) + (n - r + period - 1) // period
    return counts


def folded(a: Residues, b: Residues, warp: int, mod: int) -> Residues:
    """The residues of a sum of one choice from ``a`` and one from ``b``, with their counts."""
    out: Residues = defaultdict(int)
    for (wa, ma), na in a.items():
        for (wb, mb), nb in b.items():
            out[((wa + wb) % warp, (ma + mb) % mod)] += na * nb
    return out


def _gather(into: np.ndarray, dist: Residues, lane0: int, shift: int, warp: int, mod: int) -> None:
    """Add the requests of ``dist`` whose first thread starts a warp (linear index residue
    ``lane0`` of the rest), by their first address modulo ``mod`` (shifted by ``shift``)."""
    for (w, m), n in dist.items():
        if (w - lane0) % warp == 0:
            into[(m + shift) % mod] += n


def _relative(
    u: int, end: int | None, jump: int | None, low_addresses: list[int], size: int, stride: int, warp: int, low: int
) -> tuple[np.ndarray, np.ndarray]:
    """A request's thread addresses relative to its first thread's, and which threads are active:
    its first thread at low position ``u``, ``end`` pivot indices before the pivot's last (None:
    far from it), carrying by ``jump`` bytes (None: running off the walk's end)."""
    rel = np.zeros(warp, dtype=np.int64)
    active = np.ones(warp, dtype=bool)
    for j in range(warp):
        v = u + j
        step = v // low
        rel[j] = low_addresses[v % low] - low_addresses[u]
        if end is None or step <= end:
            rel[j] += step * stride
        elif jump is None:
            active[j] = False
        else:
            rel[j] += (step - end - 1) * stride - (size - 1 - end) * stride + jump
    return rel, active


def _class_counts(walk: Walk, per_residue: np.ndarray, pattern: tuple[np.ndarray, np.ndarray]) -> Counts:
    """The totals of the requests of one class: ``per_residue[c]`` of them start at address ``c``
    modulo a line, their threads at ``pattern``'s relative addresses."""
    residues = np.flatnonzero(per_residue)
    if not len(residues):
        return NO_COUNTS
    rel, active = pattern
    addresses = residues[:, None].astype(np.int64) + rel[None, :]
    mask = np.broadcast_to(active, addresses.shape)
    counts = per_residue[residues]
    nbytes = int(bytes_touched(addresses[:1], mask[:1], walk.width)[0])
    return Counts(
        int(counts.sum()),
        int((counts * units_touched(addresses, mask, walk.width, walk.sector)).sum()),
        int((counts * units_touched(addresses, mask, walk.width, walk.line)).sum()),
        int(counts.sum()) * nbytes,
        int(counts.sum()) * -(-nbytes // walk.sector),
    )
