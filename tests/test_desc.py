"""TensorDesc and the helper functions, checked against the numbers printed on the seed pages."""

import itertools
import json
import re
import time

import pytest

import stridelab as sl
from stridelab import LayoutError, TensorDesc, calc_buffer_tensor_size, calculate_strides, layout_strides

ELEMENT_SIZES = {
    "FLOAT32": 4, "UINT32": 4, "INT32": 4,
    "FLOAT16": 2, "UINT16": 2, "INT16": 2,
    "UINT8": 1, "INT8": 1,
    "FLOAT64": 8, "UINT64": 8, "INT64": 8,
}  # fmt: skip


# -- DMLCalcBufferTensorSize ---------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(ELEMENT_SIZES))
def test_calc_buffer_tensor_size_without_strides_is_element_count_times_size_rounded_to_4(name):
    # sizes {1,1,2,3}: 6 elements
    expected = {4: 24, 2: 12, 1: 8, 8: 48}[ELEMENT_SIZES[name]]
    assert calc_buffer_tensor_size(name, (1, 1, 2, 3)) == expected


@pytest.mark.parametrize("name", sorted(ELEMENT_SIZES))
def test_calc_buffer_tensor_size_with_strides_is_one_past_the_last_index(name):
    # sizes {1,1,2,3} strides {0,0,5,1}: last index 1*5 + 2*1 = 7, so 8 elements
    assert calc_buffer_tensor_size(name, (1, 1, 2, 3), (0, 0, 5, 1)) == 8 * ELEMENT_SIZES[name]


@pytest.mark.parametrize(
    ("name", "sizes", "strides", "expected"),
    [
        ("UINT8", (5,), None, 8),  # 5 bytes round up to 8
        ("INT8", (1, 1, 1, 1), None, 4),  # 1 byte rounds up to 4
        ("FLOAT16", (3,), None, 8),  # 6 bytes round up to 8
        ("FLOAT16", (1, 1, 2, 3), (0, 0, 4, 1), 16),  # last index 6: 7 elements, 14 bytes round up to 16
        ("UINT8", (2, 3), (0, 1), 4),  # broadcast: last index 2, 3 bytes -> 4
        ("UINT16", (2, 3), (5, 1), 16),  # padded rows: last index 7, 16 bytes
        ("FLOAT32", (1,), (7,), 4),  # a size-1 dimension's stride never moves the last index
    ],
)
def test_calc_buffer_tensor_size_rounds_up_to_4_bytes(name, sizes, strides, expected):
    assert calc_buffer_tensor_size(name, sizes, strides) == expected


def test_calc_buffer_tensor_size_is_exact_beyond_32_bits():
    assert calc_buffer_tensor_size("UINT8", (5, 1024, 1024, 1024)) == 5 * 2**30  # 5 GiB
    assert calc_buffer_tensor_size("FLOAT32", (2**20, 2**20)) == 2**42  # 2**40 elements
    # the last index 2**32 + 2**31 - 2 overflows the 32-bit index of the printed listing
    assert calc_buffer_tensor_size("UINT8", (2, 2**31), (2**32 - 1, 1)) == 2**32 + 2**31  # rounded up to 4
    assert calc_buffer_tensor_size("INT64", (3, 2**29, 4)) == 8 * 3 * 2**31  # 3 * 2**31 elements


def test_sizes_and_strides_are_32_bit_uints():
    with pytest.raises(LayoutError, match=r"sizes\[0\] = 4294967296 exceeds 4294967295: DirectML sizes are 32-bit"):
        TensorDesc("UINT8", (2**32,))
    with pytest.raises(LayoutError, match=r"strides\[1\] = 4294967296 exceeds 4294967295: DirectML strides are 32-bit"):
        calc_buffer_tensor_size("UINT8", (2, 1), (1, 2**32))
    assert TensorDesc("UINT8", (2**32 - 1,), (2**32 - 1,)).last_offset == (2**32 - 2) * (2**32 - 1)


