"""A catalogue of malformed calls across the public API, as a user makes them: each is a
LayoutError or TypeError whose message names the parameter and shows the offending value, and
none hangs or allocates more than a few MiB before refusing."""

from __future__ import annotations

import itertools
import json
import multiprocessing
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import stridelab as sl
import stridelab.ops
from stridelab import exercises
from stridelab.dxdispatch import load

#: Every call must refuse within this many seconds...
TIMEOUT_S = 10.0
#: ...and allocate at most this much on the way (tracemalloc's peak, numpy's buffers included).
PEAK_BYTES = 8 * 2**20
#: ...with a message a person reads: values are shown shortened.
MESSAGE_CHARACTERS = 600

D = sl.TensorDesc("FLOAT32", (2, 3))
X = np.arange(6, dtype=np.float32).reshape(2, 3)
HUGE_BROADCAST = np.broadcast_to(np.float32(1), (2**20, 2**20))
# Large arguments are built here, before the child measures what the call allocates.
MILLION = [1] * 10**6
MILLION_SIZES_JSON = {"DataType": "FLOAT32", "Sizes": MILLION}
MEGABYTE_NOTATION = "FLOAT32 (" + "1," * 500_000 + "1):(1)"
MEGABYTE_JSON = '{"DataType": "FLOAT32", "Sizes": [' + "1, " * 333_333 + "1]}"
TEN_MB_TEXT = "F" * 10**7
WIDEST = (2**32 - 1,) * 8


def empty(desc: str) -> sl.StridedTensor:
    return sl.StridedTensor.empty(sl.TensorDesc.parse(desc))


def model_file(tmp: Path, change: Callable[[dict], None] | None = None, suffix: str = ".json") -> Path:
    tensor = {"DataType": "FLOAT32", "Sizes": [3]}
    model = {
        "resources": {"A": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3]}},
        "dispatchables": {
            "sum": {
                "type": "CUMULATIVE_SUMMATION",
                "desc": {"InputTensor": tensor, "OutputTensor": tensor, "Axis": 0, "AxisDirection": "INCREASING"},
            }
        },
        "commands": [
            {"type": "dispatch", "dispatchable": "sum", "bindings": {"InputTensor": "A", "OutputTensor": "A"}}
        ],
    }
    model["dispatchables"]["sum"]["desc"]["HasExclusiveSum"] = False
    if change:
        change(model)
    path = tmp / f"model{suffix}"
    path.write_text(json.dumps(model))
    return path


