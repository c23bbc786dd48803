"""The GPU runtime: the two primitives of :mod:`stridelab.ops._primitives` on CuPy buffers.

``prepare_copy`` / ``prepare_scan`` take the same arguments as the NumPy backend's (a canonical pair)
and compute the same function, through RawKernels kept as real
CUDA files beside this module (``common.cuh``, then ``scan_common.cuh`` for a scan, then the
kernel's own file, :data:`~.geometry.KERNEL_FILES`). Each template instantiation the planner
chooses is compiled by NVRTC on its own (a ``cupy.RawModule`` of one name expression) the first
time it runs on a device, so a first call compiles one or two kernels, not a whole file's; CuPy's
disk cache keeps them for later processes. A compile still running after a second is announced
once per process (see :func:`_kernel`); :func:`stridelab.ops.precompile` compiles ahead for
container images and benchmarks. CuPy is imported only here, and this module only when
an operator meets a CuPy buffer.

Launch plans (:mod:`.copy_plan`, :mod:`.scan_plan`) are pure Python, worked out once per prepared
primitive, device and alignment (a call's pointers decide the alignment, so this is looked up per
call, in the primitive's own dictionary) and resolved to their compiled kernels and geometry
arguments, so a repeated call costs a dictionary look-up and one launch (three for a scan of a
long axis with little else in parallel, which also takes a small temporary from CuPy's pool). No
call synchronises with the host.

Numerics, identical to the NumPy backend: copies move bits; FLOAT32 scans combine in float32,
FLOAT16 scans keep the running value in float32 and round each written value once to half
(nearest, ties to even), UINT32 and UINT16 wrap modulo 2**32 and 2**16. The kernels group operations
differently from a sequential loop, so float results agree with the CPU within rounding (bound:
``tests/test_gpu_backend.py``); integer results are identical.

internal: used by the operators' CuPy backend.
"""

from __future__ import annotations

import functools
import logging
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ...dtypes import data_type
from .._primitives import CanonicalPair, ScanOperator
from .copy_plan import plan_copy
from .geometry import KERNEL_FILES, Launch, template_of
from .scan_plan import SCAN_TYPES, ScanPlan, plan_scan

__all__: list[str] = []

_CUDA_DIR = Path(__file__).parent
_NVRTC_OPTIONS = ("-std=c++17",)  # no fast math: float results must round as IEEE operations do
_ACC_DTYPES = {"FLOAT32": np.dtype(np.float32), "UINT32": np.dtype(np.uint32)}


@functools.cache
def _source(file: str) -> str:
    """The compilation unit of a kernel file: ``common.cuh``, ``scan_common.cuh`` for scans, the file."""
    headers = ("common.cuh", "scan_common.cuh") if file.startswith("scan") else ("common.cuh",)
    return "\n".join((_CUDA_DIR / name).read_text() for name in (*headers, file))


#: A compile still running after this many seconds is announced (once per process).
ANNOUNCE_AFTER_S = 1.0
_logger = logging.getLogger("stridelab")
_announced = threading.Event()


def _announce(name: str) -> None:
    """Say why the call is waiting: through logging at INFO, and on stderr where a person watches
    a terminal (never as a warning, which the tests treat as an error and notebooks would store)."""
    if _announced.is_set():
        return
    _announced.set()
    message = (
        f"stridelab: compiling the CUDA kernel {name} on its first use on this machine (seconds, once: "
        "CuPy keeps compiled kernels in its disk cache; stridelab.ops.precompile() compiles ahead)"
    )
    _logger.info(message)
    if sys.stderr is not None and sys.stderr.isatty():
        print(message, file=sys.stderr, flush=True)


@functools.cache
def _kernel(name: str, device_id: int) -> Any:
    """The kernel ``name`` (a template instantiation) compiled alone for the device, once per
    process, announced if it takes longer than ``ANNOUNCE_AFTER_S``."""
    import cupy

    file = KERNEL_FILES[template_of(name)]
    timer = threading.Timer(ANNOUNCE_AFTER_S, _announce, (name,))
    timer.daemon = True
    timer.start()
    try:
        with cupy.cuda.Device(device_id):
            module = cupy.RawModule(code=_source(file), options=_NVRTC_OPTIONS, name_expressions=[name])
            return module.get_function(name)  # NVRTC runs here, on the first get_function
    finally:
        timer.cancel()


