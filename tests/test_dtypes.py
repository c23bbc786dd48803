import numpy as np
import pytest

import stridelab as sl
from stridelab.dtypes import data_type

# name, bytes, numpy dtype, CUDA C type: from the DirectML helper listing and the CUDA type names.
EXPECTED = [
    ("FLOAT32", 4, np.float32, "float"),
    ("FLOAT16", 2, np.float16, "__half"),
    ("UINT32", 4, np.uint32, "unsigned int"),
    ("UINT16", 2, np.uint16, "unsigned short"),
    ("UINT8", 1, np.uint8, "unsigned char"),
    ("INT32", 4, np.int32, "int"),
    ("INT16", 2, np.int16, "short"),
    ("INT8", 1, np.int8, "signed char"),
    ("FLOAT64", 8, np.float64, "double"),
    ("UINT64", 8, np.uint64, "unsigned long long"),
    ("INT64", 8, np.int64, "long long"),
]


def test_the_eleven_types_in_design_order():
    assert sl.DATA_TYPES == tuple(name for name, *_ in EXPECTED)


@pytest.mark.parametrize(("name", "size", "np_type", "c_type"), EXPECTED)
def test_each_type_knows_its_size_numpy_dtype_and_c_type(name, size, np_type, c_type):
    t = data_type(name)
    assert (t.name, t.element_size, t.numpy_dtype, t.c_type) == (name, size, np.dtype(np_type), c_type)
    assert t.dml_name == "DML_TENSOR_DATA_TYPE_" + name


@pytest.mark.parametrize(
    "spelling", ["float16", "Float16", "DML_TENSOR_DATA_TYPE_FLOAT16", "dml_tensor_data_type_float16"]
)
def test_names_with_or_without_prefix_in_any_case(spelling):
    assert data_type(spelling).name == "FLOAT16"


@pytest.mark.parametrize(
    ("np_type", "name"), [(np.float32, "FLOAT32"), (np.dtype("int8"), "INT8"), (np.uint64, "UINT64")]
)
def test_numpy_dtypes(np_type, name):
    assert data_type(np_type).name == name


def test_a_data_type_resolves_to_itself():
    t = data_type("INT16")
    assert data_type(t) is t


@pytest.mark.parametrize("bad", ["FLOAT8", "DML_TENSOR_DATA_TYPE_BOOL", ""])
def test_unknown_names_are_refused_with_the_list(bad):
    with pytest.raises(sl.LayoutError, match=r"is not a DirectML data type; expected one of FLOAT32, FLOAT16"):
        data_type(bad)


@pytest.mark.parametrize("bad", [np.bool_, np.complex64, np.dtype(">f4")])
def test_numpy_dtypes_without_a_directml_type_are_refused(bad):
    with pytest.raises(sl.LayoutError, match="has no DirectML data type"):
        data_type(bad)


def test_other_objects_are_a_type_error():
    with pytest.raises(TypeError, match="data_type must be"):
        data_type(4)


@pytest.mark.parametrize(
    ("spelling", "name"),
    [
        ("float32", "FLOAT32"),
        ("torch.float32", "FLOAT32"),
        ("np.float16", "FLOAT16"),
        ("numpy.int8", "INT8"),
        ("np.half", "FLOAT16"),
        ("np.single", "FLOAT32"),
        ("np.double", "FLOAT64"),
        ("np.ubyte", "UINT8"),
        ("np.intc", "INT32"),
        ("np.ulonglong", "UINT64"),
        ("torch.float", "FLOAT32"),  # PyTorch's float is 32 bits
        ("torch.half", "FLOAT16"),
        ("torch.double", "FLOAT64"),
        ("torch.short", "INT16"),
        ("torch.int", "INT32"),
        ("torch.long", "INT64"),
        ("torch.uint16", "UINT16"),
        (" Torch.Float16 ", "FLOAT16"),
    ],
)
def test_numpy_and_pytorch_names(spelling, name):
    assert data_type(spelling).name == name


@pytest.mark.parametrize(
    "bad",
    [
        "torch.bfloat16",  # stridelab has no bfloat16
        "torch.float99",
        "torch.bool",
        "np.float",  # float64 in NumPy, float32 in PyTorch: not guessed
        "float",
        "np.int_",  # long on one platform, long long on another
        "torch.",
        "pandas.float32",
    ],
)
def test_names_without_a_stridelab_type_list_the_accepted_ones(bad):
    expected = (
        f"data_type '{bad}' is not a DirectML data type; expected one of FLOAT32, FLOAT16, UINT32, UINT16, UINT8, "
        "INT32, INT16, INT8, FLOAT64, UINT64, INT64, or one of their NumPy or PyTorch names (float32, np.half, "
        "torch.int64, ...)"
    )
    with pytest.raises(sl.LayoutError) as error:
        data_type(bad)
    assert str(error.value) == expected
