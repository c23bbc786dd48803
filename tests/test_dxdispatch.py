"""DxDispatch models: upstream's own models print upstream's expected lines, stridelab's examples
print values computed here with NumPy, and every malformed model fails in one line before any
command runs (exit status 2, no traceback, no file written)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from stridelab import LayoutError, _jsonc, cli
from stridelab.dxdispatch import load
from stridelab.dxdispatch.output import print_lines

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
UPSTREAM = ROOT.parent / "shared" / "dxdispatch" / "models"
needs_upstream = pytest.mark.skipif(not UPSTREAM.is_dir(), reason=f"upstream models not found at {UPSTREAM}")


def dispatch(capsys, *argv: str) -> tuple[int, list[str], list[str]]:
    """Run ``stridelab dispatch`` in this process: exit status, stdout lines, stderr lines."""
    status = cli.main(["dispatch", *map(str, argv)])
    captured = capsys.readouterr()
    return status, captured.out.splitlines(), captured.err.splitlines()


def resource_lines(lines: list[str]) -> list[str]:
    """The lines ``print`` commands wrote."""
    return [line for line in lines if line.startswith("Resource '") and "' written to '" not in line]


def printed_values(lines: list[str], name: str) -> list[float]:
    (line,) = [line for line in lines if line.startswith(f"Resource '{name}': ")]
    return [float(v) for v in line.split(": ", 1)[1].split(", ")]


# -- upstream's models ---------------------------------------------------------------------------
@needs_upstream
@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("dml_element_wise_identity.json", "Resource 'Out': 12, 14, 16"),
        ("dml_slice.json", "Resource 'output': 7, 9, 12, 14, 17, 19"),
        ("dml_cumulative_product.json", "Resource 'Out': 2, 8, 64, 192"),
    ],
)
def test_upstream_models_print_upstreams_expected_line(capsys, model, expected):
    status, out, err = dispatch(capsys, UPSTREAM / model)
    assert (status, err) == (0, [])
    assert resource_lines(out) == [expected]
    assert out[0].startswith("Running on '")
    assert out[1].startswith("Dispatch '") and out[1].endswith(" ms median (CPU)")


@needs_upstream
@pytest.mark.parametrize(
    ("model", "operator"),
    [("dml_reduce.json", "REDUCE"), ("dml_join.json", "JOIN"), ("dml_element_wise_add_npy.json", "ELEMENT_WISE_ADD")],
)
def test_upstream_models_of_other_operators_fail_cleanly_and_write_nothing(
    capsys, tmp_path, monkeypatch, model, operator
):
    monkeypatch.chdir(tmp_path)
    status, out, err = dispatch(capsys, UPSTREAM / model)
    assert status == 2 and out == [] and len(err) == 1
    assert f"DML_OPERATOR_{operator} is not an operator stridelab runs" in err[0]
    assert "CUMULATIVE_PRODUCT, CUMULATIVE_SUMMATION, ELEMENT_WISE_IDENTITY, SLICE, SLICE1" in err[0]
    assert list(tmp_path.iterdir()) == []


@needs_upstream
def test_the_npy_and_raw_inputs_of_upstreams_add_model_are_read(tmp_path):
    """The ADD model itself is refused, but its resources load: the .npy (dtype from its header)
    and the raw .dat (FLOAT32 from the field) hold 1..6."""
    from stridelab.dxdispatch.budget import LoadBudget
    from stridelab.dxdispatch.files import Folders
    from stridelab.dxdispatch.resources import read_resource

    path = UPSTREAM / "dml_element_wise_add_npy.json"
    model = json.loads(path.read_text())
    for name in ("A", "B"):
        resource = read_resource(
            name, model["resources"][name], Folders(path, None, allow_any_path=False), LoadBudget()
        )
        assert resource.data_type.name == "FLOAT32" and resource.size_in_bytes == 24
        assert resource.initial.tolist() == [1, 2, 3, 4, 5, 6]


# -- stridelab's examples ------------------------------------------------------------------------
def _nhwc_sum() -> dict[str, list]:
    image = np.arange(1, 13, dtype=np.float32).reshape(1, 2, 2, 3).transpose(0, 3, 1, 2)  # NHWC buffer
    return {"Sums": np.cumsum(image, axis=1).ravel().tolist()}


def _reversed_rows() -> dict[str, list]:
    matrix = np.array([[0, 1, 2, 3], [10, 11, 12, 13], [20, 21, 22, 23]], np.int32)
    return {"Reversed": matrix[::2, ::-1].ravel().tolist()}


def _packed() -> dict[str, list]:
    return {"Packed": [1.5, 2.5, 3.5, 4.5, 5.5, 6.5]}


def _broadcast() -> dict[str, list]:
    row = np.array([0.25, -1, 2, 1000], np.float32)
    return {"Rows": np.cumsum(np.broadcast_to(row, (3, 4)), axis=0).ravel().tolist()}


def _uint16_wrap() -> dict[str, list]:
    counts = np.array([7] * 8 + [65000, 500, 35, 1, 65535, 2], np.uint16)
    counts[8:] = np.cumsum(counts[8:], dtype=np.uint16)
    return {"Counts": counts.tolist()}


def _suffix_products() -> dict[str, list]:
    rows = np.array([[2, 3, 4, 5], [0.5, -2, 10, 1]], np.float32)
    suffix = np.cumprod(rows[:, ::-1], axis=1)[:, ::-1]
    return {"Products": np.concatenate([suffix[:, 1:], np.ones((2, 1), np.float32)], axis=1).ravel().tolist()}


EXPECTED = {
    "nhwc-cumulative-sum.json": _nhwc_sum,
    "reversing-slice1.json": _reversed_rows,
    "padded-to-packed.json": _packed,
    "broadcast-input.json": _broadcast,
    "uint16-wrap-in-place.json": _uint16_wrap,
    "cumulative-product.json": _suffix_products,
}


def test_every_example_has_an_expectation_and_no_schema_line():
    assert sorted(path.name for path in EXAMPLES.glob("*.json")) == sorted(EXPECTED)
    for path in EXAMPLES.glob("*.json"):
        assert "$schema" not in path.read_text()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_examples_print_what_numpy_computes(capsys, tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    status, out, err = dispatch(capsys, EXAMPLES / name)
    assert (status, err) == (0, [])
    for resource, values in EXPECTED[name]().items():
        assert printed_values(out, resource) == values


def test_the_packed_example_writes_its_npy_file_with_the_dimensions(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, _ = dispatch(capsys, EXAMPLES / "padded-to-packed.json")
    target = tmp_path / "padded-to-packed-output" / "packed.npy"  # the model's output folder
    assert status == 0 and out[-1] == f"Resource 'Packed' written to '{target}'"
    written = np.load(target)
    assert written.dtype == np.float16 and written.tolist() == [[1.5, 2.5, 3.5], [4.5, 5.5, 6.5]]


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_examples_print_the_same_resource_lines_on_the_gpu(capsys, tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    _, on_cpu, _ = dispatch(capsys, EXAMPLES / name, "-i", "3")  # in-place models change with each iteration
    status, on_gpu, err = dispatch(capsys, EXAMPLES / name, "--backend", "cupy", "-i", "3")
    assert (status, err) == (0, [])
    assert resource_lines(on_gpu) == resource_lines(on_cpu)
    assert " ms median (CPU), " in on_gpu[1] and on_gpu[1].endswith(" ms median (GPU)")


@pytest.mark.gpu
def test_run_returns_cupy_arrays_on_the_gpu():
    import cupy

    result = load(EXAMPLES / "uint16-wrap-in-place.json").run("cupy")
    assert isinstance(result["Counts"], cupy.ndarray)
    assert result["Counts"].tolist() == _uint16_wrap()["Counts"]


def test_run_returns_each_resources_initial_elements_as_they_end():
    result = load(EXAMPLES / "cumulative-product.json").run()
    assert sorted(result) == ["Factors", "Products"]
    assert result["Factors"].dtype == np.float32 and result["Factors"].tolist() == [2, 3, 4, 5, 0.5, -2, 10, 1]
    assert result["Products"].tolist() == _suffix_products()["Products"]


def test_the_timing_line_has_dxdispatchs_format(capsys):
    status, out, _ = dispatch(capsys, EXAMPLES / "reversing-slice1.json", "-i", "5")
    import re

    assert status == 0
    assert re.fullmatch(r"Dispatch 'reverse_rows': 5 iterations, \d+\.\d{4} ms median \(CPU\)", out[1])


def test_iterations_repeat_the_dispatch_as_dxdispatch_does():
    """An in-place running sum dispatched twice sums twice (buffers persist between dispatches)."""
    lines: list[str] = []
    result = load(EXAMPLES / "uint16-wrap-in-place.json").run(iterations=2, log=lines.append)
    once = np.cumsum(np.array([65000, 500, 35, 1, 65535, 2], np.uint16), dtype=np.uint16)
    assert result["Counts"][8:].tolist() == np.cumsum(once, dtype=np.uint16).tolist()
    assert lines[0].startswith("Dispatch 'running_total': 2 iterations, ")


# -- the format ----------------------------------------------------------------------------------
def write_model(folder: Path, model: dict | str, name: str = "model.json") -> Path:
    path = folder / name
    path.write_text(model if isinstance(model, str) else json.dumps(model))
    return path


def scan_model(values: list, data_type: str = "FLOAT32", **desc: object) -> dict:
    count = len(values)
    return {
        "resources": {
            "A": {"initialValuesDataType": data_type, "initialValues": values},
            "Out": {"initialValuesDataType": data_type, "initialValues": {"valueCount": count, "value": 0}},
        },
        "dispatchables": {
            "sum": {
                "type": "CUMULATIVE_SUMMATION",
                "desc": {
                    "InputTensor": {"DataType": data_type, "Sizes": [count]},
                    "OutputTensor": {"DataType": data_type, "Sizes": [count]},
                    "Axis": 0,
                    "AxisDirection": "INCREASING",
                    "HasExclusiveSum": False,
                    **desc,
                },
            }
        },
        "commands": [
            {"type": "dispatch", "dispatchable": "sum", "bindings": {"InputTensor": "A", "OutputTensor": "Out"}},
            {"type": "print", "resource": "Out"},
            {"type": "writeFile", "resource": "Out", "targetPath": "out.npy"},
        ],
    }


def test_comments_trailing_commas_and_non_finite_strings_are_read():
    text = """{ // a comment
        "a": [1, 2, /* inside */ 3,], "b": {"x": "nan", "y": "// not a comment",},
        "c": "with \\" quote, ]",
    }"""
    assert _jsonc.loads(text, "m") == {
        "a": [1, 2, 3],
        "b": {"x": "nan", "y": "// not a comment"},
        "c": 'with " quote, ]',
    }


def test_json_errors_give_the_original_line_and_column():
    with pytest.raises(LayoutError, match="m: not valid JSON at line 3, column 5"):
        _jsonc.loads("{\n  /* two\n */ ]", "m")


def test_sequences_add_in_the_target_type_one_step_at_a_time(tmp_path):
    """FLOAT16 sequences round after every addition; integer ones wrap modulo 2**bits."""
    model = scan_model([1.0])
    model["resources"]["A"] = {
        "initialValuesDataType": "FLOAT16",
        "initialValues": {"valueCount": 3000, "valueStart": 0, "valueDelta": 0.1},
    }
    model["resources"]["W"] = {
        "initialValuesDataType": "UINT8",
        "initialValues": {"valueCount": 4, "valueStart": 250, "valueDelta": 3},
    }
    model["dispatchables"], model["commands"] = {}, []
    resources = load(write_model(tmp_path, model)).resources
    value, by_hand = np.float16(0), []
    for _ in range(3000):
        by_hand.append(value)
        value = np.float16(value + np.float16(0.1))
    assert resources["A"].initial.tolist() == by_hand
    assert resources["A"].initial[-1] != np.float16(2999 * 0.1)  # not start + i * delta
    assert resources["W"].initial.tolist() == [250, 253, 0, 3]


def test_default_size_rounds_up_to_4_bytes_and_an_explicit_one_is_kept(tmp_path):
    model = scan_model([1, 2, 3], "UINT16")
    model["resources"]["Out"]["sizeInBytes"] = 9
    resources = load(write_model(tmp_path, model)).resources
    assert resources["A"].size_in_bytes == 8 and resources["Out"].size_in_bytes == 9


def test_print_formats_like_cpp_streams_and_int8_as_numbers():
    assert list(print_lines("Out", np.array([6, 10, -0.4323321], np.float32))) == ["Resource 'Out': 6, 10, -0.432332"]
    assert list(print_lines("h", np.array([0.1, 65504, np.inf], np.float16))) == ["Resource 'h': 0.0999756, 65504, inf"]
    assert list(print_lines("c", np.array([-128, 65], np.int8))) == ["Resource 'c': -128, 65"]
    assert list(print_lines("v", np.array([1.5, -2], np.float32), verbose=True)) == [
        "Resource 'v':",
        "[0] 1.5 (0x3FC00000)",
        "[1] -2 (0xC0000000)",
        "",
    ]


def test_scale_bias_is_computed_in_float32_and_rounded_once(tmp_path, monkeypatch):
    """``Scale * x + Bias`` in float32, then one rounding to float16 (65000 * 1.1 becomes inf)."""
    monkeypatch.chdir(tmp_path)  # where the model's writeFile writes
    values = [0.1, 1000.7, -3.3, 65000.0]
    model = scan_model(values, "FLOAT16")
    model["dispatchables"]["sum"] = {
        "type": "DML_OPERATOR_ELEMENT_WISE_IDENTITY",
        "desc": {
            "InputTensor": {"DataType": "FLOAT16", "Sizes": [4]},
            "OutputTensor": {"DataType": "FLOAT16", "Sizes": [4]},
            "ScaleBias": {"Scale": 1.1, "Bias": 0.3},
        },
    }
    result = load(write_model(tmp_path, model)).run()
    x = np.array(values, np.float16).astype(np.float32)
    with np.errstate(over="ignore"):
        expected = (x * np.float32(1.1) + np.float32(0.3)).astype(np.float16)
    assert result["Out"].tolist() == expected.tolist() and expected[-1] == np.inf


def test_a_loaded_model_lists_its_parts(tmp_path):
    model = load(EXAMPLES / "uint16-wrap-in-place.json")
    text = str(model)
    assert "  Counts         UINT16, 14 initial elements, 28 bytes" in text
    assert "    OutputTensor   UINT16 (6):(1)" in text
    assert "running_total.InputTensor" in model.tensors()
    assert "  0: dispatch 'running_total' with InputTensor = 'Counts' at element 8" in text
    assert 'DML_OPERATOR_CUMULATIVE_SUMMATION Axis=0 AxisDirection="INCREASING" HasExclusiveSum=false' in text
    assert repr(model) == "<DxDispatch model 'uint16-wrap-in-place.json': 1 resources, 1 dispatchables, 2 commands>"


def test_in_jupyter_a_model_shows_its_parts_then_every_tensor_named(monkeypatch):
    pytest.importorskip("IPython")
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda data, **kw: shown.append(data))
    load(EXAMPLES / "nhwc-cumulative-sum.json")._ipython_display_()
    assert shown[0]["text/plain"].startswith("DxDispatch model nhwc-cumulative-sum.json")
    svg = shown[1]["image/svg+xml"]
    assert "sum_channels.InputTensor" in svg and "sum_channels.OutputTensor" in svg


# -- malformed models: one per rule --------------------------------------------------------------
def _set(path: str, value: object):
    """A change to the valid model: set the field at a dotted path (``~`` deletes it)."""

    def change(model: dict) -> None:
        *parents, last = path.split(".")
        node = model
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if value == "~":
            del node[last]
        elif isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return change


def _integers(model: dict, data_type: str, values: list) -> None:
    """The catalogue's model in an integer type, with A holding ``values``."""
    model["resources"]["A"].update(initialValuesDataType=data_type, initialValues=values)
    model["resources"]["Out"]["initialValuesDataType"] = data_type
    for point in ("InputTensor", "OutputTensor"):
        model["dispatchables"]["sum"]["desc"][point]["DataType"] = data_type


