"""A model's resources: flat buffers with initial values, as DxDispatch builds them.

``initialValues`` takes the forms DxDispatch reads: an array of numbers (``"nan"``, ``"inf"`` and
``"-inf"`` as strings), a constant ``{"valueCount", "value"}``, a sequence ``{"valueCount",
"valueStart", "valueDelta"}`` built by repeated addition in the target type (so FLOAT16 sequences
round as they grow and integer ones wrap), or a file ``{"sourcePath"}``: ``.npy`` (its dtype is the
data type) or raw bytes, found by the rules of :mod:`stridelab.dxdispatch.files`. The buffer is
``sizeInBytes`` long (default: the initial data and its offset, rounded up to 4 bytes), zero past
the initial data.

internal: the public names are :mod:`stridelab.dxdispatch`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._json_fields import Fields, data_type_name, json_type, number, uint
from .._validate import shown
from ..dtypes import DATA_TYPES, DataType, data_type
from ..errors import LayoutError
from .files import Folders

if TYPE_CHECKING:
    from .budget import LoadBudget

__all__: list[str] = []

_TYPE_PREFIX = "DML_TENSOR_DATA_TYPE_"


@dataclass(frozen=True, eq=False)
class Resource:
    """One buffer of a model: ``size_in_bytes`` bytes holding ``initial`` (its elements, of
    ``data_type``) from byte ``offset`` on."""

    name: str
    data_type: DataType
    initial: np.ndarray
    offset: int
    size_in_bytes: int

    @property
    def element_size(self) -> int:
        return self.data_type.element_size

    def initial_bytes(self) -> np.ndarray:
        """The whole buffer as it starts: a new uint8 array of ``size_in_bytes``."""
        buffer = np.zeros(self.size_in_bytes, np.uint8)
        data = self.initial.view(np.uint8)
        buffer[self.offset : self.offset + data.size] = data
        return buffer

    def describe(self) -> str:
        """One line: data type, initial element count and bytes, e.g. ``FLOAT32, 3 elements, 12 bytes``."""
        count = self.initial.size
        return f"{self.data_type.name}, {count} initial element{'s' * (count != 1)}, {self.size_in_bytes} bytes"


def read_resource(name: str, obj: Any, folders: Folders, budget: LoadBudget) -> Resource:
    """The resource ``name`` from its JSON ``obj``; the files it names are found in ``folders``, and
    every array is counted against ``budget`` before it is made."""
    where = f"resource {name!r}"
    fields = Fields(obj, where, "a buffer resource")
    kind = fields.optional("type")
    if kind is not None and kind != "buffer":
        raise LayoutError(f'{where}: type = {shown(kind, json=True)}: the only resource type is "buffer"')
    values = fields.required("initialValues")
    type_name = fields.optional("initialValuesDataType")
    dtype = None if type_name is None else _data_type(fields.at("initialValuesDataType"), type_name)
    offset = uint(
        fields.at("initialValuesOffsetInBytes"), fields.optional("initialValuesOffsetInBytes", default=0), limit=None
    )
    size = fields.optional("sizeInBytes")
    fields.done()
    initial, dtype = _initial_values(where, values, dtype, folders, budget)
    if offset % dtype.element_size:
        raise LayoutError(
            f"{where}: initialValuesOffsetInBytes = {offset} is not a multiple of the {dtype.name} element size "
            f"{dtype.element_size}"
        )
    needed = offset + initial.nbytes
    source = "initialValuesOffsetInBytes + initialValues" if size is None else "sizeInBytes"
    if size is None:
        size = -(-needed // 4) * 4
    elif uint(f"{where}: sizeInBytes", size, limit=None) < needed:
        raise LayoutError(
            f"{where}: The buffer size ({size} bytes) is too small for the initialValues ({initial.nbytes} bytes) "
            f"at offset {offset} bytes."
        )
    budget.take(size, f"{where}: the buffer ({source} = {size})")
    return Resource(name, dtype, initial, offset, size)


def _data_type(where: str, value: Any) -> DataType:
    if isinstance(value, str) and value.removeprefix(_TYPE_PREFIX) in ("UNKNOWN", "UINT4", "INT4"):
        name = value.removeprefix(_TYPE_PREFIX)
        reason = (
            "the list form of initialValues (UNKNOWN) builds HLSL constant buffers, and stridelab runs no HLSL"
            if name == "UNKNOWN"
            else f"{name} packs two values per byte, and no operator stridelab runs takes it"
        )
        raise LayoutError(f"{where} = {value!r}: {reason}")
    return data_type(data_type_name(where, value, DATA_TYPES))


def _initial_values(
    where: str, values: Any, dtype: DataType | None, folders: Folders, budget: LoadBudget
) -> tuple[np.ndarray, DataType]:
    if isinstance(values, dict) and "sourcePath" in values:
        return _from_file(where, values, dtype, folders, budget)
    if dtype is None:
        raise LayoutError(f"{where}: the field 'initialValuesDataType' is required (only a .npy file carries its own)")
    if isinstance(values, list):
        if not values:
            raise LayoutError(f"{where}: 'initialValues' must be non-empty.")
        elements = [_element(f"{where}: initialValues[{i}]", v, dtype) for i, v in enumerate(values)]
        budget.take(len(elements) * dtype.element_size, f"{where}: initialValues")
        return np.array(elements, dtype.numpy_dtype), dtype
    if isinstance(values, dict):
        return _generated(where, values, dtype, budget), dtype
    if values == "deferred":
        raise LayoutError(f'{where}: "deferred" initial values are for ONNX outputs, and stridelab runs no ONNX')
    raise LayoutError(
        f"{where}: initialValues = {shown(values, json=True)} ({json_type(values)}): expected an array, "
        '{"valueCount", "value"}, {"valueCount", "valueStart", "valueDelta"} or {"sourcePath"}'
    )


def _generated(where: str, values: dict, dtype: DataType, budget: LoadBudget) -> np.ndarray:
    fields = Fields(values, f"{where}: initialValues", "a constant or sequence initializer")
    count = fields.required("valueCount")
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise LayoutError(f"{fields.at('valueCount')} = {shown(count, json=True)}: expected an integer of at least 1")
    if "value" in fields:
        if "valueStart" in fields or "valueDelta" in fields:
            raise LayoutError(f"{where}: 'value' and 'valueStart'/'valueDelta' are mutually exclusive")
        value = _element(fields.at("value"), fields.required("value"), dtype)
        fields.done()
        budget.take(count * dtype.element_size, f"{where}: valueCount = {count} {dtype.name} elements")
        return np.full(count, value, dtype.numpy_dtype)
    if "valueStart" not in fields and "valueDelta" not in fields:
        raise LayoutError(f"{where}: Error parsing 'initialValues' object: unknown generator type.")
    start = _element(fields.at("valueStart"), fields.required("valueStart"), dtype)
    delta = _element(fields.at("valueDelta"), fields.required("valueDelta"), dtype)
    fields.done()
    # the steps, then their running sums
    budget.take(2 * count * dtype.element_size, f"{where}: valueCount = {count} {dtype.name} elements, twice")
    steps = np.full(count, delta, dtype.numpy_dtype)
    steps[0] = start
    with np.errstate(over="ignore"):  # float16 sequences may reach inf, as they would by hand
        return np.add.accumulate(steps, dtype=dtype.numpy_dtype)  # one addition at a time, in the type


def _element(where: str, value: Any, dtype: DataType) -> Any:
    """One initial value, checked against the data type's range."""
    kind = dtype.numpy_dtype.kind
    if kind == "f":
        real = number(where, value)
        with np.errstate(over="ignore"):
            rounded = dtype.numpy_dtype.type(real)
        if np.isinf(rounded) and not math.isinf(real):
            raise LayoutError(
                f"{where} = {shown(value, json=True)} is outside the {dtype.name} range (largest "
                f'{float(np.finfo(dtype.numpy_dtype).max):g}); write "inf" for an infinity'
            )
        return real
    if isinstance(value, bool) or not isinstance(value, int):
        expected = "an unsigned integer" if kind == "u" else "an integer"
        raise LayoutError(f"{where} = {shown(value, json=True)}: expected {expected} for {dtype.name}")
    info = np.iinfo(dtype.numpy_dtype)
    if not info.min <= value <= info.max:
        raise LayoutError(f"{where} = {value} is outside the {dtype.name} range {info.min} to {info.max}")
    return value


