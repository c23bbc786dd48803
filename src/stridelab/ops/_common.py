"""What the operators share: reading ``x`` and ``out``, the checks on them, allocating a result and
choosing the backend.

Everything here is plain Python on tuples and ints (no array is allocated before every check has
passed), so the front end of a call costs microseconds however large the tensors are.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib import import_module
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from .._analysis import overlap
from .._validate import int_tuple
from ..backend import array_module, is_cupy_array, location
from ..desc import MAX_DIMENSIONS, TensorDesc, packed_strides
from ..dtypes import DataType, data_type
from ..errors import LayoutError
from ..tensor import StridedTensor
from ._plan import BufferView

__all__ = [
    "Operand",
    "allocate_output",
    "backend_for",
    "check_data_type",
    "check_output",
    "int_parameter",
    "output_view",
    "read_input",
]


class Operand(NamedTuple):
    """An operator's input, located without copying: the element at coordinates ``c`` is
    ``buffer[offset + dot(c, strides)]``. ``strides`` are signed element strides (a numpy array
    with negative strides is read in place); ``tensor`` is the StridedTensor given, if one was."""

    dtype: DataType
    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    buffer: Any
    offset: int
    tensor: StridedTensor | None

    def view(self) -> BufferView:
        return BufferView(self.buffer, self.offset, self.sizes, self.strides)


def read_input(x: Any) -> Operand:
    """``x`` (a StridedTensor, or a numpy or cupy array with at least one element and 1 to 8
    dimensions, its strides respected) as an :class:`Operand`."""
    if isinstance(x, StridedTensor):
        _check_tensor_buffer(x, "x")
        desc = x.desc
        return Operand(desc.dtype, desc.sizes, desc.strides, x.buffer, 0, x)
    if not isinstance(x, np.ndarray) and not is_cupy_array(x):
        raise TypeError(f"x must be a StridedTensor or a numpy or cupy array, not {type(x).__name__}")
    return _read_array(x)


def _read_array(a: Any) -> Operand:
    xp = array_module(a)
    if not 1 <= a.ndim <= MAX_DIMENSIONS:
        raise LayoutError(
            f"x has {a.ndim} dimensions (shape {tuple(a.shape)}); DirectML tensors have 1 to {MAX_DIMENSIONS}"
        )
    for i, n in enumerate(a.shape):
        if n < 1:
            raise LayoutError(
                f"x has shape {tuple(a.shape)}: sizes[{i}] = {n}, but every size must be at least 1 "
                "(DirectML has no empty tensors)"
            )
    dtype = data_type(a.dtype)
    itemsize = a.itemsize
    strides = []
    for i, (n, b) in enumerate(zip(a.shape, a.strides)):
        if n == 1:
            strides.append(0)
        elif b % itemsize:
            raise LayoutError(
                f"x byte_strides[{i}] = {b} is not a multiple of the item size {itemsize}, so it is no "
                "element stride: pass xp.ascontiguousarray(x) instead"
            )
        else:
            strides.append(b // itemsize)
    if a.flags.c_contiguous:
        return Operand(dtype, tuple(a.shape), tuple(strides), a.reshape(-1), 0, None)
    # The flat buffer runs from the lowest address any element uses to the highest; negative strides
    # put coordinate 0 above its start. Flipping those axes gives an array that starts there.
    low = sum((n - 1) * s for n, s in zip(a.shape, strides) if s < 0)
    high = sum((n - 1) * s for n, s in zip(a.shape, strides) if s > 0)
    if low:
        a = a[tuple(slice(None, None, -1) if s < 0 else slice(None) for s in strides)]
    buffer = xp.lib.stride_tricks.as_strided(a, shape=(high - low + 1,), strides=(itemsize,))
    return Operand(dtype, tuple(a.shape), tuple(strides), buffer, -low, None)


def _check_tensor_buffer(t: StridedTensor, name: str) -> None:
    """A StridedTensor's buffer may have been replaced since it was built: check it again."""
    desc, buffer = t.desc, t.buffer
    if buffer.dtype != desc.dtype.numpy_dtype:
        raise LayoutError(
            f"{name} buffer dtype {buffer.dtype} does not match its data type {desc.data_type} "
            f"(numpy {desc.dtype.numpy_dtype})"
        )
    needed = desc.last_offset + 1
    if buffer.size < needed:
        raise LayoutError(
            f"{name} buffer has {buffer.size} elements but its description {desc!r} reaches offset "
            f"{desc.last_offset}, so the buffer needs at least {needed}"
        )


def check_data_type(x: Operand, operator_name: str, supported: Sequence[str]) -> None:
    """Refuse a data type the operator's DirectML tensor support table does not list."""
    if x.dtype.name not in supported:
        raise LayoutError(
            f"x data type {x.dtype.name} is not supported by {operator_name}; its DirectML tensor support "
            f"table lists {', '.join(supported)}"
        )


def int_parameter(field: str, value: Any, rank: int) -> tuple[int, ...]:
    """A per-dimension parameter as a tuple of ints, one for each of the ``rank`` dimensions of x."""
    values = int_tuple(field, value)
    if len(values) != rank:
        raise LayoutError(
            f"{field} has {len(values)} entries but x has {rank} dimensions; there must be one per dimension"
        )
    return values


