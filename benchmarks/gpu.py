"""GPU benchmark of stridelab's operators on a (16, 64, 256, 256) tensor: one table per run.

    PYTHONPATH=src python3 benchmarks/gpu.py [--reps 20] [--markdown] [--json [PATH]] [--commit HASH]

Each row is one operator call through the public API on a CuPy tensor, timed two ways:

- ``device us``: the GPU time of the call, the median of ``--reps`` calls each between two CUDA
  events, with every call already queued before the GPU reaches it: a spin kernel is enqueued first
  and outlasts the host's enqueueing of all the timed calls (checked for each measurement: the
  spin's end event must still be pending once the last call is enqueued; otherwise the spin is
  lengthened and the measurement repeated). The host's cost per call is then hidden, and what
  remains is the kernels, their launch gaps and any allocation on the GPU's side.
- ``call us``: CUDA events around one call on an idle GPU (synchronised before each), the median
  of ``--reps`` (at least 60): what a user sees for one call, the host's cost (front end,
  planning, allocation, launch) included. ``end-to-end of copy`` divides the same for one
  ``cupy.copyto`` call moving the row's bytes by it, the two timed alternately. Rows that allocate
  their result (``(new)``) are also compared with a call that allocates too: ``end-to-end of
  x.copy()`` divides one ``copy()`` of a packed array of the bytes the row reads (``x.copy()`` for
  the scans) by the row's call, the two timed alternately.
- ``host us (1,1,3,4)``: the host's time to issue the row's call on a (1, 1, 3, 4) tensor, median
  of 2000, alternating with a ``cupy.copyto`` of that tensor (``x copyto host``: their ratio).

The effective bandwidth (every 32-byte sector of the input that holds an element the operation
reads, plus the output bytes it writes) and its share of a device-to-device copy of the same
number of bytes, measured in the same run, both use the device time. The CuPy and PyTorch
equivalents (``cupy.cumsum`` / ``torch.cumsum``, CuPy slicing + ``ascontiguousarray``,
``.contiguous()``), each producing the same values, are timed the same way (device time), so the
ratios compare GPU time with GPU time. Warm-up calls (which also compile the kernels) are excluded.

Layouts: ``NCHW`` is packed row-major; ``NHWC`` is the same logical (N, C, H, W) tensor stored
channels-last (``base.transpose(0, 3, 1, 2)`` of a packed (N, H, W, C) array). The output column says
where the result goes: ``NCHW (new)`` is the default packed result the operator allocates; ``NHWC``
is a preallocated ``out`` with channels-last strides.

``--json`` also writes the run to a JSON file (default: ``gpu-results.json`` beside this script):
the device, date, commit, shape, reps, the copy bandwidths, one object per row (times in
microseconds, ``of_copy`` a fraction) and the small call's times. The commit is ``--commit`` where
given, else ``git rev-parse --short HEAD`` in this script's folder, else null.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np

SHAPE = (16, 64, 256, 256)
SMALL = (1, 1, 3, 4)  # the host-time column's tensor: so small that only the host's work counts
CALL_REPS = 60  # one-call timings (call us, end to end) are noisier than device times: more of them
AXES = "NCHW"


def _cupy():
    import cupy

    return cupy


def _torch():
    try:
        import torch

        return torch if torch.cuda.is_available() else None
    except ImportError:
        return None


_SPIN_SOURCE = r"""
extern "C" __global__ void stridelab_bench_spin(long long cycles) {
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}
"""


class Spin:
    """A one-thread kernel that keeps the GPU busy for about ``ms`` milliseconds, so that the host
    can queue the timed calls behind it. ``worst`` keeps the largest share of the spin that the
    host needed to queue a measurement's calls (under 1: the queue was ahead)."""

    def __init__(self):
        cupy = _cupy()
        self.kernel = cupy.RawKernel(_SPIN_SOURCE, "stridelab_bench_spin")
        self.khz = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["clockRate"]
        self.worst = 0.0
        self.retries = 0

    def __call__(self, ms: float) -> None:
        self.kernel((1,), (1,), (np.int64(ms * self.khz),))


_SPIN: list[Spin] = []


def _spin() -> Spin:
    if not _SPIN:
        _SPIN.append(Spin())
    return _SPIN[0]


