"""The exercise checkers: a right answer, and each mistake a checker recognises, on the pages' own
examples (expected values from the DirectML pages; the mistakes worked out by hand)."""

import numpy as np
import pytest

import stridelab as sl
from stridelab import exercises as ex

SLICE_INPUT = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)  # dml-slice1.md
CUMSUM_INPUT = np.array([[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]], dtype=np.float32)  # dml-cumulative-summation.md


def says(feedback: ex.Feedback, correct: bool, words: str) -> bool:
    return feedback.correct is correct and words in feedback.message


def test_offset_of_element_h_on_the_strides_page():
    dhw = sl.TensorDesc("FLOAT32", (2, 2, 3))  # strides {6, 3, 1}; H is (1, 0, 1)
    assert says(ex.check_offset(7, dhw, (1, 0, 1)), True, "offset 7")
    assert says(ex.check_offset(28, dhw, (1, 0, 1)), False, "offset in bytes")  # 7 * 4
    assert says(ex.check_offset(6, dhw, (1, 0, 1)), False, "dimension 2's term")  # 7 - 1 * 1: W's term left out
    assert says(ex.check_offset(8, dhw, (1, 0, 1)), False, "adds up coordinate × stride")  # no mistake known
    hw = sl.TensorDesc("UINT8", (2, 3))  # column-major strides would be (1, 2): (0, 1) -> 2
    assert says(ex.check_offset(2, hw, (0, 1)), False, "row-major and column-major swapped")
    wh = sl.TensorDesc("UINT8", (2, 3), (1, 2))  # the page's column-major table A D B E C F: E at 3
    assert says(ex.check_offset(3, wh, (1, 1)), True, "offset 3")
    assert says(ex.check_offset(4, wh, (1, 1)), False, "row-major and column-major swapped")  # row-major's
    nhwc = sl.TensorDesc("UINT8", (1, 2, 2, 2), (8, 1, 4, 2))  # neither order: no swap to recognise
    assert says(ex.check_offset(4, nhwc, (0, 1, 0, 0)), False, "offset in the packed row-major layout (NCHW)")
    assert repr(ex.check_offset(7, dhw, (1, 0, 1))) == "right: element (1, 0, 1) is at offset 7"
    assert "7" not in ex.check_offset(6, dhw, (1, 0, 1)).message.replace("(1, 0, 1)", "")  # no answer given away


def test_strides_of_the_1_1_3_5_example():
    sizes = (1, 1, 3, 5)  # the page: NCHW {15, 15, 5, 1}, NHWC {15, 1, 5, 1}
    assert says(ex.check_strides((15, 15, 5, 1), sizes, "NCHW"), True, "NCHW strides")
    assert says(ex.check_strides((15, 1, 5, 1), sizes, "NHWC"), True, "NHWC strides")
    assert says(ex.check_strides((15, 1, 5, 1), sizes, "NCHW"), False, "those are the NHWC strides")
    assert says(ex.check_strides((15, 15, 5, 1), sizes, "NHWC"), False, "those are the NCHW strides")
    assert says(ex.check_strides((60, 60, 20, 4), sizes, "NCHW", data_type="FLOAT32"), False, "byte strides")
    assert says(ex.check_strides((1, 2), (2, 3), "HW"), False, "row-major and column-major swapped")  # WH's
    assert says(ex.check_strides((3,), (2, 3), "HW"), False, "one stride per dimension")
    assert says(ex.check_strides((4, 1), (2, 3), "HW"), False, "H's stride is off")
    assert says(ex.check_strides((3, 3), (2, 3), "HW"), False, "innermost dimension (W) has stride 1")


def test_buffer_sizes_and_the_4_byte_rounding():
    assert says(ex.check_buffer_size(8, "FLOAT16", (1, 1, 1, 3)), True, "8 bytes")  # 3 * 2 = 6, rounded to 8
    assert says(ex.check_buffer_size(6, "FLOAT16", (1, 1, 1, 3)), False, "4-byte rounding is forgotten")
    assert says(ex.check_buffer_size(3, "FLOAT16", (1, 1, 1, 3)), False, "counts elements")
    # the page's padded example: 2 x 3 FLOAT32 with height-stride 5 spans 8 elements, 32 bytes
    assert says(ex.check_buffer_size(32, "FLOAT32", (2, 3), (5, 1)), True, "32 bytes")
    assert says(ex.check_buffer_size(24, "FLOAT32", (2, 3), (5, 1)), False, "counts the logical elements")
    assert says(ex.check_buffer_size(40, "FLOAT32", (2, 3), (5, 1)), False, "last element's offset")


