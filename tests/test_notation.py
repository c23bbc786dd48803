"""One-line notation, CuTe layouts and coalescing: round trips, brute force, and clear refusals."""

import itertools
import json
import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from stridelab import DATA_TYPES, LayoutError, TensorDesc, calc_buffer_tensor_size


@st.composite
def descriptions(draw, max_rank=8, large=True):
    rank = draw(st.integers(1, max_rank))
    size = st.one_of(st.integers(1, 5), st.integers(1, 2**32 - 1)) if large else st.integers(1, 4)
    sizes = tuple(draw(st.lists(size, min_size=rank, max_size=rank)))
    stride = st.one_of(st.integers(0, 20), st.integers(0, 2**32 - 1)) if large else st.integers(0, 12)
    strides = tuple(draw(st.lists(stride, min_size=rank, max_size=rank)))
    dtype = draw(st.sampled_from(DATA_TYPES))
    span = sum((n - 1) * s for n, s in zip(sizes, strides)) + 1  # elements up to the last one's offset
    assume(span * 8 + 16 < 2**64)  # DirectML's buffer sizes, and so TensorDesc's, are 64-bit
    required = calc_buffer_tensor_size(dtype, sizes, strides)
    total = draw(st.sampled_from([None, required, required + 4 * draw(st.integers(1, 3))]))
    return TensorDesc(dtype, sizes, strides, total)


def test_the_notation_of_the_design_examples():
    assert str(TensorDesc("FLOAT16", (1, 1, 2, 3), (0, 0, 5, 1))) == "FLOAT16 (1,1,2,3):(0,0,5,1)"
    assert str(TensorDesc("FLOAT32", (5,))) == "FLOAT32 (5):(1)"
    padded = TensorDesc("FLOAT32", (2, 3), (5, 1), total_tensor_size_in_bytes=40)  # the strides page's 10 slots
    assert str(padded) == "FLOAT32 (2,3):(5,1) bytes=40"
    assert str(TensorDesc("FLOAT32", (2, 3), (5, 1), total_tensor_size_in_bytes=32)) == "FLOAT32 (2,3):(5,1)"
    assert repr(padded) == "TensorDesc('FLOAT32', sizes=(2, 3), strides=(5, 1), total_tensor_size_in_bytes=40)"


@settings(max_examples=400, deadline=None)
@given(descriptions())
def test_parse_reads_back_every_description(desc):
    assert TensorDesc.parse(str(desc)) == desc
    assert TensorDesc.parse(json.dumps(desc.to_json())) == desc
    spaced = str(desc).replace(",", " , ").replace(":", " : ").replace("(", "( ")
    assert TensorDesc.parse(f"  {spaced}  ") == desc


@settings(max_examples=300, deadline=None)
@given(descriptions())
def test_the_cute_round_trip(desc):
    back = TensorDesc.from_cute(desc.to_cute(), desc.data_type)
    assert (back.sizes, back.strides, back.data_type) == (desc.sizes, desc.strides, desc.data_type)
    if desc.buffer_size == desc.required_size:
        assert back == desc


