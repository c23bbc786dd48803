"""export(): the exported source, run in the tool it is written for, rebuilds the description."""

import itertools
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from stridelab import LayoutError, TensorDesc
from stridelab.export import EXPORT_KINDS, export

DESCS = {
    "packed": TensorDesc("FLOAT32", (2, 3, 4)),
    "nhwc": TensorDesc("FLOAT32", (1, 3, 2, 2), (12, 1, 6, 3)),
    "padded": TensorDesc("UINT16", (2, 3), (5, 1)),
    "broadcast": TensorDesc("INT8", (2, 3), (0, 1)),
    "float16": TensorDesc("FLOAT16", (1, 1, 2, 3), (0, 0, 5, 1)),
    "rank1": TensorDesc("FLOAT64", (5,)),
    "rank1_strided": TensorDesc("UINT8", (4,), (3,)),
    "explicit_total": TensorDesc("INT32", (2, 2), (3, 1), total_tensor_size_in_bytes=64),
}

# DirectML's DML_TENSOR_DATA_TYPE values, written out here rather than taken from stridelab.
DML_DATA_TYPE_VALUES = {
    "FLOAT32": 1, "FLOAT16": 2, "UINT32": 3, "UINT16": 4, "UINT8": 5, "INT32": 6,
    "INT16": 7, "INT8": 8, "FLOAT64": 9, "UINT64": 10, "INT64": 11,
}  # fmt: skip


def expected_offsets(sizes, strides):
    """Element offsets of every coordinate, row-major over the coordinates: dot(coords, strides)."""
    return {
        coords: sum(c * s for c, s in zip(coords, strides)) for coords in itertools.product(*(range(n) for n in sizes))
    }


def address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


# -- the exact text --------------------------------------------------------------------------------
def test_the_float16_example_in_every_kind():
    d = DESCS["float16"]
    assert export(d, "numpy") == (
        "np.lib.stride_tricks.as_strided(buffer, shape=(1, 1, 2, 3), strides=(0, 0, 10, 2))  # byte strides"
    )
    assert export(d, "torch") == "torch.as_strided(buffer, size=(1, 1, 2, 3), stride=(0, 0, 5, 1))  # element strides"
    assert export(d, "cpp").splitlines() == [
        "const UINT desc_sizes[4] = {1, 1, 2, 3};",
        "const UINT desc_strides[4] = {0, 0, 5, 1};",
        "const DML_BUFFER_TENSOR_DESC desc = {DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_FLAG_NONE, 4, "
        "desc_sizes, desc_strides, 16, 0};",
    ]
    assert export(d, "json") == '{"DataType": "FLOAT16", "Sizes": [1, 1, 2, 3], "Strides": [0, 0, 5, 1]}'


def test_rank_1_shapes_print_as_one_element_tuples():
    d = DESCS["rank1"]
    assert export(d, "numpy") == "np.lib.stride_tricks.as_strided(buffer, shape=(5,), strides=(8,))  # byte strides"
    assert export(d, "torch") == "torch.as_strided(buffer, size=(5,), stride=(1,))  # element strides"


def test_name_changes_the_variable_and_is_ignored_for_json():
    d = DESCS["padded"]
    assert export(d, "numpy", name="x").startswith("np.lib.stride_tricks.as_strided(x, ")
    assert export(d, "torch", name="x").startswith("torch.as_strided(x, ")
    assert (
        export(d, "cpp", name="input_desc")
        .splitlines()[2]
        .startswith(
            "const DML_BUFFER_TENSOR_DESC input_desc = {DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_FLAG_NONE, 2, "
            "input_desc_sizes, input_desc_strides, "
        )
    )
    assert export(d, "json", name="anything") == export(d, "json")


# -- numpy: the view lands on the description's offsets --------------------------------------------
@pytest.mark.parametrize("key", sorted(DESCS))
def test_numpy_view_addresses_are_the_description_offsets(key):
    d = DESCS[key]
    buffer = np.arange(d.slot_count, dtype=d.dtype.numpy_dtype)
    view = eval(export(d, "numpy"), {"np": np, "buffer": buffer})
    assert view.shape == d.sizes
    assert view.dtype == buffer.dtype
    base = address(view) - address(buffer)
    for coords, offset in expected_offsets(d.sizes, d.strides).items():
        byte_offset = base + sum(c * s for c, s in zip(coords, view.strides))
        assert byte_offset == offset * d.element_size, coords
        assert view[coords] == buffer[offset], coords


