"""The cases ``benchmarks/access.py`` measures, and their operands rebuilt on the CPU.

A case is one kernel call on a strided input of about 16 MiB (4 Mi float32 or 8 Mi float16
elements; a few small, odd sizes give edge tiles and partial warps): either ``copy``, a CuPy
``ElementwiseKernel`` that copies a strided view into a new packed array, one thread per logical
element, or one of stridelab's operators. Each input is a NumPy-style view made by ``view``:
storage of some shape, indexed (slices, steps, reversals), then transposed or broadcast.
"""

from __future__ import annotations

from collections.abc import Callable
from math import prod
from typing import Any, NamedTuple

import numpy as np

SHAPES = {"FLOAT32": (16, 64, 64, 64), "FLOAT16": (32, 64, 64, 64)}  # 16 MiB each
ODD = (3, 5, 7, 11)  # 1155 elements: partial warps, edge tiles
DTYPES = {"FLOAT32": np.float32, "FLOAT16": np.float16}


class Case(NamedTuple):
    """``operator``: ``copy`` (the element-wise kernel) or a stridelab function's name;
    ``x(xp, dtype)``: the input view; ``params``: the operator's keyword arguments; ``out``: the
    layout of a given ``out`` (``NCHW`` or ``NHWC``), None for a new result."""

    name: str
    operator: str
    data_type: str
    x: Callable[[Any, Any], Any]
    params: dict[str, Any]
    out: str | None = None


def view(storage, index=(), transpose=None, broadcast=None) -> Callable[[Any, Any], Any]:
    """A builder of ``xp.arange(...).reshape(storage)[index]``, then transposed or broadcast."""

    def build(xp: Any, dtype: Any) -> Any:
        a = (xp.arange(prod(storage), dtype=np.int32) % 7).astype(dtype).reshape(storage)[index]
        if transpose is not None:
            a = a.transpose(transpose)
        return a if broadcast is None else xp.broadcast_to(a, broadcast)

    return build


def _layouts(s: tuple[int, ...]) -> dict[str, Callable]:
    """The input layouts of logical shape ``s`` (N, C, H, W) every copy case reads."""
    n, c, h, w = s
    return {
        "packed": view(s),
        "NHWC read as NCHW": view((n, h, w, c), transpose=(0, 3, 1, 2)),
        "NCHW read as NHWC": view(s, transpose=(0, 2, 3, 1)),
        "padded rows (W+4)": view((n, c, h, w + 4), np.s_[..., :w]),
        "broadcast C (stride 0)": view((n, 1, h, w), broadcast=s),
        "W step 2": view((n, c, h, 2 * w), np.s_[..., ::2]),
        "H step 3": view((n, c, 3 * h, w), np.s_[:, :, ::3]),
        "W reversed": view(s, np.s_[..., ::-1]),
        "all axes reversed": view(s, np.s_[::-1, ::-1, ::-1, ::-1]),
        "size-1 dims": view((1, n * c, 1, h * w)),
        "size-1 dims, transposed": view((1, h * w, 1, n * c), transpose=(0, 3, 2, 1)),
    }


def _odd_layouts() -> dict[str, Callable]:
    n, c, h, w = ODD
    return {
        "odd packed": view(ODD),
        "odd NHWC read as NCHW": view((n, h, w, c), transpose=(0, 3, 1, 2)),
        "odd W step 3": view((n, c, h, 3 * w), np.s_[..., ::3]),
        "odd, from element 1": view((n, c, h, w + 1), np.s_[..., 1:]),
    }


def _copies(dt: str) -> list[Case]:
    layouts = {**_layouts(SHAPES[dt]), **_odd_layouts()}
    return [Case(name, "copy", dt, x, {}) for name, x in layouts.items()]


def _identities(dt: str) -> list[Case]:
    layouts = _layouts(SHAPES[dt])
    cases = [Case("NCHW -> NHWC", "element_wise_identity", dt, layouts["packed"], {}, "NHWC")]
    for name in ("NHWC read as NCHW", "packed", "padded rows (W+4)", "broadcast C (stride 0)", "W reversed"):
        cases.append(Case(f"{name} -> NCHW", "element_wise_identity", dt, layouts[name], {}, "NCHW"))
    cases.append(Case("odd NCHW -> NHWC", "element_wise_identity", dt, view(ODD), {}, "NHWC"))
    return cases


