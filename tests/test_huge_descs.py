"""Every valid description displays and explains, up to DirectML's limits: sizes and strides up to
2**32 - 1, 8 dimensions, element counts near 2**256. Each is shown by every path (str, repr, the
Jupyter bundle's SVG, PNG and text, the terminal text of ``stridelab show``, matplotlib, explain's
text and table) with windows only; where a layout the report lists has no packed copy within
DirectML's 32-bit strides, the report says so. Expected numbers are worked out by hand below."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import stridelab as sl
from stridelab import TensorDesc
from stridelab.render.scene import DEFAULT_MAX_CELLS, build_scene, resolve
from stridelab.render.text import TEXT_MAX_CELLS, render_text

M = 2**32 - 1  # the largest size or stride
NO_COPY = "no packed {} copy: its strides would exceed 2**32 - 1 (strides[{}] = {})"

# (description, its summary's two lines, rows of its explain report as "question  answer" text)
TABLE = [
    (  # 65536 * 65536 * 4 = 2**34 elements, packed D-H-W: reading WDH's packed strides must not fail
        TensorDesc("UINT8", (65536, 65536, 4), (262144, 4, 1)),
        (
            "UINT8 · sizes [65536, 65536, 4] · strides [262144, 4, 1] · layout DHW",
            "packed · 17179869184 logical elements · 17179869184 physical slots · buffer 17179869184 bytes",
        ),
        ["to reach DHW  already (no view or copy needed)", "fact  packed: offsets 0 to 17179869183 each hold one"],
    ),
    (  # W outermost: packed DHW would need D's stride 70000 * 70000 = 4900000000; 3 * 4.9e9 elements,
        # the last at 2 * 1 + 69999 * 3 + 69999 * 210000 = 14699999999: packed
        TensorDesc("UINT8", (3, 70000, 70000), (1, 3, 210000)),
        (
            "UINT8 · sizes [3, 70000, 70000] · strides [1, 3, 210000] · layout WHD",
            "packed · 14700000000 logical elements · 14700000000 physical slots · buffer 14700000000 bytes",
        ),
        [
            "to reach DHW  a view, sl.TensorDesc('UINT8', (70000, 70000, 3), (210000, 3, 1)), whose dimensions are "
            "W, H, D in that order; " + NO_COPY.format("DHW", 0, 4900000000),
            "DirectML  layout_strides('WHD', (3, 70000, 70000))",
        ],
    ),
    (  # one channels-last image: NCHW's C stride would be 70000 * 70000 = 4900000000
        TensorDesc("UINT8", (1, 3, 70000, 70000), (0, 1, 210000, 3)),
        (
            "UINT8 · sizes [1, 3, 70000, 70000] · strides [0, 1, 210000, 3] · layout NHWC",
            "packed · 14700000000 logical elements · 14700000000 physical slots · buffer 14700000000 bytes",
        ),
        [
            "to reach NCHW  a view, sl.TensorDesc('UINT8', (1, 70000, 70000, 3), (0, 210000, 3, 1)), whose dimensions "
            "are N, H, W, C in that order; " + NO_COPY.format("NCHW", 1, 4900000000),
            "to reach NHWC  already (no view or copy needed)",
            "DirectML  packed NHWC",
        ],
    ),
    (  # packed NCHW; NHWC's H stride would be W * C = 70000 * 70000 = 4900000000
        TensorDesc("UINT8", (1, 70000, 2, 70000), (0, 140000, 70000, 1)),
        (
            "UINT8 · sizes [1, 70000, 2, 70000] · strides [0, 140000, 70000, 1] · layout NCHW",
            "packed · 9800000000 logical elements · 9800000000 physical slots · buffer 9800000000 bytes",
        ),
        [
            "to reach NCHW  already (no view or copy needed)",
            "to reach NHWC  a view, sl.TensorDesc('UINT8', (1, 70000, 70000, 2), (0, 1, 140000, 70000)), whose "
            "dimensions are N, W, C, H in that order; " + NO_COPY.format("NHWC", 2, 4900000000),
        ],
    ),
    (  # 65536**4 = 2**64 elements over 65536 * 65536 = 2**32 slots; N's packed stride would be 2**48
        TensorDesc("UINT8", (65536,) * 4, (0, 0, 65536, 1)),
        (
            "UINT8 · sizes [65536, 65536, 65536, 65536] · strides [0, 0, 65536, 1] · layout NCHW",
            "broadcast · 18446744073709551616 logical elements · 4294967296 physical slots · buffer 4294967296 bytes",
        ),
        [
            "to reach NCHW  " + NO_COPY.format("NCHW", 0, 2**48),
            "to reach NHWC  " + NO_COPY.format("NHWC", 0, 2**48),
            "DirectML  layout_strides('NCHW', (65536, 65536, 65536, 65536), broadcast=(True, True, False, False))",
        ],
    ),
    (  # every element within 4 * 65535 + 1 = 262141 slots: overlapping
        TensorDesc("UINT8", (65536,) * 4, (1, 1, 1, 1)),
        (
            "UINT8 · sizes [65536, 65536, 65536, 65536] · strides [1, 1, 1, 1]",
            "overlapping · 18446744073709551616 logical elements · 262144 physical slots · buffer 262144 bytes",
        ),
        ["to reach NCHW  " + NO_COPY.format("NCHW", 0, 2**48)],
    ),
    (  # i * M + j with j < M: every offset once, up to M * M - 1; M * M = 1 (mod 4): 3 alignment bytes
        TensorDesc("UINT8", (M, M), (M, 1)),
        (
            "UINT8 · sizes [4294967295, 4294967295] · strides [4294967295, 1] · layout HW",
            "packed · 18446744065119617025 logical elements · 18446744065119617028 physical slots "
            "· buffer 18446744065119617028 bytes",
        ),
        [
            "to reach HW  already",
            "fact  packed: offsets 0 to 18446744065119617024 each hold one element, then 3 alignment slots",
        ],
    ),
    (  # the last offset (M - 1) * M = 18446744060824649730; 4-byte rounding gives 18446744060824649732
        TensorDesc("UINT8", (M,), (M,)),
        (
            "UINT8 · sizes [4294967295] · strides [4294967295]",
            "padded · 4294967295 logical elements · 18446744060824649732 physical slots "
            "· buffer 18446744060824649732 bytes",
        ),
        ["fact  padded: the buffer spans 18446744060824649731 elements for 4294967295"],
    ),
    (  # M**8 elements (about 2**256), the last at 8 * (M - 1) = 34359738352: a buffer within 64 bits
        TensorDesc("FLOAT64", (M,) * 8, (1,) * 8),
        (
            "FLOAT64 · sizes [4294967295, 4294967295, 4294967295, 4294967295, 4294967295, 4294967295, "
            "4294967295, 4294967295] · strides [1, 1, 1, 1, 1, 1, 1, 1]",
            f"overlapping · {M**8} logical elements · 34359738353 physical slots · buffer {34359738353 * 8} bytes",
        ),
        ["DirectML  strided: no layout_strides order gives these strides"],
    ),
    (  # all of M**8 elements share slot 0: one 8-byte slot
        TensorDesc("FLOAT64", (M,) * 8, (0,) * 8),
        (
            "FLOAT64 · sizes [4294967295, 4294967295, 4294967295, 4294967295, 4294967295, 4294967295, "
            "4294967295, 4294967295] · strides [0, 0, 0, 0, 0, 0, 0, 0]",
            f"broadcast · {M**8} logical elements · 1 physical slots · buffer 8 bytes",
        ),
        ["fact  broadcast along dimensions 0, 1, 2, 3, 4, 5, 6, 7 (stride 0)", "dimensions  by index"],
    ),
    (  # 170**3 = 4913000 elements: past the 4000000 the overlap search enumerates
        TensorDesc("INT8", (170, 170, 170), (160000, 1000, 3)),
        (
            "INT8 · sizes [170, 170, 170] · strides [160000, 1000, 3]",
            "overlap: undecided · 4913000 logical elements",
        ),
        ["fact  overlap: undecided (past the search budget of 4000000 elements)"],
    ),
]
IDS = [str(desc) for desc, _, _ in TABLE]


def report_lines(report: sl.LayoutReport) -> list[str]:
    """The report's rows with single spacing, as the table above writes them."""
    return [f"{question}  {answer}" for question, answer in report.rows()]


