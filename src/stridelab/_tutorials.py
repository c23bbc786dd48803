"""Where the tutorial notebooks are, and copying them for a student to work in.

An installed stridelab carries them in ``stridelab/tutorials`` (put there by the build); a source
checkout, editable installs included, has them in the repository's ``notebooks/``. The data files
the notebooks read (the GPU benchmark's results) lie beside them once installed or copied, and in
the repository's ``benchmarks/`` in a checkout.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

START = "00-start-here.ipynb"
DATA_FILES = ("gpu-results.json",)
_PACKAGED = Path(__file__).resolve().parent / "tutorials"
_CHECKOUT = Path(__file__).resolve().parents[2] / "notebooks"
_CHECKOUT_DATA = Path(__file__).resolve().parents[2] / "benchmarks"


def tutorials_dir() -> Path:
    """The folder holding the tutorial notebooks this stridelab was installed with."""
    for folder in (_PACKAGED, _CHECKOUT):
        if (folder / START).is_file():
            return folder
    raise FileNotFoundError(
        f"stridelab's tutorials are missing: neither {_PACKAGED} nor {_CHECKOUT} holds {START}; "
        "reinstall stridelab from a wheel or a full clone of its repository"
    )


def tutorial_files() -> list[Path]:
    """The tutorial notebooks, then the data files they read."""
    source = tutorials_dir()
    data = [source / name if (source / name).is_file() else _CHECKOUT_DATA / name for name in DATA_FILES]
    missing = [str(path) for path in data if not path.is_file()]
    if missing:
        raise FileNotFoundError(f"stridelab's tutorial data is missing: {', '.join(missing)}")
    return [*sorted(source.glob("*.ipynb")), *data]


def copy_tutorials(target: Path) -> tuple[list[Path], list[Path]]:
    """Copy each tutorial file into ``target`` unless a file of that name is there already.

    A student's edited notebook is never overwritten, and nothing is written through a link
    planted in ``target`` (OSError naming it). Returns the files copied and the files kept;
    for ``target`` the tutorials' own folder (a source checkout's ``notebooks/``, whose notebooks
    find their data in ``benchmarks/``), neither.
    """
    files = tutorial_files()
    if target.exists() and not target.is_dir():
        raise NotADirectoryError(f"cannot copy the tutorials into {target}: it is a file, not a folder")
    if target.exists() and target.resolve() == tutorials_dir().resolve():
        return [], []
    target.mkdir(parents=True, exist_ok=True)
    copied, kept = [], []
    destinations = [target / file.name for file in files]
    for destination in destinations:  # all checked before any is written: no partial copy
        if destination.is_symlink():
            raise OSError(f"{destination} is a symbolic link; the tutorials are not copied through links")
        if destination.exists() and not destination.is_file():
            raise OSError(f"{destination} is there but is not a regular file; move it away first")
    for file, destination in zip(files, destinations):
        if destination.exists():
            kept.append(destination)
            continue
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        with open(file, "rb") as source, os.fdopen(os.open(destination, flags, 0o666), "wb") as copy:
            shutil.copyfileobj(source, copy)
        copied.append(destination)
    return copied, kept
