"""sl.explain: PyTorch's names against answers PyTorch gave (tests/data/torch_layouts.json, recorded
by scripts/record_torch_layouts.py; and against an installed torch where there is one), NumPy's
against NumPy's own flags, DirectML's and the ways to reach a layout by running what they say."""

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stridelab as sl
from stridelab import LayoutError, TensorDesc

RECORDED = json.loads((Path(__file__).parent / "data" / "torch_layouts.json").read_text())
CASES = [case for case in RECORDED["cases"] if 0 not in case["sizes"]]  # DirectML has no empty tensors


def pytorch_answers(report: sl.LayoutReport) -> dict:
    """PyTorch's answers as the report words them."""
    said = report.pytorch
    rank = report.desc.dimension_count
    return {
        "is_contiguous": "is_contiguous()" in said,
        "channels_last": "torch.channels_last)" in said.split("suggest")[0] if rank == 4 else None,
        "channels_last_3d": "torch.channels_last_3d)" in said.split("suggest")[0] if rank == 5 else None,
        "suggest_memory_format": said.rsplit("gives ", 1)[1].rstrip(")"),
        "dim_order": list(report.dim_order),
        "dim_order_ambiguous": bool(report.ambiguous_dims),
    }


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_pytorch_names_are_pytorchs_answers(case):
    report = sl.explain(TensorDesc("FLOAT32", case["sizes"], case["strides"]))
    expected = {key: case[key] for key in pytorch_answers(report)}
    assert pytorch_answers(report) == expected, RECORDED["torch"]


def test_the_recording_names_its_torch_and_covers_the_ambiguous_cases():
    assert RECORDED["torch"].startswith("2.")
    names = {case["name"] for case in CASES}
    assert {"n1_channels_last", "c1_packed", "hw1_packed", "all_ones", "ndhwc_channels_last_3d", "2d_transposed",
            "broadcast_c", "sliced_packed_hw_step2"} <= names  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_pytorch_names_against_an_installed_torch(case):
    torch = pytest.importorskip("torch")
    tensor = torch.empty_strided(case["sizes"], case["strides"])
    report = sl.explain(tensor)
    assert report.source == "torch.Tensor" and report.desc.strides == tuple(case["strides"])
    answers = pytorch_answers(report)
    assert answers["is_contiguous"] == tensor.is_contiguous()
    assert answers["dim_order"] == list(tensor.dim_order())


@st.composite
def numpy_views(draw, min_rank=1):
    base = np.zeros(draw(st.lists(st.integers(1, 4), min_size=min_rank, max_size=4)), dtype=np.float32)
    view = base.transpose(draw(st.permutations(range(base.ndim))))
    steps = draw(st.lists(st.integers(1, 2), min_size=view.ndim, max_size=view.ndim))
    return view[tuple(slice(None, None, step) for step in steps)]


@settings(max_examples=300, deadline=None)
@given(numpy_views())
def test_numpy_names_are_numpys_flags(array):
    said = sl.explain(array).numpy
    c, f = array.flags.c_contiguous, array.flags.f_contiguous
    expected = {
        (True, True): "C- and F-contiguous",
        (True, False): "C-contiguous",
        (False, True): "F-contiguous",
        (False, False): "neither",
    }
    assert said.startswith(expected[c, f])


BROADCAST_AND_PADDED = "layout_strides('DHW', (2, 3, 4), broadcast=(False, True, False), padding={'W': 4})"