def precompile_kernels(names: Sequence[str]) -> int:
    """Compile ``names`` for the current device where this process has not yet; how many it compiled."""
    import cupy

    device_id = cupy.cuda.runtime.getDevice()
    before = _kernel.cache_info().currsize
    for name in names:
        _kernel(name, device_id)
    return _kernel.cache_info().currsize - before


@functools.cache
def _shared_kernel(name: str, device_id: int, shared: int) -> Any:
    """The kernel, allowed at least ``shared`` bytes of dynamic shared memory (CUDA allows 48 KiB
    unless a kernel is given more) and preferring shared memory to L1 for them. The allowance
    belongs to the one compiled kernel, so it only ever grows."""
    import cupy

    kernel = _kernel(name, device_id)  # a cupy.RawKernel
    with cupy.cuda.Device(device_id):
        kernel.max_dynamic_shared_size_bytes = max(kernel.max_dynamic_shared_size_bytes, shared)
        kernel.preferred_shared_memory_carveout = 100
    return kernel


@functools.cache
def _sm_count(device_id: int) -> int:
    import cupy

    runtime = cupy.cuda.runtime
    return int(runtime.deviceGetAttribute(runtime.cudaDevAttrMultiProcessorCount, device_id))


@functools.cache
def _shared_limit(device_id: int) -> int:
    """Bytes of shared memory a block may be given on the device (opting in beyond 48 KiB)."""
    import cupy

    runtime = cupy.cuda.runtime
    return int(runtime.deviceGetAttribute(runtime.cudaDevAttrMaxSharedMemoryPerBlockOptin, device_id))


@functools.lru_cache(maxsize=4096)
def _geo_argument(geo: tuple[int, ...]) -> tuple[np.ndarray, Any]:
    """``struct Geo`` as kernel argument: CuPy passes a ``CPointer`` through as the address of the
    parameter's bytes, here a host int64 array kept alive beside it (the launch copies them)."""
    from cupy.cuda.function import CPointer

    values = np.array(geo, dtype=np.int64)
    return values, CPointer(values.ctypes.data)


class _Ready(NamedTuple):
    """A launch with everything a call needs resolved once: the compiled kernel (its
    ``cupy.cuda.function.Function``, called without RawKernel's wrapper), grid and block, the
    geometry argument (``geo`` points into ``values``, kept alive here), how many pointers the
    kernel takes before it, and its dynamic shared memory."""

    kernel: Any
    grid: tuple[int]
    block: tuple[int, int]
    geo: Any
    values: np.ndarray
    pointers: int
    shared: int


def _ready(launch: Launch, device_id: int) -> _Ready:
    import cupy

    values, geo = _geo_argument(launch.geo)
    if launch.shared:
        kernel = _shared_kernel(launch.kernel, device_id, launch.shared)
    else:
        kernel = _kernel(launch.kernel, device_id)
    with cupy.cuda.Device(device_id):  # a RawKernel holds one Function per device
        function = kernel.kernel
    pointers = 4 if launch.carries else 2
    return _Ready(function, (launch.grid,), launch.block, geo, values, pointers, launch.shared)


class _ReadyScan(NamedTuple):
    """A :class:`~.scan_plan.ScanPlan` with its launches resolved and its shifts in bytes."""

    src_shift: int
    dst_shift: int
    launch: _Ready
    first: _Ready | None
    partial_count: int
    partial_dtype: np.dtype | None
    partial_plan: _ReadyScan | None


def _ready_scan(plan: ScanPlan, esize: int, device_id: int) -> _ReadyScan:
    shifts = (plan.src_shift * esize, plan.dst_shift * esize)
    if plan.first is None:
        return _ReadyScan(*shifts, _ready(plan.launch, device_id), None, 0, None, None)
    dtype = _ACC_DTYPES[plan.partial_type]
    assert plan.partial_plan is not None, "a plan with a first pass scans its partials"
    return _ReadyScan(
        *shifts,
        _ready(plan.launch, device_id),
        _ready(plan.first, device_id),
        plan.partial_count,
        dtype,
        _ready_scan(plan.partial_plan, dtype.itemsize, device_id),
    )


def _launch(ready: _Ready, pointers: tuple[int, ...]) -> None:
    """Launch with the kernel's pointers first (as many as ``ready.pointers``: the planner and
    tests/test_cuda_sources.py keep them matched), then the geometry."""
    ready.kernel(ready.grid, ready.block, (*pointers, ready.geo), ready.shared)


