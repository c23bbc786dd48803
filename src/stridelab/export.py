"""Rebuild a tensor description in other tools: NumPy, PyTorch, DirectML's C++ API and JSON.

A layout worked out here is usually wanted elsewhere: as a NumPy or PyTorch view over a flat
buffer, to try an operator on it, or as the ``DML_BUFFER_TENSOR_DESC`` a DirectML program passes
to the GPU, or as the JSON a DxDispatch model file holds. :func:`export` writes the one line (or,
for C++, the three lines) of source that rebuilds the description there, with the unit of every
stride spelled out: NumPy counts strides in bytes, PyTorch and DirectML in elements.

>>> from stridelab import TensorDesc
>>> print(export(TensorDesc("FLOAT32", (2, 3), (0, 1)), "torch", name="x"))
torch.as_strided(x, size=(2, 3), stride=(0, 1))  # element strides

internal: read through ``TensorDesc.export``.
"""

from __future__ import annotations

import json
import keyword
import re
from collections.abc import Callable

from ._validate import shown
from .desc import TensorDesc
from .errors import LayoutError

__all__: list[str] = []

_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# C++ keywords and alternative tokens (a superset of C's): none may name a variable.
_CPP_KEYWORDS = frozenset(
    """
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t class
    compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype
    default delete do double dynamic_cast else enum explicit export extern false float for friend goto if inline
    int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public register
    reinterpret_cast requires restrict return short signed sizeof static static_assert static_cast struct switch
    template this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile
    wchar_t while xor xor_eq _Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn
    _Static_assert _Thread_local
    """.split()
)


def _python_name(kind: str, name: str) -> str:
    if not name.isidentifier() or keyword.iskeyword(name):
        raise LayoutError(f"name {shown(name)} is not a valid Python identifier; {kind} code needs a variable name")
    return name


def _c_name(name: str) -> str:
    if not _C_IDENTIFIER.fullmatch(name) or name in _CPP_KEYWORDS:
        raise LayoutError(
            f"name {shown(name)} is not a valid C identifier (a letter or _ then letters, digits or _, "
            "and not a keyword); the C++ code declares variables with it"
        )
    return name


def _numpy(desc: TensorDesc, name: str) -> str:
    """``as_strided`` over a 1-D array of the description's dtype; NumPy strides count bytes."""
    byte_strides = tuple(s * desc.element_size for s in desc.strides)
    return f"np.lib.stride_tricks.as_strided({name}, shape={desc.sizes!r}, strides={byte_strides!r})  # byte strides"


def _torch(desc: TensorDesc, name: str) -> str:
    """``torch.as_strided`` over a 1-D tensor of the description's dtype; PyTorch strides count elements."""
    return f"torch.as_strided({name}, size={desc.sizes!r}, stride={desc.strides!r})  # element strides"


def _cpp(desc: TensorDesc, name: str) -> str:
    """A ``DML_BUFFER_TENSOR_DESC`` initializer, fields in struct order, with its sizes and strides arrays."""
    rank = desc.dimension_count
    total = str(desc.buffer_size) + ("ULL" if desc.buffer_size >= 2**63 else "")
    fields = [
        desc.dtype.dml_name,  # DataType
        "DML_TENSOR_FLAG_NONE",  # Flags
        str(rank),  # DimensionCount
        f"{name}_sizes",  # Sizes
        f"{name}_strides",  # Strides
        total,  # TotalTensorSizeInBytes
        "0",  # GuaranteedBaseOffsetAlignment
    ]
    return "\n".join(
        [
            f"const UINT {name}_sizes[{rank}] = {{{', '.join(map(str, desc.sizes))}}};",
            f"const UINT {name}_strides[{rank}] = {{{', '.join(map(str, desc.strides))}}};",
            f"const DML_BUFFER_TENSOR_DESC {name} = {{{', '.join(fields)}}};",
        ]
    )


def _json(desc: TensorDesc, name: str) -> str:
    """DxDispatch's field names on one line; ``name`` is not used."""
    return json.dumps(desc.to_json())


