"""Inputs that stridelab makes itself: small whole numbers, held exactly by every data type, in a shape
that the sanitizer may shrink to find the smallest failing case.

internal: :func:`stridelab.testing.generated` makes them; :func:`stridelab.check_layouts` takes them.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from .._arrays import is_torch
from .._validate import shown
from ..errors import LayoutError
from ._buffers import packed_copy
from ._catalogue import MAX_ELEMENTS

__all__: list[str] = []


@dataclass(frozen=True)
class Generated:
    """An input of ``shape`` and ``dtype`` whose values stridelab chooses: whole numbers from 0 to
    6 (from -3 to 3 where signed; 0 and 1 for bool), made as arrays of ``like``'s kind.

    Sums of such numbers are exact in every float type, so a sum's answer is the same in every
    layout, and the float tolerance, which grows with the largest value, stays tiny; and since
    stridelab knows how to make them in any shape,
    :func:`stridelab.check_layouts` shrinks a failing case to the smallest shape that still fails.

    >>> Generated((2, 4), np.dtype("int8"), np).values().tolist()
    [[-3, -2, -1, 0], [1, 2, 3, -3]]
    """

    shape: tuple[int, ...]
    dtype: np.dtype
    like: Any

    def values(self) -> np.ndarray:
        """The host values: ``index % 7``, shifted to be centred on 0 for signed types."""
        values = np.arange(int(np.prod(self.shape, dtype=np.int64)), dtype=np.int64).reshape(self.shape) % 7
        if self.dtype.kind == "b":
            return (values % 2).astype(self.dtype)
        return (values - 3 if self.dtype.kind in "ifc" else values).astype(self.dtype)

    def array(self) -> Any:
        """The values as a packed array of ``like``'s kind."""
        return packed_copy(self.values(), self.like)

    def resized(self, shape: tuple[int, ...]) -> Generated:
        """The same kind of input in another ``shape``."""
        return Generated(shape, self.dtype, self.like)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled with the module's name (a module cannot be pickled), for ``isolate=True``."""
        like = self.like.__name__ if isinstance(self.like, ModuleType) else self.like
        return (_unpickle, (self.shape, self.dtype, like))


def _unpickle(shape: tuple[int, ...], dtype: np.dtype, like: Any) -> Generated:
    return Generated(shape, dtype, importlib.import_module(like) if isinstance(like, str) else like)


def generated(shape: Sequence[int], dtype: Any = "float32", like: Any = np) -> Generated:
    """An input for :func:`stridelab.check_layouts` whose values stridelab makes: small whole
    numbers of ``shape`` and ``dtype`` (a NumPy data type), as arrays of ``like`` (the ``numpy``
    or ``cupy`` module, or a torch tensor whose device and dtype are used).

    Float answers are then compared within a tiny bound, and a failing layout is shrunk to the
    smallest shape that still fails it (:attr:`~stridelab.testing.LayoutCheck.smallest`).

    >>> from stridelab.testing import check_layouts, generated
    >>> check_layouts(lambda x: x.sum(axis=1), generated((2, 3))).ok
    True
    """
    if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence):
        raise TypeError(f"shape must be a sequence of ints, not {shown(shape)}")
    sizes = []
    for n in shape:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise TypeError(f"shape has {shown(n)}, which is no int")
        if n < 0:
            raise LayoutError(f"shape = {shown(list(shape))} has a negative size; sizes are at least 0")
        sizes.append(int(n))
    if int(np.prod(sizes, dtype=object)) > MAX_ELEMENTS:
        raise LayoutError(f"shape = {shown(sizes)} has more than {MAX_ELEMENTS} elements, the most check_layouts makes")
    try:
        kind = np.dtype(dtype)
    except TypeError as error:
        raise TypeError(f"dtype = {shown(dtype)} is no NumPy data type") from error
    if kind.kind not in "biufc":
        raise LayoutError(f"dtype = {kind} is no number type (bool, int, uint, float or complex)")
    if is_torch(like):
        if str(like.dtype).removeprefix("torch.") != kind.name:
            raise LayoutError(f"dtype = {kind} differs from the torch tensor's {like.dtype}; give the same type")
    elif not (isinstance(like, ModuleType) and like.__name__ in ("numpy", "cupy")):
        raise TypeError(f"like must be the numpy or cupy module or a torch tensor, not {shown(like)}")
    return Generated(tuple(sizes), kind, like)
