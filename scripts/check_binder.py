"""Check the Binder configuration as repo2docker uses it, without Docker.

Builds a fresh virtual environment with Python 3.11 (binder/runtime.txt) from
binder/requirements.txt, run from the repository root as repo2docker runs it, runs binder/postBuild
in it, then executes every tutorial notebook top to bottom in that environment (copies, beside the
data they read as in the repository: the stored notebooks are not touched). Exits non-zero at the first failure.

``--freeze`` instead rewrites binder/requirements.txt with every version a fresh install of
``.[lab]`` resolves, so that a rebuild gives the same environment.

Usage: python scripts/check_binder.py [--python PATH_TO_PYTHON3.11] [--freeze]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENTS = ROOT / "binder" / "requirements.txt"
HEADER = """\
# Binder (repo2docker) installs exactly these: every package pinned, so a rebuild gives the same
# environment. Regenerate with `python scripts/check_binder.py --freeze` after changing the
# dependencies in pyproject.toml; `python scripts/check_binder.py` checks the result.
-e .[lab]
"""


def run(command: list[str], **kwargs: object) -> None:
    print("$", " ".join(command), file=sys.stderr)
    subprocess.run(command, check=True, **kwargs)  # type: ignore[call-overload]


def make_venv(python: str, where: Path) -> Path:
    run([python, "-m", "venv", str(where)])
    bin_dir = where / "bin"
    run([str(bin_dir / "python"), "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
    return bin_dir


def freeze(python: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        bin_dir = make_venv(python, Path(tmp) / "venv")
        run([str(bin_dir / "python"), "-m", "pip", "install", "--quiet", "-e", ".[lab]"], cwd=ROOT)
        frozen = subprocess.run(
            [str(bin_dir / "python"), "-m", "pip", "freeze", "--exclude-editable"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    pins = [line for line in frozen.splitlines() if line and not line.lower().startswith("stridelab")]
    REQUIREMENTS.write_text(HEADER + "\n".join(pins) + "\n")
    print(f"wrote {len(pins)} pins to {REQUIREMENTS.relative_to(ROOT)}")


def check(python: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        bin_dir = make_venv(python, tmp_path / "venv")
        run([str(bin_dir / "python"), "-m", "pip", "install", "--quiet", "-r", str(REQUIREMENTS)], cwd=ROOT)
        env = {
            **os.environ,
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "JUPYTER_DATA_DIR": str(tmp_path / "jupyter-data"),  # the trust database of this check only
        }
        run(["bash", "binder/postBuild"], cwd=ROOT, env=env)
        copies = tmp_path / "notebooks"
        shutil.copytree(ROOT / "notebooks", copies)
        (tmp_path / "benchmarks").mkdir()  # the data 07-gpu reads, where a checkout has it
        shutil.copyfile(ROOT / "benchmarks" / "gpu-results.json", tmp_path / "benchmarks" / "gpu-results.json")
        for notebook in sorted(copies.glob("*.ipynb")):
            run(
                [str(bin_dir / "jupyter"), "nbconvert", "--to", "notebook", "--execute", "--inplace", str(notebook)],
                env=env,
            )
        print(f"Binder environment built from {REQUIREMENTS.relative_to(ROOT)}; every notebook ran")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=shutil.which("python3.11") or sys.executable, help="a Python 3.11")
    parser.add_argument("--freeze", action="store_true", help="rewrite binder/requirements.txt with pinned versions")
    args = parser.parse_args(argv)
    version = subprocess.run(
        [args.python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    if version != "3.11":
        parser.error(f"{args.python} is Python {version}; binder/runtime.txt asks for python-3.11 (pass --python)")
    if args.freeze:
        freeze(args.python)
    else:
        check(args.python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