def check_output(
    out: Any, x: Operand, operator_name: str, sizes: tuple[int, ...] | None, in_place: bool = False
) -> bool:
    """Check ``out`` against ``x`` and the operator's rules; True where it is an exact in-place run.

    ``sizes``: the sizes ``out`` must have (None where the operator checks them itself). ``in_place``:
    whether the operator may run with ``out`` addressing exactly x's elements.
    """
    if not isinstance(out, StridedTensor):
        raise TypeError(
            f"out must be a StridedTensor (wrap an array with StridedTensor.from_array), not {type(out).__name__}"
        )
    if is_cupy_array(out.buffer) != is_cupy_array(x.buffer):
        raise TypeError(
            f"x lives in {location(x.buffer)} but out lives in {location(out.buffer)}; stridelab never moves "
            "data between devices: put both on the same one"
        )
    _check_tensor_buffer(out, "out")
    desc = out.desc
    if desc.data_type != x.dtype.name:
        raise LayoutError(
            f"out data type {desc.data_type} differs from x data type {x.dtype.name}; {operator_name} requires "
            "the same data type"
        )
    if desc.dimension_count != len(x.sizes):
        raise LayoutError(
            f"out has {desc.dimension_count} dimensions but x has {len(x.sizes)}; {operator_name} requires the "
            "same dimension count"
        )
    if sizes is not None and desc.sizes != sizes:
        raise LayoutError(
            f"out sizes {list(desc.sizes)} differ from x sizes {list(sizes)}; {operator_name} requires the same sizes"
        )
    if desc.is_broadcast or desc.is_overlapping:
        kind = "broadcast (a stride of 0 on a dimension of size > 1)" if desc.is_broadcast else "overlapping"
        raise LayoutError(
            f"out strides {list(desc.strides)} with sizes {list(desc.sizes)} are {kind}: output elements would "
            "share slots and their writes collide; every output element needs a slot of its own"
        )
    if not getattr(getattr(out.buffer, "flags", None), "writeable", True):
        raise LayoutError("out buffer is read-only; the operator writes its result there")
    return _check_disjoint(out, x, operator_name, in_place)


def _address(buffer: Any) -> int:
    """Address of a buffer's first element (numpy on the host, cupy on the device)."""
    return buffer.data.ptr if is_cupy_array(buffer) else buffer.__array_interface__["data"][0]


def _check_disjoint(out: StridedTensor, x: Operand, operator_name: str, in_place: bool) -> bool:
    """Refuse ``out`` if one of its elements is one of x's, unless it is an exact in-place run.

    Buffers that share memory are fine as long as no element is both (outputs interleaved with
    their input): decided exactly by :func:`stridelab.overlap`.
    """
    out_start = _address(out.buffer)
    x_base = _address(x.buffer)
    x_start = x_base + x.offset * x.dtype.element_size
    if out_start + out.buffer.nbytes <= x_base or x_base + x.buffer.nbytes <= out_start:
        return False
    desc = out.desc
    same_elements = (
        out_start == x_start
        and desc.sizes == x.sizes
        and all(n == 1 or s == t for n, s, t in zip(desc.sizes, desc.strides, x.strides))
    )
    if in_place and same_elements:
        return True
    allowed = (
        "only in place, with out addressing exactly x's elements (out is x)"
        if in_place
        else f"{operator_name} has no in-place form"
    )
    esize = x.dtype.element_size
    if (out_start - x_start) % esize:
        raise LayoutError(
            f"out's buffer shares memory with x's buffer and starts a fraction of an element away from x's "
            f"first element, so their elements cannot be told apart; {allowed}"
        )
    # x read backwards along a negative stride is, as a set of elements, x forwards from its lowest one
    x_low = x_start + esize * sum((n - 1) * s for n, s in zip(x.sizes, x.strides) if s < 0)
    base = min(out_start, x_low)
    try:
        x_desc = TensorDesc(x.dtype, x.sizes, [abs(s) for s in x.strides])
        pair = overlap(desc, x_desc, a_offset=(out_start - base) // esize, b_offset=(x_low - base) // esize)
    except LayoutError as error:
        raise LayoutError(f"out's buffer shares memory with x's buffer, and {error}; {allowed}") from None
    if pair is None:
        return False
    x_coords = tuple(n - 1 - c if s < 0 else c for n, s, c in zip(x.sizes, x.strides, pair[1]))
    raise LayoutError(f"out element {pair[0]} is x element {x_coords} (the same memory); {allowed}")


def output_view(out: StridedTensor) -> BufferView:
    desc = out.desc
    return BufferView(out.buffer, 0, desc.sizes, desc.strides)


def allocate_output(x: Operand, sizes: tuple[int, ...]) -> tuple[Any, BufferView]:
    """A new packed (row-major) result where x lives: a numpy or cupy array for an array input, a
    StridedTensor over a packed buffer for a StridedTensor; and the view a backend writes through."""
    xp = array_module(x.buffer)
    strides = packed_strides(sizes)
    if x.tensor is None:
        result = xp.empty(sizes, dtype=x.dtype.numpy_dtype)
        return result, BufferView(result.reshape(-1), 0, sizes, strides)
    result = StridedTensor.empty(TensorDesc(x.dtype, sizes), xp)
    return result, BufferView(result.buffer, 0, sizes, strides)


def backend_for(buffer: Any) -> ModuleType:
    """``stridelab.ops._numpy`` for a numpy buffer, ``stridelab.ops._cupy`` (imported on first use)
    for a cupy one."""
    name = "stridelab.ops._cupy" if is_cupy_array(buffer) else "stridelab.ops._numpy"
    module = sys.modules.get(name)
    return module if module is not None else import_module(name)