@pytest.mark.parametrize(
    ("sizes", "strides", "message"),
    [
        ((1, 0, 3), None, r"sizes\[1\] = 0: every size must be at least 1"),
        ((2, -1), None, r"sizes\[1\] = -1: every size must be at least 1"),
        ((), None, "has 0 dimensions; DirectML tensors have 1 to 8"),
        ((1,) * 9, None, "has 9 dimensions; DirectML tensors have 1 to 8"),
        ((2, 3), (3, -1), r"strides\[1\] = -1: strides are element counts and must be 0 or more"),
        ((2, 3), (3,), r"strides \[3\] has 1 entries but sizes \[2, 3\] has 2"),
    ],
)
def test_calc_buffer_tensor_size_refuses_bad_descriptions(sizes, strides, message):
    with pytest.raises(LayoutError, match=message):
        calc_buffer_tensor_size("FLOAT32", sizes, strides)


def test_sizes_and_strides_must_be_integers():
    with pytest.raises(TypeError, match=r"sizes\[1\] must be an integer, not float"):
        TensorDesc("FLOAT32", (2, 3.0))
    with pytest.raises(TypeError, match=r"strides\[0\] must be an integer, not bool"):
        TensorDesc("FLOAT32", (2,), (True,))
    with pytest.raises(TypeError, match="sizes must be an ordered sequence of integers .*, not str '23'"):
        TensorDesc("FLOAT32", "23")
    with pytest.raises(TypeError, match=r"sizes must be an ordered sequence .*, not set \{1, 3\}"):
        TensorDesc("FLOAT32", {3, 1})
    with pytest.raises(TypeError, match="strides must be an ordered sequence .*, not dict"):
        TensorDesc("FLOAT32", (2, 3), {0: 3, 1: 1})


def test_calculate_strides_refuses_a_layout_that_is_no_text_with_a_type_error():
    with pytest.raises(TypeError, match="layout must be 'NCHW' or 'NHWC' \\(a str\\), not NoneType \\(None\\)"):
        sl.calculate_strides(None, (1, 2, 3, 4))


# -- CalculateStrides and layout strides ---------------------------------------------------------
def test_calculate_strides_for_the_pages_1x1x3x5_example():
    assert calculate_strides("NCHW", (1, 1, 3, 5)) == (15, 15, 5, 1)
    assert calculate_strides("NHWC", (1, 1, 3, 5)) == (15, 1, 5, 1)


def test_calculate_strides_with_broadcast_gives_zero_and_counts_the_dimension_as_one():
    # NCHW sizes {2,3,4,5}: broadcast C and W -> c = w = 1 in the listing
    assert calculate_strides("NCHW", (2, 3, 4, 5), (False, True, False, True)) == (4, 0, 1, 0)
    # NHWC sizes {2,3,4,5} broadcast H: h = 1, nStride = h*w*c = 15, hStride 0, wStride = c = 3, cStride = 1
    assert calculate_strides("NHWC", (2, 3, 4, 5), (False, False, True, False)) == (15, 1, 0, 3)
    assert calculate_strides("NHWC", (2, 3, 4, 5), (False,) * 4) == (60, 1, 15, 3)
    assert calculate_strides("NCHW", (2, 3, 4, 5), (True,) * 4) == (0, 0, 0, 0)


def test_calculate_strides_knows_only_its_two_layouts_and_four_dimensions():
    with pytest.raises(LayoutError, match="CalculateStrides knows 'NCHW' and 'NHWC'"):
        calculate_strides("NDHWC", (1, 1, 1, 3, 5))
    with pytest.raises(LayoutError, match="CalculateStrides takes 4"):
        calculate_strides("NCHW", (3, 5))


@pytest.mark.parametrize(
    ("layout", "sizes", "expected"),
    [
        ("HW", (2, 3), (3, 1)),  # row-major
        ("WH", (2, 3), (1, 2)),  # column-major: height-stride 1, width-stride 2
        ("DHW", (2, 2, 3), (6, 3, 1)),
        ("WHD", (2, 2, 3), (1, 2, 4)),  # D innermost, then H, then W
        ("NCHW", (1, 1, 3, 5), (15, 15, 5, 1)),
        ("NHWC", (1, 1, 3, 5), (15, 1, 5, 1)),
        ("NCDHW", (2, 3, 4, 5, 6), (360, 120, 30, 6, 1)),
        ("NDHWC", (2, 3, 4, 5, 6), (360, 1, 90, 18, 3)),
        ("CHW", (3, 4, 5), (20, 5, 1)),
        ((0, 2, 3, 1), (1, 1, 3, 5), (15, 1, 5, 1)),  # NHWC as a permutation
        ((1, 0), (2, 3), (1, 2)),
        ((7, 6, 5, 4, 3, 2, 1, 0), (2,) * 8, (1, 2, 4, 8, 16, 32, 64, 128)),
    ],
)
def test_layout_strides(layout, sizes, expected):
    assert layout_strides(layout, sizes) == expected


