"""How many threads the NumPy backend uses, and the one pool they come from.

NumPy releases the GIL inside its loops, so independent pieces of one call (lines of a scan,
tiles of a copy) run in parallel on threads. The count is, in order of precedence: the innermost
:class:`threads` block of the calling thread, the ``STRIDELAB_NUM_THREADS`` environment variable,
and the CPUs this process may use: its CPU affinity (``os.sched_getaffinity`` where present, else
``os.cpu_count()``) capped by its cgroup's CPU quota (v2 ``cpu.max``, v1 ``cpu.cfs_quota_us`` over
``cpu.cfs_period_us``, rounded up). Where a thread cannot be started, every later call runs on the
calling thread alone.

A call takes more threads only with at least :data:`MIN_BYTES` of work for each (the documented
knob tests lower); smaller calls never reach this module's pool.
"""

from __future__ import annotations

import math
import os
import stat
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextvars import ContextVar
from pathlib import Path
from types import TracebackType

from .._validate import shown
from ..errors import LayoutError

__all__ = [
    "ENVIRONMENT",
    "MAX_THREADS",
    "MIN_BYTES",
    "cgroup_cpus",
    "cpu_count",
    "run",
    "thread_count",
    "threads",
    "tiles",
]

#: The environment variable that sets the default count.
ENVIRONMENT = "STRIDELAB_NUM_THREADS"
#: The most threads a count may ask for.
MAX_THREADS = 1024
#: The least work, in bytes written, that a call gives each thread; below twice this a call runs on
#: the calling thread alone. On two cores, handing work to a second thread costs 60 to 90 us; two
#: threads win from 1 MiB calls on (a transposing copy, a scan along the innermost axis) and from
#: 2 MiB on for a packed copy, which is the fastest per byte (see benchmarks/RESULTS.md).
MIN_BYTES = 1 << 20

_override: ContextVar[int | None] = ContextVar("stridelab_threads", default=None)
_environment: tuple[str, int] | None = None  # the last value read and what it means
_machine: int | None = None  # cpu_count(), measured once
_failed = False  # a thread could not be started
_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_lock = threading.Lock()


class threads:
    """Run the NumPy backend's calls inside a ``with`` block on at most ``n`` threads (``n = 1``:
    the calling thread alone), in this thread and context only; results are bit-identical for
    every ``n``. ``n=None`` keeps the default. ``count``: the most threads a call in the block
    takes. Calls too small to gain from threads stay on one whatever ``n`` is. Outside any block,
    the ``STRIDELAB_NUM_THREADS`` environment variable (a whole number from 1 to 1024) sets the
    count, else the CPUs this process may use (its affinity, capped by its cgroup's CPU quota).
    The count is a context manager rather than an operator keyword so that one block covers every
    operator and a whole DxDispatch run.

    >>> import numpy as np
    >>> import stridelab as sl
    >>> with sl.threads(2) as t:
    ...     total = sl.cumulative_summation(np.ones((4, 3), np.float32), axis=1)
    >>> t.count, total[0].tolist()
    (2, [1.0, 2.0, 3.0])
    """

    def __init__(self, n: int | None = None) -> None:
        self._n = None if n is None else _checked(n, "n")
        self._token: list = []

    @property
    def count(self) -> int:
        return thread_count() if self._n is None else self._n

    def __enter__(self) -> threads:
        self._token.append(_override.set(self._n if self._n is not None else _override.get()))
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        _override.reset(self._token.pop())


def _checked(n: object, name: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"{name} must be an integer, not {type(n).__name__} ({shown(n)})")
    if not 1 <= n <= MAX_THREADS:
        raise LayoutError(f"{name} = {shown(n)} is not a thread count; expected 1 <= {name} <= {MAX_THREADS}")
    return n


def thread_count() -> int:
    """The most threads a call made now may take (1 once a thread could not be started)."""
    if _failed:
        return 1
    n = _override.get()
    if n is not None:
        return n
    n = _from_environment()
    return n if n is not None else _machine_count()


def _from_environment() -> int | None:
    """``STRIDELAB_NUM_THREADS`` (None where unset or blank), checked each time it changes."""
    global _environment
    text = os.environ.get(ENVIRONMENT)
    if text is None or not text.strip():
        return None
    if _environment is not None and _environment[0] == text:
        return _environment[1]
    try:
        n = int(text.strip(), 10)
    except ValueError:
        n = 0
    if not 1 <= n <= MAX_THREADS:
        raise LayoutError(
            f"the environment variable {ENVIRONMENT} = {shown(text)} is not a thread count; expected a whole "
            f"number from 1 to {MAX_THREADS} (or unset, for the CPUs this process may use)"
        )
    _environment = (text, n)
    return n


def _machine_count() -> int:
    global _machine
    if _machine is None:
        _machine = cpu_count()
    return _machine


