"""``strided_arrays``: a hypothesis strategy of arrays in random exact layouts over poisoned buffers.

hypothesis's own array strategies draw packed arrays only; this one draws the logical values
with them and then a layout (memory order, padding, a step, negative strides, a storage offset,
odd strides on size-1 dimensions), built by :func:`._buffers.place` over a buffer whose other
slots hold poison. Every choice is drawn so that its smallest value is the packed one, so hypothesis
shrinks a failing example towards the packed layout.

internal: :mod:`stridelab.testing` exports it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from .._arrays import TORCH_DTYPES, is_torch
from .._validate import int_tuple, layout_error, shown, wrong_type
from ..backend import is_cupy_array
from ._buffers import fills, place
from ._catalogue import ProbeLayout

__all__: list[str] = []

MAX_ELEMENTS = 1 << 20  # the buffer holds margins of twice the elements on each side
MAX_PAD = 3  # slots of padding after a dimension's run
MAX_STEP = 3  # the innermost stride, in elements
MAX_OFFSET = 5  # slots before the lowest element
DTYPES = tuple(np.dtype(name) for name in TORCH_DTYPES)
_XP = "the numpy, cupy or torch module, or an array or tensor of one (for its device)"


def _dtype(dtype: Any) -> np.dtype:
    if dtype is None or isinstance(dtype, bool):
        raise wrong_type("dtype", "a NumPy data type (np.float32, 'int16', ...)", dtype)
    try:
        found = np.dtype(dtype)
    except TypeError:
        raise wrong_type("dtype", "a NumPy data type (np.float32, 'int16', ...)", dtype) from None
    if found not in DTYPES:
        names = ", ".join(d.name for d in DTYPES)
        raise layout_error("dtype", dtype, f"it must be one of {names}, in native byte order")
    return found


def shape_of(value: Any) -> tuple[int, ...]:
    """``value`` as a shape that strided_arrays draws: at most 8 sizes of at least 0, at most
    2**20 elements; TypeError or LayoutError naming ``shape`` otherwise."""
    sizes = int_tuple("shape", value)
    for i, n in enumerate(sizes):
        if n < 0:
            raise layout_error(f"shape[{i}]", n, "a size must be at least 0")
    count = int(np.prod(sizes, dtype=object))
    if count > MAX_ELEMENTS:
        raise layout_error("shape", value, f"it has {count} elements; strided_arrays draws at most {MAX_ELEMENTS}")
    return sizes


def _like(xp: Any, dtype: np.dtype) -> Any:
    """What :func:`._buffers.place` builds arrays like, for ``xp`` and ``dtype``."""
    name = xp.__name__ if isinstance(xp, ModuleType) else None
    if xp is np or isinstance(xp, np.ndarray):
        return np
    if name == "cupy":
        return xp.empty(0, dtype=dtype)
    if is_cupy_array(xp):
        return xp
    if name == "torch":
        return xp.empty(0, dtype=_torch_dtype(xp, dtype))
    if is_torch(xp):
        return xp.new_full((0,), 0, dtype=_torch_dtype(sys.modules["torch"], dtype))
    raise wrong_type("xp", _XP, xp)


def _torch_dtype(torch: ModuleType, dtype: np.dtype) -> Any:
    found = getattr(torch, dtype.name, None)
    if found is None:
        raise layout_error("dtype", dtype.name, f"this torch ({getattr(torch, '__version__', '?')}) has no such dtype")
    return found


def drawn_layout(sizes: tuple[int, ...], draw: Callable[[Any], Any], st: ModuleType, negative: bool) -> ProbeLayout:
    """A layout of ``sizes`` drawn with ``draw`` from hypothesis's strategies ``st``; every draw at
    its smallest (0 or False) gives the packed row-major layout at offset 0."""
    rank = len(sizes)
    remaining, order = list(range(rank)), []
    for _ in range(rank):  # a Lehmer code: all zeros is the identity order
        order.append(remaining.pop(draw(st.integers(0, len(remaining) - 1))))
    pads = {axis: draw(st.integers(0, MAX_PAD)) for axis in order[1:]}
    step = draw(st.integers(1, MAX_STEP))
    strides, span = [0] * rank, step
    for axis in reversed(order):
        strides[axis] = span
        span = span * sizes[axis] + pads.get(axis, 0)
    odd = []
    for axis in range(rank):
        if sizes[axis] == 1 and draw(st.booleans()):
            strides[axis] = draw(st.integers(0, 2 * span + 1))
            odd.append(axis)
        elif sizes[axis] > 1 and negative and draw(st.booleans()):
            strides[axis] = -strides[axis]
    storage = draw(st.integers(0, MAX_OFFSET))
    words = _words(order, pads, step, strides, odd, storage)
    return ProbeLayout(sizes, tuple(strides), storage + _before(sizes, strides), "custom", words)


def _before(sizes: tuple[int, ...], strides: list[int]) -> int:
    """The slots that negative strides reach before coordinate 0."""
    return sum((n - 1) * -s for n, s in zip(sizes, strides) if s < 0)


def _words(order: list[int], pads: dict[int, int], step: int, strides: list[int], odd: list[int], storage: int) -> str:
    parts = [f"memory order {','.join(map(str, order))} (outermost first)"]
    parts += [f"{pad} slots of padding after dimension {axis}" for axis, pad in pads.items() if pad]
    parts += [f"every {step}{'nd' if step == 2 else 'rd'} element"] if step > 1 else []
    parts += [f"negative stride along dimension {i}" for i, s in enumerate(strides) if s < 0]
    parts += [f"size-1 dimension {i} with stride {strides[i]}" for i in odd]
    parts += [f"storage offset {storage}"] if storage else []
    return "; ".join(parts)


def strided_arrays(shape: Any, dtype: Any, xp: Any = np, elements: Any = None) -> Any:
    """A hypothesis strategy of arrays of ``shape`` and ``dtype`` in random exact layouts, over
    buffers whose other slots (padding, gaps, margins) hold poison.

    ``shape``: a tuple of sizes, or a hypothesis strategy of such tuples; ``dtype``: a NumPy data
    type of float16/32/64 or (u)int8..64; ``xp``: the numpy, cupy or torch module, or an array or
    tensor of one (arrays are built on its device; torch draws no negative strides); ``elements``: a
    strategy of the values, passed to ``hypothesis.extra.numpy.arrays``. A failing example shrinks
    towards the packed layout, and its layout is shown in hypothesis's notes. Needs hypothesis.

    >>> import numpy as np
    >>> from hypothesis import given
    >>> from stridelab.testing import strided_arrays
    >>> @given(strided_arrays((2, 3), np.int16))
    ... def test_row_sums(x):
    ...     assert np.array_equal(x.sum(axis=1), np.ascontiguousarray(x).sum(axis=1))
    >>> test_row_sums()
    """
    try:
        import hypothesis
        from hypothesis import strategies as st
        from hypothesis.extra import numpy as hnp
    except ModuleNotFoundError as error:
        raise ImportError(
            "strided_arrays needs hypothesis, which is not installed: pip install hypothesis", name="hypothesis"
        ) from error
    found = _dtype(dtype)
    like = _like(xp, found)
    sizes = shape if isinstance(shape, st.SearchStrategy) else st.just(shape_of(shape))
    if elements is not None and not isinstance(elements, st.SearchStrategy):
        raise wrong_type("elements", "a hypothesis strategy or None", elements)
    negative = not is_torch(like)

    @st.composite
    def draw_array(draw: Any) -> Any:
        drawn = shape_of(draw(sizes))
        values = draw(hnp.arrays(found, drawn, elements=elements))
        layout = drawn_layout(drawn, draw, st, negative)
        poison = fills(found)[0][draw(st.integers(0, 1))]
        _note(hypothesis, f"strided_arrays drew {layout}: {layout.words}; poison {shown(poison)}")
        return place(layout, values, like, poison).array

    return draw_array()


def _note(hypothesis: ModuleType, text: str) -> None:
    try:
        hypothesis.note(text)
    except hypothesis.errors.InvalidArgument:  # drawn outside a test (``.example()``): nothing to note on
        pass
