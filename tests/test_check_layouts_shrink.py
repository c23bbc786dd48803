"""check_layouts on inputs stridelab makes (exact floats, the smallest failing case) and with
``isolate=True`` (a crash fails one layout, not the check)."""

import pickle
import sys
import textwrap
import types

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import stridelab as sl
from stridelab._sanitizer import _shrink
from stridelab.cli import main
from stridelab.testing import check_layouts, generated


def innermost_stride_assumed(x):  # takes the last stride as one element
    return as_strided(x, x.shape, (x.strides[0], x.itemsize)).copy()


def nudged_unless_packed(x):  # off by 1e-12 where x is not C-contiguous
    return x * 2 if x.flags.c_contiguous else x * 2 + 1e-12


def softmax(x):  # correct in every layout, and inexact: exp and division round
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_generated_values_are_small_whole_numbers():
    assert generated((2, 4), "int8").values().tolist() == [[-3, -2, -1, 0], [1, 2, 3, -3]]
    assert generated((9,), "uint8").values().tolist() == [0, 1, 2, 3, 4, 5, 6, 0, 1]
    assert generated((3,), "bool").values().tolist() == [False, True, False]
    made = generated((2, 3), "float16").array()
    assert made.dtype == np.float16 and made.flags.c_contiguous and made.tolist() == [[-3, -2, -1], [0, 1, 2]]


def test_generated_survives_pickling_with_its_module():
    again = pickle.loads(pickle.dumps(generated((2, 3), "int32")))
    assert again == generated((2, 3), "int32") and again.like is np


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        (("2,3",), TypeError, "shape must be a sequence of ints"),
        (((2, 3.0),), TypeError, "shape has 3.0, which is no int"),
        (((2, -1),), sl.LayoutError, "has a negative size"),
        (((1 << 14, 1 << 13),), sl.LayoutError, "more than 16777216 elements"),
        (((2,), "str"), sl.LayoutError, "is no number type"),
        (((2,), "nonsense"), TypeError, "is no NumPy data type"),
        (((2,), "float32", "numpy"), TypeError, "like must be the numpy or cupy module or a torch tensor"),
    ],
)
def test_generated_refuses_bad_arguments(args, error, message):
    with pytest.raises(error, match=message):
        generated(*args)


def test_generated_floats_keep_the_float_bound_as_small_as_their_values():
    # the bound is 8 * eps * N * max|x|: with values of magnitude 3 at most, 8 * 2.2e-16 * 24 * 3 = 1.3e-13
    check = check_layouts(nudged_unless_packed, generated((4, 6), "float64"))
    assert not check.ok and all(failure.kinds == ("wrong",) for failure in check.failures)
    assert check.failures[0].counts == {"wrong": 24}
    # the user's own values up to 2300 make it 8 * 2.2e-16 * 24 * 2300 = 9.8e-11: the same nudge passes
    assert check_layouts(nudged_unless_packed, np.arange(24.0).reshape(4, 6) * 100).ok
    # rounding in exp and division is no false alarm
    assert check_layouts(softmax, generated((64, 33))).ok


def test_the_first_failure_shrinks_to_the_smallest_shape_that_fails():
    check = check_layouts(innermost_stride_assumed, generated((4, 6)))
    first = check.failures[0]
    assert str(first.layouts[0][1]) == "(4,6):(1,4)+0"  # column-major, the catalogue's second layout
    # column-major (1, n) and (n, 1) have unit strides where the function assumes them: (2, 2) is
    # the smallest shape whose column-major layout has a stride other than 1 in dimension 1
    smallest = check.smallest
    assert str(smallest.layouts[0][1]) == "(2,2):(1,2)+0"
    assert smallest.kinds == ("wrong",) and smallest.counts == {"wrong": 2}
    assert str(check).splitlines()[-1] == (
        "smallest failing case: input 0 (2,2):(1,2)+0: wrong (2 elements, first at [0, 1])"
    )


def test_only_generated_inputs_of_one_shape_are_shrunk():
    user = check_layouts(innermost_stride_assumed, np.arange(24.0).reshape(4, 6))
    assert user.smallest is None and user.not_shrunk == "only inputs made by stridelab.testing.generated are shrunk"
    two = check_layouts(lambda x, y: innermost_stride_assumed(x) + y.sum(), generated((4, 6)), generated((3,)))
    assert two.smallest is None and two.not_shrunk == "the inputs have different shapes"
    assert check_layouts(np.negative, generated((4, 6))).smallest is None  # nothing failed


def test_a_passing_shape_is_kept_where_no_smaller_one_fails():
    def fails_only_whole(x):  # wrong on every layout but packed, only at the full shape
        return x * 2 if x.flags.c_contiguous or x.shape != (3, 2) else x * 3

    check = check_layouts(fails_only_whole, generated((3, 2)))
    assert check.smallest is check.failures[0]


def test_shrinking_spends_at_most_its_budget(monkeypatch):
    calls = []

    def fails_only_whole(x):
        calls.append(x.shape)
        return x * 2 if x.flags.c_contiguous or x.shape != (5, 5, 5) else x * 3

    monkeypatch.setattr(_shrink, "MAX_SHRINK_VERDICTS", 2)
    check = check_layouts(fails_only_whole, generated((5, 5, 5)), layouts=["column-major"])
    smaller = [shape for shape in calls if shape != (5, 5, 5)]
    # two verdicts, each two runs over poisoned buffers and a packed reference run twice
    assert sorted(set(smaller)) == [(1, 5, 5), (2, 5, 5)] and len(smaller) == 2 * 4
    assert check.smallest is check.failures[0]


