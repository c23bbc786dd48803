import pickle

import numpy as np
import pytest

from stridelab import LayoutError, StridedTensor, TensorDesc


def test_from_array_converts_byte_strides_to_element_strides_without_copying():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    t = StridedTensor.from_array(a.transpose(2, 0, 1))
    assert t.desc == TensorDesc("FLOAT32", (4, 2, 3), (1, 12, 4))
    assert np.shares_memory(t.buffer, a)
    np.testing.assert_array_equal(t.to_array(), a.transpose(2, 0, 1))
    assert t.to_array().flags.c_contiguous


def test_from_array_keeps_slices_and_broadcasts():
    a = np.arange(20, dtype=np.int16).reshape(4, 5)[1:, ::2]
    t = StridedTensor.from_array(a)
    assert (t.desc.sizes, t.desc.strides, t.buffer.size) == ((3, 3), (5, 2), 15)
    np.testing.assert_array_equal(t.to_array(), a)
    b = np.broadcast_to(np.arange(3, dtype=np.uint8), (2, 3))
    tb = StridedTensor.from_array(b)
    assert tb.desc.strides == (0, 1) and tb.desc.is_broadcast
    assert not tb.view().flags.writeable  # elements share slots: writes through the view would collide


def test_from_array_of_a_scalar_is_one_element():
    t = StridedTensor.from_array(np.array(7, dtype=np.int64))
    assert t.desc.sizes == (1,) and t.to_array().tolist() == [7]


@pytest.mark.parametrize(
    ("array", "error", "message"),
    [
        (np.zeros((2, 0), np.float32), LayoutError, "has no elements"),
        (np.arange(4, dtype=np.float32)[::-1], LayoutError, r"byte_strides\[0\] = -4 is negative.*ascontiguousarray"),
        (np.zeros(8, np.uint8).view(np.dtype([("a", "u1")])), LayoutError, "has no DirectML data type"),
        (np.zeros((1,) * 9, np.float32), LayoutError, "has 9 dimensions"),
        ([1, 2, 3], TypeError, r"array must be a numpy or cupy array, not list \[1, 2, 3\]"),
    ],
)
def test_from_array_refuses_what_it_cannot_describe(array, error, message):
    with pytest.raises(error, match=message):
        StridedTensor.from_array(array)


def test_from_array_refuses_strides_that_are_not_whole_elements():
    raw = np.zeros(16, np.uint8)
    odd = np.lib.stride_tricks.as_strided(raw.view(np.uint16)[:4], shape=(3,), strides=(3,))
    with pytest.raises(LayoutError, match=r"byte_strides\[0\] = 3 is not a multiple of the item size 2"):
        StridedTensor.from_array(odd)


def test_buffer_must_match_the_description():
    d = TensorDesc("FLOAT32", (2, 3), (5, 1))
    StridedTensor(d, np.zeros(8, np.float32))  # up to the last element is enough; 4-byte rounding is not asked
    with pytest.raises(LayoutError, match="buffer has 7 elements but .* reaches offset 7, so it needs at least 8"):
        StridedTensor(d, np.zeros(7, np.float32))
    with pytest.raises(LayoutError, match="buffer dtype float64 does not match data_type FLOAT32"):
        StridedTensor(d, np.zeros(8, np.float64))
    with pytest.raises(LayoutError, match="buffer must be 1-D"):
        StridedTensor(d, np.zeros((2, 4), np.float32))
    with pytest.raises(LayoutError, match="buffer must be contiguous"):
        StridedTensor(d, np.zeros(16, np.float32)[::2])
    with pytest.raises(TypeError, match="desc must be a TensorDesc"):
        StridedTensor((2, 3), np.zeros(8, np.float32))


def test_a_tensor_keeps_the_buffer_it_was_checked_with():
    # Operators trust the construction-time checks, so neither field may be replaced afterwards.
    t = StridedTensor.empty(TensorDesc("FLOAT32", (3, 4)))
    buffer = t.buffer
    with pytest.raises(AttributeError, match="StridedTensor is immutable; cannot set 'buffer'"):
        t.buffer = buffer[:3]
    with pytest.raises(AttributeError, match="cannot set 'desc'"):
        t.desc = TensorDesc("FLOAT32", (1,))
    assert t.buffer is buffer and t.desc == TensorDesc("FLOAT32", (3, 4))


