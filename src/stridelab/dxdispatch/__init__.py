"""Run DirectML's DxDispatch JSON models on the CPU (NumPy) or an NVIDIA GPU (CuPy).

A model lists ``resources`` (buffers and their initial values), ``dispatchables`` (DirectML
operators and their descs) and ``commands`` (``dispatch``, ``print``, ``writeFile``). stridelab reads
the format as DxDispatch does (comments, trailing commas, full or short enum names, flat or nested
tensor descs, bindings with ``elementOffset``) and prints the same lines, for the operators it runs:
CUMULATIVE_SUMMATION, CUMULATIVE_PRODUCT, SLICE, SLICE1 and ELEMENT_WISE_IDENTITY (with
``ScaleBias``).

Where DxDispatch is lenient, stridelab refuses, before any command runs: unknown fields and bind
points (DxDispatch ignores them, hiding typos), buffers too small for a bound tensor or a misaligned
``elementOffset`` (DirectML's debug layer reports those only when a command reaches them), text after
the model and keys given twice.

A model is data from someone else (a course invites running other people's models): it reads files
only from its own folder (or ``input_dir``), writes data files only under its output folder, never
through a link, opens no FIFO or device, and runs within a memory and a disk budget; see
:mod:`stridelab.dxdispatch.files` and :mod:`stridelab.dxdispatch.budget`. ``allow_any_path=True``
gives a model you wrote DxDispatch's own reach.

>>> import json, pathlib, tempfile
>>> tensor = {"DataType": "FLOAT32", "Sizes": [3]}
>>> model = {
...     "resources": {"A": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3]},
...                   "Out": {"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 3, "value": 0}}},
...     "dispatchables": {"sum": {"type": "DML_OPERATOR_CUMULATIVE_SUMMATION", "desc": {
...         "InputTensor": tensor, "OutputTensor": tensor,
...         "Axis": 0, "AxisDirection": "INCREASING", "HasExclusiveSum": False}}},
...     "commands": [
...         {"type": "dispatch", "dispatchable": "sum", "bindings": {"InputTensor": "A", "OutputTensor": "Out"}},
...         {"type": "print", "resource": "Out"}]}
>>> path = pathlib.Path(tempfile.mkdtemp()) / "sum.json"
>>> _ = path.write_text(json.dumps(model))
>>> lines = []
>>> load(path).run(log=lines.append)["Out"].tolist()  # writes nothing: the model has no writeFile
[1.0, 3.0, 6.0]
>>> lines[1]
"Resource 'Out': 1, 3, 6"
"""

from .files import MAX_MODEL_BYTES, MAX_WRITTEN_BYTES, OUTPUT_SUFFIXES
from .loading import FileUse, list_files, load, read_tensors
from .model import BACKENDS, Model
from .operators import OPERATORS

__all__ = [
    "BACKENDS",
    "MAX_MODEL_BYTES",
    "MAX_WRITTEN_BYTES",
    "OPERATORS",
    "OUTPUT_SUFFIXES",
    "FileUse",
    "Model",
    "list_files",
    "load",
    "read_tensors",
]