# (name, call, exception type, what the message must contain: the parameter and the value)
CATALOGUE: list[tuple[str, Callable[[Path], object], type, tuple[str, ...]]] = [
    # descriptions
    ("unknown data type", lambda t: sl.TensorDesc("FLOAT31", (2, 3)), sl.LayoutError, ("data_type", "FLOAT31")),
    ("data type as a number", lambda t: sl.TensorDesc(5, (2, 3)), TypeError, ("data_type", "5")),
    ("numpy dtype with no DirectML type", lambda t: sl.data_type(np.complex64), sl.LayoutError, ("dtype", "complex64")),
    ("sizes as text", lambda t: sl.TensorDesc("FLOAT32", "23"), TypeError, ("sizes", "'23'")),
    ("sizes as a set", lambda t: sl.TensorDesc("FLOAT32", {3, 1}), TypeError, ("sizes", "{1, 3}")),
    ("a size of 0", lambda t: sl.TensorDesc("FLOAT32", (2, 0)), sl.LayoutError, ("sizes[1]", "0")),
    ("a size as a float", lambda t: sl.TensorDesc("FLOAT32", (2, 2.5)), TypeError, ("sizes[1]", "2.5")),
    ("a size past 32 bits", lambda t: sl.TensorDesc("FLOAT32", (2**32,)), sl.LayoutError, ("sizes[0]", "4294967296")),
    ("a size of 2**70", lambda t: sl.TensorDesc("FLOAT32", (2**70,)), sl.LayoutError, ("sizes[0]", str(2**70))),
    ("nine dimensions", lambda t: sl.TensorDesc("FLOAT32", (1,) * 9), sl.LayoutError, ("sizes", "9 dimensions")),
    ("strides too short", lambda t: sl.TensorDesc("FLOAT32", (2, 3), (3,)), sl.LayoutError, ("strides", "[3]")),
    ("a negative stride", lambda t: sl.TensorDesc("FLOAT32", (2, 3), (3, -1)), sl.LayoutError, ("strides[1]", "-1")),
    (
        "packed strides past 32 bits",
        lambda t: sl.TensorDesc("UINT8", (2, 2**21, 2**21)),
        sl.LayoutError,
        ("strides[0]", "4398046511104"),
    ),
    (
        "total too small",
        lambda t: sl.TensorDesc("FLOAT32", (2, 3), total_tensor_size_in_bytes=10),
        sl.LayoutError,
        ("total_tensor_size_in_bytes", "10"),
    ),
    ("replace an unknown field", lambda t: D.replace(sizez=(1,)), TypeError, ("sizez",)),
    ("offset of coordinates outside", lambda t: D.offset_of((0, 5)), sl.LayoutError, ("coords[1]", "5")),
    ("from_json of a list", lambda t: sl.TensorDesc.from_json([1]), TypeError, ("obj", "[1]")),
    ("from_json without Sizes", lambda t: sl.TensorDesc.from_json({"DataType": "FLOAT32"}), sl.LayoutError, ("Sizes",)),
    (
        "from_json with a misspelt field",
        lambda t: sl.TensorDesc.from_json({"DataType": "FLOAT32", "Sizes": [2], "Stride": [1]}),
        sl.LayoutError,
        ("Stride", "Strides"),
    ),
    # notation and CuTe
    ("parse a number", lambda t: sl.TensorDesc.parse(5), TypeError, ("text", "5")),
    ("parse without strides", lambda t: sl.TensorDesc.parse("FLOAT32 (2,3)"), sl.LayoutError, ("'(2,3)'", ":stride")),
    (
        "parse a negative stride",
        lambda t: sl.TensorDesc.parse("FLOAT32 (2,3):(3,-1)"),
        sl.LayoutError,
        ("stride", "-1"),
    ),
    ("parse broken JSON", lambda t: sl.TensorDesc.parse('{"DataType": '), sl.LayoutError, ("JSON",)),
    ("parse mixed brackets", lambda t: sl.TensorDesc.parse("(2,3]:(3,1)"), sl.LayoutError, ("'('", "']'")),
    (
        "parse an offset of +-3",
        lambda t: sl.TensorDesc.parse_placed("FLOAT32 (2,3):(3,1) +-3"),
        sl.LayoutError,
        ("offset", "'+-3'", "0 or more"),
    ),
    (
        "parse an offset past 64 bits of bytes",
        lambda t: sl.TensorDesc.parse_placed("FLOAT64 (2,3):(3,1) +2305843009213693952"),  # 2**61 * 8 bytes
        sl.LayoutError,
        ("offset", "2305843009213693952", "2**64 - 1"),
    ),
    (
        "parse an offset of a million digits",
        lambda t: sl.TensorDesc.parse_placed("(2,3):(3,1) +" + "9" * 10**6),
        sl.LayoutError,
        ("tensor description", "65536 characters"),
    ),
    (
        "parse an offset of 100 digits",
        lambda t: sl.TensorDesc.parse_placed("(2,3):(3,1) +" + "9" * 100),
        sl.LayoutError,
        ("offset", "100 digits"),
    ),
    (
        "parse an offset where parse takes none",
        lambda t: sl.TensorDesc.parse("UINT8 (2,3):(3,1) +5"),
        sl.LayoutError,
        ("+5", "parse_placed"),
    ),
    (
        "parse an unknown torch type",
        lambda t: sl.TensorDesc.parse("torch.float99 (2,3):(3,1)"),
        sl.LayoutError,
        ("data_type", "torch.float99", "FLOAT16"),
    ),
    ("place at a negative offset", lambda t: D.placed(-3), sl.LayoutError, ("offset", "-3")),
    ("place at an offset of text", lambda t: D.placed("5"), TypeError, ("offset", "'5'")),
    (
        "overlap with an offset given twice",
        lambda t: sl.overlap(D.placed(2), D, a_offset=3),
        sl.LayoutError,
        ("a_offset", "3", "+2"),
    ),
    (
        "CuTe strides of another nesting",
        lambda t: sl.TensorDesc.from_cute("(2,3):(1)", "FLOAT32"),
        sl.LayoutError,
        ("stride", "(2,3):(1)"),
    ),
    (
        "CuTe without strides",
        lambda t: sl.TensorDesc.from_cute("(2,3)", "FLOAT32"),
        sl.LayoutError,
        ("stride", "'(2,3)'"),
    ),
    (
        "CuTe nested too deep",
        lambda t: sl.TensorDesc.from_cute("(" * 40 + "1" + ")" * 40 + ":1", "UINT8"),
        sl.LayoutError,
        ("nested deeper",),
    ),
    # layout helpers
    (
        "calc size of an unknown type",
        lambda t: sl.calc_buffer_tensor_size("BOOL", (2,)),
        sl.LayoutError,
        ("data_type", "BOOL"),
    ),
    (
        "calc size, strides too short",
        lambda t: sl.calc_buffer_tensor_size("FLOAT32", (2, 3), (1,)),
        sl.LayoutError,
        ("strides", "[1]"),
    ),
    (
        "CalculateStrides of NCDHW",
        lambda t: sl.calculate_strides("NCDHW", (1, 2, 3, 4)),
        sl.LayoutError,
        ("layout", "NCDHW"),
    ),
    ("CalculateStrides of None", lambda t: sl.calculate_strides(None, (1, 2, 3, 4)), TypeError, ("layout", "None")),
    (
        "CalculateStrides of 3 sizes",
        lambda t: sl.calculate_strides("NCHW", (1, 2, 3)),
        sl.LayoutError,
        ("sizes", "[1, 2, 3]"),
    ),
    (
        "CalculateStrides, broadcast too short",
        lambda t: sl.calculate_strides("NCHW", (1, 2, 3, 4), broadcast=(True,)),
        sl.LayoutError,
        ("broadcast", "1 entries"),
    ),
    (
        "layout with an unknown letter",
        lambda t: sl.layout_strides("NHWQ", (1, 2, 3, 4)),
        sl.LayoutError,
        ("layout", "NHWQ"),
    ),
    (
        "padding of an unknown letter",
        lambda t: sl.layout_strides("HW", (2, 3), padding={"Q": 1}),
        sl.LayoutError,
        ("padding", "'Q'"),
    ),
    ("export to an unknown kind", lambda t: D.export("rust"), sl.LayoutError, ("kind", "rust")),
    ("padding as a list", lambda t: sl.layout_strides("HW", (2, 3), padding=[1]), TypeError, ("padding", "[1]")),
    (
        "padding past 32-bit strides",
        lambda t: sl.layout_strides("HW", (2, 3), padding={"W": 2**40}),
        sl.LayoutError,
        ("strides[0]", "1099511627779"),
    ),
    (
        "broadcast as a number",
        lambda t: sl.calculate_strides("NCHW", (1, 2, 3, 4), broadcast=5),
        TypeError,
        ("broadcast", "5"),
    ),
    # overlap and explain
    ("overlap at a negative offset", lambda t: sl.overlap(D, D, a_offset=-1), sl.LayoutError, ("a_offset", "-1")),
    ("overlap of text", lambda t: sl.overlap(D, "x"), TypeError, ("b", "'x'")),
    ("explain a number", lambda t: sl.explain(5), TypeError, ("obj", "5")),
    # memory maps and renderers
    ("memory map with limit 0", lambda t: sl.MemoryMap(D, limit=0), sl.LayoutError, ("limit", "0")),
    ("memory map of text", lambda t: sl.MemoryMap("x"), TypeError, ("desc", "'x'")),
    ("memory map values too short", lambda t: sl.MemoryMap(D, values=[1]), sl.LayoutError, ("values", "(1,)")),
    (
        "memory map past its limit",
        lambda t: sl.TensorDesc("FLOAT32", (2**16, 2**16)).memory_map(),
        sl.LayoutError,
        ("limit", "4294967296"),
    ),
    ("SVG with max_cells 0", lambda t: sl.render_svg(D, max_cells=0), sl.LayoutError, ("max_cells", "0")),
    ("SVG at scale 0", lambda t: sl.render_svg(D, scale=0), sl.LayoutError, ("scale", "0")),
    ("SVG at scale '2'", lambda t: sl.render_svg(D, scale="2"), TypeError, ("scale", "'2'")),
    ("SVG window start outside", lambda t: sl.render_svg(D, start=(5, 0)), sl.LayoutError, ("start[0]", "5")),
    ("SVG window of one pair", lambda t: sl.render_svg(D, window=[(0, 1)]), sl.LayoutError, ("window", "[(0, 1)]")),
    ("SVG coloured by dimension 5", lambda t: sl.render_svg(D, colour_by=5), sl.LayoutError, ("colour_by", "5")),
    ("SVG of text", lambda t: sl.render_svg("x"), TypeError, ("obj", "'x'")),
    ("SVG with a misspelt keyword", lambda t: sl.render_svg(D, maxcells=3), TypeError, ("maxcells", "max_cells")),
    # strided tensors
    (
        "tensor over too short a buffer",
        lambda t: sl.StridedTensor(D, np.zeros(2, np.float32)),
        sl.LayoutError,
        ("buffer", "2 elements"),
    ),
    (
        "tensor over a 2-D buffer",
        lambda t: sl.StridedTensor(D, np.zeros((2, 3), np.float32)),
        sl.LayoutError,
        ("buffer", "(2, 3)"),
    ),
    (
        "tensor over float64",
        lambda t: sl.StridedTensor(D, np.zeros(6, np.float64)),
        sl.LayoutError,
        ("buffer dtype", "float64"),
    ),
    ("tensor of a text desc", lambda t: sl.StridedTensor("d", np.zeros(6)), TypeError, ("desc", "'d'")),
    ("tensor over a list", lambda t: sl.StridedTensor(D, [1.0] * 6), TypeError, ("buffer", "[1.0")),
    ("from_array of a list", lambda t: sl.StridedTensor.from_array([1, 2]), TypeError, ("array", "[1, 2]")),
    (
        "from_array of an empty array",
        lambda t: sl.StridedTensor.from_array(np.zeros(0)),
        sl.LayoutError,
        ("array", "(0,)"),
    ),
    ("empty from a module that is none", lambda t: sl.StridedTensor.empty(D, xp=5), TypeError, ("xp", "5")),
    (
        "empty past the memory",
        lambda t: sl.StridedTensor.empty(sl.TensorDesc("FLOAT32", (2**31, 2**31 - 1))),
        sl.LayoutError,
        ("FLOAT32 (2147483648,2147483647)", "18446744065119617024 bytes"),  # 2**64 - 2**33
    ),
    # operators
    ("scan axis out of range", lambda t: sl.cumulative_summation(X, 4), sl.LayoutError, ("axis", "4")),
    ("scan axis as a float", lambda t: sl.cumulative_summation(X, 1.0), TypeError, ("axis", "1.0")),
    (
        "scan direction up",
        lambda t: sl.cumulative_summation(X, 0, direction="up"),
        sl.LayoutError,
        ("direction", "'up'"),
    ),
    ("scan exclusive as 1", lambda t: sl.cumulative_summation(X, 0, exclusive=1), TypeError, ("exclusive", "1")),
    ("scan of INT8", lambda t: sl.cumulative_summation(X.astype(np.int8), 0), sl.LayoutError, ("x data type", "INT8")),
    (
        "scan into an array",
        lambda t: sl.cumulative_summation(X, 0, out=np.zeros((2, 3), np.float32)),
        TypeError,
        ("out", "ndarray"),
    ),
    (
        "scan into other sizes",
        lambda t: sl.cumulative_summation(X, 0, out=empty("FLOAT32 (3,2):(2,1)")),
        sl.LayoutError,
        ("out sizes", "[3, 2]"),
    ),
    ("scan of a list", lambda t: sl.cumulative_summation([[1.0]], 0), TypeError, ("x", "[[1.0]]")),
    (
        "scan of an empty array",
        lambda t: sl.cumulative_summation(np.zeros((0, 3), np.float32), 0),
        sl.LayoutError,
        ("sizes[0]", "0"),
    ),
    (
        "scan of 9 dimensions",
        lambda t: sl.cumulative_summation(np.zeros((1,) * 9, np.float32), 0),
        sl.LayoutError,
        ("x", "9 dimensions"),
    ),
    (
        "scan of 4 TiB",
        lambda t: sl.cumulative_summation(HUGE_BROADCAST, 1),
        sl.LayoutError,
        ("the result", "4398046511104 bytes"),
    ),
    (
        "product direction as a number",
        lambda t: sl.cumulative_product(X, 0, direction=5),
        TypeError,
        ("direction", "5"),
    ),
    ("slice stride 0", lambda t: sl.slice1(X, (0, 0), (2, 2), (0, 1)), sl.LayoutError, ("window_strides[0]", "0")),
    (
        "slice past the input",
        lambda t: sl.slice1(X, (0, 3), (2, 2), (1, 1)),
        sl.LayoutError,
        ("window_offsets[1]", "5"),
    ),
    (
        "slice with one offset",
        lambda t: sl.slice1(X, (0,), (2, 2), (1, 1)),
        sl.LayoutError,
        ("window_offsets", "1 entries"),
    ),
    (
        "slice output too large",
        lambda t: sl.slice1(X, (0, 0), (2, 2), (1, 1), output_sizes=(3, 1)),
        sl.LayoutError,
        ("output_sizes[0]", "3"),
    ),
    (
        "slice stride past 32 bits",
        lambda t: sl.slice1(X, (0, 0), (1, 1), (1, 2**40)),
        sl.LayoutError,
        ("window_strides[1]", "1099511627776"),
    ),
    ("scan axis as a long list", lambda t: sl.cumulative_summation(X, [0] * 100_000), TypeError, ("axis", "[0, 0")),
    ("slice offsets as text", lambda t: sl.slice1(X, "00", (1, 1), (1, 1)), TypeError, ("window_offsets", "'00'")),
    (
        "identity to another type",
        lambda t: sl.element_wise_identity(X, empty("FLOAT16 (2,3):(3,1)")),
        sl.LayoutError,
        ("out data type", "FLOAT16"),
    ),
    (
        "identity into an array",
        lambda t: sl.element_wise_identity(X, np.zeros((2, 3), np.float32)),
        TypeError,
        ("out", "ndarray"),
    ),
    (
        "identity into a broadcast out",
        lambda t: sl.element_wise_identity(
            X, sl.StridedTensor(sl.TensorDesc("FLOAT32", (2, 3), (0, 1)), np.zeros(3, np.float32))
        ),
        sl.LayoutError,
        ("out strides", "[0, 1]"),
    ),
    # exercises
    (
        "strides exercise with text sizes",
        lambda t: exercises.check_strides((1,), "x", "NCHW"),
        TypeError,
        ("sizes", "'x'"),
    ),
    # values of any size: read with a bound, shown shortened
    ("a million sizes", lambda t: sl.TensorDesc("FLOAT32", MILLION), sl.LayoutError, ("sizes", "(1000000 items)")),
    (
        "ten million sizes from a generator",
        lambda t: sl.TensorDesc("FLOAT32", (1 for _ in range(10**7))),
        sl.LayoutError,
        ("sizes", "more than 8 dimensions"),
    ),
    ("endless sizes", lambda t: sl.TensorDesc("FLOAT32", itertools.repeat(1)), sl.LayoutError, ("sizes", "repeat(1)")),
    (
        "endless strides",
        lambda t: sl.TensorDesc("FLOAT32", (2, 3), itertools.repeat(1)),
        sl.LayoutError,
        ("strides", "repeat(1)"),
    ),
    (
        "endless broadcast flags",
        lambda t: sl.layout_strides("HW", (2, 3), broadcast=itertools.repeat(True)),
        sl.LayoutError,
        ("broadcast", "more than 2 entries"),
    ),
    ("endless coordinates", lambda t: D.offset_of(itertools.repeat(0)), sl.LayoutError, ("coords", "repeat(0)")),
    (
        "from_json with a million sizes",
        lambda t: sl.TensorDesc.from_json(MILLION_SIZES_JSON),
        sl.LayoutError,
        ("Sizes", "1000000 entries"),
    ),
    (
        "parse a megabyte of notation",
        lambda t: sl.TensorDesc.parse(MEGABYTE_NOTATION),
        sl.LayoutError,
        ("'FLOAT32 (1,1,", "(1000015 characters)", "65536"),
    ),
    (
        "parse a megabyte of JSON",
        lambda t: sl.TensorDesc.parse(MEGABYTE_JSON),
        sl.LayoutError,
        ("JSON", "characters)", "65536"),
    ),
    (
        "CuTe of a megabyte",
        lambda t: sl.TensorDesc.from_cute(MEGABYTE_NOTATION[8:], "UINT8"),
        sl.LayoutError,
        ("65536",),
    ),
    (
        "parse JSON with a key given twice",
        lambda t: sl.TensorDesc.parse('{"DataType": "FLOAT32", "Sizes": [2], "Sizes": [3]}'),
        sl.LayoutError,
        ("'Sizes'", "twice"),
    ),
    (
        "a buffer past 64 bits",
        lambda t: sl.TensorDesc("UINT64", WIDEST, WIDEST),
        sl.LayoutError,
        ("UINT64 (4294967295,", "18446744073709551615", "64-bit"),
    ),
    (
        "a total past 64 bits",
        lambda t: sl.TensorDesc("UINT8", (4,), total_tensor_size_in_bytes=2**64),
        sl.LayoutError,
        ("total_tensor_size_in_bytes", "18446744073709551616"),
    ),
    (
        "a size of 5000 digits",
        lambda t: sl.TensorDesc("FLOAT32", (10**5000,)),
        sl.LayoutError,
        ("sizes[0]", "16610 bits"),
    ),
    (
        "a data type of 10 MB",
        lambda t: sl.TensorDesc(TEN_MB_TEXT, (2,)),
        sl.LayoutError,
        ("data_type", "(10000000 characters)"),
    ),
    (
        "slice offsets a million long",
        lambda t: sl.slice1(X, MILLION, (1, 1), (1, 1)),
        sl.LayoutError,
        ("window_offsets", "(1000000 items)"),
    ),
    (
        "scan axis of 5000 digits",
        lambda t: sl.cumulative_summation(X, 10**5000),
        sl.LayoutError,
        ("axis", "16610 bits"),
    ),
    (
        "SVG at a scale past any float",
        lambda t: sl.render_svg(D, scale=10**400),
        sl.LayoutError,
        ("scale", "1329 bits"),
    ),
    ("export to a million kinds", lambda t: D.export(MILLION), sl.LayoutError, ("kind", "(1000000 items)")),
    (
        "precompile endless operators",
        lambda t: stridelab.ops.precompile(itertools.repeat("slice1")),
        sl.LayoutError,
        ("operators", "more than 64 names"),
    ),
    # the DxDispatch loader
    ("load a .txt model", lambda t: load(t / "model.txt"), sl.LayoutError, ("model.txt", ".json")),
    ("load an absent model", lambda t: load(t / "absent.json"), sl.LayoutError, ("absent.json",)),
    (
        "load a model with a misspelt field",
        lambda t: load(model_file(t, lambda m: m["resources"]["A"].update(initialValue=1))),
        sl.LayoutError,
        ("initialValue", "initialValues"),
    ),
    ("run on backend gpu", lambda t: load(model_file(t)).run(backend="gpu"), sl.LayoutError, ("backend", "'gpu'")),
    ("run 0 iterations", lambda t: load(model_file(t)).run(iterations=0), sl.LayoutError, ("iterations", "0")),
]


