"""What the GPU planners share: ``struct Geo``, launches, kernel names and alignment arithmetic.

The kernels' geometry is a flat tuple of 64-bit ints in the order of ``struct Geo`` in
``common.cuh`` (:data:`GEO_FIELDS`; ``tests/test_cuda_sources.py`` checks the two against each
other). Kernel names are template instantiations, built by :func:`kernel_name` only, and each
template lives in the file :data:`KERNEL_FILES` names.

internal: used by the operators' CuPy backend.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Any

__all__: list[str] = []

MAX_DIMS = 8  # SL_MAX_DIMS in common.cuh
THREADS = 256  # SL_THREADS in common.cuh
SHARED_DEFAULT = 48 * 1024  # shared memory every CUDA device gives a block without opting in
GRID_CAP = 2**31 - 1
VECTOR_BYTES = 16

#: ``struct Geo`` field by field: (name, count).
GEO_FIELDS: tuple[tuple[str, int], ...] = (
    ("n", MAX_DIMS),
    ("s", MAX_DIMS),
    ("d", MAX_DIMS),
    *((name, 1) for name in "nd rows nx sx dx ny sy dy na sa da chunk nchunks".split()),
    *((name, 1) for name in "tiles_x tiles_y nblocks lanes exclusive".split()),
)
GEO_LEN = sum(count for _, count in GEO_FIELDS)

#: The CUDA file of each kernel template (after ``common.cuh``, and ``scan_common.cuh`` for scans).
KERNEL_FILES = {
    "sl_copy_rows": "copy.cu",
    "sl_copy_tiled": "copy.cu",
    "sl_scan_lines": "scan_lines.cu",
    "sl_scan_cols": "scan_cols.cu",
    "sl_scan_cols_split": "scan_cols.cu",
    "sl_scan_tile_ax": "scan_tiles.cu",
    "sl_scan_tile_ay": "scan_tiles.cu",
    "sl_scan_tile_an": "scan_tiles.cu",
    "sl_scan_tile_staged": "scan_tiles.cu",
}

Dim = tuple[int, int, int]  # (size, source stride, destination stride)


def kernel_name(template: str, *args: object) -> str:
    """The instantiation ``template<args>`` as NVRTC names it (booleans as ``true``/``false``).

    >>> kernel_name("sl_scan_cols", "Scan<F32, Sum>", 4, 8, False)
    'sl_scan_cols<Scan<F32, Sum>, 4, 8, false>'
    """
    if template not in KERNEL_FILES:
        raise ValueError(f"no kernel template {template!r}; the templates are {', '.join(KERNEL_FILES)}")
    return f"{template}<{', '.join(str(a).lower() if isinstance(a, bool) else str(a) for a in args)}>"


def template_of(name: str) -> str:
    """The template of a kernel name: ``sl_scan_cols`` of ``sl_scan_cols<...>``."""
    return name.split("<", 1)[0]


@dataclass(frozen=True)
class Launch:
    """One kernel launch: template name, 1-D grid of ``block`` threads, geometry, and the bytes of
    dynamic shared memory a block takes."""

    kernel: str
    grid: int
    block: tuple[int, int]
    geo: tuple[int, ...]
    shared: int = 0

    @property
    def carries(self) -> bool:
        """Whether the kernel takes the two chunk-total pointers (``partial``, ``carry_in``) after
        ``src`` and ``dst``: the lines and columns scans do; the split columns scan, the tiled scans
        and the copies do not."""
        return template_of(self.kernel) in ("sl_scan_lines", "sl_scan_cols")


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def pow2_at_least(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def geo(outer: list[Dim], **fields: int) -> tuple[int, ...]:
    """The flat ``struct Geo`` for outer dimensions ``outer`` (outermost first) and named fields."""
    inner_first = outer[::-1]
    pad = [0] * (MAX_DIMS - len(inner_first))
    values: dict[str, Any] = {
        "n": [t[0] for t in inner_first] + [1] * len(pad),
        "s": [t[1] for t in inner_first] + pad,
        "d": [t[2] for t in inner_first] + pad,
        "nd": len(inner_first),
        "rows": prod(t[0] for t in outer),
    }
    values.update(fields)
    flat: list[int] = []
    for name, count in GEO_FIELDS:
        v = values.get(name, 0)
        flat.extend(v if count > 1 else [v])
    return tuple(int(v) for v in flat)


def launch(kernel: str, nblocks: int, block: tuple[int, int], geo: tuple[int, ...], shared: int = 0) -> Launch:
    return Launch(kernel, min(max(nblocks, 1), GRID_CAP), block, geo, shared)


def aligned(align: int, shift_bytes: int, to: int) -> bool:
    return (align + shift_bytes) % to == 0


def innermost(dims: list[Dim], col: int, prefer: int | None) -> int | None:
    """Index of the dimension with the smallest non-zero |stride| (column 1: source, 2:
    destination) among those of size > 1; ties go to ``prefer``, then to the later dimension."""
    best = None
    for i, t in enumerate(dims):
        if t[0] > 1 and t[col] != 0:
            key = (abs(t[col]), i != prefer, -i)
            if best is None or key < best[0]:
                best = (key, i)
    return None if best is None else best[1]


def vector_ok(dims: list[Dim], v: int) -> bool:
    return all(t[1] % v == 0 and t[2] % v == 0 for t in dims)


def vectors_fit(w: int, esize: int, src_align: int, dst_align: int, strides: list[int], *sizes: int) -> bool:
    """Whether every access of ``w``-element vectors is aligned: ``strides`` (of the other
    dimensions) and ``sizes`` (of the vectorised ones) multiples of ``w``, element 0 of both views
    on a ``w * esize`` byte boundary."""
    return (
        all(s % w == 0 for s in strides)
        and all(n % w == 0 for n in sizes)
        and aligned(src_align, 0, w * esize)
        and aligned(dst_align, 0, w * esize)
    )


def vector_widths(esize: int) -> list[int]:
    return [1 << i for i in range((VECTOR_BYTES // esize).bit_length())]
