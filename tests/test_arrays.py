"""The one reader of arrays (stridelab._arrays) and its inverse, the builder; and each caller's own
policy on what it reads (operators, explain, StridedTensor.from_array, the views)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import stridelab as sl
from stridelab._arrays import build_array, described_strides, layout_of, read_array, unbuildable

DTYPES = [np.float32, np.float16, np.uint8, np.int16, np.int64, np.float64]


def _random_view(rng: np.random.Generator) -> np.ndarray:
    """A random array, then a random view of it: steps (negative too), a transposition, a
    broadcast or a size-1 dimension with an odd stride."""
    rank = int(rng.integers(1, 5))
    shape = tuple(int(n) for n in rng.integers(1, 6, rank))
    base = rng.integers(0, 100, shape).astype(DTYPES[rng.integers(len(DTYPES))])
    kind = rng.integers(5)
    if kind == 0:
        return base
    if kind == 1:
        steps = tuple(slice(None, None, int(rng.choice([-2, -1, 1, 2, 3]))) for _ in shape)
        return base[steps]
    if kind == 2:
        return base.transpose(rng.permutation(rank))
    if kind == 3:
        return np.broadcast_to(base[..., :1], (*shape[:-1], int(rng.integers(1, 4))))
    odd = tuple(b if n > 1 else int(rng.integers(-7, 50)) for n, b in zip(base.shape, base.strides))
    return np.lib.stride_tricks.as_strided(base, base.shape, odd)


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def test_the_reader_follows_the_byte_stride_formula_on_2000_random_views():
    """Element c of a NumPy array lies at its data pointer + sum(c[i] * byte_strides[i]); the reader
    must put it at buffer[offset + dot(c, strides)], at that same address."""
    rng = np.random.default_rng(26)
    for _ in range(2000):
        a = _random_view(rng)
        read = read_array(a)
        itemsize = a.itemsize
        assert read.layout.sizes == a.shape
        assert read.buffer.ndim == 1 and read.buffer.strides == (itemsize,)
        for c in itertools.islice(np.ndindex(a.shape), 40):
            address = _address(a) + sum(i * b for i, b in zip(c, a.strides))
            index = read.offset + sum(i * s for i, s in zip(c, read.layout.strides))
            assert 0 <= index < read.buffer.size
            assert _address(read.buffer) + index * itemsize == address
            assert read.buffer[index] == a[c]
        for n, b, s in zip(a.shape, a.strides, read.layout.strides):
            if n > 1:
                assert s * itemsize == b


def test_the_buffer_spans_exactly_the_elements_reached():
    a = np.arange(24, dtype=np.int32).reshape(4, 6)[1:3, ::-2]  # elements 11, 9, 7 and 17, 15, 13
    read = read_array(a)
    assert read.buffer.tolist() == list(range(7, 18))
    assert (read.offset, read.layout.strides) == (4, (6, -2))


def test_a_size_1_stride_is_read_towards_zero_and_described_by_the_span_rule():
    base = np.zeros((3, 4), np.float32)
    odd = np.lib.stride_tricks.as_strided(base, (1, 3, 4), (-10, 16, 4))  # -10 bytes: -2.5 elements
    assert layout_of(odd).strides == (-2, 4, 1)
    assert described_strides((1, 3, 4), (-2, 4, 1)) == (12, 4, 1)  # packed, as C-contiguous arrays read
    assert described_strides((2, 1, 3), (3, 99, 1)) == (3, 3, 1)
    assert described_strides((1,), (5,)) == (1,)


def test_a_stride_of_no_whole_element_is_refused_by_the_reader():
    a = np.lib.stride_tricks.as_strided(np.zeros(8, np.uint16), (2,), (3,))
    with pytest.raises(sl.LayoutError, match=r"^x byte_strides\[0\] = 3 is not a multiple of the item size 2"):
        read_array(a)


class Interface:
    """An object known only by its ``__array_interface__`` (the owner of the memory)."""

    def __init__(self, array: np.ndarray) -> None:
        self.__array_interface__ = array.__array_interface__
        self._array = array


class DLPackOnly:
    """A torch-like CPU object known only through DLPack."""

    def __init__(self, array: np.ndarray) -> None:
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_array_interface_and_dlpack_objects_are_read_in_place_and_kept_alive():
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    view = base[:, 1::2]
    read = read_array(Interface(view))
    assert (read.layout.sizes, read.layout.strides) == ((3, 2), (4, 2))
    assert _address(read.array) == _address(view)
    assert read.array.base is not None  # numpy keeps the owner alive
    dl = read_array(DLPackOnly(view))
    assert _address(dl.array) == _address(view)
    assert dl.array[2, 1].item() == 11.0
    assert layout_of(Interface(base.T)).strides == (1, 4)


def test_an_interface_without_strides_is_c_contiguous():
    class Packed:
        def __init__(self) -> None:
            self.__array_interface__ = {"shape": (2, 3), "typestr": "<i2", "data": (0, True), "version": 3}

    assert layout_of(Packed()) == (sl.data_type("INT16"), (2, 3), (3, 1), "test_arrays.Packed")


def test_other_objects_are_refused_with_what_is_read():
    with pytest.raises(TypeError, match=r"^x must be an array \(numpy, cupy, an array interface, DLPack or a torch"):
        read_array([1, 2])
    with pytest.raises(TypeError, match="masked arrays are not supported"):
        read_array(np.ma.masked_array([1, 2], mask=[0, 1]))


class FakeTorch:
    """Enough of a torch.Tensor for the reader's metadata path (its module is named torch)."""

    def __init__(self, shape, stride, dtype="torch.float32") -> None:
        self.shape, self._stride, self.dtype = shape, stride, dtype

    def stride(self):
        return self._stride