def test_layout_strides_padding_is_the_pages_height_stride_5():
    assert layout_strides("HW", (2, 3), padding={"W": 2}) == (5, 1)
    assert layout_strides("HW", (2, 3), padding={1: 2}) == (5, 1)
    # NHWC with each pixel's 3 channels padded to 4 and each row of 5 pixels padded by 1 pixel (4 slots)
    assert layout_strides("NHWC", (1, 3, 2, 5), padding={"C": 1, "W": 1}) == (48, 1, 24, 4)


def test_layout_strides_broadcast():
    assert layout_strides("HW", (2, 3), broadcast=(True, False)) == (0, 1)
    assert layout_strides("NHWC", (2, 3, 4, 5), broadcast=(False, False, True, False)) == (15, 1, 0, 3)


@pytest.mark.parametrize(
    ("layout", "sizes", "kwargs", "message"),
    [
        ("HWX", (1, 2, 3), {}, "must name each of the dimension letters"),
        ("HH", (2, 3), {}, "must name each of the dimension letters"),
        ("NCHW", (2, 3), {}, "names 4 dimensions but sizes has 2"),
        ((0, 0), (2, 3), {}, "must be a permutation of the dimension indices 0..1"),
        ("HW", (2, 3), {"padding": {"C": 1}}, "padding key 'C' is not a dimension letter of layout 'HW'"),
        ("HW", (2, 3), {"padding": {"H": 1}}, "follows the outermost dimension, which changes no stride"),
        ("HW", (2, 3), {"padding": {"W": -1}}, "padding is a count of elements and must be 0 or more"),
        ("HW", (2, 3), {"broadcast": (True,)}, "broadcast has 1 entries but sizes has 2"),
        ("NHW", (1, 2, 3), {"padding": {"HW": 2}}, "padding key 'HW' is not a dimension letter of layout 'NHW'"),
        ("HW", (2, 3), {"padding": {5: 2}}, "padding key 5 is not a dimension index in 0..1"),
    ],
)
def test_layout_strides_errors(layout, sizes, kwargs, message):
    with pytest.raises(LayoutError, match=message):
        layout_strides(layout, sizes, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"broadcast": "no"}, "broadcast must be a sequence of bools, one per dimension, not str"),
        ({"broadcast": (1, 0)}, r"broadcast\[0\] must be a bool, not int"),
        ({"padding": {"W": True}}, r"padding\['W'\] must be an integer, not bool"),
        ({"padding": {"W": 2.0}}, r"padding\['W'\] must be an integer, not float"),
        ({"padding": [("W", 2)]}, "padding must be a mapping of dimension to element count, not list"),
    ],
)
def test_layout_strides_type_errors_name_the_field(kwargs, message):
    with pytest.raises(TypeError, match=message):
        layout_strides("HW", (2, 3), **kwargs)


def test_calculate_strides_wants_bools_for_broadcast():
    with pytest.raises(TypeError, match="broadcast must be a sequence of bools, one per dimension, not str"):
        calculate_strides("NCHW", (1, 1, 2, 3), "nono")


# -- TensorDesc ----------------------------------------------------------------------------------
def test_design_examples():
    d = TensorDesc("FLOAT32", sizes=(1, 1, 3, 5), strides=None)
    assert (d.data_type, d.sizes, d.strides) == ("FLOAT32", (1, 1, 3, 5), (15, 15, 5, 1))
    assert (d.element_size, d.dimension_count, d.element_count, d.buffer_size) == (4, 4, 15, 60)
    assert d.offset_of((0, 0, 2, 1)) == 11
    assert d == TensorDesc("FLOAT32", (1, 1, 3, 5), (15, 15, 5, 1))  # implicit and explicit packed strides


def test_offset_of_the_pages_h_element_is_7():
    assert TensorDesc("UINT8", (2, 2, 3)).offset_of((1, 0, 1)) == 7


def test_offset_of_checks_its_coordinates():
    d = TensorDesc("UINT8", (2, 3))
    with pytest.raises(LayoutError, match=r"coords\[1\] = 3 is out of range for sizes\[1\] = 3"):
        d.offset_of((0, 3))
    with pytest.raises(LayoutError, match="coords \\[0\\] has 1 entries but the tensor has 2 dimensions"):
        d.offset_of((0,))


