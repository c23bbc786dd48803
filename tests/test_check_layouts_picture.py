"""The picture of sl.check_layouts' answer: the first failure's evidence (masks of wrong and
unwritten elements, the poison slots read, found by group testing within a cap of calls), the
counts in its text and picture, and the picture itself (SVG and PNG, no HTML)."""

import base64
import io
import xml.etree.ElementTree as ET

import numpy as np
from numpy.lib.stride_tricks import as_strided

import stridelab as sl
from stridelab._sanitizer._probe import MAX_PROBE_CALLS

SVG = "{http://www.w3.org/2000/svg}"
X = np.arange(1.0, 7.0).reshape(2, 3)


def row_pitch_sum(x):  # sums whole rows of the pitch: the padding after each row included
    pitch = x.strides[0] // x.itemsize
    return as_strided(x, (x.shape[0], pitch), (x.strides[0], x.itemsize)).sum(axis=1)


def nan_masked_pitch_max(x):  # ignores NaN: only a group of poison slots changes its answer
    pitch = x.strides[0] // x.itemsize
    return np.nanmax(as_strided(x, (x.shape[0], pitch), (x.strides[0], x.itemsize)), axis=1)


def base_buffer_doubled(x):  # reads the first x.size slots of the buffer under x
    buffer = x if x.base is None else x.base
    return np.frombuffer(buffer, x.dtype)[: x.size].reshape(x.shape) * 2


def innermost_stride_assumed(x):  # takes the innermost stride to be one element
    return as_strided(x, x.shape, (x.strides[0], x.itemsize)).copy()


def write_packed_span(x, out):  # writes out's first out.size slots
    as_strided(out, (out.size,), (out.itemsize,))[:] = (x * 2).ravel()


def copies_three_columns_unless_contiguous(x, out):
    if out.flags.c_contiguous:
        out[...] = x
    else:
        out[:, :3] = x[:, :3]


def evidence_of(check):
    return check.failures[0].evidence


def svg_of(check):
    data, _ = check._repr_mimebundle_()
    return ET.fromstring(data["image/svg+xml"])


def texts(root):
    return [t.text for t in root.iter(f"{SVG}text")]


def slots_marked(root, mark):
    groups = root.iter(f"{SVG}g")
    return [int(g.get("data-slot")) for g in groups if mark in (g.get("class") or "").split() and g.get("data-slot")]


# -- the poison slots read, worked out by hand ----------------------------------------------------


def test_the_padding_read_after_each_row_is_marked_slot_by_slot():
    # (4,5) padded after dimension 1 is (4,5):(8,1)+0: rows at slots 0-4, 8-12, 16-20, 24-28; the
    # pitch of 8 reads the 3 slots after each row, the last row's (29-31) in the margin after it
    check = sl.check_layouts(row_pitch_sum, np.arange(20.0).reshape(4, 5), layouts=["padded"])
    (view,) = evidence_of(check).buffers
    assert str(view.layout) == "(4,5):(8,1)+0"
    assert view.slots_marked("read") == [5, 6, 7, 13, 14, 15, 21, 22, 23, 29, 30, 31]
    assert view.slots_marked("undecided") == [] and not view.stopped
    assert view.slots.tolist() == list(range(-8, 37))  # 8 poison slots on each side of slots 0-28
    assert view.searched == 8 + 3 * 3 + 8
    assert slots_marked(svg_of(check), "read") == [5, 6, 7, 13, 14, 15, 21, 22, 23, 29, 30, 31]


def test_a_nan_ignoring_read_is_found_with_the_poisons_swapped():
    # (2,3) padded is (2,3):(6,1)+0: the pitch of 6 reads slots 3-5 and 9-11
    check = sl.check_layouts(nan_masked_pitch_max, X, layouts=["padded"])
    assert evidence_of(check).buffers[0].slots_marked("read") == [3, 4, 5, 9, 10, 11]


def test_a_read_far_from_the_elements_is_found_and_drawn():
    # the buffer starts max(64, 8 * 6) = 64 slots before the layout's slot 0, and the function
    # reads its first 6 slots
    check = sl.check_layouts(base_buffer_doubled, X, layouts=["padded"])
    view = evidence_of(check).buffers[0]
    assert view.slots_marked("read") == [-64, -63, -62, -61, -60, -59]
    assert view.beyond and view.bounds[0] == -64
    assert "reads poison from slots -64, -63, -62, -61, -60, -59 of its layout" in str(check)