FakeTorch.__module__ = "torch"


def test_a_torch_tensor_s_layout_is_read_from_its_own_strides_without_torch():
    layout = layout_of(FakeTorch((2, 1, 3), (3, 7, -1)))
    assert layout == (sl.data_type("FLOAT32"), (2, 1, 3), (3, 7, -1), "torch.Tensor")
    with pytest.raises(sl.LayoutError, match="torch dtype torch.bool has no DirectML data type"):
        layout_of(FakeTorch((2,), (1,), "torch.bool"))


# -- each caller's policy ----------------------------------------------------------------------


def test_operators_read_negative_strides_in_place():
    x = np.arange(6, dtype=np.float32)[::-1]
    assert sl.cumulative_summation(x, 0).tolist() == [5.0, 9.0, 12.0, 14.0, 15.0, 15.0]
    with pytest.raises(TypeError, match="x must be a StridedTensor or a numpy or cupy array, not Interface"):
        sl.cumulative_summation(Interface(x), 0)


def test_explain_keeps_raw_size_1_strides_and_refuses_negative_ones():
    report = sl.explain(FakeTorch((2, 1, 3), (3, 7, 1)))
    assert report.desc.strides == (3, 7, 1) and report.source == "torch.Tensor"
    with pytest.raises(sl.LayoutError, match=r"torch tensor strides\[2\] = -1 is negative; .* or SLICE1"):
        sl.explain(FakeTorch((2, 1, 3), (3, 7, -1)))
    with pytest.raises(sl.LayoutError, match=r"^array strides\[0\] = -1 is negative"):
        sl.explain(np.arange(3, dtype=np.float32)[::-1])


def test_from_array_describes_with_the_span_rule_and_refuses_negative_strides():
    image = np.zeros((1, 4, 5, 3), np.float32).transpose(0, 3, 1, 2)  # one channels-last image
    assert sl.StridedTensor.from_array(image).desc.strides == (60, 1, 15, 3)  # NHWC's
    assert sl.StridedTensor.from_array(Interface(np.zeros((2, 3), np.uint8))).desc.strides == (3, 1)
    with pytest.raises(sl.LayoutError, match=r"array byte_strides\[1\] = -4 is negative; stridelab describes"):
        sl.StridedTensor.from_array(np.zeros((2, 3), np.float32)[:, ::-1])


def test_the_views_copy_or_refuse_negative_strides():
    pytest.importorskip("anywidget", reason="the views need stridelab[widgets]")
    from stridelab.widgets._operator import as_tensor
    from stridelab.widgets.memory_map_view import as_source

    x = np.arange(6, dtype=np.float32).reshape(2, 3)[:, ::-1]
    assert as_tensor(x).to_array().tolist() == x.tolist()  # an explorer draws a packed copy
    with pytest.raises(sl.LayoutError, match=r"byte_strides \[12, -4\] are negative along axes \[1\]"):
        as_source(x)


# -- the builder -------------------------------------------------------------------------------

