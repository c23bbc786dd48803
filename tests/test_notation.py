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
        ("(2,3):(-3,1)", "negative stride -3 at strides[0]; DirectML strides are unsigned (a reversed view needs"),
        ("(2,3]:(3,1)", "a '(' is closed by ']'; write each list in one kind of brackets"),
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
        ("", "expected '\\[DATA_TYPE\\] \\(sizes\\):\\(strides\\)' with an optional ' \\+OFFSET'"),
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


PASTED = [
    # (text as pasted, sizes, strides, data type, offset): worked out by reading the text
    ("(2,3,4,5):(60,1,15,3)", (2, 3, 4, 5), (60, 1, 15, 3), "FLOAT32", 0),
    ("FLOAT32 [2,3,4,5]:[60,1,15,3]", (2, 3, 4, 5), (60, 1, 15, 3), "FLOAT32", 0),
    ("torch.float32 (2,3,4,5):(60,1,15,3)", (2, 3, 4, 5), (60, 1, 15, 3), "FLOAT32", 0),
    ("[2, 3, 4, 5]:(60, 1, 15, 3)", (2, 3, 4, 5), (60, 1, 15, 3), "FLOAT32", 0),  # torch.Size's list, stride()'s tuple
    ("np.float16 (4,):(2,)", (4,), (2,), "FLOAT16", 0),
    ("numpy.int8 (2,3):(3,1)", (2, 3), (3, 1), "INT8", 0),
    ("float64 [3]:[1]", (3,), (1,), "FLOAT64", 0),
    ("FLOAT32 (2,3):(3,1) +5", (2, 3), (3, 1), "FLOAT32", 5),
    ("(2,3):(3,1) offset=7", (2, 3), (3, 1), "FLOAT32", 7),
    ("UINT8 (2,3):(3,1)+ 4", (2, 3), (3, 1), "UINT8", 4),
    ("UINT8 (2,3):(3,1) +0", (2, 3), (3, 1), "UINT8", 0),
    ("  torch.long [2,3] : [1,2]   +6 \n", (2, 3), (1, 2), "INT64", 6),
]


@pytest.mark.parametrize(("text", "sizes", "strides", "data_type", "offset"), PASTED)
def test_pasted_forms_read_as_written(text, sizes, strides, data_type, offset):
    desc, start = TensorDesc.parse_placed(text)
    assert (desc.sizes, desc.strides, desc.data_type, start) == (sizes, strides, data_type, offset)
    assert desc.total_tensor_size_in_bytes is None
    if offset == 0:
        assert TensorDesc.parse(text) == desc


@pytest.mark.parametrize(("text", "sizes", "strides", "data_type", "offset"), PASTED)
def test_pasted_forms_are_written_back_in_one_form(text, sizes, strides, data_type, offset):
    placed = TensorDesc.parse_placed(text)
    written = f"{data_type} ({','.join(map(str, sizes))}):({','.join(map(str, strides))})"
    assert str(placed) == written + (f" +{offset}" if offset else "")
    assert TensorDesc.parse_placed(str(placed)) == placed


def test_the_offset_and_the_bytes_in_either_order():
    padded = TensorDesc("FLOAT32", (2, 3), (5, 1), total_tensor_size_in_bytes=48)
    assert str(padded.placed(5)) == "FLOAT32 (2,3):(5,1) +5 bytes=48"
    for text in ("FLOAT32 (2,3):(5,1) +5 bytes=48", "(2,3):(5,1) bytes=48 +5", "(2,3):(5,1) bytes = 48 offset = 5"):
        assert TensorDesc.parse_placed(text) == padded.placed(5)
    desc, offset = TensorDesc.parse_placed("FLOAT32 (2,3):(5,1) bytes=48")
    assert (desc, offset) == (padded, 0)


def test_a_placed_desc_knows_its_offset_in_bytes_and_unpacks():
    placed = TensorDesc("FLOAT16", (2, 3)).placed(5)
    assert (placed.offset, placed.offset_bytes) == (5, 10)
    desc, offset = placed
    assert (desc, offset) == (TensorDesc("FLOAT16", (2, 3)), 5)
    assert placed == TensorDesc("FLOAT16", (2, 3)).placed(5) != TensorDesc("FLOAT16", (2, 3)).placed(6)
    assert hash(placed) == hash(TensorDesc("FLOAT16", (2, 3)).placed(5))


@settings(max_examples=300, deadline=None)
@given(descriptions(), st.one_of(st.integers(0, 20), st.integers(0, 2**40)))
def test_parse_placed_reads_back_every_placed_description(desc, offset):
    placed = desc.placed(offset)
    assert TensorDesc.parse_placed(str(placed)) == placed
    bracketed = str(placed).replace("(", "[").replace(")", "]").replace(" +", " offset=")
    assert TensorDesc.parse_placed(bracketed) == placed
    if desc.data_type == "FLOAT32":
        assert TensorDesc.parse_placed(str(placed).removeprefix("FLOAT32 ")) == placed


