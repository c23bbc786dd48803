"""Drawings of a description placed at an offset into its buffer (``PlacedDesc``): the slots before
the tensor drawn as unused, every offset the buffer's.

Expected offsets, bytes and labels are worked out by hand in the comments (element ``c`` of a
description placed at ``k`` lies at buffer element ``k + dot(c, strides)``), never computed by the
code under test.
"""

from __future__ import annotations

import io
import tracemalloc
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image

import stridelab as sl
from stridelab.render.options import DrawOptions
from stridelab.render.png import pictures_png
from stridelab.render.scene import build_scene, scene_for
from stridelab.render.text import render_text

SVG = "{http://www.w3.org/2000/svg}"
HATCH = "url(#stridelab-hatch)"
PLACED = sl.TensorDesc.parse_placed("FLOAT32 (2,3):(3,1) +5")
PADDING_FILL, PADDING_HATCH = (0xDD, 0xDD, 0xDD), (0x77, 0x77, 0x77)
LIGHT_BLUE = (0x77, 0xAA, 0xDD)  # the first fill: row 0's


def groups(svg: str, cls: str) -> list[ET.Element]:
    return [g for g in ET.fromstring(svg).iter(f"{SVG}g") if (g.get("class") or "").split()[:1] == [cls]]


def slots(svg: str) -> list[tuple[int, str, str, int]]:
    """(buffer offset, kind, label, byte offset) of every drawn slot, in strip order."""
    return [
        (int(g.get("data-slot")), g.get("class").split()[1], g.get("data-label"), int(g.get("data-byte")))
        for g in groups(svg, "slot")
    ]


def test_the_slots_before_the_offset_are_drawn_unused_and_the_tensor_after_them():
    svg = sl.render_svg(PLACED)
    # FLOAT32 (2,3):(3,1) +5: buffer elements 0..4 before it, then A..F at 5..10 (4 bytes each)
    expected = [(i, "before", "-", 4 * i) for i in range(5)]
    expected += [(5 + i, "element", "ABCDEF"[i], 4 * (5 + i)) for i in range(6)]
    assert slots(svg) == expected
    hatched = [int(g.get("data-slot")) for g in groups(svg, "slot") if g.find(f"{SVG}rect").get("fill") == HATCH]
    assert hatched == [0, 1, 2, 3, 4]
    cells = {g.get("data-coords"): (int(g.get("data-slot")), g.get("data-label")) for g in groups(svg, "cell")}
    assert cells == {
        "0,0": (5, "A"),
        "0,1": (6, "B"),
        "0,2": (7, "C"),
        "1,0": (8, "D"),
        "1,1": (9, "E"),
        "1,2": (10, "F"),
    }
    assert not groups(svg, "gap")  # 5 + 6 slots fit the drawing's 64
    buffer = next(g for g in ET.fromstring(svg).iter(f"{SVG}g") if g.get("class") == "buffer")
    assert (buffer.get("data-slots"), buffer.get("data-offset")) == ("11", "5")


def test_the_offsets_above_and_below_the_slots_are_the_buffers():
    scene = build_scene(PLACED)
    above = [t.text for t in scene.slot_texts() if t.role == "offset"]
    below = [t.text for t in scene.slot_texts() if t.role == "byte"]
    assert above == [str(i) for i in range(11)]
    assert below == ["0", "4", "8", "12", "16", "20", "24", "28", "32", "36", "40"]


def test_the_header_says_where_the_tensor_starts_and_the_legend_names_the_slots_before_it():
    scene = build_scene(PLACED)
    # 5 elements of 4 bytes: byte 20; the tensor's 24 bytes end at byte 44
    line = "starts at element 5, byte 20 of its buffer · a buffer of at least 44 bytes holds it"
    assert [t.text for t in scene.texts if t.role == "detail"][-1] == line
    assert line in scene.title
    assert [name for _, _, name in scene.legend] == ["before"]
    assert "- before the tensor (its offset)" in [t.text for t in scene.texts if t.role == "legend"]
    svg = sl.render_svg(PLACED)
    assert svg.count('class="legend-before"') == 1


