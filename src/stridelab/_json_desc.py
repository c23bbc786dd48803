"""Reading a :class:`~stridelab.desc.TensorDesc` from DirectML's ``DML_TENSOR_DESC`` fields in JSON.

The fields are DirectML's structs' (``DataType``, ``Sizes``, ``Strides``, ``Flags``,
``TotalTensorSizeInBytes``, ``GuaranteedBaseOffsetAlignment``, flat or nested as ``{"Type":
"BUFFER", "Desc": {...}}``), as DxDispatch spells them; :meth:`TensorDesc.from_json` and
:meth:`TensorDesc.parse` read them here, and :mod:`stridelab.dxdispatch` adds its binding rules.

internal: read through :meth:`TensorDesc.from_json`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ._json_fields import Fields, data_type_name, enum, integer_list, uint
from ._strides import MAX_DIMENSIONS
from ._validate import shown, wrong_type
from .desc import TensorDesc
from .dtypes import DATA_TYPES
from .errors import LayoutError

__all__: list[str] = []

_TENSOR_DESC_FIELDS = "DML_BUFFER_TENSOR_DESC"
#: DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT: a buffer tensor's base address is a multiple of this many bytes.
MINIMUM_ALIGNMENT = 16


def desc_from_json(obj: Any) -> TensorDesc:
    """:meth:`TensorDesc.from_json`: ``obj`` must be a mapping (a JSON object)."""
    if not isinstance(obj, Mapping):
        raise wrong_type("obj", "a mapping (a JSON object)", obj)
    return read_json_desc(obj, "tensor description")


def read_json_desc(obj: Any, where: str) -> TensorDesc:
    """A :class:`TensorDesc` from DxDispatch's JSON for a ``DML_TENSOR_DESC`` (see
    :meth:`TensorDesc.from_json`); every message starts with ``where``."""
    outer = Fields(obj, where, "DML_TENSOR_DESC")
    kind = outer.optional("Type")
    if kind is not None:
        enum(outer.at("Type"), kind, "DML_TENSOR_TYPE_", ("BUFFER",))
    fields = outer
    if "Desc" in outer:
        fields = Fields(outer.required("Desc"), f"{where}.Desc", _TENSOR_DESC_FIELDS)
        outer.done()
    data_type = data_type_name(fields.at("DataType"), fields.required("DataType"), DATA_TYPES)
    rank_rule = f"DirectML tensors have 1 to {MAX_DIMENSIONS} dimensions"
    sizes = integer_list(fields.at("Sizes"), fields.required("Sizes"), max_items=MAX_DIMENSIONS, rule=rank_rule)
    strides = fields.optional("Strides")
    if strides is not None:
        strides = integer_list(fields.at("Strides"), strides, max_items=MAX_DIMENSIONS, rule=rank_rule)
    count = fields.optional("DimensionCount")
    if count is not None and uint(fields.at("DimensionCount"), count) != len(sizes):
        raise LayoutError(f"{where}: DimensionCount = {count} but Sizes {list(sizes)} has {len(sizes)} entries")
    flags = fields.optional("Flags")
    if flags is not None and enum(fields.at("Flags"), flags, "DML_TENSOR_FLAG_", ("NONE", "OWNED_BY_DML")) != "NONE":
        raise LayoutError(
            f"{where}: Flags = {shown(flags)}: tensors owned by DirectML (bound at initialization) are not supported; "
            "bind the tensor's buffer at dispatch instead (Flags NONE)"
        )
    total = fields.optional("TotalTensorSizeInBytes")
    if total is not None:
        total = uint(fields.at("TotalTensorSizeInBytes"), total, limit=None, type_name="UINT64") or None
    alignment = fields.optional("GuaranteedBaseOffsetAlignment")
    if alignment is not None:
        value = uint(fields.at("GuaranteedBaseOffsetAlignment"), alignment)
        if value and (value < MINIMUM_ALIGNMENT or value & (value - 1)):
            raise LayoutError(
                f"{fields.at('GuaranteedBaseOffsetAlignment')} = {value}: it must be 0 or a power of two of at least "
                f"{MINIMUM_ALIGNMENT} (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT)"
            )
    fields.done()
    try:
        return TensorDesc(data_type, sizes, strides, total)
    except (LayoutError, TypeError) as error:  # in the JSON's field names
        message = re.sub(r"\b(sizes|strides|total_tensor_size_in_bytes)\b", lambda m: _JSON_NAMES[m[1]], str(error))
        raise LayoutError(f"{where}: {message}") from None


_JSON_NAMES = {"sizes": "Sizes", "strides": "Strides", "total_tensor_size_in_bytes": "TotalTensorSizeInBytes"}