class Primitive(NamedTuple):
    """A copy (``scan`` None) or a scan of one canonical ``pair`` of ``esize``-byte elements, as the
    engine's plan keeps it. Called with a call's buffers and offsets, it finds the launches for
    their device and alignment in ``launches`` (planned there on first use) and starts them on that
    device. ``data_type``: the scan's DirectML name; ``current_device``, ``use_device``: CuPy's."""

    pair: CanonicalPair
    esize: int
    scan: ScanOperator | None
    data_type: str
    exclusive: bool
    launches: dict[tuple[int, int, int], Any]
    current_device: Callable[[], int]
    use_device: Callable[[int], Any]

    def __call__(self, src: Any, src_offset: int, dst: Any, dst_offset: int) -> None:
        sp = src.data.ptr + src_offset * self.esize
        dp = dst.data.ptr + dst_offset * self.esize
        device_id = dst.data.device_id  # the front end refused buffers on two devices
        key = (device_id, sp % 16, dp % 16)
        ready = self.launches.get(key)
        if ready is None:
            ready = self.launches[key] = _resolve(self, *key)
        start = _run_copy if self.scan is None else _run_scan
        if self.current_device() == device_id:
            start(ready, sp, dp)
        else:
            with self.use_device(device_id):
                start(ready, sp, dp)


def prepare_copy(dtype: np.dtype, pair: CanonicalPair) -> Primitive:
    """``run(src_buffer, src_offset, dst_buffer, dst_offset)``: ``dst[c] = src[c]`` for every
    coordinate ``c`` of the canonical ``pair`` (any data type)."""
    return _primitive(pair, dtype.itemsize, None, "", False)


def prepare_scan(dtype: np.dtype, pair: CanonicalPair, exclusive: bool, operator: ScanOperator) -> Primitive:
    """``run(src_buffer, src_offset, dst_buffer, dst_offset)``: the running tally of ``operator``
    along the canonical ``pair``'s axis (increasing coordinates); the source may be the destination
    itself (each element is read before it is written). FLOAT32, FLOAT16, UINT32, UINT16."""
    name = data_type(dtype).name
    if name not in SCAN_TYPES:
        raise TypeError(f"scan supports {', '.join(SCAN_TYPES)}, not {name}")
    if pair.axis is None:
        raise ValueError("a scan's canonical pair keeps its axis")
    return _primitive(pair, dtype.itemsize, operator, name, bool(exclusive))


def _primitive(pair: CanonicalPair, esize: int, scan: ScanOperator | None, name: str, exclusive: bool) -> Primitive:
    import cupy  # a primitive is prepared only for cupy buffers

    runtime = cupy.cuda.runtime
    return Primitive(pair, esize, scan, name, exclusive, {}, runtime.getDevice, cupy.cuda.Device)


def _resolve(primitive: Primitive, device_id: int, src_align: int, dst_align: int) -> Any:
    """The launches of ``primitive`` for its device and the alignment of both views' element 0."""
    esize, pair = primitive.esize, primitive.pair
    if primitive.scan is None:
        plan = plan_copy(esize, pair, src_align, dst_align)
        return plan.src_shift * esize, plan.dst_shift * esize, _ready(plan.launch, device_id)
    scan_plan = plan_scan(
        primitive.data_type, pair, primitive.exclusive, src_align, dst_align, _sm_count(device_id),
        operator=primitive.scan.cuda, shared_limit=_shared_limit(device_id),
    )  # fmt: skip
    return _ready_scan(scan_plan, esize, device_id)


def _run_copy(plan: tuple[int, int, _Ready], sp: int, dp: int) -> None:
    src_shift, dst_shift, ready = plan
    _launch(ready, (sp + src_shift, dp + dst_shift))


def _run_scan(ready: _ReadyScan, sp: int, dp: int) -> None:
    sp += ready.src_shift
    dp += ready.dst_shift
    if ready.first is None:
        _launch(ready.launch, (sp, dp, 0, 0) if ready.launch.pointers == 4 else (sp, dp))
        return
    import cupy

    assert ready.partial_plan is not None, "a plan with a first pass scans its partials"
    partial = cupy.empty(ready.partial_count, dtype=ready.partial_dtype)
    pp = partial.data.ptr
    _launch(ready.first, (sp, dp, pp, 0))
    _run_scan(ready.partial_plan, pp, pp)
    _launch(ready.launch, (sp, dp, 0, pp))
