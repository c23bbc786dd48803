"""One budget per run: the memory a model's run takes and the bytes it writes, checked before any
command runs, so that a small file from a stranger cannot exhaust the machine.

Memory counts every copy a run makes, against what the process may still allocate (the least of
the free memory, its cgroup's limit and ``ulimit -v``: :func:`stridelab._memory.free_bytes`);
writing counts every ``writeFile``, against a cap the user may raise and half the free disk.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .._memory import free_bytes
from ..errors import LayoutError
from .commands import Dispatch, Print, WriteFile
from .output import text_bytes_per_value

if TYPE_CHECKING:
    from .model import Model

__all__ = ["DISK_SHARE", "MEMORY_SHARE", "check_memory", "check_written", "memory_needed", "written_bytes"]

#: The share of what the process may still allocate that a model's run may use.
MEMORY_SHARE = 0.8
#: The share of the free disk under its output folder that a run may fill.
DISK_SHARE = 0.5
#: A ``.npy`` header is counted as this many bytes: more than one of 32 dimensions takes.
_NPY_HEADER_BYTES = 1024


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
    """The most bytes the ``writeFile`` commands of ``model`` write."""
    total = 0
    for command in model.commands:
        if isinstance(command, WriteFile):
            resource = model.resources[command.resource]
            if command.target.lower().endswith(".npy"):
                count = resource.size_in_bytes // resource.element_size
                if command.dimensions:
                    count = int(np.prod(command.dimensions, dtype=object))
                total += _NPY_HEADER_BYTES + count * resource.element_size
            else:
                total += resource.size_in_bytes
    return total


def check_written(model: Model, output_dir: Path, max_written_bytes: int) -> None:
    """Refuse a run that writes more than ``max_written_bytes``, or than :data:`DISK_SHARE` of
    the free disk under ``output_dir``."""
    written = written_bytes(model)
    if written > max_written_bytes:
        raise LayoutError(
            f"the model's writeFile commands write up to {written} bytes, more than the {max_written_bytes} a run "
            "writes at most (max_written_bytes / --max-written-bytes raise it)"
        )
    if written:
        existing = next(folder for folder in (output_dir, *output_dir.parents) if folder.exists())
        free = shutil.disk_usage(existing).free
        if written > DISK_SHARE * free:
            raise LayoutError(
                f"the model's writeFile commands write up to {written} bytes, more than {DISK_SHARE:.0%} of the "
                f"{free} bytes free on the disk of {str(existing)!r}"
            )
