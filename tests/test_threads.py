"""The NumPy backend on several threads: the same bits as on one, the thread count and its limits,
and a thread that cannot start."""

from __future__ import annotations

import os
import threading
import tracemalloc
import warnings
from collections.abc import Callable, Iterator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_reference import (
    descs,
    operator_input,
    poisoned,
    random_values,
    refused,
    same_bits,
    scan_cases,
    sizes,
    tensor_on,
)

import stridelab as sl
from stridelab.ops import _numpy, _threads
from stridelab.ops._engine import forget_plans

COUNTS = (2, 3, 4)


@pytest.fixture
def tasks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Every call splits from 4 bytes a thread, the plane loop too (the knobs the modules
    document); yields the number of tasks of each parallel run, as they happen."""
    monkeypatch.setattr(_threads, "MIN_BYTES", 4)
    monkeypatch.setattr(_numpy, "MIN_PLANE_BYTES", 4)
    monkeypatch.delenv(_threads.ENVIRONMENT, raising=False)
    seen: list[int] = []
    real = _threads.run

    def counted(work, workers):
        seen.append(len(work))
        real(work, workers)

    monkeypatch.setattr(_threads, "run", counted)
    yield seen


@pytest.fixture(params=["default", "plane loop"])
def strategy(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The scan as tuned, and forced to the plane loop in tiny pieces and blocks on every axis."""
    if request.param == "plane loop":
        for name, value in (("BLOCK_POSITIONS", 3), ("BLOCK_BYTES", 24), ("SMALL_PLANE", 1), ("PIECE_BYTES", 8)):
            monkeypatch.setattr(_numpy, name, value)
        monkeypatch.setattr(_numpy, "SHORT_AXIS", 10**9)
    forget_plans()
    yield request.param
    forget_plans()


def on_threads(n: int, call: Callable[[], np.ndarray]) -> np.ndarray:
    with sl.threads(n):
        return call()


# -- the same bits on any number of threads -------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=scan_cases(("FLOAT32", "FLOAT16", "UINT32", "UINT16")), product=st.booleans())
def test_scans_give_the_same_bits_on_any_number_of_threads(tasks, strategy, case, product):
    x_desc, out_desc, in_place, flips, axis, decreasing, exclusive, seed = case
    scan = sl.cumulative_product if product else sl.cumulative_summation
    x_buffer = random_values(np.random.default_rng(seed), x_desc.data_type, x_desc.slot_count)

    def call() -> np.ndarray:
        x, _, _ = operator_input(np, x_desc, x_buffer, flips)
        out = x if in_place else tensor_on(np, out_desc, poisoned(out_desc))
        direction = "decreasing" if decreasing else "increasing"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NumPy's own, from reading an infinite product's sentinel
            scan(x, axis, direction=direction, exclusive=exclusive, out=out)
        return out.buffer.copy()

    one = on_threads(1, call)
    for n in COUNTS:
        assert same_bits(on_threads(n, call), one)


@st.composite
def copies(draw: st.DrawFn) -> tuple:
    """An element_wise_identity or slice1 call: (x desc, out desc, window or None, flips, seed)."""
    data_type = draw(st.sampled_from(["FLOAT32", "FLOAT16", "INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8"]))
    shape = draw(sizes(max_rank=5))
    x_desc = draw(descs(data_type, shape))
    window = None
    out_sizes = shape
    if draw(st.booleans()):
        strides = [draw(st.sampled_from([1, 2, -1, -3])) for _ in shape]
        window = ([0] * len(shape), list(shape), strides)
        out_sizes = tuple(1 + (n - 1) // abs(s) for n, s in zip(shape, strides))
    out_desc = draw(descs(data_type, out_sizes, output=True))
    return x_desc, out_desc, window, draw(st.tuples(*[st.booleans()] * len(shape))), draw(st.integers(0, 2**32 - 1))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=copies())
