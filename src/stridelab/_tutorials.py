"""Where the tutorial notebooks are, and copying them for a student to work in.

An installed stridelab carries them in ``stridelab/tutorials`` (put there by the build); a source
checkout, editable installs included, has them in the repository's ``notebooks/``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

START = "00-start-here.ipynb"
_PACKAGED = Path(__file__).resolve().parent / "tutorials"
_CHECKOUT = Path(__file__).resolve().parents[2] / "notebooks"


def tutorials_dir() -> Path:
    """The folder holding the tutorial notebooks this stridelab was installed with."""
    for folder in (_PACKAGED, _CHECKOUT):
        if (folder / START).is_file():
            return folder
    raise FileNotFoundError(
        f"stridelab's tutorials are missing: neither {_PACKAGED} nor {_CHECKOUT} holds {START}; "
        "reinstall stridelab from a wheel or a full clone of its repository"
    )


def copy_tutorials(target: Path) -> tuple[list[Path], list[Path]]:
    """Copy each tutorial notebook into ``target`` unless a file of that name is there already.

    A student's edited notebook is never overwritten. Returns the files copied and the files kept;
    for ``target`` the tutorials' own folder (a source checkout's ``notebooks/``), neither.
    """
    source = tutorials_dir()
    if target.exists() and not target.is_dir():
        raise NotADirectoryError(f"cannot copy the tutorials into {target}: it is a file, not a folder")
    notebooks = sorted(source.glob("*.ipynb"))
    if target.exists() and target.resolve() == source.resolve():
        return [], []
    target.mkdir(parents=True, exist_ok=True)
    copied, kept = [], []
    for notebook in notebooks:
        destination = target / notebook.name
        if destination.exists():
            kept.append(destination)
        else:
            shutil.copyfile(notebook, destination)
            copied.append(destination)
    return copied, kept
