"""``traffic``: the global memory sectors and requests of the GPU kernels an operator call launches.

The call is planned exactly as the CuPy backend plans it (the engine's validation and canonical
pair, then :func:`~.cupy.copy_plan.plan_copy` or :func:`~.cupy.scan_plan.plan_scan` for the
views' alignment and the device), and each launch's warp instructions are counted from the
kernel's own thread-to-address arithmetic (:mod:`.cupy.copy_traffic`, ``.cupy.scan_traffic``).
Nothing runs on a GPU and CuPy is not needed.

internal: ``traffic``, ``Traffic`` and ``TrafficDevice`` are public in :mod:`stridelab.ops`.
"""

from __future__ import annotations

import inspect
import operator as _operator
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._access import NO_COUNTS, Counts, LaunchTraffic
from .._validate import shown, wrong_type
from ..backend import is_cupy_array
from ..errors import LayoutError
from ..tensor import StridedTensor
from ._engine import OPERATORS, Operator, plan
from ._operands import address, check_data_type, read_input
from .cumulative_product import cumulative_product
from .cumulative_summation import cumulative_summation
from .cupy.copy_plan import plan_copy
from .cupy.geometry import SHARED_DEFAULT, VECTOR_BYTES
from .element_wise_identity import element_wise_identity
from .slice1 import slice1

__all__: list[str] = []

_FUNCTIONS: dict[str, Callable[..., Any]] = {
    f.__name__: f for f in (cumulative_product, cumulative_summation, element_wise_identity, slice1)
}
_ADDRESS_KEYS = ("x", "out")


@dataclass(frozen=True)
class TrafficDevice:
    """What a scan's plan reads of a GPU: its multiprocessors and the bytes of shared memory a
    block may be given (opting in beyond 48 KiB). The defaults are an H100's.

    >>> TrafficDevice(sm_count=108, shared_limit=163 * 1024)  # an A100
    TrafficDevice(sm_count=108, shared_limit=166912)
    """

    sm_count: int = 132
    shared_limit: int = 227 * 1024

    def __post_init__(self) -> None:
        for field, least in (("sm_count", 1), ("shared_limit", SHARED_DEFAULT)):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise wrong_type(f"TrafficDevice {field}", "an int", value)
            if value < least:
                raise LayoutError(
                    f"TrafficDevice {field} = {shown(value)} is below {least}"
                    + (": every CUDA device gives a block 48 KiB" if field == "shared_limit" else "")
                )
            object.__setattr__(self, field, int(value))


@dataclass(frozen=True)
class Traffic:
    """The launches of one call in launch order, each with its loads, ``cp.async`` loads and
    stores (:class:`~stridelab._access.LaunchTraffic`), and their totals.

    >>> import numpy as np
    >>> import stridelab as sl
    >>> calls = traffic(sl.cumulative_summation, np.zeros((64, 1024), np.float32), 1, addresses={"x": 0})
    >>> calls.kernels
    ('sl_scan_lines<Scan<F32, Sum>, 4, 4, false, false>',)
    >>> calls.loads.sectors, calls.stores.sectors  # 256 KiB each way, 32 bytes a sector
    (8192, 8192)
    """

    launches: tuple[LaunchTraffic, ...]

    @property
    def loads(self) -> Counts:
        """Global loads of every launch (Nsight Compute's ``op_ld``)."""
        return sum((t.loads for t in self.launches), NO_COUNTS)

    @property
    def async_loads(self) -> Counts:
        """Loads staged into shared memory by ``cp.async`` (``op_ldgsts``)."""
        return sum((t.async_loads for t in self.launches), NO_COUNTS)

    @property
    def stores(self) -> Counts:
        """Global stores of every launch (``op_st``)."""
        return sum((t.stores for t in self.launches), NO_COUNTS)

    @property
    def kernels(self) -> tuple[str, ...]:
        """The kernel of each launch, in launch order."""
        return tuple(t.kernel for t in self.launches)


