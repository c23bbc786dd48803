"""The lines DxDispatch prints, reproduced character for character.

``print`` gives ``Resource 'Out': 12, 14, 16``: numbers as C++'s ``ostream <<`` writes them
(``%g``, six significant digits), float16 through float; INT8 and UINT8 as numbers, where DirectML's
tool streams them as characters. A dispatch gives ``Dispatch 'name': 1 iterations, 0.0123 ms
median (CPU)``, with ``, 0.004096 ms median (GPU)`` on the GPU.

internal: the public names are :mod:`stridelab.dxdispatch`'s.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

__all__: list[str] = []


def format_values(values: np.ndarray) -> list[str]:
    """Each value as DxDispatch prints it.

    >>> format_values(np.array([12, -0.4323321, 1e6, np.nan, -np.inf], np.float32))
    ['12', '-0.432332', '1e+06', 'nan', '-inf']
    >>> format_values(np.array([255, 7], np.uint8))
    ['255', '7']
    """
    if values.dtype.kind == "f":
        return [format(v, "g") for v in values.tolist()]
    return [str(v) for v in values.tolist()]


#: Values formatted at a time: formatting costs about 80 bytes of memory per value, so it goes in
#: chunks, and a printed resource costs only its text.
_CHUNK = 65536


def text_bytes_per_value(dtype: np.dtype) -> int:
    """The most characters one value and its separator take in a ``print`` line (``%g`` for floats)."""
    if dtype.kind == "f":
        return len("-2.22507e-308, ")
    info = np.iinfo(dtype)
    return max(len(str(info.min)), len(str(info.max))) + len(", ")


def print_lines(name: str, values: np.ndarray, verbose: bool = False) -> Iterator[str]:
    """What ``print`` writes: one line, or in verbose form a header, one line per element with its
    bits in hexadecimal (space-padded to the element's width, as DxDispatch pads), and an empty line.
    Values are formatted in chunks, so a large resource costs its text, not 80 bytes per value.

    >>> list(print_lines("Out", np.array([12, 14, 16], np.float32)))
    ["Resource 'Out': 12, 14, 16"]
    >>> list(print_lines("U", np.array([5, 300], np.uint16), verbose=True))
    ["Resource 'U':", '[0] 5 (0x   5)', '[1] 300 (0x 12C)', '']
    """
    chunks = range(0, values.size, _CHUNK)
    if not verbose:
        yield f"Resource '{name}': " + ", ".join(", ".join(format_values(values[i : i + _CHUNK])) for i in chunks)
        return
    yield f"Resource '{name}':"
    width, hex_width = len(str(values.size)), 2 * values.itemsize
    bits = values.view(f"u{values.itemsize}")
    for start in chunks:
        texts = format_values(values[start : start + _CHUNK])
        for i, (text, b) in enumerate(zip(texts, bits[start : start + _CHUNK].tolist()), start):
            yield f"[{i:>{width}}] {text} (0x{b:>{hex_width}X})"
    yield ""


def median(samples: Sequence[float]) -> float:
    """DxDispatch's median of the hot samples: the first sample is a warm-up where there are
    several, and the median is ``sorted[n // 2]`` (the upper one for even n).

    >>> median([9.0, 1.0, 3.0, 2.0])
    2.0
    """
    hot = sorted(samples[1:] if len(samples) > 1 else samples)
    return hot[len(hot) // 2]


def dispatch_line(name: str, iterations: int, cpu_ms: Sequence[float], gpu_ms: Sequence[float] | None) -> str:
    """The timing line of a dispatch run ``iterations`` times.

    >>> dispatch_line("sum", 3, [2.0, 0.5, 0.25], [1.0, 0.004, 0.0041])
    "Dispatch 'sum': 3 iterations, 0.5000 ms median (CPU), 0.004100 ms median (GPU)"
    """
    line = f"Dispatch '{name}': {iterations} iterations, {median(cpu_ms):.4f} ms median (CPU)"
    return line if gpu_ms is None else f"{line}, {median(gpu_ms):.6f} ms median (GPU)"


def written_line(name: str, target: Path) -> str:
    return f"Resource '{name}' written to '{target}'"
