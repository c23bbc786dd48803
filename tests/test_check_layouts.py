"""sl.check_layouts, the layout sanitizer: buggy functions caught with the right kind, correct ones
passed, the catalogue worked out by hand, and poison detection."""

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import stridelab as sl
from stridelab.cli import main
from stridelab.testing import ProbeLayout, assert_layouts_ok, check_layouts, layouts_for

X = np.arange(1.0, 7.0).reshape(2, 3)  # user-given floats
INTS = np.arange(24, dtype=np.int32).reshape(2, 3, 4) - 5
IMAGE = (np.arange(2 * 3 * 2 * 2) % 7).astype(np.float32).reshape(2, 3, 2, 2)


def kinds_of(check):
    return {kind for failure in check.failures for kind in failure.kinds}


def failing(check):
    return {str(layout) for failure in check.failures for _, layout in failure.layouts if layout.kind != "packed"}


# -- buggy functions -------------------------------------------------------------------------


def base_buffer_doubled(x):  # assumes x.base is x's own packed buffer
    buffer = x if x.base is None else x.base
    return np.frombuffer(buffer, x.dtype)[: x.size].reshape(x.shape) * 2


def innermost_stride_assumed(x):  # assumes the last stride is one element
    return as_strided(x, x.shape, (x.strides[0], x.itemsize)).copy()


def partial_contiguity_check(x):  # checks only the last stride before treating x as packed
    if x.strides[-1] == x.itemsize:
        return as_strided(x, x.shape, (x.shape[1] * x.itemsize, x.itemsize)).copy()
    return np.ascontiguousarray(x)


def offset_ignored(x):  # reads the strided elements from the start of the buffer
    buffer = x if x.base is None else x.base
    return as_strided(buffer, x.shape, x.strides).copy() if x.base is not None else x.copy()


def negative_sign_dropped(x):
    return as_strided(x, x.shape, tuple(abs(s) for s in x.strides)).copy()


def nchw_arithmetic(x):  # the memory order, reshaped as if it were NCHW
    return np.ravel(x, order="K").reshape(x.shape).copy()


def row_pitch_sum(x):  # sums whole rows of the pitch, padding included
    pitch = x.strides[0] // x.itemsize
    return as_strided(x, (x.shape[0], pitch), (x.strides[0], x.itemsize)).sum(axis=1)


def nan_masked_pitch_max(x):  # nanmax over the row pitch: the padding is read, NaN or not
    pitch = x.strides[0] // x.itemsize
    return np.nanmax(as_strided(x, (x.shape[0], pitch), (x.strides[0], x.itemsize)), axis=1)


def nan_masked_pitch_min(x):  # the same read, seen only by a poison below every value
    pitch = x.strides[0] // x.itemsize
    return np.nanmin(as_strided(x, (x.shape[0], pitch), (x.strides[0], x.itemsize)), axis=1)


def write_through_copy(x, out):
    target = np.ascontiguousarray(out)
    target[...] = x * 2


def write_packed_span(x, out):
    as_strided(out, (out.size,), (out.itemsize,))[:] = (x * 2).ravel()


def doubles_its_input(x):
    x *= 2
    return x.copy()


def size1_stride_as_step(x):  # the step between elements of a (4, 1) column taken from strides[1]
    return as_strided(x, (x.shape[0],), (x.strides[1],)).copy()


def refuses_with_runtime_error(x):
    if not x.flags.c_contiguous:
        raise RuntimeError("not contiguous")
    return x * 1


def dtype_depends_on_layout(x):
    return x * 1 if x.flags.c_contiguous else x.astype(np.float32)


def noisy(x):
    return x + np.random.default_rng().random()


