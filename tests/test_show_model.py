"""Tests of a DxDispatch model's drawing (``stridelab show MODEL.json``, a model in Jupyter): an
output that copies input elements shows their letters and colours; other tensors keep their own.

Expected letters are worked out by hand from the operators' definitions, or are the values of
DirectML's SLICE1 page examples (input 1..16, so value v is the v-th letter).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from stridelab import LayoutError, TensorDesc, _jsonc, cli
from stridelab.dxdispatch import load
from stridelab.render.options import LabelSource
from stridelab.render.scene import build_scene

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SVG = "{http://www.w3.org/2000/svg}"


def write_model(folder: Path, dispatchables: dict) -> Path:
    path = folder / "model.json"
    path.write_text(json.dumps({"resources": {}, "dispatchables": dispatchables, "commands": []}))
    return path


def slice1(input_sizes, output_sizes, offsets, sizes, strides, *, input_strides=None, data_type="FLOAT32") -> dict:
    x = {"DataType": data_type, "Sizes": list(input_sizes)}
    if input_strides is not None:
        x["Strides"] = list(input_strides)
    return {
        "type": "DML_OPERATOR_SLICE1",
        "desc": {
            "InputTensor": x,
            "OutputTensor": {"DataType": data_type, "Sizes": list(output_sizes)},
            "DimensionCount": len(input_sizes),
            "InputWindowOffsets": list(offsets),
            "InputWindowSizes": list(sizes),
            "InputWindowStrides": list(strides),
        },
    }


def shown_text(capsys, path: Path) -> dict[str, str]:
    """``stridelab show`` of the model at ``path``: each tensor's text, by name."""
    assert cli.main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    return {part.split("\n", 1)[0]: part.split("\n", 1)[1] for part in out.split("== ")[1:]}


def panels_of(svg_path: Path) -> dict[str, tuple[list[str], list[str], list[str]]]:
    """Each panel of a written SVG: its cells' labels and fills (row-major) and its header lines."""
    root = ET.parse(svg_path).getroot()
    names = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "panel-name"]
    found = {}
    for name, panel in zip(names, (p for p in root.iter(f"{SVG}svg") if p.get("class") == "panel")):
        cells = sorted(
            (g for g in panel.iter(f"{SVG}g") if g.get("class") == "cell"), key=lambda g: int(g.get("data-index"))
        )
        labels = [g.get("data-label") for g in cells]
        fills = [g.find(f"{SVG}rect").get("fill") for g in cells]
        header = [t.text for g in panel.iter(f"{SVG}g") if g.get("class") == "detail" for t in g]
        found[name] = (labels, fills, header)
    return found


# -- the example, by hand --------------------------------------------------------------------
def test_the_reversing_slice1_output_reads_rows_0_and_2_reversed(capsys):
    texts = shown_text(capsys, EXAMPLES / "reversing-slice1.json")
    x, out = texts["reverse_rows.InputTensor"], texts["reverse_rows.OutputTensor"]
    assert "A B C D\nE F G H\nI J K L" in x and "letters: its own, A, B, C, ... in logical order" in x
    assert "D C B A\nL K J I" in out
    assert " Value:|D|C|B|A|L|K|J|I" in out
    assert "letters from InputTensor: each element shows the InputTensor element SLICE1 copies into it" in out


def test_the_letters_name_the_values_a_run_writes():
    # Matrix holds 0..3, 10..13, 20..23 in rows A-D, E-H, I-L: D C B A / L K J I are these values
    result = load(EXAMPLES / "reversing-slice1.json").run()
    assert result["Reversed"].tolist() == [3, 2, 1, 0, 23, 22, 21, 20]