def cpu_count(cgroup: Path = Path("/sys/fs/cgroup")) -> int:
    """The CPUs this process may use: its affinity, capped by the CPU quota of the cgroup mounted
    at ``cgroup`` (:func:`cgroup_cpus`); at least 1."""
    try:
        available = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no affinity on macOS and Windows
        available = os.cpu_count() or 1
    quota = cgroup_cpus(cgroup)
    return max(1, available if quota is None else min(available, quota))


def cgroup_cpus(root: Path) -> int | None:
    """The CPU quota of the cgroup mounted at ``root``, rounded up to whole CPUs: cgroup v2's
    ``cpu.max`` (``"QUOTA PERIOD"``, or ``"max PERIOD"`` for none), else v1's
    ``cpu/cpu.cfs_quota_us`` (-1 for none) over ``cpu/cpu.cfs_period_us``. None where there is no
    quota, or the files are missing, unreadable or malformed.

    >>> import pathlib, tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "cpu.max").write_text("150000 100000\\n")
    >>> cgroup_cpus(root)
    2
    """
    v2 = _read_small(root / "cpu.max")
    if v2 is not None:
        fields = v2.split()
        return _quota(fields[0], fields[1]) if len(fields) == 2 and fields[0] != "max" else None
    for folder in ("cpu", "cpu,cpuacct"):
        quota = _read_small(root / folder / "cpu.cfs_quota_us")
        period = _read_small(root / folder / "cpu.cfs_period_us")
        if quota is not None and period is not None:
            return _quota(quota.strip(), period.strip())
    return None


def _quota(quota: str, period: str) -> int | None:
    if not (quota.isdigit() and period.isdigit()):  # "-1", "max" or garbage: no quota
        return None
    q, p = int(quota), int(period)
    return math.ceil(q / p) if q > 0 and p > 0 else None


def _read_small(path: Path) -> str | None:
    """The first bytes of a regular file as ASCII text, else None. Opened without blocking (a FIFO
    or device in its place is never waited on) and checked to be a regular file before reading."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, 256).decode("ascii")
    except (OSError, UnicodeDecodeError):
        return None
    finally:
        os.close(fd)


class _Tasks:
    """Tasks that any number of threads take one at a time, each run at most once; none is taken
    after one has raised."""

    def __init__(self, tasks: Sequence[Callable[[], None]]) -> None:
        self._tasks, self._next, self._lock = tasks, 0, threading.Lock()

    def drain(self) -> None:
        while True:
            with self._lock:
                i = self._next
                self._next += 1
            if i >= len(self._tasks):
                return
            try:
                self._tasks[i]()
            except BaseException:
                self._next = len(self._tasks)
                raise


def run(tasks: Sequence[Callable[[], None]], workers: int) -> None:
    """Run ``tasks`` on the calling thread and up to ``workers - 1`` threads of the pool; returns
    when all have run, or raises an error a task raised once every task started has finished. A
    task not yet taken is run by the calling thread, so none waits on a thread that could not
    start."""
    shared = _Tasks(tasks)
    futures: list[Future] = []
    try:
        helpers = min(workers, len(tasks)) - 1
        if helpers > 0:
            pool = _get_pool(helpers)
            for _ in range(helpers):
                futures.append(pool.submit(shared.drain))
    except RuntimeError:  # a thread could not start, or the interpreter is shutting down
        _give_up()
    try:
        shared.drain()
    finally:
        for future in futures:
            if not future.cancel():
                future.result()


def _get_pool(size: int) -> ThreadPoolExecutor:
    global _pool, _pool_size
    with _lock:
        if _pool is None or _pool_size < size:
            if _pool is not None:
                _pool.shutdown(wait=False)
            _pool, _pool_size = ThreadPoolExecutor(size, "stridelab"), size
        return _pool


def _give_up() -> None:
    global _failed
    _failed = True


def _forget_pool() -> None:
    """In a forked child: the parent's pool threads do not exist there."""
    global _pool, _pool_size, _lock
    _pool, _pool_size, _lock = None, 0, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def tiles(shape: tuple[int, ...], parts: int, keep: int | None = None) -> list[tuple[slice, ...]]:
    """Indices that cut an array of ``shape`` into at most ``parts`` tiles of nearly equal size
    along one dimension other than ``keep``: the outermost that ``parts`` divides or that has at
    least 8 times ``parts`` positions, else the largest. A single tile where none can be cut."""
    candidates = [i for i, n in enumerate(shape) if i != keep and n > 1]
    if not candidates or parts < 2:
        return [()]
    even = [i for i in candidates if shape[i] % parts == 0 or shape[i] >= 8 * parts]
    dim = even[0] if even else max(candidates, key=lambda i: shape[i])
    n = shape[dim]
    k = min(parts, n)
    head = (slice(None),) * dim
    return [(*head, slice(j * n // k, (j + 1) * n // k)) for j in range(k)]
