"""Whether an allocation fits: refuse one larger than the free memory, with the numbers, before
NumPy or CuPy try it (their own failures are a bare MemoryError, "array is too big" or an
out-of-memory error from the device, naming neither the request nor what was free)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import LayoutError

__all__ = ["CHECKED_FROM_BYTES", "check_allocation", "free_bytes", "host_free_bytes"]

#: NumPy and CuPy refuse arrays of more bytes than an ``intp`` holds.
_LARGEST = 2**63 - 1
#: Smaller requests are not checked: reading the free memory (tens of microseconds) would cost more
#: than allocating them, and they fail only where almost nothing is left.
CHECKED_FROM_BYTES = 64 * 2**20


def host_free_bytes() -> int | None:
    """``MemAvailable`` of ``/proc/meminfo`` in bytes, or what the process's cgroup (v2) allows
    beyond what it uses where that is less (a container's limit); None where neither is known."""
    free = None
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    free = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    allowed = _cgroup_headroom()
    if allowed is not None and (free is None or allowed < free):
        return allowed
    return free


def _cgroup_headroom() -> int | None:
    try:
        with open("/sys/fs/cgroup/memory.max", encoding="ascii") as limit:
            text = limit.read().strip()
        if text == "max":
            return None
        with open("/sys/fs/cgroup/memory.current", encoding="ascii") as current:
            return max(int(text) - int(current.read().strip()), 0)
    except (OSError, ValueError):
        return None


def free_bytes(xp: Any) -> int | None:
    """Bytes an allocation from array module ``xp`` may take: the host's available memory for
    NumPy; for CuPy, the current device's free memory plus what CuPy's pool holds unused."""
    if xp is np:
        return host_free_bytes()
    return int(xp.cuda.Device().mem_info[0]) + int(xp.get_default_memory_pool().free_bytes())


def check_allocation(nbytes: int, xp: Any, what: str) -> None:
    """Refuse allocating ``nbytes`` for ``what`` (e.g. ``"the result"``) where it exceeds the free
    memory, or what any array may hold.

    >>> check_allocation(2**70, np, "2**68 FLOAT32 elements")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    stridelab.errors.LayoutError: 2**68 FLOAT32 elements needs 1180591620717411303424 bytes, more than any array...
    """
    if nbytes < CHECKED_FROM_BYTES:
        return
    if nbytes > _LARGEST:
        raise LayoutError(f"{what} needs {nbytes} bytes, more than any array holds (2**63 - 1 bytes)")
    free = free_bytes(xp)
    if free is not None and nbytes > free:
        where = "in host memory" if xp is np else f"on GPU {xp.cuda.Device().id}"
        raise LayoutError(
            f"{what} needs {nbytes} bytes ({_gib(nbytes)}), but {free} bytes ({_gib(free)}) are free {where}"
        )


def _gib(nbytes: int) -> str:
    return f"{nbytes / 2**30:.1f} GiB"
