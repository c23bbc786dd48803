"""How fast the memory-map views are built, and how much notebook output they leave.

For a 4096-element, a 1-million-element and a 67-million-element description (the last too
large for a memory map, drawn through a window of its first cells): the time to build a MemoryMapView's
data (memory map, layout, plain lists for the browser; median of several runs), the time to
render the static SVG, the time to display the view (its bundle: the static picture as SVG and
as a PNG painted by Pillow), and the bytes the view leaves in a notebook stored by
scripts/execute_notebooks.py (the bundle without the widget view). The browser's redraw time
after a control change is measured by tests/test_browser.py and read here from
test-artifacts/browser-redraw.json when present.

Goals: under 20 ms for 4096 elements; under 1 s and under 200 KB of output for a million;
under 1 s and under 300 KB for the windowed 67 million; under 100 ms to redraw.

Usage: python benchmarks/views.py
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

import stridelab as sl

CASES = [
    ("64 x 64 (HW)", sl.TensorDesc("FLOAT32", (64, 64))),
    (
        "1 x 4 x 512 x 512 (NHWC)",
        sl.TensorDesc("FLOAT32", (1, 4, 512, 512), sl.layout_strides("NHWC", (1, 4, 512, 512))),
    ),
    # more than a memory map is built for: drawn through a window, slots from the strides alone
    ("16 x 64 x 256 x 256 (NCHW)", sl.TensorDesc("FLOAT32", (16, 64, 256, 256))),
]
ARTIFACT = Path(__file__).resolve().parents[1] / "test-artifacts" / "browser-redraw.json"


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def output_bytes(view: sl.MemoryMapView) -> int:
    """Bytes a stored notebook holds for the view: its display bundle without the widget view."""
    data, _ = view._repr_mimebundle_()
    return len(json.dumps({mime: value for mime, value in data.items() if mime != WIDGET_VIEW}))


def main() -> None:
    sl.MemoryMapView(CASES[0][1])  # import and first-use costs out of the way
    print(f"{'description':<28} {'elements':>9} {'view data':>10} {'static SVG':>11} {'display':>10} {'output':>9}")
    for name, desc in CASES:
        repeat = 21 if desc.element_count <= 4096 else 5
        build = median_ms(lambda desc=desc: sl.MemoryMapView(desc), repeat)
        svg = median_ms(lambda desc=desc: sl.render_svg(desc), repeat)
        view = sl.MemoryMapView(desc)
        display = median_ms(view._repr_mimebundle_, 5)
        size = output_bytes(view)
        print(
            f"{name:<28} {desc.element_count:>9} {build:>7.1f} ms {svg:>8.1f} ms {display:>7.1f} ms"
            f" {size / 1000:>6.1f} KB"
        )
    if ARTIFACT.exists():
        redraw = json.loads(ARTIFACT.read_text())["redraw_ms"]
        print(f"browser redraw after a control change: {redraw:.1f} ms (from {ARTIFACT.name})")
    else:
        print("browser redraw: run `pytest -m browser tests/test_browser.py` to measure it")


if __name__ == "__main__":
    main()