LAYOUTS = {
    "packed": ((2, 3, 4), (12, 4, 1), 0),
    "permuted": ((2, 3, 4), (1, 8, 2), 0),
    "padded": ((2, 3), (5, 1), 0),
    "stepped": ((3, 2), (6, 2), 0),
    "negative": ((3, 4), (-4, 1), 8),
    "offset": ((2, 2), (2, 1), 7),
    "size-1 odd strides": ((1, 3, 1), (1000, 1, -3), 0),
    "broadcast": ((4, 3), (0, 1), 0),
}


@pytest.mark.parametrize("name", list(LAYOUTS))
@pytest.mark.parametrize("dtype", [np.float16, np.int8, np.uint64, np.complex64])
def test_the_builder_round_trips(name, dtype):
    sizes, strides, offset = LAYOUTS[name]
    a = build_array(sizes, strides, dtype=dtype, offset=offset, fill=3)
    assert a.shape == sizes and a.dtype == dtype
    assert a.strides == tuple(s * np.dtype(dtype).itemsize for s in strides)
    assert (a == 3).all()
    base = a.base
    assert _address(a) == _address(base) + offset * base.itemsize
    reached = [offset + sum(i * s for i, s in zip(c, strides)) for c in np.ndindex(sizes)]
    assert base.size == max(reached) + 1 and min(reached) >= 0
    if dtype != np.complex64:  # the reader reads DirectML data types only
        read = read_array(a)
        assert read.layout.strides == strides
        assert [read.buffer[read.offset + sum(i * s for i, s in zip(c, strides))] for c in np.ndindex(sizes)] == [3] * (
            len(reached)
        )


def test_the_builder_refuses_what_it_cannot_build():
    with pytest.raises(sl.LayoutError, match="offset = 1 leaves no room before coordinate 0"):
        build_array((3,), (-1,), dtype=np.float32, offset=1)
    with pytest.raises(TypeError, match="like must be the numpy or cupy module or a torch tensor"):
        build_array((3,), (1,), dtype=np.float32, like="numpy")
    assert unbuildable(FakeTorch((1,), (1,)), (2, -1)) is not None
    assert unbuildable(np, (2, -1)) is None
    with pytest.raises(sl.LayoutError, match="torch tensors have no negative strides"):
        build_array((2, 2), (2, -1), dtype=None, like=FakeTorch((1,), (1,)), offset=1)


def test_torch_layouts_are_built_through_the_tensor_s_own_methods():
    torch = pytest.importorskip("torch")
    like = torch.zeros(1, dtype=torch.int16)
    for name, (sizes, strides, offset) in LAYOUTS.items():
        if name == "negative":
            continue
        t = build_array(sizes, strides, dtype=None, like=like, offset=offset, fill=2)
        assert tuple(t.stride()) == strides and tuple(t.shape) == sizes and t.storage_offset() == offset
        assert bool((t == 2).all())
        assert layout_of(t).strides == strides


def test_torch_tensors_are_read_without_copying():
    torch = pytest.importorskip("torch")
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4)[:, 1::2]
    read = read_array(t)
    assert read.layout == (sl.data_type("FLOAT32"), (3, 2), (4, 2), "torch.Tensor")
    assert read.array.ctypes.data == t.data_ptr()


@pytest.mark.gpu
def test_cupy_arrays_are_read_and_built_alike():
    cupy = pytest.importorskip("cupy")
    a = cupy.arange(24, dtype=cupy.float32).reshape(4, 6)[1:3, ::-2]
    read = read_array(a)
    assert read.buffer.get().tolist() == list(range(7, 18))
    assert (read.offset, read.layout.strides) == (4, (6, -2))
    for sizes, strides, offset in LAYOUTS.values():
        b = build_array(sizes, strides, dtype=cupy.float32, like=cupy, offset=offset, fill=5)
        assert b.strides == tuple(4 * s for s in strides) and bool((b == 5).all())


@pytest.mark.gpu
def test_cuda_objects_are_viewed_through_cupy():
    cupy = pytest.importorskip("cupy")
    a = cupy.arange(6, dtype=cupy.int32).reshape(2, 3)

    class Cuda:
        __cuda_array_interface__ = a.__cuda_array_interface__

    read = read_array(Cuda())
    assert read.array.data.ptr == a.data.ptr and read.layout.strides == (3, 1)
