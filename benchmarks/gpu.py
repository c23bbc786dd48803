"""GPU benchmark of stridelab's operators on a (16, 64, 256, 256) tensor: one table per run.

    PYTHONPATH=. python3 benchmarks/gpu.py [--reps 20] [--markdown]

Each row is one operator call through the public API on a CuPy tensor: the median of ``--reps``
timed runs (CUDA events around each run, after warm-up runs that also compile the kernels), the
effective bandwidth (every 32-byte sector of the input that holds an element the operation reads,
plus the output bytes it writes, over the median time), that bandwidth as a share of a
device-to-device copy of the same number of bytes measured in the same run, and the time of the
nearest CuPy and PyTorch equivalents where they exist (``cupy.cumsum`` / ``torch.cumsum``, CuPy
slicing + ``ascontiguousarray``, ``.contiguous()``), each producing the same values.

Layouts: ``NCHW`` is packed row-major; ``NHWC`` is the same logical (N, C, H, W) tensor stored
channels-last (``base.transpose(0, 3, 1, 2)`` of a packed (N, H, W, C) array). The output column says
where the result goes: ``NCHW (new)`` is the default packed result the operator allocates; ``NHWC``
is a preallocated ``out`` with channels-last strides.
"""

from __future__ import annotations

import argparse
import datetime
import statistics
import time

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


def median_ms(fn, reps: int, warmup: int = 3) -> float:
    """Median of ``reps`` runs of ``fn``, each between two CUDA events on the current stream."""
    cupy = _cupy()
    for _ in range(warmup):
        fn()
    events = [(cupy.cuda.Event(), cupy.cuda.Event()) for _ in range(reps)]
    for start, stop in events:
        start.record()
        fn()
        stop.record()
    events[-1][1].synchronize()
    return statistics.median(cupy.cuda.get_elapsed_time(start, stop) for start, stop in events)


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

    def add(self, op, dtype, layout_in, layout_out, params, ms, traffic, cupy_ms=None, torch_ms=None):
        gbps = traffic / (ms * 1e-3) / 1e9
        print(f"  {op} {dtype} {layout_in}->{layout_out} {params}: {ms * 1e3:.1f} us", flush=True)
        self.rows.append(
            (op, dtype, layout_in, layout_out, params, ms, gbps, gbps / self.copy_gbps[dtype], cupy_ms, torch_ms)
        )

    def render(self, markdown: bool) -> str:
        head = (
            "operator",
            "dtype",
            "input",
            "output",
            "params",
            "median us",
            "GB/s",
            "of copy",
            "cupy us",
            "x cupy",
            "torch us",
            "x torch",
        )
        lines = []
        for op, dt, li, lo, params, ms, gbps, share, cms, tms in self.rows:
            lines.append((
                op, dt, li, lo, params, f"{ms * 1e3:.1f}", f"{gbps:.0f}", f"{share:.0%}",
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


def copy_bandwidth(nbytes: int, reps: int) -> float:
    """GB/s of a device-to-device copy of ``nbytes`` (bytes read + bytes written, over the time)."""
    cupy = _cupy()
    a = cupy.ones(nbytes, dtype=cupy.uint8)
    b = cupy.empty_like(a)
    ms = median_ms(lambda: cupy.copyto(b, a), reps)
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
            ms = median_ms(lambda x=x, axis=axis: sl.cumulative_summation(x, axis), reps)
            cms = median_ms(lambda x=x, axis=axis: cupy.cumsum(x, axis=axis), reps)
            tms = median_ms(lambda tx=tx, axis=axis: torch.cumsum(tx, dim=axis), reps) if torch else None
            table.add(
                "cumulative_summation", name, layout_in, "NCHW (new)", f"axis {AXES[axis]}", ms, 2 * total, cms, tms
            )
        for axis in range(4):
            check_scan(sl.cumulative_summation(x, axis, out=out_nhwc).view(), x, axis)
            ms = median_ms(lambda x=x, axis=axis: sl.cumulative_summation(x, axis, out=out_nhwc), reps)
            table.add("cumulative_summation", name, layout_in, "NHWC", f"axis {AXES[axis]}", ms, 2 * total)

    for strides in ((1, 2, 2, -2), (1, 1, 1, -1)):
        windows = tuple(slice(None, None, s) for s in strides)
        view = packed[windows]
        traffic = sector_bytes(view) + view.size * dtype.itemsize

        def run(strides=strides):
            return sl.slice1(packed, (0, 0, 0, 0), SHAPE, strides)

        check_equal(run(), view, f"slice1 {strides}")
        ms = median_ms(run, reps)
        cms = median_ms(lambda view=view: cupy.ascontiguousarray(view), reps)
        tms = None
        if torch and all(s > 0 for s in strides):
            tview = tpacked[:, :: strides[1], :: strides[2], :: strides[3]]
            tms = median_ms(lambda tview=tview: tview.contiguous(), reps)
        label = "strides (" + ",".join(str(s) for s in strides) + ")"
        table.add("slice1", name, "NCHW", "NCHW (new)", label, ms, traffic, cms, tms)

    out_nchw = sl.StridedTensor.empty(sl.TensorDesc(name, SHAPE), cupy)
    cases = (
        ("NCHW", packed, out_nhwc, "NHWC", lambda: cupy.ascontiguousarray(packed.transpose(0, 2, 3, 1)),
         (lambda: tpacked.contiguous(memory_format=torch.channels_last)) if torch else None),
        ("NHWC", nhwc(channels_last), out_nchw, "NCHW", lambda: cupy.ascontiguousarray(nhwc(channels_last)),
         (lambda: tlast.contiguous()) if torch else None),
    )  # fmt: skip
    for layout_in, x, out, layout_out, cupy_fn, torch_fn in cases:
        check_equal(sl.element_wise_identity(x, out).view(), x, f"element_wise_identity {layout_in}")
        ms = median_ms(lambda x=x, out=out: sl.element_wise_identity(x, out), reps)
        cms = median_ms(cupy_fn, reps)
        tms = median_ms(torch_fn, reps) if torch_fn else None
        table.add("element_wise_identity", name, layout_in, layout_out, "", ms, 2 * total, cms, tms)


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


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
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
    issue_us, ready_us = small_call_us()
    print(f"device: {device}; date: {datetime.date.today()}; shape {SHAPE}; median of {args.reps} runs")
    print("copy (device to device, same bytes): " + ", ".join(f"{k} {v:.0f} GB/s" for k, v in copy_gbps.items()))
    print(table.render(args.markdown))
    print(
        f"(1, 1, 3, 4) cumulative_summation wall time: {issue_us:.1f} us to issue, "
        f"{ready_us:.1f} us with the result ready"
    )


if __name__ == "__main__":
    main()
