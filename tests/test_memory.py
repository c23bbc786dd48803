"""Allocations larger than the free memory are refused before NumPy or CuPy try them, with the
bytes asked for and the bytes free; sizes and strides past DirectML's 32-bit UINT are refused."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import stridelab as sl
from stridelab import _memory
from stridelab.ops import _engine


@pytest.fixture
def little_free_memory(monkeypatch):
    """A host with 1 MiB available."""
    monkeypatch.setattr(_memory, "host_free_bytes", lambda: 2**20)


def test_host_free_bytes_reads_memavailable():
    free = _memory.host_free_bytes()
    assert free is None or free > 0


def test_host_free_bytes_counts_ulimit_v():
    """Under RLIMIT_AS (``ulimit -v``), what may still be allocated is the limit less the address
    space in use, however much memory the machine has free."""
    pytest.importorskip("resource", reason="RLIMIT_AS is POSIX")
    limit = 2**31
    script = (
        f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}));"
        "from stridelab import _memory;"
        "size = [int(l.split()[1]) * 1024 for l in open('/proc/self/status') if l.startswith('VmSize:')][0];"
        f"print(_memory.host_free_bytes(), {limit} - size)"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    free, expected = map(int, run.stdout.split())
    assert 0 < free <= limit and abs(free - expected) < 2**20  # VmSize moves a little between the two reads


def test_an_empty_tensor_larger_than_the_free_memory_is_refused(little_free_memory):
    with pytest.raises(sl.LayoutError, match=r"needs 134217728 bytes \(0.1 GiB\), but 1048576 bytes .* free in host"):
        sl.StridedTensor.empty(sl.TensorDesc("FLOAT32", (8192, 4096)))
    # below CHECKED_FROM_BYTES nothing is read: allocating costs less than asking
    assert sl.StridedTensor.empty(sl.TensorDesc("FLOAT32", (1024, 1024))).buffer.size == 2**20


def test_a_buffer_no_array_can_hold_is_refused_whatever_is_free():
    with pytest.raises(sl.LayoutError, match="needs 18446744065119617024 bytes, more than any array holds"):
        sl.StridedTensor.empty(sl.TensorDesc("FLOAT32", (2**31, 2**31 - 1)))


def test_an_operator_result_larger_than_the_free_memory_is_refused_before_allocating(monkeypatch):
    huge = np.broadcast_to(np.float32(1), (2**20, 2**20))  # 4 TiB of output from 4 bytes of input
    monkeypatch.setattr(_engine, "execute", lambda *args: pytest.fail("nothing may run"))
    with pytest.raises(sl.LayoutError, match=r"the result \(FLOAT32 \(1048576,1048576\):\(1048576,1\)\) needs"):
        sl.cumulative_summation(huge, 1)


def test_a_large_result_is_checked_at_every_call_not_only_when_prepared(monkeypatch):
    x = np.zeros(_memory.CHECKED_FROM_BYTES // 4, np.float32)
    sl.cumulative_summation(x, 0)  # prepared and cached while memory is free
    monkeypatch.setattr(_memory, "host_free_bytes", lambda: 2**20)
    with pytest.raises(sl.LayoutError, match="but 1048576 bytes"):
        sl.cumulative_summation(x, 0)


def test_the_explorer_shows_a_result_too_large_inline():
    pytest.importorskip("anywidget")
    explorer = sl.CumulativeSummationExplorer(np.broadcast_to(np.float32(1), (2**20, 2**20)))
    assert "needs 4398046511104 bytes" in explorer.error


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: np.broadcast_to(np.float32(1), (2**33,)), r"sizes\[0\] = 8589934592 exceeds 4294967295"),
        (
            lambda: np.lib.stride_tricks.as_strided(np.zeros(3, np.float32), (2,), (4 * 2**33,)),
            r"byte_strides\[0\] = 34359738368 is 8589934592 elements, beyond 4294967295",
        ),
    ],
)
def test_arrays_past_32_bit_sizes_or_strides_are_refused(make, message):
    with pytest.raises(sl.LayoutError, match=message + ": DirectML sizes and strides are 32-bit UINTs"):
        sl.slice1(make(), (0,), (2,), (1,))


def test_packed_strides_past_32_bits_are_refused():
    with pytest.raises(sl.LayoutError, match=r"strides\[0\] = 4398046511104 exceeds 4294967295: DirectML strides"):
        sl.TensorDesc("UINT8", (2, 2**21, 2**21))


@pytest.mark.gpu
def test_a_gpu_result_larger_than_the_device_memory_is_refused_before_allocating():
    import cupy

    huge = cupy.broadcast_to(cupy.ones(1, cupy.float32), (2**20, 2**20))  # 4 TiB of output from 4 bytes
    used = cupy.get_default_memory_pool().used_bytes()
    with pytest.raises(sl.LayoutError, match=r"the result .* needs 4398046511104 bytes .* are free on GPU \d"):
        sl.cumulative_summation(huge, 1)
    with pytest.raises(sl.LayoutError, match="are free on GPU"):
        sl.StridedTensor.empty(sl.TensorDesc("FLOAT32", (2**20, 2**20)), cupy)
    assert cupy.get_default_memory_pool().used_bytes() == used


@pytest.mark.gpu
def test_the_gpus_free_memory_counts_what_cupys_pool_holds_unused():
    import cupy

    pool = cupy.get_default_memory_pool()
    held = cupy.empty(2**26, np.uint8)
    del held  # back to the pool: free for stridelab, not for the driver
    device_free = cupy.cuda.Device().mem_info[0]
    assert _memory.free_bytes(cupy) == device_free + pool.free_bytes() >= device_free + 2**26


def test_a_size_1_dimension_whose_packed_stride_passes_32_bits_is_accepted():
    """Its stride is never stepped along: (1, 65536, 65536) describes what (65536, 65536) does."""
    assert sl.TensorDesc("UINT8", (1, 65536, 65536)).element_count == 2**32
