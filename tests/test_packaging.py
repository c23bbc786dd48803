"""The package as built: one version, lower bounds that `make test-lowest` really installs, and an
sdist and wheel that carry what they must (tutorials, example models, kernels, licence, tests)
without warnings."""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import stridelab

ROOT = Path(__file__).resolve().parents[1]
LOWER_BOUNDS = ROOT / ".ci" / "lower-bounds.txt"


def test_the_installed_version_is_the_package_version():
    assert importlib.metadata.version("stridelab") == stridelab.__version__


def _release(version: str) -> tuple[int, ...]:
    """``"3.7"`` and ``"3.7.0"`` alike: (3, 7)."""
    parts = [int(part) for part in version.split(".")]
    while parts and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def _lower_bounds(requirements: list[str]) -> dict[str, tuple[int, ...]]:
    bounds = {}
    for requirement in requirements:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?(?:>=([^,;\s]+))?", requirement)
        assert match, f"unexpected requirement form: {requirement}"
        name, lowest = match.groups()
        if name != "stridelab":
            assert lowest, f"{requirement} has no lower bound"
            bounds[name.lower()] = _release(lowest)
    return bounds


def test_the_pinned_lower_bounds_are_pyprojects():
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    requirements = [*project["build-system"]["requires"], *project["project"]["dependencies"]]
    for extra in project["project"]["optional-dependencies"].values():
        requirements += extra
    pinned = {}
    for line in LOWER_BOUNDS.read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            pinned[name.lower()] = _release(version)
    assert pinned == _lower_bounds(requirements)


def _build(hook: str, source: Path, out: Path) -> tuple[Path, str]:
    """Run setuptools' PEP 517 ``hook`` in ``source``; the file built and what the build printed."""
    code = f"from setuptools import build_meta; print(build_meta.{hook}({str(out)!r}))"
    # Without byte-compiling, distutils warns that it skips it: not the project's warning.
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    command = [sys.executable, "-c", code]
    result = subprocess.run(command, cwd=source, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return out / result.stdout.splitlines()[-1], result.stdout + result.stderr


@pytest.mark.slow
def test_the_sdist_carries_the_tests_and_the_wheel_the_tutorials_and_examples(tmp_path):
    pytest.importorskip("setuptools", reason="the build backend is not installed (the test extra has it)")
    sdist, sdist_log = _build("build_sdist", ROOT, tmp_path)
    with tarfile.open(sdist) as archive:
        names = {name.partition("/")[2] for name in archive.getnames()}
        # the "data" filter came with Python 3.11.4 and 3.10.12; Debian 12's Python is 3.11.2
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        archive.extractall(tmp_path / "unpacked", **safe)
    notebooks = sorted(path.name for path in (ROOT / "notebooks").glob("*.ipynb"))
    examples = sorted(path.name for path in (ROOT / "examples").glob("*.json"))
    assert len(examples) == 6
    for needed in (
        "LICENSE",
        "conftest.py",
        "Makefile",
        ".ci/lower-bounds.txt",
        "tests/op_reference.py",
        "tests/nbval-sanitize.cfg",
        "tests/data/conformance/cumsum.json",
        "tests/browser/memory_map.ipynb",
        "benchmarks/gpu-results.json",
        "benchmarks/access-measured.json",
        *(f"notebooks/{name}" for name in notebooks),
        *(f"examples/{name}" for name in examples),
    ):
        assert needed in names, f"the sdist lacks {needed}"

    (unpacked,) = (tmp_path / "unpacked").iterdir()
    wheel, wheel_log = _build("build_wheel", unpacked, tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(f"stridelab-{stridelab.__version__}.dist-info/METADATA").decode()
        entry_points = archive.read(f"stridelab-{stridelab.__version__}.dist-info/entry_points.txt").decode()
        start_here = archive.read("stridelab/tutorials/00-start-here.ipynb")
        results = archive.read("stridelab/tutorials/gpu-results.json")
        measured = archive.read("stridelab/tutorials/access-measured.json")
        shipped = {name: archive.read(f"stridelab/examples/{name}") for name in examples}
    tutorials = sorted(name.rpartition("/")[2] for name in names if name.startswith("stridelab/tutorials/"))
    assert tutorials == sorted([*notebooks, "gpu-results.json", "access-measured.json"])
    assert start_here == (ROOT / "notebooks" / "00-start-here.ipynb").read_bytes()
    assert results == (ROOT / "benchmarks" / "gpu-results.json").read_bytes()
    assert measured == (ROOT / "benchmarks" / "access-measured.json").read_bytes()
    assert sorted(name.rpartition("/")[2] for name in names if name.startswith("stridelab/examples/")) == examples
    assert shipped == {name: (ROOT / "examples" / name).read_bytes() for name in examples}
    kernels = [f"stridelab/ops/cupy/{p.name}" for p in (ROOT / "src/stridelab/ops/cupy").glob("*.cu*")]
    assert len(kernels) >= 6
    for needed in ("stridelab/py.typed", *kernels, "stridelab/widgets/static/memory_map.js"):
        assert needed in names
    assert f"stridelab-{stridelab.__version__}.dist-info/licenses/LICENSE" in names
    assert "License-Expression: MIT" in metadata.splitlines()
    assert "stridelab = stridelab.cli:main" in entry_points.splitlines()
    assert not any(name.startswith(("tests/", "notebooks/", "examples/")) for name in names)
    for log in (sdist_log, wheel_log):
        assert "warning" not in log.lower(), log

    # the wheel as a pip-only user has it (unpacked onto the path, no clone around): `stridelab
    # examples` copies the models it carries
    installed, copied = tmp_path / "installed", tmp_path / "my examples"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(installed)
    env = {**os.environ, "PYTHONPATH": str(installed)}
    command = [sys.executable, "-m", "stridelab", "examples", str(copied)]
    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    where = [sys.executable, "-c", "from stridelab import _tutorials; print(_tutorials.examples_dir())"]
    found = subprocess.run(where, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=True)
    assert found.stdout.strip() == str(installed / "stridelab" / "examples")
    assert sorted(path.name for path in copied.iterdir()) == examples
    assert {name: (copied / name).read_bytes() for name in examples} == shipped
    assert result.stdout.splitlines()[-1] == f"stridelab: try: stridelab dispatch '{copied / 'reversing-slice1.json'}'"
