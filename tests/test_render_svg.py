"""The SVG drawings against the examples of DirectML's strides page, cell by cell.

Expected offsets and labels are literals copied from the page (dml-strides-padding-layout.md),
never computed by the code under test.
"""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stridelab as sl
from stridelab.render.palette import fills_for
from stridelab.render.scene import build_scene

SVG = "{http://www.w3.org/2000/svg}"
HATCH = "url(#stridelab-hatch)"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def cells(svg: str) -> dict[tuple[int, ...], tuple[int, str]]:
    """Logical coordinates -> (buffer offset, label) of every drawn cell."""
    out = {}
    for g in parse(svg).iter(f"{SVG}g"):
        if g.get("class") == "cell":
            coords = tuple(int(c) for c in g.get("data-coords").split(","))
            label = g.find(f"{SVG}text").text
            assert label == g.get("data-label")
            out[coords] = (int(g.get("data-slot")), label)
    return out


def slots(svg: str) -> dict[int, tuple[str, str, int, int]]:
    """Buffer offset -> (kind, label, elements sharing it, byte offset) of every drawn slot."""
    out = {}
    for g in parse(svg).iter(f"{SVG}g"):
        cls = (g.get("class") or "").split()
        if cls[:1] == ["slot"]:
            label = g.find(f"{SVG}text").text
            assert label == g.get("data-label")
            out[int(g.get("data-slot"))] = (cls[1], label, int(g.get("data-count")), int(g.get("data-byte")))
    return out


def hatched(svg: str) -> list[int]:
    return sorted(
        int(g.get("data-slot"))
        for g in parse(svg).iter(f"{SVG}g")
        if (g.get("class") or "").startswith("slot") and g.find(f"{SVG}rect").get("fill") == HATCH
    )


def texts(svg: str) -> list[str]:
    return [t.text for t in parse(svg).iter(f"{SVG}text")]


def labels_by_offset(svg: str) -> list[str]:
    return [label for _, (_, label, _, _) in sorted(slots(svg).items())]


# -- the page's examples ----------------------------------------------------------------------


def test_row_major_2d_matches_the_page():
    svg = sl.render_svg(sl.TensorDesc("FLOAT32", (2, 3)))
    # "Offset: 0 1 2 3 4 5 / Value: A B C D E F"; logical view "A B C / D E F"
    assert labels_by_offset(svg) == ["A", "B", "C", "D", "E", "F"]
    assert cells(svg) == {
        (0, 0): (0, "A"),
        (0, 1): (1, "B"),
        (0, 2): (2, "C"),
        (1, 0): (3, "D"),
        (1, 1): (4, "E"),
        (1, 2): (5, "F"),
    }
    assert "layout HW" in " ".join(texts(svg))
    assert [s[0] for s in slots(svg).values()] == ["element"] * 6


def test_column_major_2d_matches_the_page():
    svg = sl.render_svg(sl.TensorDesc("FLOAT32", (2, 3), (1, 2)))
    # "height-stride is always 1, and the width-stride is 2": Value A D B E C F
    assert labels_by_offset(svg) == ["A", "D", "B", "E", "C", "F"]
    assert cells(svg) == {
        (0, 0): (0, "A"),
        (0, 1): (2, "B"),
        (0, 2): (4, "C"),
        (1, 0): (1, "D"),
        (1, 1): (3, "E"),
        (1, 2): (5, "F"),
    }
    assert "layout WH" in " ".join(texts(svg))


def test_dhw_3d_matches_the_page():
    svg = sl.render_svg(sl.TensorDesc("FLOAT32", (2, 2, 3), (6, 3, 1)))
    assert labels_by_offset(svg) == list("ABCDEFGHIJKL")
    drawn = cells(svg)
    assert len(drawn) == 12
    assert drawn[(1, 0, 1)] == (7, "H")  # "the offset of the H element (d=1, h=0, w=1) is 7"
    assert drawn[(1, 0, 0)] == (6, "G")  # D-stride 6: the distance between 'A' and 'G'
    assert drawn[(0, 1, 0)] == (3, "D")  # H-stride 3: the distance between 'A' and 'D'
    assert drawn[(0, 0, 1)] == (1, "B")  # W-stride 1
    words = texts(svg)
    assert "(0, :, :)" in words and "(1, :, :)" in words  # one labelled tile per depth
    assert "layout DHW" in " ".join(words)