def test_slice1_examples_1_and_2():
    positive = (SLICE_INPUT, (0, 0, 0, 1), (1, 1, 4, 3), (1, 1, 2, 2))
    negative = (SLICE_INPUT, (0, 0, 0, 1), (1, 1, 4, 3), (1, 1, -2, 2))
    assert says(ex.check_slice1([[[[2, 4], [10, 12]]]], *positive), True, "the output")  # example 1
    assert says(ex.check_slice1([[[[14, 16], [6, 8]]]], *negative), True, "the output")  # example 2
    # example 2 read from the window's start, as if the stride were +2
    assert says(ex.check_slice1([[[[2, 4], [10, 12]]]], *negative), False, "window_strides[2] is negative")
    # the window taken one column short (sizes {1, 1, 4, 2}): only column 1 is copied
    assert says(ex.check_slice1([[[[2], [10]]]], *positive), False, "end along dimension 3 is off by one")
    assert says(
        ex.check_slice1([[[[2, 4], [10, 12], [14, 16]]]], *positive), False, "sizes [1, 1, 2, 2], not [1, 1, 3, 2]"
    )
    assert says(ex.check_slice1([[[[2, 4], [10, 11]]]], *positive), False, "input[start + window_strides * o]")
    assert says(ex.check_slice1("2, 4", *positive), False, "nested lists of numbers")


def test_cumulative_summation_examples():
    page_1 = [[[[2, 3, 6, 11], [3, 11, 18, 21], [9, 15, 17, 21]]]]  # axis 3, increasing, inclusive
    page_2 = [[[[0, 2, 3, 6], [0, 3, 11, 18], [0, 9, 15, 17]]]]  # exclusive
    page_3 = [[[[11, 9, 8, 5], [21, 18, 10, 3], [21, 12, 6, 4]]]]  # decreasing
    assert says(ex.check_cumulative_summation(page_1, CUMSUM_INPUT, 3), True, "the output")
    assert says(ex.check_cumulative_summation(page_2, CUMSUM_INPUT, 3, exclusive=True), True, "the output")
    assert says(ex.check_cumulative_summation(page_3, CUMSUM_INPUT, 3, direction="decreasing"), True, "the output")
    assert says(ex.check_cumulative_summation(page_2, CUMSUM_INPUT, 3), False, "this sum is inclusive")
    assert says(ex.check_cumulative_summation(page_1, CUMSUM_INPUT, 3, exclusive=True), False, "this sum is exclusive")
    assert says(ex.check_cumulative_summation(page_3, CUMSUM_INPUT, 3), False, "runs increasing, from the first")
    assert says(ex.check_cumulative_summation([[[[2, 3, 6, 12]]]], CUMSUM_INPUT, 3), False, "sizes [1, 1, 3, 4]")


def test_bad_arguments_are_refused_like_the_functions_they_check():
    with pytest.raises(TypeError, match="sizes must be an ordered sequence of integers"):
        ex.check_strides((1,), "x", "NCHW")
    with pytest.raises(sl.LayoutError, match="window_offsets"):
        ex.check_slice1([[1]], SLICE_INPUT, (0, 0, 0, 3), (1, 1, 4, 3), (1, 1, 1, 1))


def test_the_placeholder_gets_a_reminder_of_what_to_write():
    dhw = sl.TensorDesc("UINT8", (2, 2, 3))
    assert says(ex.check_offset(..., dhw, (1, 0, 1)), False, "replace ... with your answer: an offset, in elements")
    assert says(ex.check_strides(..., (2, 3), "WH"), False, "replace ... with your answer: a tuple of strides")
    assert says(ex.check_buffer_size(..., "UINT8", (2, 3)), False, "replace ... with your answer: a size in bytes")
    assert says(ex.check_slice1(..., SLICE_INPUT, (0, 0, 0, 1), (1, 1, 4, 3), (1, 1, 2, 2)), False, "nested lists")
    assert says(ex.check_cumulative_summation(..., CUMSUM_INPUT, 3), False, "nested lists")
    with pytest.raises(sl.LayoutError, match="coords .* has 4 entries"):  # the exercise itself is still checked first
        ex.check_offset(..., dhw, (1, 0, 1, 0))


def test_strides_of_a_layout_given_as_a_permutation():
    # (1, 0): dimension 1 outermost, so sizes (2, 3) are stored column-major, strides (1, 2)
    assert says(ex.check_strides((1, 2), (2, 3), (1, 0)), True, "layout [1, 0] strides")
    assert says(ex.check_strides((3, 1), (2, 3), (1, 0)), False, "row-major and column-major swapped")
    assert says(ex.check_strides((1, 2), (2, 3), (0, 1)), False, "row-major and column-major swapped")
    assert says(ex.check_strides((5, 1), (2, 3), (0, 1)), False, "dimension 0's stride is off")
    assert says(ex.check_strides((3, 2), (2, 3), (0, 1)), False, "innermost dimension (dimension 1) has stride 1")


DHW = sl.TensorDesc("UINT8", (2, 2, 3))