def _widgets() -> object:
    pytest.importorskip("anywidget")
    return sl


WIDGET_CATALOGUE: list[tuple[str, Callable[[Path], object], type, tuple[str, ...]]] = [
    ("view of text", lambda t: _widgets().MemoryMapView("x"), TypeError, ("source", "'x'")),
    ("view with max_cells 0", lambda t: _widgets().MemoryMapView(D, max_cells=0), sl.LayoutError, ("max_cells", "0")),
    (
        "explore with a misspelt keyword",
        lambda t: _widgets().explore(sizes=(2, 3), max_cels=4),
        TypeError,
        ("max_cels", "max_cells"),
    ),
    ("compare with a misspelt keyword", lambda t: _widgets().compare(D, D, names="x"), TypeError, ("names",)),
    (
        "slice explorer past the input",
        lambda t: _widgets().SliceExplorer(X, window_offsets=(9, 9)),
        sl.LayoutError,
        ("window_offsets[0]", "11"),
    ),
    (
        "sum explorer of axis 5",
        lambda t: _widgets().CumulativeSummationExplorer(X, axis=5),
        sl.LayoutError,
        ("axis", "5"),
    ),
]
ALL_CALLS = CATALOGUE + WIDGET_CATALOGUE

CUMSUM_INPUT = np.array([[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]], dtype=np.float32)
CUMSUM_OUTPUT = [[[[2, 3, 6, 11], [3, 11, 18, 21], [9, 15, 17, 21]]]]  # dml-cumulative-summation.md
DHW = sl.TensorDesc("UINT8", (2, 2, 3))