@pytest.mark.parametrize(("desc", "summary", "rows"), TABLE, ids=IDS)
def test_the_one_line_forms_read_back(desc, summary, rows):
    assert TensorDesc.parse(str(desc)) == desc
    assert eval(repr(desc), {"TensorDesc": TensorDesc}) == desc


@pytest.mark.parametrize(("desc", "summary", "rows"), TABLE, ids=IDS)
def test_the_drawing_shows_a_window_and_the_summary(desc, summary, rows):
    assert resolve(desc)[1] is None  # no memory map: nothing is enumerated past the window
    scene = build_scene(desc)
    assert scene.cell_count <= DEFAULT_MAX_CELLS and scene.slot_count <= DEFAULT_MAX_CELLS
    assert scene.texts[0].text == summary[0]
    assert scene.texts[1].text.startswith(summary[1])
    text = render_text(desc)
    assert text.splitlines()[0] == summary[0] and text.splitlines()[1].startswith(summary[1])
    assert text.count("\n") < 4 * TEXT_MAX_CELLS + 40  # a window's worth of lines


@pytest.mark.parametrize(("desc", "summary", "rows"), TABLE, ids=IDS)
def test_the_svg_and_the_matplotlib_drawing_show_the_summary(desc, summary, rows):
    assert summary[0] in sl.render_svg(desc)
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    try:
        texts = [a.get_text() for a in sl.draw_memory_map(ax, desc) if isinstance(a, matplotlib.text.Text)]
    finally:
        plt.close(fig)
    assert summary[0] in texts