def test_padding_after_the_offset_keeps_its_own_kind():
    # FLOAT32 (2,3):(4,1) +2: 0, 1 before; A B C at 2..4, padding at 5, D E F at 6..8
    svg = sl.render_svg(sl.TensorDesc("FLOAT32", (2, 3), (4, 1)).placed(2))
    assert [(offset, kind, label) for offset, kind, label, _ in slots(svg)] == [
        (0, "before", "-"),
        (1, "before", "-"),
        (2, "element", "A"),
        (3, "element", "B"),
        (4, "element", "C"),
        (5, "padding", "x"),
        (6, "element", "D"),
        (7, "element", "E"),
        (8, "element", "F"),
    ]
    assert [name for _, _, name in build_scene(sl.TensorDesc("FLOAT32", (2, 3), (4, 1)).placed(2)).legend] == [
        "before",
        "padding",
    ]


def test_a_large_offset_is_drawn_with_a_gap_and_no_allocation_per_skipped_slot():
    placed = sl.TensorDesc("FLOAT32", (2, 3)).placed(2**40)
    build_scene(placed)  # imports and caches out of the measurement
    tracemalloc.start()
    try:
        svg = sl.render_svg(placed)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20  # a slot per skipped element would be 2**40 of them
    gaps = groups(svg, "gap")
    # the last four slots before the tensor drawn, the 2**40 - 4 before those one gap
    assert [g.get("data-skipped") for g in gaps] == [str(2**40 - 4)]
    drawn = slots(svg)
    assert [(o, kind) for o, kind, _, _ in drawn[:5]] == [
        (1099511627772, "before"),
        (1099511627773, "before"),
        (1099511627774, "before"),
        (1099511627775, "before"),
        (1099511627776, "element"),
    ]
    assert drawn[4][3] == 4398046511104  # 2**40 elements of 4 bytes: 2**42
    assert drawn[-1][:3] == (1099511627781, "element", "F")
    assert "starts at element 1099511627776, byte 4398046511104 of its buffer" in svg


def test_an_offset_at_the_uint64_limit_is_counted_exactly():
    # UINT8 (2,3) needs 8 bytes (6 rounded up to 4's); the largest offset leaves them below 2**64
    offset = 2**64 - 1 - 8
    scene = build_scene(sl.TensorDesc("UINT8", (2, 3)).placed(offset))
    above = [t.text for t in scene.slot_texts() if t.role == "offset"]
    assert above[0] == "18446744073709551603" and above[-1] == "18446744073709551614"  # 2**64 - 13 .. 2**64 - 2
    assert scene.gaps[0][2] == offset - 4
    assert "a buffer of at least 18446744073709551615 bytes holds it" in scene.title  # 2**64 - 1


def test_a_windowed_drawing_at_an_offset_draws_a_few_slots_before_the_tensor():
    # 300 x 300 with rows of 400, at most 16 cells: a 3 x 5 window, its 15 slots; the 7 slots
    # before the tensor do not fit the one left, so they show as a gap of 3 and the last 4
    placed = sl.TensorDesc("FLOAT32", (300, 300), (400, 1)).placed(7)
    svg = sl.render_svg(placed, max_cells=16)
    assert groups(svg, "gap")[0].get("data-skipped") == "3"
    assert [(o, kind) for o, kind, _, _ in slots(svg)[:5]] == [
        (3, "before"),
        (4, "before"),
        (5, "before"),
        (6, "before"),
        (7, "element"),
    ]
    assert "showing 15 of 90000 logical elements" in svg
    assert "to see more: sl.render_svg(obj, max_cells=64)" in svg


def test_a_description_too_large_for_a_memory_map_is_drawn_at_its_offset():
    placed = sl.TensorDesc("UINT8", (2**20, 2**12), (2**12 + 7, 1)).placed(10)
    drawn = slots(sl.render_svg(placed))
    # element (0, 0) at buffer element 10, (0, 1) at 11
    assert [(o, kind) for o, kind, _, _ in drawn[:6]] == [
        (6, "before"),
        (7, "before"),
        (8, "before"),
        (9, "before"),
        (10, "element"),
        (11, "element"),
    ]


DESCS = [
    sl.TensorDesc("FLOAT32", (2, 3), (5, 1)),
    sl.TensorDesc("FLOAT16", (1, 3, 2, 2), (12, 1, 6, 3)),
    sl.TensorDesc("UINT8", (3,)),
    sl.TensorDesc("FLOAT32", (300, 300), (400, 1)),
]


