"""DxDispatch's rules for the tensor descriptions a model binds.

A description is read by :func:`stridelab._json_desc.read_json_desc` (DirectML's fields, which
:meth:`~stridelab.TensorDesc.from_json` reads too); what a binding may then assume of it is here.

internal: used by the operators and the model of :mod:`stridelab.dxdispatch`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._json_desc import MINIMUM_ALIGNMENT

__all__: list[str] = []


def json_desc_alignment(obj: Mapping[str, Any]) -> int:
    """The base-offset alignment, in bytes, a JSON tensor description read by
    :func:`~stridelab._json_desc.read_json_desc` guarantees: its ``GuaranteedBaseOffsetAlignment``,
    or DirectML's minimum of 16 where that is 0 or absent.

    >>> json_desc_alignment({"Type": "BUFFER", "Desc": {"GuaranteedBaseOffsetAlignment": 64}})
    64
    >>> json_desc_alignment({"DataType": "FLOAT32", "Sizes": [4]})
    16
    """
    fields = obj["Desc"] if "Desc" in obj else obj
    return fields.get("GuaranteedBaseOffsetAlignment") or MINIMUM_ALIGNMENT
