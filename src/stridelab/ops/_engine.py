"""The engine every operator runs on: a :class:`Plan` of named steps, made once per call signature.

``plan(operator, x, out, **params)`` takes the steps that need no data, each a function below:

1. **validate** (:func:`_validate`): read ``x``, check the parameters and ``out`` (the operator's
   own ``views``), and state the work as one primitive between two strided views (:class:`Views`);
2. **choose the backend** (:func:`backend_for`): ``_numpy`` for NumPy buffers, ``cupy.runtime``
   (imported then) for CuPy ones;
3. **canonicalize once** (:func:`~._primitives.canonical_pair`): the fewest dimensions that pair the
   same elements, which both backends and the GPU planners read;
4. **choose the primitive**: the backend's prepared ``copy`` or ``scan`` for that pair;
5. **allocate** (:func:`_allocator`): where no ``out`` is given, a packed result, checked against
   free memory before anything runs.

``execute(plan, x, out)`` is the last step, **run**: allocate, read x's buffer, run the primitive.
``call`` runs both, finding the plan of a repeated signature (operator and parameters, x's type,
data type, sizes, strides and device, out's description and where its memory lies from x's) in a
dictionary. Nothing a check depends on can change between calls: descriptions and StridedTensors
are immutable, and an array's sizes and strides are part of the signature. What depends on the
call's pointers and device (the GPU kernel chosen by alignment and device) is looked up per call by
the backend's primitive.

``plan`` alone validates without running: DxDispatch checks a model's every command with it, and the
explorers the parameters a user types.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from .._memory import CHECKED_FROM_BYTES, check_allocation
from ..backend import array_module, is_cupy_array
from ..desc import TensorDesc
from ..dtypes import DataType
from ..errors import LayoutError
from ..tensor import StridedTensor
from . import _threads
from ._operands import NAMES, Names, address, check_data_type, check_writeable, device_of, read_input
from ._primitives import CanonicalPair, ScanOperator, canonical_pair

__all__ = [
    "CACHE_SIZE",
    "OPERATORS",
    "UNCACHED",
    "Operator",
    "Plan",
    "Views",
    "backend_for",
    "call",
    "execute",
    "forget_plans",
    "plan",
    "register",
]


class Views(NamedTuple):
    """An operator's work as one primitive: ``dst[c] = src[c]`` (a copy) or the running tally of
    ``scan`` along ``axis`` (a scan), for every coordinate ``c`` of ``sizes``. Strides are signed
    element strides; ``src_offset`` counts from x's coordinate 0, ``dst_offset`` from the start of
    out's buffer. ``in_place``: the source is the destination view itself; ``result``: the packed
    description to allocate where no ``out`` is given; ``moves``: False where the call moves nothing
    (out is x itself)."""

    sizes: tuple[int, ...]
    src_strides: tuple[int, ...]
    dst_strides: tuple[int, ...]
    src_offset: int = 0
    dst_offset: int = 0
    axis: int | None = None
    exclusive: bool = False
    in_place: bool = False
    result: TensorDesc | None = None
    moves: bool = True


@dataclass(frozen=True)
class Operator:
    """An operator as the engine runs it. ``name``: DirectML's; ``data_types``: its DirectML support
    table (checked by the engine); ``function``: its public function's name; ``views(x, out, names,
    **params)`` validates the parameters and ``out`` and gives the :class:`Views` (messages name
    fields through ``names``); ``key(args)``: the parameters as part of a call's signature
    (:data:`UNCACHED` keeps a call out of the cache); ``scan``: the tally of a scan operator, None
    for a copy."""

    name: str
    data_types: tuple[str, ...]
    function: str
    views: Callable[..., Views]
    key: Callable[[tuple], Any]
    scan: ScanOperator | None = None


#: Every operator, by DirectML name, as its module registers it.
OPERATORS: dict[str, Operator] = {}


def register(operator: Operator) -> Operator:
    """Add ``operator`` to :data:`OPERATORS` (what ``precompile`` and DxDispatch read)."""
    OPERATORS[operator.name] = operator
    return operator


class Plan(NamedTuple):
    """Everything about a call that its signature decides, step by step (see the module docstring).

    ``dtype``, ``device``: x's data type and GPU (None: NumPy); ``views``: step 1; ``backend``: step
    2; ``pair``: step 3; ``primitive``: step 4, ``primitive(src_buffer, src_offset, dst_buffer,
    dst_offset)`` (None where the call moves nothing); ``allocate``: step 5 (None where ``out`` is
    given). ``read(x)``: the buffer the backend reads for an ``x`` of this signature (None: x
    itself), in which the source view starts at ``src_offset``; ``dst_offset`` and ``in_place``
    are the views' (kept here, read at every call).
    """

    operator: str
    dtype: DataType
    device: int | None
    views: Views
    backend: ModuleType
    pair: CanonicalPair
    primitive: Callable[[Any, int, Any, int], None] | None
    allocate: Callable[[], tuple[Any, Any]] | None
    read: Callable[[Any], Any] | None
    src_offset: int
    dst_offset: int
    in_place: bool


def plan(
    operator: str | Operator,
    x: Any,
    out: Any = None,
    *args: Any,
    names: Names = NAMES,
    parameters_only: bool = False,
    **params: Any,
) -> Plan:
    """Validate a call of ``operator`` (a DirectML name, e.g. ``"SLICE1"``) with its parameters
    (``args`` in the order of its ``views``, or ``params`` by name) and plan it, running nothing:
    raises what the call would raise, before anything is allocated. ``names``: what the messages
    call each field (DxDispatch passes its own); ``parameters_only``: leave out the checks of x's
    data type and that a new result fits in free memory (an explorer checks the parameters it is
    given, and shows those two inline, beside the data).

    >>> import numpy as np
    >>> p = plan("CUMULATIVE_SUMMATION", np.zeros((2, 3), np.float32), axis=0, direction="decreasing",
    ...          exclusive=False)
    >>> p.views.src_offset, p.views.src_strides, p.pair.sizes
    (3, (-3, 1), (3, 2))
    """
    op = operator if isinstance(operator, Operator) else OPERATORS.get(operator)
    if op is None:
        raise LayoutError(f"{operator!r} is not an operator stridelab runs; it runs {', '.join(sorted(OPERATORS))}")
    src = read_input(x, names.x)  # 1. validate
    if not parameters_only:
        check_data_type(src, op.name, op.data_types, names)
    views = op.views(src, out, names, *args, **params)
    backend = backend_for(src.buffer)  # 2. choose the backend
    pair = canonical_pair(views.sizes, views.src_strides, views.dst_strides, views.axis)  # 3. canonicalize once
    primitive = _primitive(op, backend, src.dtype, pair, views) if views.moves else None  # 4. choose the primitive
    result = views.result  # 5. allocate (on execute)
    allocate = None
    if result is not None:
        allocate = _allocator(array_module(src.buffer), result, src.tensor is None, src.device, not parameters_only)
    return Plan(
        op.name,
        src.dtype,
        src.device,
        views,
        backend,
        pair,
        primitive,
        allocate,
        src.read,
        src.read_origin + views.src_offset,
        views.dst_offset,
        views.in_place,
    )


def backend_for(buffer: Any) -> ModuleType:
    """``stridelab.ops._numpy`` for a numpy buffer, ``stridelab.ops.cupy.runtime`` (imported on first
    use) for a cupy one."""
    name = "stridelab.ops.cupy.runtime" if is_cupy_array(buffer) else "stridelab.ops._numpy"
    module = sys.modules.get(name)
    return module if module is not None else import_module(name)


def _primitive(op: Operator, backend: ModuleType, dtype: DataType, pair: CanonicalPair, views: Views) -> Callable:
    if op.scan is None:
        return backend.prepare_copy(dtype.numpy_dtype, pair)
    return backend.prepare_scan(dtype.numpy_dtype, pair, views.exclusive, op.scan)


def _allocator(
    xp: ModuleType, desc: TensorDesc, array_result: bool, device: int | None, check_now: bool = True
) -> Callable[[], tuple]:
    """A new packed result of ``desc`` from array module ``xp`` and the buffer to write: an array of
    its sizes (``array_result``: its own buffer, as it is C-contiguous), else a StridedTensor over
    ``slot_count`` elements; on GPU ``device`` where another is current. The result is checked
    against free memory now (``check_now``), and a large one again at every call."""
    what = f"the result ({desc})"
    if check_now:
        check_allocation(desc.buffer_size, xp, what)
    empty, sizes, slots, dtype, nbytes = xp.empty, desc.sizes, desc.slot_count, desc.dtype.numpy_dtype, desc.buffer_size
    current, use = (xp.cuda.runtime.getDevice, xp.cuda.Device) if device is not None else (None, None)

    def allocate() -> tuple[Any, Any]:
        if nbytes >= CHECKED_FROM_BYTES:
            check_allocation(nbytes, xp, what)
        if xp is np and nbytes >= 2 * _threads.MIN_BYTES:
            _threads.thread_count()  # a call split over threads: a bad STRIDELAB_NUM_THREADS is refused first
        if current is not None and use is not None and current() != device:
            with use(device):
                return allocate_here()
        return allocate_here()

    def allocate_here() -> tuple[Any, Any]:
        if array_result:
            result = empty(sizes, dtype)
            return result, result
        buffer = empty(slots, dtype)
        return StridedTensor._trusted(desc, buffer), buffer

    return allocate


def execute(plan: Plan, x: Any, out: Any = None) -> Any:
    """Run a planned call on ``x`` and ``out`` of its signature (step 6): allocate the result
    where no ``out`` is given, read x's buffer, run the primitive; returns the result. (A plan
    that moves nothing, out being x itself, is not executed.)"""
    primitive = plan.primitive
    assert primitive is not None, "call() returns before executing a call that moves nothing"
    if out is None:
        allocate = plan.allocate
        assert allocate is not None, "a plan without out allocates"
        result, dst = allocate()
    else:
        result, dst = out, out.buffer
    dst_offset = plan.dst_offset
    if plan.in_place:
        primitive(dst, dst_offset, dst, dst_offset)
    else:
        read = plan.read
        primitive(x if read is None else read(x), plan.src_offset, dst, dst_offset)
    return result


#: Call signatures kept planned; the cache starts over when it is full.
CACHE_SIZE = 4096
_plans: dict[tuple, Plan] = {}

#: A signature part that keeps a call out of the cache (planned afresh every time): for
#: arguments whose identity, not their value, is all a key could hold.
UNCACHED = object()


def forget_plans() -> None:
    """Plan every call afresh (after a backend's tuning constants change, as tests do)."""
    _plans.clear()


def call(operator: Operator, x: Any, out: Any, *args: Any) -> Any:
    """Run a call of ``operator`` with its parameters ``args`` (in the order its ``views`` takes
    them): :func:`plan` the first time its signature is met, the plan found under it after that;
    then :func:`execute`."""
    signature = (operator.name, operator.key(args), _input_key(x), _output_key(out, x))
    cached = UNCACHED not in signature
    try:
        found = _plans.get(signature) if cached else None
    except TypeError:  # an unhashable argument (an axis given as a list): plan() says what is wrong
        cached, found = False, None
    if found is None:
        found = plan(operator, x, out, *args)
        if cached:
            if len(_plans) >= CACHE_SIZE:
                _plans.clear()
            _plans[signature] = found
    if found.primitive is None:  # nothing to move: out is x itself
        return out
    if out is not None:  # flags may change between calls
        check_writeable(out.buffer)
    return execute(found, x, out)


def _input_key(x: Any) -> Any:
    """What decides how ``x`` is read: its type, data type, sizes and strides (its description,
    for a StridedTensor), and its device."""
    if isinstance(x, StridedTensor):
        buffer = x.buffer
        return (type(x), x.desc, type(buffer), device_of(buffer))
    if isinstance(x, np.ndarray):
        return (type(x), x.dtype, x.shape, x.strides)
    if is_cupy_array(x):
        return (type(x), x.dtype, x.shape, x.strides, x.data.device_id)
    return UNCACHED  # refused by plan()


def _output_key(out: Any, x: Any) -> Any:
    """``out``'s description and where its memory lies from x's: None where it shares none, else
    the byte distance from x's logical coordinate 0 to out's buffer."""
    if out is None:
        return None
    if not isinstance(out, StridedTensor):
        return UNCACHED  # refused by plan()
    buffer = out.buffer
    x_memory = x.buffer if isinstance(x, StridedTensor) else x
    if isinstance(buffer, np.ndarray) and isinstance(x_memory, np.ndarray):
        shared = np.may_share_memory(x_memory, buffer)
        distance = address(buffer) - address(x_memory) if shared else None
        return (type(out), out.desc, type(buffer), distance)
    if is_cupy_array(buffer) and is_cupy_array(x_memory):
        import cupy

        shared = cupy.may_share_memory(x_memory, buffer)
        distance = buffer.data.ptr - x_memory.data.ptr if shared else None
        return (type(out), out.desc, type(buffer), buffer.data.device_id, distance)
    return UNCACHED  # x and out in different array modules, or x no array: refused by plan()