CRASHING = """
import os
import signal


def crash_on_negative(x):
    if any(s < 0 for s in x.strides):
        os.kill(os.getpid(), signal.SIGSEGV)
    return x.sum(axis=1)


def exit_on_broadcast(x):
    if 0 in x.strides:
        os._exit(3)
    return x * 2

"""


@pytest.fixture
def crashing(tmp_path, monkeypatch):
    (tmp_path / "crashing_kernels.py").write_text(textwrap.dedent(CRASHING))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield __import__("crashing_kernels")
    sys.modules.pop("crashing_kernels", None)


def test_isolate_turns_a_crash_into_a_failing_layout(crashing):
    check = check_layouts(crashing.crash_on_negative, generated((2, 3)), isolate=True)
    verdicts = {layout.kind: row.verdict for row in check.rows for _, layout in row.trial.arguments}
    assert len(check.rows) == 9 and len(check.failures) == 2
    assert verdicts["negative"] == "raised: the worker process calling the function was killed by SIGSEGV"
    assert verdicts["padded"] == verdicts["column-major"] == "ok"
    # the picture of a layout that raised draws its buffer without calling the function again
    assert [view.calls for view in check.failures[0].evidence.buffers] == [0]
    assert "image/png" in check._repr_mimebundle_()[0]
    exited = check_layouts(crashing.exit_on_broadcast, generated((2, 3)), isolate=True)
    assert [failure.exception for failure in exited.failures] == [
        "the worker process calling the function ended with exit status 3"
    ] * 2


def test_isolate_gives_the_same_verdicts_as_a_call_in_this_process():
    alone = check_layouts(innermost_stride_assumed, generated((2, 3, 4)))
    isolated = check_layouts(innermost_stride_assumed, generated((2, 3, 4)), isolate=True)
    assert isolated.table() == alone.table() and isolated.smallest == alone.smallest
    assert str(isolated) == str(alone)  # the first failure's evidence, gathered in the worker, included


def test_isolate_refuses_a_function_it_cannot_import():
    with pytest.raises(TypeError, match="cannot be sent there .*use a function defined at the top of a module"):
        check_layouts(lambda x: x, generated((2, 3)), isolate=True)

    def here(x):
        return x

    here.__module__ = "__main__"
    with pytest.raises(TypeError, match="a function of the script being run, a notebook .* put it in a module"):
        check_layouts(here, generated((2, 3)), isolate=True)
    with pytest.raises(TypeError, match="isolate must be True or False, not 'yes'"):
        check_layouts(np.negative, generated((2, 3)), isolate="yes")


def test_the_check_command_shrinks_and_isolates(tmp_path, monkeypatch, capsys):
    (tmp_path / "kernels_to_shrink.py").write_text(
        "from numpy.lib.stride_tricks import as_strided\n"
        "def bad(x):\n    return as_strided(x, x.shape, (x.strides[0], x.itemsize)).copy()\n"
    )
    monkeypatch.chdir(tmp_path)
    assert main(["check", "kernels_to_shrink:bad", "--shape", "4,6", "--isolate"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "smallest failing case: input 0 (2,2):(1,2)+0: wrong (2 elements, first at [0, 1])"


FAULTING = '''
import cupy

_WILD = cupy.RawKernel(r"""
extern "C" __global__ void wild(const float* x, float* y, long long n, long long reach) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i + reach];
}
""", "wild")


def wild_on_negative(x):
    """Reads a terabyte before its input where a stride is negative: an illegal address."""
    y = cupy.empty(x.shape, cupy.float32)
    reach = -(1 << 38) if any(s < 0 for s in x.strides) else 0
    _WILD(((x.size + 127) // 128,), (128,), (cupy.ascontiguousarray(x), y, cupy.int64(x.size), cupy.int64(reach)))
    return y
'''


@pytest.mark.gpu
def test_isolate_survives_a_gpu_fault(tmp_path, monkeypatch):
    (tmp_path / "faulting_kernels.py").write_text(FAULTING)
    monkeypatch.syspath_prepend(str(tmp_path))
    import cupy

    module = __import__("faulting_kernels")
    try:
        check = check_layouts(module.wild_on_negative, generated((2, 3, 4), like=cupy), isolate=True)
    finally:
        sys.modules.pop("faulting_kernels", None)
    failed = {layout.kind for failure in check.failures for _, layout in failure.layouts}
    assert failed == {"negative"} and len(check.failures) == 3
    assert all(failure.kinds == ("raised",) for failure in check.failures)
    assert all("illegal" in failure.exception or "killed" in failure.exception for failure in check.failures)
    assert cupy.asnumpy(cupy.arange(3) * 2).tolist() == [0, 2, 4]  # this process's GPU is still usable


def test_isolate_stops_at_once_where_the_worker_cannot_load_the_function(monkeypatch):
    ghost = types.ModuleType("ghost_kernels")  # importable here (in sys.modules), nowhere else

    def doubled(x):
        return x * 2

    doubled.__module__, doubled.__qualname__ = "ghost_kernels", "doubled"
    ghost.doubled = doubled
    monkeypatch.setitem(sys.modules, "ghost_kernels", ghost)
    with pytest.raises(ImportError, match=r"a fresh Python could not load the function to check \(ModuleNotFound"):
        check_layouts(doubled, generated((2, 3)), isolate=True)