def test_the_svg_carries_letters_and_colours_across_panels(tmp_path, capsys):
    svg = tmp_path / "reverse.svg"
    assert cli.main(["show", str(EXAMPLES / "reversing-slice1.json"), "--svg", str(svg)]) == 0
    panels = panels_of(svg)
    x_labels, x_fills, _ = panels["reverse_rows.InputTensor"]
    out_labels, out_fills, header = panels["reverse_rows.OutputTensor"]
    assert out_labels == list("DCBALKJI")
    colour = dict(zip(x_labels, x_fills))
    assert out_fills == [colour[label] for label in out_labels]  # L is the colour of input row 2 in both
    assert out_fills[4] == x_fills[8] != x_fills[4]
    assert any("letters from InputTensor" in line for line in header)


# -- DirectML's SLICE1 page examples (input values 1..16 are letters A..P) ---------------------------
@pytest.mark.parametrize(
    ("strides", "expected"),
    [((1, 1, 2, 2), "B D\nJ L"), ((1, 1, -2, 2), "N P\nF H")],  # outputs 2 4 / 10 12 and 14 16 / 6 8
    ids=["example 1, positive strides", "example 2, negative strides"],
)
def test_the_slice1_page_examples(tmp_path, capsys, strides, expected):
    model = write_model(tmp_path, {"s": slice1((1, 1, 4, 4), (1, 1, 2, 2), (0, 0, 0, 1), (1, 1, 4, 3), strides)})
    out = shown_text(capsys, model)["s.OutputTensor"]
    assert f"logical view:\n(0, 0, :, :)\n{expected}\n" in out


def test_slice_version_1_from_the_dxdispatch_models(capsys):
    # Out[i, j] = In[1 + i, 1 + 2 j] over a 5x5 input lettered A..Y row by row
    path = ROOT.parent / "shared" / "dxdispatch" / "models" / "dml_slice.json"
    if not path.exists():
        pytest.skip("the DxDispatch models are not beside this checkout")
    assert "G I\nL N\nQ S" in shown_text(capsys, path)["slice.OutputTensor"]


# -- identity ---------------------------------------------------------------------------------------
def test_padded_to_packed_keeps_each_letter_and_drops_the_padding(capsys):
    texts = shown_text(capsys, EXAMPLES / "padded-to-packed.json")
    assert " Value:|A|B|C|x|x|D|E|F" in texts["pack.InputTensor"]
    assert " Value:|A|B|C|D|E|F" in texts["pack.OutputTensor"]
    assert "ELEMENT_WISE_IDENTITY copies into it" in texts["pack.OutputTensor"]


def test_a_broadcast_input_copied_column_major_repeats_its_letters(tmp_path, capsys):
    identity = {
        "type": "ELEMENT_WISE_IDENTITY",
        "desc": {
            "InputTensor": {"DataType": "UINT8", "Sizes": [2, 3], "Strides": [0, 1]},
            "OutputTensor": {"DataType": "UINT8", "Sizes": [2, 3], "Strides": [1, 2]},
        },
    }
    texts = shown_text(capsys, write_model(tmp_path, {"copy": identity}))
    assert "A B C\nA B C" in texts["copy.InputTensor"]
    assert "A B C\nA B C" in texts["copy.OutputTensor"]
    assert " Value:|A|A|B|B|C|C|.|." in texts["copy.OutputTensor"]  # column-major: (0,0), (1,0), (0,1), ...


def test_scale_and_bias_are_said(tmp_path, capsys):
    identity = {
        "type": "ELEMENT_WISE_IDENTITY",
        "desc": {
            "InputTensor": {"DataType": "FLOAT32", "Sizes": [3]},
            "OutputTensor": {"DataType": "FLOAT32", "Sizes": [3], "Strides": [1]},
            "ScaleBias": {"Scale": 2, "Bias": 10},
        },
    }
    out = shown_text(capsys, write_model(tmp_path, {"scaled": identity}))["scaled.OutputTensor"]
    assert "copies into it (scaled and biased)" in out and "A B C" in out


