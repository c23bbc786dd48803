"""DirectML tensor data types and their numpy, CUDA C and byte-size equivalents.

Each DirectML data type (``DML_TENSOR_DATA_TYPE_*``) maps to exactly one numpy dtype and one C
type, so a name, a numpy dtype or a :class:`DataType` can be given wherever a data type is asked for.

>>> data_type("dml_tensor_data_type_float16").element_size
2
>>> data_type(np.int8).name
'INT8'
>>> data_type("torch.half").name, data_type("np.single").name
('FLOAT16', 'FLOAT32')

internal: ``DATA_TYPES``, ``DataType`` and ``data_type`` are public as ``stridelab.DATA_TYPES``,
``stridelab.DataType`` and ``stridelab.data_type``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

import numpy as np

from ._validate import shown, wrong_type
from .errors import LayoutError

__all__: list[str] = []

_PREFIX = "DML_TENSOR_DATA_TYPE_"
#: Longer text names no data type (spaces around a name are allowed): it is refused unread.
_LONGEST_TEXT = 80


@dataclass(frozen=True)
class DataType:
    """One DirectML data type: its short name, numpy dtype, CUDA C type and size in bytes.

    Examples
    --------
    >>> import stridelab as sl
    >>> t = sl.data_type("float16")
    >>> t, t.name, t.element_size
    (DataType('FLOAT16'), 'FLOAT16', 2)
    """

    name: str
    numpy_dtype: np.dtype
    c_type: str

    @property
    def element_size(self) -> int:
        """Bytes per element."""
        return self.numpy_dtype.itemsize

    @property
    def dml_name(self) -> str:
        """The full enum name, e.g. ``DML_TENSOR_DATA_TYPE_FLOAT32``."""
        return _PREFIX + self.name

    def __repr__(self) -> str:
        return f"DataType({self.name!r})"


_TABLE = {
    t.name: t
    for t in (
        DataType("FLOAT32", np.dtype(np.float32), "float"),
        DataType("FLOAT16", np.dtype(np.float16), "__half"),
        DataType("UINT32", np.dtype(np.uint32), "unsigned int"),
        DataType("UINT16", np.dtype(np.uint16), "unsigned short"),
        DataType("UINT8", np.dtype(np.uint8), "unsigned char"),
        DataType("INT32", np.dtype(np.int32), "int"),
        DataType("INT16", np.dtype(np.int16), "short"),
        DataType("INT8", np.dtype(np.int8), "signed char"),
        DataType("FLOAT64", np.dtype(np.float64), "double"),
        DataType("UINT64", np.dtype(np.uint64), "unsigned long long"),
        DataType("INT64", np.dtype(np.int64), "long long"),
    )
}
_BY_NUMPY = {t.numpy_dtype: t for t in _TABLE.values()}
#: The data types' names in NumPy (``np.`` or ``numpy.`` before them) and PyTorch (``torch.``), in
#: capitals, where they differ from the lower-case DirectML name: ``float`` is float32 in PyTorch
#: but float64 in NumPy, so it is read only after ``torch.``; ``np.int_`` (long on one platform,
#: long long on another) not at all.
_NUMPY_NAMES = {
    "HALF": "FLOAT16",
    "SINGLE": "FLOAT32",
    "DOUBLE": "FLOAT64",
    "BYTE": "INT8",
    "UBYTE": "UINT8",
    "SHORT": "INT16",
    "USHORT": "UINT16",
    "INTC": "INT32",
    "UINTC": "UINT32",
    "LONGLONG": "INT64",
    "ULONGLONG": "UINT64",
}
_TORCH_NAMES = {
    "HALF": "FLOAT16",
    "FLOAT": "FLOAT32",
    "DOUBLE": "FLOAT64",
    "SHORT": "INT16",
    "INT": "INT32",
    "LONG": "INT64",
}
_MODULE_NAMES = {"NP.": _NUMPY_NAMES, "NUMPY.": _NUMPY_NAMES, "TORCH.": _TORCH_NAMES}

#: The DirectML data type names stridelab knows, in the order of the design document.
DATA_TYPES: tuple[str, ...] = tuple(_TABLE)

DataTypeLike = Union[str, DataType, np.dtype, type]  # noqa: UP007 (a runtime alias)


def data_type(value: DataTypeLike) -> DataType:
    """Resolve a data type given as a name (with or without the ``DML_TENSOR_DATA_TYPE_`` prefix,
    any case; or as NumPy or PyTorch write it: ``float32``, ``np.half``, ``numpy.int8``,
    ``torch.float32``, ``torch.long``), a :class:`DataType`, or a numpy dtype or scalar type.

    Raises :class:`LayoutError` for an unknown name or a numpy dtype DirectML has no type for
    (bool, complex, non-native byte order, ...), and :class:`TypeError` for anything else.

    Examples
    --------
    >>> import stridelab as sl
    >>> sl.data_type("torch.long"), sl.data_type("DML_TENSOR_DATA_TYPE_UINT8")
    (DataType('INT64'), DataType('UINT8'))
    """
    if isinstance(value, DataType):
        return value
    if isinstance(value, str):
        name = _directml_name(value.strip().upper() if len(value) <= _LONGEST_TEXT else "")  # no name is longer
        if name in _TABLE:
            return _TABLE[name]
        raise LayoutError(
            f"data_type {shown(value)} is not a DirectML data type; expected one of {', '.join(DATA_TYPES)}, "
            "or one of their NumPy or PyTorch names (float32, np.half, torch.int64, ...)"
        )
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        dtype = np.dtype(value)
        if dtype in _BY_NUMPY and dtype.isnative:
            return _BY_NUMPY[dtype]
        raise LayoutError(
            f"numpy dtype {dtype} has no DirectML data type; expected a native-byte-order one of "
            f"{', '.join(str(t.numpy_dtype) for t in _TABLE.values())}"
        )
    raise wrong_type("data_type", "a DirectML name, a DataType or a numpy dtype", value)


def _directml_name(name: str) -> str:
    """The DirectML name an upper-case ``name`` stands for (``TORCH.LONG``: ``INT64``), else ``name``
    without its module."""
    if name.startswith(_PREFIX):
        return name[len(_PREFIX) :]
    for module, names in _MODULE_NAMES.items():
        if name.startswith(module):
            name = name[len(module) :]
            return names.get(name, name)
    return name