# the PNG takes matplotlib seconds to paint: the bundle is built for the two cases measured to
# fail and the 8-D one; the rest share its scene, SVG and drawing (above)
@pytest.mark.parametrize(("desc", "summary", "rows"), [*TABLE[:2], TABLE[8]], ids=[*IDS[:2], IDS[8]])
def test_the_jupyter_bundle_has_both_pictures_and_the_repr(desc, summary, rows):
    data, metadata = desc._repr_mimebundle_()
    assert data["text/plain"] == repr(desc)
    assert data["image/svg+xml"].startswith("<svg") and summary[0] in data["image/svg+xml"]
    if "image/png" in data:  # with matplotlib installed
        assert metadata["image/png"]["width"] > 0 and data["image/png"].startswith("iVBOR")  # b64 of the PNG signature


@pytest.mark.parametrize(("desc", "summary", "rows"), TABLE, ids=IDS)
def test_explain_says_what_holds_and_what_cannot(desc, summary, rows):
    report = sl.explain(desc)
    lines = report_lines(report)
    for row in rows:
        assert any(line.startswith(row) for line in lines), (row, lines)
    assert str(report).splitlines()[0].split() == ["layout", str(desc).split()[0], str(desc).split()[1]]
    assert report._repr_html_().count("<tr>") == len(lines)


def test_a_copy_the_report_cannot_give_is_none_with_the_reason():
    reach = sl.explain(TensorDesc("UINT8", (3, 70000, 70000), (1, 3, 210000))).to_reach("DHW")
    assert reach.copy is None and reach.view == (2, 1, 0)
    assert reach.no_copy == NO_COPY.format("DHW", 0, 4900000000)
    assert str(reach).startswith("DHW: a view, ")
    # a copy that fits is given as before, and no reason
    # H outermost, then D, then W: strides (4, 65536 * 4, 1) fit; W outermost would need 65536**2 = 2**32
    desc = TensorDesc("UINT8", (65536, 65536, 4), (262144, 4, 1))
    fits = sl.explain(desc).to_reach((1, 0, 2))
    assert fits.no_copy is None and fits.copy is not None
    assert "layout_strides((1, 0, 2), (65536, 65536, 4))" in fits.copy
    assert sl.explain(desc).to_reach((2, 1, 0)).no_copy == NO_COPY.format("(2, 1, 0)", 2, 2**32)


