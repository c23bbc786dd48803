"""CuPy backend: the two primitives of :mod:`stridelab.ops._plan` on GPU buffers.

``copy(src, dst)`` and ``scan(src, dst, axis, exclusive)`` take the same :class:`BufferView`
arguments as the NumPy backend and compute the same function, through RawKernels kept as real
CUDA files in ``cuda/`` (``common.cuh`` prepended to ``copy.cu`` or ``scan.cu``). Each file is
compiled by NVRTC (``cupy.RawModule`` over the template instantiations listed in
:mod:`._cupy_plan`) the first time a kernel of it runs on a device, once per process and device.
CuPy is imported only here, and this module only when an operator meets a CuPy buffer.

Launch plans (:mod:`._cupy_plan`) are pure Python and memoised on the views' sizes, strides and
alignment, so a repeated call costs a dictionary look-up and one launch (three for a scan of a
long axis with little else in parallel, which also takes a small temporary from CuPy's pool). No
call synchronises with the host.

Numerics, identical to the NumPy backend: copies move bits; FLOAT32 scans add in float32, FLOAT16
scans keep the running total in float32 and round each written value once to half (nearest,
ties to even), UINT32 and UINT16 wrap modulo 2**32 and 2**16. The kernels group additions
differently from a sequential loop, so float results agree with the CPU within rounding (bound:
``tests/test_gpu_backend.py``); integer results are identical.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from ..dtypes import data_type
from . import _cupy_plan as plans
from ._plan import BufferView

__all__ = ["copy", "scan"]

_CUDA_DIR = Path(__file__).with_name("cuda")
_NVRTC_OPTIONS = ("-std=c++17",)  # no fast math: float sums must round as IEEE adds do
_FAMILIES = {"copy": plans.COPY_KERNELS, "scan": plans.SCAN_KERNELS}
_ACC_DTYPES = {"FLOAT32": np.dtype(np.float32), "UINT32": np.dtype(np.uint32)}


@functools.cache
def _source(family: str) -> str:
    return (_CUDA_DIR / "common.cuh").read_text() + "\n" + (_CUDA_DIR / f"{family}.cu").read_text()


@functools.cache
def _module(family: str, device_id: int) -> Any:
    import cupy

    return cupy.RawModule(code=_source(family), options=_NVRTC_OPTIONS, name_expressions=list(_FAMILIES[family]))


@functools.cache
def _kernel(name: str, device_id: int) -> Any:
    import cupy

    family = "scan" if name.startswith("sl_scan") else "copy"
    with cupy.cuda.Device(device_id):
        return _module(family, device_id).get_function(name)


@functools.cache
def _sm_count(device_id: int) -> int:
    import cupy

    runtime = cupy.cuda.runtime
    return int(runtime.deviceGetAttribute(runtime.cudaDevAttrMultiProcessorCount, device_id))


@functools.lru_cache(maxsize=4096)
def _geo_argument(geo: tuple[int, ...]) -> tuple[np.ndarray, Any]:
    """``struct Geo`` as kernel argument: CuPy passes a ``CPointer`` through as the address of the
    parameter's bytes, here a host int64 array kept alive beside it (the launch copies them)."""
    from cupy.cuda.function import CPointer

    values = np.array(geo, dtype=np.int64)
    return values, CPointer(values.ctypes.data)


_plan_copy = functools.lru_cache(maxsize=2048)(plans.plan_copy)
_plan_scan = functools.lru_cache(maxsize=2048)(plans.plan_scan)


def _launch(launch: plans.Launch, device_id: int, pointers: tuple[int, ...]) -> None:
    if len(pointers) != (4 if launch.carries else 2):  # the kernel would read its geometry from the wrong slot
        raise RuntimeError(f"{launch.kernel} takes {4 if launch.carries else 2} pointers, not {len(pointers)}")
    kernel = _kernel(launch.kernel, device_id)
    geo = _geo_argument(launch.geo)
    kernel((launch.grid,), launch.block, (*pointers, geo[1]))


def _device(src: BufferView, dst: BufferView) -> int:
    sdev, ddev = src.buffer.device.id, dst.buffer.device.id
    if sdev != ddev:
        raise ValueError(f"source buffer is on GPU {sdev} but destination buffer on GPU {ddev}; use one device")
    return ddev


def _check(src: BufferView, dst: BufferView) -> None:
    if src.sizes != dst.sizes:
        raise ValueError(f"source sizes {list(src.sizes)} differ from destination sizes {list(dst.sizes)}")
    if src.buffer.dtype != dst.buffer.dtype:
        raise TypeError(f"source dtype {src.buffer.dtype} differs from destination dtype {dst.buffer.dtype}")


def _on_device(device_id: int, run, *args) -> None:
    import cupy

    if cupy.cuda.runtime.getDevice() == device_id:
        run(*args)
    else:
        with cupy.cuda.Device(device_id):
            run(*args)


def copy(src: BufferView, dst: BufferView) -> None:
    """``dst[c] = src[c]`` for every coordinate ``c`` of ``dst.sizes`` (any data type)."""
    _check(src, dst)
    esize = dst.buffer.itemsize
    sp = src.buffer.data.ptr + src.offset * esize
    dp = dst.buffer.data.ptr + dst.offset * esize
    device_id = _device(src, dst)
    plan = _plan_copy(esize, src.sizes, src.strides, dst.strides, sp % 16, dp % 16)
    pointers = (sp + plan.src_shift * esize, dp + plan.dst_shift * esize)
    _on_device(device_id, _launch, plan.launch, device_id, pointers)


def scan(src: BufferView, dst: BufferView, axis: int, exclusive: bool) -> None:
    """Running tally of ``src`` along ``axis`` (increasing coordinates) into ``dst``; ``src`` may
    be ``dst`` itself (each element is read before it is written). FLOAT32, FLOAT16, UINT32, UINT16."""
    _check(src, dst)
    name = data_type(dst.buffer.dtype).name
    if name not in plans.SCAN_TYPES:
        raise TypeError(f"scan supports {', '.join(plans.SCAN_TYPES)}, not {name}")
    if not 0 <= axis < len(dst.sizes):
        raise ValueError(f"axis {axis} is out of range for {len(dst.sizes)} dimensions")
    esize = dst.buffer.itemsize
    sp = src.buffer.data.ptr + src.offset * esize
    dp = dst.buffer.data.ptr + dst.offset * esize
    device_id = _device(src, dst)
    plan = _plan_scan(
        name, src.sizes, src.strides, dst.strides, axis, bool(exclusive), sp % 16, dp % 16, _sm_count(device_id)
    )
    _on_device(device_id, _run_scan, plan, sp, dp, esize, device_id)


def _run_scan(plan: plans.ScanPlan, sp: int, dp: int, esize: int, device_id: int) -> None:
    sp += plan.src_shift * esize
    dp += plan.dst_shift * esize
    if plan.first is None:
        _launch(plan.launch, device_id, (sp, dp, 0, 0) if plan.launch.carries else (sp, dp))
        return
    import cupy

    dtype = _ACC_DTYPES[plan.partial_type]
    partial = cupy.empty(plan.partial_count, dtype=dtype)
    pp = partial.data.ptr
    _launch(plan.first, device_id, (sp, dp, pp, 0))
    _run_scan(plan.partial_plan, pp, pp, dtype.itemsize, device_id)
    _launch(plan.launch, device_id, (sp, dp, 0, pp))