def test_numpy_view_with_another_name():
    d = DESCS["nhwc"]
    data = np.arange(d.slot_count, dtype=np.float32)
    view = eval(export(d, "numpy", name="data"), {"np": np, "data": data})
    assert view.strides == (48, 4, 24, 12)
    assert view.tolist() == [[[[0.0, 3.0], [6.0, 9.0]], [[1.0, 4.0], [7.0, 10.0]], [[2.0, 5.0], [8.0, 11.0]]]]


# -- torch -----------------------------------------------------------------------------------------
# Not "padded": it is UINT16, which older PyTorch releases cannot take from numpy.
@pytest.mark.parametrize("key", ["packed", "nhwc", "broadcast", "float16", "rank1", "rank1_strided", "explicit_total"])
def test_torch_view_elements_are_the_description_offsets(key):
    torch = pytest.importorskip("torch")
    d = DESCS[key]
    buffer = torch.from_numpy(np.arange(d.slot_count, dtype=d.dtype.numpy_dtype))
    view = eval(export(d, "torch"), {"torch": torch, "buffer": buffer})
    assert tuple(view.shape) == d.sizes
    assert tuple(view.stride()) == d.strides
    for coords, offset in expected_offsets(d.sizes, d.strides).items():
        assert view[coords].item() == buffer[offset].item(), coords


# -- C++: compiles against DirectML's declarations, and the fields are the description's ------------
CPP_DECLARATIONS = """\
#include <cstdio>
typedef unsigned int UINT;
typedef unsigned long long UINT64;
enum DML_TENSOR_DATA_TYPE {
    DML_TENSOR_DATA_TYPE_UNKNOWN = 0, DML_TENSOR_DATA_TYPE_FLOAT32 = 1, DML_TENSOR_DATA_TYPE_FLOAT16 = 2,
    DML_TENSOR_DATA_TYPE_UINT32 = 3, DML_TENSOR_DATA_TYPE_UINT16 = 4, DML_TENSOR_DATA_TYPE_UINT8 = 5,
    DML_TENSOR_DATA_TYPE_INT32 = 6, DML_TENSOR_DATA_TYPE_INT16 = 7, DML_TENSOR_DATA_TYPE_INT8 = 8,
    DML_TENSOR_DATA_TYPE_FLOAT64 = 9, DML_TENSOR_DATA_TYPE_UINT64 = 10, DML_TENSOR_DATA_TYPE_INT64 = 11,
};
enum DML_TENSOR_FLAGS { DML_TENSOR_FLAG_NONE = 0 };
struct DML_BUFFER_TENSOR_DESC {
    DML_TENSOR_DATA_TYPE DataType;
    DML_TENSOR_FLAGS Flags;
    UINT DimensionCount;
    const UINT* Sizes;
    const UINT* Strides;
    UINT64 TotalTensorSizeInBytes;
    UINT GuaranteedBaseOffsetAlignment;
};
static void print_desc(const char* name, const DML_BUFFER_TENSOR_DESC& d) {
    std::printf("%s %d %d %u", name, (int)d.DataType, (int)d.Flags, d.DimensionCount);
    std::printf(" sizes");
    for (UINT i = 0; i < d.DimensionCount; ++i) std::printf(" %u", d.Sizes[i]);
    std::printf(" strides");
    for (UINT i = 0; i < d.DimensionCount; ++i) std::printf(" %u", d.Strides[i]);
    std::printf(" total %llu align %u\\n", d.TotalTensorSizeInBytes, d.GuaranteedBaseOffsetAlignment);
}
"""


def gxx() -> str:
    compiler = "/usr/bin/g++" if Path("/usr/bin/g++").exists() else shutil.which("g++")
    if compiler is None:
        pytest.skip("g++ is not installed, so the C++ export cannot be compiled")
    return compiler