def test_a_description_survives_pickling():
    desc = TensorDesc("FLOAT16", (2, 3), (5, 1), total_tensor_size_in_bytes=24)
    again = pickle.loads(pickle.dumps(desc))
    assert again == desc and hash(again) == hash(desc) and again.buffer_size == 24


def test_empty_allocates_the_whole_rounded_buffer():
    t = StridedTensor.empty(TensorDesc("UINT8", (2, 3), (5, 1)))
    assert t.buffer.size == 8 and t.buffer.dtype == np.uint8


def test_padded_view_reads_only_the_elements():
    d = TensorDesc("UINT8", (2, 3), (5, 1))
    t = StridedTensor(d, np.array([1, 2, 3, 0, 0, 4, 5, 6], np.uint8))
    assert t.to_array().tolist() == [[1, 2, 3], [4, 5, 6]]
    assert repr(t) == "StridedTensor(TensorDesc('UINT8', sizes=(2, 3), strides=(5, 1)), buffer=numpy[8])"


@pytest.mark.parametrize("shape", [(1, 1, 4, 4), (1, 64, 56, 56), (4, 1, 3), (1,), (1, 1), (2, 1, 1, 5, 1)])
def test_a_c_contiguous_array_is_the_packed_description(shape):
    # a size-1 dimension's stride never matters; it gets the span of the dimensions after it
    t = StridedTensor.from_array(np.zeros(shape, np.float32))
    assert t.desc == TensorDesc("FLOAT32", shape)


def test_the_slice_pages_input_has_the_pages_strides():
    t = StridedTensor.from_array(np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4))
    assert t.desc.strides == (16, 16, 4, 1)  # dml-slice1.md: Strides {16, 16, 4, 1}


def test_size_1_dimensions_of_a_strided_view_span_the_dimensions_after_them():
    t = StridedTensor.from_array(np.zeros((3, 8), np.float32)[:1, ::2])  # shape (1, 4), byte strides (32, 8)
    assert t.desc.strides == (8, 2)


def test_one_channels_last_image_reads_as_nhwc():
    image = np.zeros((1, 4, 5, 3), np.float32).transpose(0, 3, 1, 2)  # N, C, H, W view of N, H, W, C
    assert StridedTensor.from_array(image).desc.strides == (60, 1, 15, 3)  # N spans H * W * C = 60


def test_to_array_is_a_copy_even_of_a_packed_tensor():
    t = StridedTensor(TensorDesc("FLOAT32", (2, 3)), np.arange(6, dtype=np.float32))
    copy = t.to_array()
    copy[0, 0] = 99
    assert t.buffer[0] == 0 and not np.shares_memory(copy, t.buffer)


def masked_message(field: str) -> str:
    """The refusal of a masked array, word for word (the operators and widgets word it the same)."""
    return f"{field}: masked arrays are not supported (numpy.ma.MaskedArray); pass x.filled(value) or x.data"


def test_a_masked_array_is_refused_rather_than_losing_its_mask():
    masked = np.ma.masked_array(np.array([1, 2, 3, 4], np.int32), mask=[0, 1, 0, 0])
    assert np.ma.cumsum(masked).tolist() == [1, None, 4, 8]  # what the mask means: the 2 is left out
    with pytest.raises(TypeError) as refused:
        StridedTensor.from_array(masked)
    assert str(refused.value) == masked_message("array")
    with pytest.raises(TypeError) as refused:
        StridedTensor(TensorDesc("INT32", (4,)), masked)
    assert str(refused.value) == masked_message("buffer")
    # with no element masked it is still a masked array: refused all the same
    with pytest.raises(TypeError, match="masked arrays are not supported"):
        StridedTensor.from_array(np.ma.masked_array(np.zeros(3, np.float32)))
    # the ways out the message names are taken
    assert StridedTensor.from_array(masked.filled(0)).to_array().tolist() == [1, 0, 3, 4]
    assert StridedTensor.from_array(masked.data).to_array().tolist() == [1, 2, 3, 4]