def device_ms(fn, reps: int, warmup: int = 3) -> float:
    """Median GPU time of ``fn`` over ``reps`` calls, each between two CUDA events on the current
    stream, all of them queued behind a spin kernel that is still running when the host has
    queued the last one (so no call waits for the host)."""
    cupy = _cupy()
    for _ in range(warmup):
        fn()
    cupy.cuda.Device().synchronize()
    spin = _spin()
    spin_ms = 10.0
    for _ in range(6):
        events = [cupy.cuda.Event() for _ in range(reps + 1)]
        spun = cupy.cuda.Event()
        spin(spin_ms)
        spun.record()
        t0 = time.perf_counter()
        for i in range(reps):
            events[i].record()
            fn()
        events[reps].record()
        host_ms = (time.perf_counter() - t0) * 1e3
        ahead = not spun.done
        events[reps].synchronize()
        if ahead:
            spin.worst = max(spin.worst, host_ms / spin_ms)
            return statistics.median(cupy.cuda.get_elapsed_time(events[i], events[i + 1]) for i in range(reps))
        spin.retries += 1
        spin_ms *= 4
    raise RuntimeError("the host never got ahead of the GPU: no device time measured")


def call_ms(fn, reps: int, warmup: int = 3, reference=None) -> float | tuple[float, float]:
    """Median over ``reps`` calls of CUDA events around one call of ``fn`` on an idle GPU; with a
    ``reference``, also its median, the two called alternately so that a busy host slows both
    alike."""
    cupy = _cupy()
    calls = (fn,) if reference is None else (fn, reference)
    for _ in range(warmup):
        for call in calls:
            call()
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    times: list[list[float]] = [[] for _ in calls]
    for _ in range(reps):
        for call, record in zip(calls, times):
            cupy.cuda.Device().synchronize()
            start.record()
            call()
            stop.record()
            stop.synchronize()
            record.append(cupy.cuda.get_elapsed_time(start, stop))
    medians = tuple(statistics.median(record) for record in times)
    return medians[0] if reference is None else medians