def _guaranteed(model: dict, alignment: int) -> None:
    """The input promises ``alignment`` and is bound 16 bytes into a larger A."""
    model["resources"]["A"]["initialValues"] = list(range(8))
    model["dispatchables"]["sum"]["desc"]["InputTensor"]["GuaranteedBaseOffsetAlignment"] = alignment
    model["commands"][0]["bindings"]["InputTensor"] = {"name": "A", "elementOffset": 4}


def _overlap_model(model: dict) -> None:
    """Input A[0:5] and output A[4:9] (16 bytes in): they share A[4], and the sum has only an exact
    in-place form."""
    model["resources"]["A"]["initialValues"] = list(range(9))
    desc = model["dispatchables"]["sum"]["desc"]
    desc["InputTensor"]["Sizes"] = desc["OutputTensor"]["Sizes"] = [5]
    model["commands"][0]["bindings"]["OutputTensor"] = {"name": "A", "elementOffset": 4}


D = "dispatchables.sum.desc"
CATALOGUE = [
    ("json syntax", '{"resources": {', "not valid JSON at line 1"),
    ("NaN literal", '{"resources": {"A": {"initialValues": [NaN]}}}', "NaN is not JSON"),
    ("text after the model", '{"resources": {}, "dispatchables": {}, "commands": []} {}', "text after the end"),
    ("duplicate key", '{"resources": {}, "resources": {}}', "'resources' appears twice"),
    ("unclosed comment", '{"resources": {} /* ...', "never closed"),
    ("root not an object", "[1, 2]", r"expected a JSON object \(a model\), not an array"),
    ("missing commands", _set("commands", "~"), "the field 'commands' is required"),
    ("resources not an object", _set("resources", []), "resources: expected an object"),
    ("unknown root field", _set("comands", []), r"'comands' is not a field of a model \(did you mean 'commands'\?\)"),
    (
        "unknown data type",
        _set("resources.A.initialValuesDataType", "FLOAT31"),
        '"FLOAT31" is not one of .*did you mean',
    ),
    ("UNKNOWN list form", _set("resources.A.initialValuesDataType", "UNKNOWN"), "HLSL constant buffers"),
    ("empty initial values", _set("resources.A.initialValues", []), "'initialValues' must be non-empty"),
    (
        "negative unsigned",
        _set("resources.A.initialValuesDataType", "UINT32"),
        r"\[1\] = -2 is outside the UINT32 range",
    ),
    ("fraction for an integer", lambda m: _integers(m, "UINT32", [1, 2.5, 3]), r"\[1\] = 2.5: expected an unsigned"),
    ("float out of range", _set("resources.A.initialValues", [1e39, 2, 3]), "outside the FLOAT32 range"),
    ("non-finite word", _set("resources.A.initialValues", ["infinity", 2, 3]), 'expected a number \\(or "nan"'),
    ("value and valueStart", _set("resources.Out.initialValues.valueStart", 1), "mutually exclusive"),
    ("unknown generator", _set("resources.Out.initialValues", {"valueCount": 3}), "unknown generator type"),
    ("zero valueCount", _set("resources.Out.initialValues.valueCount", 0), "valueCount = 0: expected an integer"),
    (
        "missing source file",
        _set("resources.A.initialValues", {"sourcePath": "absent.npy"}),
        "'absent.npy' is not a file",
    ),
    ("image source", _set("resources.A.initialValues", {"sourcePath": "cat.png"}), "image files are not read"),
    ("sizeInBytes too small", _set("resources.A.sizeInBytes", 8), r"The buffer size \(8 bytes\) is too small"),
    ("valueCount past free memory", _set("resources.Out.initialValues.valueCount", 10**15), "free in host memory"),
    (
        "sizeInBytes past free memory",
        _set("resources.A.sizeInBytes", 10**15),
        r"the buffer \(sizeInBytes = 1000000000000000\) needs",
    ),
    ("huge integer for a float", _set("resources.A.initialValues", [10**400, 2, 3]), "too large for a double"),
    ("integer of 5000 digits", '{"resources": {"A": ' + "1" * 5000 + "}}", "a number in the JSON cannot be read"),
    ("empty array with a comma", '{"resources": {}, "dispatchables": {}, "commands": [,]}', "not valid JSON"),
    ("misspelt required field", lambda m: m.update(command=m.pop("commands")), "'command' is given: did you mean"),
    (
        "lone surrogate name",
        '{"resources": {"\\ud800": {}}, "dispatchables": {}, "commands": []}',
        "U\\+D800: names and paths must be printable",
    ),
    ("NUL in targetPath", _set("commands.2.targetPath", "a\u0000b.npy"), "cannot hold a NUL character"),
    ("targetPath a folder", _set("commands.2.targetPath", "."), "names the output folder itself"),
    (
        "negative elementOffset",
        _set("commands.0.bindings.InputTensor", {"name": "A", "elementOffset": -1}),
        "0 or more",
    ),
    ("lowercase operator", _set("dispatchables.sum.type", "cumulative_summation"), "names are case-sensitive"),
    ("lowercase tensor type", _set(f"{D}.InputTensor.DataType", "float32"), "did you mean 'FLOAT32'"),
    ("threadGroupCount of 2", _set("commands.0.threadGroupCount", [1, 1]), "threadGroupCount = \\[1, 1\\]: expected 3"),
    ("unknown resource field", _set("resources.A.initialValue", 1), "did you mean 'initialValues'"),
    (
        "unsupported operator",
        _set("dispatchables.sum.type", "DML_OPERATOR_GEMM"),
        "DML_OPERATOR_GEMM is not an operator",
    ),
    ("misspelt operator", _set("dispatchables.sum.type", "CUMULATIVE_SUMATION"), "did you mean 'CUMULATIVE_SUMMATION'"),
    ("hlsl dispatchable", _set("dispatchables.sum.type", "hlsl"), "not HLSL shaders"),
    ("unknown desc field", _set(f"{D}.Axes", [0]), "'Axes' is not a field of DML_CUMULATIVE_SUMMATION_OPERATOR_DESC"),
    ("missing desc field", _set(f"{D}.HasExclusiveSum", "~"), "the field 'HasExclusiveSum' is required"),
    ("bool as a number", _set(f"{D}.HasExclusiveSum", 0), "HasExclusiveSum = 0: expected true or false"),
    ("bad enum", _set(f"{D}.AxisDirection", "UP"), 'AxisDirection = "UP" is not one of INCREASING, DECREASING'),
    ("lowercase enum", _set(f"{D}.AxisDirection", "increasing"), "names are case-sensitive"),
    ("axis out of range", _set(f"{D}.Axis", 1), "Axis = 1 is out of range for InputTensor with 1 dimensions"),
    ("negative tensor stride", _set(f"{D}.InputTensor.Strides", [-1]), r"Strides\[0\] = -1: a UINT is 0"),
    ("unknown tensor field", _set(f"{D}.OutputTensor.Stride", [1]), "did you mean 'Strides'"),
    ("DimensionCount mismatch", _set(f"{D}.InputTensor.DimensionCount", 2), "DimensionCount = 2 but Sizes"),
    (
        "sizes differ",
        _set(f"{D}.OutputTensor.Sizes", [2]),
        "OutputTensor sizes \\[2\\] differ from InputTensor sizes \\[3\\]",
    ),
    (
        "data types differ",
        _set(f"{D}.OutputTensor.DataType", "FLOAT16"),
        "OutputTensor data type FLOAT16 differs from InputTensor",
    ),
    ("unsupported data type", lambda m: _integers(m, "INT32", [1, 2, 3]), "INT32 is not supported by CUMULATIVE_SUM"),
    (
        "bound buffer too small",
        _set(f"{D}.InputTensor.Sizes", [4]),
        "SizeInBytes is too small. 12 was provided, but 16",
    ),
    (
        "elementOffset not 16-byte aligned",
        _set("commands.0.bindings.InputTensor", {"name": "A", "elementOffset": 1}),
        "starts at byte 4, not a multiple of 16: DirectML buffer tensors start 16-byte aligned",
    ),
    (
        "offset past the end",
        _set("commands.0.bindings.InputTensor", {"name": "A", "elementOffset": 4}),
        "0 was provided, but 12",
    ),
    ("unknown bind point", _set("commands.0.bindings.InputTensr", "A"), "did you mean 'InputTensor'"),
    (
        "bind point left out",
        _set("commands.0.bindings.OutputTensor", "~"),
        "'OutputTensor' of dispatchable 'sum' is not bound",
    ),
    ("two resources for one", _set("commands.0.bindings.InputTensor", ["A", "A"]), "requires 1 resources, but 2"),
    ("unknown resource", _set("commands.0.bindings.InputTensor", "B"), "no resource of that name"),
    ("unknown dispatchable", _set("commands.0.dispatchable", "summ"), "did you mean 'sum'"),
    ("unknown command", _set("commands.1.type", "show"), "is not dispatch, print or writeFile"),
    ("image target", _set("commands.2.targetPath", "out.png"), "not images"),
    ("too many dimensions", _set("commands.2.dimensions", [2, 3]), "hold 6 elements, but resource 'Out' has room"),
    ("verbose not a bool", _set("commands.1.verbose", "yes"), 'verbose = "yes": expected true or false'),
    (
        "offset not the guaranteed alignment",
        lambda m: _guaranteed(m, 32),
        "starts at byte 16, not a multiple of 32: the tensor's GuaranteedBaseOffsetAlignment is 32",
    ),
    (
        "alignment not a power of two",
        lambda m: _guaranteed(m, 24),
        "GuaranteedBaseOffsetAlignment = 24: it must be 0 or a power of two of at least 16",
    ),
    ("overlapping in and out", _overlap_model, r"OutputTensor element \(0,\) is InputTensor element \(4,\)"),
]


