"""Where the tutorial notebooks and the example models are, and copying them for a user to work in.

An installed stridelab carries them in ``stridelab/tutorials`` and ``stridelab/examples`` (put
there by the build); a source checkout, editable installs included, has them in the repository's
``notebooks/`` and ``examples/``. The data files the notebooks read (the GPU benchmark's results
and the GPU's measured memory traffic of layouts) lie beside them once installed or copied, and in
the repository's ``benchmarks/`` in a checkout.

The notebooks are the teacher's copy: each exercise's solution is a cell tagged ``solution``. A
student copy (``stridelab lab --student DIR``) leaves those cells out, and marks its folder so
that a notebook ``stridelab lab`` later copies there comes without its solutions too.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

START = "00-start-here.ipynb"
DATA_FILES = ("gpu-results.json", "access-measured.json")
SOLUTION_TAG = "solution"
#: The file that marks a folder as a student copy.
STUDENT_MARK = ".stridelab-student"
_MARK_TEXT = (
    "This folder holds stridelab's tutorials without their solutions (stridelab lab --student).\n"
    "stridelab lab copies a notebook missing here without its solutions too.\n"
)
#: The example model ``stridelab examples`` suggests running first.
EXAMPLE = "reversing-slice1.json"
_PACKAGED = Path(__file__).resolve().parent / "tutorials"
_CHECKOUT = Path(__file__).resolve().parents[2] / "notebooks"
_CHECKOUT_DATA = Path(__file__).resolve().parents[2] / "benchmarks"
_PACKAGED_EXAMPLES = Path(__file__).resolve().parent / "examples"
_CHECKOUT_EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def tutorials_dir() -> Path:
    """The folder holding the tutorial notebooks this stridelab was installed with."""
    return _installed("tutorials", START, _PACKAGED, _CHECKOUT)


def examples_dir() -> Path:
    """The folder holding the example DxDispatch models this stridelab was installed with."""
    return _installed("example models", EXAMPLE, _PACKAGED_EXAMPLES, _CHECKOUT_EXAMPLES)


def _installed(what: str, marker: str, packaged: Path, checkout: Path) -> Path:
    """The folder of the wheel's copy, else of the source checkout, that holds ``marker``."""
    for folder in (packaged, checkout):
        if (folder / marker).is_file():
            return folder
    raise FileNotFoundError(
        f"stridelab's {what} are missing: neither {packaged} nor {checkout} holds {marker}; "
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


def without_solutions(notebook: bytes) -> tuple[bytes, int]:
    """A notebook's text without its cells tagged ``solution``, and how many it left out; the other
    cells are kept as they are, outputs included.

    >>> text, left_out = without_solutions(b'{"cells": [{"metadata": {"tags": ["solution"]}}, {"metadata": {}}]}')
    >>> text, left_out
    (b'{\\n "cells": [\\n  {\\n   "metadata": {}\\n  }\\n ]\\n}\\n', 1)
    """
    content = json.loads(notebook)
    cells = content.get("cells", [])
    kept = [cell for cell in cells if SOLUTION_TAG not in cell.get("metadata", {}).get("tags", [])]
    content["cells"] = kept
    text = json.dumps(content, indent=1, sort_keys=True, ensure_ascii=False, separators=(",", ": ")) + "\n"
    return text.encode("utf-8"), len(cells) - len(kept)


def _destinations(files: list[Path], target: Path, what: str = "the tutorials") -> list[Path]:
    """Where ``files`` (``what`` they are, for messages) go in ``target``, all checked before any is
    written (no partial copy): nothing is written through a link planted there, nor over what is
    not a regular file."""
    if target.exists() and not target.is_dir():
        raise NotADirectoryError(f"cannot copy {what} into {target}: it is a file, not a folder")
    destinations = [target / file.name for file in files]
    for destination in destinations:
        if destination.is_symlink():
            raise OSError(f"{destination} is a symbolic link; {what} are not copied through links")
        if destination.exists() and not destination.is_file():
            raise OSError(f"{destination} is there but is not a regular file; move it away first")
    return destinations


def _write(file: Path, destination: Path, *, student: bool) -> int:
    """Write ``file`` as the new file ``destination``, without its solutions for a student; the
    number of solution cells left out."""
    content, left_out = file.read_bytes(), 0
    if student and file.suffix == ".ipynb":
        content, left_out = without_solutions(content)
    _create(destination, content)
    return left_out


def _create(destination: Path, content: bytes) -> None:
    """Write ``content`` as a new file, never through a link (one planted meanwhile included)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    with os.fdopen(os.open(destination, flags, 0o666), "wb") as copy:
        copy.write(content)


def copy_tutorials(target: Path) -> tuple[list[Path], list[Path]]:
    """Copy each tutorial file into ``target`` unless a file of that name is there already.

    A student's edited notebook is never overwritten, and nothing is written through a link
    planted in ``target`` (OSError naming it). In a student copy (see :func:`copy_student_tutorials`)
    a notebook comes without its solutions. Returns the files copied and the files kept; for
    ``target`` the tutorials' own folder (a source checkout's ``notebooks/``, whose notebooks find
    their data in ``benchmarks/``), neither.
    """
    files = tutorial_files()
    student = (target / STUDENT_MARK).is_file()
    return _copy_missing(files, tutorials_dir(), target, "the tutorials", student=student)


def copy_examples(target: Path) -> tuple[list[Path], list[Path]]:
    """Copy each example DxDispatch model into ``target`` unless a file of that name is there already.

    As :func:`copy_tutorials` does: an edited model is never overwritten, nothing is written
    through a link planted in ``target`` (OSError naming it), and ``target`` the examples' own
    folder (a source checkout's ``examples/``) copies nothing. Returns the files copied and the
    files kept.
    """
    source = examples_dir()
    return _copy_missing(sorted(source.glob("*.json")), source, target, "the examples")


def _copy_missing(
    files: list[Path], source: Path, target: Path, what: str, *, student: bool = False
) -> tuple[list[Path], list[Path]]:
    """Copy each of ``files``, which lie in ``source``, into ``target`` where it is missing; the
    files copied and the files kept."""
    if target.exists() and target.is_dir() and target.resolve() == source.resolve():
        return [], []
    destinations = _destinations(files, target, what)
    target.mkdir(parents=True, exist_ok=True)
    copied, kept = [], []
    for file, destination in zip(files, destinations):
        if destination.exists():
            kept.append(destination)
            continue
        _write(file, destination, student=student)
        copied.append(destination)
    return copied, kept


def copy_student_tutorials(target: Path, *, overwrite: bool = False) -> tuple[list[Path], int]:
    """Write a student copy of the tutorials into ``target``: every notebook without its solution
    cells, the data files as they are, and the mark of a student copy.

    ``target`` must be new or empty (FileExistsError otherwise) unless ``overwrite``, which replaces
    the tutorial files in it and leaves any other file alone; the tutorials' own folder is refused
    (the solutions stay there). Returns the files written and the number of solution cells left out.
    """
    files = tutorial_files()
    if target.is_dir() and target.resolve() == tutorials_dir().resolve():
        raise OSError(f"{target} is the tutorials' own folder, which keeps the solutions; choose another folder")
    destinations = _destinations(files, target)
    if target.is_dir() and any(target.iterdir()) and not overwrite:
        raise FileExistsError(
            f"{target} is not empty: a student copy goes into a new or empty folder "
            "(--overwrite replaces the tutorial files in it)"
        )
    mark = target / STUDENT_MARK
    if mark.is_symlink() or (mark.exists() and not mark.is_file()):
        raise OSError(f"{mark} is there but is not a regular file; move it away first")
    target.mkdir(parents=True, exist_ok=True)
    left_out = 0
    for file, destination in zip(files, destinations):
        destination.unlink(missing_ok=True)  # a regular file (checked above): replaced only with overwrite
        left_out += _write(file, destination, student=True)
    mark.unlink(missing_ok=True)
    _create(mark, _MARK_TEXT.encode("utf-8"))
    return destinations, left_out
