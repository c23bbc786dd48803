"""The widgets' static pictures (what a stored, untrusted or exported notebook shows) draw what
their live views show: the marks on cells and slots, the badges, and one colour per element
across the panels. Expected cells come from DML_SLICE1's page examples and from arithmetic done
by hand here, never from the code under test."""

from __future__ import annotations

import base64
import io
import xml.etree.ElementTree as ET

import numpy as np
import pytest

pytest.importorskip("anywidget")
pytest.importorskip("ipywidgets")

import stridelab as sl
from stridelab.render.scene import build_scene
from stridelab.widgets._panels import MapWidget

SVG = "{http://www.w3.org/2000/svg}"
#: The input of the SLICE1 page's examples: 1..16 in a packed 4x4.
X = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
EXAMPLE_1 = {"window_offsets": (0, 0, 0, 1), "window_sizes": (1, 1, 4, 3), "window_strides": (1, 1, 2, 2)}
EXAMPLE_2 = {"window_offsets": (0, 0, 0, 1), "window_sizes": (1, 1, 4, 3), "window_strides": (1, 1, -2, 2)}
BLUE, VERMILION = "#0072B2", "#D55E00"


def panels(svg: str) -> list[ET.Element]:
    """The panels of a picture of several scenes, in order."""
    return [e for e in ET.fromstring(svg).iter(f"{SVG}svg") if e.get("class") == "panel"]


def groups(panel: ET.Element, cls: str) -> dict[str, ET.Element]:
    """A panel's cells by ``data-coords`` (``cls`` "cell") or slots by ``data-slot`` ("slot")."""
    key = "data-coords" if cls == "cell" else "data-slot"
    return {g.get(key): g for g in panel.iter(f"{SVG}g") if (g.get("class") or "").split()[:1] == [cls]}


def marked(items: dict[str, ET.Element], mark: str) -> set[str]:
    return {name for name, g in items.items() if g.get("data-mark") == mark}


def badges(panel: ET.Element) -> dict[str, str]:
    out = {}
    for name, g in groups(panel, "cell").items():
        for t in g.iter(f"{SVG}text"):
            if t.get("class") == "badge":
                out[name] = t.text
    return out


def fill(g: ET.Element) -> str:
    return g.find(f"{SVG}rect").get("fill")


def cell(h: int, w: int) -> str:
    return f"0,0,{h},{w}"


def test_the_slice_explorers_picture_outlines_the_window_dims_the_outside_and_numbers_the_copies():
    svg = sl.SliceExplorer(X, **EXAMPLE_1).to_svg()
    inputs, outputs = panels(svg)
    cells = groups(inputs, "cell")
    # the window: rows 0..3, columns 1..3; column 0 lies outside it
    assert marked(cells, "window") == {cell(h, w) for h in range(4) for w in (1, 2, 3)}
    assert marked(cells, "outside") == {cell(h, 0) for h in range(4)}
    for name in marked(cells, "window"):
        rect = cells[name].find(f"{SVG}rect")
        assert (rect.get("stroke"), rect.get("stroke-width")) == (BLUE, "2.5")
    assert {cells[cell(h, 0)].get("opacity") for h in range(4)} == {"0.45"}
    # the page: Output[0,0,0,0] = Input[0,0,0,1], [0,0,0,1] = [0,0,0,3], [0,0,1,0] = [0,0,2,1], [0,0,1,1] = [0,0,2,3]
    assert badges(inputs) == {cell(0, 1): "0", cell(0, 3): "1", cell(2, 1): "2", cell(2, 3): "3"}
    # slots read: packed 4x4, offset 4h + w
    slots = groups(inputs, "slot")
    assert marked(slots, "read") == {"1", "3", "9", "11"}
    assert slots["9"].find(f"{SVG}rect").get("stroke-width") == "4"
    written = groups(outputs, "slot")
    assert marked(written, "written") == {"0", "1", "2", "3"}
    assert written["2"].find(f"{SVG}rect").get("stroke-dasharray") == "6 2"
    assert badges(outputs) == {}


def test_a_backwards_slice_numbers_the_copies_from_the_windows_end():
    inputs, _ = panels(sl.SliceExplorer(X, **EXAMPLE_2).to_svg())
    # the page: Output[0,0,0,0] = Input[0,0,3,1], then [0,0,3,3], [0,0,1,1], [0,0,1,3]
    assert badges(inputs) == {cell(3, 1): "0", cell(3, 3): "1", cell(1, 1): "2", cell(1, 3): "3"}
    assert marked(groups(inputs, "slot"), "read") == {"13", "15", "5", "7"}