@pytest.mark.parametrize(("rule", "change", "message"), CATALOGUE, ids=[entry[0] for entry in CATALOGUE])
def test_malformed_models_fail_in_one_line_before_any_command(capsys, tmp_path, monkeypatch, rule, change, message):
    monkeypatch.chdir(tmp_path)
    if callable(change):
        model = scan_model([1, -2, 3.5])
        change(model)
    else:
        model = change
    path = write_model(tmp_path, model)
    status, out, err = dispatch(capsys, path)
    assert status == 2, rule
    assert out == [] and len(err) == 1, (out, err)
    assert err[0].startswith(f"stridelab dispatch: error: {path}: ")
    import re

    assert re.search(message, err[0]), err[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.json"]  # out.npy never written
    with pytest.raises(LayoutError):
        load(path)


def test_a_npy_header_claiming_more_values_than_the_file_holds_is_refused(capsys, tmp_path, monkeypatch):
    """The header says 2e9 floats (7.45 GiB), the file holds 3: refused without allocating them."""
    monkeypatch.chdir(tmp_path)
    with open(tmp_path / "liar.npy", "wb") as liar:
        header = {"descr": "<f4", "fortran_order": False, "shape": (2_000_000_000,)}
        np.lib.format.write_array_header_1_0(liar, header)
        liar.write(np.arange(3, dtype=np.float32).tobytes())
    model = scan_model([1, 2, 3])
    model["resources"]["A"] = {"initialValues": {"sourcePath": "liar.npy"}}
    status, out, err = dispatch(capsys, write_model(tmp_path, model))
    assert (
        status == 2
        and out == []
        and len(err) == 1
        and "header describes 2000000000 values" in err[0]
        and "liar.npy" in err[0]
    )


def test_a_file_that_cannot_be_written_is_reported_and_the_run_goes_on(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    model = scan_model([1, 2, 3])
    model["commands"][2]["targetPath"] = "blocked/out.npy"
    model["commands"].append({"type": "writeFile", "resource": "Out", "targetPath": "after.npy"})
    (tmp_path / "model-output").mkdir()
    (tmp_path / "model-output" / "blocked").write_text("a file where a folder is needed")
    status, out, err = dispatch(capsys, write_model(tmp_path, model))
    assert status == 1
    assert len(err) == 1 and err[0].startswith("Failed to write resource to file 'blocked/out.npy': ")
    assert out[-1] == f"Resource 'Out' written to '{tmp_path / 'model-output' / 'after.npy'}'"
    with pytest.raises(OSError):
        load(tmp_path / "model.json").run()


def test_scale_bias_on_float64_keeps_float64(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    values = [0.1, 1e300, 1.0000000001]
    model = scan_model(values, "FLOAT64")
    model["dispatchables"]["sum"] = {
        "type": "ELEMENT_WISE_IDENTITY",
        "desc": {
            "InputTensor": {"DataType": "FLOAT64", "Sizes": [3]},
            "OutputTensor": {"DataType": "FLOAT64", "Sizes": [3]},
            "ScaleBias": {"Scale": 1, "Bias": 0},
        },
    }
    assert load(write_model(tmp_path, model)).run()["Out"].tolist() == values


def test_thread_group_count_is_read_and_ignored_as_dxdispatch_does(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    model = scan_model([1, 2, 3])
    model["commands"][0]["threadGroupCount"] = [1, 1, 1]
    assert load(write_model(tmp_path, model)).run()["Out"].tolist() == [1, 3, 6]


def test_show_draws_tensors_of_more_elements_than_int64_counts(capsys, tmp_path):
    assert cli.main(["show", "FLOAT32 (65536,65536,65536,65536):(0,0,0,0)"]) == 0
    assert "18446744073709551616 logical elements" in capsys.readouterr().out
    assert cli.main(["show", "FLOAT32 (4294967295,4294967295):(0,0)", "--svg", str(tmp_path / "x.svg")]) == 0


def test_the_catalogue_covers_at_least_thirty_rules():
    assert len({rule for rule, _, _ in CATALOGUE}) >= 30


def test_the_valid_base_of_the_catalogue_runs(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, _ = dispatch(capsys, write_model(tmp_path, scan_model([1, -2, 3.5])))
    assert status == 0 and resource_lines(out) == ["Resource 'Out': 1, -1, 2.5"]
    assert np.load(tmp_path / "model-output" / "out.npy").tolist() == [1, -1, 2.5]  # 1-D, the whole 12-byte buffer


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["dispatch"], "the following arguments are required: MODEL.json"),
        (["dispatch", "m.json", "-i", "0"], "expected a whole number of at least 1, not '0'"),
        (["dispatch", "m.json", "--backend", "gpu"], "invalid choice: 'gpu'"),
        (["dispatch", "m.onnx"], "expected a .json model"),
        (["dispatch", "absent.json"], "cannot read the model 'absent.json'"),
        (["show", "FLOAT32 (2,3):(3,-1)"], "negative stride -1"),
        (["show", "absent.json"], "cannot read the model"),
    ],
)
def test_command_line_mistakes_are_one_line_with_status_2(tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    run = subprocess.run([sys.executable, "-m", "stridelab", *argv], capture_output=True, text=True)
    assert run.returncode == 2 and run.stdout == ""
    assert len(run.stderr.splitlines()) == 1 and message in run.stderr, run.stderr
    assert "Traceback" not in run.stderr


# -- stridelab show ------------------------------------------------------------------------------
def test_show_prints_the_memory_map_as_the_strides_page_table(capsys):
    assert cli.main(["show", "FLOAT16 (1,1,2,3):(0,0,5,1)"]) == 0
    out = capsys.readouterr().out
    assert "Offset:|0|1|2|3|4|5|6|7" in out and " Value:|A|B|C|x|x|D|E|F" in out
    assert "A B C\nD E F" in out


def test_show_a_model_names_every_tensor(capsys):
    assert cli.main(["show", str(EXAMPLES / "reversing-slice1.json")]) == 0
    out = capsys.readouterr().out
    assert "== reverse_rows.InputTensor\nINT32 · sizes [3, 4]" in out
    assert "== reverse_rows.OutputTensor\nINT32 · sizes [2, 4]" in out


def test_show_writes_svg_and_png(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    svg, png = tmp_path / "m.svg", tmp_path / "m.png"
    assert cli.main(["show", str(EXAMPLES / "nhwc-cumulative-sum.json"), "--svg", str(svg), "--png", str(png)]) == 0
    assert svg.read_text().startswith("<svg") and "sum_channels.OutputTensor" in svg.read_text()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.gpu
@pytest.mark.parametrize("data_type", ["FLOAT16", "FLOAT32"])
def test_scale_bias_gives_the_same_bits_on_both_backends(tmp_path, monkeypatch, data_type):
    monkeypatch.chdir(tmp_path)  # where the model's writeFile writes
    values = np.random.default_rng(7).standard_normal(4096).astype(np.float32) * 300
    model = scan_model(values.tolist(), data_type)
    model["dispatchables"]["sum"] = {
        "type": "ELEMENT_WISE_IDENTITY",
        "desc": {
            "InputTensor": {"DataType": data_type, "Sizes": [64, 64], "Strides": [1, 64]},
            "OutputTensor": {"DataType": data_type, "Sizes": [64, 64]},
            "ScaleBias": {"Scale": 1.37, "Bias": -0.21},
        },
    }
    loaded = load(write_model(tmp_path, model))
    on_cpu, on_gpu = loaded.run("numpy")["Out"], loaded.run("cupy")["Out"].get()
    assert on_cpu.tobytes() == on_gpu.tobytes()
