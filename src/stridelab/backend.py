"""Which array module a buffer lives in: numpy on the CPU, cupy on an NVIDIA GPU.

There is no global backend switch: the operator runs where its input lives. CuPy is never
imported to ask the question (an object can only be a cupy array if cupy is already imported),
so the NumPy path works, and stays fast to import, where CuPy is absent.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

import numpy as np

__all__ = ["array_module", "is_cupy_array", "location"]


def is_cupy_array(obj: Any) -> bool:
    """True for a ``cupy.ndarray``, without importing cupy."""
    cupy = sys.modules.get("cupy")
    return cupy is not None and isinstance(obj, cupy.ndarray)


def array_module(obj: Any) -> ModuleType:
    """``numpy`` for a numpy array, ``cupy`` for a cupy array; TypeError for anything else."""
    if isinstance(obj, np.ndarray):
        return np
    if is_cupy_array(obj):
        return sys.modules["cupy"]
    raise TypeError(f"expected a numpy or cupy array, not {type(obj).__name__}")


def location(obj: Any) -> str:
    """``"numpy (CPU)"`` or ``"cupy (GPU)"``: where a buffer lives, for error messages."""
    return "cupy (GPU)" if is_cupy_array(obj) else "numpy (CPU)"