def compile_and_run(tmp_path: Path, source: str) -> str:
    (tmp_path / "desc.cpp").write_text(source)
    build = subprocess.run(
        [gxx(), "-std=c++17", "-Wall", "-Werror", "desc.cpp", "-o", "desc"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, f"g++ failed:\n{build.stderr}\n--- source ---\n{source}"
    return subprocess.run([str(tmp_path / "desc")], capture_output=True, text=True, check=True).stdout


def test_cpp_compiles_and_every_field_is_the_descriptions(tmp_path):
    descs = dict(DESCS)
    descs.update({f"all_{t.lower()}": TensorDesc(t, (2, 3), (4, 1)) for t in DML_DATA_TYPE_VALUES})
    descs["largest_uint"] = TensorDesc("UINT8", (2**32 - 1,), (1,))
    descs["largest_uint64_total"] = TensorDesc("UINT8", (4,), total_tensor_size_in_bytes=2**64 - 4)
    names = {key: f"d_{key}" for key in descs}
    body = "\n".join(export(d, "cpp", name=names[key]) for key, d in descs.items())
    calls = "\n".join(f'    print_desc("{key}", {names[key]});' for key in descs)
    output = compile_and_run(tmp_path, f"{CPP_DECLARATIONS}\n{body}\n\nint main() {{\n{calls}\n    return 0;\n}}\n")

    printed = {line.split()[0]: line.split()[1:] for line in output.splitlines()}
    assert set(printed) == set(descs)
    for key, d in descs.items():
        rank = len(d.sizes)
        assert printed[key] == [
            str(DML_DATA_TYPE_VALUES[d.data_type]),
            "0",  # DML_TENSOR_FLAG_NONE
            str(rank),
            "sizes",
            *map(str, d.sizes),
            "strides",
            *map(str, d.strides),
            "total",
            str(d.buffer_size),
            "align",
            "0",
        ], key


def test_cpp_total_is_the_explicit_size_where_one_is_given(tmp_path):
    d = TensorDesc("FLOAT16", (1, 1, 2, 3), (0, 0, 5, 1), total_tensor_size_in_bytes=256)
    assert export(d, "cpp").endswith("desc_sizes, desc_strides, 256, 0};")
    output = compile_and_run(
        tmp_path, f'{CPP_DECLARATIONS}\n{export(d, "cpp")}\nint main() {{ print_desc("d", desc); }}\n'
    )
    assert output.split() == "d 2 0 4 sizes 1 1 2 3 strides 0 0 5 1 total 256 align 0".split()


def test_no_description_has_a_buffer_beyond_64_bits():
    # 8 dimensions of 2**32 - 1 elements 2**32 - 1 apart reach 8 * (2**32 - 2) * (2**32 - 1) + 1
    # elements, past 2**64 bytes: DirectML's TotalTensorSizeInBytes (a UINT64) could not hold it
    with pytest.raises(LayoutError, match="needs 147573952486597197844 bytes, more than 18446744073709551615"):
        TensorDesc("UINT8", (2**32 - 1,) * 8, (2**32 - 1,) * 8)


# -- json ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", sorted(DESCS))
def test_json_round_trips(key):
    d = DESCS[key]
    text = export(d, "json")
    assert "\n" not in text
    assert TensorDesc.from_json(json.loads(text)) == d
    assert json.loads(text) == d.to_json()


def test_json_keeps_an_explicit_total():
    assert json.loads(export(DESCS["explicit_total"], "json"))["TotalTensorSizeInBytes"] == 64


# -- errors ----------------------------------------------------------------------------------------
def test_kinds():
    assert EXPORT_KINDS == ("numpy", "torch", "cpp", "json")


@pytest.mark.parametrize("kind", ["NumPy", "c++", "", None, 3])
def test_an_unknown_kind_is_a_layout_error_listing_the_kinds(kind):
    message = f"kind {kind!r} is not an export kind; expected one of 'numpy', 'torch', 'cpp', 'json'"
    with pytest.raises(LayoutError, match=re.escape(message)):
        export(DESCS["packed"], kind)


@pytest.mark.parametrize("name", ["2d", "my-desc", "", "int", "class", "desc name", "désc"])
def test_a_cpp_name_must_be_a_c_identifier(name):
    with pytest.raises(LayoutError, match=re.escape(f"name {name!r} is not a valid C identifier")):
        export(DESCS["packed"], "cpp", name=name)


@pytest.mark.parametrize("kind", ["numpy", "torch"])
@pytest.mark.parametrize("name", ["2d", "a.b", "", "lambda", "x[0]"])
def test_a_numpy_or_torch_name_must_be_a_python_identifier(kind, name):
    message = f"name {name!r} is not a valid Python identifier; {kind} code needs a variable name"
    with pytest.raises(LayoutError, match=re.escape(message)):
        export(DESCS["packed"], kind, name=name)


def test_wrong_types_are_type_errors():
    with pytest.raises(TypeError, match="export needs a TensorDesc, not dict"):
        export({"DataType": "FLOAT32", "Sizes": [2]}, "json")
    with pytest.raises(TypeError, match="export needs a TensorDesc, not ndarray"):
        export(np.zeros(3), "numpy")
    with pytest.raises(TypeError, match="name must be a str, not int"):
        export(DESCS["packed"], "cpp", name=3)