# Exercise checkers given answers of any type: (name, call, what the "not yet" message must say).
FEEDBACK_CATALOGUE: list[tuple[str, Callable[[Path], object], tuple[str, ...]]] = [
    ("strides of a permutation layout", lambda t: exercises.check_strides((1, 2), (2, 3), (0, 1)), ("swapped",)),
    ("strides as a string", lambda t: exercises.check_strides("31", (2, 3), "HW"), ("tuple of integers", "str '31'")),
    ("strides as floats", lambda t: exercises.check_strides((3.0, 1.0), (2, 3), "HW"), ("integers", "(3.0, 1.0)")),
    ("strides endless", lambda t: exercises.check_strides(itertools.repeat(1), (2, 3), "HW"), ("one stride per",)),
    ("strides a million long", lambda t: exercises.check_strides(MILLION, (2, 3), "HW"), ("one stride per",)),
    ("offset as complex", lambda t: exercises.check_offset(7 + 0j, DHW, (1, 0, 1)), ("an integer", "complex (7+0j)")),
    ("offset as a float", lambda t: exercises.check_offset(7.0, DHW, (1, 0, 1)), ("an integer", "float 7.0")),
    ("offset as a string", lambda t: exercises.check_offset("7", DHW, (1, 0, 1)), ("an integer", "str '7'")),
    (
        "offset as 10 MB of text",
        lambda t: exercises.check_offset(TEN_MB_TEXT, DHW, (1, 0, 1)),
        ("10000000 characters",),
    ),
    ("buffer size as a float", lambda t: exercises.check_buffer_size(8.0, "UINT8", (2, 3)), ("an integer", "8.0")),
    (
        "sum output as complex",
        lambda t: exercises.check_cumulative_summation(np.array(CUMSUM_OUTPUT) + 0j, CUMSUM_INPUT, 3),
        ("real ones", "complex128"),
    ),
    (
        "slice output ragged",
        lambda t: exercises.check_slice1([[1], [2, 3]], CUMSUM_INPUT, (0, 0, 0, 0), (1, 1, 1, 1), (1, 1, 1, 1)),
        ("nested lists of numbers", "[[1], [2, 3]]"),
    ),
]