def test_the_extra_calls_are_capped_and_the_picture_says_where_the_search_stopped():
    calls = []

    def counted_pitch_sum(x):
        calls.append(1)
        return row_pitch_sum(x)

    # padded: (40,1):(4,1)+0, the 3 padding slots after each element read: more than the calls find
    check = sl.check_layouts(counted_pitch_sum, np.arange(40.0).reshape(40, 1), layouts=["padded"])
    # two packed calls for the reference, two for the padded layout, then the evidence's
    assert len(calls) == 4 + MAX_PROBE_CALLS
    view = evidence_of(check).buffers[0]
    assert view.stopped and view.slots_marked("undecided")
    truly_read = {4 * row + pad for row in range(40) for pad in (1, 2, 3)}
    assert set(view.slots_marked("read")) <= truly_read  # never a slot not read
    assert "reads poison from at least slots" in str(check) and "where the search stopped" in str(check)
    assert any("where the search stopped" in t for t in texts(svg_of(check)))


def test_no_search_where_the_function_writes_its_input():
    def reads_pitch_then_clears(x):
        total = row_pitch_sum(x)
        x[...] = 0
        return total

    check = sl.check_layouts(reads_pitch_then_clears, X, layouts=["padded"])
    (view,) = evidence_of(check).buffers
    assert view.why.startswith("not searched for poison reads: the function writes its input")
    assert view.slots_marked("read") == [] and view.calls == 0


# -- the masks and counts, worked out by hand -----------------------------------------------------


def test_the_wrong_elements_of_a_known_bug():
    # column-major (2,3):(1,2) holds 1 4 2 5 3 6; with the innermost stride taken as 1 the answer
    # is [[1, 4, 2], [4, 2, 5]] where [[1, 2, 3], [4, 5, 6]] is right
    check = sl.check_layouts(innermost_stride_assumed, X, layouts=["column-major"])
    (output,) = evidence_of(check).outputs
    assert output.name == "result"
    assert list(zip(*np.nonzero(output.masks["wrong"]))) == [(0, 1), (0, 2), (1, 1), (1, 2)]
    assert output.words() == "result: 4 of 6 elements wrong"
    root = svg_of(check)
    cells = [g.get("data-coords") for g in root.iter(f"{SVG}g") if g.get("class") == "cell wrong"]
    assert cells == ["0,1", "0,2", "1,1", "1,2"]
    assert "result: 4 of 6 elements wrong" in texts(root)


def test_the_unwritten_elements_and_the_padding_written_of_a_packed_span_writer():
    # out (2,3):(6,1)+0: the writer fills slots 0-5, row 0 and the 3 padding slots after it
    check = sl.check_layouts(write_packed_span, X, out=np.zeros((2, 3)), layouts=["padded"])
    evidence = evidence_of(check)
    assert list(zip(*np.nonzero(evidence.outputs[0].masks["unwritten"]))) == [(1, 0), (1, 1), (1, 2)]
    (view,) = evidence.buffers
    assert view.name == "out" and view.slots_marked("written") == [3, 4, 5]
    assert view.slots_marked("unwritten") == [6, 7, 8]
    assert "first failure, out (2,3):(6,1)+0: out: 3 of 6 elements unwritten" in str(check).splitlines()


def test_the_overview_counts_every_element_of_a_large_output():
    # out (96, 384) padded: only its first 3 columns are written, 96 * 381 elements are not
    values = np.arange(96 * 384, dtype=np.float32).reshape(96, 384)
    check = sl.check_layouts(
        copies_three_columns_unless_contiguous, values, out=np.zeros_like(values), layouts=["padded"]
    )
    assert evidence_of(check).outputs[0].words() == "out: 36576 of 36864 elements unwritten"
    root = svg_of(check)
    assert "out: 36576 of 36864 elements unwritten" in texts(root)
    # a window of the grid as memory maps draw one, (96, 384) halved down to 6 x 6, from the first
    # unwritten element (0, 3) moved back by half the window: columns 0-2 written, 3-5 not
    cells = {g.get("data-coords"): g.get("class") for g in root.iter(f"{SVG}g") if g.get("data-coords")}
    assert len(cells) == 36
    assert sorted(c for c, kind in cells.items() if kind == "cell unwritten") == [
        f"{row},{column}" for row in range(6) for column in (3, 4, 5)
    ]


