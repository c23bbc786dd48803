"""SliceExplorer: DML_SLICE1's input window drawn over the input, the copy order, the output.

internal: ``SliceExplorer`` is public as ``stridelab.SliceExplorer``.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validate import known_keywords
from ..memmap import DEFAULT_LIMIT
from ._controls import label, row, slider
from ._operator import OperatorExplorer, as_tensor, input_sizes

__all__: list[str] = []


def max_copied_elements(window_sizes: Sequence[int], window_strides: Sequence[int]) -> list[int]:
    """``1 + (size - 1) // |stride|`` per dimension: the most elements a window yields."""
    return [1 + (n - 1) // abs(s) for n, s in zip(window_sizes, window_strides)]


def copy_order(
    coords: np.ndarray,
    window_offsets: Sequence[int],
    window_sizes: Sequence[int],
    window_strides: Sequence[int],
    output_sizes: Sequence[int],
) -> np.ndarray:
    """For each row of input ``coords``, the row-major index of the output element SLICE1 copies
    it to, or -1 where it copies it nowhere.

    The page's rule: output coordinate ``o`` is read from input coordinate
    ``CopyStart + InputWindowStrides * o``, where ``CopyStart`` is the window offset, moved to the
    window's end in dimensions with a negative stride. Computed for the given coordinates only
    (the drawn cells), and on logical coordinates, so elements that share a slot (broadcast or
    overlapping inputs) are told apart.

    >>> # the page's example 2 in two dimensions: rows from the window's end (row 3) backwards
    >>> copy_order([[3, 1], [3, 3], [1, 1], [0, 0]], (0, 1), (4, 3), (-2, 2), (2, 2)).tolist()
    [0, 1, 2, -1]
    """
    coords = np.asarray(coords, dtype=np.int64).reshape(-1, len(output_sizes))
    strides = np.asarray(window_strides, dtype=np.int64)
    start = np.asarray(window_offsets, dtype=np.int64) + np.where(strides < 0, np.asarray(window_sizes) - 1, 0)
    steps, rest = np.divmod(coords - start, strides)
    copied = np.all((rest == 0) & (steps >= 0) & (steps < np.asarray(output_sizes)), axis=1)
    order = np.full(len(coords), -1, dtype=np.int64)
    if copied.any():
        order[copied] = np.ravel_multi_index(tuple(steps[copied].T), tuple(output_sizes))
    return order


def checked_window(
    x: Any, offsets: Any, extents: Any, steps: Any
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """The window as tuples of ints, refused as :func:`stridelab.slice1` refuses it: the operator
    itself checks it on ``x``, planning (not running) a copy of one element."""
    from ..ops._engine import plan

    rank = len(input_sizes(x))
    plan(
        "SLICE1",
        x,
        parameters_only=True,
        window_offsets=offsets,
        window_sizes=extents,
        window_strides=steps,
        output_sizes=(1,) * rank,
    )
    checked = [tuple(operator.index(v) for v in values) for values in (offsets, extents, steps)]
    return checked[0], checked[1], checked[2]


class _Fixed:
    """The window parameter of a size-1 dimension: a value, no control."""

    __slots__ = ("value",)

    def __init__(self, value: int) -> None:
        self.value = value


class SliceExplorer(OperatorExplorer):
    """Run :func:`stridelab.slice1` on ``x`` under controls for the window, and show the result.

    Per dimension, sliders set the window offset, size and (signed) stride (size-1 dimensions,
    which have one window, get none: ``offset_sliders[i]`` and its kin then hold just a
    ``value``). The input map
    outlines the window, dims what lies outside it and numbers the copied elements in copy order
    (the output's row-major order); the output map is beside it, and pointing at an output cell
    lights the input element and slot it came from. The status line gives ``MaxCopiedElements``;
    a window the operator refuses is explained inline. The operator runs where ``x`` lives
    (on the GPU for a cupy array).

    Parameters
    ----------
    x : numpy or cupy array, or StridedTensor
        Read as the operator reads it. An array with negative strides (``a[::-1]``) is drawn from a
        packed copy of its values, since no DirectML buffer description has negative strides.
    window_offsets, window_sizes, window_strides : sequence of int, optional
        Initial window (default: the whole input, stride 1). A window :func:`stridelab.slice1`
        refuses is refused here too, with its message (:class:`~stridelab.LayoutError` or
        ``TypeError``); windows the sliders make are explained inline instead.
    max_cells : int
        The most cells each map draws; a larger input is drawn through a window, which the
        explorer places where the operator is at work.
    limit : int
        The most elements a full memory map is built for (beyond, the window's slots are worked
        out from the strides alone).
    scale : float, optional
        Show the maps this many times their size (e.g. 2 on a projector; default: the
        session's, see :func:`stridelab.settings`).

    Examples
    --------
    >>> import numpy as np, stridelab as sl
    >>> x = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> e = sl.SliceExplorer(x, window_offsets=(0, 0, 0, 1), window_sizes=(1, 1, 4, 3),
    ...                      window_strides=(1, 1, -2, 2))
    >>> e.output.to_array().tolist()
    [[[[14.0, 16.0], [6.0, 8.0]]]]
    """

    @known_keywords
    def __init__(
        self,
        x: Any,
        window_offsets: Sequence[int] | None = None,
        window_sizes: Sequence[int] | None = None,
        window_strides: Sequence[int] | None = None,
        *,
        max_cells: int = 256,
        limit: int = DEFAULT_LIMIT,
        scale: float | None = None,
    ) -> None:
        sizes = input_sizes(x)
        rank = len(sizes)
        offsets, extents, steps = checked_window(
            x,
            (0,) * rank if window_offsets is None else window_offsets,
            sizes if window_sizes is None else window_sizes,
            (1,) * rank if window_strides is None else window_strides,
        )
        self.offset_sliders, self.size_sliders, self.stride_sliders = [], [], []
        rows, fixed = [], []
        for i, n in enumerate(sizes):
            if n == 1:
                # a size-1 dimension has one valid window: no sliders (fewer widgets to store)
                self.offset_sliders.append(_Fixed(0))
                self.size_sliders.append(_Fixed(1))
                self.stride_sliders.append(_Fixed(steps[i]))
                fixed.append(i)
                continue
            offset = slider("offset", offsets[i], 0, n - 1)
            size = slider("size", extents[i], 1, n)
            stride = slider("stride", steps[i], min(-n, steps[i]), max(n, steps[i]))
            for control, cls in ((offset, "offset"), (size, "size"), (stride, "stride")):
                control.add_class(f"stridelab-window-{cls}")
                control.observe(self._update, "value")
            self.offset_sliders.append(offset)
            self.size_sliders.append(size)
            self.stride_sliders.append(stride)
            rows.append(row([offset, size, stride], f"dim {i} (size {n})"))
        if fixed:
            names = ", ".join(map(str, fixed))
            rows.insert(0, label(f"dim {names} (size 1): window offset 0, size 1"))
        self._start(x, rows, max_cells, scale, limit)

    @property
    def window_offsets(self) -> tuple[int, ...]:
        return tuple(s.value for s in self.offset_sliders)

    @property
    def window_sizes(self) -> tuple[int, ...]:
        return tuple(s.value for s in self.size_sliders)

    @property
    def window_strides(self) -> tuple[int, ...]:
        return tuple(s.value for s in self.stride_sliders)

    def _call(self) -> str:
        return (
            f"sl.slice1(x, window_offsets={list(self.window_offsets)}, window_sizes={list(self.window_sizes)}, "
            f"window_strides={list(self.window_strides)})"
        )

    def _run(self) -> str:
        from .. import slice1

        output = as_tensor(slice1(self.x, self.window_offsets, self.window_sizes, self.window_strides))
        self.output = output
        self._draw()
        limits = max_copied_elements(self.window_sizes, self.window_strides)
        return (
            f"MaxCopiedElements {limits} · output sizes {list(output.desc.sizes)} · "
            f"{output.desc.element_count} of {self.input.desc.element_count} elements copied"
        )

    def _draw(self) -> None:
        """Both maps; input cells keyed and numbered by the output element they are copied to."""
        # a large input is drawn from the window's corner, so the elements copied are in view
        output = self.output
        assert output is not None, "drawn only after a valid slice"
        start = self.window_offsets if self.input.desc.element_count > self._max_cells else None
        scene_in, scene_out = self.scene(self.input, start), self.scene(output)
        coords = scene_in.cell_coords
        window = (self.window_offsets, self.window_sizes, self.window_strides)
        keys_in = copy_order(coords, *window, output.desc.sizes)
        badges = [str(k) if k >= 0 else "" for k in keys_in.tolist()]
        self.view.show([scene_in, scene_out], ["input", "output"], [keys_in, None], [badges, None])
        lo, hi = np.asarray(self.window_offsets), np.asarray(self.window_offsets) + np.asarray(self.window_sizes)
        inside = np.all((coords >= lo) & (coords < hi), axis=1)
        read = np.unique(scene_in.cell_slot[keys_in >= 0])
        self.view.marks = [
            {
                "cells": {"window": np.flatnonzero(inside).tolist(), "outside": np.flatnonzero(~inside).tolist()},
                "slots": {"read": read.tolist()},
            },
            {"cells": {}, "slots": {"written": np.unique(scene_out.cell_slot).tolist()}},
        ]

    def __repr__(self) -> str:
        return (
            f"SliceExplorer({self.input.desc!r}, window_offsets={self.window_offsets}, "
            f"window_sizes={self.window_sizes}, window_strides={self.window_strides})"
        )
