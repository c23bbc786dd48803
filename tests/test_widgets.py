"""Widget state, traits and validation, without a browser (see test_browser.py for one)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import stridelab as sl

pytest.importorskip("anywidget")  # the GPU machines have no widget packages; `make test-gpu` collects this file

from stridelab.widgets.memory_map_view import STATIC_MAX_CELLS

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


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


def test_broadcast_slot_lights_several_cells():
    view = sl.MemoryMapView(sl.TensorDesc("FLOAT32", (2, 3), (0, 1)))
    (panel,) = view.panels
    assert panel["slots"]["count"] == [2, 2, 2]
    slot_of = dict(zip(panel["cells"]["coords"], panel["cells"]["slot"]))
    assert slot_of["0,1"] == slot_of["1,1"] == 1
    view.select((1, 2))
    assert view.selected == {"panel": 0, "slot": 2}
    assert view.selection == {"slot": 2, "byte": 8, "kind": "shared", "label": "C", "elements": [(0, 2), (1, 2)]}


def test_selecting_padding_and_clearing():
    view = sl.MemoryMapView(sl.TensorDesc("UINT8", (2, 3), (5, 1)))
    view.select(slot=3)
    assert view.selection == {"slot": 3, "byte": 3, "kind": "padding", "label": "x", "elements": []}
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
    assert data["text/html"] == sl.render_svg(desc, max_cells=STATIC_MAX_CELLS)
    assert WIDGET_VIEW in data


def test_setting_the_source_redraws_and_clears_the_selection():
    view = sl.MemoryMapView(sl.TensorDesc("FLOAT32", (2, 3)))
    view.select((0, 0))
    view.source = sl.TensorDesc("FLOAT32", (3, 3))
    assert len(view.panels[0]["cells"]["x"]) == 9 and view.selected == {}


def test_large_tensors_are_windowed_within_budget():
    view = sl.MemoryMapView(sl.TensorDesc("FLOAT32", (1, 4, 512, 512)))
    (panel,) = view.panels
    assert len(panel["cells"]["x"]) == 1024 and len(panel["slots"]["x"]) <= 1024
    notes = [text for _, _, text, role in panel["texts"] if role == "note"]
    assert notes[0] == "showing 1024 of 1048576 logical elements: the window [0:1, 0:4, 0:16, 0:16]"
    data, _ = view._repr_mimebundle_()
    size = len(json.dumps(view.get_state())) + len(json.dumps(data))
    assert size < 200_000
    view.start = (0, 2, 100, 200)
    assert view.panels[0]["cells"]["coords"][0] == "0,2,100,200"


def test_refuses_what_it_cannot_draw():
    with pytest.raises(TypeError, match="expected a TensorDesc, MemoryMap, StridedTensor or array, not list"):
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
    assert c._repr_mimebundle_()[0]["text/html"] == svg
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
    assert len(e.view.panels[0]["cells"]["x"]) == 8
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
    assert "not drawn: padding[" in e._status.value and "stridelab-stale" in e.view._dom_classes
    assert repr(e).startswith("LayoutExplorer(error=")
    assert "not drawn" in e._repr_mimebundle_()["text/html"]
    e.padding_sliders[0].value = 0
    assert e.desc is not None and "stridelab-stale" not in e.view._dom_classes


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
    return {c: b for c, b in zip(panel["cells"]["coords"], panel["cells"]["badge"]) if b}


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
        "SliceExplorer(TensorDesc('FLOAT32', sizes=(1, 1, 4, 4), strides=(1, 1, 4, 1)), "
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
    assert "stridelab-error" in e._repr_mimebundle_()["text/html"]
    e.stride_sliders[2].value = 1
    e.offset_sliders[3].value = 2  # a window of 4 from offset 2 runs past the input's 4 columns
    assert e.output is None and "window_offsets" in e.error


def test_slice_explorer_reads_a_padded_strided_tensor():
    desc = sl.TensorDesc("INT16", (2, 3), (5, 1))
    t = sl.StridedTensor(desc, np.arange(10, dtype=np.int16))
    e = sl.SliceExplorer(t, window_offsets=(0, 1), window_sizes=(2, 2), window_strides=(1, 1))
    assert e.output.to_array().tolist() == [[1, 2], [6, 7]]
    assert e.view.marks[0]["slots"]["read"] == [1, 2, 6, 7]  # every slot is drawn: positions are offsets


def test_slice_explorer_refuses_windows_of_the_wrong_rank():
    with pytest.raises(sl.LayoutError, match="window_offsets \\[0\\] has 1 entries but the input has 4 dimensions"):
        sl.SliceExplorer(PAGE_INPUT, window_offsets=(0,))


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
    assert e.step.max == 3 and e.play.max == 3
    assert e.tally == "step 1 of 4 along axis 3 (W), increasing: output[0, 0, 0, 0] = 2 = 2"
    e.step.value = 3
    assert e.tally == "step 4 of 4 along axis 3 (W), increasing: output[0, 0, 0, 3] = 2 + 1 + 3 + 5 = 11"
    read, written = e.view.marks
    coords = e.view.panels[0]["cells"]["coords"]
    assert [coords[i] for i in read["cells"]["read"]] == ["0,0,0,3", "0,0,1,3", "0,0,2,3"]
    assert written["cells"]["written"] == read["cells"]["read"] and written["cells"]["pending"] == []
    e.direction.value = "decreasing"
    e.step.value = 1
    assert e.tally == "step 2 of 4 along axis 3 (W), decreasing: output[0, 0, 0, 2] = 5 + 3 = 8"
    assert len(e.view.marks[1]["cells"]["pending"]) == 6  # columns 0 and 1 are not written yet


def test_cumsum_explorer_links_the_same_coordinates():
    e = sl.CumulativeSummationExplorer(CUMSUM_INPUT, axis=2, exclusive=True)
    assert e.view.panels[0]["cells"]["key"] == e.view.panels[1]["cells"]["key"] == list(range(12))
    assert repr(e) == (
        "CumulativeSummationExplorer(TensorDesc('FLOAT32', sizes=(1, 1, 3, 4), strides=(1, 1, 4, 1)), "
        "axis=2, direction='increasing', exclusive=True)"
    )
    assert e.tally == "step 1 of 3 along axis 2 (H), increasing, exclusive: output[0, 0, 0, 0] = 0 (nothing summed yet)"


def test_cumsum_explorer_shows_refused_data_types_inline():
    e = sl.CumulativeSummationExplorer(np.arange(6, dtype=np.int8).reshape(2, 3), axis=1)
    assert e.output is None and "INT8" in e.error
    assert [p["name"] for p in e.view.panels] == ["input"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"axis": 4}, r"axis = 4 must be a dimension index of the input, 0 <= axis < 4"),
        ({"direction": "up"}, "direction = 'up'"),
    ],
)
def test_cumsum_explorer_refuses_bad_parameters(kwargs, match):
    with pytest.raises(sl.LayoutError, match=match):
        sl.CumulativeSummationExplorer(CUMSUM_INPUT, **kwargs)