# -- what keeps its own letters ------------------------------------------------------------------
def test_a_cumulative_output_keeps_its_own_letters_and_says_why(capsys):
    texts = shown_text(capsys, EXAMPLES / "nhwc-cumulative-sum.json")
    out = texts["sum_channels.OutputTensor"]
    assert "letters: its own; each element sums several InputTensor elements (a running sum along axis 1)" in out
    assert " Value:|A|B|C|D|E|F|G|H|I|J| K| L" in out  # packed NCHW, lettered in logical order


def test_a_cumulative_product_says_it_multiplies(capsys):
    out = shown_text(capsys, EXAMPLES / "cumulative-product.json")["suffix_products.OutputTensor"]
    assert "each element multiplies several InputTensor elements (a running product along axis 3)" in out


CHANGED_TYPE = {
    "type": "ELEMENT_WISE_IDENTITY",
    "desc": {
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [2, 2]},
        "OutputTensor": {"DataType": "FLOAT16", "Sizes": [2, 2]},
    },
}


@pytest.mark.parametrize(
    ("dispatchable", "operator"),
    [
        (slice1((4, 4), (2, 2), (1, 3), (2, 2), (1, 1)), "SLICE1"),  # the window [3, 5) leaves the 4 columns
        (slice1((4, 4), (2, 2), (0, 0), (2, 2), (1, 1), data_type="FLOAT64"), "SLICE1"),  # not in its table
        (CHANGED_TYPE, "ELEMENT_WISE_IDENTITY"),  # the output's data type differs from the input's
    ],
    ids=["window outside", "data type", "changed data type"],
)
def test_a_copy_that_dispatch_would_refuse_is_drawn_with_its_own_letters(tmp_path, capsys, dispatchable, operator):
    desc = dispatchable["desc"]
    resources = {
        name: {"initialValuesDataType": desc[point]["DataType"], "initialValues": {"valueCount": 16, "value": 0}}
        for name, point in (("X", "InputTensor"), ("Y", "OutputTensor"))
    }
    bindings = {"InputTensor": "X", "OutputTensor": "Y"}
    model = tmp_path / "model.json"
    model.write_text(
        json.dumps(
            {
                "resources": resources,
                "dispatchables": {"s": dispatchable},
                "commands": [{"type": "dispatch", "dispatchable": "s", "bindings": bindings}],
            }
        )
    )
    with pytest.raises(LayoutError, match="command 0 \\(dispatch 's' with"):
        load(model)  # a run refuses it
    out = shown_text(capsys, model)["s.OutputTensor"]
    assert "A B\nC D" in out and f"{operator} refuses these tensors: stridelab dispatch says why" in out


# -- past 26 elements, numbers -------------------------------------------------------------------
def test_past_26_input_elements_the_output_shows_input_indices(tmp_path, capsys):
    # a 6x5 input (30 elements, row-major indices 5 r + c); rows reversed, every second column:
    # Out[i, j] = In[5 - i, 2 j], index 25 - 5 i + 2 j
    model = write_model(tmp_path, {"s": slice1((6, 5), (6, 3), (0, 0), (6, 5), (-1, 2))})
    texts = shown_text(capsys, model)
    assert "numbers: its own, each element's row-major index" in texts["s.InputTensor"]
    out = texts["s.OutputTensor"]
    assert "numbers from InputTensor: each element shows the index of the InputTensor element" in out
    assert "25 27 29\n20 22 24\n15 17 19\n10 12 14\n 5  7  9\n 0  2  4" in out


def test_a_strided_input_keeps_its_letters_through_its_strides(tmp_path, capsys):
    # input 2x3 stored column-major (strides 1, 2): letters A..F in logical order, and Out = In[:, ::-1]
    model = write_model(tmp_path, {"s": slice1((2, 3), (2, 3), (0, 0), (2, 3), (1, -1), input_strides=(1, 2))})
    texts = shown_text(capsys, model)
    assert " Value:|A|D|B|E|C|F" in texts["s.InputTensor"]
    assert "C B A\nF E D" in texts["s.OutputTensor"]