def test_numpy_arrays_with_huge_layouts_explain_and_display():
    # 3 * 70000 * 70000 elements over one row of 70000: DHW's packed D stride would be 4900000000
    array = np.broadcast_to(np.arange(70000, dtype=np.uint32).astype(np.uint8), (3, 70000, 70000))
    lines = report_lines(sl.explain(array))  # dimensions by index: row-major is D-H-W's order
    assert "to reach row-major  " + NO_COPY.format("row-major", 0, 4900000000) in lines
    tensor = sl.StridedTensor.from_array(array)
    assert tensor.desc == TensorDesc("UINT8", (3, 70000, 70000), (0, 0, 1))
    text = render_text(tensor)
    summary = "broadcast · 14700000000 logical elements · 70000 physical slots · buffer 70000 bytes"
    assert text.splitlines()[1] == summary
    assert " Value:|0|1|2|" in text  # the buffer's own values
    data, _ = tensor._repr_mimebundle_()
    assert data["text/plain"] == repr(tensor) and "image/svg+xml" in data


def test_a_size_1_dimension_s_stride_past_32_bits_is_not_held_against_an_array():
    # dimension 0 is never stepped along: numpy takes any stride there, DirectML any below 2**32
    array = np.lib.stride_tricks.as_strided(np.zeros(4, np.uint8), shape=(1, 2, 2), strides=(2**33, 2, 1))
    report = sl.explain(array)
    assert report.desc == TensorDesc("UINT8", (1, 2, 2), (M, 2, 1))
    assert report.numpy == "C-contiguous"


def test_a_window_past_int64_offsets_is_refused_not_wrapped():
    # rows 2**31 - 1 and 2**31 of (M, M):(M, 1): the second row ends at 2**31 * M + M - 3 = 2**63 + 2**31 - 4
    desc = TensorDesc("UINT8", (M, M), (M, 1))
    with pytest.raises(sl.LayoutError, match=r"reaches byte offset 9223372039002259452, past the 9223372036854775807"):
        build_scene(desc, start=(2**31 - 1, M - 4), max_cells=4)
    scene = build_scene(desc, start=(2**30, M - 2), max_cells=2)  # ends at 2**30 * M + M - 1: counted exactly
    assert scene.slot_offsets.tolist() == [2**30 * M + M - 2, 2**30 * M + M - 1]


# -- random valid descriptions near the limits ---------------------------------------------------------

NEAR_LIMIT = st.one_of(st.integers(1, 3), st.sampled_from([65536, 70000]), st.integers(M - 3, M))
STRIDES = st.one_of(st.just(0), st.integers(1, 3), st.sampled_from([65536, 210000]), st.integers(M - 3, M))


@st.composite
def descs_near_the_limits(draw):
    rank = draw(st.integers(1, 8))
    sizes = draw(st.lists(NEAR_LIMIT, min_size=rank, max_size=rank))
    strides = draw(st.lists(STRIDES, min_size=rank, max_size=rank))
    data_type = draw(st.sampled_from(["UINT8", "FLOAT16", "FLOAT64"]))
    last = sum((n - 1) * s for n, s in zip(sizes, strides))
    assume((last + 1) * {"UINT8": 1, "FLOAT16": 2, "FLOAT64": 8}[data_type] < 2**64 - 4)  # DirectML's UINT64 size
    return TensorDesc(data_type, sizes, strides)


@settings(max_examples=60, deadline=None)
@given(descs_near_the_limits())
def test_random_descriptions_near_the_limits_display_and_explain(desc):
    scene = build_scene(desc)
    assert scene.cell_count <= DEFAULT_MAX_CELLS and scene.slot_count <= DEFAULT_MAX_CELLS
    assert str(desc.element_count) in scene.texts[1].text
    assert render_text(desc).splitlines()[0] == scene.texts[0].text
    assert sl.render_svg(desc).startswith("<svg")
    report = sl.explain(desc)
    assert str(report).startswith("layout")
    for row in report.rows():
        if row[0].startswith("to reach "):
            reach = report.to_reach(row[0].removeprefix("to reach "))
            assert (reach.copy is None) == (reach.no_copy is not None)
            assert reach.copy is None or reach.already or "element_wise_identity" in reach.copy


def test_the_command_line_shows_and_explains_them(capsys):
    from stridelab import cli

    assert cli.main(["show", "UINT8 (65536,65536,4):(262144,4,1)"]) == 0
    assert capsys.readouterr().out.startswith(TABLE[0][1][0] + "\n" + TABLE[0][1][1])
    assert cli.main(["explain", "UINT8 (3,70000,70000):(1,3,210000)"]) == 0
    assert NO_COPY.format("DHW", 0, 4900000000) in capsys.readouterr().out
