"""Several GPUs, checked on any machine: x and out on two devices are refused before anything is
allocated, naming both; a new result is allocated on x's device, not the current one. (The run on
two real GPUs is tests/test_gpu_backend.py's, where two are present.)"""

from __future__ import annotations

import contextlib
from types import SimpleNamespace

import numpy as np
import pytest

import stridelab as sl
from stridelab.ops import _engine, _operands


def _on_devices(monkeypatch: pytest.MonkeyPatch, devices: dict[int, int]) -> None:
    """Pretend that the buffer with ``id`` k lives on GPU ``devices[k]`` (others on no GPU)."""
    monkeypatch.setattr(_operands, "device_of", lambda buffer: devices.get(id(buffer)))


def test_x_and_out_on_two_gpus_are_refused_naming_both(monkeypatch):
    x = sl.StridedTensor.from_array(np.ones((2, 3), np.float32))
    out = sl.StridedTensor.empty(sl.TensorDesc("FLOAT32", (2, 3)))
    _on_devices(monkeypatch, {id(x.buffer): 0, id(out.buffer): 1})
    monkeypatch.setattr(_engine, "execute", lambda *args: pytest.fail("allocated or ran before the device check"))
    _engine.forget_plans()
    for run in (
        lambda: sl.cumulative_summation(x, 1, out=out),
        lambda: sl.cumulative_product(x, 1, out=out),
        lambda: sl.slice1(x, (0, 0), (2, 3), (1, 1), out=out),
        lambda: sl.element_wise_identity(x, out),
    ):
        with pytest.raises(sl.LayoutError, match="x is on GPU 0 but out is on GPU 1; .* allocate out on x's device"):
            run()


class _FakeDevices:
    """The ``cuda`` part of an array module with GPUs 0 and 1, current device 0, recording on which
    device each buffer is allocated."""

    def __init__(self) -> None:
        self.current = 0
        self.allocated_on: list[int] = []
        self.cuda = SimpleNamespace(runtime=SimpleNamespace(getDevice=lambda: self.current), Device=self.device)

    @contextlib.contextmanager
    def device(self, index: int):
        before, self.current = self.current, index
        try:
            yield
        finally:
            self.current = before

    def empty(self, shape, dtype):
        self.allocated_on.append(self.current)
        return np.empty(shape, dtype)


def test_a_new_result_is_allocated_on_the_inputs_device():
    fake = _FakeDevices()
    desc = sl.TensorDesc("FLOAT32", (2, 3))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    plan = _engine.plan("ELEMENT_WISE_IDENTITY", x, sl.StridedTensor.empty(desc))
    plan = plan._replace(allocate=_engine._allocator(fake, desc, True, 1))  # as for an x on GPU 1, GPU 0 current
    result = _engine.execute(plan, x, None)
    assert fake.allocated_on == [1] and fake.current == 0
    assert result.tolist() == [[0, 1, 2], [3, 4, 5]]
    _engine.execute(plan._replace(allocate=_engine._allocator(fake, desc, True, 0)), np.zeros((2, 3), np.float32))
    assert fake.allocated_on == [1, 0]
