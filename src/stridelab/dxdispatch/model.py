"""A loaded DxDispatch model: checked as a whole when it is loaded, then run command by command.

:func:`~stridelab.dxdispatch.load` reads the file, its resources, dispatchables and commands, then checks every dispatch
against the buffers it binds, the way DirectML's debug layer would (bound sizes, alignment) and the
way stridelab's operators do (sizes, data types, parameters, aliasing), all before any command
runs: a model that fails writes no file. A model is data from a stranger: what it may read and
write, and how files are opened, is :mod:`stridelab.dxdispatch.files`'s; a run is held to one
budget of memory and of bytes written (:mod:`stridelab.dxdispatch.budget`).

internal: the public names are :mod:`stridelab.dxdispatch`'s.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .._json_fields import Fields, did_you_mean
from .._validate import shown
from ..desc import TensorDesc
from ..errors import LayoutError
from ..tensor import StridedTensor
from .budget import LoadBudget, check_memory, check_written
from .commands import Binding, Command, Dispatch, Print, WriteFile, read_command
from .files import (
    MAX_WRITTEN_BYTES,
    Folders,
    check_name,
    check_output_dir,
    default_output_dir,
    write_file,
)
from .operators import Dispatchable, named_tensors, read_dispatchable
from .output import dispatch_line, print_lines, written_line
from .resources import Resource, read_resource
from .tensors import MINIMUM_ALIGNMENT

__all__: list[str] = []

#: The backends a model runs on: NumPy on the CPU, or CuPy on an NVIDIA GPU (opt-in).
BACKENDS = ("numpy", "cupy")


class Model:
    """A DxDispatch model: ``resources``, ``dispatchables`` and ``commands``, all checked.

    Build one with :func:`load`. :meth:`run` runs it; :meth:`tensors` lists every tensor it
    describes; in Jupyter it shows its parts and every tensor's memory map.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from stridelab import dxdispatch
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name) / "copy.json"
    >>> t = {"DataType": "FLOAT32", "Sizes": [3]}
    >>> copy = {"type": "ELEMENT_WISE_IDENTITY", "desc": {"InputTensor": t, "OutputTensor": t}}
    >>> _ = path.write_text(json.dumps({"resources": {}, "dispatchables": {"copy": copy}, "commands": []}))
    >>> model = dxdispatch.load(path)
    >>> list(model.resources), list(model.dispatchables), len(model.commands)
    ([], ['copy'], 0)
    """

    def __init__(
        self,
        path: Path,
        resources: dict[str, Resource],
        dispatchables: dict[str, Dispatchable],
        commands: list[Command],
        folders: Folders,
    ) -> None:
        self.path = path
        self.resources = resources
        self.dispatchables = dispatchables
        self.commands = commands
        self.folders = folders

    @classmethod
    def _from_json(cls, obj: Any, path: Path, folders: Folders) -> Model:
        root = Fields(obj, str(path), "a model")
        root.optional("$schema")
        parts: dict[str, Any] = {}
        for field, kind in (("resources", dict), ("dispatchables", dict), ("commands", list)):
            value = root.required(field)
            if not isinstance(value, kind):
                expected = "an object" if kind is dict else "an array"
                raise LayoutError(f"{root.at(field)}: expected {expected}, not {shown(value, json=True)}")
            parts[field] = value
        root.done()
        for field in ("resources", "dispatchables"):
            for name in parts[field]:
                check_name(f"{field[:-1]} name", name)
        budget = LoadBudget()
        resources = {name: read_resource(name, value, folders, budget) for name, value in parts["resources"].items()}
        dispatchables = {name: read_dispatchable(name, value) for name, value in parts["dispatchables"].items()}
        commands = [
            read_command(i, value, resources, dispatchables, folders.allow_any_path)
            for i, value in enumerate(parts["commands"])
        ]
        model = cls(path, resources, dispatchables, commands, folders)
        check_memory(model, np)
        model._check_dispatches()
        return model

    # -- checks -------------------------------------------------------------------------------
    def _check_dispatches(self) -> None:
        """Every dispatch, checked by the operator itself (nothing runs) on buffers of the bound
        resources' sizes: what it checks depends on where they lie, not on their values."""
        bound = {b.resource for c in self.commands if isinstance(c, Dispatch) for b in c.bindings.values()}
        buffers = {name: np.empty(self.resources[name].size_in_bytes, np.uint8) for name in bound}
        for command in self.commands:
            if isinstance(command, Dispatch):
                x, out = self._bind(command, buffers)
                dispatchable = self.dispatchables[command.dispatchable]
                try:
                    dispatchable.check(x, out)
                except (LayoutError, TypeError) as error:
                    raise LayoutError(f"command {command.index} ({command.describe()}): {error}") from None

    def _bind(self, command: Dispatch, buffers: dict[str, Any]) -> tuple[StridedTensor, StridedTensor]:
        dispatchable = self.dispatchables[command.dispatchable]
        bound = [
            self._tensor(command, point, binding, dispatchable.tensors[point], dispatchable.alignments[point], buffers)
            for point, binding in command.bindings.items()
        ]
        return bound[0], bound[1]

    def _tensor(
        self, command: Dispatch, point: str, binding: Binding, desc: TensorDesc, alignment: int, buffers: dict
    ) -> StridedTensor:
        """The tensor bound at ``point``, over its resource's buffer in ``buffers``, checked as
        DirectML checks a binding: its start aligned, its bytes enough for the description."""
        resource = self.resources[binding.resource]
        where = f"command {command.index} (dispatch {command.dispatchable!r}): {point} bound to {binding.describe()}"
        start, size = binding.byte_offset, resource.size_in_bytes
        if start % alignment:
            rule = (
                "DirectML buffer tensors start 16-byte aligned (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT)"
                if alignment == MINIMUM_ALIGNMENT
                else f"the tensor's GuaranteedBaseOffsetAlignment is {alignment}"
            )
            raise LayoutError(
                f"{where}: elementOffset {binding.element_offset} starts at byte {start}, not a multiple of "
                f"{alignment}: {rule}"
            )
        esize = desc.element_size
        available = max(size - start, 0)
        if available < desc.buffer_size:
            raise LayoutError(
                f"{where} ({size} bytes): The value of SizeInBytes is too small. {available} was provided, but "
                f"{desc.buffer_size} was expected."
            )
        end = start + available // esize * esize
        return StridedTensor(desc, buffers[binding.resource][start:end].view(desc.dtype.numpy_dtype))

    # -- what it describes ----------------------------------------------------------------------
    def tensors(self) -> dict[str, TensorDesc]:
        """Every tensor of every dispatchable, named ``"<dispatchable>.<bind point>"``."""
        return named_tensors(self.dispatchables)

    def __str__(self) -> str:
        width = max(map(len, [*self.resources, *self.dispatchables, "OutputTensor"]))
        lines = [f"DxDispatch model {self.path.name}", "resources:"]
        lines += [f"  {name:<{width}}  {r.describe()}" for name, r in self.resources.items()] or ["  (none)"]
        lines.append("dispatchables:")
        for name, d in self.dispatchables.items():
            lines.append(f"  {name:<{width}}  {d.describe()}")
            lines += [f"    {point:<{width}}  {desc}" for point, desc in d.tensors.items()]
        lines.append("commands:")
        lines += [f"  {c.index}: {c.describe()}" for c in self.commands] or ["  (none)"]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"<DxDispatch model {self.path.name!r}: {len(self.resources)} resources, "
            f"{len(self.dispatchables)} dispatchables, {len(self.commands)} commands>"
        )

    def _ipython_display_(self) -> None:
        """Jupyter: the parts as text, then every tensor's memory map, named, as one picture (an
        output that copies its input's elements shows their letters, as ``stridelab show`` does)."""
        from IPython.display import display

        from ..render.picture import picture_bundle
        from ..render.scene import build_scene
        from .pictures import panels

        display({"text/plain": str(self)}, raw=True)
        shown = panels(self.dispatchables)
        if shown:
            names = [p.name for p in shown]
            scenes = [build_scene(p.desc, labels_from=p.labels_from) for p in shown]
            data, metadata = picture_bundle(scenes, names, ", ".join(names))
            display(data, metadata=metadata, raw=True)

    # -- running ------------------------------------------------------------------------------
    def run(
        self,
        backend: str = "numpy",
        iterations: int = 1,
        *,
        output_dir: str | os.PathLike[str] | None = None,
        max_written_bytes: int = MAX_WRITTEN_BYTES,
        log: Callable[[str], Any] | None = None,
        on_error: Callable[[str], Any] | None = None,
    ) -> dict[str, Any]:
        """Run the commands in order on ``backend`` (``"numpy"``, or ``"cupy"`` for the GPU),
        each dispatch ``iterations`` times, as DxDispatch does.

        ``writeFile`` writes under ``output_dir`` (default ``./<model name>-output``, created when a
        file is written; with ``allow_any_path``, the current directory, as DxDispatch); a file is
        replaced, but nothing outside the folder is ever written. Before any command runs,
        :meth:`check_run` refuses a run past the memory or disk budget.

        ``log`` receives each line DxDispatch prints: the ``Resource '...': ...`` lines, the
        ``Dispatch '...': ... ms median (CPU)`` timings and ``Resource '...' written to '...'``.
        A file that cannot be written raises OSError, or, where ``on_error`` is given, is reported
        to it in DxDispatch's words (``Failed to write resource to file '...': ...``) and the run
        goes on, as DxDispatch's does; no partial file is left either way.

        Returns ``{resource name: its initial elements now}``: a 1-D array of the resource's
        ``initialValuesDataType`` in the backend's array module.
        """
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
            raise LayoutError(f"iterations = {shown(iterations, json=True)}: expected an integer of at least 1")
        folder = self.check_run(backend, output_dir=output_dir, max_written_bytes=max_written_bytes)
        xp = _array_module(backend)
        emit = log or (lambda line: None)
        buffers = {name: xp.asarray(resource.initial_bytes()) for name, resource in self.resources.items()}
        if xp is not np:
            self._warm_up(buffers, xp)
        for command in self.commands:
            if isinstance(command, Dispatch):
                samples = self._dispatch(command, buffers, iterations, xp)
                emit(dispatch_line(command.dispatchable, iterations, *samples))
            elif isinstance(command, Print):
                values = _host(self._values(command.resource, buffers))
                for line in print_lines(command.resource, values, command.verbose):
                    emit(line)
            else:
                try:
                    emit(written_line(command.resource, self._write(command, buffers, folder)))
                except OSError as error:
                    if on_error is None:
                        raise
                    on_error(f"Failed to write resource to file '{command.target}': {error.strerror or error}")
        return {name: self._values(name, buffers) for name in self.resources}

    def check_run(
        self,
        backend: str = "numpy",
        *,
        output_dir: str | os.PathLike[str] | None = None,
        max_written_bytes: int = MAX_WRITTEN_BYTES,
    ) -> Path:
        """Refuse (LayoutError) a run that would need more memory than
        :func:`~stridelab.dxdispatch.budget.check_memory` allows, or write more than
        ``max_written_bytes`` or half the free disk; the output folder's absolute path otherwise.
        :meth:`run` calls it before any command runs."""
        xp = _array_module(backend)
        if output_dir is None:
            output_dir = Path.cwd() if self.folders.allow_any_path else default_output_dir(self.path)
        folder = Path(os.path.abspath(output_dir))
        check_output_dir(folder)
        check_memory(self, xp)
        check_written(self, folder, max_written_bytes)
        return folder

    def _values(self, name: str, buffers: dict[str, Any]) -> Any:
        """A view of the resource's initial elements, as they are now, where its buffer lives."""
        resource = self.resources[name]
        count = resource.initial.size
        return buffers[name][: count * resource.element_size].view(resource.data_type.numpy_dtype)

    def _warm_up(self, buffers: dict[str, Any], xp: Any) -> None:
        """Compile what every dispatch needs, on scratch copies of its buffers, as DxDispatch
        initializes its operators before the first command (compiling is not timed)."""
        for command in self.commands:
            if isinstance(command, Dispatch):
                scratch = {b.resource: buffers[b.resource].copy() for b in command.bindings.values()}
                self.dispatchables[command.dispatchable].apply(*self._bind(command, scratch))
        xp.cuda.Device().synchronize()

    def _dispatch(self, command: Dispatch, buffers: dict, iterations: int, xp: Any) -> tuple[list, list | None]:
        apply = self.dispatchables[command.dispatchable].apply
        x, out = self._bind(command, buffers)
        cpu: list[float] = []
        gpu: list[float] | None = None if xp is np else []
        for _ in range(iterations):
            if gpu is None:
                start = time.perf_counter()
                apply(x, out)
                cpu.append((time.perf_counter() - start) * 1e3)
                continue
            begin, end = xp.cuda.Event(), xp.cuda.Event()
            start = time.perf_counter()
            begin.record()
            apply(x, out)
            end.record()
            end.synchronize()
            cpu.append((time.perf_counter() - start) * 1e3)
            gpu.append(xp.cuda.get_elapsed_time(begin, end))
        return cpu, gpu

    def _write(self, command: WriteFile, buffers: dict, output_dir: Path) -> Path:
        resource = self.resources[command.resource]
        target = Path(os.path.normpath(output_dir / command.target))
        data = _host(buffers[command.resource])
        if target.suffix.lower() == ".npy":
            whole = data.size // resource.element_size * resource.element_size
            values = data[:whole].view(resource.data_type.numpy_dtype)
            shape = command.dimensions or (values.size,)
            array = values[: int(np.prod(shape))].reshape(shape)
            write_file(
                output_dir,
                target,
                lambda f: np.lib.format.write_array(_Writes(f), array, allow_pickle=False),
                self.folders.allow_any_path,
            )
        else:
            write_file(output_dir, target, lambda f: f.write(data.data), self.folders.allow_any_path)
        return target


class _Writes:
    """A file as NumPy's ``.npy`` writer sees it: ``write`` alone, so the writer writes in chunks,
    and a failure is the file system's OSError (``File too large``) rather than a count of bytes."""

    def __init__(self, file: Any) -> None:
        self.write = file.write


def _array_module(backend: Any) -> Any:
    if backend not in BACKENDS:
        raise LayoutError(
            f"backend = {backend!r} is not one of {', '.join(BACKENDS)}{did_you_mean(str(backend), BACKENDS)}"
        )
    if backend == "numpy":
        return np
    from .._optional import optional_imports

    with optional_imports("gpu", "running a model with backend='cupy'"):
        import cupy
    return cupy


def device_name(backend: str) -> str:
    """What a model runs on, for DxDispatch's ``Running on '...'`` line."""
    xp = _array_module(backend)
    if xp is np:
        return f"NumPy {np.__version__} on the CPU"
    device = xp.cuda.Device()
    return f"{xp.cuda.runtime.getDeviceProperties(device.id)['name'].decode()} (GPU {device.id}, CuPy {xp.__version__})"


def _host(array: Any) -> np.ndarray:
    return array if isinstance(array, np.ndarray) else array.get()