def test_broadcast_height_stride_0_matches_the_page():
    svg = sl.render_svg(sl.TensorDesc("FLOAT32", (2, 3), (0, 1)))
    # logical "A B C / A B C" stored in 3 elements
    assert cells(svg) == {
        (0, 0): (0, "A"),
        (0, 1): (1, "B"),
        (0, 2): (2, "C"),
        (1, 0): (0, "A"),
        (1, 1): (1, "B"),
        (1, 2): (2, "C"),
    }
    assert slots(svg) == {0: ("shared", "A", 2, 0), 1: ("shared", "B", 2, 4), 2: ("shared", "C", 2, 8)}
    assert texts(svg).count("×2") == 3
    summary = " ".join(texts(svg))
    assert "broadcast" in summary and "6 logical elements" in summary and "3 physical slots" in summary


def test_padded_height_stride_5_matches_the_page():
    # "0..9 / A B C x x D E F x x": 10 slots of which 4 are padding (FLOAT32: 40 bytes)
    svg = sl.render_svg(sl.TensorDesc("FLOAT32", (2, 3), (5, 1), total_tensor_size_in_bytes=40))
    assert labels_by_offset(svg) == ["A", "B", "C", "x", "x", "D", "E", "F", "x", "x"]
    assert hatched(svg) == [3, 4, 8, 9]
    assert cells(svg) == {
        (0, 0): (0, "A"),
        (0, 1): (1, "B"),
        (0, 2): (2, "C"),
        (1, 0): (5, "D"),
        (1, 1): (6, "E"),
        (1, 2): (7, "F"),
    }
    assert {k for k, (kind, *_) in slots(svg).items() if kind == "padding"} == {3, 4, 8, 9}


@pytest.mark.parametrize(
    ("strides", "layout", "shown"),
    [(None, "NCHW", "strides [15, 15, 5, 1]"), ((15, 1, 5, 1), "NHWC", "strides [15, 1, 5, 1]")],
)
def test_nchw_and_nhwc_of_1_1_3_5_match_the_page(strides, layout, shown):
    svg = sl.render_svg(sl.TensorDesc("FLOAT32", (1, 1, 3, 5), strides))
    words = " ".join(texts(svg))
    assert shown in words and f"layout {layout}" in words and "sizes [1, 1, 3, 5]" in words
    assert "packed" in words and "15 logical elements" in words and "15 physical slots" in words
    assert "buffer 60 bytes" in words  # 15 FLOAT32 elements
    drawn = cells(svg)
    assert len(drawn) == 15
    assert drawn[(0, 0, 0, 0)] == (0, "A")
    assert drawn[(0, 0, 1, 0)] == (5, "F")  # H-stride 5
    assert drawn[(0, 0, 2, 1)] == (11, "L")
    assert drawn[(0, 0, 2, 4)] == (14, "O")
    assert labels_by_offset(svg) == list("ABCDEFGHIJKLMNO")
    assert "(0, 0, :, :)" in texts(svg)


@pytest.mark.parametrize(
    ("sizes", "strides", "name"),
    [
        ((1, 1, 4, 4), (1, 1, 4, 1), "NCHW"),  # a size-1 dimension's stride never matters
        ((1, 3, 2, 2), (12, 1, 6, 3), "NHWC"),
        ((2, 3, 4), (1, 2, 6), "WHD"),
        ((1, 3, 2, 2), (24, 8, 4, 1), "NCHW"),  # padded after each channel's H x W plane
        ((2, 3), (1, 1), None),  # overlapping
        ((6,), (1,), None),
    ],
)
def test_layout_names(sizes, strides, name):
    from stridelab.render.summary import layout_name

    assert layout_name(sl.TensorDesc("FLOAT32", sizes, strides)) == name


def test_alignment_slots_are_marked_apart_from_padding():
    # 6 UINT8 elements need 6 bytes; DirectML rounds the buffer up to 8
    svg = sl.render_svg(sl.TensorDesc("UINT8", (2, 3)))
    drawn = slots(svg)
    assert [drawn[i][0] for i in (6, 7)] == ["alignment", "alignment"]
    assert [drawn[i][1] for i in (6, 7)] == [".", "."]
    assert hatched(svg) == []
    rect = next(g for g in parse(svg).iter(f"{SVG}g") if g.get("data-slot") == "7").find(f"{SVG}rect")
    assert rect.get("stroke-dasharray")