def test_total_tensor_size_in_bytes():
    d = TensorDesc("FLOAT32", (2, 3), (5, 1), total_tensor_size_in_bytes=40)
    assert (d.buffer_size, d.required_size, d.slot_count) == (40, 32, 10)
    with pytest.raises(LayoutError, match="total_tensor_size_in_bytes = 28 is smaller than the 32 bytes"):
        TensorDesc("FLOAT32", (2, 3), (5, 1), total_tensor_size_in_bytes=28)
    with pytest.raises(LayoutError, match="total_tensor_size_in_bytes = 34 must be a multiple of 4"):
        TensorDesc("FLOAT32", (2, 3), (5, 1), total_tensor_size_in_bytes=34)
    with pytest.raises(TypeError, match=r"total_tensor_size_in_bytes must be an integer, not float \(40.0\)"):
        TensorDesc("FLOAT32", (2, 3), (5, 1), total_tensor_size_in_bytes=40.0)


def test_descriptions_are_immutable_values():
    a = TensorDesc("float32", (2, 3))
    b = TensorDesc("DML_TENSOR_DATA_TYPE_FLOAT32", [2, 3], [3, 1], 24)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != TensorDesc("FLOAT32", (2, 3), total_tensor_size_in_bytes=28)
    assert a != TensorDesc("INT32", (2, 3))
    with pytest.raises(AttributeError, match="immutable"):
        a.sizes = (3, 2)
    assert a.replace(strides=(1, 2)) == TensorDesc("FLOAT32", (2, 3), (1, 2))


def test_repr_is_readable_and_round_trips():
    d = TensorDesc("UINT16", (2, 3), (5, 1), total_tensor_size_in_bytes=20)
    assert repr(d) == "TensorDesc('UINT16', sizes=(2, 3), strides=(5, 1), total_tensor_size_in_bytes=20)"
    assert eval(repr(d), {"TensorDesc": TensorDesc}) == d


def test_json_uses_dxdispatch_field_names():
    d = TensorDesc("FLOAT16", (1, 1, 3, 5), sl.calculate_strides("NHWC", (1, 1, 3, 5)))
    obj = d.to_json()
    assert obj == {"DataType": "FLOAT16", "Sizes": [1, 1, 3, 5], "Strides": [15, 1, 5, 1]}
    assert TensorDesc.from_json(json.loads(json.dumps(obj))) == d
    full = {"DataType": "DML_TENSOR_DATA_TYPE_UINT8", "DimensionCount": 2, "Sizes": [2, 3], "TotalTensorSizeInBytes": 8}
    assert TensorDesc.from_json(full) == TensorDesc("UINT8", (2, 3), total_tensor_size_in_bytes=8)
    nested = {"Type": "DML_TENSOR_TYPE_BUFFER", "Desc": {**full, "TotalTensorSizeInBytes": 0, "Flags": "NONE"}}
    assert TensorDesc.from_json(nested) == TensorDesc("UINT8", (2, 3))


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"DataType": "FLOAT32", "Sizes": [2], "DimensionCount": 2}, "DimensionCount = 2 but Sizes"),
        ({"DataType": "FLOAT32", "Sizes": [2], "Flags": 0}, "Flags = 0: expected one of NONE, OWNED_BY_DML"),
        ({"DataType": "FLOAT32", "Sizes": [2], "Flags": "OWNED_BY_DML"}, "owned by DirectML .* are not supported"),
        ({"Sizes": [2]}, "the field 'DataType' is required"),
        ({"DataType": "FLOAT32", "Sizes": [2], "Stride": [1]}, "'Stride' is not a field .*did you mean 'Strides'"),
        ({"DataType": "FLOAT32", "Sizes": [2, True]}, r"Sizes\[1\] = true: expected an integer"),
        ({"DataType": "FLOAT32", "Sizes": [2], "Strides": [-1]}, r"Strides\[0\] = -1: a UINT is 0"),
        ({"DataType": "FLOAT32", "Sizes": [0]}, r"tensor description: Sizes\[0\] = 0"),
        ({"Type": "TEXTURE", "Desc": {}}, 'Type = "TEXTURE" is not one of BUFFER'),
        ({"Type": "BUFFER", "Desc": {"DataType": "FLOAT32"}}, "Desc: the field 'Sizes' is required"),
    ],
)
def test_from_json_errors(obj, message):
    with pytest.raises(LayoutError, match=message):
        TensorDesc.from_json(obj)


