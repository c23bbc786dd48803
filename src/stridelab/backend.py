"""Which array module a buffer lives in: numpy on the CPU, cupy on an NVIDIA GPU.

There is no global backend switch: the operator runs where its input lives. CuPy is never
imported to ask the question (an object can only be a cupy array if cupy is already imported),
so the NumPy path works, and stays fast to import, where CuPy is absent.

internal: used by the array reader and the operators.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

import numpy as np

from ._validate import wrong_type

__all__: list[str] = []


def is_cupy_array(obj: Any) -> bool:
    """True for a ``cupy.ndarray``, without importing cupy."""
    cupy = sys.modules.get("cupy")
    return cupy is not None and isinstance(obj, cupy.ndarray)


def array_module(obj: Any, field: str = "the argument") -> ModuleType:
    """``numpy`` for a numpy array, ``cupy`` for a cupy array; TypeError naming ``field`` for
    anything else."""
    if isinstance(obj, np.ndarray):
        return np
    if is_cupy_array(obj):
        return sys.modules["cupy"]
    raise wrong_type(field, "a numpy or cupy array", obj)


def location(obj: Any) -> str:
    """``"numpy (CPU)"`` or ``"cupy (GPU)"``: where a buffer lives, for error messages."""
    return "cupy (GPU)" if is_cupy_array(obj) else "numpy (CPU)"
