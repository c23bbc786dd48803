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
    """Bytes this process may still allocate on the host: the least of ``MemAvailable`` of
    ``/proc/meminfo``, what its cgroup (v2, or v1) allows beyond what it uses (a container's
    limit), and what ``RLIMIT_AS`` (``ulimit -v``) allows beyond its address space now; None
    where none of them is known."""
    known = [free for free in (_mem_available(), _cgroup_headroom(), _address_space_headroom()) if free is not None]
    return min(known) if known else None


def _mem_available() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


#: cgroup v1 writes "no limit" as a page counter's largest value, about 2**63.
_NO_V1_LIMIT = 2**62


def _cgroup_headroom() -> int | None:
    for limit_file, usage_file in (
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
        ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
    ):
        try:
            with open(limit_file, encoding="ascii") as limit:
                text = limit.read().strip()
            if text == "max" or (text.isdigit() and int(text) >= _NO_V1_LIMIT):
                return None
            with open(usage_file, encoding="ascii") as usage:
                return max(int(text) - int(usage.read().strip()), 0)
        except (OSError, ValueError):
            continue
    return None


def _address_space_headroom() -> int | None:
    """``RLIMIT_AS`` minus the process's ``VmSize``: an allocation past it fails however much
    memory is free."""
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError):
        return None
    if limit == resource.RLIM_INFINITY:
        return None
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return max(limit - int(line.split()[1]) * 1024, 0)
    except (OSError, ValueError, IndexError):
        pass
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