@pytest.mark.parametrize("desc", DESCS, ids=str)
def test_offset_0_draws_exactly_what_the_description_draws(desc):
    placed = desc.placed(0)
    assert sl.render_svg(placed) == sl.render_svg(desc)
    assert render_text(placed) == render_text(desc)
    assert pictures_png([build_scene(placed)], [""]) == pictures_png([build_scene(desc)], [""])
    assert build_scene(placed).offset == 0
    assert "starts at" not in sl.render_svg(desc) and "before" not in sl.render_svg(desc)


def test_the_text_form_counts_the_buffers_offsets():
    text = render_text(PLACED)
    assert text.splitlines()[2] == "starts at element 5, byte 20 of its buffer · a buffer of at least 44 bytes holds it"
    assert text.splitlines()[-4:] == [
        "buffer (element offsets above, values below; x = padding, - = before the tensor):",
        "Offset:|0|1|2|3|4|5|6|7|8|9|10",
        "------:|-|-|-|-|-|-|-|-|-|-|--",
        " Value:|-|-|-|-|-|A|B|C|D|E| F",
    ]
    big = render_text(sl.TensorDesc("UINT8", (2,)).placed(1000))
    # UINT8 (2) rounds up to 4 bytes: A B at 1000, 1001, alignment at 1002, 1003
    assert big.splitlines()[-3:] == [
        "Offset:|   …|996|997|998|999|1000|1001|1002|1003",
        "------:|----|---|---|---|---|----|----|----|----",
        " Value:|+996|  -|  -|  -|  -|   A|   B|   .|   .",
    ]


def test_the_png_opens_and_hatches_the_slots_before_the_tensor():
    svg = sl.render_svg(PLACED)
    image = Image.open(io.BytesIO(pictures_png([build_scene(PLACED)], [""])))
    assert image.format == "PNG"
    root = ET.fromstring(svg)
    assert image.size == (2 * int(root.get("width")), 2 * int(root.get("height")))
    pixels = np.asarray(image.convert("RGB"))
    boxes = {}
    for g in groups(svg, "slot"):
        r = g.find(f"{SVG}rect")
        boxes[g.get("data-slot")] = tuple(int(r.get(a)) for a in ("x", "y", "width", "height"))

    def inside(slot: str) -> np.ndarray:
        x, y, w, h = boxes[slot]
        return pixels[2 * (y + 2) : 2 * (y + h - 2), 2 * (x + 2) : 2 * (x + w - 2)].reshape(-1, 3)

    def share(box: np.ndarray, colour: tuple[int, int, int]) -> float:
        return float(np.all(box == colour, axis=-1).mean())

    for slot in ("0", "4"):  # before the tensor: grey with dark hatch lines
        assert share(inside(slot), PADDING_FILL) > 0.4 and share(inside(slot), PADDING_HATCH) > 0.01
    assert share(inside("5"), LIGHT_BLUE) > 0.6  # A, row 0's colour


def test_a_placed_desc_shows_in_jupyter_as_its_picture():
    data, metadata = PLACED._repr_mimebundle_()
    assert sorted(data) == ["image/png", "image/svg+xml", "text/plain"]
    assert data["text/plain"] == "PlacedDesc(desc=TensorDesc('FLOAT32', sizes=(2, 3), strides=(3, 1)), offset=5)"
    assert data["image/svg+xml"] == sl.render_svg(PLACED)
    root = ET.fromstring(data["image/svg+xml"])
    assert metadata["image/png"] == {"width": int(root.get("width")), "height": int(root.get("height"))}


def test_placed_desc_is_public():
    assert sl.PlacedDesc is type(PLACED)
    assert "PlacedDesc" in sl.__all__
    assert sl.PlacedDesc(sl.TensorDesc("FLOAT32", (2, 3)), 5) == PLACED


def test_the_drawings_refuse_a_negative_offset_by_name():
    with pytest.raises(sl.LayoutError, match="offset"):
        scene_for(sl.TensorDesc("FLOAT32", (2, 3)), DrawOptions(), offset=-1)