def sector_bytes(view) -> int:
    """Bytes of the distinct 32-byte sectors holding the elements of the array view ``view``."""
    cupy = _cupy()
    offsets = cupy.zeros((1,) * view.ndim, dtype=cupy.int64)
    for i, (n, s) in enumerate(zip(view.shape, view.strides)):
        shape = [1] * view.ndim
        shape[i] = n
        offsets = offsets + (cupy.arange(n, dtype=cupy.int64) * s).reshape(shape)
    first = view.data.ptr
    sectors = cupy.unique((offsets.ravel() + first % 32) // 32).size
    return int(sectors) * 32


def check_scan(result, x, axis: int, product: bool = False) -> None:
    """``result`` (logical view) is the running sum (or product) of ``x`` along ``axis`` within the
    float bounds of tests/test_gpu_backend.py, against a float64 reference."""
    cupy = _cupy()
    wide = x.astype(cupy.float64)
    terms = cupy.arange(1, x.shape[axis] + 1, dtype=cupy.float64).reshape([-1 if i == axis else 1 for i in range(4)])
    if product:
        ref = cupy.cumprod(wide, axis=axis)
        bound = 2 * terms * 2.0**-24 * cupy.abs(ref)
    else:
        ref = cupy.cumsum(wide, axis=axis)
        bound = 2 * terms * 2.0**-24 * cupy.cumsum(cupy.abs(wide), axis=axis)
    if result.dtype == cupy.float16:  # one float16 spacing of the result: 2**(exponent - 10), subnormals 2**-24
        bound += 2.0 ** (cupy.floor(cupy.log2(cupy.maximum(cupy.abs(ref), 2.0**-14))) - 10)
    bad = int(cupy.count_nonzero(~(cupy.abs(result.astype(cupy.float64) - ref) <= bound)))
    if bad:
        what = "product" if product else "summation"
        raise AssertionError(f"{bad} values of the cumulative {what} along axis {axis} are off")


def check_equal(result, expected, what: str) -> None:
    if not bool(_cupy().array_equal(result, expected)):
        raise AssertionError(f"{what}: the result differs from CuPy's")


def nhwc(base):
    """The logical NCHW view of a packed NHWC array."""
    return base.transpose(0, 3, 1, 2)


class Table:
    def __init__(self, copy_gbps: dict[str, float]):
        self.rows: list[tuple] = []
        self.alloc: list[float | None] = []  # end to end of an allocating copy, where the row allocates
        self.copy_gbps = copy_gbps

    def add(
        self, op, dtype, layout_in, layout_out, params, ms, call, host, traffic, copy_call, cupy_ms=None, torch_ms=None,
        alloc=None,
    ):  # fmt: skip
        """One row: ``ms`` the device time, ``call`` the time of one call on an idle GPU,
        ``copy_call`` that of one cupy.copyto call moving ``traffic`` bytes (read plus written),
        the CuPy and PyTorch equivalents' device times (milliseconds); ``host`` (the host's
        microseconds to issue the same call on a (1, 1, 3, 4) tensor, and cupy.copyto's on that
        tensor, measured alternately); ``alloc``, for a row that allocates its result, (the row's
        call, one allocating ``copy()`` of the bytes it reads), timed alternately."""
        gbps = traffic / (ms * 1e-3) / 1e9
        ours, copyto = host
        print(
            f"  {op} {dtype} {layout_in}->{layout_out} {params}: {ms * 1e3:.1f} us device, "
            f"{call * 1e3:.1f} us call, {ours:.1f} us host (small; cupy.copyto {copyto:.1f} us)"
        )
        share = gbps / self.copy_gbps[dtype]
        end_to_end = copy_call / call
        self.rows.append(
            (op, dtype, layout_in, layout_out, params, ms, call, host, gbps, share, end_to_end, cupy_ms, torch_ms)
        )
        self.alloc.append(None if alloc is None else alloc[1] / alloc[0])

    def render(self, markdown: bool) -> str:
        head = (
            "operator",
            "dtype",
            "input",
            "output",
            "params",
            "device us",
            "call us",
            "host us (1,1,3,4)",
            "x copyto host",
            "GB/s (device)",
            "of copy (device)",
            "end-to-end of copy",
            "cupy device us",
            "x cupy",
            "torch device us",
            "x torch",
            "end-to-end of x.copy()",
        )
        lines = []
        for (op, dt, li, lo, params, ms, call, host, gbps, share, e2e, cms, tms), alloc in zip(self.rows, self.alloc):
            lines.append((
                op, dt, li, lo, params, f"{ms * 1e3:.1f}", f"{call * 1e3:.1f}", f"{host[0]:.1f}",
                f"{host[0] / host[1]:.2f}", f"{gbps:.0f}",
                f"{share:.0%}", f"{e2e:.0%}",
                "-" if cms is None else f"{cms * 1e3:.1f}", "-" if cms is None else f"{cms / ms:.1f}",
                "-" if tms is None else f"{tms * 1e3:.1f}", "-" if tms is None else f"{tms / ms:.1f}",
                "-" if alloc is None else f"{alloc:.0%}",
            ))  # fmt: skip
        widths = [max(len(str(r[i])) for r in [head, *lines]) for i in range(len(head))]
        if markdown:
            out = ["| " + " | ".join(head) + " |", "|" + "|".join(" --- " for _ in head) + "|"]
            out += ["| " + " | ".join(str(c) for c in row) + " |" for row in lines]
            return "\n".join(out)
        fmt = "  ".join(f"{{:{'<' if i < 5 else '>'}{w}}}" for i, w in enumerate(widths))
        return "\n".join(fmt.format(*row) for row in [head, *lines])

    def json_rows(self) -> list[dict]:
        """The rows as objects: times in microseconds and GB/s to 0.1, ``of_copy`` and
        ``end_to_end_of_copy`` fractions (the latter: a copy call moving the row's bytes, over
        the row's call)."""

        def us(ms):
            return None if ms is None else round(ms * 1e3, 1)

        return [
            {"operator": op, "dtype": dt, "input": li, "output": lo, "params": params, "device_us": us(ms),
             "call_us": us(call), "host_us_small": round(host[0], 1), "copyto_host_us_small": round(host[1], 1),
             "gbps": round(gbps, 1),
             "of_copy": round(share, 3), "end_to_end_of_copy": round(e2e, 3), "cupy_device_us": us(cms),
             "torch_device_us": us(tms)}
            for op, dt, li, lo, params, ms, call, host, gbps, share, e2e, cms, tms in self.rows
        ]  # fmt: skip


def copy_bandwidth(nbytes: int, reps: int) -> float:
    """GB/s of a device-to-device copy of ``nbytes`` (bytes read + bytes written, over the device time)."""
    cupy = _cupy()
    a = cupy.ones(nbytes, dtype=cupy.uint8)
    b = cupy.empty_like(a)
    return 2 * nbytes / (device_ms(lambda: cupy.copyto(b, a), reps) * 1e-3) / 1e9


_copies: dict[int, object] = {}
_alloc_copies: dict[tuple[int, str], object] = {}


def copy_of(traffic: int):
    """A cupy.copyto call that reads and writes ``traffic`` bytes in all (the end-to-end
    column's reference), its arrays allocated once per size."""
    if traffic not in _copies:
        cupy = _cupy()
        a = cupy.ones(traffic // 2, dtype=cupy.uint8)
        b = cupy.empty_like(a)
        _copies[traffic] = lambda: cupy.copyto(b, a)
    return _copies[traffic]


def alloc_copy_of(nbytes: int, dtype):
    """A ``copy()`` of a packed array of ``nbytes`` bytes of ``dtype``, allocating its result (the
    reference of rows that allocate theirs), the array allocated once per size and type (CuPy
    copies element by element: an array of bytes would copy several times slower)."""
    key = (nbytes, np.dtype(dtype).str)
    if key not in _alloc_copies:
        a = _cupy().ones(nbytes // np.dtype(dtype).itemsize, dtype=dtype)
        _alloc_copies[key] = a.copy
    return _alloc_copies[key]


def host_us(fn, reference, calls: int = 2000) -> tuple[float, float]:
    """Median microseconds the host takes to issue one call of ``fn``, and one of ``reference``,
    the two called alternately (so that a busy host slows both alike), without synchronising
    (small tensors: the kernels finish long before the launch queue fills)."""
    cupy = _cupy()
    for _ in range(50):
        fn()
        reference()
    times: tuple[list[float], list[float]] = ([], [])
    for i in range(calls):
        if i % 100 == 0:
            cupy.cuda.Device().synchronize()
        for call, record in ((fn, times[0]), (reference, times[1])):
            t0 = time.perf_counter()
            call()
            record.append(time.perf_counter() - t0)
    cupy.cuda.Device().synchronize()
    return statistics.median(times[0]) * 1e6, statistics.median(times[1]) * 1e6


class Operands:
    """The inputs and outputs of every row, at one shape: a packed tensor of normal values, the
    same values channels-last, factors near 1 for products (packed and channels-last), and NHWC
    and NCHW outputs."""

    def __init__(self, name: str, shape: tuple[int, ...]):
        import stridelab as sl

        cupy, torch = _cupy(), _torch()
        rng = cupy.random.default_rng(0)
        self.packed = rng.standard_normal(shape, dtype=cupy.float32).astype(name.lower())
        self.nhwc = nhwc(cupy.ascontiguousarray(self.packed.transpose(0, 2, 3, 1)))
        factors = rng.uniform(0.9, 1.1, shape, dtype=cupy.float32).astype(name.lower())
        self.factors = {"NCHW": factors, "NHWC": nhwc(cupy.ascontiguousarray(factors.transpose(0, 2, 3, 1)))}
        self.out_nhwc = sl.StridedTensor.empty(sl.TensorDesc(name, shape, sl.layout_strides("NHWC", shape)), cupy)
        self.out_nchw = sl.StridedTensor.empty(sl.TensorDesc(name, shape), cupy)
        self.torch = torch
        if torch:
            self.tpacked = torch.as_tensor(self.packed, device="cuda")
            self.tlast = self.tpacked.contiguous(memory_format=torch.channels_last)

    def inputs(self):
        return (("NCHW", self.packed, self.tpacked if self.torch else None),
                ("NHWC", self.nhwc, self.tlast if self.torch else None))  # fmt: skip


def bench_dtype(table: Table, name: str, reps: int) -> None:
    import stridelab as sl

    cupy, torch = _cupy(), _torch()
    dtype = np.dtype(name.lower())
    big, small = Operands(name, SHAPE), Operands(name, SMALL)
    total = big.packed.nbytes
    small_copy = cupy.empty_like(small.packed)

    def row(op, layout_in, layout_out, params, call, traffic, cupy_fn=None, torch_fn=None, read=None):
        """Time ``call(operands)`` on the big tensor (device and one call) and on the small one
        (host); a row that allocates its result (``read``: the bytes it reads), also one call
        against an allocating copy of those bytes."""
        ours = lambda: call(big)  # noqa: E731
        ms = device_ms(ours, reps)
        one, copy_call = call_ms(ours, max(reps, CALL_REPS), reference=copy_of(traffic))
        alloc = None
        if layout_out.endswith("(new)"):
            alloc = call_ms(ours, max(reps, CALL_REPS), reference=alloc_copy_of(read or total, dtype))
        host = host_us(lambda: call(small), lambda: cupy.copyto(small_copy, small.packed))
        cms = device_ms(cupy_fn, reps) if cupy_fn else None
        tms = device_ms(torch_fn, reps) if torch_fn else None
        table.add(op, name, layout_in, layout_out, params, ms, one, host, traffic, copy_call, cms, tms, alloc)

    for index, (layout_in, x, tx) in enumerate(big.inputs()):
        for axis in range(4):
            check_scan(sl.cumulative_summation(x, axis), x, axis)
            row(
                "cumulative_summation", layout_in, "NCHW (new)", f"axis {AXES[axis]}",
                lambda o, index=index, axis=axis: sl.cumulative_summation(o.inputs()[index][1], axis), 2 * total,
                lambda x=x, axis=axis: cupy.cumsum(x, axis=axis),
                (lambda tx=tx, axis=axis: torch.cumsum(tx, dim=axis)) if torch else None,
            )  # fmt: skip
        for axis in range(4):
            check_scan(sl.cumulative_summation(x, axis, out=big.out_nhwc).view(), x, axis)
            row(
                "cumulative_summation", layout_in, "NHWC", f"axis {AXES[axis]}",
                lambda o, index=index, axis=axis: sl.cumulative_summation(o.inputs()[index][1], axis, out=o.out_nhwc),
                2 * total,
            )  # fmt: skip

    for layout_in in ("NCHW", "NHWC"):
        x = big.factors[layout_in]
        for axis in range(4):
            check_scan(sl.cumulative_product(x, axis), x, axis, product=True)
            row(
                "cumulative_product", layout_in, "NCHW (new)", f"axis {AXES[axis]}",
                lambda o, layout_in=layout_in, axis=axis: sl.cumulative_product(o.factors[layout_in], axis),
                2 * total, lambda x=x, axis=axis: cupy.cumprod(x, axis=axis),
            )  # fmt: skip
        for axis in range(4):
            check_scan(sl.cumulative_product(x, axis, out=big.out_nhwc).view(), x, axis, product=True)
            row(
                "cumulative_product", layout_in, "NHWC", f"axis {AXES[axis]}",
                lambda o, layout_in=layout_in, axis=axis: sl.cumulative_product(
                    o.factors[layout_in], axis, out=o.out_nhwc
                ),
                2 * total,
            )  # fmt: skip

    for strides in ((1, 2, 2, -2), (1, 1, 1, -1)):
        windows = tuple(slice(None, None, s) for s in strides)
        view = big.packed[windows]
        traffic = sector_bytes(view) + view.size * dtype.itemsize
        check_equal(sl.slice1(big.packed, (0, 0, 0, 0), SHAPE, strides), view, f"slice1 {strides}")
        torch_fn = None
        if torch and all(s > 0 for s in strides):
            tview = big.tpacked[:, :: strides[1], :: strides[2], :: strides[3]]
            torch_fn = lambda tview=tview: tview.contiguous()  # noqa: E731
        row(
            "slice1", "NCHW", "NCHW (new)", "strides (" + ",".join(str(s) for s in strides) + ")",
            lambda o, strides=strides: sl.slice1(o.packed, (0, 0, 0, 0), o.packed.shape, strides), traffic,
            lambda view=view: cupy.ascontiguousarray(view), torch_fn, sector_bytes(view),
        )  # fmt: skip

    cases = (
        ("NCHW", "NHWC", lambda o: sl.element_wise_identity(o.packed, o.out_nhwc),
         lambda: cupy.ascontiguousarray(big.packed.transpose(0, 2, 3, 1)),
         (lambda: big.tpacked.contiguous(memory_format=torch.channels_last)) if torch else None),
        ("NHWC", "NCHW", lambda o: sl.element_wise_identity(o.nhwc, o.out_nchw),
         lambda: cupy.ascontiguousarray(big.nhwc), (lambda: big.tlast.contiguous()) if torch else None),
    )  # fmt: skip
    for layout_in, layout_out, call, cupy_fn, torch_fn in cases:
        x = big.packed if layout_in == "NCHW" else big.nhwc
        check_equal(call(big).view(), x, f"element_wise_identity {layout_in}")
        row("element_wise_identity", layout_in, layout_out, "", call, 2 * total, cupy_fn, torch_fn)


def small_call_us(calls: int = 2000) -> tuple[float, float]:
    """Median wall time of a (1, 1, 3, 4) cumulative summation after the first call: issuing the
    call alone, and the call with a synchronisation (the result ready)."""
    import stridelab as sl

    cupy = _cupy()
    x = cupy.asarray(np.array([[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]], dtype=np.float32))
    assert sl.cumulative_summation(x, 3).get().tolist() == [[[[2, 3, 6, 11], [3, 11, 18, 21], [9, 15, 17, 21]]]]
    issue, ready = [], []
    stream = cupy.cuda.get_current_stream()
    for _ in range(calls):
        t0 = time.perf_counter()
        sl.cumulative_summation(x, 3)
        t1 = time.perf_counter()
        stream.synchronize()
        t2 = time.perf_counter()
        issue.append(t1 - t0)
        ready.append(t2 - t0)
    return statistics.median(issue) * 1e6, statistics.median(ready) * 1e6


def git_commit() -> str | None:
    """``git rev-parse --short HEAD`` in this script's folder, or None where git fails."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=Path(__file__).parent,
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument(
        "--json",
        type=Path,
        nargs="?",
        const=Path(__file__).with_name("gpu-results.json"),
        metavar="PATH",
        help="also write the run as JSON to PATH (default: gpu-results.json beside this script)",
    )
    parser.add_argument(
        "--commit",
        help="the commit the JSON names, for a copy of the code without git (default: git rev-parse --short HEAD)",
    )
    args = parser.parse_args(argv)
    cupy = _cupy()
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    device = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    elements = int(np.prod(SHAPE))
    copy_gbps = {
        name: copy_bandwidth(elements * np.dtype(name.lower()).itemsize, args.reps) for name in ("FLOAT32", "FLOAT16")
    }
    table = Table(copy_gbps)
    for name in ("FLOAT32", "FLOAT16"):
        bench_dtype(table, name, args.reps)
    copy_after = {name: copy_bandwidth(elements * np.dtype(name.lower()).itemsize, args.reps) for name in copy_gbps}
    issue_us, ready_us = small_call_us()
    spin = _spin()
    today = datetime.date.today()
    print(f"device: {device}; date: {today}; shape {SHAPE}; median of {args.reps} runs")
    print(
        "device us: CUDA events around each call, all calls queued behind a spin kernel (the host's "
        f"queueing took at most {spin.worst:.0%} of the spin; {spin.retries} measurements re-run with a "
        "longer spin); call us: events around one call on an idle GPU; GB/s and 'of copy' use device us"
    )
    print("copy (device to device, same bytes): " + ", ".join(f"{k} {v:.0f} GB/s" for k, v in copy_gbps.items()))
    print(
        "end-to-end of copy: one cupy.copyto call moving the row's bytes over the row's call, both on an idle "
        "GPU; host us: the (1, 1, 3, 4) call issued, median of 2000, alternating with a cupy.copyto of that array"
    )
    print(
        "the same copy again after the table (not used): "
        + ", ".join(f"{k} {v:.0f} GB/s" for k, v in copy_after.items())
    )
    print(table.render(args.markdown))
    print(
        f"(1, 1, 3, 4) cumulative_summation wall time: {issue_us:.1f} us to issue, "
        f"{ready_us:.1f} us with the result ready"
    )
    if args.json is not None:
        result = {
            "device": device,
            "date": today.isoformat(),
            "commit": args.commit or git_commit(),
            "shape": list(SHAPE),
            "reps": args.reps,
            "copy_gbps": {k: round(v, 1) for k, v in copy_gbps.items()},
            "rows": table.json_rows(),
            "small_call_us": {"issue": round(issue_us, 1), "ready": round(ready_us, 1)},
        }
        args.json.write_text(json.dumps(result, indent=1, sort_keys=False) + "\n", encoding="ascii")


if __name__ == "__main__":
    main()
