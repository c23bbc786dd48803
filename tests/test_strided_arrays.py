"""stridelab.testing.strided_arrays: drawn arrays hold the drawn values in varied exact layouts over
poisoned buffers, a stride bug is found and shrinks, the smallest example is packed, bad arguments
are refused by name, and stridelab.testing imports without hypothesis."""

import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.lib.stride_tricks import as_strided

import stridelab as sl
from stridelab.testing import strided_arrays

ROOT = Path(__file__).resolve().parents[1]
DRAWS = settings(database=None, derandomize=True, max_examples=200, suppress_health_check=[HealthCheck.too_slow])
MARGIN = 64  # poisoned slots before the layout's own buffer, for arrays of at most 8 elements


def buffer_of(a: np.ndarray) -> np.ndarray:
    """The array that owns ``a``'s memory: the whole poisoned buffer."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def slots_of(a: np.ndarray) -> list[int]:
    """Each element's slot of ``buffer_of(a)``, from the data pointers and strides alone."""
    start, item = a.ctypes.data - buffer_of(a).ctypes.data, a.itemsize
    return [(start + sum(i * s for i, s in zip(index, a.strides))) // item for index in np.ndindex(a.shape)]


def others(a: np.ndarray) -> np.ndarray:
    """The slots of ``a``'s buffer that hold no element of ``a``."""
    keep = np.ones(buffer_of(a).size, dtype=bool)
    keep[slots_of(a)] = False
    return buffer_of(a)[keep]


def test_drawn_arrays_hold_the_values_hypothesis_drew(monkeypatch):
    drawn = []
    arrays = hnp.arrays

    def recorded(*args, **kwargs):
        return arrays(*args, **kwargs).map(lambda values: drawn.append(values.copy()) or values)

    monkeypatch.setattr(hnp, "arrays", recorded)

    @DRAWS
    @given(strided_arrays(hnp.array_shapes(min_dims=0, max_dims=4, max_side=3), np.float32))
    def check(x):
        packed = np.array(x)  # a packed copy of the logical values
        assert packed.shape == drawn[-1].shape
        assert np.array_equal(packed.view(np.uint32), drawn[-1].view(np.uint32))  # every bit, NaN too

    check()
    assert len(drawn) >= 100


def features(a: np.ndarray) -> set[str]:
    """What sets ``a``'s layout apart from packed (``a`` of shape (2, 1, 4), float64)."""
    steps = [s // a.itemsize for s in a.strides]
    slots = slots_of(a)
    found = set()
    if steps == [4, 4, 1] and min(slots) == MARGIN:
        found.add("packed")
    if any(s < 0 for s in steps):
        found.add("negative")
    if abs(steps[2]) > abs(steps[0]):
        found.add("permuted")
    if max(slots) - min(slots) + 1 > a.size:
        found.add("gaps")
    if steps[1] != 4:
        found.add("odd size-1 stride")
    if min(slots) > MARGIN and not any(s < 0 for s in steps):
        found.add("offset")
    return found


def test_layouts_vary_and_include_packed():
    seen: Counter = Counter()
    lowest = set()

    @DRAWS
    @given(strided_arrays((2, 1, 4), np.float64))
    def count(x):
        seen.update(features(x) or {"other"})
        seen["draws"] += 1
        lowest.add(min(slots_of(x)))

    count()
    assert seen["draws"] >= 150
    for feature in ("packed", "negative", "permuted", "gaps", "odd size-1 stride", "offset"):
        assert seen[feature] >= 3, seen
    assert seen["packed"] < seen["draws"] / 2, seen
    assert len(lowest) >= 4


@pytest.mark.parametrize(
    ("dtype", "poisons"),
    [(np.float32, {"9000.0", "-inf"}), (np.int32, {"2147483646", "-2147483646"}), (np.uint8, {"254", "2"})],
    ids=str,
)
def test_every_slot_that_holds_no_element_holds_poison(dtype, poisons):
    seen = set()

    @DRAWS
    @given(strided_arrays((3, 2), dtype))
    def check(x):
        rest = {str(v) for v in others(x).tolist()}
        assert len(rest) == 1 and rest <= poisons, rest
        assert others(x).size == buffer_of(x).size - 6
        seen.update(rest)

    check()
    assert seen == poisons


def innermost_stride_assumed(x):  # assumes the last stride is one element
    return as_strided(x, x.shape, (x.strides[0], x.itemsize)).copy()


def row_pitch_sum(x):  # sums whole rows of the pitch, padding included
    pitch = x.strides[0] // x.itemsize
    return as_strided(x, (x.shape[0], pitch), (x.strides[0], x.itemsize)).sum(axis=1)


def test_a_stride_bug_is_found_and_its_layout_is_in_the_notes():
    @DRAWS
    @given(strided_arrays((2, 3), np.int32))
    def test_copy(x):
        assert np.array_equal(innermost_stride_assumed(x), np.array(x))

    with pytest.raises(AssertionError) as caught:
        test_copy()
    (note,) = [n for n in caught.value.__notes__ if n.startswith("strided_arrays drew")]
    assert not note.startswith("strided_arrays drew (2,3):(3,1)+0:")


@pytest.mark.parametrize("bug", [innermost_stride_assumed, row_pitch_sum], ids=lambda f: f.__name__)
def test_the_smallest_failing_example_has_zero_values_and_a_layout_other_than_packed(bug):
    def reference(x):
        packed = np.array(x)
        return packed if bug is innermost_stride_assumed else packed.sum(axis=1)

    found = find(
        strided_arrays((2, 3), np.float32, elements=st.floats(-8, 8, width=32)),
        lambda x: not np.array_equal(bug(x), reference(x)),
        settings=DRAWS,
    )
    assert found.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]  # the poison, not the values, shows the bug
    assert (found.strides, min(slots_of(found))) != ((12, 4), MARGIN)


def test_a_correct_function_passes_every_draw():
    @DRAWS
    @given(strided_arrays(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), np.int64))
    def test_sums(x):
        assert np.array_equal(x.sum(axis=0), np.array(x).sum(axis=0))

    test_sums()


