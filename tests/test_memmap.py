"""Memory maps against the offset/value tables printed on the strides page."""

import time

import numpy as np
import pytest

from stridelab import LayoutError, MemoryMap, StridedTensor, TensorDesc, layout_strides
from stridelab.memmap import SlotKind, element_label, element_labels_in_order


def test_2d_row_major_table():
    m = TensorDesc("UINT8", (2, 3)).memory_map()
    assert m.table() == "Offset:|0|1|2|3|4|5\n-|-|-|-|-|-|-\nValue:|A|B|C|D|E|F"
    assert m.logical_text() == "A B C\nD E F"


def test_2d_column_major_table():
    m = TensorDesc("UINT8", (2, 3), layout_strides("WH", (2, 3))).memory_map()
    assert m.table() == "Offset:|0|1|2|3|4|5\n-|-|-|-|-|-|-\nValue:|A|D|B|E|C|F"
    assert m.logical_text() == "A B C\nD E F"


def test_dhw_table_and_the_h_element():
    m = TensorDesc("UINT8", (2, 2, 3)).memory_map()
    assert m.table().splitlines()[0] == "Offset:|0|1|2|3|4|5|6|7|8|9|10|11"
    assert m.table().splitlines()[2] == "Value:|A|B|C|D|E|F|G|H|I|J|K|L"
    assert m.logical_text() == "A B C\nD E F\n\nG H I\nJ K L"
    assert m.offsets[1, 0, 1] == 7 and m.slot_labels()[7] == "H"


def test_broadcast_example_3_physical_of_6_logical():
    d = TensorDesc("UINT8", (2, 3), (0, 1))
    m = d.memory_map()
    assert m.logical_text() == "A B C\nA B C"
    assert m.table() == "Offset:|0|1|2\n-|-|-|-\nValue:|A|B|C"
    assert m.element_count == 6
    assert m.slot_counts.tolist() == [2, 2, 2, 0]  # the 4th byte is alignment
    assert m.shared_slots.tolist() == [0, 1, 2]
    assert m.elements_at(1) == [(0, 1), (1, 1)]


def test_padding_example_height_stride_5():
    m = TensorDesc("UINT8", (2, 3), (5, 1)).memory_map()
    assert m.table() == "Offset:|0|1|2|3|4|5|6|7\n-|-|-|-|-|-|-|-|-\nValue:|A|B|C|x|x|D|E|F"
    assert m.logical_text() == "A B C\nD E F"


def test_padding_example_as_float32_with_and_without_total_size():
    with_total = TensorDesc("FLOAT32", (2, 3), (5, 1), total_tensor_size_in_bytes=40).memory_map()
    assert with_total.slot_count == 10
    assert with_total.padding_slots.tolist() == [3, 4, 8, 9]
    assert with_total.table().splitlines()[2] == "Value:|A|B|C|x|x|D|E|F|x|x"
    without = TensorDesc("FLOAT32", (2, 3), (5, 1)).memory_map()
    assert without.slot_count == 8
    assert without.padding_slots.tolist() == [3, 4]


def test_nchw_and_nhwc_for_1x1x3x5_are_both_packed_and_identical_here():
    for layout in ("NCHW", "NHWC"):
        m = TensorDesc("FLOAT32", (1, 1, 3, 5), layout_strides(layout, (1, 1, 3, 5))).memory_map()
        assert m.offsets.ravel().tolist() == list(range(15))


def test_nhwc_map_differs_from_nchw_when_channels_exist():
    m = TensorDesc("UINT8", (1, 2, 2, 2), layout_strides("NHWC", (1, 2, 2, 2))).memory_map()
    # channel 0 at even offsets, channel 1 at odd ones
    assert m.offsets[0, 0].ravel().tolist() == [0, 2, 4, 6]
    assert m.offsets[0, 1].ravel().tolist() == [1, 3, 5, 7]
    assert m.slot_labels() == ["A", "E", "B", "F", "C", "G", "D", "H"]


def test_alignment_slots_are_shown_only_on_request():
    m = TensorDesc("UINT8", (2, 3)).memory_map()
    assert m.alignment_slots.tolist() == [6, 7]
    assert m.table(include_alignment=True).splitlines()[2] == "Value:|A|B|C|D|E|F|.|."
    assert m.slot_kinds.tolist() == [SlotKind.ELEMENT] * 6 + [SlotKind.ALIGNMENT] * 2


