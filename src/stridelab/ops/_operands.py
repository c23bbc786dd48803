"""An operator's operands: reading ``x`` (a StridedTensor or an array, without copying) and
checking ``out`` against it and the operator's rules, in plain Python on tuples and ints, so that
nothing is allocated before every check has passed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from .._arrays import described_strides, flat_reader, read_array
from .._overlap import overlap
from .._strides import MAX_DIMENSIONS, UINT_MAX
from .._validate import int_tuple, refuse_masked, wrong_type
from ..backend import is_cupy_array, location
from ..desc import TensorDesc
from ..dtypes import DataType
from ..errors import LayoutError
from ..tensor import StridedTensor

__all__ = [
    "NAMES",
    "Names",
    "Operand",
    "address",
    "check_data_type",
    "check_output",
    "check_writeable",
    "device_of",
    "int_parameter",
    "read_input",
]


class Names(NamedTuple):
    """What an operator's messages call each field: stridelab's parameter names by default;
    DxDispatch passes the desc's (``InputTensor``, ``InputWindowOffsets``, ...), so that its
    messages name them without any rewriting."""

    x: str = "x"
    out: str = "out"
    axis: str = "axis"
    direction: str = "direction"
    exclusive: str = "exclusive"
    window_offsets: str = "window_offsets"
    window_sizes: str = "window_sizes"
    window_strides: str = "window_strides"
    output_sizes: str = "output_sizes"


#: The parameter names of stridelab's functions.
NAMES = Names()


class Operand(NamedTuple):
    """An operator's input, located without copying: the element at coordinates ``c`` is
    ``buffer[offset + dot(c, strides)]``. ``strides`` are signed element strides (a numpy array
    with negative strides is read in place); ``tensor`` is the StridedTensor given, if one was;
    ``read(x)`` gives what a backend reads for another ``x`` of the same signature, whose element
    ``read_origin`` is x's logical coordinate 0 (None: x itself, as for a C-contiguous array, or
    any cupy array: the cupy backend only takes its address, numpy its buffer protocol; a reshape
    or a strided view would cost more than the rest of a small call); ``device``: the GPU of a cupy buffer (None for
    numpy)."""

    dtype: DataType
    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    buffer: Any
    offset: int
    tensor: StridedTensor | None
    read: Callable[[Any], Any] | None
    read_origin: int
    device: int | None


def read_input(x: Any, field: str = "x") -> Operand:
    """``x`` (a StridedTensor, or a numpy or cupy array with at least one element and 1 to 8
    dimensions, its strides respected) as an :class:`Operand`; ``field`` names it in messages."""
    if isinstance(x, StridedTensor):
        desc = x.desc
        return Operand(desc.dtype, desc.sizes, desc.strides, x.buffer, 0, x, _tensor_buffer, 0, device_of(x.buffer))
    if not isinstance(x, np.ndarray) and not is_cupy_array(x):
        raise wrong_type(field, "a StridedTensor or a numpy or cupy array", x)
    return _read_array(x, field)  # the reader refuses a masked array, naming field


def _tensor_buffer(x: StridedTensor) -> Any:
    return x.buffer


def device_of(buffer: Any) -> int | None:
    return buffer.data.device_id if is_cupy_array(buffer) else None


def _read_array(a: Any, x: str) -> Operand:
    """The operators' policy on arrays: 1 to 8 dimensions, sizes from 1 to 2**32 - 1, element strides
    within 32 bits (negative ones read in place)."""
    read = read_array(a, x)
    sizes, raw = read.layout.sizes, read.layout.strides
    if not 1 <= len(sizes) <= MAX_DIMENSIONS:
        raise LayoutError(
            f"{x} has {len(sizes)} dimensions (shape {sizes}); DirectML tensors have 1 to {MAX_DIMENSIONS}"
        )
    for i, n in enumerate(sizes):
        if n < 1:
            raise LayoutError(
                f"{x} has shape {sizes}: sizes[{i}] = {n}, but every size must be at least 1 "
                "(DirectML has no empty tensors)"
            )
        if n > UINT_MAX:
            raise LayoutError(f"{x} has shape {sizes}: sizes[{i}] = {n} exceeds {UINT_MAX}: {_UINT_RULE}")
    for i, (n, s) in enumerate(zip(sizes, raw)):
        if n > 1 and abs(s) > UINT_MAX:
            raise LayoutError(
                f"{x} byte_strides[{i}] = {a.strides[i]} is {s} elements, beyond {UINT_MAX}: {_UINT_RULE}"
            )
    strides = described_strides(sizes, raw)
    dtype, device = read.layout.dtype, device_of(a)
    if a.flags.c_contiguous:
        return Operand(dtype, sizes, strides, read.buffer, 0, None, None, 0, device)
    if device is not None:  # the cupy backend takes the address of coordinate 0
        return Operand(dtype, sizes, strides, read.buffer, read.offset, None, None, 0, device)
    flat, origin = flat_reader(sizes, raw, a.itemsize)
    return Operand(dtype, sizes, strides, read.buffer, read.offset, None, flat, origin, device)


_UINT_RULE = "DirectML sizes and strides are 32-bit UINTs"


def check_data_type(x: Operand, operator_name: str, supported: Sequence[str], names: Names = NAMES) -> None:
    """Refuse a data type the operator's DirectML tensor support table does not list."""
    if x.dtype.name not in supported:
        raise LayoutError(
            f"{names.x} data type {x.dtype.name} is not supported by {operator_name}; its DirectML tensor support "
            f"table lists {', '.join(supported)}"
        )


