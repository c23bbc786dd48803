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
  of ``--reps``: what a user sees for one call, the host's cost (front end, planning, allocation,
  launch) included, i.e. roughly the larger of the host's time and the GPU's.

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


def call_ms(fn, reps: int, warmup: int = 3) -> float:
    """Median over ``reps`` calls of CUDA events around one call of ``fn`` on an idle GPU."""
    cupy = _cupy()
    for _ in range(warmup):
        fn()
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    times = []
    for _ in range(reps):
        cupy.cuda.Device().synchronize()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop))
    return statistics.median(times)


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


def check_scan(result, x, axis: int) -> None:
    """``result`` (logical view) is the running sum of ``x`` along ``axis`` within the float bound
    of tests/test_gpu_backend.py, against a float64 sum."""
    cupy = _cupy()
    ref = cupy.cumsum(x.astype(cupy.float64), axis=axis)
    terms = cupy.arange(1, x.shape[axis] + 1, dtype=cupy.float64).reshape([-1 if i == axis else 1 for i in range(4)])
    bound = 2 * terms * 2.0**-24 * cupy.cumsum(cupy.abs(x.astype(cupy.float64)), axis=axis)
    if result.dtype == cupy.float16:  # one float16 spacing of the result: 2**(exponent - 10), subnormals 2**-24
        bound += 2.0 ** (cupy.floor(cupy.log2(cupy.maximum(cupy.abs(ref), 2.0**-14))) - 10)
    bad = int(cupy.count_nonzero(~(cupy.abs(result.astype(cupy.float64) - ref) <= bound)))
    if bad:
        raise AssertionError(f"{bad} values of the cumulative summation along axis {axis} are off")


def check_equal(result, expected, what: str) -> None:
    if not bool(_cupy().array_equal(result, expected)):
        raise AssertionError(f"{what}: the result differs from CuPy's")


def nhwc(base):
    """The logical NCHW view of a packed NHWC array."""
    return base.transpose(0, 3, 1, 2)


class Table:
    def __init__(self, copy_gbps: dict[str, float]):
        self.rows: list[tuple] = []
        self.copy_gbps = copy_gbps

    def add(self, op, dtype, layout_in, layout_out, params, ms, call, traffic, cupy_ms=None, torch_ms=None):
        """One row: ``ms`` the device time, ``call`` the time of one call on an idle GPU, the
        CuPy and PyTorch equivalents' device times (milliseconds); ``traffic`` in bytes."""
        gbps = traffic / (ms * 1e-3) / 1e9
        print(f"  {op} {dtype} {layout_in}->{layout_out} {params}: {ms * 1e3:.1f} us device, {call * 1e3:.1f} us call")
        share = gbps / self.copy_gbps[dtype]
        self.rows.append((op, dtype, layout_in, layout_out, params, ms, call, gbps, share, cupy_ms, torch_ms))

    def render(self, markdown: bool) -> str:
        head = (
            "operator",
            "dtype",
            "input",
            "output",
            "params",
            "device us",
            "call us",
            "GB/s (device)",
            "of copy (device)",
            "cupy device us",
            "x cupy",
            "torch device us",
            "x torch",
        )
        lines = []
        for op, dt, li, lo, params, ms, call, gbps, share, cms, tms in self.rows:
            lines.append((
                op, dt, li, lo, params, f"{ms * 1e3:.1f}", f"{call * 1e3:.1f}", f"{gbps:.0f}", f"{share:.0%}",
                "-" if cms is None else f"{cms * 1e3:.1f}", "-" if cms is None else f"{cms / ms:.1f}",
                "-" if tms is None else f"{tms * 1e3:.1f}", "-" if tms is None else f"{tms / ms:.1f}",
            ))  # fmt: skip
        widths = [max(len(str(r[i])) for r in [head, *lines]) for i in range(len(head))]
        if markdown:
            out = ["| " + " | ".join(head) + " |", "|" + "|".join(" --- " for _ in head) + "|"]
            out += ["| " + " | ".join(str(c) for c in row) + " |" for row in lines]
            return "\n".join(out)
        fmt = "  ".join(f"{{:{'<' if i < 5 else '>'}{w}}}" for i, w in enumerate(widths))
        return "\n".join(fmt.format(*row) for row in [head, *lines])

    def json_rows(self) -> list[dict]:
        """The rows as objects: times in microseconds and GB/s to 0.1, ``of_copy`` a fraction."""

        def us(ms):
            return None if ms is None else round(ms * 1e3, 1)

        return [
            {"operator": op, "dtype": dt, "input": li, "output": lo, "params": params, "device_us": us(ms),
             "call_us": us(call), "gbps": round(gbps, 1), "of_copy": round(share, 3), "cupy_device_us": us(cms),
             "torch_device_us": us(tms)}
            for op, dt, li, lo, params, ms, call, gbps, share, cms, tms in self.rows
        ]  # fmt: skip