def test_copies_give_the_same_bits_on_any_number_of_threads(tasks, case):
    x_desc, out_desc, window, flips, seed = case
    x_buffer = random_values(np.random.default_rng(seed), x_desc.data_type, x_desc.slot_count)

    def call() -> np.ndarray:
        x, _, _ = operator_input(np, x_desc, x_buffer, flips)
        out = tensor_on(np, out_desc, poisoned(out_desc))
        if window is None:
            sl.element_wise_identity(x, out)
        else:
            sl.slice1(x, *window, out=out)
        return out.buffer.copy()

    one = on_threads(1, call)
    for n in COUNTS:
        assert same_bits(on_threads(n, call), one)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.uint16, np.uint32])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_every_scan_layout_is_split_and_matches_numpy(tasks, strategy, dtype, axis):
    """Reversed (negative strides) and broadcast (zero strides) inputs, increasing and decreasing,
    inclusive and exclusive, on 3 threads: against np.cumsum / np.cumprod, which add in the same
    order (float16 accumulating in float32, each value rounded once)."""
    rng = np.random.default_rng(axis)
    base = rng.integers(1, 4, (6, 1, 9)) if dtype in (np.uint16, np.uint32) else rng.standard_normal((6, 1, 9))
    x = np.broadcast_to(base.astype(dtype), (6, 5, 9))[::-1, :, ::-2]  # strides in elements: -9, 0, -2
    total = np.float32 if dtype == np.float16 else dtype
    for name, ufunc in (("cumulative_summation", np.add), ("cumulative_product", np.multiply)):
        flipped = np.flip(x, axis)
        inclusive = np.flip(ufunc.accumulate(flipped, axis, total), axis).astype(dtype)
        shifted = np.concatenate(
            [np.delete(inclusive, 0, axis), np.full_like(np.take(x, [0], axis), ufunc.identity)], axis
        )
        for exclusive, expected in ((False, inclusive), (True, shifted)):
            tasks.clear()
            with sl.threads(3):
                got = getattr(sl, name)(x, axis, direction="decreasing", exclusive=exclusive)
            assert len(tasks) == 1 and tasks[0] >= 3
            assert same_bits(got, expected)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int8, np.int16, np.int32, np.uint8])
def test_copies_are_split_and_match_numpy(tasks, dtype):
    x = np.broadcast_to(np.arange(40, dtype=dtype).reshape(8, 1, 5), (8, 3, 5))
    out_desc = sl.TensorDesc(sl.data_type(dtype).name, (8, 3, 5), sl.layout_strides((1, 2, 0), (8, 3, 5)))
    out = sl.StridedTensor.empty(out_desc)
    with sl.threads(4):
        sl.element_wise_identity(x, out)
        sliced = sl.slice1(x, [0, 0, 1], [8, 3, 4], [-2, 1, 3])
    assert len(tasks) == 2 and min(tasks) >= 4
    assert same_bits(out.to_array(), np.ascontiguousarray(x))
    assert same_bits(sliced, np.ascontiguousarray(x[7::-2, :, 1:5:3]))


def test_small_calls_stay_on_the_calling_thread(monkeypatch):
    monkeypatch.delenv(_threads.ENVIRONMENT, raising=False)
    monkeypatch.setattr(_threads, "run", lambda *a: pytest.fail("a small call went to the pool"))
    x = np.ones(2 * _threads.MIN_BYTES // 4 - 1, np.float32)  # one element short of two threads' work
    with sl.threads(8):
        assert sl.cumulative_summation(x, 0)[-1] == x.size
        assert sl.element_wise_identity(x, sl.StridedTensor.empty(sl.TensorDesc("FLOAT32", x.shape))) is not None


def test_overflow_on_another_thread_is_silent(tasks):
    # NumPy's error state is per thread: each thread of the pool must ignore IEEE overflow too.
    x = np.full((4, 64), 1e4, np.float32)
    with warnings.catch_warnings(), sl.threads(2):
        warnings.simplefilter("error")
        got = sl.cumulative_product(x, 1)
    assert len(tasks) == 1 and tasks[0] >= 2
    assert np.isinf(got[:, 10:]).all() and got[0, 1] == 1e8


# -- how many threads ---------------------------------------------------------------------------


@pytest.fixture
def machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """No environment variable, and the machine's count measured afresh."""
    monkeypatch.delenv(_threads.ENVIRONMENT, raising=False)
    monkeypatch.setattr(_threads, "_machine", None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("max 100000\n", None),
        ("150000 100000\n", 2),
        ("100000 100000", 1),
        ("50000 100000", 1),
        ("400000 100000\n", 4),
        ("0 100000", None),
        ("100000 0", None),
        ("-1 100000", None),
        ("lots 100000", None),
        ("100000", None),
        ("", None),
        ("\xff\xfe", None),
    ],
)
def test_cgroup_v2_cpu_max(tmp_path, text, expected):
    (tmp_path / "cpu.max").write_bytes(text.encode("latin-1"))
    assert _threads.cgroup_cpus(tmp_path) == expected