def run_in_child(name: str, call: Callable[[Path], object], tmp_path: Path, error: type) -> tuple:
    """Run ``call`` in a forked child, which is killed if it has not answered in time (a thread
    could not be stopped, nor time code that holds the GIL); the child reports what was raised (or
    what was returned) and tracemalloc's peak."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_attempt, args=(call, tmp_path, error, send), daemon=True)
    child.start()
    answered = receive.poll(TIMEOUT_S)
    if not answered:
        child.kill()
    child.join()
    assert answered, f"{name}: still running after {TIMEOUT_S} s"
    return receive.recv()


@pytest.mark.parametrize(("name", "call", "error", "needles"), ALL_CALLS, ids=[entry[0] for entry in ALL_CALLS])
def test_a_malformed_call_is_refused_clearly_quickly_and_cheaply(tmp_path, name, call, error, needles):
    if any(name == entry[0] for entry in WIDGET_CATALOGUE):
        pytest.importorskip("anywidget")
    raised, kind, message, peak = run_in_child(name, call, tmp_path, error)
    assert raised, f"{name}: accepted"
    assert kind == "expected", f"{name}: {kind}: {message}"
    for needle in needles:
        assert needle in message, f"{name}: {needle!r} not in {message!r}"
    assert len(message) < MESSAGE_CHARACTERS, f"{name}: a message of {len(message)} characters"
    assert peak < PEAK_BYTES, f"{name}: allocated {peak} bytes on the way to refusing"


@pytest.mark.parametrize(
    ("name", "call", "needles"), FEEDBACK_CATALOGUE, ids=[entry[0] for entry in FEEDBACK_CATALOGUE]
)
def test_an_exercise_answer_of_any_type_is_not_yet_right_quickly_and_cheaply(tmp_path, name, call, needles):
    raised, kind, message, peak = run_in_child(name, call, tmp_path, Exception)
    assert not raised, f"{name}: raised {kind}: {message}"
    assert message.startswith("not yet: "), f"{name}: {message}"
    for needle in needles:
        assert needle in message, f"{name}: {needle!r} not in {message!r}"
    assert len(message) < MESSAGE_CHARACTERS, f"{name}: a message of {len(message)} characters"
    assert peak < PEAK_BYTES, f"{name}: allocated {peak} bytes on the way to answering"


def _attempt(call: Callable[[Path], object], tmp_path: Path, error: type, send: Any) -> None:
    tracemalloc.start()
    try:
        result = call(tmp_path)
        outcome = (False, "", str(result)[: MESSAGE_CHARACTERS * 10], 0)
    except BaseException as caught:
        kind = "expected" if isinstance(caught, error) else type(caught).__name__
        outcome = (True, kind, str(caught), 0)
    peak = tracemalloc.get_traced_memory()[1]
    send.send((*outcome[:3], peak))


def test_the_catalogue_has_at_least_sixty_calls_without_the_widgets():
    assert len({name for name, *_ in ALL_CALLS}) == len(ALL_CALLS) and len(CATALOGUE) >= 60
