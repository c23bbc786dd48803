"""The types the operators take and give, for type checkers.

An operator takes a StridedTensor, a NumPy array or a CuPy array (CuPy carries no type information,
so its arrays are ``Any``), and gives ``out`` where one is given, else a new result of the input's
kind: an array of the input's dtype for an array, a StridedTensor for a StridedTensor.
"""

from __future__ import annotations

from typing import Any, TypeVar, Union

import numpy as np
import numpy.typing as npt

from ..tensor import StridedTensor

__all__ = ["Input", "Scalar"]

#: The element type of a NumPy array, kept from input to result.
Scalar = TypeVar("Scalar", bound=np.generic)

#: What any operator reads: a StridedTensor or a NumPy array (or, as ``Any``, a CuPy array).
Input = Union[StridedTensor, npt.NDArray[Any]]  # noqa: UP007 (a runtime alias)
