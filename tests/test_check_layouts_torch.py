"""check_layouts and strided_arrays on torch tensors: buggy functions caught with the right kind,
correct ones passed, negative-stride layouts skipped with the reason.

Each test runs on a torch-like stub (a fake module named ``torch``, in ``sys.modules`` for that
test only, whose tensors are views of a NumPy storage with exactly the methods stridelab and these
functions call), so that CI, which has no torch, runs it; on real torch's CPU tensors where torch
is installed; and on CUDA tensors under ``-m gpu``.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from numpy.lib.stride_tricks import as_strided

import stridelab as sl
from stridelab._arrays import is_torch
from stridelab.testing import KINDS, check_layouts, strided_arrays

# -- the stub ----------------------------------------------------------------------------------

_LEGACY = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int"}
_LEGACY |= {"int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single memory "
    "location. Please clone() the tensor before performing the operation."
)


class DType:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


DTYPES = {name: DType(name) for name in ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8")}


class Device(NamedTuple):
    type: str


class Tensor:
    """A view of a 1-D NumPy ``storage``: sizes, element strides and a storage offset, checked as
    torch checks them (no negative strides, nothing outside the storage)."""

    __module__ = "torch"

    def __init__(self, storage: np.ndarray, size: Any, stride: Any, offset: int) -> None:
        size, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
        if any(s < 0 for s in stride):
            raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {stride}")
        needed = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1 if 0 not in size else 0
        if needed > storage.size:
            where = f"sizes {list(size)}, strides {list(stride)}, storage offset {offset}"
            raise RuntimeError(f"setStorage: {where} are out of bounds for storage of size {storage.size}")
        self._storage, self._size, self._stride, self._offset = storage, size, stride, offset
        item = storage.itemsize
        start = storage[offset:]
        self._array = as_strided(start, size, tuple(s * item for s in stride)) if size else start[:1].reshape(())

    # what stridelab calls
    shape = property(lambda self: self._size)
    dtype = property(lambda self: DTYPES[self._storage.dtype.name])
    device = property(lambda self: Device("cpu"))

    def stride(self, dim: int | None = None) -> Any:
        return self._stride if dim is None else self._stride[dim]

    def storage_offset(self) -> int:
        return self._offset

    def as_strided(self, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
        return Tensor(self._storage, size, stride, self._offset if storage_offset is None else storage_offset)

    def new_full(self, size: Any, fill_value: Any, dtype: DType | None = None) -> Tensor:
        return own(np.full(size, fill_value, np.dtype((dtype or self.dtype).name)))

    def __dlpack__(self, **options: Any) -> Any:
        return self._array.__dlpack__(**options)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)  # kDLCPU

    def __getitem__(self, index: Any) -> Tensor:
        index = index if isinstance(index, tuple) else (index,)
        if any(isinstance(i, slice) and (i.step or 1) < 0 for i in index):
            raise ValueError("step must be greater than zero")
        view = self._array[(*index, ...) if Ellipsis not in index else index]
        start = (view.__array_interface__["data"][0] - self._storage.__array_interface__["data"][0]) // view.itemsize
        return Tensor(self._storage, view.shape, [s // view.itemsize for s in view.strides], start)

    def __setitem__(self, index: Any, value: Any) -> None:
        if not isinstance(value, (Tensor, bool, int, float)):
            kind = _LEGACY.get(self.dtype.name, self.dtype.name)
            raise TypeError(f"can't assign a {type(value).__module__}.{type(value).__name__} to a torch.{kind}Tensor")
        self[index]._array[...] = value._array if isinstance(value, Tensor) else value

    def detach(self) -> Tensor:
        return self

    def cpu(self) -> Tensor:
        return self

    def numpy(self) -> np.ndarray:
        return self._array

    # what the functions under test call
    def to(self, device: str) -> Tensor:
        if device != "cpu":
            raise RuntimeError(f"the torch stub has no device {device!r}")
        return self

    def numel(self) -> int:
        return int(np.prod(self._size, dtype=np.int64))

    def is_contiguous(self) -> bool:
        expected = 1
        for n, s in zip(reversed(self._size), reversed(self._stride)):
            if n != 1 and s != expected:
                return False
            expected *= n
        return True

    def clone(self) -> Tensor:
        return own(self._array)

    def contiguous(self) -> Tensor:
        return self if self.is_contiguous() else self.clone()

    def reshape(self, *shape: int) -> Tensor:
        return own(self._array.reshape(shape))

    def sum(self, dim: int | None = None) -> Tensor:
        return own(self._array.sum(axis=dim))

    def flip(self, *dims: int) -> Tensor:
        return own(np.flip(self._array, dims))

    def min(self) -> Tensor:
        return own(self._array.min())

    def max(self) -> Tensor:
        return own(self._array.max())

    def __mul__(self, other: Any) -> Tensor:
        return own(self._array * other)

    def mul_(self, other: Any) -> Tensor:
        self._refuse_overlap()
        self._array *= other
        return self

    def copy_(self, source: Tensor) -> Tensor:
        self._refuse_overlap()
        self._array[...] = source._array
        return self

    def _refuse_overlap(self) -> None:
        if any(n > 1 and s == 0 for n, s in zip(self._size, self._stride)):
            raise RuntimeError(OVERLAP)


def own(values: Any) -> Tensor:
    """A packed tensor over a storage of its own holding ``values``."""
    storage = np.array(values, copy=True).reshape(-1)
    packed = np.ascontiguousarray(np.empty(np.shape(values), storage.dtype)).strides
    return Tensor(storage, np.shape(values), [s // storage.itemsize for s in packed], 0)


def stub_module() -> ModuleType:
    torch = ModuleType("torch")
    torch.__version__ = "0+stub"
    torch.Tensor = Tensor
    torch.tensor = own
    torch.empty = lambda *size, dtype=None: own(np.empty(size, np.dtype(dtype.name if dtype else "float32")))
    for name, dtype in DTYPES.items():
        setattr(torch, name, dtype)
    return torch


# -- the torches -------------------------------------------------------------------------------


class Torch(NamedTuple):
    """A torch module (the stub or the real one) and the device its tensors go to."""

    module: Any
    device: str

    @property
    def stub(self) -> bool:
        return self.module.__version__ == "0+stub"

    def tensor(self, values: np.ndarray) -> Any:
        return self.module.tensor(np.array(values)).to(self.device)

    def xp(self) -> Any:
        """What strided_arrays is given for this module and device."""
        return self.module if self.device == "cpu" else self.module.empty(0, device=self.device)


@pytest.fixture(params=["stub", "cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def torch(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Torch:
    """The stub (in ``sys.modules`` for this test only), or real torch on the CPU or on CUDA."""
    if request.param == "stub":
        module = stub_module()
        monkeypatch.setitem(sys.modules, "torch", module)
        return Torch(module, "cpu")
    real = pytest.importorskip("torch")
    if request.param == "cuda" and not real.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    return Torch(real, request.param)


def test_the_stub_is_taken_for_torch_and_read_like_it(monkeypatch):
    torch = stub_module()
    monkeypatch.setitem(sys.modules, "torch", torch)
    t = torch.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))[:, 1::2]
    assert is_torch(t) and not is_torch(np.zeros(2))
    assert sl.explain(t).source == "torch.Tensor"
    read = sl._arrays.read_array(t)
    assert read.layout.strides == (4, 2) and read.layout.kind == "torch.Tensor"
    assert read.buffer.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0]
    assert np.shares_memory(read.array, t.numpy())  # a view of the tensor's own memory, not a copy


def test_the_stub_refuses_what_torch_refuses(monkeypatch):
    torch = stub_module()
    t = torch.tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(TypeError, match="can't assign a numpy.ndarray to a torch.FloatTensor"):
        t[...] = np.ones((2, 3), np.float32)
    with pytest.raises(RuntimeError, match="Negative strides are not supported"):
        t.as_strided((3,), (-1,), 2)
    with pytest.raises(ValueError, match="step must be greater than zero"):
        t[:, ::-1]
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        t.as_strided((2, 3), (0, 1)).mul_(2)
    assert sys.modules.get("torch") is not torch


# -- functions under test, written against torch's tensor methods --------------------------------


def packed(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(np.prod(shape[i + 1 :], dtype=np.int64)) for i in range(len(shape)))


def storage_as_packed(x):  # reads the storage from its start as a packed buffer of x's elements
    return x.as_strided((x.numel(),), (1,), 0).reshape(*x.shape) * 2


def innermost_stride_assumed(x):
    return x.as_strided(x.shape, (x.stride(0), 1)).clone()


def partial_contiguity_check(x):  # checks only the last stride before treating x as packed
    if x.stride(-1) == 1:
        return x.as_strided(x.shape, packed(x.shape)).clone()
    return x.contiguous()


def offset_ignored(x):  # the strides honoured, the storage offset dropped
    return x.as_strided(x.shape, x.stride(), 0).clone()


def nchw_arithmetic(x):  # memory from the first element, read as if it were NCHW
    return x.as_strided((x.numel(),), (1,)).reshape(*x.shape) * 1


def row_pitch_sum(x):  # sums whole rows of the pitch, padding included
    return x.as_strided((x.shape[0], x.stride(0)), (x.stride(0), 1)).sum(dim=1)


def nan_masked_pitch_max(x):  # NaN as minus infinity, over the row pitch: padding read, NaN or not
    pitch = x.as_strided((x.shape[0], x.stride(0)), (x.stride(0), 1))
    return pitch.nan_to_num(nan=-float("inf")).amax(dim=1)


def write_through_copy(x, out):
    out.contiguous().copy_(x * 2)


def write_packed_span(x, out):
    out.as_strided((out.numel(),), (1,)).copy_((x * 2).reshape(-1))


def doubles_its_input(x):
    x.mul_(2)
    return x.clone()


def size1_stride_as_step(x):  # the step between elements of a (4, 1) column taken from stride(1)
    return x.as_strided((x.shape[0],), (x.stride(1),)).clone()


def refuses_with_runtime_error(x):
    if not x.is_contiguous():
        raise RuntimeError("not contiguous")
    return x * 1


def dtype_depends_on_layout(x):
    return x * 1 if x.is_contiguous() else x.double()


X = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3)
INTS = np.arange(24, dtype=np.int32).reshape(2, 3, 4) - 5
IMAGE = (np.arange(2 * 3 * 2 * 2) % 7).astype(np.float32).reshape(2, 3, 2, 2)
COLUMN = X.reshape(6, 1)[:4]
RANDOM = np.random.default_rng(5).standard_normal((3, 4, 5)).astype(np.float32)
STUB = {"storage_as_packed", "innermost_stride_assumed", "offset_ignored", "row_pitch_sum", "doubles_its_input"}
STUB |= {"size1_stride_as_step", "refuses_with_runtime_error", "partial_contiguity_check", "nchw_arithmetic"}

BUGS = [
    (storage_as_packed, X, "reads-padding", "(2,3):(6,1)+0"),
    (innermost_stride_assumed, X, "reads-padding", "(2,3):(6,2)+0"),
    (innermost_stride_assumed, X, "wrong", "(2,3):(1,2)+0"),
    (partial_contiguity_check, X, "reads-padding", "(2,3):(6,1)+0"),
    (offset_ignored, X, "reads-padding", "(2,3):(3,1)+3"),
    (nchw_arithmetic, IMAGE, "wrong", "(2,3,2,2):(12,1,6,3)+0"),
    (row_pitch_sum, X, "reads-padding", "(2,3):(6,1)+0"),
    (nan_masked_pitch_max, X, "reads-padding", "(2,3):(6,1)+0"),
    (doubles_its_input, INTS, "writes-input", "(2,3,4):(12,4,1)+0"),
    (doubles_its_input, INTS, "raised", "(2,3,4):(0,4,1)+0"),  # torch refuses to write a broadcast tensor
    (size1_stride_as_step, COLUMN, "wrong", "(4,1):(1,0)+0"),
    (size1_stride_as_step, COLUMN, "reads-padding", "(4,1):(1,9)+0"),
    (refuses_with_runtime_error, X, "raised", "(2,3):(1,2)+0"),
    (dtype_depends_on_layout, X, "different-result", "(2,3):(1,2)+0"),
]


def on_the_stub(torch: Torch, fn: Any) -> None:
    if torch.stub and fn.__name__ not in STUB:
        pytest.skip(f"{fn.__name__} calls tensor methods the stub does not have; it runs on real torch")


@pytest.mark.parametrize(("fn", "x", "kind", "layout"), BUGS, ids=lambda v: getattr(v, "__name__", None))
def test_a_bug_is_caught_with_its_kind(torch, fn, x, kind, layout):
    on_the_stub(torch, fn)
    check = check_layouts(fn, torch.tensor(x))
    by_layout = {str(f.layouts[0][1]): f.kinds for f in check.failures}
    assert kind in by_layout.get(layout, ()), str(check)


NOT_NEGATIVE = [kind for kind in KINDS if kind != "negative"]


@pytest.mark.parametrize(
    ("fn", "kinds"),
    [(write_through_copy, {"(2,3):(6,1)+0": "unwritten"}), (write_packed_span, {"(2,3):(6,1)+0": "writes-padding"})],
    ids=lambda v: getattr(v, "__name__", None),
)
def test_an_output_bug_is_caught_with_its_kind(torch, fn, kinds):
    out = torch.tensor(np.zeros((2, 3), np.float32))
    check = check_layouts(fn, torch.tensor(X), out=out, layouts=NOT_NEGATIVE)
    by_layout = {str(f.layouts[-1][1]): f.kinds for f in check.failures if f.layouts[0][1].kind == "packed"}
    for layout, kind in kinds.items():
        assert kind in by_layout[layout], str(check)
    assert "unwritten" in by_layout["(2,3):(6,2)+0"]


def test_negative_layouts_of_a_later_argument_are_skipped_for_torch_too(torch):
    check = check_layouts(in_place_double, torch.tensor(X), out=torch.tensor(np.zeros((2, 3), np.float32)))
    assert {"out (2,3):(-3,1)+3", "out (2,3):(3,-1)+2"} <= {what for what, _ in check.skipped}
    assert all(why.endswith("torch tensors have no negative strides") for _, why in check.skipped)
    assert not any(layout.kind == "negative" for row in check.rows for _, layout in row.trial.arguments)
    assert check.ok, str(check)


def in_place_double(x, out):
    out.copy_(x * 2)


def refuses_cleanly(x):
    if not x.is_contiguous():
        raise ValueError("x must be contiguous")
    return x * 2


CORRECT = [
    ("sum along 0", lambda x: x.sum(dim=0), (X,)),
    ("sum of all", lambda x: x.sum(), (RANDOM,)),
    ("reversed sum", lambda x: x.flip(0, 1).sum(), (X,)),
    ("row sums", lambda x: x.sum(dim=1), (RANDOM.reshape(12, 5),)),
    ("mean over 0 and 2", lambda x: x.mean(dim=(0, 2)), (RANDOM,)),
    ("cumsum", lambda x: x.cumsum(dim=-1), (INTS,)),
    ("NaN-masked max", lambda x: x.nan_to_num(nan=-float("inf")).amax(dim=0), (np.where(X == 2, np.nan, X),)),
    ("min and max", lambda x: (x.min(), x.max()), (INTS,)),
    ("refuses cleanly", refuses_cleanly, (X,)),
    ("transpose copy", lambda x: x.transpose(1, 3).contiguous(), (IMAGE,)),
    ("matmul", lambda x, y: x @ y, (X, X.T.copy())),
    ("sort", lambda x: x.sort(dim=1).values, (RANDOM,)),
    ("to int64", lambda x: x.long() * 3, (INTS,)),
]
ON_THE_STUB = {"sum along 0", "reversed sum", "row sums", "min and max", "refuses cleanly"}


@pytest.mark.parametrize(("name", "fn", "inputs"), CORRECT, ids=[c[0] for c in CORRECT])
def test_a_correct_function_raises_no_alarm(torch, name, fn, inputs):
    if torch.stub and name not in ON_THE_STUB:
        pytest.skip(f"{name} calls tensor methods the stub does not have; it runs on real torch")
    # a later argument's negative layouts are not skipped yet: test_negative_layouts_of_a_later_argument_...
    layouts = NOT_NEGATIVE if len(inputs) > 1 else None
    check = check_layouts(fn, *(torch.tensor(x) for x in inputs), layouts=layouts)
    assert check.ok, str(check)
    assert len(check.rows) >= 6


def test_a_correct_out_function_raises_no_alarm(torch):
    out = torch.tensor(np.zeros((2, 3), np.float32))
    check = check_layouts(in_place_double, torch.tensor(X), out=out, layouts=NOT_NEGATIVE)
    assert check.ok, str(check)


def test_negative_stride_layouts_are_skipped_for_torch_with_the_reason(torch):
    check = check_layouts(lambda x: x.sum(dim=0), torch.tensor(X))
    negative = {what: why for what, why in check.skipped if "-" in what}
    assert set(negative) == {"input 0 (2,3):(-3,1)+3", "input 0 (2,3):(3,-1)+2"}
    assert all(why.endswith("torch tensors have no negative strides") for why in negative.values())
    assert [row[0] for row in check.table()] == [
        "input 0 (2,3):(3,1)+0",
        "input 0 (2,3):(1,2)+0",
        "input 0 (2,3):(6,1)+0",
        "input 0 (2,3):(6,2)+0",
        "input 0 (2,3):(3,1)+3",
        "input 0 (2,3):(0,1)+0",
        "input 0 (2,3):(1,0)+0",
    ]


def test_strided_arrays_draws_torch_tensors_without_negative_strides(torch):
    seen = set()

    @settings(database=None, derandomize=True, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
    @given(strided_arrays((2, 1, 3), np.float32, xp=torch.xp()))
    def check(x):
        assert is_torch(x) and str(x.dtype) == "torch.float32"
        assert min(x.stride()) >= 0
        seen.add((tuple(x.stride()), x.storage_offset()))

    check()
    assert len(seen) >= 10
