"""What the operators share: reading ``x`` and ``out``, the checks on them, and the cached
preparation of a call.

A call is prepared once per *signature*: the operator and its parameters, ``x``'s type, data type,
sizes and strides, ``out``'s description, and how ``out``'s memory lies relative to ``x``'s
(disjoint, or at which byte distance). Preparing validates everything (in plain Python on tuples
and ints, so no array is allocated before every check has passed) and asks the backend for a
runner; a repeated call with the same signature finds its :class:`Prepared` in a dictionary, reads
its buffers' pointers, allocates the result and runs. Nothing a check depends on can change between
calls: :class:`~stridelab.TensorDesc` and :class:`~stridelab.StridedTensor` are immutable, and an
array's sizes and strides are part of the signature.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from importlib import import_module
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from .._analysis import overlap
from .._arrays import described_strides, flat_reader, read_array
from .._memory import CHECKED_FROM_BYTES, check_allocation
from .._validate import int_tuple, refuse_masked, wrong_type
from ..backend import array_module, is_cupy_array, location
from ..desc import MAX_DIMENSIONS, UINT_MAX, TensorDesc
from ..dtypes import DataType
from ..errors import LayoutError
from ..tensor import StridedTensor

__all__ = [
    "CACHE_SIZE",
    "UNCACHED",
    "Operand",
    "Prepared",
    "backend_for",
    "call",
    "check_data_type",
    "check_output",
    "forget_prepared_calls",
    "int_parameter",
    "prepare",
    "read_input",
    "refuse_masked",
    "validate_only",
]


class Operand(NamedTuple):
    """An operator's input, located without copying: the element at coordinates ``c`` is
    ``buffer[offset + dot(c, strides)]``. ``strides`` are signed element strides (a numpy array
    with negative strides is read in place); ``tensor`` is the StridedTensor given, if one was;
    ``read(x)`` gives what a backend reads for another ``x`` of the same signature, whose element
    ``read_origin`` is x's logical coordinate 0; ``device``: the GPU of a cupy buffer (None for
    numpy)."""

    dtype: DataType
    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    buffer: Any
    offset: int
    tensor: StridedTensor | None
    read: Callable[[Any], Any]
    read_origin: int
    device: int | None


def read_input(x: Any) -> Operand:
    """``x`` (a StridedTensor, or a numpy or cupy array with at least one element and 1 to 8
    dimensions, its strides respected) as an :class:`Operand`."""
    if isinstance(x, StridedTensor):
        desc = x.desc
        return Operand(desc.dtype, desc.sizes, desc.strides, x.buffer, 0, x, _tensor_buffer, 0, _device_of(x.buffer))
    if not isinstance(x, np.ndarray) and not is_cupy_array(x):
        raise wrong_type("x", "a StridedTensor or a numpy or cupy array", x)
    refuse_masked("x", x)
    return _read_array(x)


def _tensor_buffer(x: StridedTensor) -> Any:
    return x.buffer


def _itself(a: Any) -> Any:
    """A backend reads a C-contiguous array, or any cupy array, as it is: the cupy backend only
    takes its address (that of logical coordinate 0), numpy its buffer protocol; a reshape or a
    strided view would cost more than the rest of a small call."""
    return a


def _device_of(buffer: Any) -> int | None:
    return buffer.data.device_id if is_cupy_array(buffer) else None


def _read_array(a: Any) -> Operand:
    """The operators' policy on arrays: 1 to 8 dimensions, sizes from 1 to 2**32 - 1, element strides
    within 32 bits (negative ones read in place)."""
    read = read_array(a, "x")
    sizes, raw = read.layout.sizes, read.layout.strides
    if not 1 <= len(sizes) <= MAX_DIMENSIONS:
        raise LayoutError(f"x has {len(sizes)} dimensions (shape {sizes}); DirectML tensors have 1 to {MAX_DIMENSIONS}")
    for i, n in enumerate(sizes):
        if n < 1:
            raise LayoutError(
                f"x has shape {sizes}: sizes[{i}] = {n}, but every size must be at least 1 "
                "(DirectML has no empty tensors)"
            )
        if n > UINT_MAX:
            raise LayoutError(f"x has shape {sizes}: sizes[{i}] = {n} exceeds {UINT_MAX}: {_UINT_RULE}")
    for i, (n, s) in enumerate(zip(sizes, raw)):
        if n > 1 and abs(s) > UINT_MAX:
            raise LayoutError(f"x byte_strides[{i}] = {a.strides[i]} is {s} elements, beyond {UINT_MAX}: {_UINT_RULE}")
    strides = described_strides(sizes, raw)
    dtype, device = read.layout.dtype, _device_of(a)
    if a.flags.c_contiguous:
        return Operand(dtype, sizes, strides, read.buffer, 0, None, _itself, 0, device)
    if device is not None:  # the cupy backend takes the address of coordinate 0
        return Operand(dtype, sizes, strides, read.buffer, read.offset, None, _itself, 0, device)
    flat, origin = flat_reader(sizes, raw, a.itemsize)
    return Operand(dtype, sizes, strides, read.buffer, read.offset, None, flat, origin, device)


_UINT_RULE = "DirectML sizes and strides are 32-bit UINTs"


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
        raise wrong_type("out", "a StridedTensor (wrap an array with StridedTensor.from_array)", out)
    refuse_masked("out", out.buffer)
    if is_cupy_array(out.buffer) != is_cupy_array(x.buffer):
        raise TypeError(
            f"x lives in {location(x.buffer)} but out lives in {location(out.buffer)}; stridelab never moves "
            "data between devices: put both on the same one"
        )
    out_device = _device_of(out.buffer)
    if out_device != x.device:
        raise LayoutError(
            f"x is on GPU {x.device} but out is on GPU {out_device}; stridelab never moves data between "
            "devices: allocate out on x's device"
        )
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
    _check_writeable(out.buffer)
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


def _check_writeable(buffer: Any) -> None:
    if not getattr(getattr(buffer, "flags", None), "writeable", True):
        raise LayoutError("out buffer is read-only; the operator writes its result there")


class Prepared(NamedTuple):
    """Everything about a call that its signature decides (see the module docstring).

    ``read(x)``: what the backend reads for x (see :class:`Operand`); ``src_offset``: where the
    source view starts in it. Without ``out``, ``allocate()``
    gives a new result and the buffer to write, on GPU ``device`` (None: numpy) where
    ``current_device()`` says another is current; ``in_place``: the source is the destination view
    itself. ``run(src_buffer, src_offset, dst_buffer, dst_offset)`` is the backend's prepared
    primitive (None where the call moves nothing).
    """

    read: Callable[[Any], Any]
    src_offset: int
    dst_offset: int
    in_place: bool
    allocate: Callable[[], tuple[Any, Any]] | None
    device: int | None
    current_device: Callable[[], int] | None
    use_device: Callable[[int], Any] | None
    run: Callable[[Any, int, Any, int], None] | None


#: Call signatures kept prepared; the cache starts over when it is full.
CACHE_SIZE = 4096
_prepared: dict[tuple, Prepared] = {}


def forget_prepared_calls() -> None:
    """Prepare every call afresh (after a backend's tuning constants change, as tests do)."""
    _prepared.clear()


#: A signature part that keeps a call out of the cache (prepared afresh every time): for
#: arguments whose identity, not their value, is all a key could hold.
UNCACHED = object()


_validating: ContextVar[bool] = ContextVar("stridelab_validating", default=False)


@contextmanager
def validate_only() -> Iterator[None]:
    """Within this block, operator calls validate their arguments (raising what a real call would)
    and return None, running nothing: how a DxDispatch model is checked, command by command, before
    any command runs."""
    token = _validating.set(True)
    try:
        yield
    finally:
        _validating.reset(token)


def call(key: Any, prepare: Callable[..., Prepared], x: Any, out: Any, *args: Any) -> Any:
    """Run an operator call: ``prepare(x, out, *args)`` (which validates everything and raises on
    bad input) the first time its signature ``key`` (operator and parameters, or
    :data:`UNCACHED`) is met, the :class:`Prepared` found under it after that. Under
    :func:`validate_only`, return after the checks."""
    signature = (key, _input_key(x), _output_key(out, x))
    cached = UNCACHED not in signature
    try:
        prepared = _prepared.get(signature) if cached else None
    except TypeError:  # an unhashable argument (an axis given as a list): prepare() says what is wrong
        cached, prepared = False, None
    if prepared is None:
        prepared = prepare(x, out, *args)
        if cached:
            if len(_prepared) >= CACHE_SIZE:
                _prepared.clear()
            _prepared[signature] = prepared
    if _validating.get():
        return None
    if prepared.run is None:  # nothing to move: out is x itself
        return out
    if out is not None:  # flags may change between calls
        _check_writeable(out.buffer)
    return execute(prepared, x, out)


def _input_key(x: Any) -> Any:
    """What decides how ``x`` is read: its type, data type, sizes and strides (its description,
    for a StridedTensor), and its device."""
    if isinstance(x, StridedTensor):
        buffer = x.buffer
        return (type(x), x.desc, type(buffer), _device_of(buffer))
    if isinstance(x, np.ndarray):
        return (type(x), x.dtype, x.shape, x.strides)
    if is_cupy_array(x):
        return (type(x), x.dtype, x.shape, x.strides, x.data.device_id)
    return UNCACHED  # refused by prepare()


def _output_key(out: Any, x: Any) -> Any:
    """``out``'s description and where its memory lies from x's: None where it shares none, else
    the byte distance from x's logical coordinate 0 to out's buffer."""
    if out is None:
        return None
    if not isinstance(out, StridedTensor):
        return UNCACHED  # refused by prepare()
    buffer = out.buffer
    x_memory = x.buffer if isinstance(x, StridedTensor) else x
    if isinstance(buffer, np.ndarray) and isinstance(x_memory, np.ndarray):
        shared = np.may_share_memory(x_memory, buffer)
        distance = _address(buffer) - _address(x_memory) if shared else None
        return (type(out), out.desc, type(buffer), distance)
    if is_cupy_array(buffer) and is_cupy_array(x_memory):
        import cupy

        shared = cupy.may_share_memory(x_memory, buffer)
        distance = buffer.data.ptr - x_memory.data.ptr if shared else None
        return (type(out), out.desc, type(buffer), buffer.data.device_id, distance)
    return UNCACHED  # x and out in different array modules, or x no array: refused by prepare()


def prepare(
    x: Operand, src_offset: int, dst_offset: int, in_place: bool, out_desc: TensorDesc | None, run: Callable | None
) -> Prepared:
    """The :class:`Prepared` of a validated call: the source view starts ``src_offset`` elements
    from x's logical coordinate 0, the destination view ``dst_offset`` from its buffer's start;
    ``out_desc``: the result to allocate, where no ``out`` was given."""
    xp = array_module(x.buffer)
    allocate = None
    if out_desc is not None:
        check_allocation(out_desc.buffer_size, xp, f"the result ({out_desc})")
        allocate = _allocator(xp, out_desc, x.tensor is None)
    gpu = x.device is not None
    return Prepared(
        x.read,
        x.read_origin + src_offset,
        dst_offset,
        in_place,
        allocate,
        x.device,
        xp.cuda.runtime.getDevice if gpu else None,
        xp.cuda.Device if gpu else None,
        run,
    )


def _allocator(xp: ModuleType, desc: TensorDesc, array_result: bool) -> Callable[[], tuple[Any, Any]]:
    """A new packed result of ``desc``: an array of its sizes (for an array input), or a
    StridedTensor over a buffer of its ``slot_count`` elements; and the buffer to write (an array
    result is its own: it is C-contiguous)."""
    empty, sizes, slots, dtype = xp.empty, desc.sizes, desc.slot_count, desc.dtype.numpy_dtype

    def allocate_array() -> tuple[Any, Any]:
        result = empty(sizes, dtype)
        return result, result

    def allocate_tensor() -> tuple[Any, Any]:
        buffer = empty(slots, dtype)
        return StridedTensor._trusted(desc, buffer), buffer

    allocate = allocate_array if array_result else allocate_tensor
    if desc.buffer_size < CHECKED_FROM_BYTES:  # a large result is checked at every call
        return allocate
    nbytes, what = desc.buffer_size, f"the result ({desc})"

    def checked() -> tuple[Any, Any]:
        check_allocation(nbytes, xp, what)
        return allocate()

    return checked


def execute(prepared: Prepared, x: Any, out: Any) -> Any:
    """Allocate the result where none was given, then run: the part of a call repeated every time."""
    run = prepared.run
    assert run is not None, "call() returns before executing a call that moves nothing"
    if out is None:
        allocate = prepared.allocate
        assert allocate is not None, "a call without out has an allocator"
        device, current, use = prepared.device, prepared.current_device, prepared.use_device
        if device is None or current is None or use is None or current() == device:  # numpy, or x's GPU
            result, dst = allocate()
        else:  # on x's device, not the current one
            with use(device):
                result, dst = allocate()
    else:
        result, dst = out, out.buffer
    if prepared.in_place:
        run(dst, prepared.dst_offset, dst, prepared.dst_offset)
    else:
        run(prepared.read(x), prepared.src_offset, dst, prepared.dst_offset)
    return result


def backend_for(buffer: Any) -> ModuleType:
    """``stridelab.ops._numpy`` for a numpy buffer, ``stridelab.ops.cupy.backend`` (imported on first use)
    for a cupy one."""
    name = "stridelab.ops.cupy.backend" if is_cupy_array(buffer) else "stridelab.ops._numpy"
    module = sys.modules.get(name)
    return module if module is not None else import_module(name)