def copy_bandwidth(nbytes: int, reps: int) -> float:
    """GB/s of a device-to-device copy of ``nbytes`` (bytes read + bytes written, over the time)."""
    cupy = _cupy()
    a = cupy.ones(nbytes, dtype=cupy.uint8)
    b = cupy.empty_like(a)
    ms = device_ms(lambda: cupy.copyto(b, a), reps)
    return 2 * nbytes / (ms * 1e-3) / 1e9


def bench_dtype(table: Table, name: str, reps: int) -> None:
    import stridelab as sl

    cupy, torch = _cupy(), _torch()
    dtype = np.dtype(name.lower())
    rng = cupy.random.default_rng(0)
    packed = rng.standard_normal(SHAPE, dtype=cupy.float32).astype(dtype)
    channels_last = cupy.ascontiguousarray(packed.transpose(0, 2, 3, 1))
    total = packed.nbytes
    tpacked = torch.as_tensor(packed, device="cuda") if torch else None
    tlast = tpacked.contiguous(memory_format=torch.channels_last) if torch else None
    nhwc_desc = sl.TensorDesc(name, SHAPE, sl.layout_strides("NHWC", SHAPE))
    out_nhwc = sl.StridedTensor.empty(nhwc_desc, cupy)

    for layout_in, x, tx in (("NCHW", packed, tpacked), ("NHWC", nhwc(channels_last), tlast)):
        for axis in range(4):
            check_scan(sl.cumulative_summation(x, axis), x, axis)
            ours = lambda x=x, axis=axis: sl.cumulative_summation(x, axis)  # noqa: E731
            ms, call = device_ms(ours, reps), call_ms(ours, reps)
            cms = device_ms(lambda x=x, axis=axis: cupy.cumsum(x, axis=axis), reps)
            tms = device_ms(lambda tx=tx, axis=axis: torch.cumsum(tx, dim=axis), reps) if torch else None
            label = f"axis {AXES[axis]}"
            table.add("cumulative_summation", name, layout_in, "NCHW (new)", label, ms, call, 2 * total, cms, tms)
        for axis in range(4):
            check_scan(sl.cumulative_summation(x, axis, out=out_nhwc).view(), x, axis)
            ours = lambda x=x, axis=axis: sl.cumulative_summation(x, axis, out=out_nhwc)  # noqa: E731
            ms, call = device_ms(ours, reps), call_ms(ours, reps)
            table.add("cumulative_summation", name, layout_in, "NHWC", f"axis {AXES[axis]}", ms, call, 2 * total)

    for strides in ((1, 2, 2, -2), (1, 1, 1, -1)):
        windows = tuple(slice(None, None, s) for s in strides)
        view = packed[windows]
        traffic = sector_bytes(view) + view.size * dtype.itemsize

        def run(strides=strides):
            return sl.slice1(packed, (0, 0, 0, 0), SHAPE, strides)

        check_equal(run(), view, f"slice1 {strides}")
        ms, call = device_ms(run, reps), call_ms(run, reps)
        cms = device_ms(lambda view=view: cupy.ascontiguousarray(view), reps)
        tms = None
        if torch and all(s > 0 for s in strides):
            tview = tpacked[:, :: strides[1], :: strides[2], :: strides[3]]
            tms = device_ms(lambda tview=tview: tview.contiguous(), reps)
        label = "strides (" + ",".join(str(s) for s in strides) + ")"
        table.add("slice1", name, "NCHW", "NCHW (new)", label, ms, call, traffic, cms, tms)

    out_nchw = sl.StridedTensor.empty(sl.TensorDesc(name, SHAPE), cupy)
    cases = (
        ("NCHW", packed, out_nhwc, "NHWC", lambda: cupy.ascontiguousarray(packed.transpose(0, 2, 3, 1)),
         (lambda: tpacked.contiguous(memory_format=torch.channels_last)) if torch else None),
        ("NHWC", nhwc(channels_last), out_nchw, "NCHW", lambda: cupy.ascontiguousarray(nhwc(channels_last)),
         (lambda: tlast.contiguous()) if torch else None),
    )  # fmt: skip
    for layout_in, x, out, layout_out, cupy_fn, torch_fn in cases:
        check_equal(sl.element_wise_identity(x, out).view(), x, f"element_wise_identity {layout_in}")
        ours = lambda x=x, out=out: sl.element_wise_identity(x, out)  # noqa: E731
        ms, call = device_ms(ours, reps), call_ms(ours, reps)
        cms = device_ms(cupy_fn, reps)
        tms = device_ms(torch_fn, reps) if torch_fn else None
        table.add("element_wise_identity", name, layout_in, layout_out, "", ms, call, 2 * total, cms, tms)


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
