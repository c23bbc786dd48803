"""What a bare display in a notebook cell stores: a picture of at most 64 cells and slots, under
120 KB whatever is drawn, and no matplotlib import on the way (benchmarks/display.py times it)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import stridelab as sl

SVG = "{http://www.w3.org/2000/svg}"
M = 2**32 - 1
NHWC = sl.layout_strides("NHWC", (16, 64, 256, 256))

# the large cases, with the window halving the longest side (rounding up) gives
WINDOWED = [
    (sl.TensorDesc("FLOAT32", (1, 64, 56, 56)), [(0, 1), (0, 4), (0, 4), (0, 4)]),
    (sl.TensorDesc("FLOAT32", (1, 64, 56, 56)).memory_map(), [(0, 1), (0, 4), (0, 4), (0, 4)]),
    (sl.TensorDesc("FLOAT32", (4, 16, 128, 128)), [(0, 2), (0, 2), (0, 4), (0, 4)]),
    (sl.TensorDesc("FLOAT16", (16, 64, 256, 256), NHWC), [(0, 2), (0, 2), (0, 4), (0, 4)]),
]
# drawings far from the tutorials': offsets of 12 digits on every slot, 64 tiles of one cell
UNUSUAL = [
    sl.TensorDesc("UINT8", (M,), (M,)),
    sl.TensorDesc("INT64", (1, 64, 1, 1), (M, M - 7, 1, 1)),
    sl.TensorDesc("INT64", (64, 1, 1, 1), (M, 1, 1, 1)),
    sl.TensorDesc("FLOAT64", (M,) * 8, (1,) * 8),
    sl.StridedTensor.from_array(np.linspace(-1e-300, 1e300, 4096).reshape(64, 64)),
]


def stored_bytes(bundle: tuple[dict, dict]) -> int:
    data, metadata = bundle
    return len(json.dumps({"data": data, "metadata": metadata}))


def drawn(svg: str) -> tuple[list[tuple[int, ...]], int]:
    """The coordinates of the drawn cells, and how many slots are drawn."""
    groups = list(ET.fromstring(svg).iter(f"{SVG}g"))
    cells = [tuple(map(int, g.get("data-coords").split(","))) for g in groups if g.get("class") == "cell"]
    return cells, sum((g.get("class") or "").startswith("slot ") for g in groups)


def png_size(data: dict) -> tuple[int, int]:
    from PIL import Image

    return Image.open(io.BytesIO(__import__("base64").b64decode(data["image/png"]))).size


@pytest.mark.parametrize(("obj", "window"), WINDOWED, ids=lambda v: str(v)[:40])
def test_a_large_description_shows_a_window_of_64_cells_in_under_120_kb(obj, window):
    bundle = obj._repr_mimebundle_()
    data, metadata = bundle
    cells, slots = drawn(data["image/svg+xml"])
    expected = {
        tuple(s + i for s, i in zip((a for a, _ in window), index)) for index in np.ndindex(*[n for _, n in window])
    }
    assert len(cells) == 64 and set(cells) == expected
    assert slots == 64  # the slots of the 64 cells, none shared
    assert stored_bytes(bundle) < 120_000
    if "image/png" in data:  # with Pillow: twice the drawing's size
        size = metadata["image/png"]
        assert png_size(data) == (2 * size["width"], 2 * size["height"])


@pytest.mark.parametrize("obj", UNUSUAL, ids=lambda v: str(v)[:40])
def test_any_drawing_stores_under_120_kb(obj):
    bundle = obj._repr_mimebundle_()
    cells, slots = drawn(bundle[0]["image/svg+xml"])
    assert len(cells) <= 64 and slots <= 64
    assert stored_bytes(bundle) < 120_000


def test_a_drawing_too_large_for_a_sharp_png_stores_one_at_its_own_size():
    pytest.importorskip("PIL")
    data, metadata = sl.TensorDesc("INT64", (1, 64, 1, 1), (M, M - 7, 1, 1))._repr_mimebundle_()
    size = metadata["image/png"]
    assert png_size(data) == (size["width"], size["height"])


@pytest.mark.parametrize(
    ("obj", "count"),
    [
        (sl.TensorDesc("FLOAT32", (2, 3)), 6),
        (sl.TensorDesc("FLOAT32", (1, 3, 4, 5), sl.layout_strides("NHWC", (1, 3, 4, 5))), 60),
        (sl.StridedTensor.from_array(np.arange(24, dtype=np.float32).reshape(2, 3, 4)), 24),
    ],
    ids=["2x3", "1x3x4x5 NHWC", "2x3x4 tensor"],
)
def test_small_ones_are_drawn_whole(obj, count):
    data, _ = obj._repr_mimebundle_()
    cells, slots = drawn(data["image/svg+xml"])
    assert len(cells) == count and slots == count
    assert "to see more" not in data["image/svg+xml"]


def test_the_hint_is_under_the_picture():
    svg = sl.TensorDesc("FLOAT32", (1, 64, 56, 56))._repr_mimebundle_()[0]["image/svg+xml"]
    root = ET.fromstring(svg)
    hint = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "hint")
    lowest_box = max(int(r.get("y")) + int(r.get("height")) for r in root.iter(f"{SVG}rect") if r.get("y"))
    assert min(int(t.get("y")) for t in hint) > lowest_box
    assert int(root.get("height")) > max(int(t.get("y")) for t in hint)


def test_a_display_imports_neither_matplotlib_nor_pyplot():
    code = (
        "import sys, stridelab as sl\n"
        "data, _ = sl.TensorDesc('FLOAT32', (1, 64, 56, 56))._repr_mimebundle_()\n"
        "assert 'matplotlib' not in sys.modules, 'matplotlib imported'\n"
        "print(sorted(data))\n"
    )
    root = str(Path(sl.__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    pytest.importorskip("PIL")
    assert done.stdout == "['image/png', 'image/svg+xml', 'text/plain']\n"