# -- classification ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("sizes", "strides", "total", "packed", "padded", "broadcast", "overlapping"),
    [
        ((2, 3), (3, 1), None, True, False, False, False),  # row-major
        ((2, 3), (1, 2), None, True, False, False, False),  # column-major
        ((2, 3), (0, 1), None, False, False, True, False),  # the page's broadcast example
        ((2, 3), (5, 1), None, False, True, False, False),  # the page's padding example
        ((2, 3), (3, 1), 40, True, True, False, False),  # packed strides, explicit extra bytes at the end
        ((2, 3), (1, 1), None, False, False, False, True),  # rows overlap: (0,1) and (1,0) share offset 1
        ((3, 2), (2, 3), None, False, True, False, False),  # offsets 0 3 2 5 4 7: slots 1 and 6 unused
        ((2, 2), (2, 3), None, False, True, False, False),  # offsets 0 3 2 5: distinct, slots 1 and 4 unused
        ((3, 3), (1, 2), None, False, False, False, True),  # offsets 0 2 4 1 3 5 2 4 6: strides do not nest
        ((1, 1, 3, 5), (15, 1, 5, 1), None, True, False, False, False),  # packed NHWC
        ((4, 1), (1, 9), None, True, False, False, False),  # a size-1 dimension's stride is irrelevant
    ],
)
def test_classification(sizes, strides, total, packed, padded, broadcast, overlapping):
    d = TensorDesc("FLOAT32", sizes, strides, total)
    assert (d.is_packed, d.is_padded, d.is_broadcast, d.is_overlapping) == (packed, padded, broadcast, overlapping)


def test_alignment_slots_are_not_padding():
    d = TensorDesc("UINT8", (2, 3))  # 6 bytes round up to 8: 2 alignment slots
    assert d.slot_count == 8 and d.is_packed and not d.is_padded


def test_classification_at_sizes_no_enumeration_could_reach():
    big = TensorDesc("FLOAT32", (2**20, 2**20), (2**20 + 16, 1))  # 2**40 elements, padded rows
    assert (big.is_packed, big.is_padded, big.is_overlapping) == (False, True, False)
    nhwc = TensorDesc("UINT8", (64, 512, 1024, 1024), calculate_strides("NHWC", (64, 512, 1024, 1024)))
    assert nhwc.is_packed and not nhwc.is_padded
    overlapping = TensorDesc("UINT8", (2**20, 2**20), (1, 1))  # pigeonhole: 2**40 elements, 2**21 - 1 offsets
    assert overlapping.is_overlapping and not overlapping.is_packed


def test_layouts_that_do_not_nest_are_classified_in_well_under_a_second():
    start = time.perf_counter()
    # 2**24 elements, more than offsets up to the last one: overlapping by counting alone
    assert TensorDesc("FLOAT32", (4096, 4096), (4095, 1)).is_overlapping
    # 4M elements at the enumeration limit, strides 2 and 2049 that do not nest: enumerated
    d = TensorDesc("FLOAT32", (2000, 2000), (2049, 2))
    assert (d.is_overlapping, d.is_padded) == (False, True)
    assert time.perf_counter() - start < 3


def test_a_size_1_dimension_may_have_any_stride():
    d = TensorDesc("FLOAT32", (3, 1), (1, 2**32 - 1))
    assert (d.last_offset, d.buffer_size, d.is_packed) == (2, 12, True)
    assert d.memory_map().offsets.ravel().tolist() == [0, 1, 2]


def test_undecidable_classification_is_refused_not_guessed():
    # sorted strides 3, 1000, 160000: 160000 is less than the inner two's span (1 + 169 * 3 + 169 * 1000),
    # 170**3 elements are past the search budget and fewer than the offsets up to the last one, so
    # neither arithmetic nor the pigeonhole principle decides
    d = TensorDesc("UINT8", (170, 170, 170), (160000, 1000, 3))
    with pytest.raises(LayoutError, match=r"neither nest nor reduce to two dimensions.*budget 4000000"):
        _ = d.is_overlapping


def test_a_large_layout_that_reduces_to_two_dimensions_is_decided():
    # strides 1 and 3 over sizes 4 do not nest, but 100 steps past both (their span is 13), so only
    # they can collide: 3 steps of 1 meet 1 step of 3
    d = TensorDesc("UINT8", (4, 4, 2**21), (1, 3, 100))
    assert d.is_overlapping