@pytest.mark.parametrize(
    ("folder", "quota", "period", "expected"),
    [
        ("cpu", "-1\n", "100000\n", None),
        ("cpu", "250000\n", "100000\n", 3),
        ("cpu,cpuacct", "200000\n", "100000\n", 2),
        ("cpu", "200000\n", "garbage\n", None),
        ("cpu", "200000\n", None, None),
    ],
)
def test_cgroup_v1_quota_over_period(tmp_path, folder, quota, period, expected):
    (tmp_path / folder).mkdir()
    (tmp_path / folder / "cpu.cfs_quota_us").write_text(quota)
    if period is not None:
        (tmp_path / folder / "cpu.cfs_period_us").write_text(period)
    assert _threads.cgroup_cpus(tmp_path) == expected


def test_no_cgroup_files_no_cap(tmp_path):
    assert _threads.cgroup_cpus(tmp_path / "missing") is None
    (tmp_path / "cpu.max").mkdir()  # a folder where the file should be
    assert _threads.cgroup_cpus(tmp_path) is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_in_place_of_the_file_is_never_waited_on(tmp_path):
    os.mkfifo(tmp_path / "cpu.max")  # opening it for reading would block until a writer came
    assert _threads.cgroup_cpus(tmp_path) is None


def test_affinity_capped_by_the_quota(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 2, 5, 7}, raising=False)
    assert _threads.cpu_count(tmp_path) == 4
    (tmp_path / "cpu.max").write_text("300000 100000\n")
    assert _threads.cpu_count(tmp_path) == 3
    (tmp_path / "cpu.max").write_text("900000 100000\n")
    assert _threads.cpu_count(tmp_path) == 4


def test_without_affinity_the_cpu_count(tmp_path, monkeypatch):
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert _threads.cpu_count(tmp_path) == 6
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert _threads.cpu_count(tmp_path) == 1


def test_default_count_is_the_machines(machine, monkeypatch):
    monkeypatch.setattr(_threads, "cpu_count", lambda: 5)
    assert _threads.thread_count() == 5
    assert sl.threads().count == 5


def test_environment_variable_sets_the_default(machine, monkeypatch):
    monkeypatch.setattr(_threads, "cpu_count", lambda: 5)
    monkeypatch.setenv("STRIDELAB_NUM_THREADS", " 3 ")
    assert _threads.thread_count() == 3
    monkeypatch.setenv("STRIDELAB_NUM_THREADS", "")
    assert _threads.thread_count() == 5
    monkeypatch.setenv("STRIDELAB_NUM_THREADS", "2")
    with sl.threads(7):
        assert _threads.thread_count() == 7
    assert _threads.thread_count() == 2


@pytest.mark.parametrize("text", ["0", "-2", "two", "1.5", "1025", "4 threads"])
def test_a_bad_environment_variable_is_refused_when_read(machine, monkeypatch, text):
    monkeypatch.setenv("STRIDELAB_NUM_THREADS", text)
    refused(_threads.thread_count, "STRIDELAB_NUM_THREADS", repr(text), "a whole number from 1 to 1024")
    x = np.zeros(_threads.MIN_BYTES, np.float32)  # large enough to ask for threads
    refused(lambda: sl.cumulative_summation(x, 0), "STRIDELAB_NUM_THREADS", repr(text))