def test_parse_refuses_an_offset_and_says_what_reads_it():
    with pytest.raises(LayoutError) as error:
        TensorDesc.parse("FLOAT32 (2,3):(3,1) +5")
    assert str(error.value) == (
        "'FLOAT32 (2,3):(3,1) +5' starts at element 5 of its buffer (+5), and a TensorDesc has no offset "
        "(DirectML takes it where the buffer is bound); read it with TensorDesc.parse_placed(text), which gives "
        "the description and the offset"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("FLOAT32 (2,3]:(3,1)", "the shape of layout '(2,3]:(3,1)': a '(' is closed by ']'"),
        ("FLOAT32 (2,3):[3,1)", "the stride of layout '(2,3):[3,1)': a '[' is closed by ')'"),
        ("FLOAT32 (2,3):(3,1) +-3", "offset '+-3' is not a whole number of 0 or more (the element where coordinate 0"),
        ("FLOAT32 (2,3):(3,1) +", "offset '+' is not a whole number of 0 or more"),
        ("FLOAT32 (2,3):(3,1) offset=1.5", "offset 'offset=1.5' is not a whole number"),
        ("FLOAT32 (2,3):(3,1) +５", "offset '+５' is not a whole number"),  # a fullwidth digit
        ("FLOAT32 (2,3):(3,1) bytes=-4", "bytes 'bytes=-4' is not a whole number of 0 or more (the buffer's size"),
        ("FLOAT32 (2,3):(3,1) +5 offset=5", "gives the offset twice"),
        ("FLOAT32 (2,3):(3,1) bytes=24 bytes=24", "gives the bytes twice"),
        ("FLOAT32 (2,3):(3,1) +5 sideways", "cannot read 'sideways' after the layout"),
        ("FLOAT32 (2,3):(3,1) +" + "9" * 5000, "offset 999999999999... has 5000 digits, more than any layout needs"),
        # the offset and the buffer together are bytes of a UINT64: 2**62 four-byte elements are 2**64 bytes
        ("FLOAT32 (2,3):(3,1) +4611686018427387904", "offset = 4611686018427387904: 4611686018427387904 elements"),
        ("(2,3):(3,1) +18446744073709551616", "pass 2**64 - 1 bytes (DirectML's buffer sizes and offsets are UINT64)"),
        ("(4294967296,1):(1,1)", "sizes[0] = 4294967296 exceeds 4294967295"),
        ("(2,1):(4294967296,1)", "strides[0] = 4294967296"),
        ("torch.float99 (2,3):(3,1)", "data_type 'torch.float99' is not a DirectML data type; expected one of FLOAT32"),
        ("torch.bfloat16 (2,3):(3,1)", "data_type 'torch.bfloat16' is not a DirectML data type"),
        ("(2,3):(-1,3) +5", "negative stride -1 at strides[0]"),
    ],
)
def test_placed_text_that_is_no_description_is_refused_with_the_reason(text, message):
    with pytest.raises(LayoutError, match=re.escape(message)):
        TensorDesc.parse_placed(text)


def test_the_largest_offset_is_read():
    largest = (2**64 - 1 - 24) // 4  # 24 bytes of FLOAT32 (2,3) after it still end within 2**64 - 1
    assert TensorDesc.parse_placed(f"(2,3):(3,1) +{largest}").offset == largest
    with pytest.raises(LayoutError, match="pass 2\\*\\*64 - 1 bytes"):
        TensorDesc.parse_placed(f"(2,3):(3,1) +{largest + 1}")


@pytest.mark.parametrize(
    ("offset", "error", "message"),
    [
        (-1, LayoutError, "offset = -1: an offset into the buffer is 0 or more"),
        (2.0, TypeError, "offset must be"),
        ("5", TypeError, "offset must be"),
    ],
)
def test_placed_checks_its_offset(offset, error, message):
    with pytest.raises(error, match=message):
        TensorDesc("FLOAT32", (2, 3)).placed(offset)


def test_parse_needs_text():
    with pytest.raises(TypeError, match="text must be a str, not dict {'DataType'"):
        TensorDesc.parse({"DataType": "FLOAT32", "Sizes": [2]})
    with pytest.raises(TypeError, match="text must be a str, not int 5"):
        TensorDesc.parse_placed(5)


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


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("torch. (2,3):(3,1)", "cannot read the data type 'torch.' of 'torch. (2,3):(3,1)'"),
        ("np.float16x (2,3):(3,1)", None),  # an unknown name: refused by the data type's reader
        ("FLOAT32: (2,3):(3,1)", "cannot read the data type 'FLOAT32:'"),
        (
            "np.float16 np.float16 (2,3):(3,1)",
            "after the data type np.float16 comes the layout '(sizes):(strides)', not 'np.float16'",
        ),
        ("FLOAT32 FLOAT32", "not 'FLOAT32'"),
    ],
)
def test_a_data_type_name_garbled_or_doubled_is_named_as_written(text, message):
    with pytest.raises(LayoutError) as error:
        TensorDesc.parse(text)
    if message is not None:
        assert message in str(error.value)
    else:
        assert "np.float16x" in str(error.value)