# -- Jupyter ---------------------------------------------------------------------------------------------
def test_in_jupyter_a_model_shows_the_same_letters(monkeypatch):
    pytest.importorskip("IPython")
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda data, **kw: shown.append(data))
    load(EXAMPLES / "reversing-slice1.json")._ipython_display_()
    svg = shown[1]["image/svg+xml"]
    assert "letters from InputTensor" in svg
    assert _cell_labels(svg)[-8:] == list("DCBALKJI")


def _cell_labels(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return [g.get("data-label") for g in root.iter(f"{SVG}g") if g.get("class") == "cell"]


# -- the drawing option ----------------------------------------------------------------------------
ROWS = TensorDesc("INT32", (2, 3))


def test_a_label_source_without_a_description_only_adds_its_line():
    plain, said = build_scene(ROWS), build_scene(ROWS, labels_from=LabelSource("letters: its own"))
    assert said.slot_labels == plain.slot_labels == ("A", "B", "C", "D", "E", "F")
    assert [t.text for t in said.texts if t.role == "detail"][-1] == "letters: its own"


@pytest.mark.parametrize(
    ("source", "error", "message"),
    [
        (LabelSource("x", ROWS, np.zeros((3, 2), int)), LayoutError, "has shape [3, 2]: expected one index per"),
        (
            LabelSource("x", ROWS, np.full((2, 3), 6)),
            LayoutError,
            "holds 6: indices of LabelSource.desc's elements are 0..5",
        ),
        (LabelSource("x", ROWS, np.full((2, 3), -1)), LayoutError, "holds -1"),
        (LabelSource("x", ROWS, np.zeros((2, 3))), TypeError, "LabelSource.elements"),
        (LabelSource("x", "INT32 (2,3)", np.zeros((2, 3), int)), TypeError, "LabelSource.desc"),
        (LabelSource(3), TypeError, "LabelSource.text"),
        (LabelSource("x", TensorDesc("UINT8", (3000, 3000)), np.zeros((2, 3), int)), LayoutError, "at most"),
    ],
)
def test_a_bad_label_source_is_refused_by_name(source, error, message):
    with pytest.raises(error) as raised:
        build_scene(ROWS, labels_from=source)
    assert message in str(raised.value)


def test_an_output_of_a_huge_input_keeps_its_own_letters_without_a_run(tmp_path, capsys):
    # 2**32 input elements: tracing would need a buffer of them; the drawing says why it does not
    model = write_model(tmp_path, {"s": slice1((65536, 65536), (2, 2), (0, 0), (2, 2), (1, 1), data_type="UINT8")})
    out = shown_text(capsys, model)["s.OutputTensor"]
    assert "A B\nC D" in out and "(more than 4000000 elements or slots to trace to InputTensor)" in out


def test_show_reads_no_resource_and_writes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    model = _jsonc.loads((EXAMPLES / "reversing-slice1.json").read_text(), "reversing-slice1.json")
    model["resources"]["Matrix"]["initialValues"] = {"sourcePath": "absent.npy"}  # load would refuse it
    model["commands"].append({"type": "writeFile", "resource": "Reversed", "targetPath": "out.npy"})
    path = tmp_path / "model.json"
    path.write_text(json.dumps(model))
    assert "D C B A\nL K J I" in shown_text(capsys, path)["reverse_rows.OutputTensor"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.json"]


def test_a_label_source_labels_a_description_too_large_for_a_memory_map():
    # rows 10**7 elements apart: no memory map, the window's slots worked out from the strides
    far = TensorDesc("INT32", (2, 3), (10**7, 1))
    scene = build_scene(far, labels_from=LabelSource("rows reversed", ROWS, np.array([[2, 1, 0], [5, 4, 3]])))
    assert scene.cell_labels() == ["C", "B", "A", "F", "E", "D"]
    assert scene.slot_colours.tolist() == [0, 0, 0, 1, 1, 1]  # ROWS colours its rows