@pytest.mark.parametrize(
    ("example", "copied_from"),
    [
        (EXAMPLE_1, {(0, 0): (0, 1), (0, 1): (0, 3), (1, 0): (2, 1), (1, 1): (2, 3)}),
        (EXAMPLE_2, {(0, 0): (3, 1), (0, 1): (3, 3), (1, 0): (1, 1), (1, 1): (1, 3)}),
    ],
)
def test_an_output_element_has_the_colour_of_the_input_element_it_is_copied_from(example, copied_from):
    e = sl.SliceExplorer(X, **example)
    live = [ET.fromstring(p["svg"]) for p in e.view.panels]
    for inputs, outputs in (panels(e.to_svg()), live):
        cells_in, cells_out = groups(inputs, "cell"), groups(outputs, "cell")
        for (oh, ow), (ih, iw) in copied_from.items():
            assert fill(cells_out[cell(oh, ow)]) == fill(cells_in[cell(ih, iw)])
        # rows of the input differ in colour, so the check above can fail
        assert fill(cells_out[cell(0, 0)]) != fill(cells_out[cell(1, 0)])
        slots_out = groups(outputs, "slot")
        assert [fill(slots_out[str(k)]) for k in range(4)] == [
            fill(cells_out[c]) for c in ("0,0,0,0", "0,0,0,1", "0,0,1,0", "0,0,1,1")
        ]


def cumulative(axis: int, step: int, direction: str = "increasing") -> list[ET.Element]:
    x = np.array([[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]], dtype=np.float32)
    e = sl.CumulativeSummationExplorer(x, axis=axis, direction=direction)
    e.step.value = step
    return panels(e.to_svg())


def test_the_tallys_picture_marks_the_element_read_the_output_written_and_dims_the_rest():
    inputs, outputs = cumulative(axis=3, step=2)  # along W, the second step: column 1
    assert marked(groups(inputs, "cell"), "read") == {cell(h, 1) for h in range(3)}
    assert marked(groups(inputs, "slot"), "read") == {"1", "5", "9"}  # packed 3x4: 4h + 1
    cells = groups(outputs, "cell")
    assert marked(cells, "written") == {cell(h, 1) for h in range(3)}
    assert marked(cells, "pending") == {cell(h, w) for h in range(3) for w in (2, 3)}
    assert {cells[cell(h, w)].get("data-mark") for h in range(3) for w in (0,)} == {None}
    assert {cells[cell(0, w)].get("opacity") for w in (2, 3)} == {"0.3"}
    assert marked(groups(outputs, "slot"), "written") == {"1", "5", "9"}
    rect = cells[cell(2, 1)].find(f"{SVG}rect")
    assert (rect.get("stroke"), rect.get("stroke-dasharray")) == (VERMILION, "6 2")


def test_a_decreasing_tally_down_the_rows_starts_at_the_last_row():
    inputs, outputs = cumulative(axis=2, step=1, direction="decreasing")
    assert marked(groups(inputs, "cell"), "read") == {cell(2, w) for w in range(4)}
    assert marked(groups(outputs, "cell"), "pending") == {cell(h, w) for h in (0, 1) for w in range(4)}


def test_a_static_picture_of_a_large_input_is_windowed_where_the_marks_are():
    # 256 elements: the live map draws all of them, the static one 64 cells, from the window's
    # first cell (6, 6) since the 8x8 corner would cut the 4x4 window off at row and column 7
    x = np.arange(256, dtype=np.float32).reshape(1, 1, 16, 16)
    e = sl.SliceExplorer(x, window_offsets=(0, 0, 6, 6), window_sizes=(1, 1, 4, 4), window_strides=(1, 1, 2, 2))
    inputs, _ = panels(e.to_svg())
    cells = groups(inputs, "cell")
    assert cell(6, 6) in cells and cell(5, 6) not in cells and cell(6, 5) not in cells
    assert marked(cells, "window") == {cell(h, w) for h in range(6, 10) for w in range(6, 10)}
    assert marked(cells, "outside") == set(cells) - marked(cells, "window")
    # copied in this order: (6, 6), (6, 8), (8, 6), (8, 8), at offsets 16h + w
    assert badges(inputs) == {cell(6, 6): "0", cell(6, 8): "1", cell(8, 6): "2", cell(8, 8): "3"}
    assert marked(groups(inputs, "slot"), "read") == {"102", "104", "134", "136"}