BUGS = [
    (base_buffer_doubled, X, "reads-padding", "(2,3):(6,1)+0"),
    (innermost_stride_assumed, X, "reads-padding", "(2,3):(6,2)+0"),
    (innermost_stride_assumed, X, "wrong", "(2,3):(1,2)+0"),
    (partial_contiguity_check, X, "reads-padding", "(2,3):(6,1)+0"),
    (offset_ignored, X, "reads-padding", "(2,3):(3,1)+3"),
    (negative_sign_dropped, X, "reads-padding", "(2,3):(-3,1)+3"),
    (nchw_arithmetic, IMAGE, "wrong", "(2,3,2,2):(12,1,6,3)+0"),
    (row_pitch_sum, X, "reads-padding", "(2,3):(6,1)+0"),
    (nan_masked_pitch_max, X, "reads-padding", "(2,3):(6,1)+0"),
    (nan_masked_pitch_min, X, "reads-padding", "(2,3):(6,1)+0"),
    (doubles_its_input, INTS, "writes-input", "(2,3,4):(0,4,1)+0"),
    (size1_stride_as_step, X.reshape(6, 1)[:4], "wrong", "(4,1):(1,0)+0"),
    (size1_stride_as_step, X.reshape(6, 1)[:4], "reads-padding", "(4,1):(1,9)+0"),
    (refuses_with_runtime_error, X, "raised", "(2,3):(1,2)+0"),
    (dtype_depends_on_layout, X, "different-result", "(2,3):(1,2)+0"),
]


@pytest.mark.parametrize(("fn", "x", "kind", "layout"), BUGS, ids=lambda v: getattr(v, "__name__", None))
def test_a_bug_is_caught_with_its_kind(fn, x, kind, layout):
    check = check_layouts(fn, x)
    assert not check.ok
    by_layout = {str(f.layouts[0][1]): f.kinds for f in check.failures}
    assert kind in by_layout[layout], by_layout


@pytest.mark.parametrize(
    ("fn", "kind"), [(write_through_copy, "unwritten"), (write_packed_span, "writes-padding")], ids=str
)
def test_an_output_bug_is_caught_with_its_kind(fn, kind):
    check = check_layouts(fn, X, out=np.zeros((2, 3)))
    by_layout = {str(f.layouts[-1][1]): f.kinds for f in check.failures if f.layouts[0][1].kind == "packed"}
    assert kind in by_layout["(2,3):(6,1)+0"], by_layout
    assert "unwritten" in by_layout["(2,3):(6,2)+0"]


def test_a_function_that_differs_between_two_packed_calls_is_nondeterministic():
    check = check_layouts(noisy, X, max_layouts=3)
    assert kinds_of(check) == {"nondeterministic"}


def test_the_packed_span_writer_leaves_elements_unwritten_and_counts_them():
    check = check_layouts(write_packed_span, X, out=np.zeros((2, 3)), layouts=["padded"])
    (failure,) = [f for f in check.failures if [layout.kind for _, layout in f.layouts] == ["packed", "padded"]]
    # out (2,3):(6,1): the packed writer covers slots 0..5: row 0 and the 3 padding slots
    assert failure.kinds == ("unwritten", "writes-padding")
    assert failure.counts == {"unwritten": 3, "writes-padding": 3}
    assert failure.first["unwritten"] == (1, 0)


# -- correct functions -----------------------------------------------------------------------


def in_place_double(x, out):
    np.multiply(x, 2, out=out)


def add_into(x, y, out):
    np.add(x, y, out=out)


def memory_order_sum(x):  # a float reduction in the order memory holds the elements
    return np.add.reduce(np.ravel(x, order="K"))


def reversed_sum(x):
    return x[::-1, ::-1].sum()


def pairwise_row_sums(x):
    return x.sum(axis=1)


def nan_masked_max(x):  # NaN counts as minus infinity
    return np.where(np.isnan(x), -np.inf, x).max(axis=0)


def min_and_max(x):
    return x.min(), x.max()


def refuses_cleanly(x):
    if not x.flags.c_contiguous:
        raise ValueError("x must be C-contiguous")
    return x * 2


def transpose_copy(x):
    return np.ascontiguousarray(x.T)


RANDOM = np.random.default_rng(5).standard_normal((3, 4, 5)).astype(np.float32)

CORRECT = [
    (lambda x: x.sum(axis=0), (X,)),
    (memory_order_sum, (RANDOM,)),
    (reversed_sum, (X,)),
    (pairwise_row_sums, (RANDOM.reshape(12, 5),)),
    (lambda x: np.cumsum(x, axis=-1), (INTS,)),
    (nan_masked_max, (np.where(X == 2, np.nan, X),)),
    (min_and_max, (INTS,)),
    (refuses_cleanly, (X,)),
    (transpose_copy, (IMAGE,)),
    (np.matmul, (X, X.T)),
    (lambda x: np.sort(x, axis=1), (RANDOM,)),
    (lambda x: x.astype(np.int64) * 3, (INTS,)),
]


