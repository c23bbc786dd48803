"""The cached front end: a call is validated and planned once per signature, and nothing that can
change between calls (values, buffers, flags, where ``out`` lies) is taken from the cache."""

from __future__ import annotations

import numpy as np
import pytest

import stridelab as sl
from stridelab.ops import _engine

X = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 3, 4)


@pytest.fixture
def prepared(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """An empty cache, and the kind of each plan made from here on ("scan", or the operator's
    function name)."""
    _engine.forget_plans()
    made: list[str] = []
    original = _engine.plan

    def counting(operator, *args, **kwargs):
        made.append("scan" if operator.scan is not None else operator.function)
        return original(operator, *args, **kwargs)

    monkeypatch.setattr(_engine, "plan", counting)
    yield made
    _engine.forget_plans()


def test_a_repeated_call_is_prepared_once(prepared):
    first = sl.cumulative_summation(X, 3)
    again = sl.cumulative_summation(X, 3)
    assert prepared == ["scan"]
    assert first is not again and np.array_equal(first, again)
    other = X * 2  # new values, same signature: computed afresh, not prepared again
    assert sl.cumulative_summation(other, 3).tolist() == (np.cumsum(other, 3)).tolist()
    assert prepared == ["scan"]


@pytest.mark.parametrize(
    "change",
    [
        lambda: sl.cumulative_summation(X, 2),
        lambda: sl.cumulative_summation(X, 3, direction="decreasing"),
        lambda: sl.cumulative_summation(X, 3, exclusive=True),
        lambda: sl.cumulative_summation(X.astype(np.float16), 3),
        lambda: sl.cumulative_summation(X[..., ::2], 3),
        lambda: sl.cumulative_summation(X.reshape(1, 3, 1, 4), 3),
        lambda: sl.cumulative_product(X, 3),
        lambda: sl.cumulative_summation(sl.StridedTensor.from_array(X), 3),
    ],
    ids=["axis", "direction", "exclusive", "data type", "strides", "sizes", "operator", "tensor input"],
)
def test_whatever_decides_the_plan_is_in_the_signature(prepared, change):
    sl.cumulative_summation(X, 3)
    change()
    assert prepared == ["scan", "scan"]


@pytest.mark.parametrize(
    ("valid", "invalid", "message"),
    [
        ({"axis": 1}, {"axis": True}, "axis must be an integer, not bool"),
        ({"axis": 1}, {"axis": 1.0}, "axis must be an integer, not float"),
        ({"axis": 1, "exclusive": False}, {"axis": 1, "exclusive": 0}, "exclusive must be a bool"),
        ({"axis": 1, "exclusive": True}, {"axis": 1, "exclusive": 1}, "exclusive must be a bool"),
    ],
)
def test_values_equal_to_a_cached_parameter_are_still_checked(prepared, valid, invalid, message):
    """``True == 1`` and ``1.0 == 1`` hash alike; the signature keeps their types apart."""
    sl.cumulative_summation(X, **valid)
    with pytest.raises(TypeError, match=message):
        sl.cumulative_summation(X, **invalid)


def test_slice_parameters_as_lists_or_tuples_share_a_preparation(prepared):
    a = sl.slice1(X, [0, 0, 0, 1], [1, 1, 3, 3], [1, 1, 1, 2])
    b = sl.slice1(X, (0, 0, 0, 1), (1, 1, 3, 3), (1, 1, 1, 2))
    assert prepared == ["slice1"] and np.array_equal(a, b)
    with pytest.raises(TypeError, match="window_offsets"):
        sl.slice1(X, [0, 0, 0, 1.0], [1, 1, 3, 3], [1, 1, 1, 2])
    numpy_ints = sl.slice1(X, np.array([0, 0, 0, 1]), (1, 1, 3, 3), (1, 1, 1, 2))  # accepted, prepared afresh
    assert np.array_equal(numpy_ints, a)


def test_a_tensor_input_reads_its_own_buffer_every_call(prepared):
    desc = sl.TensorDesc("FLOAT32", (3, 4), (5, 1))  # padded rows
    first = sl.StridedTensor(desc, np.arange(15, dtype=np.float32))
    second = sl.StridedTensor(desc, np.arange(15, dtype=np.float32) * 10)
    assert sl.cumulative_summation(first, 1).to_array()[2].tolist() == [10, 21, 33, 46]
    assert sl.cumulative_summation(second, 1).to_array()[2].tolist() == [100, 210, 330, 460]
    assert prepared == ["scan"]


def test_a_read_only_out_is_refused_after_a_cached_call():
    _engine.forget_plans()
    out = sl.StridedTensor.empty(sl.TensorDesc("FLOAT32", (1, 1, 3, 4)))
    sl.cumulative_summation(X, 3, out=out)
    out.buffer.flags.writeable = False
    with pytest.raises(sl.LayoutError, match="out buffer is read-only"):
        sl.cumulative_summation(X, 3, out=out)


def test_where_out_lies_is_part_of_the_signature(prepared):
    """The same descriptions, first in separate buffers, then with out over x's own elements, then
    exactly in place: each is decided from the addresses of that call."""
    desc = sl.TensorDesc("FLOAT32", (2, 4))
    transposed = sl.TensorDesc("FLOAT32", (2, 4), (1, 2))
    x = sl.StridedTensor(desc, np.arange(8, dtype=np.float32))
    sl.cumulative_summation(x, 1, out=sl.StridedTensor.empty(transposed))
    clash = sl.StridedTensor(transposed, x.buffer)  # the same memory, another order
    with pytest.raises(sl.LayoutError, match="is x element"):
        sl.cumulative_summation(x, 1, out=clash)
    assert x.buffer.tolist() == list(range(8))
    assert sl.cumulative_summation(x, 1, out=x) is x
    assert x.buffer.tolist() == [0, 1, 3, 6, 4, 9, 15, 22]
    assert prepared == ["scan", "scan", "scan"]


def test_interleaved_outputs_are_prepared_once_per_distance():
    _engine.forget_plans()
    buffer = np.zeros(16, np.float32)
    evens = sl.StridedTensor(sl.TensorDesc("FLOAT32", (8,), (2,)), buffer)
    odds = sl.StridedTensor(sl.TensorDesc("FLOAT32", (8,), (2,)), buffer[1:])
    evens.view()[...] = np.arange(8)
    sl.cumulative_summation(evens, 0, out=odds)
    sl.cumulative_summation(evens, 0, out=odds)
    assert buffer[1::2].tolist() == [0, 1, 3, 6, 10, 15, 21, 28]
    assert len(_engine._plans) == 1


def test_the_cache_starts_over_when_full(monkeypatch):
    _engine.forget_plans()
    monkeypatch.setattr(_engine, "CACHE_SIZE", 3)
    for axis in range(4):
        sl.cumulative_summation(X, axis)
    assert len(_engine._plans) == 1


class _Sub(np.ndarray):
    pass


def test_array_subclasses_are_keyed_by_their_layout_not_their_identity(tmp_path):
    """A memmap or any ndarray subclass is read like an ndarray: its sizes and strides are in the
    signature, so a later array of another shape never reuses a preparation."""
    _engine.forget_plans()
    mapped = np.memmap(tmp_path / "ones.bin", np.float32, "w+", shape=(100,))
    mapped[:] = 1
    for n in (3, 5, 7):
        assert np.asarray(sl.cumulative_summation(mapped[:n], 0)).tolist() == list(range(1, n + 1))
    big = np.ones(2000, np.float32).view(_Sub)
    assert len(sl.cumulative_summation(big[::2], 0)) == 1000
    small = np.ones(6, np.float32).view(_Sub)
    assert np.asarray(sl.cumulative_summation(small[::2], 0)).tolist() == [1, 2, 3]


def test_an_out_in_a_subclass_buffer_is_checked_for_sharing_every_time():
    _engine.forget_plans()
    base = np.zeros(16, np.float32)
    base[:8] = np.arange(8)
    x = base[0:8]
    desc = sl.TensorDesc("FLOAT32", (8,))
    sl.cumulative_summation(x, 0, out=sl.StridedTensor(desc, base[8:16].view(_Sub)))  # disjoint
    with pytest.raises(sl.LayoutError, match=r"out element \(3,\) is x element \(7,\)"):
        sl.cumulative_summation(x, 0, out=sl.StridedTensor(desc, base[4:12].view(_Sub)))
    assert base[:8].tolist() == list(range(8))


def test_slice_parameters_of_numpy_integers_are_keyed_by_value():
    _engine.forget_plans()
    x = np.arange(10, dtype=np.float32)
    for start in range(3):
        assert sl.slice1(x, (np.int64(start),), (3,), (1,)).tolist() == [start, start + 1, start + 2]
    with pytest.raises(sl.LayoutError, match="window_offsets\\[0\\] \\+ window_sizes\\[0\\] = 11 exceeds"):
        sl.slice1(x, (np.int64(8),), (3,), (1,))
    for start in range(3):  # arrays of offsets: validated afresh every call
        assert sl.slice1(x, np.array([start]), (3,), (1,)).tolist() == [start, start + 1, start + 2]


def test_strided_tensor_subclasses_are_keyed_by_their_description():
    _engine.forget_plans()

    class Tensor(sl.StridedTensor):
        __slots__ = ()

    for n in (6, 3):
        x = Tensor(sl.TensorDesc("FLOAT32", (n,)), np.ones(n, np.float32))
        assert sl.cumulative_summation(x, 0).to_array().tolist() == list(range(1, n + 1))
