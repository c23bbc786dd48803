"""Literal, slow references of the operators, and the layouts and values the tests check them on.

Each reference follows its DirectML page element by element in plain Python, written without
``stridelab.ops``: it visits every logical coordinate and addresses buffers only through
``TensorDesc.offset_of``. It returns a copy of the output buffer with the results written, so slots
the output description does not reach keep whatever they held. Shared by the test modules; not
itself a test module.
"""

from __future__ import annotations

import importlib
import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import strategies as st

from stridelab import LayoutError, StridedTensor, TensorDesc, layout_strides

# -- the references ---------------------------------------------------------------------------------


def coordinates(sizes: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every logical coordinate of ``sizes``, in row-major order."""
    return itertools.product(*(range(n) for n in sizes))


def reference_cumulative(
    operator: str,
    x_desc: TensorDesc,
    x_buffer: np.ndarray,
    out_desc: TensorDesc,
    out_buffer: np.ndarray,
    axis: int,
    decreasing: bool,
    exclusive: bool,
) -> np.ndarray:
    """DML_CUMULATIVE_SUMMATION (``operator`` "sum") or DML_CUMULATIVE_PRODUCT ("product"): along
    each line of ``axis`` (visited by ascending index, or by descending index where ``decreasing``),
    write the running tally of the elements visited so far, including the current one unless
    ``exclusive`` (then the first written value is 0 for a sum, 1 for a product, and the final
    tally is never written).

    Numerics: FLOAT32 adds or multiplies in float32; FLOAT16 keeps the tally in float32 and rounds
    each written value to float16; UINT16 and UINT32 wrap modulo 2**bits. The tally of the first
    element is that element. Reads come from ``x_buffer`` as it was (an in-place run reads each
    element before writing it).
    """
    first = {"sum": 0, "product": 1}[operator]
    result = np.array(out_buffer, copy=True)
    kind = x_desc.data_type
    rank = len(x_desc.sizes)
    axis %= rank
    n = x_desc.sizes[axis]
    visit = range(n - 1, -1, -1) if decreasing else range(n)
    lines = [range(1) if i == axis else range(size) for i, size in enumerate(x_desc.sizes)]
    for line in itertools.product(*lines):
        tally: Any = None
        for i in visit:
            coords = (*line[:axis], i, *line[axis + 1 :])
            value = x_buffer[x_desc.offset_of(coords)]
            if exclusive:
                result[out_desc.offset_of(coords)] = first if tally is None else _written(kind, tally)
            tally = _combine(operator, kind, tally, value)
            if not exclusive:
                result[out_desc.offset_of(coords)] = _written(kind, tally)
    return result


def _combine(operator: str, kind: str, tally: Any, value: Any) -> Any:
    if kind in ("UINT16", "UINT32"):
        bits = 16 if kind == "UINT16" else 32
        if tally is None:
            return int(value) % 2**bits
        return (tally + int(value) if operator == "sum" else tally * int(value)) % 2**bits
    value = np.float32(value)  # FLOAT16 values widen exactly
    if tally is None:
        return value
    with np.errstate(over="ignore", invalid="ignore"):
        return np.float32(tally + value) if operator == "sum" else np.float32(tally * value)


def _written(kind: str, tally: Any) -> Any:
    return np.float16(tally) if kind == "FLOAT16" else tally


def reference_slice1(
    x_desc: TensorDesc,
    x_buffer: np.ndarray,
    out_desc: TensorDesc,
    out_buffer: np.ndarray,
    window_offsets: Sequence[int],
    window_sizes: Sequence[int],
    window_strides: Sequence[int],
) -> np.ndarray:
    """DML_SLICE1, the page's pseudo-code::

    CopyStart = InputWindowOffsets
    for dimension i in [0, DimensionCount - 1]:
        if InputWindowStrides[i] < 0:
            CopyStart[i] += InputWindowSizes[i] - 1
    OutputTensor[OutputCoordinates] = InputTensor[CopyStart + InputWindowStrides * OutputCoordinates]
    """
    result = np.array(out_buffer, copy=True)
    copy_start = list(window_offsets)
    for i in range(len(copy_start)):
        if window_strides[i] < 0:
            copy_start[i] += window_sizes[i] - 1
    for out_coords in coordinates(out_desc.sizes):
        in_coords = [copy_start[i] + window_strides[i] * c for i, c in enumerate(out_coords)]
        result[out_desc.offset_of(out_coords)] = x_buffer[x_desc.offset_of(in_coords)]
    return result


def reference_element_wise_identity(
    x_desc: TensorDesc, x_buffer: np.ndarray, out_desc: TensorDesc, out_buffer: np.ndarray
) -> np.ndarray:
    """DML_ELEMENT_WISE_IDENTITY: ``Output[c] = Input[c]`` for every logical coordinate ``c``."""
    result = np.array(out_buffer, copy=True)
    for coords in coordinates(x_desc.sizes):
        result[out_desc.offset_of(coords)] = x_buffer[x_desc.offset_of(coords)]
    return result


# -- layouts and values to check them on ------------------------------------------------------------

#: The largest size per dimension for each rank, so that every tensor stays small (at most 256 elements).
MAX_SIZE = {1: 12, 2: 8, 3: 5, 4: 4, 5: 3, 6: 2, 7: 2, 8: 2}


def to_host(a: Any) -> np.ndarray:
    """A numpy copy of a numpy or cupy array."""
    return a.get() if hasattr(a, "get") else np.array(a, copy=True)


@st.composite
def sizes(draw: st.DrawFn, min_rank: int = 1, max_rank: int = 8) -> tuple[int, ...]:
    rank = draw(st.integers(min_rank, max_rank))
    return tuple(draw(st.lists(st.integers(1, MAX_SIZE[rank]), min_size=rank, max_size=rank)))


@st.composite
def strides_for(draw: st.DrawFn, sizes: tuple[int, ...], *, output: bool = False) -> tuple[int, ...]:
    """Element strides for ``sizes``: packed (NCHW), channels-last (NHWC and its other ranks),
    transposed (any memory order), padded; for inputs also broadcast and arbitrary (overlapping)
    strides. Outputs never share slots, since the operators refuse those."""
    rank = len(sizes)
    kinds = ["packed", "channels-last", "transposed", "padded"]
    if not output:
        kinds += ["broadcast", "arbitrary"]
    kind = draw(st.sampled_from(kinds))
    order: Sequence[int] = range(rank)
    if kind == "channels-last" and rank >= 3:
        order = (0, *range(2, rank), 1)
    elif kind in ("transposed", "padded", "broadcast"):
        order = draw(st.permutations(range(rank)))
    if kind == "arbitrary":
        return tuple(draw(st.integers(0, 7)) for _ in sizes)
    padding = {i: draw(st.integers(0, 3)) for i in order[1:]} if kind == "padded" else None
    broadcast = [draw(st.booleans()) for _ in sizes] if kind == "broadcast" else None
    return layout_strides(order, sizes, broadcast, padding)


@st.composite
def descs(draw: st.DrawFn, data_type: str, sizes: tuple[int, ...], *, output: bool = False) -> TensorDesc:
    """A description of ``sizes``, sometimes with a buffer larger than it needs."""
    strides = draw(strides_for(sizes, output=output))
    extra = 4 * draw(st.sampled_from([0, 0, 1, 3]))
    desc = TensorDesc(data_type, sizes, strides)
    return TensorDesc(data_type, sizes, strides, desc.required_size + extra)


def random_values(rng: np.random.Generator, data_type: str, count: int) -> np.ndarray:
    """``count`` values of ``data_type``: integers over their whole range (so sums wrap), floats of
    a few units with fractions (so float16 sums round)."""
    dtype = TensorDesc(data_type, (1,)).dtype.numpy_dtype
    if dtype.kind in "ui":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=count, endpoint=True, dtype=dtype)
    return (rng.standard_normal(count) * 8).astype(dtype)


def poisoned(desc: TensorDesc) -> np.ndarray:
    """A full buffer for ``desc`` holding a sentinel everywhere (NaN for floats, the largest value
    for integers), so that a slot written by mistake shows."""
    dtype = desc.dtype.numpy_dtype
    value = np.nan if dtype.kind == "f" else np.iinfo(dtype).max
    return np.full(desc.slot_count, value, dtype=dtype)


def tensor_on(xp: Any, desc: TensorDesc, buffer: np.ndarray) -> StridedTensor:
    """A StridedTensor over a copy of ``buffer`` in array module ``xp``."""
    return StridedTensor(desc, xp.asarray(buffer.copy()))


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal byte for byte (NaN sentinels and the sign of zero included)."""
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def refused(call: Callable[[], object], *fragments: str, error: type[Exception] = LayoutError) -> None:
    """``call()`` raises ``error`` with every one of ``fragments`` in its message (for the rules:
    the field, the value and the rule broken)."""
    with pytest.raises(error) as info:
        call()
    for fragment in fragments:
        assert fragment in str(info.value), (fragment, str(info.value))


def forbid_work(monkeypatch: Any) -> None:
    """Make any allocation of a result or any backend call by an operator fail the test: for the
    validation tests, which expect an error before either happens."""

    def forbidden(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the operator allocated a result or called a backend before its checks were done")

    monkeypatch.setattr(importlib.import_module("stridelab.ops._engine"), "execute", forbidden)


def operator_input(
    xp: Any, desc: TensorDesc, buffer: np.ndarray, flips: Sequence[bool] | None
) -> tuple[Any, TensorDesc, np.ndarray]:
    """``x`` as handed to an operator, with the description and buffer the reference reads for it.

    Without ``flips``: a StridedTensor over a copy of ``buffer``. With them: a plain array viewing
    that tensor with the flagged axes reversed (negative strides, nothing copied), whose reference
    input is a packed copy of the same logical values.
    """
    tensor = tensor_on(xp, desc, buffer)
    if flips is None:
        return tensor, desc, buffer
    axes = tuple(i for i, flip in enumerate(flips) if flip)
    logical = np.flip(StridedTensor(desc, buffer).view(), axes)
    return xp.flip(tensor.view(), axes), TensorDesc(desc.data_type, desc.sizes), logical.reshape(-1).copy()


def flips_for(rank: int) -> st.SearchStrategy[tuple[bool, ...] | None]:
    """None (pass a StridedTensor) or which axes of an array input to reverse."""
    return st.none() | st.tuples(*[st.booleans()] * rank)


@st.composite
def scan_cases(draw: st.DrawFn, data_types: Sequence[str]) -> tuple:
    """A scan call: (x description, out description, in place, flips of an array input, axis,
    decreasing, exclusive, seed of the values)."""
    data_type = draw(st.sampled_from(data_types))
    shape = draw(sizes())
    x_desc = draw(descs(data_type, shape))
    in_place = draw(st.booleans()) and not (x_desc.is_broadcast or x_desc.is_overlapping)
    out_desc = x_desc if in_place else draw(descs(data_type, shape, output=True))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    flips = None if in_place else draw(flips_for(len(shape)))
    decreasing, exclusive, seed = draw(st.booleans()), draw(st.booleans()), draw(st.integers(0, 2**32 - 1))
    return x_desc, out_desc, in_place, flips, axis, decreasing, exclusive, seed
