"""Reading a model file: the whole model, checked (:func:`load`); its tensors alone, for drawing
(:func:`read_tensors`); or the files it would read and write (:func:`list_files`).

The model file is data from a stranger too: a regular file of at most ``max_model_bytes`` (a FIFO
or a device never blocks the reader), UTF-8 with or without a byte order mark.

internal: the public names are :mod:`stridelab.dxdispatch`'s.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple

from .. import _jsonc
from .._json_fields import Fields
from .._validate import shown
from ..desc import TensorDesc
from ..errors import LayoutError
from .files import MAX_MODEL_BYTES, Folders, check_name, default_output_dir, output_target, read_regular
from .model import Model
from .operators import Dispatchable, named_tensors, read_dispatchable

__all__: list[str] = []


def load(
    path: str | os.PathLike[str],
    *,
    input_dir: str | os.PathLike[str] | None = None,
    allow_any_path: bool = False,
    max_model_bytes: int = MAX_MODEL_BYTES,
) -> Model:
    """Read and check the DxDispatch model at ``path`` (a ``.json`` file).

    Files the model reads are found in the model's folder or ``input_dir``, and the files it will
    write are named inside the output folder of :meth:`Model.run`, by the rules of
    :mod:`stridelab.dxdispatch.files`; ``allow_any_path=True`` gives a model you trust
    DxDispatch's reach instead. A model file larger than ``max_model_bytes`` is not read.

    Raises :class:`~stridelab.LayoutError` naming the resource, dispatchable or command and the field
    at fault, for any model DxDispatch would refuse or DirectML would fail on, for the operators
    stridelab does not run, and for a path or a size past the rules.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from stridelab import dxdispatch
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name) / "copy.json"
    >>> t = {"DataType": "FLOAT32", "Sizes": [3]}
    >>> _ = path.write_text(json.dumps({
    ...     "resources": {"A": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3]},
    ...                   "B": {"initialValuesDataType": "FLOAT32", "initialValues": [0, 0, 0]}},
    ...     "dispatchables": {"copy": {"type": "ELEMENT_WISE_IDENTITY", "desc": {"InputTensor": t, "OutputTensor": t}}},
    ...     "commands": [
    ...         {"type": "dispatch", "dispatchable": "copy", "bindings": {"InputTensor": "A", "OutputTensor": "B"}},
    ...         {"type": "writeFile", "resource": "B", "targetPath": "b.npy"}]}))
    >>> model = dxdispatch.load(path)
    >>> model.run("numpy", output_dir=path.parent / "out")["B"].tolist()
    [1.0, 2.0, 3.0]
    """
    model, obj = _read_model(path, max_model_bytes)
    folders = Folders(model, input_dir, allow_any_path)
    try:
        return Model._from_json(obj, model, folders)
    except LayoutError as error:
        raise _in_model(model, error) from None


def read_tensors(path: str | os.PathLike[str], *, max_model_bytes: int = MAX_MODEL_BYTES) -> dict[str, TensorDesc]:
    """Every tensor of the model at ``path``, named ``"<dispatchable>.<bind point>"``, read from its
    dispatchables alone: no resource, and so no file the model names, is read.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from stridelab import dxdispatch
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name) / "copy.json"
    >>> t = {"DataType": "FLOAT32", "Sizes": [3]}
    >>> copy = {"type": "ELEMENT_WISE_IDENTITY", "desc": {"InputTensor": t, "OutputTensor": t}}
    >>> _ = path.write_text(json.dumps({"resources": {}, "dispatchables": {"copy": copy}, "commands": []}))
    >>> sorted(dxdispatch.read_tensors(path))
    ['copy.InputTensor', 'copy.OutputTensor']
    """
    return named_tensors(read_dispatchables(path, max_model_bytes=max_model_bytes))


def read_dispatchables(
    path: str | os.PathLike[str], *, max_model_bytes: int = MAX_MODEL_BYTES
) -> dict[str, Dispatchable]:
    """The dispatchables of the model at ``path``, each read and checked on its own (as
    :func:`read_tensors` reads them): no resource or command is read."""
    model, obj = _read_model(path, max_model_bytes)
    try:
        dispatchables = Fields(obj, str(model), "a model").optional("dispatchables", default={})
        if not isinstance(dispatchables, dict):
            raise LayoutError(f"dispatchables = {shown(dispatchables, json=True)}: expected an object")
        for name in dispatchables:
            check_name("dispatchable name", name)
        return {name: read_dispatchable(name, value) for name, value in dispatchables.items()}
    except LayoutError as error:
        raise _in_model(model, error) from None


class FileUse(NamedTuple):
    """A file a model names: ``action`` is ``"read"``, ``"write"`` or ``"refused"``; ``where`` the
    resource or command naming it; ``detail`` the path it resolves to, or why it is refused.

    Examples
    --------
    >>> from stridelab.dxdispatch import FileUse
    >>> use = FileUse("write", "command 1 (writeFile)", "copy-output/b.npy")
    >>> use.action, use.detail
    ('write', 'copy-output/b.npy')
    """

    action: str
    where: str
    detail: str


def list_files(
    path: str | os.PathLike[str],
    *,
    input_dir: str | os.PathLike[str] | None = None,
    output_dir: str | os.PathLike[str] | None = None,
    allow_any_path: bool = False,
    max_model_bytes: int = MAX_MODEL_BYTES,
) -> list[FileUse]:
    """Every file the model at ``path`` would read (``sourcePath``) or write (``writeFile``),
    resolved and opened (not read) by the rules a run uses, without running anything.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from stridelab import dxdispatch
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name) / "copy.json"
    >>> b = {"initialValuesDataType": "FLOAT32", "initialValues": [0, 0, 0]}
    >>> write = {"type": "writeFile", "resource": "B", "targetPath": "b.npy"}
    >>> _ = path.write_text(json.dumps({"resources": {"B": b}, "dispatchables": {}, "commands": [write]}))
    >>> [(use.action, use.where) for use in dxdispatch.list_files(path)]
    [('write', 'command 0 (writeFile)')]
    """
    model, obj = _read_model(path, max_model_bytes)
    folders = Folders(model, input_dir, allow_any_path)
    if output_dir is None:
        output_dir = Path.cwd() if allow_any_path else default_output_dir(model)
    uses = []
    root = obj if isinstance(obj, dict) else {}
    resources = root.get("resources")
    for name, resource in (resources if isinstance(resources, dict) else {}).items():
        values = resource.get("initialValues") if isinstance(resource, dict) else None
        if isinstance(values, dict) and "sourcePath" in values:
            where = f"resource {name!r}"
            try:
                uses.append(FileUse("read", where, _absolute(_checked_input(folders, where, values["sourcePath"]))))
            except LayoutError as error:
                uses.append(FileUse("refused", where, str(error).removeprefix(f"{where}: ")))
    commands = root.get("commands")
    for i, command in enumerate(commands if isinstance(commands, list) else []):
        if isinstance(command, dict) and str(command.get("type", "")).lower() == "writefile":
            where = f"command {i} (writeFile)"
            try:
                target = output_target(f"{where}: targetPath", command.get("targetPath"), allow_any_path)
                uses.append(FileUse("write", where, _absolute(Path(output_dir) / target)))
            except LayoutError as error:
                uses.append(FileUse("refused", where, str(error).removeprefix(f"{where}: ")))
    return uses


def _checked_input(folders: Folders, where: str, source: Any) -> Path:
    """The file ``source`` names, found and opened (not read) as a run would, to check what it is."""
    if not isinstance(source, str) or not source:
        raise LayoutError(f"{where}: sourcePath = {shown(source, json=True)}: expected a file name")
    file, size, path = folders.open_input(where, source)
    file.close()
    if size == 0:
        raise LayoutError(f"{where}: sourcePath {source!r} is an empty file")
    return path


def _absolute(path: Path) -> str:
    return os.path.normpath(os.path.abspath(path))


def _read_model(path: str | os.PathLike[str], max_model_bytes: int) -> tuple[Path, Any]:
    """The model file's path and its JSON."""
    model = Path(path)
    if model.suffix.lower() != ".json":
        raise LayoutError(f"{str(model)!r}: expected a .json model (DxDispatch's .onnx models are not supported)")
    data = read_regular(model, "the model", max_model_bytes, limit_name=" (max_model_bytes / --max-model-bytes)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise LayoutError(f"{model}: not UTF-8 text (byte {error.start}): a model is a JSON file") from None
    return model, _jsonc.loads(text, str(model))


def _in_model(model: Path, error: LayoutError) -> LayoutError:
    message = str(error)
    return LayoutError(message if message.startswith(str(model)) else f"{model}: {message}")