def test_byte_offsets_follow_the_element_size():
    svg = sl.render_svg(sl.TensorDesc("FLOAT16", (2, 3), (5, 1)))
    assert [b for _, (_, _, _, b) in sorted(slots(svg).items())] == [0, 2, 4, 6, 8, 10, 12, 14]


# -- what every drawing must have ---------------------------------------------------------------


def test_each_cell_shares_colour_and_label_with_its_slot():
    svg = sl.render_svg(sl.TensorDesc("FLOAT32", (1, 3, 2, 2), (12, 1, 6, 3)))
    fills = {}
    for g in parse(svg).iter(f"{SVG}g"):
        if (g.get("class") or "").startswith("slot"):
            fills[int(g.get("data-slot"))] = (g.find(f"{SVG}rect").get("fill"), g.get("data-label"))
    for g in parse(svg).iter(f"{SVG}g"):
        if g.get("class") == "cell":
            assert (g.find(f"{SVG}rect").get("fill"), g.get("data-label")) == fills[int(g.get("data-slot"))]


def test_output_is_deterministic_and_self_contained():
    desc = sl.TensorDesc("FLOAT32", (2, 2, 3), (6, 3, 1))
    svg = sl.render_svg(desc)
    assert svg == sl.render_svg(sl.TensorDesc("FLOAT32", (2, 2, 3), (6, 3, 1)))
    for shown in (desc, desc.memory_map()):
        data, _ = shown._repr_mimebundle_()
        assert data["image/svg+xml"] == svg and "text/html" not in data
    assert "0x" not in svg
    ids = [e.get("id") for e in parse(svg).iter() if e.get("id")]
    assert ids == ["stridelab-hatch"]
    background = parse(svg).find(f"{SVG}rect")
    assert background.get("class") == "background" and background.get("fill") == "#FFFFFF"


def test_labels_agree_with_the_memory_map_table():
    desc = sl.TensorDesc("UINT8", (2, 3), (5, 1))
    assert labels_by_offset(sl.render_svg(desc)) == desc.memory_map().slot_labels()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 4), st.integers(0, 7)), min_size=1, max_size=4),
    st.sampled_from(["FLOAT32", "UINT8", "FLOAT16"]),
)
def test_scene_agrees_with_the_memory_map_everywhere(dims, data_type):
    desc = sl.TensorDesc(data_type, [n for n, _ in dims], [s for _, s in dims])
    m = desc.memory_map()
    scene = build_scene(desc, max_cells=10_000)
    assert scene.slot_offsets.tolist() == list(range(m.slot_count))
    assert list(scene.slot_labels) == m.slot_labels()
    assert scene.slot_counts.tolist() == m.slot_counts.tolist()
    offsets = [m.offsets[tuple(c)] for c in scene.cell_coords.tolist()]
    assert scene.slot_offsets[scene.cell_slot].tolist() == offsets
    assert scene.cell_count == desc.element_count


def test_strided_tensor_cells_show_buffer_values():
    t = sl.StridedTensor.from_array(np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::2])
    svg = sl.render_svg(t)
    assert {c: label for c, (_, label) in cells(svg).items()} == {
        (0, 0): "0",
        (0, 1): "2",
        (1, 0): "4",
        (1, 1): "6",
        (2, 0): "8",
        (2, 1): "10",
    }
    assert hatched(svg) == [1, 3, 5, 7, 9]
    assert svg == t._repr_mimebundle_()[0]["image/svg+xml"]


def test_float_values_are_short():
    t = sl.StridedTensor.from_array(np.array([0.1, 1 / 3, 12345.678], dtype=np.float32))
    assert labels_by_offset(sl.render_svg(t)) == ["0.1", "0.3333", "1.235e+04"]


# -- large and high-rank descriptions ---------------------------------------------------------


