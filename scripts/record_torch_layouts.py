"""Record what PyTorch itself answers about memory layouts, for stridelab's tests to compare against.

stridelab reimplements PyTorch's layout rules (contiguity, channels-last, the suggested memory
format, the dim order and its ambiguity). This script asks real PyTorch those questions for the
ambiguous cases PyTorch's own tests, comments and issues use (size-1 dimensions, equal strides,
broadcast and sliced strides), and writes the answers to JSON, so the tests can check them without
torch installed.

Every case is given as sizes and element strides only and built with ``torch.empty_strided``, so
the recorded file can be reproduced from the listing below. For each case it records:

``is_contiguous``
    ``tensor.is_contiguous()``.
``channels_last`` / ``channels_last_3d``
    ``tensor.is_contiguous(memory_format=torch.channels_last)`` for 4-D tensors, and the same with
    ``torch.channels_last_3d`` for 5-D tensors; ``null`` for other ranks.
``suggest_memory_format``
    the memory format PyTorch's C++ ``TensorBase::suggest_memory_format()`` picks, as a string such
    as ``"torch.channels_last"``, for every rank. Python tensors have no such method, so it is put
    together the way that C++ function does it, from the C++ flags that
    ``torch.ops.aten.is_strides_like_format`` reads: channels-last if the strides are like
    channels-last, else channels-last-3d if they are like that, else contiguous. The top-level
    ``suggest_memory_format_source`` names what was used, and ``suggest_memory_format_prims_disagrees``
    lists the cases where the Python copy ``torch._prims_common.suggest_memory_format`` answers otherwise.
``dim_order``
    ``list(tensor.dim_order())``.
``dim_order_ambiguous`` / ``dim_order_ambiguity_error``
    whether ``tensor.dim_order(ambiguity_check=True)`` raises, and the name of the exception it
    raises (``null`` when it returns); both ``null`` when this torch has no ``ambiguity_check``.

Usage: python scripts/record_torch_layouts.py [OUTPUT_JSON]   (default: tests/data/torch_layouts.json)
"""

from __future__ import annotations

import inspect
import json
import platform
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = ROOT / "tests" / "data" / "torch_layouts.json"

# (name, sizes, element strides)
CASES: tuple[tuple[str, tuple[int, ...], tuple[int, ...]], ...] = (
    # 4-D, the common layouts
    ("nchw_packed", (2, 3, 4, 5), (60, 20, 5, 1)),
    ("nhwc_channels_last", (2, 3, 4, 5), (60, 1, 15, 3)),
    # 4-D, size-1 dimensions that make the layout ambiguous
    ("n1_channels_last", (1, 3, 4, 5), (60, 1, 15, 3)),
    ("n1_packed", (1, 3, 4, 5), (60, 20, 5, 1)),
    ("c1_packed", (2, 1, 4, 5), (20, 20, 5, 1)),
    ("c1_channels_last", (2, 1, 4, 5), (20, 1, 5, 1)),
    ("hw1_packed", (2, 3, 1, 1), (3, 1, 1, 1)),
    ("hw1_channels_last_like", (2, 3, 1, 1), (3, 1, 3, 3)),
    ("all_ones", (1, 1, 1, 1), (1, 1, 1, 1)),
    ("n111_unit_strides", (4, 1, 1, 1), (1, 1, 1, 1)),
    ("n111_sliced_strides", (4, 1, 1, 1), (5, 5, 5, 5)),
    ("n1h1_c_stride_1", (4, 1, 3, 1), (3, 1, 1, 1)),
    ("n1h1_c_stride_3", (4, 1, 3, 1), (3, 3, 1, 1)),
    ("1c1w_c5_w3", (1, 5, 1, 3), (15, 3, 3, 1)),
    ("1c1w_c3_w5", (1, 3, 1, 5), (15, 1, 3, 3)),
    # 5-D
    ("ncdhw_packed", (2, 3, 4, 5, 6), (360, 120, 30, 6, 1)),
    ("ndhwc_channels_last_3d", (2, 3, 4, 5, 6), (360, 1, 90, 18, 3)),
    ("n1_channels_last_3d", (1, 3, 4, 5, 6), (360, 1, 90, 18, 3)),
    ("n1_ncdhw_packed", (1, 3, 4, 5, 6), (360, 120, 30, 6, 1)),
    # 2-D
    ("2d_transposed", (3, 4), (1, 3)),
    ("2d_packed", (3, 4), (4, 1)),
    # broadcast (stride 0)
    ("broadcast_nc", (2, 3, 4, 5), (0, 0, 5, 1)),
    ("broadcast_c_overlapping_n", (2, 3, 4, 5), (15, 0, 5, 1)),
    ("broadcast_c", (2, 3, 4, 5), (20, 0, 5, 1)),
    # sliced (strided views of a larger tensor)
    ("sliced_packed_hw_step2", (2, 3, 4, 5), (240, 80, 20, 2)),  # (2,3,8,10) packed, [:, :, ::2, ::2]
    ("sliced_channels_last_w_step2", (2, 3, 4, 5), (120, 1, 30, 6)),  # (2,3,4,10) channels-last, [..., ::2]
    # other ranks
    ("3d_channels_last_like", (2, 3, 4), (12, 1, 3)),
    ("1d_packed", (5,), (1,)),
    ("1d_step2", (5,), (2,)),
    # no elements
    ("n0_packed", (0, 3, 4, 5), (60, 20, 5, 1)),
)