def _from_file(
    where: str, values: dict, dtype: DataType | None, folders: Folders, budget: LoadBudget
) -> tuple[np.ndarray, DataType]:
    fields = Fields(values, f"{where}: initialValues", "a file initializer")
    source = fields.required("sourcePath")
    fields.done()
    if not isinstance(source, str) or not source:
        raise LayoutError(f"{where}: sourcePath = {shown(source, json=True)}: expected a file name")
    file, size, path = folders.open_input(where, source)
    with file:
        budget.take(2 * size, f"{where}: reading the {size} bytes of {str(path)!r} (and converting them)")
        if path.suffix.lower() == ".npy":
            return _from_npy(where, file, size, path, dtype)
        if dtype is None:
            raise LayoutError(f"{where}: the field 'initialValuesDataType' is required for the raw file {source!r}")
        if size == 0 or size % dtype.element_size:
            raise LayoutError(
                f"{where}: the raw file {source!r} has {size} bytes, not a positive multiple of the "
                f"{dtype.name} element size {dtype.element_size}"
            )
        return _read_exactly(where, file, path, np.dtype(dtype.numpy_dtype), size // dtype.element_size), dtype


def _read_exactly(where: str, file: Any, path: Any, dtype: np.dtype, count: int) -> np.ndarray:
    try:
        values = np.fromfile(file, dtype, count)
    except (OSError, ValueError) as error:
        raise LayoutError(f"{where}: cannot read {str(path)!r}: {error}") from None
    if values.size != count:
        raise LayoutError(f"{where}: {str(path)!r} changed size while it was read")
    return values


def _from_npy(where: str, file: Any, size: int, path: Any, dtype: DataType | None) -> tuple[np.ndarray, DataType]:
    """The values of a ``.npy`` file, its header read first: a header claiming more values than
    the file holds is refused before anything is allocated."""
    try:
        version = np.lib.format.read_magic(file)
        header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, fortran, stored = header(file)
    except (OSError, ValueError, SyntaxError) as error:
        raise LayoutError(f"{where}: cannot read {str(path)!r} as a .npy file: {error}") from None
    if stored.hasobject:
        raise LayoutError(f"{where}: {str(path)!r} holds Python objects, which are never read (allow_pickle=False)")
    count = 1
    for n in shape:
        count *= n
    if size - file.tell() != count * stored.itemsize:
        raise LayoutError(
            f"{where}: {str(path)!r} has {size - file.tell()} bytes of data, but its header describes {count} "
            f"values of {stored.itemsize} bytes"
        )
    if fortran and len(shape) > 1:
        raise LayoutError(f"{where}: {str(path)!r} is stored in Fortran order; Fortran stride order unsupported.")
    native = stored.newbyteorder("=")
    try:
        found = data_type(np.dtype(np.uint8) if native == np.bool_ else native)
    except LayoutError:
        raise LayoutError(f"{where}: {str(path)!r} holds {stored}, which has no DirectML data type") from None
    if dtype is not None and dtype != found:
        raise LayoutError(
            f"{where}: Data type from file '{path}' ({found.name}) does not match field 'initialValuesDataType' "
            f"({dtype.name})."
        )
    if count == 0:
        raise LayoutError(f"{where}: {str(path)!r} holds no values; 'initialValues' must be non-empty.")
    values = _read_exactly(where, file, path, stored, count)
    return np.ascontiguousarray(values.view(np.uint8) if stored == np.bool_ else values, found.numpy_dtype), found
