"""The GPU backend: CUDA kernels (the ``.cu`` and ``.cuh`` files here), their launch planners
(:mod:`.copy_plan`, :mod:`.scan_plan`, sharing :mod:`.geometry` and the tables of :mod:`.tuning`)
and the CuPy runtime that compiles and launches them (:mod:`.runtime`).

The planners are plain Python and import without CuPy; :mod:`.runtime` imports CuPy when it first
compiles or launches, and is itself imported only when an operator meets a CuPy buffer.

internal: used by the operators; ``stridelab.ops.precompile`` compiles its kernels ahead.
"""

__all__: list[str] = []