def has_ambiguity_check() -> bool:
    """Whether this torch's ``Tensor.dim_order`` takes the ``ambiguity_check`` argument."""
    try:
        return "ambiguity_check" in inspect.signature(torch.Tensor.dim_order).parameters
    except (TypeError, ValueError):
        return False


def suggest_memory_format_source() -> str:
    """Which of PyTorch's answers ``suggest_memory_format`` can use in this torch, best first."""
    if hasattr(torch.Tensor, "suggest_memory_format"):
        return "Tensor.suggest_memory_format"
    try:
        torch.ops.aten.is_strides_like_format(torch.empty(1, 1, 1, 1), torch.channels_last)
    except (AttributeError, RuntimeError):
        return "torch._prims_common.suggest_memory_format"
    return "torch.ops.aten.is_strides_like_format"


def suggest_memory_format(tensor: torch.Tensor, source: str) -> str:
    """The memory format ``TensorBase::suggest_memory_format()`` picks for ``tensor``, as a string."""
    if source == "Tensor.suggest_memory_format":
        return str(tensor.suggest_memory_format())
    if source == "torch.ops.aten.is_strides_like_format":
        # TensorBase::suggest_memory_format(channels_last_strides_exact_match=false), for strided tensors.
        for memory_format in (torch.channels_last, torch.channels_last_3d):
            if torch.ops.aten.is_strides_like_format(tensor, memory_format):
                return str(memory_format)
        return str(torch.contiguous_format)
    return prims_suggest_memory_format(tensor)


def prims_suggest_memory_format(tensor: torch.Tensor) -> str | None:
    """What the Python copy of the rule in ``torch._prims_common`` answers, or None if it is missing."""
    try:
        from torch._prims_common import suggest_memory_format as prims
    except ImportError:
        return None
    return str(prims(tensor))


def record(
    name: str, sizes: tuple[int, ...], strides: tuple[int, ...], ambiguity_check: bool, memory_format_source: str
) -> dict:
    """PyTorch's answers for one (sizes, strides) case."""
    if len(sizes) != len(strides):
        raise ValueError(f"{name}: {len(sizes)} sizes but {len(strides)} strides")
    tensor = torch.empty_strided(sizes, strides, device="cpu")
    assert tuple(tensor.shape) == sizes and tensor.stride() == strides, name

    ambiguous = error = None
    if ambiguity_check:
        try:
            tensor.dim_order(ambiguity_check=True)
            ambiguous = False
        except Exception as exc:
            ambiguous, error = True, type(exc).__name__

    return {
        "name": name,
        "sizes": list(sizes),
        "strides": list(strides),
        "is_contiguous": tensor.is_contiguous(),
        "channels_last": tensor.is_contiguous(memory_format=torch.channels_last) if tensor.dim() == 4 else None,
        "channels_last_3d": tensor.is_contiguous(memory_format=torch.channels_last_3d) if tensor.dim() == 5 else None,
        "suggest_memory_format": suggest_memory_format(tensor, memory_format_source),
        "dim_order": list(tensor.dim_order()),
        "dim_order_ambiguous": ambiguous,
        "dim_order_ambiguity_error": error,
    }


def main(argv: list[str]) -> int:
    output = Path(argv[1]) if len(argv) > 1 else DEFAULT_OUTPUT
    ambiguity_check = has_ambiguity_check()
    source = suggest_memory_format_source()
    cases = [record(name, sizes, strides, ambiguity_check, source) for name, sizes, strides in CASES]
    prims_disagrees = [
        case["name"]
        for case in cases
        if prims_suggest_memory_format(torch.empty_strided(case["sizes"], case["strides"]))
        not in (None, case["suggest_memory_format"])
    ]
    result = {
        "torch": torch.__version__,
        "python": platform.python_version(),
        "suggest_memory_format_source": source,
        "suggest_memory_format_prims_disagrees": prims_disagrees,
        "cases": cases,
    }
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(result['cases'])} cases (torch {torch.__version__}) to {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