def traffic(
    op: Callable[..., Any] | str,
    x: Any,
    *args: Any,
    out: Any = None,
    device: TrafficDevice | None = None,
    addresses: Mapping[str, int] | None = None,
    **params: Any,
) -> Traffic:
    """The global memory sectors and requests of the kernels the CuPy backend would launch for
    ``op(x, *args, out=out, **params)``, counted exactly from each kernel's thread mapping.

    Parameters
    ----------
    op : function or str
        ``slice1``, ``element_wise_identity``, ``cumulative_summation`` or ``cumulative_product``,
        or its name (also DirectML's, ``"SLICE1"``).
    x, *args, out, **params
        Exactly as ``op`` takes them; ``x`` may be a NumPy or CuPy array or a StridedTensor.
        Nothing is allocated or run: the call is only validated (``op``'s own errors come out).
    device : TrafficDevice, optional
        The GPU a scan is planned for. Default: x's GPU for a CuPy ``x``, else the current CUDA
        device where CuPy is already imported and sees one, else an H100 (132 multiprocessors,
        227 KiB of shared memory a block).
    addresses : mapping, optional
        ``{"x": int, "out": int}``: the byte address of each operand's element 0 (only its value
        modulo 128 matters); a key left out takes the operand's own data pointer, and a result
        that ``op`` would allocate takes 0 (a fresh allocation).

    Returns
    -------
    Traffic
        The launches, each with its loads, ``cp.async`` loads and stores; no launch where the
        call moves nothing.

    Raises
    ------
    LayoutError
        Where a scan's kernels would make more than 2**26 lane accesses (a scan of about 2**25
        elements): they are listed lane by lane, so count a smaller tensor of the same layout.
        Copies are counted without listing, at any size.

    Examples
    --------
    A packed float32 copy moves 16-byte vectors: 512 bytes, 16 sectors, a warp request.

    >>> import numpy as np
    >>> from stridelab import StridedTensor, TensorDesc
    >>> out = StridedTensor.empty(TensorDesc("FLOAT32", (1024, 1024)))
    >>> t = traffic("element_wise_identity", np.zeros((1024, 1024), np.float32), out=out,
    ...             addresses={"x": 0, "out": 0})
    >>> t.kernels
    ('sl_copy_rows<4, 4, 1>',)
    >>> t.loads.requests, t.loads.sectors, t.stores.requests, t.stores.sectors
    (8192, 131072, 8192, 131072)
    """
    operator, function = _operator_of(op)
    if device is not None and not isinstance(device, TrafficDevice):
        raise wrong_type("device", "a TrafficDevice or None", device)
    given = _addresses(addresses)
    try:
        given_out = {} if out is None else {"out": out}  # element_wise_identity also takes it by position
        bound = inspect.signature(function).bind(x, *args, **given_out, **params)
    except TypeError as error:
        raise TypeError(f"{function.__name__}() {error}") from None
    bound.apply_defaults()
    out = bound.arguments.get("out")
    values = [v for name, v in bound.arguments.items() if name not in ("x", "out")]
    check_data_type(read_input(x), operator.name, operator.data_types)
    planned = plan(operator, x, out, *values, parameters_only=True)
    if planned.primitive is None:
        return Traffic(())
    esize = planned.dtype.element_size
    views = planned.views
    x_at = given.get("x", _own_address(x))
    out_at = given.get("out", 0 if out is None else address(out.buffer))
    for field, value in (("x", x_at), ("out", out_at)):
        if value % esize:
            raise LayoutError(
                f"addresses[{field!r}] = {shown(value)} is not a multiple of the element size, {esize} bytes"
            )
    # Sectors and lines repeat every 128 bytes: the counts need the addresses only modulo that.
    dst = (out_at + views.dst_offset * esize) % 128
    src = dst if views.in_place else (x_at + views.src_offset * esize) % 128
    pair = planned.pair
    if operator.scan is None:
        from .cupy.copy_traffic import copy_traffic

        copy = plan_copy(esize, pair, src % VECTOR_BYTES, dst % VECTOR_BYTES)
        return Traffic(copy_traffic(copy, esize, src, dst))
    from .cupy.scan_plan import plan_scan
    from .cupy.scan_traffic import scan_traffic

    gpu = device or _device(x)
    scan = plan_scan(
        planned.dtype.name, pair, views.exclusive, src % VECTOR_BYTES, dst % VECTOR_BYTES, gpu.sm_count,
        operator=operator.scan.cuda, shared_limit=gpu.shared_limit,
    )  # fmt: skip
    return Traffic(tuple(scan_traffic(scan, esize, src, dst)))


def _operator_of(op: Any) -> tuple[Operator, Callable[..., Any]]:
    """The engine's operator and the public function of ``op`` (a function or a name)."""
    if isinstance(op, str):
        named = {o.name: o.function for o in OPERATORS.values() if o.function in _FUNCTIONS}
        name = named.get(op, op)
        if name not in _FUNCTIONS:
            raise LayoutError(
                f"op = {shown(op)} is not an operator with GPU kernels; the operators are {', '.join(_FUNCTIONS)}"
            )
    elif callable(op) and _FUNCTIONS.get(getattr(op, "__name__", "")) is op:
        name = getattr(op, "__name__", "")
    else:
        raise wrong_type("op", f"one of the operator functions {', '.join(_FUNCTIONS)} or its name", op)
    operator = next(o for o in OPERATORS.values() if o.function == name)
    return operator, _FUNCTIONS[name]


def _addresses(addresses: Any) -> dict[str, int]:
    if addresses is None:
        return {}
    if not isinstance(addresses, Mapping):
        raise wrong_type("addresses", "a mapping {'x': int, 'out': int}", addresses)
    found: dict[str, int] = {}
    for key, value in addresses.items():
        if key not in _ADDRESS_KEYS:
            raise LayoutError(f"addresses has the key {shown(key)}; its keys are 'x' and 'out'")
        if isinstance(value, (bool, np.bool_)):
            raise wrong_type(f"addresses[{key!r}]", "an int (a byte address)", value)
        try:
            found[key] = _operator.index(value)
        except TypeError:
            raise wrong_type(f"addresses[{key!r}]", "an int (a byte address)", value) from None
        if found[key] < 0:
            raise LayoutError(f"addresses[{key!r}] = {shown(value)} is negative; byte addresses are 0 or more")
    return found


def _own_address(x: Any) -> int:
    """The byte address of x's element 0: its data pointer (a StridedTensor's buffer's)."""
    return address(x.buffer if isinstance(x, StridedTensor) else x)


def _device(x: Any) -> TrafficDevice:
    """x's GPU, else the current one where CuPy is already imported and sees one, else an H100."""
    buffer = x.buffer if isinstance(x, StridedTensor) else x
    cupy = sys.modules.get("cupy")
    if is_cupy_array(buffer):
        device_id = buffer.data.device_id
    elif cupy is not None and cupy.cuda.is_available():
        device_id = cupy.cuda.runtime.getDevice()
    else:
        return TrafficDevice()
    from .cupy import runtime

    return TrafficDevice(runtime._sm_count(device_id), runtime._shared_limit(device_id))