def int_parameter(field: str, value: Any, rank: int, x: str = "x") -> tuple[int, ...]:
    """A per-dimension parameter as a tuple of ints, one for each of the ``rank`` dimensions of x."""
    values = int_tuple(field, value)
    if len(values) != rank:
        raise LayoutError(
            f"{field} has {len(values)} entries but {x} has {rank} dimensions; there must be one per dimension"
        )
    return values


def check_output(
    out: Any,
    x: Operand,
    operator_name: str,
    sizes: tuple[int, ...] | None,
    in_place: bool = False,
    names: Names = NAMES,
) -> bool:
    """Check ``out`` against ``x`` and the operator's rules; True where it is an exact in-place run.

    ``sizes``: the sizes ``out`` must have (None where the operator checks them itself). ``in_place``:
    whether the operator may run with ``out`` addressing exactly x's elements.
    """
    if not isinstance(out, StridedTensor):
        raise wrong_type(names.out, "a StridedTensor (wrap an array with StridedTensor.from_array)", out)
    refuse_masked(names.out, out.buffer)
    if is_cupy_array(out.buffer) != is_cupy_array(x.buffer):
        raise TypeError(
            f"{names.x} lives in {location(x.buffer)} but {names.out} lives in {location(out.buffer)}; stridelab "
            "never moves data between devices: put both on the same one"
        )
    out_device = device_of(out.buffer)
    if out_device != x.device:
        raise LayoutError(
            f"{names.x} is on GPU {x.device} but {names.out} is on GPU {out_device}; stridelab never moves data "
            f"between devices: allocate {names.out} on {names.x}'s device"
        )
    desc = out.desc
    if desc.data_type != x.dtype.name:
        raise LayoutError(
            f"{names.out} data type {desc.data_type} differs from {names.x} data type {x.dtype.name}; "
            f"{operator_name} requires the same data type"
        )
    if desc.dimension_count != len(x.sizes):
        raise LayoutError(
            f"{names.out} has {desc.dimension_count} dimensions but {names.x} has {len(x.sizes)}; {operator_name} "
            "requires the same dimension count"
        )
    if sizes is not None and desc.sizes != sizes:
        raise LayoutError(
            f"{names.out} sizes {list(desc.sizes)} differ from {names.x} sizes {list(sizes)}; {operator_name} "
            "requires the same sizes"
        )
    if desc.is_broadcast or desc.is_overlapping:
        kind = "broadcast (a stride of 0 on a dimension of size > 1)" if desc.is_broadcast else "overlapping"
        raise LayoutError(
            f"{names.out} strides {list(desc.strides)} with sizes {list(desc.sizes)} are {kind}: output elements would "
            "share slots and their writes collide; every output element needs a slot of its own"
        )
    check_writeable(out.buffer)
    return _check_disjoint(out, x, operator_name, in_place, names)


def address(buffer: Any) -> int:
    """Address of a buffer's first element (numpy on the host, cupy on the device)."""
    return buffer.data.ptr if is_cupy_array(buffer) else buffer.__array_interface__["data"][0]


def _check_disjoint(out: StridedTensor, x: Operand, operator_name: str, in_place: bool, names: Names) -> bool:
    """Refuse ``out`` if one of its elements is one of x's, unless it is an exact in-place run.

    Buffers that share memory are fine as long as no element is both (outputs interleaved with
    their input): decided exactly by :func:`stridelab.overlap`.
    """
    out_start = address(out.buffer)
    x_base = address(x.buffer)
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
        f"only in place, with {names.out} addressing exactly {names.x}'s elements ({names.out} is {names.x})"
        if in_place
        else f"{operator_name} has no in-place form"
    )
    esize = x.dtype.element_size
    if (out_start - x_start) % esize:
        raise LayoutError(
            f"{names.out}'s buffer shares memory with {names.x}'s buffer and starts a fraction of an element away "
            f"from {names.x}'s first element, so their elements cannot be told apart; {allowed}"
        )
    # x read backwards along a negative stride is, as a set of elements, x forwards from its lowest one
    x_low = x_start + esize * sum((n - 1) * s for n, s in zip(x.sizes, x.strides) if s < 0)
    base = min(out_start, x_low)
    try:
        x_desc = TensorDesc(x.dtype, x.sizes, [abs(s) for s in x.strides])
        pair = overlap(desc, x_desc, a_offset=(out_start - base) // esize, b_offset=(x_low - base) // esize)
    except LayoutError as error:
        raise LayoutError(
            f"{names.out}'s buffer shares memory with {names.x}'s buffer, and {error}; {allowed}"
        ) from None
    if pair is None:
        return False
    x_coords = tuple(n - 1 - c if s < 0 else c for n, s, c in zip(x.sizes, x.strides, pair[1]))
    raise LayoutError(f"{names.out} element {pair[0]} is {names.x} element {x_coords} (the same memory); {allowed}")


def check_writeable(buffer: Any) -> None:
    if not getattr(getattr(buffer, "flags", None), "writeable", True):
        raise LayoutError("out buffer is read-only; the operator writes its result there")
