"""Arrays in and out: the one reader of array objects, and its inverse, the builder.

:func:`read_array` views a NumPy or CuPy array, anything with ``__array_interface__`` or
``__cuda_array_interface__``, a DLPack object or a PyTorch tensor without copying: a flat
``buffer`` (from the lowest element any coordinate reaches to the highest), the ``offset`` of
coordinate 0 in it and the object's own signed element ``strides``, so that the element at
coordinates ``c`` is ``buffer[offset + dot(c, strides)]``. :func:`layout_of` reads the same data
type, sizes and strides without touching the memory (a CUDA tensor needs no CuPy for it). What a
caller accepts of that (negative strides, 0-d arrays, other modules) is the caller's policy, stated
in its own errors; what no element-stride description can hold (a byte stride that is no whole
number of elements) is refused here.

:func:`described_strides` is the normalisation a :class:`~stridelab.TensorDesc` of an array uses: a
size-1 dimension, whose stride never moves, gets the span of the dimensions inside it, so a
C-contiguous array reads as the packed description and a channels-last one as NHWC.

:func:`build_array` is the inverse: an array of NumPy, CuPy or (through a given tensor's own methods)
PyTorch in an exact layout, over a fresh buffer filled with one value.

Stridelab never imports torch: a tensor is recognised by its type's module, and CUDA memory is
viewed through CuPy, imported only then.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from ._optional import optional_imports
from ._strides import UINT_MAX
from ._validate import refuse_masked, wrong_type
from .backend import array_module, is_cupy_array
from .dtypes import DataType, data_type
from .errors import LayoutError

__all__ = ["ArrayRead", "Layout", "build_array", "described_strides", "is_torch", "layout_of", "read_array"]

_DLPACK_CPU, _DLPACK_CUDA = 1, 2  # kDLCPU and kDLCUDA in DLPack's DLDeviceType
#: PyTorch's dtype names (``str(t.dtype)`` without ``torch.``) that have a DirectML data type.
TORCH_DTYPES = {
    "float32": "FLOAT32", "float16": "FLOAT16", "float64": "FLOAT64", "int8": "INT8", "int16": "INT16",
    "int32": "INT32", "int64": "INT64", "uint8": "UINT8", "uint16": "UINT16", "uint32": "UINT32", "uint64": "UINT64",
}  # fmt: skip


_ANY_ARRAY = "an array (numpy, cupy, an array interface, DLPack or a torch tensor)"


class Layout(NamedTuple):
    """An object's data type, sizes and signed element strides, as the object itself has them;
    ``kind`` names what it is (``"numpy.ndarray"``, ``"torch.Tensor"``, ...)."""

    dtype: DataType
    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    kind: str


class ArrayRead(NamedTuple):
    """An object read as memory: ``array`` (a NumPy or CuPy array over the object's memory, which
    keeps its owner alive), its :class:`Layout`, and the flat ``buffer`` (1-D, of ``array``'s
    module) with ``offset``, the element of coordinate 0 in it."""

    array: Any
    layout: Layout
    buffer: Any
    offset: int

    @property
    def negative_axes(self) -> list[int]:
        """The axes along which the array steps backwards through memory."""
        return [i for i, (n, s) in enumerate(zip(self.layout.sizes, self.layout.strides)) if n > 1 and s < 0]


def is_torch(obj: Any) -> bool:
    """True for a PyTorch tensor, without importing torch."""
    return type(obj).__module__.split(".")[0] == "torch" and hasattr(obj, "stride")


def element_strides(field: str, sizes: tuple[int, ...], byte_strides: tuple[int, ...], itemsize: int) -> tuple:
    """Byte strides as signed element strides. A size-1 dimension's stride never moves, so its
    remainder is dropped (towards 0); elsewhere a stride that is no whole number of elements is
    refused."""
    strides = []
    for i, (n, b) in enumerate(zip(sizes, byte_strides)):
        if b % itemsize and n != 1:
            raise LayoutError(
                f"{field} byte_strides[{i}] = {b} is not a multiple of the item size {itemsize}, so it is no "
                f"element stride: pass xp.ascontiguousarray({field}) instead"
            )
        strides.append(b // itemsize if b >= 0 else -(-b // itemsize))
    return tuple(strides)


def _kind(obj: Any) -> str:
    if isinstance(obj, np.ndarray):
        return "numpy.ndarray"
    if is_cupy_array(obj):
        return "cupy.ndarray"
    return f"{type(obj).__module__.split('.')[0]}.{type(obj).__name__}"


def _torch_layout(obj: Any) -> Layout:
    name = str(obj.dtype).removeprefix("torch.")
    if name not in TORCH_DTYPES:
        raise LayoutError(f"torch dtype {obj.dtype} has no DirectML data type; expected one of {sorted(TORCH_DTYPES)}")
    return Layout(data_type(TORCH_DTYPES[name]), tuple(obj.shape), tuple(obj.stride()), "torch.Tensor")


def _interface_layout(field: str, obj: Any, interface: dict) -> Layout:
    dtype = np.dtype(interface["typestr"])
    sizes = tuple(int(n) for n in interface["shape"])
    byte_strides = interface.get("strides")
    if byte_strides is None:  # C-contiguous
        byte_strides = tuple(int(s) * dtype.itemsize for s in _packed(sizes))
    return Layout(
        data_type(dtype), sizes, element_strides(field, sizes, tuple(byte_strides), dtype.itemsize), _kind(obj)
    )


def _packed(sizes: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for n in reversed(sizes):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def layout_of(obj: Any, field: str = "x", expected: str = _ANY_ARRAY) -> Layout:
    """The :class:`Layout` of an array-like ``obj``, read from its metadata alone (no memory
    touched, nothing imported); a DLPack-only object is viewed through :func:`read_array`.

    >>> layout_of(np.zeros((2, 3), np.float32)[:, ::-1])
    Layout(dtype=DataType('FLOAT32'), sizes=(2, 3), strides=(3, -1), kind='numpy.ndarray')
    """
    refuse_masked(field, obj)
    if isinstance(obj, np.ndarray) or is_cupy_array(obj):
        dtype = data_type(obj.dtype)
        return Layout(dtype, obj.shape, element_strides(field, obj.shape, obj.strides, obj.itemsize), _kind(obj))
    if is_torch(obj):
        return _torch_layout(obj)
    for name in ("__array_interface__", "__cuda_array_interface__"):
        interface = _attribute(obj, name)
        if isinstance(interface, dict):
            return _interface_layout(field, obj, interface)
    return read_array(obj, field, expected).layout


def _attribute(obj: Any, name: str) -> Any:
    try:  # a CPU tensor may raise for its CUDA interface rather than lack it
        return getattr(obj, name, None)
    except Exception:
        return None


def _dlpack_device(obj: Any) -> int | None:
    try:
        return int(obj.__dlpack_device__()[0]) if hasattr(obj, "__dlpack__") else None
    except Exception:
        return None


def as_array(obj: Any, field: str = "x", expected: str = _ANY_ARRAY) -> Any:
    """``obj`` as a NumPy or CuPy array over its own memory (CUDA memory through CuPy, imported
    only then); TypeError for anything no array interface or DLPack describes, saying ``field``
    must be ``expected``. A masked array comes back as it is, for :func:`layout_of` to refuse."""
    if isinstance(obj, np.ndarray) or is_cupy_array(obj):
        return obj
    device = _dlpack_device(obj)
    cuda = _attribute(obj, "__cuda_array_interface__") is not None
    if cuda or device == _DLPACK_CUDA:
        with optional_imports("gpu", "a CUDA array (one with __cuda_array_interface__ or a CUDA __dlpack__)"):
            import cupy

        return cupy.asarray(obj) if cuda else cupy.from_dlpack(obj)
    if _attribute(obj, "__array_interface__") is not None:
        return np.asarray(obj)  # the array's base keeps obj alive
    if device == _DLPACK_CPU:
        return np.from_dlpack(obj)
    raise wrong_type(field, expected, obj)


def read_array(obj: Any, field: str = "x", expected: str = _ANY_ARRAY) -> ArrayRead:
    """``obj`` as memory, without copying (see the module docstring).

    >>> a = np.arange(6, dtype=np.int16).reshape(2, 3)[:, ::-2]
    >>> r = read_array(a)
    >>> r.layout.strides, r.offset, r.buffer.tolist()
    ((3, -2), 2, [0, 1, 2, 3, 4, 5])
    >>> [int(r.buffer[r.offset + 3 * i - 2 * j]) for i in range(2) for j in range(2)]
    [2, 0, 5, 3]
    """
    array = as_array(obj, field, expected)
    layout = layout_of(array, field)
    if is_torch(obj):
        layout = layout._replace(kind="torch.Tensor")
    buffer, offset = flat_buffer(array, layout.sizes, layout.strides)
    return ArrayRead(array, layout, buffer, offset)


def flat_buffer(array: Any, sizes: tuple[int, ...], strides: tuple[int, ...]) -> tuple[Any, int]:
    """The 1-D view of ``array``'s memory from the lowest element it reaches to the highest, and
    the index of coordinate 0 in it."""
    if array.flags.c_contiguous or 0 in sizes:
        return array.reshape(-1), 0
    read, origin = flat_reader(sizes, strides, array.itemsize)
    return read(array), origin


def flat_reader(sizes: tuple[int, ...], strides: tuple[int, ...], itemsize: int) -> tuple[Callable[[Any], Any], int]:
    """What :func:`flat_buffer` does, worked out once for arrays of one layout: a function from
    such an array to its flat buffer, and the index of coordinate 0 in that buffer."""
    low = sum((n - 1) * s for n, s in zip(sizes, strides) if s < 0)
    high = sum((n - 1) * s for n, s in zip(sizes, strides) if s > 0)
    # negative strides put coordinate 0 above the start: flipping those axes gives an array that starts there
    flips = tuple(slice(None, None, -1) if s < 0 else slice(None) for s in strides) if low else None
    span = high - low + 1

    def read(array: Any) -> Any:
        start = array[flips] if flips else array
        return array_module(array).lib.stride_tricks.as_strided(start, shape=(span,), strides=(itemsize,))

    return read, -low


def described_strides(sizes: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, ...]:
    """``strides`` with each size-1 dimension's stride (which never moves) replaced by the largest
    span of the dimensions after it, held below 2**32: what a TensorDesc of the array uses.

    >>> described_strides((1, 3, 1, 1), (7, 1, 9, -4))  # a channels-last image: NHWC's strides
    (3, 1, 1, 1)
    """
    result, span = list(strides), 1
    for axis in reversed(range(len(sizes))):
        if sizes[axis] == 1:
            result[axis] = min(span, UINT_MAX)
        span = max(span, abs(result[axis]) * sizes[axis])
    return tuple(result)


# -- the builder -------------------------------------------------------------------------------


def unbuildable(like: Any, strides: tuple[int, ...]) -> str | None:
    """Why :func:`build_array` cannot build ``strides`` for ``like``, or None where it can."""
    if is_torch(like) and any(s < 0 for s in strides):
        return f"strides {list(strides)} are negative somewhere, and torch tensors have no negative strides"
    return None


def build_array(
    sizes: tuple[int, ...], strides: tuple[int, ...], *, dtype: Any, like: Any = np, offset: int = 0, fill: Any = 0
) -> Any:
    """An array of ``sizes`` whose element ``c`` lies at ``offset + dot(c, strides)`` of a new
    buffer (of the fewest elements that holds them all) filled with ``fill``.

    ``like``: the numpy or cupy module, or a torch tensor, whose ``new_full`` and ``as_strided``
    make the result on its device (``dtype`` may then be a torch dtype or None for its own). Strides
    are signed element strides; ``offset`` may leave slots before coordinate 0 (and must leave room
    for negative strides). Broadcast and overlapping layouts are built too.

    >>> a = build_array((2, 3), (1, -2), dtype=np.int8, offset=5, fill=7)
    >>> a.strides, a.base.size, a.tolist()
    ((1, -2), 7, [[7, 7, 7], [7, 7, 7]])
    """
    why = unbuildable(like, strides)
    if why is not None:
        raise LayoutError(f"this layout cannot be built for torch: {why}")
    low = offset + sum((n - 1) * s for n, s in zip(sizes, strides) if s < 0)
    if low < 0:
        raise LayoutError(
            f"offset = {offset} leaves no room before coordinate 0 for strides {list(strides)}: the element "
            f"furthest back lies {-low} elements before the buffer"
        )
    count = offset + sum((n - 1) * s for n, s in zip(sizes, strides) if s > 0) + 1 if 0 not in sizes else offset
    if is_torch(like):
        buffer = like.new_full((count,), fill, dtype=dtype)
        return buffer.as_strided(tuple(sizes), tuple(strides), offset)
    xp = _module(like)
    buffer = xp.full(count, fill, dtype=dtype)
    byte_strides = tuple(s * buffer.itemsize for s in strides)
    if xp is np:
        return np.ndarray(tuple(sizes), buffer.dtype, buffer, offset * buffer.itemsize, byte_strides)
    return xp.ndarray(tuple(sizes), buffer.dtype, buffer.data + offset * buffer.itemsize, byte_strides)


def _module(like: Any) -> ModuleType:
    if like is np or (isinstance(like, ModuleType) and like.__name__ == "cupy"):
        return like
    raise wrong_type("like", "the numpy or cupy module or a torch tensor", like)