def test_large_maps_are_windowed_and_say_so():
    svg = sl.render_svg(sl.TensorDesc("FLOAT32", (64, 64)))
    drawn = cells(svg)
    assert len(drawn) == 64
    assert set(drawn) == {(r, c) for r in range(8) for c in range(8)}
    assert "showing 64 of 4096 logical elements: the window [0:8, 0:8]" in texts(svg)
    shown = slots(svg)
    assert len(shown) <= 64
    assert all(slot in shown for slot, _ in drawn.values())
    gaps = [g for g in parse(svg).iter(f"{SVG}g") if g.get("class") == "gap"]
    assert gaps and int(gaps[0].get("data-skipped")) == 64 - 8  # row 0 ends at slot 7, row 1 starts at 64
    # under the picture: how to see more
    hint = next(g for g in parse(svg).iter(f"{SVG}g") if g.get("class") == "hint")
    assert [t.text for t in hint] == [
        "to see more: sl.render_svg(obj, max_cells=256) draws up to 256 cells,",
        "start=(...) moves the window, sl.MemoryMapView(obj) explores it live",
    ]


def test_a_drawing_of_everything_has_no_hint():
    assert not any(t.startswith("to see more") for t in texts(sl.render_svg(sl.TensorDesc("FLOAT32", (8, 8)))))


def test_a_million_elements_render_small():
    svg = sl.render_svg(sl.TensorDesc("FLOAT32", (1, 4, 512, 512)))
    assert len(svg) < 60_000
    assert set(cells(svg)) == {(0, c, h, w) for c in range(4) for h in range(4) for w in range(4)}


def test_too_large_for_a_map_is_drawn_through_a_window_of_its_first_cells():
    desc = sl.TensorDesc("FLOAT32", (4096, 4096), (4100, 1))  # 16M elements, 4 padding slots after each row
    svg = sl.render_svg(desc)
    drawn = cells(svg)
    assert len(drawn) == 64 and drawn[(0, 0)] == (0, "0") and drawn[(1, 0)] == (4100, "4096")
    notes = " ".join(texts(svg))
    assert "16777216 logical elements are more than the 4000000 a memory map is built for" in notes
    assert "padded · 16777216 logical elements" in notes
    assert "(padding or elements outside the window); start= moves it" in notes
    gaps = [g for g in parse(svg).iter(f"{SVG}g") if g.get("class") == "gap"]
    assert gaps and int(gaps[0].get("data-skipped")) == 4100 - 8  # the rest of row 0 and its padding
    moved = cells(sl.render_svg(desc, start=(4000, 4000)))
    assert moved[(4000, 4000)] == (4000 * 4100 + 4000, str(4000 * 4096 + 4000))


def test_a_tensor_too_large_for_a_map_shows_its_values():
    t = sl.StridedTensor(sl.TensorDesc("UINT8", (2, 2_500_000)), np.arange(5_000_000, dtype=np.uint8))
    drawn = cells(sl.render_svg(t, max_cells=8))
    assert drawn[(1, 0)] == (2_500_000, str(2_500_000 % 256))


def test_window_start_moves_the_window():
    svg = sl.render_svg(sl.TensorDesc("FLOAT32", (64, 64)), start=(60, 0), max_cells=64)
    assert min(cells(svg)) == (60, 0)
    assert cells(svg)[(60, 0)][0] == 60 * 64


def test_five_dimensions_fix_the_leading_index_and_say_so():
    desc = sl.TensorDesc("FLOAT32", (2, 2, 2, 3, 4))
    svg = sl.render_svg(desc, start=(1, 0, 0, 0, 0))
    drawn = cells(svg)
    assert len(drawn) == 48 and {c[0] for c in drawn} == {1}
    assert drawn[(1, 1, 1, 2, 3)] == (95, "95")  # more than 26 elements: labelled by flat index
    words = texts(svg)
    assert "(1, 0, 1, :, :)" in words
    assert any(w.startswith("dimensions 0 to 0 fixed at [1]") for w in words)


