"""One budget per model: the memory loading and running it take and the bytes it writes, checked
before they are spent, so that a small file from a stranger cannot exhaust the machine.

Memory counts every copy, against what the process may still allocate (the least of the free
memory, its cgroup's limit and ``ulimit -v``: :func:`stridelab._memory.free_bytes`): while loading,
each array before it is made (:class:`LoadBudget`); for a run, all it will make, before any command
runs (:func:`check_memory`). Writing counts every ``writeFile`` (its folders too) and the text every
``print`` writes, against a cap the user may raise and half the free disk.

internal: the public names are :mod:`stridelab.dxdispatch`'s.
"""

from __future__ import annotations

import shutil
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

import numpy as np

from .._memory import free_bytes
from ..errors import LayoutError
from .commands import Dispatch, Print, WriteFile
from .output import text_bytes_per_value

if TYPE_CHECKING:
    from .model import Model

__all__: list[str] = []

#: The share of what the process may still allocate that a model's run may use.
MEMORY_SHARE = 0.8
#: The share of the free disk under its output folder that a run may fill.
DISK_SHARE = 0.5
#: A ``.npy`` header is counted as this many bytes: more than one of 32 dimensions takes.
_NPY_HEADER_BYTES = 1024
#: A folder a ``writeFile`` makes is counted as one block of the disk.
_FOLDER_BYTES = 4096
#: NumPy and CuPy refuse arrays of more bytes than an ``intp`` holds.
_LARGEST = 2**63 - 1


class LoadBudget:
    """The host memory a model's arrays take while it loads, counted as each is asked for and
    refused before it is made where the total passes :data:`MEMORY_SHARE` of what the process
    could allocate when loading began."""

    def __init__(self) -> None:
        self.free = free_bytes(np)
        self.used = 0

    def take(self, nbytes: int, what: str) -> None:
        """Count ``nbytes`` for ``what`` (e.g. ``"resource 'A': the buffer"``), or refuse them."""
        self.used += nbytes
        if nbytes > _LARGEST:
            raise LayoutError(f"{what} needs {nbytes} bytes, more than any array holds (2**63 - 1 bytes)")
        if self.free is not None and self.used > MEMORY_SHARE * self.free:
            raise LayoutError(
                f"{what} needs {nbytes} bytes; with the {self.used - nbytes} bytes the model holds so far, that is "
                f"more than {MEMORY_SHARE:.0%} of the {self.free} bytes free in host memory for this process (the "
                "least of the free memory, its cgroup's limit and ulimit -v)"
            )


def memory_needed(model: Model, xp: Any = np) -> dict[str, int]:
    """Bytes a run of ``model`` on array module ``xp`` allocates at its peak, beyond the model
    itself, by where they live (``"host"``, and ``"device"`` for CuPy): every resource's buffer, one
    more copy of the largest bound buffer (an operator's temporaries, or the GPU's warm-up copies),
    and, on the host, the largest ``print`` (its text twice: chunks, then the joined line) or
    ``writeFile`` (a GPU buffer is copied to the host first)."""
    buffers = sum(resource.size_in_bytes for resource in model.resources.values())
    bound = [
        model.resources[b.resource].size_in_bytes
        for command in model.commands
        if isinstance(command, Dispatch)
        for b in command.bindings.values()
    ]
    work = buffers + max(bound, default=0)
    host = [0]
    for command in model.commands:
        if isinstance(command, (Print, WriteFile)):
            resource = model.resources[command.resource]
            copy = 0 if xp is np else resource.size_in_bytes
            if isinstance(command, Print) and not command.verbose:
                copy += 2 * resource.initial.size * text_bytes_per_value(resource.initial.dtype)
            host.append(copy)
    if xp is np:
        return {"host": work + max(host)}
    return {"host": max(host), "device": work}


def check_memory(model: Model, xp: Any = np) -> None:
    """Refuse a run whose :func:`memory_needed` exceeds :data:`MEMORY_SHARE` of what the process
    may still allocate, on the host or on the device."""
    for where, needed in memory_needed(model, xp).items():
        free = free_bytes(np if where == "host" else xp)
        if free is not None and needed > MEMORY_SHARE * free:
            raise LayoutError(
                f"running the model needs about {needed} bytes of {where} memory (its buffers, an operator's "
                f"temporaries, the text it prints), more than {MEMORY_SHARE:.0%} of the {free} bytes this process may "
                "still allocate there (the least of the free memory, its cgroup's limit and ulimit -v)"
            )


def written_bytes(model: Model) -> int:
    """The most bytes ``model`` writes: its ``writeFile`` files and the folders they need, and the
    text its ``print`` commands write."""
    total, folders = 0, set[PurePath]()
    for command in model.commands:
        if isinstance(command, WriteFile):
            resource = model.resources[command.resource]
            target = PurePath(command.target)
            folders.update(target.parents)
            if target.suffix.lower() == ".npy":
                count = resource.size_in_bytes // resource.element_size
                if command.dimensions:
                    count = int(np.prod(command.dimensions, dtype=object))
                total += _NPY_HEADER_BYTES + count * resource.element_size
            else:
                total += resource.size_in_bytes
        elif isinstance(command, Print):
            total += _printed_bytes(model.resources[command.resource].initial, command.verbose)
    return total + _FOLDER_BYTES * len(folders - {PurePath(".")})


def _printed_bytes(values: np.ndarray, verbose: bool) -> int:
    """The most text ``print`` writes for ``values``: a line, or (verbose) a line per value."""
    per_value = text_bytes_per_value(values.dtype)
    if verbose:  # "[index] text (0xBITS)"
        per_value += len(str(values.size)) + len("[]  (0x)\n") + 2 * values.itemsize
    return 64 + values.size * per_value


def check_written(model: Model, output_dir: Path, max_written_bytes: int) -> None:
    """Refuse a run that writes more than ``max_written_bytes``, or than :data:`DISK_SHARE` of
    the free disk under ``output_dir``."""
    written = written_bytes(model)
    if written > max_written_bytes:
        raise LayoutError(
            f"the model's writeFile and print commands write up to {written} bytes, more than the "
            f"{max_written_bytes} a run writes at most (max_written_bytes / --max-written-bytes raise it)"
        )
    if written:
        existing = next(folder for folder in (output_dir, *output_dir.parents) if folder.exists())
        free = shutil.disk_usage(existing).free
        if written > DISK_SHARE * free:
            raise LayoutError(
                f"the model's writeFile and print commands write up to {written} bytes, more than {DISK_SHARE:.0%} "
                f"of the {free} bytes free on the disk of {str(existing)!r}"
            )
