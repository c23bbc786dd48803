"""The first GPU call in a fresh environment: how long a user waits while its kernels compile.

Each case runs in a new Python process with ``CUPY_CACHE_DIR`` a new empty folder (nothing
compiled, as in a fresh container), CuPy imported and the input already on the device; the time is
from the call to ``synchronize()`` after it, then the same for a second call. For reference, the
same run times compiling each CUDA file whole (every template instantiation one operator needs, in
one module), which is what a first call cost before kernels were compiled one variant at a time. Goals: a first
cumulative summation under 2 s, a first slice under 1 s.

Usage: PYTHONPATH=src python3 benchmarks/cold_start.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

CALLS = {
    "cumulative_summation FLOAT32 (1,1,3,4) axis 3": "sl.cumulative_summation(x, 3)",
    "cumulative_summation FLOAT16 (16,64,256,256) axis 1": "sl.cumulative_summation(big, 1)",
    "cumulative_product FLOAT32 (1,1,3,4) axis 3": "sl.cumulative_product(x, 3)",
    "slice1 FLOAT32 (1,1,4,4), the page's example 2": "sl.slice1(x4, (0, 0, 0, 1), (1, 1, 4, 3), (1, 1, -2, 2))",
    "element_wise_identity FLOAT32 NCHW -> NHWC (16,64,256,256)": "sl.element_wise_identity(big32, nhwc)",
}

_CASE = r"""
import json, time, cupy, numpy as np, stridelab as sl
x = cupy.asarray(np.array([[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]], dtype=np.float32))
x4 = cupy.arange(1, 17, dtype=cupy.float32).reshape(1, 1, 4, 4)
big = cupy.ones((16, 64, 256, 256), dtype=cupy.float16)
big32 = cupy.ones((16, 64, 256, 256), dtype=cupy.float32)
nhwc = sl.StridedTensor.empty(sl.TensorDesc("FLOAT32", big32.shape, sl.layout_strides("NHWC", big32.shape)), cupy)
cupy.cuda.Device().synchronize()
times = []
for _ in range(2):
    start = time.perf_counter()
    CALL
    cupy.cuda.Device().synchronize()
    times.append(time.perf_counter() - start)
print(json.dumps(times))
"""

_WHOLE = r"""
import json, time, cupy
from stridelab.ops._precompile import kernel_names
from stridelab.ops.cupy import runtime
from stridelab.ops.cupy.geometry import KERNEL_FILES, template_of
start = time.perf_counter()
names = [n for n in kernel_names(@OPERATORS@) if KERNEL_FILES[template_of(n)] == "@FILE@"]
module = cupy.RawModule(code=runtime._source("@FILE@"), options=runtime._NVRTC_OPTIONS, name_expressions=names)
module.get_function(names[0])
print(json.dumps([time.perf_counter() - start, len(names)]))
"""


def fresh(code: str) -> list:
    """Run ``code`` in a new process with an empty CuPy kernel cache; its printed JSON."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "CUPY_CACHE_DIR": cache}
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    print("| first call in a fresh process, empty kernel cache | first call s | second call ms |")
    print("| --- | ---: | ---: |")
    for case, call in CALLS.items():
        first, second = fresh(_CASE.replace("CALL", call))
        print(f"| {case} | {first:.2f} | {second * 1e3:.2f} |")
    print()
    print("| reference: a CUDA file compiled whole, for one operator's kernels | seconds | instantiations |")
    print("| --- | ---: | ---: |")
    for file, operators in (
        ("scan_lines.cu", ["cumulative_summation"]),
        ("scan_cols.cu", ["cumulative_summation"]),
        ("scan_tiles.cu", ["cumulative_summation"]),
        ("copy.cu", ["slice1"]),
    ):
        seconds, count = fresh(_WHOLE.replace("@FILE@", file).replace("@OPERATORS@", repr(operators)))
        print(f"| {file} ({operators[0]}) | {seconds:.2f} | {count} |")


if __name__ == "__main__":
    main()