# -- bounded reads and 64-bit buffer sizes -------------------------------------------------------
def counted(values, read):
    """``values`` one at a time, appending each to ``read``."""
    for value in values:
        read.append(value)
        yield value


def test_sizes_and_strides_are_read_at_most_nine_items_deep():
    read: list[int] = []
    with pytest.raises(LayoutError, match=r"^sizes = .*: it has more than 8 dimensions; DirectML tensors have 1 to 8$"):
        TensorDesc("FLOAT32", counted(itertools.repeat(1), read))
    assert len(read) == 9
    read.clear()
    with pytest.raises(LayoutError, match=r"^strides = .*: it has more than 8 entries"):
        TensorDesc("FLOAT32", (2, 3), counted(range(10**7), read))
    assert len(read) == 9
    read.clear()
    with pytest.raises(LayoutError, match="broadcast has more than 2 entries but sizes has 2"):
        layout_strides("HW", (2, 3), broadcast=counted(itertools.repeat(False), read))
    assert len(read) == 3
    message = "sizes = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ...] (1000000 items): it has 1000000"
    with pytest.raises(LayoutError, match=re.escape(message)):
        TensorDesc("FLOAT32", [1] * 10**6)
    assert TensorDesc("FLOAT32", (x for x in (2, 3))).sizes == (2, 3)  # a short iterator is still read


def test_a_buffer_past_64_bits_is_refused_naming_the_rule():
    # 8 dimensions of 2**32 - 1 elements 2**32 - 1 apart span 8 * (2**32 - 2) * (2**32 - 1) + 1
    # elements, 8 bytes each: past 2**64 - 1 bytes
    rule = "more than 18446744073709551615: DirectML buffer sizes are 64-bit"
    with pytest.raises(LayoutError, match=rule):
        TensorDesc("UINT64", (2**32 - 1,) * 8, (2**32 - 1,) * 8)
    with pytest.raises(LayoutError, match=rule):
        calc_buffer_tensor_size("UINT64", (2**32 - 1,) * 8, (2**32 - 1,) * 8)
    with pytest.raises(LayoutError, match=r"^total_tensor_size_in_bytes = 18446744073709551616: it exceeds"):
        TensorDesc("UINT8", (4,), total_tensor_size_in_bytes=2**64)
    assert TensorDesc("UINT8", (4,), total_tensor_size_in_bytes=2**64 - 4).buffer_size == 2**64 - 4
    # (2**32 - 1)**2 = 18446744065119617025 bytes, rounded up to a multiple of 4: it fits
    assert calc_buffer_tensor_size("UINT8", (2**32 - 1, 2**32 - 1)) == 18446744065119617028


def test_parse_reads_json_as_dxdispatch_writes_it():
    text = """{
        // DxDispatch models carry comments and trailing commas
        "DataType": "FLOAT16", /* half */
        "Sizes": [2, 3,],
    }"""
    assert TensorDesc.parse(text) == TensorDesc("FLOAT16", (2, 3))
    with pytest.raises(LayoutError, match="the key 'Sizes' appears twice in one object"):
        TensorDesc.parse('{"DataType": "FLOAT32", "Sizes": [2], "Sizes": [3]}')


def test_parse_refuses_long_text_unread():
    for text in ("FLOAT32 (" + "1," * 500_000 + "1):(1)", '{"DataType": "FLOAT32", "Sizes": [' + " " * 10**6 + "]}"):
        with pytest.raises(LayoutError, match=r"\(10000\d\d characters\): it has more than 65536 characters") as error:
            TensorDesc.parse(text)
        assert len(str(error.value)) < 300


def test_a_size_1_stride_past_32_bits_is_held_at_the_largest_uint():
    """(1, 65536, 65536, 2) packed: N's span is 2**33 elements, not a DirectML UINT; it never moves
    an element, so it is stored as 2**32 - 1 and the description reads back from its own text."""
    desc = sl.TensorDesc("UINT8", (1, 65536, 65536, 2))
    assert desc.strides == (2**32 - 1, 131072, 2, 1)
    assert sl.TensorDesc.parse(str(desc)) == desc
    assert sl.layout_strides("NHWC", (1, 65536, 65536, 2)) == (2**32 - 1, 1, 131072, 65536)