def _window(s, offsets=(0, 0, 0, 0), sizes=None, strides=(1, 1, 1, 1)) -> dict[str, Any]:
    return {"window_offsets": list(offsets), "window_sizes": list(sizes or s), "window_strides": list(strides)}


def _slices(dt: str) -> list[Case]:
    s = SHAPES[dt]
    n, c, h, w = s
    packed, nhwc = view(s), view((n, h, w, c), transpose=(0, 3, 1, 2))
    return [
        Case("W step 2", "slice1", dt, packed, _window(s, strides=(1, 1, 1, 2))),
        Case("H step 3", "slice1", dt, packed, _window(s, strides=(1, 1, 3, 1))),
        Case("W reversed", "slice1", dt, packed, _window(s, strides=(1, 1, 1, -1))),
        Case("window from (0,0,1,1)", "slice1", dt, packed, _window(s, (0, 0, 1, 1), (n, c, h - 2, w - 3))),
        Case("size-1 window along H", "slice1", dt, packed, _window(s, (0, 0, 5, 0), (n, c, 1, w))),
        Case("NHWC input, C step 2", "slice1", dt, nhwc, _window(s, strides=(1, 2, 1, 1))),
        Case("odd, H step 2, W reversed", "slice1", dt, view(ODD), _window(ODD, strides=(1, 1, 2, -1))),
    ]


def _scan(axis: int, direction: str = "increasing", exclusive: bool = False) -> dict[str, Any]:
    return {"axis": axis, "direction": direction, "exclusive": exclusive}


def _scans(dt: str) -> list[Case]:
    s = SHAPES[dt]
    n, c, h, w = s
    inputs = {"NCHW": view(s), "NHWC": view((n, h, w, c), transpose=(0, 3, 1, 2))}
    long = prod(s) // 4  # four long rows, or 64 long columns: too little parallel work for one pass
    cases = [
        Case(f"{layout} along {'NCHW'[axis]}", "cumulative_summation", dt, x, _scan(axis))
        for layout, x in inputs.items()
        for axis in range(4)
    ]
    cases += [
        Case("4 long rows along W", "cumulative_summation", dt, view((1, 1, 4, long)), _scan(3)),
        Case("64 long columns along H", "cumulative_summation", dt, view((1, 1, 4 * long // 64, 64)), _scan(2)),
    ]
    if dt == "FLOAT32":
        cases += [
            Case("NCHW along W, decreasing", "cumulative_summation", dt, inputs["NCHW"], _scan(3, "decreasing")),
            Case("NHWC along C, exclusive", "cumulative_summation", dt, inputs["NHWC"], _scan(1, exclusive=True)),
            Case("odd along W", "cumulative_summation", dt, view(ODD), _scan(3)),
        ]  # fmt: skip
    else:
        cases.append(Case("NCHW along H", "cumulative_product", dt, inputs["NCHW"], _scan(2)))
    return cases


def all_cases() -> list[Case]:
    """Every case, in the order they are launched (and so profiled)."""
    cases: list[Case] = []
    for dt in DTYPES:
        cases += _copies(dt) + _identities(dt) + _slices(dt) + _scans(dt)
    return cases


def cpu_array(operand: dict[str, Any]) -> np.ndarray:
    """A NumPy array of a recorded operand's data type, sizes and signed element strides (its
    values uninitialised: only its layout matters)."""
    dtype = np.dtype(DTYPES[operand["data_type"]])
    sizes, strides = operand["sizes"], operand["strides"]
    lowest = sum((n - 1) * st for n, st in zip(sizes, strides) if st < 0)
    span = 1 + sum((n - 1) * abs(st) for n, st in zip(sizes, strides))
    buffer = np.empty(span, dtype)
    start = buffer[-lowest:]
    byte_strides = [st * dtype.itemsize for st in strides]
    return np.lib.stride_tricks.as_strided(start, sizes, byte_strides, writeable=False)


def cpu_out(operand: dict[str, Any] | None) -> Any:
    """A recorded ``out`` as a StridedTensor over a NumPy buffer, or None (a new result)."""
    if operand is None or operand.get("allocated"):
        return None
    import stridelab as sl

    desc = sl.TensorDesc(operand["data_type"], operand["sizes"], operand["strides"])
    return sl.StridedTensor(desc, np.empty(desc.slot_count, DTYPES[operand["data_type"]]))
