"""Which of stridelab's files one operator call enters, in order: a file is entered when a function
in it is called from another file. The first call of a signature plans it (the engine's named
steps, each a visit); a call whose plan is cached should enter each file once.

Usage: python scripts/trace_call.py
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import numpy as np

import stridelab as sl

ROOT = os.path.dirname(sl.__file__)


def entries(call: Callable[[], object]) -> list[str]:
    """``file:function`` for each call into a stridelab file from another file, in order."""
    found: list[str] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        code = frame.f_code
        if event != "call" or not code.co_filename.startswith(ROOT):
            return
        caller = frame.f_back.f_code.co_filename if frame.f_back else ""
        if caller != code.co_filename:
            found.append(f"{os.path.relpath(code.co_filename, ROOT)}:{code.co_name}")

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return found


def report(label: str, found: list[str]) -> None:
    files = [entry.split(":")[0] for entry in found]
    again = sorted({file for file in files if files.count(file) > 1})
    print(f"{label}: {len(found)} entries into {len(set(files))} files; entered more than once: {again or 'none'}")
    print("   " + " -> ".join(found))


def main() -> None:
    sl.cumulative_summation(np.zeros(3, np.float32), 0)  # imports the operators
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    report("cumulative_summation, planning call", entries(lambda: sl.cumulative_summation(x, 1)))
    report("cumulative_summation, planned call", entries(lambda: sl.cumulative_summation(x, 1)))


if __name__ == "__main__":
    main()