def test_values_when_bound_to_data():
    t = StridedTensor(TensorDesc("INT16", (2, 3), (5, 1)), np.array([1, 2, 3, -1, -1, 4, 5, 6], dtype=np.int16))
    m = t.memory_map()
    assert m.table() == "Offset:|0|1|2|3|4|5|6|7\n-|-|-|-|-|-|-|-|-\nValue:|1|2|3|x|x|4|5|6"
    assert m.logical_text() == "1 2 3\n4 5 6"


def test_labels_go_past_z_spreadsheet_style():
    assert [element_label(i) for i in (0, 25, 26, 27, 51, 52, 701, 702)] == [
        "A", "Z", "AA", "AB", "AZ", "BA", "ZZ", "AAA",
    ]  # fmt: skip


def test_bulk_labels_match_one_by_one_labels_across_letter_counts():
    bulk = element_labels_in_order(20_000)  # past ZZZ (index 18277)
    assert bulk[25:28] == ["Z", "AA", "AB"] and bulk[701:703] == ["ZZ", "AAA"] and bulk[18278] == "AAAA"
    assert bulk == [element_label(i) for i in range(20_000)]


def test_4d_logical_text_heads_each_tile():
    text = TensorDesc("UINT8", (1, 2, 1, 2)).memory_map().logical_text()
    assert text == "(0, 0, :, :)\nA B\n\n(0, 1, :, :)\nC D"


def test_summary_line():
    m = TensorDesc("FLOAT32", (2, 3), (5, 1), total_tensor_size_in_bytes=40).memory_map()
    assert m.summary() == (
        "FLOAT32 sizes [2, 3] strides [5, 1]: padded; 6 logical elements in 10 slots "
        "(6 single, 0 shared, 4 padding, 0 alignment); 40 bytes"
    )


def test_overlapping_slots_list_every_element():
    m = TensorDesc("UINT8", (3, 3), (1, 2)).memory_map()
    assert m.elements_at(2) == [(0, 1), (2, 0)]
    assert m.slot_counts.tolist() == [1, 1, 2, 1, 2, 1, 1, 0]


def test_too_large_maps_are_refused_quickly_before_allocating():
    start = time.perf_counter()
    with pytest.raises(LayoutError, match="memory maps are built for at most 4000000"):
        TensorDesc("FLOAT32", (2**20, 2**20)).memory_map()
    with pytest.raises(LayoutError, match="physical slots"):
        TensorDesc("UINT8", (2, 2), (2**31, 1)).memory_map()
    assert time.perf_counter() - start < 0.5
    assert TensorDesc("UINT8", (300, 300)).memory_map(limit=100_000).element_count == 90_000


def test_bad_arguments():
    with pytest.raises(TypeError, match=r"desc must be a TensorDesc, not tuple \(2, 3\)"):
        MemoryMap((2, 3))
    m = TensorDesc("UINT8", (2, 3)).memory_map()
    with pytest.raises(LayoutError, match="slot 8 is out of range for a buffer of 8 slots"):
        m.elements_at(8)
    with pytest.raises(LayoutError, match="values must be a 1-D buffer of at least 6 elements"):
        MemoryMap(TensorDesc("UINT8", (2, 3)), np.zeros(5, np.uint8))


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda d: d.memory_map(limit="5"), TypeError, "limit must be an integer, not str ('5')"),
        (lambda d: d.memory_map(limit=2.5), TypeError, "limit must be an integer, not float (2.5)"),
        (lambda d: d.memory_map(limit=-1), LayoutError, "limit = -1: it must be at least 1"),
        (lambda d: d.memory_map().elements_at("1"), TypeError, "slot must be an integer, not str ('1')"),
        (lambda d: d.memory_map().elements_at(8), LayoutError, "slot 8 is out of range for a buffer of 8 slots"),
    ],
)
def test_limits_and_slots_are_checked_as_integers(call, error, message):
    with pytest.raises(error) as raised:
        call(TensorDesc("UINT8", (2, 3), (5, 1)))
    assert str(raised.value) == message


def test_letters_label_up_to_26_elements_and_flat_indices_beyond():
    assert TensorDesc("UINT8", (2, 13)).memory_map().slot_labels()[25:] == ["Z", ".", "."]  # 26 bytes round up to 28
    big = TensorDesc("UINT8", (3, 9), (10, 1))  # 27 elements, a padding slot after each row
    assert big.memory_map().slot_labels()[8:12] == ["8", "x", "9", "10"]
    broadcast = TensorDesc("UINT8", (4, 9), (0, 1))  # 36 elements in 9 shared slots: the first row's indices
    assert broadcast.memory_map().slot_labels() == [str(i) for i in range(9)] + ["."] * 3