@pytest.mark.parametrize(
    ("check", "answer", "words"),
    [
        (
            lambda a: ex.check_offset(a, DHW, (1, 0, 1)),
            "7",
            "give the offset as an integer (a count of elements), not str '7'",
        ),
        (lambda a: ex.check_offset(a, DHW, (1, 0, 1)), 7.0, "not float 7.0"),
        (lambda a: ex.check_offset(a, DHW, (1, 0, 1)), 7 + 0j, "not complex (7+0j)"),
        (lambda a: ex.check_offset(a, DHW, (1, 0, 1)), True, "not bool True"),
        (lambda a: ex.check_offset(a, DHW, (1, 0, 1)), (7,), "not tuple (7,)"),
        (
            lambda a: ex.check_strides(a, (2, 3), "HW"),
            "31",
            "give the strides as a tuple of integers, one per dimension, not str '31'",
        ),
        (lambda a: ex.check_strides(a, (2, 3), "HW"), (3.0, 1.0), "not tuple (3.0, 1.0)"),
        (lambda a: ex.check_strides(a, (2, 3), "HW"), (3 + 0j, 1), "not tuple ((3+0j), 1)"),
        (lambda a: ex.check_strides(a, (2, 3), "HW"), 3, "not int 3"),
        (lambda a: ex.check_strides(a, (2, 3), "HW"), [1] * 10**6, "one stride per dimension"),
        (
            lambda a: ex.check_buffer_size(a, "UINT8", (2, 3)),
            8.0,
            "give the size as an integer (a count of bytes), not float",
        ),
        (lambda a: ex.check_buffer_size(a, "UINT8", (2, 3)), "8", "not str '8'"),
        (
            lambda a: ex.check_slice1(a, SLICE_INPUT, (0, 0, 0, 1), (1, 1, 4, 3), (1, 1, 2, 2)),
            [[[[2 + 0j, 4], [10, 12]]]],
            "nested lists of numbers, real ones, not list",
        ),
        (
            lambda a: ex.check_slice1(a, SLICE_INPUT, (0, 0, 0, 1), (1, 1, 4, 3), (1, 1, 2, 2)),
            [[[[2, 4], [10]]]],
            "give the output as nested lists of numbers, not list",
        ),
        (
            lambda a: ex.check_cumulative_summation(a, CUMSUM_INPUT, 3),
            np.array([[[[2, 3, 6, 11], [3, 11, 18, 21], [9, 15, 17, 21]]]]) + 0j,
            "real ones, not ndarray of shape (1, 1, 3, 4) and dtype complex128",
        ),
        (lambda a: ex.check_cumulative_summation(a, CUMSUM_INPUT, 3), "2, 3, 6, 11", "not str '2, 3, 6, 11'"),
        (
            lambda a: ex.check_cumulative_summation(a, CUMSUM_INPUT, 3),
            object(),
            "nested lists of numbers, not object",
        ),
    ],
)
def test_an_answer_of_the_wrong_type_is_not_yet_right_and_says_what_to_give(check, answer, words):
    """Never a traceback, never right: a complex answer equal to the output is still not a real one."""
    feedback = check(answer)
    assert feedback.correct is False
    assert words in feedback.message, feedback.message
    assert len(feedback.message) < 200


def test_a_right_typed_answer_still_gets_its_mistake_named():
    assert says(ex.check_offset(np.int64(7), DHW, (1, 0, 1)), True, "offset 7")  # a NumPy integer is an integer
    assert says(
        ex.check_slice1([[[[2.0, 4.0], [10.0, 12.0]]]], SLICE_INPUT, (0, 0, 0, 1), (1, 1, 4, 3), (1, 1, 2, 2)),
        True,
        "the output",
    )


def test_sectors_per_request_of_a_padded_layout():
    # 64 rows of 32 float32 (128 B), rows 36 floats = 144 B apart: a warp reads one row. Row r
    # starts at byte 144 r, 16 r modulo 32: even rows lie in 4 sectors, odd rows straddle 5.
    padded = sl.TensorDesc("FLOAT32", (64, 32), (36, 1))
    right = ex.check_sectors_per_request(4.5, padded)
    assert right.correct and str(right) == "right: 4.5 sectors per request on average (288 sectors over 64 requests)"
    hints = {
        4: "the fewest sectors these bytes could fill",
        5: "what a request straddling a sector boundary moves",
        128: "that is the bytes a request reads",
        32: "a sector per thread",
        1.875: "counts 128-byte lines",  # row r's start is 16 r modulo 128: 1 line when r % 8 == 0, else 2
        3: "then average over the requests",
    }
    for answer, hint in hints.items():
        feedback = ex.check_sectors_per_request(answer, padded)
        assert not feedback.correct and hint in feedback.message, answer
        assert "4.5" not in feedback.message
    # 80 packed floats: requests of 32, 32 and 16 floats move 4, 4 and 2 sectors
    first = ex.check_sectors_per_request(4, sl.TensorDesc("FLOAT32", (2, 40)))
    assert "what the first request moves" in first.message
    assert ex.check_sectors_per_request(..., padded).answered is False
    assert "not str 'four'" in ex.check_sectors_per_request("four", padded).message
    assert "not bool" in ex.check_sectors_per_request(True, padded).message
    assert "then average over the requests" in ex.check_sectors_per_request(10**400, padded).message
    assert "then average over the requests" in ex.check_sectors_per_request(float("nan"), padded).message
    # the keyword arguments go to access_pattern: read along columns, a sector per thread
    assert ex.check_sectors_per_request(32, padded, order=(1, 0)).correct
