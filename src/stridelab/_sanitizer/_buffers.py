"""Arrays in a probe layout over a poisoned buffer, and results brought back to the host.

Every slot of a buffer that holds no logical element (padding, gaps, the margins before the
offset and after the end) holds poison; an output buffer starts with every slot at a sentinel.

internal: :mod:`stridelab._sanitizer._run` uses it.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from .._arrays import as_array, build_array, is_torch
from .._validate import shown
from ..backend import is_cupy_array
from ..errors import LayoutError
from ._catalogue import MAX_ELEMENTS, ProbeLayout, packed_strides

__all__: list[str] = []

MARGIN_MIN = 64


def fills(dtype: np.dtype) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """Two poisons and two sentinels for ``dtype``, all four different.

    The float poisons are 9000 and minus infinity: a padding read then changes a maximum, a minimum,
    a sum, a sign test or a product with 0 (minus infinity times 0 is NaN), and neither poison is
    NaN, which NaN-masking functions would skip."""
    if dtype.kind == "f":
        return (9000.0, -np.inf), (-8000.0, np.nan)
    if dtype.kind == "c":
        return (9000.0, complex(-np.inf, 1)), (-8000.0, complex(1, np.nan))
    if dtype.kind == "b":
        return (True, False), (True, False)
    info = np.iinfo(dtype)
    return (int(info.max) - 1, int(info.min) + 2), (int(info.max) - 2, int(info.min) + 3)


def margin(sizes: tuple[int, ...]) -> int:
    """The poisoned slots on each side of a layout: twice the packed span (at least
    :data:`MARGIN_MIN`), so that a read as if packed from either end of any catalogue layout, or
    one span beyond it, lands in poison rather than in a fault."""
    return max(MARGIN_MIN, 2 * int(np.prod(sizes, dtype=np.int64)))


def element_slots(layout: ProbeLayout, start: int) -> np.ndarray:
    """The buffer slot of every logical element, in row-major order, coordinate 0 at ``start``."""
    slots = np.full(layout.sizes, start, dtype=np.int64)
    for axis, (n, stride) in enumerate(zip(layout.sizes, layout.strides)):
        shape = [1] * len(layout.sizes)
        shape[axis] = n
        slots = slots + (np.arange(n, dtype=np.int64) * stride).reshape(shape)
    return slots.reshape(-1)


@dataclass
class Placed:
    """An array in a probe layout: ``array`` (what the function gets), ``buffer`` (every slot of
    its memory, 1-D) and ``slots`` (each logical element's slot of ``buffer``, row-major)."""

    array: Any
    buffer: Any
    slots: np.ndarray

    def padding_mask(self) -> np.ndarray:
        mask = np.ones(self.buffer.shape[0], dtype=bool)
        mask[self.slots] = False
        return mask


def place(layout: ProbeLayout, values: np.ndarray, like: Any, fill: Any) -> Placed:
    """``values`` (host, of ``layout.sizes``) in ``layout`` over a buffer of ``like``'s kind whose
    other slots hold ``fill``; margins of :func:`margin` slots before and after."""
    edge = margin(layout.sizes)
    high = sum((n - 1) * s for n, s in zip(layout.sizes, layout.strides) if s > 0)
    start = edge + layout.offset  # coordinate 0's slot: the layout's offset leaves room for negative strides
    flat = build_array(
        (start + high + 1 + edge,), (1,), dtype=_dtype_for(like, values.dtype), like=_module_for(like), fill=fill
    )
    buffer = _writable(flat)  # NumPy or CuPy over every slot, a torch tensor's too
    slots = element_slots(layout, start)
    buffer[_index(buffer, slots)] = _to_device(buffer, values.reshape(-1))
    return Placed(_view(flat, layout, start), buffer, slots)


def _view(flat: Any, layout: ProbeLayout, start: int) -> Any:
    """``layout`` over the 1-D ``flat``, coordinate 0 at slot ``start``: the array's base is the
    whole buffer, margins included."""
    if is_torch(flat):
        return flat.as_strided(layout.sizes, layout.strides, start)
    byte_strides = tuple(s * flat.itemsize for s in layout.strides)
    if isinstance(flat, np.ndarray):
        return np.ndarray(layout.sizes, flat.dtype, flat, start * flat.itemsize, byte_strides)
    import cupy

    return cupy.ndarray(layout.sizes, flat.dtype, flat.data + start * flat.itemsize, byte_strides)


def set_slots(buffer: Any, slots: np.ndarray, value: Any, dtype: np.dtype) -> None:
    """Set ``slots`` of ``buffer`` (NumPy, CuPy or torch, 1-D) to ``value``."""
    buffer[_index(buffer, slots)] = _to_device(buffer, np.full(slots.size, value, dtype))


def poison_range(buffer: Any, start: int, stop: int, keep: np.ndarray, value: Any) -> np.ndarray:
    """Set the slots ``start:stop`` of ``buffer`` (1-D) to ``value``, but where ``keep`` (for the
    whole buffer) is set; returns what they held, for :func:`restore_range`."""
    old = to_host(buffer[start:stop])
    buffer[start:stop] = _to_device(buffer, np.where(keep[start:stop], old, np.asarray(value, old.dtype)))
    return old


def restore_range(buffer: Any, start: int, old: np.ndarray) -> None:
    """Put back what :func:`poison_range` returned."""
    buffer[start : start + old.shape[0]] = _to_device(buffer, old)


def packed_copy(values: np.ndarray, like: Any) -> Any:
    """``values`` in a fresh packed array of ``like``'s kind, over a buffer of exactly its elements."""
    strides = packed_strides(values.shape)
    array = build_array(values.shape, strides, dtype=_dtype_for(like, values.dtype), like=_module_for(like))
    view = _writable(array)  # NumPy or CuPy: a torch tensor takes no NumPy values
    view[...] = _to_device(view, values)
    return array


def _writable(array: Any) -> Any:
    """A writable NumPy or CuPy array over ``array``'s memory: a CPU tensor's through its own
    ``numpy()`` (NumPy before 2.1 imports DLPack read-only), anything else through the reader."""
    if is_torch(array) and array.device.type == "cpu":
        return array.detach().numpy()
    return as_array(array)


def _module_for(like: Any) -> Any:
    if is_torch(like) or isinstance(like, ModuleType):  # a tensor, or the numpy or cupy module
        return like
    if is_cupy_array(like):
        import cupy

        return cupy
    return np


def _dtype_for(like: Any, dtype: np.dtype) -> Any:
    return like.dtype if is_torch(like) else dtype


def _index(buffer: Any, slots: np.ndarray) -> Any:
    return _to_device(buffer, slots) if is_cupy_array(buffer) else slots


def _to_device(target: Any, values: np.ndarray) -> Any:
    if is_cupy_array(target):
        import cupy

        return cupy.asarray(values)
    return values


def to_host(value: Any) -> np.ndarray:
    """An array (NumPy, CuPy, torch) or scalar as a NumPy array of its own."""
    if is_cupy_array(value):
        return np.asarray(value.get())
    if is_torch(value):
        return np.asarray(value.detach().cpu().numpy()).copy()
    return np.array(value, copy=True)


#: torch's data types that NumPy has too (bfloat16 and the float8 types it has not).
_TORCH_ON_HOST = {"bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64", "float16"}
_TORCH_ON_HOST |= {"float32", "float64", "complex64", "complex128"}


def host_copy(name: str, obj: Any) -> np.ndarray:
    """The values of the array ``obj`` (NumPy, CuPy, torch, anything with an array interface or
    DLPack) as a NumPy array of their own; LayoutError for values NumPy cannot hold or compare,
    or for more than :data:`MAX_ELEMENTS` of them."""
    array = obj if is_torch(obj) else as_array(obj, name)
    shape = tuple(array.shape)
    if int(np.prod(shape, dtype=object)) > MAX_ELEMENTS:
        raise LayoutError(
            f"{name} has shape {shape}, more than {MAX_ELEMENTS} elements, the most check_layouts takes (each "
            "layout's buffers hold several copies of it): a layout bug shows on a smaller input too"
        )
    if is_torch(array):
        kind = str(array.dtype).removeprefix("torch.")
        if kind not in _TORCH_ON_HOST:
            raise LayoutError(
                f"{name} is a torch.{kind} tensor: NumPy has no {kind} to compare answers in; check a copy "
                "in a type NumPy has, e.g. x.float()"
            )
    elif array.dtype.kind not in "biufc":
        raise LayoutError(f"{name} holds {array.dtype} values: check_layouts compares bool, integer, float and complex")
    return to_host(array)


def snapshot(buffer: Any) -> np.ndarray:
    """The bits of every slot of ``buffer`` (so NaN equals NaN)."""
    host = to_host(buffer)
    return host.view(np.uint8).reshape(host.shape[0], host.dtype.itemsize).copy()


def host_values(value: Any) -> np.ndarray:
    """``value`` as host NumPy, or TypeError naming what it is."""
    if isinstance(value, (np.ndarray, np.generic, int, float, complex, bool)) or is_cupy_array(value):
        return to_host(value)
    if is_torch(value):
        return to_host(value)
    raise TypeError(f"the function returned {shown(value)}, which is no array, tuple or list of arrays, or None")