# -- the picture ----------------------------------------------------------------------------------


def test_the_display_is_svg_png_and_text_without_html():
    check = sl.check_layouts(row_pitch_sum, X, layouts=["packed", "padded"])
    data, metadata = check._repr_mimebundle_()
    assert sorted(data) == ["image/png", "image/svg+xml", "text/plain"]
    assert data["text/plain"] == str(check)
    root = ET.fromstring(data["image/svg+xml"])
    assert root.tag == f"{SVG}svg"
    words = texts(root)
    assert "check_layouts(row_pitch_sum): 1 of 2 layouts fail" in words
    assert words.count("FAIL") == 1 and "padded after dimension 1" in " ".join(words)
    assert "result: 2 of 2 elements change with the poison" in words
    assert "poison slot the answer depends on" in words  # the legend says what R means

    from PIL import Image

    png = base64.b64decode(data["image/png"])
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    size = metadata["image/png"]
    assert Image.open(io.BytesIO(png)).size == (2 * size["width"], 2 * size["height"])
    assert 400 <= size["width"] <= 1200 and 200 <= size["height"] <= 2000


def test_the_svg_is_the_same_for_the_same_check():
    first = sl.check_layouts(row_pitch_sum, X, layouts=["padded"])._repr_mimebundle_()[0]["image/svg+xml"]
    second = sl.check_layouts(row_pitch_sum, X, layouts=["padded"])._repr_mimebundle_()[0]["image/svg+xml"]
    assert first == second


def test_a_passing_check_has_no_failure_section():
    check = sl.check_layouts(lambda x: x.sum(axis=0), X)
    assert check.ok and "first failure" not in str(check)
    words = texts(svg_of(check))
    assert "FAIL" not in words and not any(w.startswith("first failure") for w in words)
    assert words.count("ok") >= 8  # a row per layout


def test_a_failure_without_elements_to_compare_still_draws():
    def raises_unless_contiguous(x):
        if not x.flags.c_contiguous:
            raise RuntimeError("not contiguous")
        return x * 1

    check = sl.check_layouts(raises_unless_contiguous, X, layouts=["column-major"])
    assert evidence_of(check).outputs == ()
    words = " ".join(texts(svg_of(check)))
    assert "first failure: input 0 (2,3):(1,2)+0" in words and "RuntimeError: not contiguous" in words


def doubled(x):
    return x * 2


def test_an_empty_input_is_checked_and_drawn():
    check = sl.check_layouts(doubled, np.zeros((0, 3)))
    assert check.ok and [row[0] for row in check.table()][:2] == ["input 0 (0,3):(3,1)+0", "input 0 (0,3):(1,0)+0"]
    assert "check_layouts(doubled): ok, 5 layouts tried" in texts(svg_of(check))


def test_one_element_changes_with_the_poison():
    def base_buffer_sum(x):  # a scalar from the first x.size slots of the buffer under x
        buffer = x if x.base is None else x.base
        return np.frombuffer(buffer, x.dtype)[: x.size].sum()

    check = sl.check_layouts(base_buffer_sum, X, layouts=["padded"])
    assert evidence_of(check).outputs[0].words() == "result: 1 of 1 element changes with the poison"


def test_the_answer_grid_names_the_arrays_own_dimensions_by_index():
    # an array's axes are its own, not DirectML's N, C, H, W
    def innermost_one(x):
        return as_strided(x, x.shape, (*x.strides[:-1], x.itemsize)).copy()

    check = sl.check_layouts(innermost_one, np.arange(24.0).reshape(2, 3, 4), layouts=["column-major"])
    words = texts(svg_of(check))
    assert "rows dim 1, columns dim 2; tiles dim 0 down" in words
    assert not any("rows H" in text for text in words)


def test_a_window_of_a_high_rank_answer_offers_no_start_option_the_check_lacks():
    def as_packed_doubled(x):
        return (as_strided(x, (x.size,), (x.itemsize,)) * 2).reshape(x.shape)

    check = sl.check_layouts(as_packed_doubled, np.arange(64.0).reshape((2,) * 6), layouts=["column-major"])
    assert "dimensions 0 to 1 fixed at [0, 0] (one of 4 4-D blocks)" in texts(svg_of(check))
