"""Widget state, traits and validation, without a browser (see test_browser.py for one)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import stridelab as sl
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