@pytest.mark.parametrize(("fn", "inputs"), CORRECT)
def test_a_correct_function_raises_no_alarm(fn, inputs):
    check = check_layouts(fn, *inputs)
    assert check.ok, str(check)
    assert len(check.rows) >= 8


def test_correct_out_functions_raise_no_alarm():
    assert_layouts_ok(in_place_double, X, out=np.zeros((2, 3)))
    assert_layouts_ok(add_into, INTS, INTS[::-1].copy(), out=np.zeros((2, 3, 4), np.int32), max_layouts=40)


def test_a_clean_refusal_is_listed_and_fails_only_when_strict():
    check = check_layouts(refuses_cleanly, X)
    assert {row[2] for row in check.table()} == {"ok", "refused, ValueError: x must be C-contiguous"}
    assert kinds_of(check_layouts(refuses_cleanly, X, strict=True)) == {"raised"}


def test_a_float_reordering_is_within_tolerance_and_said():
    check = check_layouts(memory_order_sum, RANDOM)
    assert check.ok and any("reordering" in row[2] for row in check.table())
    assert not check_layouts(memory_order_sum, RANDOM, atol=0.0, rtol=0.0).ok


# -- the catalogue, worked out by hand ---------------------------------------------------------


def test_the_catalogue_of_a_2_by_3_input():
    assert [(layout.kind, str(layout)) for layout in layouts_for((2, 3))] == [
        ("packed", "(2,3):(3,1)+0"),
        ("column-major", "(2,3):(1,2)+0"),
        ("padded", "(2,3):(6,1)+0"),
        ("stepped", "(2,3):(6,2)+0"),
        ("negative", "(2,3):(-3,1)+3"),
        ("negative", "(2,3):(3,-1)+2"),
        ("offset", "(2,3):(3,1)+3"),
        ("broadcast", "(2,3):(0,1)+0"),
        ("broadcast", "(2,3):(1,0)+0"),
    ]


def test_the_catalogue_of_a_1_3_4_5_input():
    assert [str(layout) for layout in layouts_for((1, 3, 4, 5))] == [
        "(1,3,4,5):(60,20,5,1)+0",
        "(1,3,4,5):(1,1,3,12)+0",
        "(1,3,4,5):(60,1,15,3)+0",  # NHWC
        # every memory order whose innermost dimension has more than one element, outermost first:
        # (0,1,3,2), (0,2,1,3), (0,3,1,2), (0,3,2,1), (1,0,2,3), ...; a dimension's stride is the
        # product of the sizes inside it, e.g. (0,2,1,3): dim 3 1, dim 1 5, dim 2 15, dim 0 60.
        # (0,1,2,3) is packed and (0,2,3,1) NHWC, listed above
        "(1,3,4,5):(60,20,1,4)+0",
        "(1,3,4,5):(60,5,15,1)+0",
        "(1,3,4,5):(60,4,1,12)+0",
        "(1,3,4,5):(60,1,3,12)+0",
        "(1,3,4,5):(20,20,5,1)+0",
        "(1,3,4,5):(20,20,1,4)+0",
        "(1,3,4,5):(5,20,5,1)+0",
        "(1,3,4,5):(4,20,1,4)+0",
        "(1,3,4,5):(15,5,15,1)+0",
        "(1,3,4,5):(15,1,15,3)+0",
        "(1,3,4,5):(5,5,15,1)+0",
        "(1,3,4,5):(3,1,15,3)+0",
        "(1,3,4,5):(12,4,1,12)+0",
        "(1,3,4,5):(12,1,3,12)+0",
        "(1,3,4,5):(4,4,1,12)+0",
        "(1,3,4,5):(3,1,3,12)+0",
        "(1,3,4,5):(69,23,5,1)+0",  # 3 slots after each run of dimension 2
        "(1,3,4,5):(96,32,8,1)+0",
        "(1,3,4,5):(120,40,10,2)+0",
        "(1,3,4,5):(60,-20,5,1)+40",
        "(1,3,4,5):(60,20,-5,1)+15",
        "(1,3,4,5):(60,20,5,-1)+4",
        "(1,3,4,5):(60,20,5,1)+3",
        "(1,3,4,5):(0,20,5,1)+0",
        "(1,3,4,5):(1,20,5,1)+0",
        "(1,3,4,5):(121,20,5,1)+0",
        "(1,3,4,5):(20,0,5,1)+0",
        "(1,3,4,5):(15,5,0,1)+0",
        "(1,3,4,5):(12,4,1,0)+0",
    ]
    assert [layout.words for layout in layouts_for((1, 3, 4, 5), kinds=["channels-last", "padded"])] == [
        "packed NHWC",
        "padded after dimension 2",
        "padded after dimension 3",
    ]