@pytest.mark.parametrize(
    ("desc", "name"),
    [
        (TensorDesc("FLOAT32", (1, 1, 3, 5)), "packed NCHW (strides may be left out: nullptr / None)"),
        (TensorDesc("FLOAT32", (1, 1, 3, 5), (15, 1, 5, 1)), "packed NCHW"),  # one channel: the same offsets
        (TensorDesc("FLOAT32", (2, 3, 4, 5), (60, 1, 15, 3)), "packed NHWC (CalculateStrides(NHWC, ...))"),
        (TensorDesc("FLOAT32", (2, 3), (5, 1)), "layout_strides('HW', (2, 3), padding={'W': 2})"),
        (TensorDesc("FLOAT32", (2, 3), (1, 2)), "layout_strides('WH', (2, 3))"),
        (TensorDesc("UINT8", (1, 2, 3, 3), (54, 1, 18, 6)), "layout_strides('NHWC', (1, 2, 3, 3), padding={'C': 4})"),
        (TensorDesc("FLOAT32", (2, 3, 4), (8, 0, 1)), BROADCAST_AND_PADDED),
        (TensorDesc("FLOAT32", (2, 3, 4), (12, 0, 3)), "strided: no layout_strides"),  # W, innermost, is not 1 apart
        (TensorDesc("FLOAT32", (3, 3), (1, 1)), "strided: no layout_strides order gives these strides"),
    ],
)  # fmt: skip
def test_directml_names(desc, name):
    said = sl.explain(desc).directml
    assert said.startswith(name)
    if said.startswith("layout_strides("):  # what it says is a call that gives these strides
        strides = eval("sl." + said, {"sl": sl})
        assert all(n == 1 or s == t for n, s, t in zip(desc.sizes, desc.strides, strides))


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_to_reach_is_what_it_says(data):
    array = data.draw(numpy_views(min_rank=2))
    layout = data.draw(st.sampled_from([v for v in ("NCHW", "NHWC", "HW", "WH", (0, 2, 1)) if len(v) == array.ndim]))
    reach = sl.explain(array).to_reach(layout)
    target = sl.layout_strides(layout, array.shape)
    x = array  # the name the calls use
    result = eval(reach.copy, {"sl": sl, "x": x})
    np.testing.assert_array_equal(result.to_array(), array)
    assert result.desc.strides == target
    if reach.already:
        assert all(n == 1 or s == t for n, s, t in zip(array.shape, sl.explain(array).desc.strides, target))
    if reach.view is not None:
        view = eval(reach.view_call, {"x": x})
        assert np.shares_memory(view, array) or array.size == 1
        strides = tuple(s // view.itemsize for s in view.strides)
        assert all(n == 1 or s == t for n, s, t in zip(view.shape, strides, sl.layout_strides(layout, view.shape)))


def test_facts_carry_their_evidence():
    report = sl.explain(TensorDesc("FLOAT32", (2, 3), (5, 1)))
    assert report.facts == ("padded: 2 of 8 slots hold no element (3, 4)",)
    report = sl.explain(np.broadcast_to(np.arange(3, dtype=np.float32), (4, 3)))
    assert report.facts == ("broadcast along dimension 0 (stride 0): its elements share slots",)
    assert report.ambiguous_dims == {0: "stride 0 (broadcast): its elements share slots, it has no place in memory"}
    report = sl.explain(TensorDesc("FLOAT32", (3000, 3000), (2999, 2)))
    assert report.facts[0] == "overlapping: elements (0, 2999) and (2, 0) share offset 5998"  # 2999 * 2 = 2 * 2999
    assert sl.explain(TensorDesc("UINT8", (2, 2, 3))).facts == ("packed: offsets 0 to 11 each hold one element",)
    assert sl.explain(TensorDesc("UINT8", (5,))).facts == (
        "packed: offsets 0 to 4 each hold one element, then 3 alignment slots (buffers round up to 4 bytes)",
    )


def test_facts_of_large_layouts_stay_within_the_budgets():
    # 8M slots: too many for a memory map, so the padding is told in numbers
    report = sl.explain(np.zeros((2000, 4000), np.float32)[:, ::2])
    assert report.facts == ("padded: the buffer spans 7999999 elements for 4000000",)
    # 8,820,000 elements in 8,815,804 offsets: overlapping by counting, with no pair to show
    report = sl.explain(TensorDesc("UINT8", (2100, 2100, 2), (2101, 2099, 3)))
    assert report.facts[0] == "overlapping: 8820000 elements in 8815804 offsets"


def test_the_report_reads_as_text_and_as_a_table():
    report = sl.explain(TensorDesc("FLOAT16", (1, 1, 2, 3), (0, 0, 5, 1)))
    text = str(report)
    assert text.splitlines()[0] == "layout                          FLOAT16 (1,1,2,3):(0,0,5,1)"
    assert "to reach NCHW" in text and "to reach NHWC" in text
    assert repr(report) == "LayoutReport(TensorDesc('FLOAT16', sizes=(1, 1, 2, 3), strides=(0, 0, 5, 1)))"
    html = report._repr_html_()
    assert html.startswith("<table>") and "<code>FLOAT16 (1,1,2,3):(0,0,5,1)</code>" in html


class FakeTorchTensor:
    """What explain reads of a torch tensor, without torch: shape, stride() and dtype."""

    __module__ = "torch"

    def __init__(self, shape, strides, dtype="torch.float16"):
        self.shape, self._strides, self.dtype = shape, strides, dtype

    def stride(self):
        return self._strides


def test_a_torch_tensor_is_read_through_its_sizes_and_strides():
    report = sl.explain(FakeTorchTensor((2, 3, 4, 5), (60, 1, 15, 3)))
    assert report.source == "torch.Tensor" and str(report.desc) == "FLOAT16 (2,3,4,5):(60,1,15,3)"
    assert report.to_reach("NCHW").view_call == "x.permute(0, 2, 3, 1)"
    # the operators take no torch tensors: the copy is PyTorch's own, .contiguous() for its memory formats
    assert report.to_reach("NCHW").copy == "x.contiguous()"
    packed = sl.explain(FakeTorchTensor((2, 3, 4, 5), (60, 20, 5, 1)))
    assert packed.to_reach("NHWC").copy == "x.contiguous(memory_format=torch.channels_last)"
    assert packed.to_reach("NWHC").copy == "x.permute(0, 3, 2, 1).contiguous().permute(0, 3, 2, 1)"


def test_a_size_1_dimension_s_stride_is_not_held_against_an_array():
    array = np.zeros((3, 1, 4), np.float32)[:, ::-1, :]  # byte strides (16, -16, 4): C-contiguous
    report = sl.explain(array)
    assert report.numpy == "C-contiguous" and report.desc.strides == (4, 4, 1)

    class Image(np.ndarray):
        """An ndarray subclass from outside numpy."""

    assert sl.explain(np.zeros((2, 3), np.float32).view(Image)).source == "numpy.ndarray"


def test_what_explain_cannot_read_is_refused_clearly():
    with pytest.raises(TypeError, match=r"obj must be a TensorDesc, .* or torch tensor, not list \[1, 2, 3\]"):
        sl.explain([1, 2, 3])
    with pytest.raises(LayoutError, match="strides\\[0\\] = -4 is negative; DirectML strides are unsigned"):
        sl.explain(np.zeros((3, 4), np.float32)[::-1])
    with pytest.raises(LayoutError, match="torch dtype torch.bool has no DirectML data type"):
        sl.explain(FakeTorchTensor((2,), (1,), "torch.bool"))


def test_the_command_line_explains_a_layout(capsys):
    from stridelab import cli

    assert cli.main(["explain", "FLOAT32 (1,3,4,5):(60,1,15,3)"]) == 0
    out = capsys.readouterr().out
    assert "DirectML                        packed NHWC" in out and "to reach NHWC                   already" in out
    assert cli.main(["explain", "FLOAT32 (2,3)"]) == 2
    assert "stridelab explain: error: layout '(2,3)' has no ':stride' part" in capsys.readouterr().err


def test_a_masked_array_is_refused_rather_than_explained_without_its_mask():
    masked = np.ma.masked_array(np.zeros((2, 3), np.float32), mask=[[0, 1, 0], [0, 0, 0]])
    with pytest.raises(TypeError) as refused:
        sl.explain(masked)
    assert str(refused.value) == (
        "obj: masked arrays are not supported (numpy.ma.MaskedArray); pass x.filled(value) or x.data"
    )
    assert sl.explain(masked.data).numpy == "C-contiguous"


def test_an_undecided_overlap_leaves_packed_undecided_too():
    # 170**3 = 4913000 elements: past the overlap search's budget, so neither packed nor not
    report = sl.explain(TensorDesc("INT8", (170, 170, 170), (160000, 1000, 3)))
    assert report.facts == ("overlap: undecided (past the search budget of 4000000 elements)",)


def test_a_layout_whose_packed_strides_pass_32_bits_has_no_copy_and_says_why():
    # W outermost: a packed D-H-W copy would need D's stride 70000 * 70000 = 4900000000
    report = sl.explain(TensorDesc("UINT8", (3, 70000, 70000), (1, 3, 210000)))
    reach = report.to_reach("DHW")
    assert (reach.already, reach.view, reach.copy) == (False, (2, 1, 0), None)
    assert reach.no_copy == "no packed DHW copy: its strides would exceed 2**32 - 1 (strides[0] = 4900000000)"
    view = f"a view, {reach.view_call}, whose dimensions are W, H, D in that order"
    assert ("to reach DHW", f"{view}; {reach.no_copy}") in report.rows()
    assert report.directml == "layout_strides('WHD', (3, 70000, 70000))"


def test_padding_of_a_broadcast_past_the_memory_map_budget_is_told_in_numbers():
    # 65536 * 65536 = 4294967296 elements over offsets 0, 2, ..., 2 * 65535 = 131070
    report = sl.explain(TensorDesc("UINT8", (65536, 65536), (0, 2)))
    assert report.facts == (
        "broadcast along 0 (H) (stride 0): its elements share slots",
        "padded: the buffer spans 131071 elements for 4294967296",
    )


def test_an_nhwc_shaped_view_of_nchw_data_is_explained_in_its_own_axes():
    """The usual NHWC-shaped view: NumPy's sizes are not DirectML's N, C, H, W, so no letters."""
    x = np.zeros((2, 3, 4, 5)).transpose(0, 2, 3, 1)  # sizes (2, 4, 5, 3), byte strides of NCHW data
    report = sl.explain(x)
    rows = dict(report.rows())
    assert rows["dimensions"] == (
        "by index; explain(x, axes='NCHW') declares them N, C, H, W (DirectML's order of sizes)"
    )
    assert rows["memory order (outermost first)"] == "dimensions 0 > 3 > 1 > 2"  # element strides (60, 5, 1, 20)
    assert rows["DirectML"] == "layout_strides((0, 3, 1, 2), (2, 4, 5, 3))"
    assert [question for question, _ in report.rows() if question.startswith("to reach")] == ["to reach row-major"]
    assert rows["to reach row-major"].startswith(
        "a view, x.transpose(0, 3, 1, 2), whose dimensions are x's 0, 3, 1, 2 in that order; a copy, "
    )
    named = [answer for question, answer in report.rows() if question != "dimensions"]
    assert not re.search(r"\((N|C|H|W)\)|'[NCHW]{4}'", "\n".join(named))  # no dimension letters
    view = eval(report.to_reach("row-major").view_call, {"x": x})
    assert view.flags.c_contiguous and np.shares_memory(view, x) and view.shape == (2, 3, 4, 5)


def test_declared_axes_name_the_dimensions_by_letter():
    x = np.zeros((2, 3, 4, 5), np.float32).transpose(0, 2, 3, 1).transpose(0, 3, 1, 2)  # back in N, C, H, W
    rows = dict(sl.explain(x, axes="NCHW").rows())
    assert rows["dimensions"] == "N, C, H, W (as declared)"
    assert rows["memory order (outermost first)"] == "0 (N) > 1 (C) > 2 (H) > 3 (W)"
    assert rows["to reach NHWC"].startswith("a view, x.transpose(0, 3, 1, 2), whose dimensions are N, W, C, H in that")
    image = np.zeros((1, 4, 4, 3), np.float32).transpose(0, 3, 1, 2)  # channels-last
    assert dict(sl.explain(image, axes="nchw").rows())["DirectML"] == "packed NHWC (CalculateStrides(NHWC, ...))"
    desc_rows = dict(sl.explain(TensorDesc("FLOAT32", (2, 3, 4), (1, 2, 6))).rows())  # a description declares
    assert desc_rows["dimensions"] == "D, H, W (as a DirectML description's sizes)"
    assert desc_rows["memory order (outermost first)"] == "2 (W) > 1 (H) > 0 (D)"


def test_axes_in_another_order_are_refused_with_the_transpose_that_declares_them():
    x = np.zeros((2, 4, 5, 3), np.float32)  # N, H, W, C
    with pytest.raises(LayoutError) as refused:
        sl.explain(x, axes="NHWC")
    assert str(refused.value) == (
        "axes = 'NHWC': explain names dimensions in DirectML's order of sizes, NCHW; for a tensor whose "
        "dimensions are N, H, W, C, explain x.transpose(0, 3, 1, 2) with axes='NCHW'"
    )
    assert sl.explain(x.transpose(0, 3, 1, 2), axes="NCHW").desc.sizes == (2, 3, 4, 5)
    with pytest.raises(LayoutError, match="permute\\(0, 3, 1, 2\\)"):
        sl.explain(FakeTorchTensor((2, 4, 5, 3), (60, 15, 3, 1)), axes="NHWC")
    with pytest.raises(LayoutError, match=r"^axes = 'XY': a tensor of 4 dimensions has axes='NCHW' or none declared"):
        sl.explain(x, axes="XY")
    with pytest.raises(LayoutError, match="letters name tensors of 1 to 5 dimensions, not 6"):
        sl.explain(np.zeros((1,) * 6, np.float32), axes="NCDHWX")
    with pytest.raises(TypeError, match="axes must be the dimension letters .*, not tuple \\(0, 1\\)"):
        sl.explain(np.zeros((2, 3)), axes=(0, 1))


def test_a_torch_tensor_gets_contiguous_first():
    channels_last = sl.explain(FakeTorchTensor((2, 3, 4, 5), (60, 1, 15, 3)))
    rows = dict(channels_last.rows())
    assert rows["to reach contiguous_format"] == (
        "a copy, x.contiguous(); a view, x.permute(0, 2, 3, 1), whose dimensions are x's 0, 2, 3, 1 in that order"
    )
    assert rows["to reach channels_last"] == "already (no view or copy needed)"
    assert "to reach NCHW" not in rows and "memory order (outermost first)" in rows
    packed = dict(sl.explain(FakeTorchTensor((2, 3, 4, 5, 6), (360, 120, 30, 6, 1))).rows())
    assert packed["to reach channels_last_3d"].startswith(
        "a copy, x.contiguous(memory_format=torch.channels_last_3d); "
    )
    with pytest.raises(LayoutError, match="'channels_last' is a memory format of 4 dimensions, not 5"):
        sl.explain(FakeTorchTensor((2, 3, 4, 5, 6), (360, 120, 30, 6, 1))).to_reach("channels_last")


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_the_ways_to_a_torch_layout_run_in_torch(case):
    torch = pytest.importorskip("torch")
    x = torch.empty_strided(case["sizes"], case["strides"])
    report = sl.explain(x)
    for question, _ in report.rows():
        if question.startswith("to reach "):
            layout = question.removeprefix("to reach ")
            reach = report.to_reach(layout)
            target = sl.explain(eval(reach.copy, {"x": x, "torch": torch}))
            assert target.to_reach(layout).already, (layout, reach.copy)
            if reach.view_call is not None:
                view = eval(reach.view_call, {"x": x})
                assert view.data_ptr() == x.data_ptr() and sl.explain(view).to_reach(layout).already


def test_a_placed_description_says_where_element_0_starts_in_elements_and_bytes():
    report = sl.explain(TensorDesc.parse_placed("FLOAT16 (2,3):(4,1) +5"))  # 2-byte elements: byte 10
    rows = report.rows()
    assert rows[0] == ("layout", "FLOAT16 (2,3):(4,1) +5")
    assert rows[1] == (
        "starts at",
        "buffer element 5, byte 10: element (0, 0) lies there, the 5 slots before it are not its own, "
        "and offsets below count from it",
    )
    # the facts count from element 0: 7 elements of 2 bytes round up to 16 bytes, 8 slots, of which
    # slot 3 (buffer element 8) is padding and slot 7 alignment
    assert ("fact", "padded: 1 of 8 slots hold no element (3)") in rows
    assert report.offset == 5 and report.desc == TensorDesc("FLOAT16", (2, 3), (4, 1))
    assert repr(report) == "LayoutReport(TensorDesc('FLOAT16', sizes=(2, 3), strides=(4, 1)), offset=5)"
    one = sl.explain(TensorDesc("UINT8", (3,)).placed(1)).rows()[1]
    assert one == (
        "starts at",
        "buffer element 1, byte 1: element (0) lies there, the slot before it is not its own, "
        "and offsets below count from it",
    )


def test_a_description_at_offset_0_reads_as_the_description_alone():
    placed = sl.explain(TensorDesc("FLOAT32", (2, 3)).placed(0))
    assert placed.rows() == sl.explain(TensorDesc("FLOAT32", (2, 3))).rows()
    assert all(question != "starts at" for question, _ in placed.rows())


def test_the_command_line_explains_what_people_paste(capsys):
    from stridelab import cli

    assert cli.main(["explain", "(2,3,4,5):(60,1,15,3)"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        "data type: FLOAT32 assumed, since none is given (name one first, e.g. 'FLOAT16 (2,3,4,5):(60,1,15,3)')"
    )
    assert lines[1] == "layout                          FLOAT32 (2,3,4,5):(60,1,15,3)"
    for text in ("FLOAT32 [2,3,4,5]:[60,1,15,3]", "torch.float32 (2,3,4,5):(60,1,15,3)"):
        assert cli.main(["explain", text]) == 0
        out = capsys.readouterr().out
        assert out.startswith("layout                          FLOAT32 (2,3,4,5):(60,1,15,3)\n")
        assert "DirectML                        packed NHWC" in out and "assumed" not in out
    assert cli.main(["explain", "np.uint8 (2,3):(3,1) +7"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == [
        "layout                          UINT8 (2,3):(3,1) +7",
        "starts at                       buffer element 7, byte 7: element (0, 0) lies there, the 7 slots before "
        "it are not its own, and offsets below count from it",
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("FLOAT32 (2,3]:(3,1)", "a '(' is closed by ']'; write each list in one kind of brackets"),
        ("FLOAT32 (2,3):(3,1) +-3", "offset '+-3' is not a whole number of 0 or more"),
        ("torch.float99 (2,3):(3,1)", "data_type 'torch.float99' is not a DirectML data type; expected one of"),
        ("(2,3):(3,-1)", "negative stride -1 at strides[1]; DirectML strides are unsigned (a reversed view needs"),
    ],
)
def test_the_command_line_refuses_what_is_no_layout_in_one_line(capsys, text, message):
    from stridelab import cli

    assert cli.main(["explain", text]) == 2
    err = capsys.readouterr().err
    assert err.startswith("stridelab explain: error: ") and message in err and err.count("\n") == 1