def test_the_png_paints_the_marks_where_the_svg_has_them():
    from PIL import Image

    from stridelab.render.png import pictures_png

    e = sl.SliceExplorer(X, **EXAMPLE_1)
    data, metadata = e._repr_mimebundle_()
    pixels = np.asarray(Image.open(io.BytesIO(base64.b64decode(data["image/png"]))).convert("RGB"))
    scale = pixels.shape[1] // metadata["image/png"]["width"]
    assert scale == 2
    inputs = panels(data["image/svg+xml"])[0]
    top = int(inputs.get("y"))
    rect = groups(inputs, "cell")[cell(1, 1)].find(f"{SVG}rect")  # in the window
    x, y = int(rect.get("x")), int(rect.get("y")) + top
    left_edge = pixels[(y + 12) * scale, x * scale]
    assert left_edge.tolist() == [0x00, 0x72, 0xB2]
    # the same picture without marks: the plain stroke there
    plain = Image.open(io.BytesIO(pictures_png(*e.static_scenes()))).convert("RGB")
    assert list(plain.getpixel((x * scale, (y + 12) * scale))) == [0x33, 0x33, 0x33]
    # outside: Tol's light blue #77AADD at 0.45 over white, e.g. 255 - (255 - 0x77) * 0.45 = 193.8
    rect = groups(inputs, "cell")[cell(0, 0)].find(f"{SVG}rect")
    x, y = int(rect.get("x")), int(rect.get("y")) + top
    assert pixels[(y + 3) * scale, (x + 3) * scale].tolist() == [194, 217, 240]


def test_a_widget_without_marks_draws_the_picture_it_drew_before():
    view = MapWidget()
    scene = build_scene(sl.TensorDesc("FLOAT32", (2, 3), (5, 1)))
    view.show([scene], [""])
    assert view.to_svg() == sl.render_svg(sl.TensorDesc("FLOAT32", (2, 3), (5, 1)))


def test_marks_the_style_does_not_know_are_named_and_drawn_plain():
    view = MapWidget()
    view.show([build_scene(sl.TensorDesc("FLOAT32", (2, 3)))], [""])
    view.marks = [{"cells": {"chosen": [0, 99]}, "slots": {}}]  # 99: no such cell, ignored as the script does
    cells = groups(ET.fromstring(view.to_svg()), "cell")
    assert marked(cells, "chosen") == {"0,0"}
    assert cells["0,0"].find(f"{SVG}rect").get("stroke") == "#333333"


def test_panels_linked_by_coordinates_alone_keep_their_own_colours():
    # compare() links the same element of two descriptions without keys: colours stay by coordinates
    a, b = sl.TensorDesc("FLOAT32", (3, 2), (0, 1)), sl.TensorDesc("FLOAT32", (3, 2))
    picture = sl.compare(a, b)
    _, packed = panels(picture.to_svg())
    assert len({fill(g) for g in groups(packed, "cell").values()}) == 3  # one per row


def test_the_text_form_counts_what_the_marks_pick_out():
    text = sl.SliceExplorer(X, **EXAMPLE_1)._repr_mimebundle_()[0]["text/plain"]
    # window: 4 rows x 3 columns; copied: 2 rows x 2 columns, each read from its own slot
    assert text.splitlines()[1] == (
        "marked: input: window 12 cells, outside 4 cells, read 4 slots, numbered 4 cells; output: written 4 slots"
    )
    x = np.array([[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]], dtype=np.float32)
    text = sl.CumulativeSummationExplorer(x, axis=3)._repr_mimebundle_()[0]["text/plain"]
    # first step along W: column 0 of 3 rows; the other 3 columns of the output still to come
    assert text.splitlines()[1] == (
        "marked: input: read 3 cells and 3 slots; output: written 3 cells and 3 slots, pending 9 cells and 9 slots"
    )


def test_a_static_picture_starts_where_the_live_window_does_so_far_marks_are_drawn():
    # 400 elements: the live panels are windowed at the slice window / the tally's step, far from
    # the corner that a 64-cell picture from the origin would show
    x = np.arange(400, dtype=np.float32).reshape(20, 20)
    e = sl.SliceExplorer(x, window_offsets=(12, 12), window_sizes=(6, 6), window_strides=(-2, 1))
    inputs, _ = panels(e.to_svg())
    # rows 12..17, columns 12..17 of the window: all drawn, all marked
    assert marked(groups(inputs, "cell"), "window") == {f"{h},{w}" for h in range(12, 18) for w in range(12, 18)}
    tally = sl.CumulativeSummationExplorer(x, axis=1)
    tally.step.value = 18  # along W, the 18th step: column 17
    inputs, outputs = panels(tally.to_svg())
    assert {key.split(",")[1] for key in marked(groups(inputs, "cell"), "read")} == {"17"}
    assert {key.split(",")[1] for key in marked(groups(outputs, "cell"), "written")} == {"17"}
