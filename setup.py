"""Build hook: the wheel carries the repository's tutorial notebooks as ``stridelab/tutorials``,
with the data they read (``benchmarks/gpu-results.json``) beside them.

The notebooks live in ``notebooks/`` (nbval and Binder use them there); ``stridelab lab`` copies
them from the installed package. An editable install reads ``notebooks/`` in place instead.
Everything else about the build is in pyproject.toml.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

TUTORIALS = Path(__file__).resolve().parent / "notebooks"
TUTORIAL_DATA = [Path(__file__).resolve().parent / "benchmarks" / "gpu-results.json"]


class BuildPyWithTutorials(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        target = Path(self.build_lib, "stridelab", "tutorials")
        self.mkpath(str(target))
        notebooks = sorted(TUTORIALS.glob("*.ipynb"))
        if not notebooks:
            raise FileNotFoundError(f"no tutorial notebooks in {TUTORIALS}: the wheel would ship none")
        for file in [*notebooks, *TUTORIAL_DATA]:
            self.copy_file(str(file), str(target / file.name))


setup(cmdclass={"build_py": BuildPyWithTutorials})
