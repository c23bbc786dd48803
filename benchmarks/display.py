"""What a bare display in a notebook cell costs: the time of ``obj._repr_mimebundle_()`` and the
bytes the notebook stores for it, for descriptions, a strided tensor and a memory map of every size.

Warm: the median of ``--repeats`` calls after one call not counted. First display: ``import
stridelab`` then the first display of a process, each in a new Python process (median of
``--fresh`` processes), timed from the call to its return (the import timed apart). Stored bytes:
the output as a notebook stores it (``{"data": ..., "metadata": ...}`` as JSON), with the SVG and
the PNG (base64) apart.

Goals (issue 25): at most 0.25 s warm, at most 1 s for the first display, under 120 KB stored.

Usage: PYTHONPATH=src python benchmarks/display.py [--repeats 5] [--fresh 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

import numpy as np

import stridelab as sl

CASES = {
    'TensorDesc("FLOAT32", (2, 3))': 'sl.TensorDesc("FLOAT32", (2, 3))',
    "1x3x4x5 NHWC": 'sl.TensorDesc("FLOAT32", (1, 3, 4, 5), sl.layout_strides("NHWC", (1, 3, 4, 5)))',
    "(1, 64, 56, 56)": 'sl.TensorDesc("FLOAT32", (1, 64, 56, 56))',
    "(4, 16, 128, 128)": 'sl.TensorDesc("FLOAT32", (4, 16, 128, 128))',
    "(16, 64, 256, 256) NHWC FLOAT16": (
        'sl.TensorDesc("FLOAT16", (16, 64, 256, 256), sl.layout_strides("NHWC", (16, 64, 256, 256)))'
    ),
    "a 2x3x4 StridedTensor": "sl.StridedTensor.from_array(np.arange(24, dtype=np.float32).reshape(2, 3, 4))",
    "the memory map of (1, 64, 56, 56)": 'sl.TensorDesc("FLOAT32", (1, 64, 56, 56)).memory_map()',
}

_FRESH = r"""
import json, time
start = time.perf_counter()
import numpy as np
import stridelab as sl
imported = time.perf_counter()
obj = {expr}
called = time.perf_counter()
obj._repr_mimebundle_()
done = time.perf_counter()
print(json.dumps([imported - start, done - called]))
"""


def stored(bundle: tuple[dict, dict]) -> dict[str, int]:
    data, metadata = bundle
    return {
        "total": len(json.dumps({"data": data, "metadata": metadata})),
        "svg": len(data.get("image/svg+xml", "")),
        "png": len(data.get("image/png", "")),
    }


def warm(obj: object, repeats: int) -> float:
    obj._repr_mimebundle_()  # type: ignore[attr-defined]
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        obj._repr_mimebundle_()  # type: ignore[attr-defined]
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def fresh(expr: str, runs: int) -> tuple[float, float]:
    """Median import time and median first-display time over ``runs`` new processes."""
    results = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", _FRESH.format(expr=expr)], capture_output=True, text=True, check=True
        ).stdout
        results.append(json.loads(out))
    return statistics.median(r[0] for r in results), statistics.median(r[1] for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--fresh", type=int, default=5)
    args = parser.parse_args()
    print("| object | warm s | stored KB | SVG KB | PNG KB (base64) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, expr in CASES.items():
        obj = eval(expr, {"sl": sl, "np": np})
        sizes = stored(obj._repr_mimebundle_())
        seconds = warm(obj, args.repeats)
        kb = {key: f"{value / 1000:.0f}" for key, value in sizes.items()}
        print(f"| {name} | {seconds:.3f} | {kb['total']} | {kb['svg']} | {kb['png']} |")
    print()
    print("| first display in a fresh process | import stridelab s | first display s |")
    print("| --- | ---: | ---: |")
    for name in ('TensorDesc("FLOAT32", (2, 3))', "(1, 64, 56, 56)"):
        imported, first = fresh(CASES[name], args.fresh)
        print(f"| {name} | {imported:.3f} | {first:.3f} |")


if __name__ == "__main__":
    main()