def test_one_dimension_wraps_into_rows():
    svg = sl.render_svg(sl.TensorDesc("INT8", (20,)), columns=8)
    assert len(cells(svg)) == 20 and "index, 8 to a row" in texts(svg)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"max_cells": 0}, sl.LayoutError, "max_cells = 0"),
        ({"columns": 1.5}, TypeError, "columns must be an integer"),
        ({"start": (2, 0)}, sl.LayoutError, r"start\[0\] = 2 is out of range for sizes\[0\] = 2"),
        ({"start": (0,)}, sl.LayoutError, "start \\[0\\] has 1 entries"),
        ({"colour_by": 5}, sl.LayoutError, "colour_by = 5"),
    ],
)
def test_bad_drawing_parameters_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        sl.render_svg(sl.TensorDesc("FLOAT32", (2, 3)), **kwargs)


def test_other_objects_are_refused():
    with pytest.raises(TypeError, match=r"obj must be a TensorDesc, MemoryMap or StridedTensor, not ndarray of shape"):
        sl.render_svg(np.zeros(3))


def test_rendering_svg_never_imports_matplotlib():
    code = (
        "import sys, stridelab as sl; sl.render_svg(sl.TensorDesc('FLOAT32', (2, 3))); "
        "assert 'matplotlib' not in sys.modules, 'matplotlib imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_scene_too_large_for_a_map_windows_every_dimension():
    scene = build_scene(sl.TensorDesc("FLOAT32", (1, 2, 2100, 1000)))
    # halving the longest side (rounding up) until at most 64 cells remain: 2100 -> 5 and 1000 -> 4
    assert scene.cell_coords.shape == (1 * 2 * 5 * 4, 4)
    assert scene.notes[0] == "showing 40 of 4200000 logical elements: the window [0:1, 0:2, 0:5, 0:4]"
    assert scene.notes[1].startswith("4200000 logical elements are more than the 4000000 a memory map is built for")


def test_an_overlap_the_core_cannot_decide_is_drawn_as_undecided():
    # three dimensions that do not nest over 4.9M elements: the overlap search is past its budget
    desc = sl.TensorDesc("UINT8", (170, 170, 170), (160000, 1000, 3))
    with pytest.raises(sl.LayoutError, match="budget 4000000"):
        assert desc.is_overlapping is None  # raises before it compares
    svg = sl.render_svg(desc)
    assert any(text.startswith("overlap: undecided · 4913000 logical elements") for text in texts(svg))
    data, _ = desc._repr_mimebundle_()
    assert data["image/svg+xml"] == svg
    assert sl.MemoryMapView(desc).desc == desc
    assert len(sl.compare(desc, sl.TensorDesc("UINT8", (170, 170, 170))).panels) == 2


def test_a_formerly_undecided_overlap_is_drawn_decided():
    svg = sl.render_svg(sl.TensorDesc("UINT8", (3000, 3000), (3001, 2)))  # coprime strides: no collision
    assert any(text.startswith("padded · 9000000 logical elements") for text in texts(svg))


def test_fills_stay_distinct_for_16_values_and_neighbours_differ_most():
    def rgb(fill):
        return tuple(int(fill[i : i + 2], 16) for i in (1, 3, 5))

    for count in (9, 16, 24):
        fills = [rgb(f) for f in fills_for(count)]
        assert len(fills) == count
        assert min(math.dist(a, b) for a, b in itertools.combinations(fills, 2)) > 30
        assert min(math.dist(a, b) for a, b in itertools.pairwise(fills)) > 100
        # black labels stay readable: every fill is light
        assert min(0.2126 * r + 0.7152 * g + 0.0722 * b for r, g, b in fills) > 110


def test_nhwc_colours_follow_the_channel_and_large_tensors_are_labelled_by_index():
    desc = sl.TensorDesc("FLOAT32", (1, 64, 56, 56), sl.layout_strides("NHWC", (1, 64, 56, 56)))
    svg = sl.render_svg(desc, max_cells=64)
    fills = {
        g.get("data-coords"): g.find(f"{SVG}rect").get("fill")
        for g in parse(svg).iter(f"{SVG}g")
        if g.get("class") == "cell"
    }
    channel_fills = [fills[f"0,{c},0,0"] for c in range(4)]
    assert len(set(channel_fills)) == 4  # one colour per channel ...
    assert {fills[f"0,1,{h},{w}"] for h in range(4) for w in range(4)} == {channel_fills[1]}  # ... across H and W
    assert cells(svg)[(0, 1, 0, 0)] == (1, "3136")  # NHWC: channel 1 at offset 1; label: its flat index 1*56*56
