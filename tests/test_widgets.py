"""Widget state, traits and validation, without a browser (see test_browser.py for one)."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

# The views need the Jupyter widget stack; GPU machines running `pytest -m gpu` may not have it.
pytest.importorskip("anywidget")
w = pytest.importorskip("ipywidgets")

import stridelab as sl
from stridelab.widgets.memory_map_view import STATIC_MAX_CELLS

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
SVG = "{http://www.w3.org/2000/svg}"


def cell_table(panel: dict) -> dict[str, tuple[int, str]]:
    """Cell coordinates ("h,w") -> (slot offset, label), as the script will draw them."""
    slots = panel["slots"]
    return {
        coords: (slots["offset"][k], slots["label"][k])
        for coords, k in zip(panel["cells"]["coords"], panel["cells"]["slot"])
    }


# -- MemoryMapView ---------------------------------------------------------------------------------


def test_view_sends_the_map_as_plain_data():
    view = sl.MemoryMapView(sl.TensorDesc("FLOAT32", (2, 3), (5, 1), total_tensor_size_in_bytes=40))
    (panel,) = view.panels
    # the padded example of the strides page: A B C x x D E F x x
    assert panel["slots"]["label"] == ["A", "B", "C", "x", "x", "D", "E", "F", "x", "x"]
    assert panel["slots"]["offset"] == list(range(10))
    assert [panel["kind_names"][k] for k in panel["slots"]["kind"]].count("padding") == 4
    assert cell_table(panel) == {
        "0,0": (0, "A"),
        "0,1": (1, "B"),
        "0,2": (2, "C"),
        "1,0": (5, "D"),
        "1,1": (6, "E"),
        "1,2": (7, "F"),
    }
    json.dumps(view.get_state())  # plain data all the way down


def test_the_view_offers_its_layout_as_one_line_to_copy():
    view = sl.MemoryMapView(sl.TensorDesc("FLOAT32", (2, 3), (5, 1), total_tensor_size_in_bytes=40))
    assert view.copy_lines == ["FLOAT32 (2,3):(5,1) bytes=40"]
    assert sl.TensorDesc.parse(view.copy_lines[0]) == view.desc
    view.source = sl.TensorDesc("UINT8", (4,))
    assert view.copy_lines == ["UINT8 (4):(1)"]


def test_broadcast_slot_lights_several_cells():
    view = sl.MemoryMapView(sl.TensorDesc("FLOAT32", (2, 3), (0, 1)))
    (panel,) = view.panels
    assert panel["slots"]["count"] == [2, 2, 2]
    slot_of = dict(zip(panel["cells"]["coords"], panel["cells"]["slot"]))
    assert slot_of["0,1"] == slot_of["1,1"] == 1
    view.select((1, 2))
    assert view.selected == {"panel": 0, "slot": 2}
    assert view.selection == {
        "slot": 2,
        "byte": 8,
        "kind": "shared",
        "label": "C",
        "elements": [(0, 2), (1, 2)],
        "complete": True,
    }


def test_selecting_padding_and_clearing():
    view = sl.MemoryMapView(sl.TensorDesc("UINT8", (2, 3), (5, 1)))
    view.select(slot=3)
    assert view.selection == {"slot": 3, "byte": 3, "kind": "padding", "label": "x", "elements": [], "complete": True}
    view.select()
    assert view.selected == {} and view.selection is None


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (((2, 0),), {}, sl.LayoutError, r"coords\[0\] = 2 is out of range"),
        ((), {"slot": 8}, sl.LayoutError, "slot = 8 is out of range for a buffer of 8 slots"),
        ((), {"slot": "3"}, TypeError, "slot must be an integer"),
        (((0, 0),), {"slot": 0}, TypeError, "not both"),
    ],
)
def test_select_refuses_what_is_not_there(args, kwargs, error, match):
    view = sl.MemoryMapView(sl.TensorDesc("UINT8", (2, 3), (5, 1)))
    with pytest.raises(error, match=match):
        view.select(*args, **kwargs)


def test_clicks_from_the_browser_arrive_as_selection():
    view = sl.MemoryMapView(sl.TensorDesc("FLOAT32", (1, 1, 3, 5), (15, 1, 5, 1)))
    view.set_state({"selected": {"panel": 0, "slot": 11}})  # what the script sends on a click
    assert view.selection["elements"] == [(0, 0, 2, 1)] and view.selection["label"] == "L"


def test_values_are_shown_when_bound_to_data():
    t = sl.StridedTensor.from_array(np.arange(6, dtype=np.int16).reshape(2, 3).T)
    view = sl.MemoryMapView(t)
    assert cell_table(view.panels[0]) == {
        "0,0": (0, "0"),
        "0,1": (3, "3"),
        "1,0": (1, "1"),
        "1,1": (4, "4"),
        "2,0": (2, "2"),
        "2,1": (5, "5"),
    }
    assert sl.MemoryMapView(np.arange(4.0, dtype=np.float32)).panels[0]["slots"]["label"] == ["0", "1", "2", "3"]


def test_reprs_are_deterministic_and_the_fallback_is_the_static_svg():
    desc = sl.TensorDesc("FLOAT32", (2, 3), (1, 2))
    view = sl.MemoryMapView(desc)
    assert repr(view) == "MemoryMapView(TensorDesc('FLOAT32', sizes=(2, 3), strides=(1, 2)))"
    data, _ = view._repr_mimebundle_()
    assert data["text/plain"] == repr(view)
    assert data["image/svg+xml"] == sl.render_svg(desc, max_cells=STATIC_MAX_CELLS)
    assert data["image/png"] and WIDGET_VIEW in data and "text/html" not in data


def test_setting_the_source_redraws_and_clears_the_selection():
    view = sl.MemoryMapView(sl.TensorDesc("FLOAT32", (2, 3)))
    view.select((0, 0))
    view.source = sl.TensorDesc("FLOAT32", (3, 3))
    assert len(view.panels[0]["cells"]["coords"]) == 9 and view.selected == {}


def test_large_tensors_are_windowed_within_budget():
    view = sl.MemoryMapView(sl.TensorDesc("FLOAT32", (1, 4, 512, 512)))
    (panel,) = view.panels
    assert len(panel["cells"]["coords"]) == 256 and len(panel["slots"]["offset"]) <= 256
    assert view.scene.notes[0] == "showing 256 of 1048576 logical elements: the window [0:1, 0:4, 0:8, 0:8]"
    data, _ = view._repr_mimebundle_()
    stored = {mime: value for mime, value in data.items() if mime != WIDGET_VIEW}  # the executor's output
    assert len(json.dumps(stored)) < 200_000 and len(json.dumps(view.get_state())) < 250_000
    view.start = (0, 2, 100, 200)
    assert view.panels[0]["cells"]["coords"][0] == "0,2,100,200"


def test_refuses_what_it_cannot_draw():
    with pytest.raises(TypeError, match=r"source must be a TensorDesc, .* or array, not list \[1, 2, 3\]"):
        sl.MemoryMapView([1, 2, 3])


def test_script_and_stylesheet_are_package_files():
    view = sl.MemoryMapView(sl.TensorDesc("FLOAT32", (2,)))
    assert "export default { render }" in view._esm
    assert ".stridelab-widget" in view._css


# -- compare ---------------------------------------------------------------------------------------


def test_compare_defaults_to_nchw_beside_nhwc():
    c = sl.compare()
    assert [p["name"] for p in c.panels] == ["NCHW", "NHWC"]
    assert [s.strides for s in c.sources] == [(12, 4, 2, 1), (12, 1, 6, 3)]
    assert c.stacked
    nchw, nhwc = (cell_table(p) for p in c.panels)
    assert nchw["0,1,0,0"] == (4, "E") and nhwc["0,1,0,0"] == (1, "E")  # the same element, elsewhere
    # one link key per logical element in both panels: hovering one lights the other
    assert c.panels[0]["cells"]["key"] == c.panels[1]["cells"]["key"] == list(range(12))


def test_compare_static_svg_holds_both_pictures():
    c = sl.compare()
    svg = c.to_svg()
    assert svg.count('<svg class="panel"') == 2 and svg.count('class="cell"') == 24
    assert c._repr_mimebundle_()[0]["image/svg+xml"] == svg
    assert repr(c).startswith("Comparison(TensorDesc('FLOAT32', sizes=(1, 3, 2, 2), strides=(12, 4, 2, 1)), ")


def test_compare_takes_descriptions_and_permutations():
    a = sl.TensorDesc("UINT8", (2, 3))
    c = sl.compare(a, (1, 0), sizes=(2, 3), data_type="UINT8")
    assert [p["name"] for p in c.panels] == ["HW", "order [1, 0]"]
    assert c.sources[1].strides == (1, 2)


def test_compare_needs_the_same_logical_tensor():
    with pytest.raises(sl.LayoutError, match=r"a has sizes \[2, 3\] and b has sizes \[3, 2\]"):
        sl.compare(sl.TensorDesc("FLOAT32", (2, 3)), sl.TensorDesc("FLOAT32", (3, 2)))


# -- explore ---------------------------------------------------------------------------------------


def test_explorer_starts_from_its_arguments():
    e = sl.explore((1, 1, 3, 5), "NHWC")
    assert e.desc == sl.TensorDesc("FLOAT32", (1, 1, 3, 5), (15, 1, 5, 1))
    assert repr(e) == "LayoutExplorer(TensorDesc('FLOAT32', sizes=(1, 1, 3, 5), strides=(15, 1, 5, 1)))"
    assert e._strides.value == "15, 1, 5, 1" and e._strides.disabled
    assert "calc_buffer_tensor_size = 60 bytes" in e._status.value


def test_moving_a_control_redraws():
    e = sl.explore((2, 3), "HW")
    before = e.view.panels
    e.size_sliders[1].value = 4
    assert e.desc.sizes == (2, 4) and e.view.panels != before
    assert len(e.view.panels[0]["cells"]["coords"]) == 8
    e._layout.value = "WH"
    assert e.desc.strides == (1, 2)
    e._data_type.value = "FLOAT16"
    assert e.desc.data_type == "FLOAT16" and e.desc.buffer_size == 16


def test_broadcast_and_padding_controls():
    e = sl.explore((2, 3), "HW")
    e.broadcast_boxes[0].value = True
    assert e.desc.strides == (0, 1) and e.desc.is_broadcast
    e.broadcast_boxes[0].value = False
    e.padding_sliders[1].value = 2
    assert e.desc.strides == (5, 1) and e.desc.is_padded  # the strides page's padded example


def test_invalid_combinations_show_the_error_inline():
    e = sl.explore((2, 3), "HW")
    e.padding_sliders[0].value = 1  # padding after the outermost dimension changes no stride
    assert e.desc is None and "follows the outermost dimension" in e.error
    assert "not drawn: padding[" in e._status.value and e.view.stale
    assert repr(e).startswith("LayoutExplorer(error=")
    data, _ = e._repr_mimebundle_()  # no picture of a map that does not exist: the error as text
    assert "image/svg+xml" not in data and data["text/plain"] == f"{e!r}\nnot drawn: {e.error}"
    e.padding_sliders[0].value = 0
    assert e.desc is not None and not e.view.stale


def test_custom_strides_are_typed_in():
    e = sl.explore((2, 3), "HW")
    e._layout.value = "custom strides"
    assert not e._strides.disabled and all(s.disabled for s in e.padding_sliders)
    e._strides.value = "1, 2"
    assert e.desc.strides == (1, 2)
    e._strides.value = "1, two"
    assert e.error == "strides '1, two' must be integers separated by commas, e.g. '15, 1, 5, 1'"
    e._strides.value = "1, -2"
    assert e.error.startswith("strides[1] = -2")


def test_changing_the_number_of_dimensions_rebuilds_the_controls():
    e = sl.explore((2, 3), "WH")
    e._rank.value = 4
    assert e.sizes == (1, 1, 2, 3) and len(e.padding_sliders) == 4
    assert e._layout.options[:2] == ("NCHW", "NHWC") and e._layout.value == "NCHW"
    e.configure(sizes=(4, 5), layout="WH")
    assert e.desc == sl.TensorDesc("FLOAT32", (4, 5), (1, 4))


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (((2, 3), "NCHW"), {}, sl.LayoutError, "layout 'NCHW' is not a memory order of the 2 dimension letters H, W"),
        (((2, 3), "XY"), {}, sl.LayoutError, "layout 'XY' is not a memory order"),
        (((2, 3), 10), {}, TypeError, "layout must be a string"),
        (((2, 0),), {}, sl.LayoutError, r"sizes\[1\] = 0: every size must be at least 1"),
        (((2, 3),), {"padding": {"W": -1}}, sl.LayoutError, r"padding\['W'\] = -1: padding is a count of elements"),
        (((2, 3),), {"padding": {"W": 1.5}}, TypeError, r"padding\['W'\] must be an integer count of elements"),
        (
            ((2, 3),),
            {"padding": {"Q": 1}},
            sl.LayoutError,
            r"padding key 'Q' is not a dimension letter of 2 dimensions",
        ),
        (((2, 3),), {"padding": {5: 1}}, sl.LayoutError, r"padding key 5 is not a dimension index in 0..1"),
        (((2, 3),), {"broadcast": (True,)}, sl.LayoutError, r"broadcast \[True\] has 1 entries but there are 2"),
        (((2, 3),), {"broadcast": ("no", False)}, TypeError, r"broadcast\[0\] must be a bool, not str"),
        (((2, 3),), {"data_type": "float128"}, sl.LayoutError, "data_type 'float128' is not a DirectML data type"),
    ],
)
def test_explore_refuses_arguments_no_control_can_take(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        sl.explore(*args, **kwargs)


def test_explore_takes_arguments_as_given():
    e = sl.explore((2, 3), padding={"w": 100}, data_type="float16")  # no layout: the rank's canonical one
    assert e.desc == sl.TensorDesc("FLOAT16", (2, 3), (103, 1))  # padding beyond the slider's range widens it
    assert e.padding_sliders[1].max == 100 and e._layout.value == "HW"
    assert sl.explore((2, 3), "wh", data_type=np.uint8).desc == sl.TensorDesc("UINT8", (2, 3), (1, 2))


def test_explore_passes_max_padding_to_the_padding_sliders():
    e = sl.explore((2, 3), "HW", max_padding=3)
    assert [s.max for s in e.padding_sliders] == [3, 3]
    with pytest.raises(sl.LayoutError, match="max_padding"):
        sl.explore((2, 3), max_padding=-1)


def test_a_views_window_moves_keep_its_other_drawing_options():
    view = sl.MemoryMapView(sl.TensorDesc("UINT8", (20, 20)), max_cells=16, columns=8, colour_by=1)
    view.start = (4, 0)
    assert view.start == (4, 0) and [first for first, _ in view.window] == [4, 0]
    view.window = [(1, 2), (3, 5)]
    assert view.start is None and view.window == ((1, 2), (3, 5))
    assert view._options.columns == 8 and view._options.colour_by == 1 and view._options.max_cells == 16


@pytest.mark.parametrize(
    "kwargs",
    [
        {"sizes": (2, 0)},
        {"sizes": (4, 5), "layout": "NHWC"},
        {"sizes": (4, 5), "padding": {"W": 1, "Q": 1}},
        {"data_type": "UINT8", "broadcast": (1, 0)},
    ],
)
def test_configure_refuses_before_changing_anything(kwargs):
    e = sl.explore((2, 3), "HW", padding={"W": 2})
    with pytest.raises((sl.LayoutError, TypeError)):
        e.configure(**kwargs)
    assert e.desc == sl.TensorDesc("FLOAT32", (2, 3), (5, 1)) and e.sizes == (2, 3)


def test_explore_refuses_ranks_it_has_no_letters_for():
    with pytest.raises(sl.LayoutError, match="explore\\(\\) names layouts for 1 to 5"):
        sl.explore((1,) * 6)


def test_importing_stridelab_imports_no_widget_library():
    code = "import sys, stridelab; assert not {'ipywidgets', 'anywidget'} & set(sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True)


# -- operator explorers (the real operators) -------------------------------------------------------

PAGE_INPUT = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)  # dml-slice1.md's input
CUMSUM_INPUT = np.array([[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]], dtype=np.float32)  # dml-cumulative-summation.md


def badges(panel: dict) -> dict[str, str]:
    """Cell coordinates -> the badge drawn in the cell's corner, read from the panel's SVG."""
    cells = ET.fromstring(panel["svg"]).iter(f"{SVG}g")
    return {
        g.get("data-coords"): badge.text
        for g in cells
        if g.get("class") == "cell"
        for badge in g.iter(f"{SVG}text")
        if badge.get("class") == "badge"
    }


def test_slice_explorer_positive_strides_match_the_page():
    e = sl.SliceExplorer(
        PAGE_INPUT, window_offsets=(0, 0, 0, 1), window_sizes=(1, 1, 4, 3), window_strides=(1, 1, 2, 2)
    )
    assert e.output.to_array().tolist() == [[[[2.0, 4.0], [10.0, 12.0]]]]
    # copied elements numbered in copy order: Input[0,0,0,1], [0,0,0,3], [0,0,2,1], [0,0,2,3]
    assert badges(e.view.panels[0]) == {"0,0,0,1": "0", "0,0,0,3": "1", "0,0,2,1": "2", "0,0,2,3": "3"}
    assert "MaxCopiedElements [1, 1, 2, 2]" in e._status.value and "4 of 16 elements copied" in e._status.value
    assert e.view.panels[1]["cells"]["key"] == [0, 1, 2, 3]
    window, outside = e.view.marks[0]["cells"]["window"], e.view.marks[0]["cells"]["outside"]
    assert len(window) == 12 and outside == [0, 4, 8, 12]  # column 0 lies outside the window


def test_slice_explorer_negative_strides_match_the_page():
    e = sl.SliceExplorer(
        PAGE_INPUT, window_offsets=(0, 0, 0, 1), window_sizes=(1, 1, 4, 3), window_strides=(1, 1, -2, 2)
    )
    assert e.output.to_array().tolist() == [[[[14.0, 16.0], [6.0, 8.0]]]]
    assert badges(e.view.panels[0]) == {"0,0,3,1": "0", "0,0,3,3": "1", "0,0,1,1": "2", "0,0,1,3": "3"}
    assert repr(e) == (
        "SliceExplorer(TensorDesc('FLOAT32', sizes=(1, 1, 4, 4), strides=(16, 16, 4, 1)), "
        "window_offsets=(0, 0, 0, 1), window_sizes=(1, 1, 4, 3), window_strides=(1, 1, -2, 2))"
    )


def test_slice_explorer_reruns_when_a_slider_moves():
    e = sl.SliceExplorer(PAGE_INPUT)
    assert e.output.desc.sizes == (1, 1, 4, 4)
    e.stride_sliders[3].value = 3
    assert e.output.to_array()[0, 0, 0].tolist() == [1.0, 4.0]
    assert "window_strides=[1, 1, 1, 3]" in e._code.value


def test_slice_explorer_explains_invalid_windows_inline():
    e = sl.SliceExplorer(PAGE_INPUT)
    e.stride_sliders[2].value = 0
    assert e.output is None and "window_strides" in e.error
    assert "stridelab-error" in e._status.value and [p["name"] for p in e.view.panels] == ["input"]
    data, _ = e._repr_mimebundle_()
    assert "image/png" not in data and data["text/plain"] == f"{e!r}\nnot drawn: {e.error}"
    e.stride_sliders[2].value = 1
    e.offset_sliders[3].value = 2  # a window of 4 from offset 2 runs past the input's 4 columns
    assert e.output is None and "window_offsets" in e.error


def test_slice_explorer_reads_a_padded_strided_tensor():
    desc = sl.TensorDesc("INT16", (2, 3), (5, 1))
    t = sl.StridedTensor(desc, np.arange(10, dtype=np.int16))
    e = sl.SliceExplorer(t, window_offsets=(0, 1), window_sizes=(2, 2), window_strides=(1, 1))
    assert e.output.to_array().tolist() == [[1, 2], [6, 7]]
    assert e.view.marks[0]["slots"]["read"] == [1, 2, 6, 7]  # every slot is drawn: positions are offsets


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"window_offsets": (0,)}, sl.LayoutError, "window_offsets has 1 entries but x has 2 dimensions"),
        ({"window_offsets": (-1, 0)}, sl.LayoutError, r"window_offsets\[0\] = -1: window offsets are unsigned"),
        ({"window_sizes": (0, 4)}, sl.LayoutError, r"window_sizes\[0\] = 0: the window may not be empty"),
        ({"window_sizes": (0.9, 1.7)}, TypeError, r"window_sizes\[0\] must be an integer, not float \(0.9\)"),
        ({"window_offsets": (True, 0)}, TypeError, r"window_offsets\[0\] must be an integer, not bool"),
        ({"window_strides": (1, 0)}, sl.LayoutError, r"window_strides\[1\] = 0: window strides may not be 0"),
        ({"window_offsets": (2, 0), "window_sizes": (2, 4)}, sl.LayoutError, r"= 4 exceeds input sizes\[0\] = 3"),
    ],
)
def test_slice_explorer_refuses_windows_as_the_operator_does(kwargs, error, match):
    with pytest.raises(error, match=match):
        sl.SliceExplorer(np.zeros((3, 4), dtype=np.float32), **kwargs)


def test_slice_explorer_takes_numpy_integers_as_they_are():
    e = sl.SliceExplorer(np.zeros((3, 4), dtype=np.float32), window_offsets=np.array([1, 0]), window_sizes=(2, 4))
    assert e.window_offsets == (1, 0) and e.offset_sliders[0].value == 1 and e.output.desc.sizes == (2, 4)


@pytest.mark.parametrize(
    ("axis", "direction", "exclusive", "expected"),
    [
        (3, "increasing", False, [[2, 3, 6, 11], [3, 11, 18, 21], [9, 15, 17, 21]]),  # example 1
        (3, "increasing", True, [[0, 2, 3, 6], [0, 3, 11, 18], [0, 9, 15, 17]]),  # example 2
        (3, "decreasing", False, [[11, 9, 8, 5], [21, 18, 10, 3], [21, 12, 6, 4]]),  # example 3
        (2, "increasing", False, [[2, 1, 3, 5], [5, 9, 10, 8], [14, 15, 12, 12]]),  # example 4
    ],
)
def test_cumsum_explorer_runs_the_operator_as_on_the_page(axis, direction, exclusive, expected):
    e = sl.CumulativeSummationExplorer(CUMSUM_INPUT, axis=axis, direction=direction, exclusive=exclusive)
    assert e.output.to_array()[0, 0].tolist() == expected


def test_cumsum_explorer_walks_the_tally_step_by_step():
    e = sl.CumulativeSummationExplorer(CUMSUM_INPUT, axis=3)
    # the slider counts steps from 1, as the tally does
    assert (e.step.min, e.step.max, e.step.value) == (1, 4, 1) and (e.play.min, e.play.max) == (1, 4)
    assert e.tally == "step 1 of 4 along axis 3 (W), increasing: output[0, 0, 0, 0] = 2"
    e.step.value = 4
    assert e.tally == "step 4 of 4 along axis 3 (W), increasing: output[0, 0, 0, 3] = 2 + 1 + 3 + 5 = 11"
    read, written = e.view.marks
    coords = e.view.panels[0]["cells"]["coords"]
    assert [coords[i] for i in read["cells"]["read"]] == ["0,0,0,3", "0,0,1,3", "0,0,2,3"]
    assert written["cells"]["written"] == read["cells"]["read"] and written["cells"]["pending"] == []
    e.direction.value = "decreasing"
    e.step.value = 2
    assert e.tally == "step 2 of 4 along axis 3 (W), decreasing: output[0, 0, 0, 2] = 5 + 3 = 8"
    assert len(e.view.marks[1]["cells"]["pending"]) == 6  # columns 0 and 1 are not written yet
    # their slots too: a packed 3 x 4 output keeps (h, w) in slot 4h + w
    assert e.view.marks[1]["slots"]["pending"] == [0, 1, 4, 5, 8, 9]
    assert e.view.marks[1]["slots"]["written"] == [2, 6, 10]


def test_cumsum_explorer_links_each_output_to_the_inputs_it_sums():
    e = sl.CumulativeSummationExplorer(CUMSUM_INPUT, axis=2, exclusive=True)
    assert e.view.panels[0]["cells"]["key"] == list(range(12))
    # pointing at output (0, 0, h, w) lights the inputs above it (exclusive: not itself)
    assert e.view.panels[1]["cells"]["key"] == [[], [], [], [], [0], [1], [2], [3], [0, 4], [1, 5], [2, 6], [3, 7]]
    e.direction.value = "decreasing"
    e.exclusive.value = False
    assert e.view.panels[1]["cells"]["key"][:4] == [[0, 4, 8], [1, 5, 9], [2, 6, 10], [3, 7, 11]]
    assert e.view.panels[1]["cells"]["key"][8:] == [[8], [9], [10], [11]]
    e.direction.value = "increasing"
    e.exclusive.value = True
    assert repr(e) == (
        "CumulativeSummationExplorer(TensorDesc('FLOAT32', sizes=(1, 1, 3, 4), strides=(12, 12, 4, 1)), "
        "axis=2, direction='increasing', exclusive=True)"
    )
    assert e.tally == "step 1 of 3 along axis 2 (H), increasing, exclusive: output[0, 0, 0, 0] = 0 (nothing summed yet)"


def test_cumsum_explorer_shows_refused_data_types_inline():
    e = sl.CumulativeSummationExplorer(np.arange(6, dtype=np.int8).reshape(2, 3), axis=1)
    assert e.output is None and "INT8" in e.error
    assert [p["name"] for p in e.view.panels] == ["input"]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"axis": 4}, sl.LayoutError, r"axis = 4 is out of range for x with 4 dimensions; expected -4 <= axis < 4"),
        ({"axis": 1.0}, TypeError, r"axis must be an integer, not float"),
        ({"direction": "up"}, sl.LayoutError, "direction = 'up' is not an axis direction"),
        ({"exclusive": "no"}, TypeError, r"exclusive must be a bool, not str \('no'\)"),
        ({"exclusive": 0.5}, TypeError, r"exclusive must be a bool, not float \(0.5\)"),
    ],
)
def test_cumsum_explorer_refuses_parameters_as_the_operator_does(kwargs, error, match):
    with pytest.raises(error, match=match):
        sl.CumulativeSummationExplorer(CUMSUM_INPUT, **kwargs)


def test_cumsum_explorer_takes_what_the_operator_takes():
    e = sl.CumulativeSummationExplorer(CUMSUM_INPUT, axis=-2, direction=" DML_AXIS_DIRECTION_DECREASING ")
    assert e.axis.value == 2 and e.direction.value == "decreasing"
    expected = sl.cumulative_summation(CUMSUM_INPUT, -2, direction="decreasing")
    assert e.output.to_array().tolist() == expected.tolist()


def test_cumsum_explorer_summarises_inputs_too_large_to_map():
    x = np.zeros((2100, 2000), dtype=np.float32)  # 4.2 million elements: more than a memory map is built for
    x[0, :4] = [2, 1, 3, 5]
    e = sl.CumulativeSummationExplorer(x)
    assert e.error is None and e.output.to_array()[0, :4].tolist() == [2.0, 3.0, 6.0, 11.0]
    for scene in e.view.scenes:  # drawn through a window of the first cells, and saying so
        assert scene.notes[1].startswith("4200000 logical elements are more than the 4000000 a memory map")
        assert scene.cell_coords[:, 1].max() < 100
    assert e.tally == "step 1 of 2000 along axis 1 (W), increasing: output[0, 0] = 2"
    e.step.value = 4
    assert e.tally == "step 4 of 2000 along axis 1 (W), increasing: output[0, 3] = 2 + 1 + 3 + 5 = 11"
    coords = e.view.panels[1]["cells"]["coords"]
    written = e.view.marks[1]["cells"]["written"]
    assert written and sorted(coords[i] for i in written) == sorted(c for c in coords if c.endswith(",3"))
    e.step.value = 1501  # past the window: the window follows the step along the axis
    coords = e.view.panels[1]["cells"]["coords"]
    written = [coords[i] for i in e.view.marks[1]["cells"]["written"]]
    assert "0,1500" in coords and written and all(c.endswith(",1500") for c in written)


def test_slice_explorer_windows_inputs_too_large_to_map():
    x = np.arange(5_000_000, dtype=np.float32).reshape(2500, 2000)  # more than a memory map is built for
    e = sl.SliceExplorer(x, window_offsets=(2496, 1996), window_sizes=(4, 4))
    assert e.error is None
    assert e.output.to_array().tolist() == [[r * 2000.0 + c for c in range(1996, 2000)] for r in range(2496, 2500)]
    assert "16 of 5000000 elements copied" in e._status.value
    # the input is drawn from the window's corner, so the 16 elements copied are in view
    assert e.view.scenes[0].notes[1].startswith("5000000 logical elements are more than the 4000000")
    assert badges(e.view.panels[0]) == {
        f"{r},{c}": str(4 * (r - 2496) + c - 1996) for r in range(2496, 2500) for c in range(1996, 2000)
    }
    assert e.view.panels[1]["cells"]["key"] == list(range(16))


def test_slice_explorer_badges_follow_logical_coordinates_of_a_broadcast_input():
    b = np.broadcast_to(np.arange(4, dtype=np.float32), (3, 4))  # every row shares one row of slots
    e = sl.SliceExplorer(b, window_offsets=(1, 0), window_sizes=(2, 4))
    assert badges(e.view.panels[0]) == {f"{r},{c}": str(4 * (r - 1) + c) for r in (1, 2) for c in range(4)}
    assert e.view.panels[0]["cells"]["key"] == [-1] * 4 + list(range(8))  # hover links output o to input o
    assert e.view.marks[0]["slots"]["read"] == [0, 1, 2, 3]


def test_slice_explorer_badges_follow_logical_coordinates_of_an_overlapping_input():
    windows = np.lib.stride_tricks.sliding_window_view(np.arange(6, dtype=np.float32), 3)  # strides (1, 1)
    e = sl.SliceExplorer(windows, window_offsets=(1, 1), window_sizes=(3, 2), window_strides=(-2, 1))
    # rows copied from the window's end backwards: row 3, then row 1
    assert badges(e.view.panels[0]) == {"3,1": "0", "3,2": "1", "1,1": "2", "1,2": "3"}
    assert e.output.to_array().tolist() == [[4.0, 5.0], [2.0, 3.0]]


def test_copy_order_agrees_with_the_operator_on_every_window():
    from stridelab.widgets.slice_explorer import copy_order

    sizes = (3, 4)
    logical = np.arange(12, dtype=np.int32).reshape(sizes)  # each element holds its row-major index
    coords = np.indices(sizes).reshape(2, -1).T
    per_dim = [
        [(o, n, s) for o in range(size) for n in range(1, size - o + 1) for s in (-3, -2, -1, 1, 2, 3)]
        for size in sizes
    ]
    for (o0, n0, s0), (o1, n1, s1) in itertools.product(*per_dim):
        window = ((o0, o1), (n0, n1), (s0, s1))
        source = sl.slice1(logical, *window).ravel()
        order = copy_order(coords, *window, (1 + (n0 - 1) // abs(s0), 1 + (n1 - 1) // abs(s1)))
        expected = np.full(12, -1)
        expected[source] = np.arange(source.size)
        assert order.tolist() == expected.tolist(), window


REVERSIBLE = np.arange(12, dtype=np.float32).reshape(3, 4)


def test_slice_explorer_reads_negative_strides_as_the_operator_does():
    x = REVERSIBLE[::-1]  # byte_strides (-16, 4)
    e = sl.SliceExplorer(x, window_offsets=(0, 1), window_sizes=(2, 2))
    assert e.error is None and e.output.to_array().tolist() == [[9.0, 10.0], [5.0, 6.0]]
    assert badges(e.view.panels[0]) == {"0,1": "0", "0,2": "1", "1,1": "2", "1,2": "3"}
    assert cell_table(e.view.panels[0])["0,1"] == (1, "9")  # the logical input, drawn packed
    assert "input drawn from a packed copy: x steps backwards along axes [0]" in e._status.value


def test_cumsum_explorer_reads_negative_strides_as_the_operator_does():
    x = REVERSIBLE[:, ::-1]
    e = sl.CumulativeSummationExplorer(x)
    assert e.output.to_array().tolist() == np.cumsum(x, axis=1).tolist()
    e.step.value = 3
    assert e.tally == "step 3 of 4 along axis 1 (W), increasing: output[0, 2] = 3 + 2 + 1 = 6"


def test_memory_map_view_says_what_to_draw_instead_of_negative_strides():
    with pytest.raises(sl.LayoutError) as error:
        sl.MemoryMapView(REVERSIBLE[::-1])
    message = str(error.value)
    assert "byte_strides [-16, 4] are negative along axes [0]" in message
    assert "draw array[::-1, :] for the buffer layout it reads" in message
    assert "xp.ascontiguousarray(array)" in message


# -- faults found by trying the views as a user would ------------------------------------------------


def test_a_refused_window_start_keeps_the_view_usable():
    view = sl.MemoryMapView(sl.TensorDesc("FLOAT32", (4, 4)))
    with pytest.raises(sl.LayoutError, match=r"start\[0\] = 9 is out of range for sizes\[0\] = 4"):
        view.start = (9, 9)
    assert view.start is None and view.panels[0]["cells"]["coords"][0] == "0,0"
    view.source = sl.TensorDesc("FLOAT32", (3, 3))  # raised on every later source= before
    assert view.desc.sizes == (3, 3) and len(view.panels[0]["cells"]["coords"]) == 9


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda d: sl.MemoryMapView(d, maxcells=5, colour=3),
            "MemoryMapView() got an unexpected keyword argument 'maxcells' (did you mean 'max_cells'?); "
            "it takes: source, max_cells, columns, start, window, colour_by, limit, scale, name",
        ),
        (
            lambda d: sl.compare(d, d, colours=2),
            "compare() got an unexpected keyword argument 'colours' (did you mean 'columns'?); "
            "it takes: a, b, sizes, data_type, max_cells, columns, window, limit, scale",
        ),
        (
            lambda d: sl.explore((2, 3), max_sizes=4),
            "explore() got an unexpected keyword argument 'max_sizes' (did you mean 'max_size'?); "
            "it takes: sizes, layout, data_type, broadcast, padding, strides, max_size, max_padding, max_cells, "
            "limit, scale",
        ),
        (
            lambda d: sl.SliceExplorer(PAGE_INPUT, window_offset=(0, 0, 0, 0)),
            "SliceExplorer() got an unexpected keyword argument 'window_offset' (did you mean 'window_offsets'?)",
        ),
        (
            lambda d: sl.CumulativeSummationExplorer(CUMSUM_INPUT, exclusiv=True),
            "CumulativeSummationExplorer() got an unexpected keyword argument 'exclusiv' (did you mean 'exclusive'?)",
        ),
        (
            lambda d: sl.render_svg(d, colourby=1),
            "render_svg() got an unexpected keyword argument 'colourby' (did you mean 'colour_by'?)",
        ),
    ],
)
def test_misspelt_keywords_are_refused_with_the_accepted_ones(make, message):
    with pytest.raises(TypeError) as error:
        make(sl.TensorDesc("FLOAT32", (2, 3)))
    assert str(error.value).startswith(message)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"max_size": 0}, sl.LayoutError, "max_size = 0: it must be at least 1"),
        ({"max_size": 2.5}, TypeError, "max_size must be an integer, not float (2.5)"),
        ({"max_cells": 0}, sl.LayoutError, "max_cells = 0: it must be at least 1"),
    ],
)
def test_explore_refuses_limits_it_cannot_honour(kwargs, error, message):
    with pytest.raises(error) as raised:
        sl.explore(sizes=(2, 3), **kwargs)
    assert str(raised.value).startswith(message)


def test_the_tally_of_the_first_step_says_the_value_once():
    e = sl.CumulativeSummationExplorer(CUMSUM_INPUT, axis=3)
    assert e.tally.endswith("output[0, 0, 0, 0] = 2")
    e.step.value = 2
    assert e.tally.endswith("output[0, 0, 0, 1] = 2 + 1 = 3")


# -- windows, budgets and scale on every view --------------------------------------------------------


def test_a_window_is_one_start_count_pair_per_dimension():
    desc = sl.TensorDesc("FLOAT32", (1, 64, 56, 56), sl.layout_strides("NHWC", (1, 64, 56, 56)))
    view = sl.MemoryMapView(desc, window=[(0, 1), (8, 4), (10, 4), (20, 4)])
    assert view.window == ((0, 1), (8, 4), (10, 4), (20, 4))
    assert len(view.panels[0]["cells"]["coords"]) == 64 and view.panels[0]["cells"]["coords"][0] == "0,8,10,20"
    with pytest.raises(sl.LayoutError, match=r"window\[1\] = \(60, 8\) does not fit sizes\[1\] = 64"):
        view.window = [(0, 1), (60, 8), (0, 1), (0, 1)]
    assert view.window == ((0, 1), (8, 4), (10, 4), (20, 4))  # refused: the view keeps its window
    view.start = (0, 3, 0, 0)  # the shorthand: a window from that corner, as large as max_cells allows
    assert view.window[1][0] == 3
    with pytest.raises(sl.LayoutError, match=r"holds 200704 cells, more than max_cells = 256"):
        sl.MemoryMapView(desc, window=[(0, 1), (0, 64), (0, 56), (0, 56)])
    with pytest.raises(TypeError, match="give start= or window=, not both"):
        sl.render_svg(desc, start=(0, 0, 0, 0), window=[(0, 1)] * 4)
    svg = sl.render_svg(desc, window=[(0, 1), (0, 2), (0, 2), (0, 2)])
    assert svg.count('<g class="cell"') == 8


def test_limit_is_the_memory_map_budget_of_every_view():
    desc = sl.TensorDesc("UINT8", (20, 20), (21, 1))  # one padding slot after each row
    assert "x" in sl.MemoryMapView(desc).panels[0]["slots"]["label"]  # a full map: padding known
    # under a budget of 100 elements only the window's own slots are worked out: no padding claimed
    limited = sl.MemoryMapView(desc, limit=100)
    assert "x" not in limited.panels[0]["slots"]["label"]
    budget = "400 logical elements are more than the 100 a memory map is built for"
    assert any(note.startswith(budget) for note in limited.scene.notes)
    assert any(note.startswith(budget) for note in sl.compare(desc, desc, limit=100).scenes[0].notes)
    assert "more than the 100" in sl.render_svg(desc, limit=100)
    explorers = (
        sl.explore((20, 20), limit=100).view,
        sl.CumulativeSummationExplorer(np.ones((20, 20), np.uint32), limit=100).view,
    )
    for view in explorers:
        assert any(note.startswith(budget) for note in view.scenes[0].notes)


def test_scale_enlarges_the_picture_not_the_drawing():
    desc = sl.TensorDesc("FLOAT32", (2, 3))
    plain, scaled = sl.render_svg(desc), sl.render_svg(desc, scale=2)
    assert scaled.replace(scaled.split(">", 1)[0], "") == plain.replace(plain.split(">", 1)[0], "")
    width = int(plain.split('width="', 1)[1].split('"', 1)[0])
    assert f'width="{2 * width}"' in scaled.split(">", 1)[0] and f'viewBox="0 0 {width} ' in scaled
    view = sl.MemoryMapView(desc, scale=2)
    assert f'width="{2 * width}"' in view.panels[0]["svg"].split(">", 1)[0]
    assert view._repr_mimebundle_()[1]["image/png"]["width"] == 2 * width
    for make in (lambda: sl.explore((2, 3), scale=1.5), lambda: sl.CumulativeSummationExplorer(CUMSUM_INPUT, scale=2)):
        assert make()._scale in (1.5, 2.0)
    with pytest.raises(sl.LayoutError, match=r"scale = 0: it must be more than 0 and at most 8"):
        sl.MemoryMapView(desc, scale=0)
    with pytest.raises(TypeError, match=r"scale must be a number, not str \('2'\)"):
        sl.render_svg(desc, scale="2")


def test_live_views_lay_out_for_the_width_the_page_reports():
    desc = sl.TensorDesc("FLOAT32", (1, 8, 4, 4))
    view = sl.MemoryMapView(desc)
    assert view.scene.width > 600  # laid out for 960 px until the page reports its width
    view.available_width = 600  # as the script reports a narrow output area
    assert view.scene.width <= 600
    c = sl.compare(desc, sl.TensorDesc("FLOAT32", (1, 8, 4, 4), sl.layout_strides("NHWC", (1, 8, 4, 4))))
    c.available_width = 600
    assert max(scene.width for scene in c.scenes) <= 600
    e = sl.CumulativeSummationExplorer(np.ones((1, 8, 4, 4), np.float32), axis=1)
    e.view.available_width = 600
    assert max(scene.width for scene in e.view.scenes) <= 600


def test_review_fixes_keep_state_and_cost_bounded():
    # a width report redraws the same drawing: the selection made from Python stays
    view = sl.MemoryMapView(sl.TensorDesc("FLOAT32", (2, 3), (0, 1)))
    view.select((1, 2))
    view.available_width = 700
    assert view.selected == {"panel": 0, "slot": 2} and view.selection["elements"] == [(0, 2), (1, 2)]
    # an enlarged drawing is laid out for the width it will take up once enlarged
    wide = sl.MemoryMapView(sl.TensorDesc("FLOAT32", (1, 8, 4, 4)), scale=2)
    wide.available_width = 1200
    assert wide.scene.width <= 600
    # beyond the memory-map budget a selection lists the drawn elements stored in the slot
    big = sl.MemoryMapView(sl.TensorDesc("UINT8", (3000, 3000)))
    big.select((1, 2))
    assert big.selection == {
        "slot": 3002,
        "byte": 3002,
        "kind": "element",
        "label": "3002",
        "elements": [(1, 2)],
        "complete": False,
    }
    assert "my caption" in sl.MemoryMapView(sl.TensorDesc("UINT8", (2, 3)), name="my caption").to_svg()
    with pytest.raises(sl.LayoutError, match="names must give one caption for each of the two sides"):
        sl.widgets.Comparison(sl.TensorDesc("UINT8", (2, 3)), sl.TensorDesc("UINT8", (2, 3)), names=("a",))
    # a long axis: outputs link only to drawn inputs, and the tally stays one short line
    e = sl.CumulativeSummationExplorer(np.arange(100_000, dtype=np.float32))
    e.step.value = 100_000
    drawn = {int(c) for c in e.view.panels[0]["cells"]["coords"]}
    assert all(set(key) <= drawn for key in e.view.panels[1]["cells"]["key"])
    assert e.tally.endswith("0 + 1 + 2 + 3 + 4 + 5 + 6 + … + 1e+05 = 5e+09 (100000 terms)")
    # walking down a long axis, the window reaches ahead of the step: a redraw every window, not every step
    walk = sl.CumulativeSummationExplorer(np.ones((64, 64), np.float32), axis=0, direction="decreasing")
    windows = set()
    for step in range(1, 65):
        walk.step.value = step
        windows.add(walk.view.scenes[0].window.starts)
    assert len(windows) <= 6


def masked_message(field: str) -> str:
    return re.escape(f"{field}: masked arrays are not supported (numpy.ma.MaskedArray); pass x.filled(value) or x.data")


def test_views_refuse_a_masked_source():
    # a drawing of the data under the mask would show values the array hides
    MASKED = np.ma.array(np.array([1, 2, 3, 4], np.float32), mask=[False, True, False, False])
    with pytest.raises(TypeError, match=masked_message("source")):
        sl.MemoryMapView(MASKED)
    view = sl.MemoryMapView(sl.TensorDesc("FLOAT32", (4,)))
    with pytest.raises(TypeError, match=masked_message("source")):
        view.source = MASKED
    with pytest.raises(TypeError, match=masked_message("b")):
        sl.compare("W", MASKED, sizes=(4,))
    for explorer in (sl.SliceExplorer, sl.CumulativeSummationExplorer):
        with pytest.raises(TypeError, match=masked_message("x")):
            explorer(MASKED)


# -- what the page can send, and budgets checked before any drawing ---------------------------------


FORGED = [
    ({"panel": 0, "slot": 10**12}, sl.LayoutError, r"selected\['slot'\] = 1000000000000 is out of range"),
    ({"panel": 0, "slot": float("nan")}, TypeError, r"selected\['slot'\] must be an integer, not float nan"),
    ({"panel": 0, "slot": 1.7}, TypeError, r"selected\['slot'\] must be an integer, not float 1.7"),
    ({"panel": 0, "slot": True}, TypeError, r"selected\['slot'\] must be an integer, not bool"),
    ({"panel": 0, "slot": "3"}, TypeError, r"selected\['slot'\] must be an integer, not str '3'"),
    ({"panel": 0, "slot": -1}, sl.LayoutError, r"selected\['slot'\] = -1 is out of range for a buffer of 9000000"),
    ({"panel": 1, "slot": 3}, sl.LayoutError, r"selected\['panel'\] = 1 is out of range for 1 panels"),
    ({"slot": 3}, sl.LayoutError, r"selected = \{'slot': 3\}: a selection is \{\} or"),
    # beyond the memory-map limit only the drawn slots are known: slot 5000 is outside the window
    ({"panel": 0, "slot": 5000}, sl.LayoutError, "slot 5000 is not drawn, and beyond the memory-map limit"),
]


@pytest.mark.parametrize(("forged", "error", "match"), FORGED)
def test_a_forged_selection_is_refused_and_the_selection_kept(forged, error, match):
    view = sl.MemoryMapView(sl.TensorDesc("UINT8", (3000, 3000)))  # windowed: 9M elements
    view.select((1, 2))
    kept = {"slot": 3002, "byte": 3002, "kind": "element", "label": "3002", "elements": [(1, 2)], "complete": False}
    with pytest.raises(error, match=match):
        view.set_state({"selected": forged})  # as a message from the page
    assert view.selected == {"panel": 0, "slot": 3002} and view.selection == kept
    with pytest.raises(error, match=match):
        view.selected = forged  # and from Python
    assert view.selection == kept


def test_a_selection_on_a_map_of_two_panels_names_one_of_them():
    c = sl.compare()  # 12 slots a side
    c.set_state({"selected": {"panel": 1, "slot": 11}})
    assert c.selected == {"panel": 1, "slot": 11}
    with pytest.raises(sl.LayoutError, match=r"selected\['panel'\] = 2 is out of range for 2 panels"):
        c.set_state({"selected": {"panel": 2, "slot": 0}})
    with pytest.raises(sl.LayoutError, match=r"selected\['slot'\] = 12 is out of range for a buffer of 12 slots"):
        c.set_state({"selected": {"panel": 0, "slot": 12}})
    assert c.selected == {"panel": 1, "slot": 11}


def test_the_page_sets_only_the_selection_and_the_width():
    view = sl.MemoryMapView(sl.TensorDesc("FLOAT32", (2, 3)))
    panels = view.panels
    view.set_state({"panels": [], "marks": [{"cells": {}}], "copy_lines": ["forged"], "stale": True})
    assert view.panels == panels and view.marks == [] and view.copy_lines == ["FLOAT32 (2,3):(3,1)"]
    assert view.stale is False
    with pytest.raises(sl.LayoutError, match=r"available_width = 1000000000: a width in pixels is 0 to 32768"):
        view.set_state({"available_width": 10**9})
    assert view.available_width == 0


@pytest.mark.parametrize(
    "make",
    [
        lambda d, n: sl.MemoryMapView(d, max_cells=n),
        lambda d, n: sl.compare(d, d, max_cells=n),
        lambda d, n: sl.explore((3000, 3000), max_cells=n),
        lambda d, n: sl.SliceExplorer(np.zeros((3000, 3000), np.uint8), max_cells=n),
        lambda d, n: sl.CumulativeSummationExplorer(np.zeros((3000, 3000), np.uint32), max_cells=n),
        lambda d, n: sl.render_svg(d, max_cells=n),
    ],
)
def test_max_cells_past_the_cap_is_refused_before_drawing(make, monkeypatch):
    # max_cells = 10**9 ran for more than a minute; the cap (16384 cells: 0.5 s and 10 MB of SVG)
    # is checked before any cell is laid out
    import stridelab.render.layout as layout

    desc = sl.TensorDesc("UINT8", (3000, 3000))
    monkeypatch.setattr(layout, "logical_view", lambda *args: pytest.fail("laid out cells past the cap"))
    with pytest.raises(sl.LayoutError, match=r"max_cells = 1000000000: at most 16384 cells are drawn"):
        make(desc, 10**9)


def test_max_cells_at_the_cap_is_drawn():
    view = sl.MemoryMapView(sl.TensorDesc("UINT8", (128, 256)), max_cells=16384)
    assert len(view.panels[0]["cells"]["coords"]) == 128 * 256 // 2


# -- controls that keep a usable width (tests/test_browser_zoom.py measures them in a browser) ------


def controls_of(widget) -> list:
    """Every ipywidgets control under ``widget``, depth first."""
    found = []
    for child in getattr(widget, "children", ()):
        found.append(child)
        found.extend(controls_of(child))
    return found


@pytest.mark.parametrize(
    "make",
    [
        lambda: sl.explore((1, 3, 2, 2)),
        lambda: sl.SliceExplorer(np.zeros((1, 2, 4, 4), np.float32)),
        lambda: sl.CumulativeSummationExplorer(CUMSUM_INPUT),
    ],
    ids=["explore", "slice", "cumsum"],
)
def test_explorer_rows_wrap_and_their_controls_never_shrink(make):
    e = make()
    rows = [c for c in controls_of(e) if isinstance(c, w.HBox)]
    controls = [c for r in rows for c in r.children if not isinstance(c, w.Box)]
    sliders = [c for c in controls if isinstance(c, w.IntSlider)]
    assert sliders and all(c.layout.flex == "0 0 auto" for c in controls)
    # rows of controls wrap onto the next line rather than squeezing them
    assert all(r.layout.flex_flow == "row wrap" for r in rows if any(c in r.children for c in sliders))
    # a slider's width holds its description (80 px), a 120 px track and the readout (96 px)
    assert all(int(s.layout.width.removesuffix("px")) >= 80 + 120 + 96 for s in sliders)
    labels = [c for c in controls if isinstance(c, w.Label)]
    assert all(label.layout.width == "auto" for label in labels)


def test_play_has_a_tooltip_naming_its_buttons():
    e = sl.CumulativeSummationExplorer(CUMSUM_INPUT)
    assert all(word in e.play.tooltip for word in ("play", "pause", "stop", "repeat"))


def test_explore_draws_fewer_cells_of_a_large_tensor_to_fit_a_screen():
    e = sl.explore((16, 16, 16, 16))
    scene = e.view.scene
    # 256 cells drew 2132 px tall; halved to 64 (2 x 2 x 4 x 4 = 64), under the 640 px the map may take
    assert scene.window.counts == (2, 2, 4, 4) and scene.height <= 640
    assert len(e.view.panels[0]["cells"]["coords"]) == 64
    with sl.settings(scale=2):  # shown twice as large (and laid out half as wide): the fewest cells, 16
        big = sl.explore((16, 16, 16, 16))
    assert big.view.scene.window.counts == (2, 2, 2, 2) and len(big.view.panels[0]["cells"]["coords"]) == 16
    # a small tensor is drawn whole, and a plain view keeps its budget of 256 cells
    assert len(sl.explore((1, 3, 2, 2)).view.panels[0]["cells"]["coords"]) == 12
    view = sl.MemoryMapView(sl.TensorDesc("FLOAT32", (16, 16, 16, 16)))
    assert len(view.panels[0]["cells"]["coords"]) == 256
    # shrinking the sizes gives the cells back
    e.configure(sizes=(1, 1, 4, 4))
    assert len(e.view.panels[0]["cells"]["coords"]) == 16