def test_an_unknown_kind_is_refused_by_name():
    with pytest.raises(sl.LayoutError, match="kinds has 'diagonal', which is no layout kind"):
        layouts_for((2, 3), kinds=["diagonal"])


def test_given_layouts_are_the_only_ones_tried():
    mine = ProbeLayout((2, 3), (8, 2), 1)
    check = check_layouts(row_pitch_sum, X, layouts=[mine])
    assert [row[0] for row in check.table()] == ["input 0 (2,3):(8,2)+1"]
    assert kinds_of(check) == {"reads-padding"}


# -- poison ------------------------------------------------------------------------------------


def test_poison_fills_every_slot_that_holds_no_element():
    from stridelab._sanitizer._buffers import place

    placed = place(ProbeLayout((2, 3), (6, 1), 0), X, np, -1.0)
    assert placed.array.tolist() == X.tolist()
    assert placed.buffer.size == 64 + 9 + 64  # margins of max(64, 8 * 6) slots on each side
    assert set(placed.buffer[placed.padding_mask()].tolist()) == {-1.0}
    assert placed.padding_mask().sum() == placed.buffer.size - 6


def test_a_read_of_one_padding_slot_is_reads_padding_and_the_margins_are_poisoned():
    def peeks_before(x):  # reads the slot just before coordinate 0
        return x + as_strided(x, (1,), (x.itemsize,), writeable=False)[0] * 0 + x.base[0] * 0

    check = check_layouts(peeks_before, X, layouts=["packed"])
    assert kinds_of(check) == {"reads-padding"}


# -- reports, public names and the command -----------------------------------------------------


def test_assert_ok_names_the_failing_layout_and_what_went_wrong():
    with pytest.raises(
        AssertionError, match=r"input 0 \(2,3\):\(6,1\)\+0: reads-padding \(2 elements, first at \[0\]\)"
    ):
        assert_layouts_ok(row_pitch_sum, X, layouts=["padded"])


def test_the_report_shows_a_row_per_layout_in_words():
    check = sl.check_layouts(row_pitch_sum, X, layouts=["packed", "padded"])
    text = str(check).splitlines()
    assert text[0] == "check_layouts(row_pitch_sum): 1 of 2 layouts fail"
    assert "padded after dimension 1" in text[3] and "reads-padding" in text[3]
    data, _ = check._repr_mimebundle_()
    assert data["text/plain"] == str(check) and "text/html" not in data and "image/svg+xml" in data


def test_bad_arguments_are_refused_by_name():
    with pytest.raises(TypeError, match="fn must be callable"):
        check_layouts(3, X)
    with pytest.raises(sl.LayoutError, match="max_layouts = 0 must be at least 1"):
        check_layouts(np.sum, X, max_layouts=0)
    with pytest.raises(TypeError, match="check_layouts needs at least one input array"):
        check_layouts(np.sum)