def test_a_bad_environment_variable_is_refused_before_the_result_is_allocated(machine, monkeypatch):
    monkeypatch.setenv("STRIDELAB_NUM_THREADS", "many")
    x = np.zeros(_threads.MIN_BYTES, np.float32)  # 4 MiB: a result of as many bytes
    tracemalloc.start()
    try:
        refused(lambda: sl.cumulative_summation(x, 0), "STRIDELAB_NUM_THREADS", "'many'")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < x.nbytes // 4


def test_threads_blocks_nest_and_restore(machine, monkeypatch):
    monkeypatch.setattr(_threads, "cpu_count", lambda: 2)
    with sl.threads(3) as outer:
        with sl.threads(1):
            assert _threads.thread_count() == 1
        with sl.threads():
            assert _threads.thread_count() == 3
        assert _threads.thread_count() == 3 == outer.count
    assert _threads.thread_count() == 2


def test_threads_blocks_belong_to_their_thread(machine, monkeypatch):
    monkeypatch.setattr(_threads, "cpu_count", lambda: 2)
    seen = []
    with sl.threads(6):
        other = threading.Thread(target=lambda: seen.append(_threads.thread_count()))
        other.start()
        other.join()
    assert seen == [2]


def test_threads_rules():
    refused(lambda: sl.threads(0), "n = 0", "1 <= n <= 1024")
    refused(lambda: sl.threads(2000), "n = 2000")
    refused(lambda: sl.threads(2.0), "n must be an integer, not float", error=TypeError)
    refused(lambda: sl.threads(True), "n must be an integer, not bool", error=TypeError)


# -- the pool -------------------------------------------------------------------------------------


def test_each_task_runs_once_and_errors_come_back():
    ran: list[int] = []
    _threads.run([lambda i=i: ran.append(i) for i in range(9)], 3)
    assert sorted(ran) == list(range(9))

    events: list[str] = []

    def task(i: int) -> None:
        events.append(f"start {i}")
        if i == 3:
            raise MemoryError("no room")
        events.append(f"end {i}")

    with pytest.raises(MemoryError, match="no room"):
        _threads.run([lambda i=i: task(i) for i in range(40)], 3)
    started = {e.split()[1] for e in events if e.startswith("start")} - {"3"}
    ended = [e.split()[1] for e in events if e.startswith("end")]
    assert "start 3" in events and sorted(ended) == sorted(started)  # nothing still running on return
    assert len(ended) == len(set(ended))  # each at most once
    events.clear()
    with pytest.raises(MemoryError, match="no room"):
        _threads.run([lambda i=i: task(i) for i in range(40)], 1)
    assert events[-1] == "start 3"  # none taken after the error


def test_a_thread_that_cannot_start_leaves_one(tasks, monkeypatch):
    monkeypatch.setattr(_threads, "_pool", None)  # a fresh pool, whose first thread fails to start
    monkeypatch.setattr(_threads, "_pool_size", 0)
    monkeypatch.setattr(_threads, "_failed", False)
    callers: set[int] = set()

    def refuse(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    real = np.copyto
    monkeypatch.setattr(np, "copyto", lambda *a, **k: (callers.add(threading.get_ident()), real(*a, **k)))
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    with sl.threads(4):
        got = sl.element_wise_identity(x, sl.StridedTensor.empty(sl.TensorDesc("FLOAT32", (4, 6), (1, 4))))
        assert _threads.thread_count() == 1
    assert len(tasks) == 1 and tasks[0] >= 4
    assert callers == {threading.get_ident()}
    assert got.to_array().tolist() == x.tolist()


def test_tiles_cut_one_dimension_evenly():
    assert _threads.tiles((6, 5), 3) == [(slice(0, 2),), (slice(2, 4),), (slice(4, 6),)]
    assert _threads.tiles((6, 5), 3, keep=0) == [
        (slice(None), slice(0, 1)),
        (slice(None), slice(1, 3)),
        (slice(None), slice(3, 5)),
    ]
    assert _threads.tiles((3, 40), 2) == [(slice(None), slice(0, 20)), (slice(None), slice(20, 40))]
    assert _threads.tiles((1, 7), 2, keep=1) == [()]
    assert _threads.tiles((2, 7), 1) == [()]