def test_the_smallest_example_is_packed_at_offset_0():
    found = find(strided_arrays((2, 3, 1), np.float32), lambda x: True, settings=DRAWS)
    assert found.strides == (12, 4, 4)
    assert slots_of(found) == [64, 65, 66, 67, 68, 69]
    assert found.tolist() == [[[0.0], [0.0], [0.0]], [[0.0], [0.0], [0.0]]]
    assert set(others(found).tolist()) == {9000.0}


def test_a_strategy_of_shapes_is_drawn_from():
    shapes = set()

    @DRAWS
    @given(strided_arrays(st.sampled_from([(2,), (3, 1), (1, 2, 2)]), np.int8))
    def check(x):
        shapes.add(x.shape)

    check()
    assert shapes == {(2,), (3, 1), (1, 2, 2)}


def test_bad_arguments_are_refused_by_name():
    with pytest.raises(TypeError, match=r"dtype must be a NumPy data type \(np.float32, 'int16', ...\), not NoneType"):
        strided_arrays((2,), None)
    with pytest.raises(TypeError, match="dtype must be a NumPy data type .*, not str 'float33'"):
        strided_arrays((2,), "float33")
    with pytest.raises(sl.LayoutError, match=r"dtype = <class 'numpy.bool_?'>: it must be one of float32, float16, "):
        strided_arrays((2,), np.bool_)
    with pytest.raises(sl.LayoutError, match=r"dtype = '>f4': it must be one of .*, in native byte order"):
        strided_arrays((2,), ">f4")
    with pytest.raises(TypeError, match="shape must be an ordered sequence of integers"):
        strided_arrays("2,3", np.float32)
    with pytest.raises(sl.LayoutError, match=r"shape\[1\] = -3: a size must be at least 0"):
        strided_arrays((2, -3), np.float32)
    with pytest.raises(
        sl.LayoutError, match=r"shape = \(1025, 1024\): it has 1049600 elements; strided_arrays draws at most 1048576"
    ):
        strided_arrays((1025, 1024), np.float32)
    with pytest.raises(TypeError, match="xp must be the numpy, cupy or torch module, .*, not str 'numpy'"):
        strided_arrays((2,), np.float32, xp="numpy")
    with pytest.raises(TypeError, match="elements must be a hypothesis strategy or None, not int 3"):
        strided_arrays((2,), np.float32, elements=3)


def test_a_bad_drawn_shape_is_refused_by_name():
    with pytest.raises(sl.LayoutError, match=r"shape\[0\] = -1: a size must be at least 0"):
        find(strided_arrays(st.just((-1, 2)), np.float32), lambda x: True, settings=DRAWS)


def test_stridelab_testing_imports_without_hypothesis_and_the_strategy_names_the_install():
    code = textwrap.dedent(
        """
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("hypothesis", "pytest"):
                    raise ModuleNotFoundError("blocked for this test: " + name, name=name)
        sys.meta_path.insert(0, Block())
        import numpy as np
        from stridelab.testing import assert_layouts_ok, strided_arrays
        assert_layouts_ok(lambda x: x.sum(axis=0), np.arange(6.0).reshape(2, 3))
        try:
            strided_arrays((2,), np.float32)
        except ImportError as error:
            print(error)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "strided_arrays needs hypothesis, which is not installed: pip install hypothesis\n"