_KINDS: dict[str, tuple[Callable[[TensorDesc, str], str], str]] = {
    "numpy": (_numpy, "buffer"),
    "torch": (_torch, "buffer"),
    "cpp": (_cpp, "desc"),
    "json": (_json, ""),
}

#: The kinds :func:`export` writes.
EXPORT_KINDS: tuple[str, ...] = tuple(_KINDS)


def export(desc: TensorDesc, kind: str, *, name: str | None = None) -> str:
    """Source code that rebuilds ``desc`` in another tool.

    Parameters
    ----------
    desc : TensorDesc
        The description to rebuild.
    kind : {"numpy", "torch", "cpp", "json"}
        ``"numpy"``: a ``np.lib.stride_tricks.as_strided`` view (strides in bytes) of ``name``, a
        1-D array of the description's dtype with at least ``desc.slot_count`` elements.
        ``"torch"``: a ``torch.as_strided`` view (strides in elements) of ``name``, a 1-D tensor.
        ``"cpp"``: a DirectML ``DML_BUFFER_TENSOR_DESC`` called ``name``, with its arrays
        ``name_sizes`` and ``name_strides``; ``TotalTensorSizeInBytes`` is ``desc.buffer_size``.
        ``"json"``: ``desc.to_json()`` (DxDispatch's field names) on one line.
    name : str, optional
        The buffer's variable name (default ``"buffer"``) for numpy and torch, the description's
        (default ``"desc"``) for cpp; not used for json.

    Raises
    ------
    TypeError
        ``desc`` is not a :class:`TensorDesc`, or ``name`` is not a string.
    LayoutError
        An unknown ``kind``; a ``name`` that is not a Python identifier (numpy, torch) or a C
        identifier (cpp). (No TensorDesc has a buffer too large for DirectML's 64-bit
        ``TotalTensorSizeInBytes``: it refuses one.)

    Examples
    --------
    >>> from stridelab import TensorDesc
    >>> d = TensorDesc("FLOAT16", (1, 1, 2, 3), (0, 0, 5, 1))
    >>> print(export(d, "numpy"))
    np.lib.stride_tricks.as_strided(buffer, shape=(1, 1, 2, 3), strides=(0, 0, 10, 2))  # byte strides
    >>> print(export(d, "torch"))
    torch.as_strided(buffer, size=(1, 1, 2, 3), stride=(0, 0, 5, 1))  # element strides

    The C++ initializer's last line is a single line, wrapped here:

    >>> print(export(d, "cpp"))  # doctest: +NORMALIZE_WHITESPACE
    const UINT desc_sizes[4] = {1, 1, 2, 3};
    const UINT desc_strides[4] = {0, 0, 5, 1};
    const DML_BUFFER_TENSOR_DESC desc = {DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_FLAG_NONE, 4,
                                         desc_sizes, desc_strides, 16, 0};

    >>> print(export(d, "json"))
    {"DataType": "FLOAT16", "Sizes": [1, 1, 2, 3], "Strides": [0, 0, 5, 1]}
    >>> print(export(TensorDesc("UINT8", (5,)), "numpy", name="raw"))
    np.lib.stride_tricks.as_strided(raw, shape=(5,), strides=(1,))  # byte strides
    """
    if not isinstance(desc, TensorDesc):
        raise TypeError(f"export needs a TensorDesc, not {type(desc).__name__}")
    if not isinstance(kind, str) or kind not in _KINDS:
        raise LayoutError(f"kind {shown(kind)} is not an export kind; expected one of {', '.join(map(repr, _KINDS))}")
    write, default_name = _KINDS[kind]
    if name is None:
        name = default_name
    elif not isinstance(name, str):
        raise TypeError(f"name must be a str, not {type(name).__name__}")
    if kind == "cpp":
        name = _c_name(name)
    elif kind != "json":
        name = _python_name(kind, name)
    return write(desc, name)