def test_the_check_command(tmp_path, monkeypatch, capsys):
    (tmp_path / "kernels_under_check.py").write_text(
        "import numpy as np\ndef ok(x):\n    return x.sum(axis=1)\n"
        "def bad(x):\n    return np.ravel(x, order='K').reshape(x.shape) * 1\n"
    )
    monkeypatch.chdir(tmp_path)
    assert main(["check", "kernels_under_check:ok", "--shape", "2,3,4,5"]) == 0
    assert capsys.readouterr().out.startswith("check_layouts(ok): ok, ")
    assert main(["check", "kernels_under_check:bad", "--shape", "2,3", "--dtype", "int16"]) == 1
    assert "column-major (dimension 0 innermost)" in capsys.readouterr().out
    assert main(["check", "kernels_under_check", "--shape", "2,3"]) == 2
    assert main(["check", "kernels_under_check:missing", "--shape", "2,3"]) == 2
    assert "cannot import kernels_under_check:missing" in capsys.readouterr().err


def test_a_check_that_tried_nothing_is_not_ok():
    check = check_layouts(np.ndarray, X)  # the packed call raises: every layout is skipped
    assert not check.ok and str(check).startswith("check_layouts(ndarray): nothing tried, 9 skipped")
    with pytest.raises(AssertionError, match="ndarray: no layout could be tried: the packed call raised TypeError"):
        check.assert_ok()


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"layouts": []}, sl.LayoutError, r"layouts = \[\] names no layout"),
        ({"layouts": "padded"}, TypeError, "layouts must be a list of layout kinds"),
        ({"layouts": [ProbeLayout((3, 2), (2, 1))]}, sl.LayoutError, r"whose sizes are no argument's: \[\(2, 3\)\]"),
        ({"layouts": [ProbeLayout((2, 3), (1, 1))]}, sl.LayoutError, "no two elements may share a slot"),
        ({"seed": -1}, sl.LayoutError, "seed = -1 must be at least 0"),
        ({"isolate": "yes"}, TypeError, "isolate must be True or False"),
    ],
)
def test_bad_options_are_refused_by_name(options, error, message):
    with pytest.raises(error, match=message):
        check_layouts(np.negative, X, **options)


def test_other_names_of_channels_last_and_numpy_tolerances_are_taken():
    image = IMAGE
    assert [str(r.trial.arguments[0][1]) for r in check_layouts(np.negative, image, layouts=["nhwc"]).rows] == [
        "(2,3,2,2):(12,1,6,3)+0"
    ]
    assert check_layouts(np.negative, X, rtol=np.float32(1e-3)).ok


def test_bool_complex_and_0d_arrays_are_checked():
    assert check_layouts(lambda a: a.any(axis=0), np.array([[True, False, False], [False, False, True]])).ok
    assert check_layouts(lambda a: a.conj().sum(axis=0), X * (1 + 2j)).ok
    assert check_layouts(lambda a: a * 2, np.array(3.0)).ok
    with pytest.raises(sl.LayoutError, match="holds <U1 values: check_layouts compares bool, integer"):
        check_layouts(lambda a: a, np.array(["a", "b"]))


def test_wrong_elements_are_counted_beside_those_that_read_padding():
    def as_packed_doubled(x):  # reads x's memory from its first element as if packed
        return (as_strided(x, (x.size,), (x.itemsize,)) * 2).reshape(x.shape)

    values = np.arange(24.0).reshape(2, 3, 4)
    (failure,) = check_layouts(as_packed_doubled, values, layouts=["padded"]).failures[:1]
    # padded after dimension 1, strides (15, 4, 1): x[0] lies in slots 0..11, padding in 12..14, x[1]
    # from slot 15. Elements 0..11 read their own slots; 12..14 read the padding (3 change with the
    # poison); 15..23 read slots 15..23, which hold elements 12..20 (9 wrong)
    assert failure.counts == {"wrong": 9, "reads-padding": 3}


def test_a_fast_path_taken_when_all_strides_agree_is_tried():
    def same_stride_fastpath(a, b):  # wrong only where a and b share strides and are not packed
        if a.strides == b.strides and not a.flags.c_contiguous:
            return as_strided(a, a.shape, a.strides[::-1]) + b
        return a + b

    values = np.arange(24.0).reshape(2, 3, 4)  # 16 layouts each: alone, then together, within 64 calls
    check = check_layouts(same_stride_fastpath, values, values + 1)
    together = [f.trial for f in check.failures if f.layouts[0][1] == f.layouts[1][1]]
    assert together and str(together[0].arguments[0][1]) == "(2,3,4):(1,2,6)+0"  # column-major, both