def test_cute_nested_modes_shorthand_and_static_integers():
    assert TensorDesc.from_cute("((2,2),3):((1,4),2)", "FLOAT32") == TensorDesc("FLOAT32", (2, 2, 3), (1, 4, 2))
    assert TensorDesc.from_cute("8:1", "UINT8") == TensorDesc("UINT8", (8,), (1,))
    assert TensorDesc.from_cute("(_4,(_2,_3)):(_1,(_4,_8))", "INT8").strides == (1, 4, 8)
    assert TensorDesc.from_cute(" ( 2 , 3 ) : ( 3 , 1 ) ", "UINT8") == TensorDesc("UINT8", (2, 3))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(2,3):(-3,1)", "negative stride -3; DirectML strides are unsigned"),
        ("((2,2),3):(1,4,2)", "does not have the shape"),
        ("(2,3):(1,2,3)", "does not have the shape"),
        ("(2,3)", "has no ':stride' part"),
        ("(2,3:(3,1)", "a '(' is not closed"),
        ("(2,x):(3,1)", "unexpected 'x'"),
        ("(2,3):(3,1))", "unexpected ')' after the end"),
        ("(0,3):(3,1)", "sizes[0] = 0"),
    ],
)
def test_cute_text_that_is_no_layout_is_refused_with_the_reason(text, message):
    with pytest.raises(LayoutError, match=re.escape(message)):
        TensorDesc.from_cute(text, "FLOAT32")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("FLOAT16 (1,2)", "has no ':stride' part"),
        ("(2,3):(3,1)", "expected 'DATA_TYPE \\(sizes\\):\\(strides\\)'"),
        ("FLOAT32 (１,２):(２,１)", "unexpected '１'"),  # fullwidth digits are no digits here
        ("FLOAT32 (2,3):(3,1)bytes=24", "unexpected 'b' after the end"),
        ("FLOAT32 (1_0):(1)", "unexpected '_0'"),
        ("FLOAT32 (" + "9" * 5000 + "):(1)", "has 5000 digits, more than any layout needs"),
        ("FLOAT32 (2):(1) bytes=" + "9" * 5000, "bytes 999999999999... has 5000 digits"),
        ("FLOAT32 " + "(" * 1000 + "2" + ")" * 1000 + ":(1)", "nested deeper than 16 levels"),
        ('{"DataType": "FLOAT32", "Sizes": ' + "[" * 10**5 + "]" * 10**5 + "}", "cannot read the JSON"),
        ('{"DataType": "FLOAT32", "Sizes": [' + "9" * 5000 + "]}", "cannot read the JSON"),
        ("FLOAT8 (2,3):(3,1)", "FLOAT8"),
        ("FLOAT32 ((2,2),3):((1,4),2)", "flat lists"),
        ("FLOAT32 (2,3):(5,1) bytes=30", "total_tensor_size_in_bytes = 30 is smaller"),
        ('{"DataType": "FLOAT32", "Sizes": [2, 3]', "cannot read the JSON"),
        ('{"DataType": "FLOAT32"}', "the field 'Sizes' is required"),
    ],
)
def test_text_that_is_no_description_is_refused_with_the_reason(text, message):
    with pytest.raises(LayoutError, match=message):
        TensorDesc.parse(text)


def test_parse_needs_text():
    with pytest.raises(TypeError, match="text must be a str, not dict {'DataType'"):
        TensorDesc.parse({"DataType": "FLOAT32", "Sizes": [2]})


def row_major_offsets(sizes, strides):
    return [sum(c * s for c, s in zip(coords, strides)) for coords in itertools.product(*map(range, sizes))]


def fewest_dimensions(offsets):
    """The fewest dimensions of any layout that lists ``offsets`` in row-major order, by trying every
    ordered factorisation of their count into sizes above 1 (the strides then follow from the
    offsets: a dimension's stride is the step between the offsets one of its steps apart)."""
    count = len(offsets)
    if count == 1:
        return 1

    def factorisations(n):
        if n == 1:
            yield ()
        for f in range(2, n + 1):
            if n % f == 0:
                for rest in factorisations(n // f):
                    yield (f, *rest)

    best = None
    for sizes in factorisations(count):
        inner = [1] * len(sizes)
        for i in range(len(sizes) - 2, -1, -1):
            inner[i] = inner[i + 1] * sizes[i + 1]
        strides = [offsets[step] - offsets[0] for step in inner]
        if min(strides) >= 0 and row_major_offsets(sizes, strides) == offsets:
            best = len(sizes) if best is None else min(best, len(sizes))
    return best


@settings(max_examples=300, deadline=None)
@given(descriptions(max_rank=4, large=False))
def test_coalesced_keeps_every_offset_with_the_fewest_dimensions(desc):
    merged = desc.coalesced()
    offsets = row_major_offsets(desc.sizes, desc.strides)
    assert row_major_offsets(merged.sizes, merged.strides) == offsets
    assert merged.dimension_count == fewest_dimensions(offsets)
    assert (merged.data_type, merged.buffer_size) == (desc.data_type, desc.buffer_size)


def test_coalesced_never_merges_past_a_uint():
    # packed: the two could merge, but into a size of 2**32
    assert TensorDesc("UINT8", (2**31, 2)).coalesced().sizes == (2**31, 2)
    assert TensorDesc("UINT8", (3, 2**30, 2)).coalesced().sizes == (3, 2**31)  # 2**31 fits; 3 * 2**31 not
    assert TensorDesc("UINT8", (1, 1)).coalesced() == TensorDesc("UINT8", (1,))
