"""Strided tensors: a description bound to the flat buffer it describes.

>>> t = StridedTensor.from_array(np.arange(6, dtype=np.uint8).reshape(2, 3).T)
>>> t.desc
TensorDesc('UINT8', sizes=(3, 2), strides=(1, 3))
>>> t.to_array().tolist()
[[0, 3], [1, 4], [2, 5]]

internal: ``StridedTensor`` is public as ``stridelab.StridedTensor``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._arrays import described_strides, read_array
from ._memory import check_allocation
from ._strides import MAX_DIMENSIONS
from ._validate import refuse_masked, wrong_type
from .backend import array_module, is_cupy_array
from .desc import TensorDesc
from .errors import LayoutError

__all__: list[str] = []


class StridedTensor:
    """A :class:`TensorDesc` and a 1-D, contiguous numpy or cupy ``buffer`` of its data type.

    Immutable: both are checked once, here, and operators rely on it (the buffer's values change,
    never which buffer it is).

    The buffer must hold at least the elements up to the last element's offset. (DirectML's
    rounding of bound buffers up to 4 bytes applies where stridelab allocates buffers itself, not to
    arrays users pass in.) Slots the description does not reach - padding - are part of the
    buffer and are left alone by operators writing into it.

    Examples
    --------
    >>> import numpy as np
    >>> import stridelab as sl
    >>> column_major = sl.TensorDesc("FLOAT32", (2, 2), strides=(1, 2))
    >>> sl.StridedTensor(column_major, np.arange(4, dtype=np.float32)).to_array().tolist()
    [[0.0, 2.0], [1.0, 3.0]]
    """

    __slots__ = ("_buffer", "_desc")
    _buffer: Any
    _desc: TensorDesc

    def __init__(self, desc: TensorDesc, buffer: Any) -> None:
        if not isinstance(desc, TensorDesc):
            raise wrong_type("desc", "a TensorDesc", desc)
        refuse_masked("buffer", buffer)
        array_module(buffer, "buffer")  # numpy or cupy, else TypeError
        if buffer.ndim != 1:
            raise LayoutError(f"buffer must be 1-D (a flat buffer); got shape {tuple(buffer.shape)}")
        if buffer.dtype != desc.dtype.numpy_dtype:
            raise LayoutError(
                f"buffer dtype {buffer.dtype} does not match data_type {desc.data_type} "
                f"(numpy {desc.dtype.numpy_dtype})"
            )
        if buffer.size and buffer.strides[0] != buffer.itemsize:
            raise LayoutError(
                f"buffer must be contiguous (byte stride {buffer.itemsize}); got byte stride {buffer.strides[0]}"
            )
        needed = desc.last_offset + 1
        if buffer.size < needed:
            raise LayoutError(
                f"buffer has {buffer.size} elements but {desc!r} reaches offset {desc.last_offset}, "
                f"so it needs at least {needed}"
            )
        object.__setattr__(self, "_desc", desc)
        object.__setattr__(self, "_buffer", buffer)

    @property
    def desc(self) -> TensorDesc:
        return self._desc

    @property
    def buffer(self) -> Any:
        """The flat buffer (its values may change; the buffer itself does not)."""
        return self._buffer

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"StridedTensor is immutable; cannot set {name!r} (build a new StridedTensor)")

    @classmethod
    def _trusted(cls, desc: TensorDesc, buffer: Any) -> StridedTensor:
        """A tensor over a buffer stridelab allocated itself for ``desc`` (no checks to repeat)."""
        tensor = object.__new__(cls)
        object.__setattr__(tensor, "_desc", desc)
        object.__setattr__(tensor, "_buffer", buffer)
        return tensor

    @classmethod
    def empty(cls, desc: TensorDesc, xp: Any = np) -> StridedTensor:
        """A tensor over a new, uninitialised buffer of ``desc.slot_count`` elements (the full,
        4-byte-rounded buffer size) from array module ``xp`` (numpy or cupy); refused, before
        allocating, where that is more than the free memory."""
        if not isinstance(desc, TensorDesc):
            raise wrong_type("desc", "a TensorDesc", desc)
        if getattr(xp, "__name__", None) not in ("numpy", "cupy"):
            raise wrong_type("xp", "the numpy or cupy module", xp)
        check_allocation(desc.buffer_size, xp, f"the buffer of {desc}")
        return cls(desc, xp.empty(desc.slot_count, dtype=desc.dtype.numpy_dtype))

    @classmethod
    def from_array(cls, array: Any) -> StridedTensor:
        """View any array with at least one element as a strided tensor, without copying.

        Byte strides become element strides (a size-1 dimension, whose stride never matters, gets
        the largest span of the dimensions after it: a C-contiguous array is the packed
        description, a channels-last one the NHWC description); the buffer is a
        flat view from the first element to the last. A 0-d array becomes a 1-element, 1-D tensor.
        Any array :func:`stridelab._arrays.read_array` reads is taken: GPU arrays (a PyTorch CUDA
        tensor, anything with ``__cuda_array_interface__`` or a CUDA DLPack capsule) are viewed
        through CuPy, CPU ones (a PyTorch CPU tensor, an ``__array_interface__``) through NumPy.
        Refused: negative strides (DirectML's are unsigned) and masked arrays (the mask would be lost).
        """
        read = read_array(array, "array", "a numpy or cupy array")
        if read.array.ndim == 0:
            read = read_array(read.array.reshape(1), "array")
        sizes, strides = read.layout.sizes, read.layout.strides
        if 0 in sizes:
            raise LayoutError(
                f"array of shape {sizes} has no elements; DirectML tensors have at least one "
                "(every size must be at least 1)"
            )
        if len(sizes) > MAX_DIMENSIONS:
            raise LayoutError(f"array has {len(sizes)} dimensions; DirectML tensors have 1 to {MAX_DIMENSIONS}")
        if read.negative_axes:
            axis = read.negative_axes[0]
            raise LayoutError(
                f"array byte_strides[{axis}] = {read.array.strides[axis]} is negative; stridelab describes "
                "non-negative element strides: pass xp.ascontiguousarray(array) instead"
            )
        desc = TensorDesc(read.layout.dtype, sizes, described_strides(sizes, strides))
        return cls(desc, read.buffer)

    @property
    def xp(self) -> Any:
        """The array module of the buffer: numpy or cupy."""
        return array_module(self.buffer)

    @property
    def on_gpu(self) -> bool:
        return is_cupy_array(self.buffer)

    def view(self) -> Any:
        """A strided array view of the logical tensor over the buffer (no copy). Read-only for
        numpy where elements share slots, since writes through it would collide."""
        itemsize = self.buffer.itemsize
        byte_strides = tuple(0 if n == 1 else s * itemsize for n, s in zip(self.desc.sizes, self.desc.strides))
        view = self.xp.lib.stride_tricks.as_strided(self.buffer, shape=self.desc.sizes, strides=byte_strides)
        if isinstance(view, np.ndarray) and (self.desc.is_broadcast or self.desc.is_overlapping):
            view.flags.writeable = False
        return view

    def to_array(self) -> Any:
        """The logical tensor as a new packed (row-major) array in the buffer's array module."""
        return self.xp.array(self.view(), order="C", copy=True)  # ascontiguousarray would not copy a packed view

    def memory_map(self, limit: int | None = None):  # -> MemoryMap
        """The description's memory map bound to this buffer's values (copied to the host)."""
        from .memmap import DEFAULT_LIMIT, MemoryMap

        values = self.buffer.get() if self.on_gpu else self.buffer
        return MemoryMap(self.desc, values, limit=DEFAULT_LIMIT if limit is None else limit)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> tuple[dict, dict]:
        """Jupyter's display: the memory-map picture (logical grid beside the physical buffer) as
        SVG and PNG, and the repr as text."""
        from .render.picture import display_bundle

        return display_bundle(self)

    def __repr__(self) -> str:
        where = "cupy" if self.on_gpu else "numpy"
        return f"StridedTensor({self.desc!r}, buffer={where}[{self.buffer.size}])"
