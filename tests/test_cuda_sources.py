"""The Python planners and the CUDA files agree, checked on any machine by reading the sources.

A kernel name the planner emits that is no template of its file (or has the wrong number of
arguments), a ``struct Geo`` whose fields drift from :data:`GEO_FIELDS`, or a constant mirrored
between Python and CUDA that differs would corrupt launches or fail only on a GPU; here they fail
on a CPU. (The GPU tests then compile every planned name.)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import stridelab.ops.cupy as cupy_package
from stridelab.ops._engine import OPERATORS
from stridelab.ops._precompile import kernel_names
from stridelab.ops.cupy import geometry, scan_plan, tuning
from stridelab.ops.cupy.geometry import KERNEL_FILES, template_of

SCANS = [op.scan for op in OPERATORS.values() if op.scan is not None]

CUDA_DIR = Path(cupy_package.__file__).parent
_TEMPLATE = re.compile(
    r"template\s*<(?P<params>[^>]*)>\s*__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s+)?"
    r"(?P<name>\w+)\s*\((?P<args>[^)]*)\)",
    re.S,
)


def _kernels() -> dict[str, tuple[str, int, int, int]]:
    """Each ``__global__`` template: its file, fewest and most template arguments, and how many
    parameters the kernel takes."""
    found = {}
    for path in CUDA_DIR.glob("*.cu"):
        for match in _TEMPLATE.finditer(path.read_text()):
            params = [p.strip() for p in match["params"].split(",")]
            required = sum("=" not in p for p in params)
            found[match["name"]] = (path.name, required, len(params), len(match["args"].split(",")))
    return found


def _arguments(name: str) -> list[str]:
    """The template arguments of a kernel name, the nested ``Scan<S, O>`` counted as one."""
    inner = name[name.index("<") + 1 : name.rindex(">")]
    args, depth, current = [], 0, ""
    for ch in inner:
        depth += ch == "<"
        depth -= ch == ">"
        if ch == "," and depth == 0:
            args.append(current.strip())
            current = ""
        else:
            current += ch
    return [*args, current.strip()]


def test_every_kernel_template_is_in_the_file_the_loader_compiles():
    kernels = _kernels()
    assert set(kernels) == set(KERNEL_FILES)
    for template, (file, *_) in kernels.items():
        assert KERNEL_FILES[template] == file, template


def test_every_name_the_planner_can_emit_instantiates_its_template_with_the_right_arity():
    kernels = _kernels()
    storages = {t.storage for t in scan_plan.SCAN_TYPES.values()}
    traits = {op.cuda for op in SCANS}
    cuh = (CUDA_DIR / "scan_common.cuh").read_text()
    for name in kernel_names():
        file, fewest, most, _ = kernels[template_of(name)]
        args = _arguments(name)
        assert fewest <= len(args) <= most, (name, fewest, most)
        if file.startswith("scan"):
            storage, operator = re.fullmatch(r"Scan<(\w+), (\w+)>", args[0]).groups()
            assert storage in storages and operator in traits, name
            assert re.search(rf"^struct {storage} \{{", cuh, re.M), name
        assert all(re.fullmatch(r"-?\d+|true|false|Scan<\w+, \w+>", a) for a in args), name


def test_every_scan_operator_has_its_trait_in_cuda():
    """A front end's ScanOperator names the CUDA trait its kernels are instantiated with: it must
    be a struct of scan_common.cuh with the three members every kernel uses."""
    cuh = (CUDA_DIR / "scan_common.cuh").read_text()
    assert {op.name for op in SCANS} >= {"CUMULATIVE_SUMMATION", "CUMULATIVE_PRODUCT"}
    for op in SCANS:
        body = re.search(rf"^struct {op.cuda} \{{(.*?)^\}};", cuh, re.M | re.S)
        assert body, f"{op.name}: no struct {op.cuda} in scan_common.cuh"
        for member in ("identity()", "first()", "combine(A a, A b)"):
            assert member in body[1], (op.name, member)


def test_kernels_that_carry_chunk_totals_take_the_two_extra_pointers():
    """The launcher passes src, dst, (partial, carry_in,) geometry by position, as Launch.carries says."""
    for template, (_, _, _, params) in _kernels().items():
        launch = geometry.Launch(f"{template}<>", 1, (1, 1), ())
        assert params == (5 if launch.carries else 3), template


def test_struct_geo_matches_its_python_description():
    text = (CUDA_DIR / "common.cuh").read_text()
    body = re.search(r"struct Geo \{(.*?)\};", text, re.S)[1]
    fields = []
    for declaration in re.findall(r"long long ([^;]+);", body):
        for item in declaration.split(","):
            match = re.fullmatch(r"\s*(\w+)(?:\[(\w+)\])?\s*", item)
            count = {"SL_MAX_DIMS": geometry.MAX_DIMS}.get(match[2], 1) if match[2] else 1
            fields.append((match[1], count))
    assert "long long" in body and not re.search(r"\b(int|float|double|short|char)\b", body)
    assert tuple(fields) == geometry.GEO_FIELDS


@pytest.mark.parametrize(
    ("file", "macro", "value"),
    [
        ("common.cuh", "SL_MAX_DIMS", geometry.MAX_DIMS),
        ("common.cuh", "SL_THREADS", geometry.THREADS),
        ("copy.cu", "SL_COPY_ILP", tuning.COPY_ILP),
    ],
)
def test_constants_mirrored_in_cuda_match(file, macro, value):
    text = (CUDA_DIR / file).read_text()
    assert re.search(rf"^#define {macro} (\d+)$", text, re.M)[1] == str(value)
