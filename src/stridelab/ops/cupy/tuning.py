"""The planner's tuning tables: which kernel shape each case takes, by element size in bytes.

Each table was chosen by timing its candidates on an H200 (``benchmarks/gpu_variants.py``); the
figures behind every choice are in ``benchmarks/RESULTS.md`` ("Planner tuning"). Shapes are
template arguments of the kernels in ``scan_*.cu`` and ``copy.cu``; every one a table can yield
is listed by :func:`stridelab.ops.cupy.copy_plan.copy_kernels` and
:func:`stridelab.ops.cupy.scan_plan.scan_kernels`, and compiled by the GPU tests.

internal: used by the operators' CuPy backend.
"""

from __future__ import annotations

__all__: list[str] = []

# ------------------------------------------------------------------------------------------ copies

#: Groups of elements per thread in a rows copy (``SL_COPY_ILP`` in copy.cu): loads in flight.
COPY_ILP = 4
#: Transposing copy tile (TILE, W): TILE x TILE elements, W-element vectors on both sides;
#: (vectorised candidates, the first whose vectors fit..., element by element). 64 x 64 keeps a
#: block's loads in flight for small elements; float16 moves 16-byte vectors where they fit.
COPY_TILES = {
    1: ((64, 4), (64, 1)),
    2: ((64, 8), (64, 4), (64, 1)),
    4: ((64, 2), (64, 1)),
    8: ((32, 2), (32, 1)),
}
#: Vector elements of a rows copy whose source steps by 2 or -2 (16 bytes where not listed):
#: 8-byte vectors waste less of each loaded sector for float32 and float16.
COPY_STRIDE2_VECTOR: dict[int, int] = {4: 2, 2: 4}

# ------------------------------------------------------------------------- scans through a tile
# An axis tile (the axis innermost in the source: AX; in the destination: AY) is
# (E, VEC, TILE, MINB[, L]): E axis elements per lane (one vector per access where VEC), L lanes per
# row (32 unless given; AX only), TILE elements across, MINB blocks a multiprocessor must hold
# (__launch_bounds__; 0 sets no bound). Candidates are (vectorised ones, element by element): the
# first vectorised one whose pass (L * E elements) fits in the axis and whose vectors fit is taken,
# so a short axis wastes no lanes.

#: Axis innermost in the source. Float16's 16 lanes of 4 halve the shuffles of 32 lanes of 2.
SCAN_AX_TILES = {
    4: (((2, True, 32, 0),), (1, False, 32, 0)),
    2: (((8, True, 32, 0), (4, True, 64, 0), (4, True, 64, 8, 16), (2, True, 64, 8)), (2, False, 32, 0)),
}
#: Axis innermost in the destination: the mirror of SCAN_AX_TILES. For float16 along an axis of
#: 64, 8 lanes of 8 (16-byte stores, 4 rows a warp instruction) beat 32 lanes of 2 and 16 of 4;
#: float32 along 64 takes 16 lanes of 4 (16-byte stores) rather than 32 of 2, and longer axes a
#: 64-wide tile; float16 along 256, 16 lanes of 8 rather than 32.
SCAN_AY_TILES = {
    4: (((4, True, 64, 0), (4, True, 32, 0, 16), (2, True, 32, 0)), (1, False, 32, 0)),
    2: (((8, True, 32, 0, 16), (4, True, 64, 0), (8, True, 64, 8, 8), (2, True, 64, 8)), (2, False, 32, 0)),
}
#: Axis outside both innermost dimensions: (TILE, S, W, MINB), S axis steps per barrier pair;
#: ((vectorised with many blocks: the first whose vectors fit...), with few blocks, element by
#: element). With few blocks, float16 takes 8 a multiprocessor so that one wave covers them;
#: float32 takes 64 x 64 tiles of 16-byte vectors, as the transposing copy, where they fit.
SCAN_OUTER_TILES = {
    4: (((64, 2, 4, 0), (32, 8, 2, 0)), (32, 8, 2, 0), (32, 8, 1, 0)),
    2: (((64, 2, 4, 0),), (16, 8, 1, 8), (32, 8, 1, 0)),
}
#: Staged tile across the axis (sl_scan_tile_staged), where 16-byte vectors fit both views and the
#: device gives a block the shared memory: (TX, TY, CH, STAGES), a TX x TY tile walking the axis in
#: chunks of CH steps, copied STAGES - 1 chunks ahead (float16 128 KiB, float32 192 KiB): loads in
#: flight without a register each.
SCAN_STAGED_TILES = {2: (64, 32, 8, 2), 4: (32, 32, 16, 3)}
#: An axis of fewer steps gains nothing from staging (float16 along 16 steps: 66% of copy staged).
SCAN_STAGED_MIN_STEPS = 32
#: Staged blocks walk their chunks one after the other: float16 needs this many tiles a
#: multiprocessor before staging beats the element-by-element tile; float32 is faster at any count.
SCAN_STAGED_MIN_TILES_PER_SM = {2: 0.5, 4: 0.0}

# ------------------------------------------------------------------------- scans down columns

#: A columns scan takes the widest vectors that fit, or at most this many bytes where the widest
#: would leave fewer than COLS_THREADS_PER_SM threads a multiprocessor.
COLS_THREADS_PER_SM = 512
COLS_FEW_VECTOR_BYTES = 8
#: Steps each thread loads ahead; chunks of a cut axis are whole multiples of it.
COLS_STEPS = 8
#: Columns of vectors of at most [0] bytes along a chunk of at least [1] steps are double-buffered
#: (the next steps loaded before the current ones are combined and stored).
COLS_PIPELINE = (8, 128)
#: Columns too few for a thread each (fewer than COLS_SPLIT_BELOW threads a multiprocessor, but at
#: least 4 blocks of 32 columns a multiprocessor) along an axis of at least 8 * steps are split
#: between the 8 warps of a block (sl_scan_cols_split): (steps, vector bytes or 0 for the columns
#: scan's own, MINB). Float16 columns without 16-byte vectors are not split.
COLS_SPLIT_BELOW = 2048
COLS_SPLIT = {4: (16, 0, 0), 2: (8, 16, 2)}

# --------------------------------------------------------------------------- scans along lines

#: Vectors per lane per step (segments of a step) for lines of 16-byte vectors: the most that leaves
#: each line at least LINES_MIN_LANES lanes.
LINES_VECTORS = (4, 2, 1)
LINES_MIN_LANES = 4
#: Elements per lane per step of element-by-element lines.
LINES_SCALAR = {4: 2, 2: 1}
