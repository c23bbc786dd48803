"""Build hook: the wheel carries the repository's tutorial notebooks as ``stridelab/tutorials``,
with the data they read (``benchmarks/gpu-results.json``, ``benchmarks/access-measured.json``)
beside them, and its example DxDispatch models as ``stridelab/examples``.

The notebooks live in ``notebooks/`` (nbval and Binder use them there) and the models in
``examples/`` (the tests run them there); ``stridelab lab`` and ``stridelab examples`` copy them
from the installed package. An editable install reads both folders in place instead.
Everything else about the build is in pyproject.toml.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
TUTORIAL_DATA = [ROOT / "benchmarks" / "gpu-results.json", ROOT / "benchmarks" / "access-measured.json"]


def _files(folder: Path, pattern: str) -> list[Path]:
    found = sorted(folder.glob(pattern))
    if not found:
        raise FileNotFoundError(f"no {pattern} files in {folder}: the wheel would ship none")
    return found


class BuildPyWithCourse(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        shipped = {
            "tutorials": [*_files(ROOT / "notebooks", "*.ipynb"), *TUTORIAL_DATA],
            "examples": _files(ROOT / "examples", "*.json"),
        }
        for folder, files in shipped.items():
            target = Path(self.build_lib, "stridelab", folder)
            self.mkpath(str(target))
            for file in files:
                self.copy_file(str(file), str(target / file.name))


setup(cmdclass={"build_py": BuildPyWithCourse})
