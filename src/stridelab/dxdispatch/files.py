"""Where a model may read and write, and how its files are opened: a model is data from a stranger.

A course on a shared server invites running models someone else wrote, so by default a model
reaches only what the user gave it, the way Python's ``tarfile`` extraction filters (PEP 706) keep
an archive inside the folder it is extracted to:

- **Inputs** (``initialValues.sourcePath``) are read from the model's own folder (its real path),
  or from one more folder the user names (``input_dir``): relative paths whose ``..`` stays
  inside, with no hidden part (``.ssh``), and no fallback to the current directory. The file itself
  is never a link, and a folder on the way may link only within the same folder.
- **Outputs** (``writeFile``'s ``targetPath``) go under one output folder (by default
  ``./<model name>-output/``), with a data suffix (:data:`OUTPUT_SUFFIXES`), no hidden part, never
  through a link: a model cannot write ``numpy.py`` beside a notebook or a startup file in ``~``.
- **Every file** is opened without blocking and must be a regular file outside the kernel's
  pseudo-files (no FIFO, device, ``/proc`` or ``/sys`` file), whose size is checked before it is
  read; a file is written as a new file renamed into place, so a failed write leaves the old one.

``allow_any_path=True`` restores DxDispatch's own trust, for models the user wrote: absolute paths,
``..`` anywhere, links, the current directory as a fallback for inputs and as the output base. The
regular-file and size checks stay.

internal: the public names are :mod:`stridelab.dxdispatch`'s.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import BinaryIO

from .._validate import shown
from ..errors import LayoutError

__all__: list[str] = []

#: The largest model file read by default: the largest upstream DxDispatch model is about 15 KB.
MAX_MODEL_BYTES = 2**20
#: The most bytes one run writes by default, its files and the text it prints together (never
#: more than half the free disk either).
MAX_WRITTEN_BYTES = 256 * 2**20
#: The suffixes a model may give the files it writes: data, never code or configuration.
OUTPUT_SUFFIXES = (".npy", ".bin", ".raw", ".dat")
#: The longest resource or dispatchable name: names are printed, and appear in every message.
MAX_NAME_CHARACTERS = 256
#: The most parts (folders and the file) of a path a model names, and the longest part in bytes
#: (most file systems' NAME_MAX), so that writing cannot build deep trees of folders.
MAX_PATH_PARTS = 8
_MAX_PART_BYTES = 255
#: The image suffixes DxDispatch reads and writes through WIC, which stridelab does not.
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")

_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
#: Folders of the kernel's pseudo-files: what they report is no file's content.
_PSEUDO_FOLDERS = ("/proc", "/sys", "/dev")


def check_text(where: str, text: str) -> None:
    """Refuse text a terminal would act on rather than show: control characters (a newline forges
    a line of output, an escape retitles the terminal), bidirectional overrides, lone surrogates."""
    if not text.isprintable():
        bad = next(c for c in text if not c.isprintable())
        value = shown(text, json=True)
        raise LayoutError(f"{where} = {value} holds the character U+{ord(bad):04X}: names and paths must be printable")


def check_name(where: str, name: str) -> None:
    """A resource or dispatchable name: printable, and at most :data:`MAX_NAME_CHARACTERS` long."""
    check_text(where, name)
    if len(name) > MAX_NAME_CHARACTERS:
        raise LayoutError(f"{where} = {shown(name, json=True)}: a name has at most {MAX_NAME_CHARACTERS} characters")


def default_output_dir(model: Path) -> Path:
    """``./<model stem>-output``: where a model's files go unless the user names a folder."""
    return Path(f"{model.stem}-output")


def check_output_dir(folder: Path) -> None:
    """Refuse an output folder that is a link (one planted beside a model would send its files
    elsewhere; give the real path) or that is not a folder."""
    if folder.is_symlink():
        raise LayoutError(
            f"the output folder {str(folder)!r} is a symbolic link; give its real path ({os.path.realpath(folder)!r})"
            " with --output-dir / output_dir"
        )
    if folder.exists() and not folder.is_dir():
        raise LayoutError(f"the output folder {str(folder)!r} is not a folder")


class Folders:
    """The folders a model reads from and writes to, and the rules for the paths it names."""

    def __init__(self, model: Path, input_dir: str | os.PathLike[str] | None, allow_any_path: bool) -> None:
        self.inputs = [Path(os.path.realpath(model.parent))]
        if input_dir is not None:
            folder = Path(os.path.realpath(input_dir))
            if not folder.is_dir():
                raise LayoutError(f"input_dir = {shown(str(input_dir), json=True)} is not a folder")
            self.inputs.append(folder)
        self.allow_any_path = allow_any_path

    def describe_inputs(self) -> str:
        return " or ".join(repr(str(folder)) for folder in self.inputs)

    def input(self, where: str, source: str) -> Path:
        """The file ``sourcePath`` = ``source`` names, found by the rules above; LayoutError if none."""
        field = f"{where}: sourcePath"
        _check_path(field, source)
        if self.allow_any_path:
            for candidate in (*(folder / source for folder in self.inputs), Path(source)):
                if os.path.lexists(candidate):  # opening it refuses anything but a regular file
                    return candidate
            raise LayoutError(f"{field} {source!r} is not a file in {self.describe_inputs()} or the current directory")
        relative = _relative(field, source, "the model's folder")
        for folder in self.inputs:
            candidate = folder / relative
            if not os.path.lexists(candidate):
                continue
            if not _inside(folder, Path(os.path.realpath(candidate.parent))):
                raise LayoutError(f"{field} {source!r} leads through a link out of {str(folder)!r}")
            if candidate.is_symlink():
                raise LayoutError(f"{field} {source!r} is a symbolic link; links are not followed")
            return candidate
        raise LayoutError(f"{field} {source!r} is not a file in {self.describe_inputs()}")

    def open_input(self, where: str, source: str) -> tuple[BinaryIO, int, Path]:
        """The file ``source`` names, opened (a regular file, not an image), its size and path."""
        if PurePath(os.path.normpath(source)).suffix.lower() in _IMAGE_SUFFIXES:
            raise LayoutError(
                f"{where}: sourcePath {source!r}: image files are not read by stridelab (give .npy or raw bytes)"
            )
        path = self.input(where, source)
        file, size = open_regular(path, f"{where}: sourcePath", follow_links=self.allow_any_path)
        return file, size, path


def output_target(where: str, target: object, allow_any_path: bool) -> str:
    """``targetPath`` checked and normalised: inside the output folder, a data suffix (DxDispatch's
    rules where ``allow_any_path``: any path, any suffix but the image ones it would encode)."""
    if not isinstance(target, str) or not target:
        raise LayoutError(f"{where} = {shown(target, json=True)}: expected a file name")
    _check_path(where, target)
    if PurePath(target).suffix.lower() in _IMAGE_SUFFIXES:
        raise LayoutError(f"{where} = {target!r}: stridelab writes .npy files and raw bytes, not images")
    if allow_any_path:
        return os.path.normpath(target)
    normal = _relative(where, target, "the output folder")
    if normal.suffix.lower() not in OUTPUT_SUFFIXES:
        raise LayoutError(
            f"{where} = {target!r}: a model writes data files only, named {', '.join(OUTPUT_SUFFIXES)} "
            "(allow_any_path / --allow-any-path for a model you trust)"
        )
    return str(normal)


def _check_path(where: str, path: str) -> None:
    """A path a model names: printable, no NUL, at most :data:`MAX_PATH_PARTS` parts of at most
    255 bytes each."""
    if "\0" in path:
        raise LayoutError(f"{where} = {shown(path, json=True)}: a file name cannot hold a NUL character")
    check_text(where, path)
    parts = PurePath(path).parts
    if len(parts) > MAX_PATH_PARTS or any(
        len(part.encode("utf-8", "surrogatepass")) > _MAX_PART_BYTES for part in parts
    ):
        raise LayoutError(
            f"{where} = {shown(path, json=True)}: a path has at most {MAX_PATH_PARTS} parts of at most "
            f"{_MAX_PART_BYTES} bytes each"
        )


def _relative(where: str, path: str, folder: str) -> PurePath:
    """``path`` as a relative path that stays inside ``folder`` and has no hidden part."""
    pure = PurePath(path)
    if pure.is_absolute() or pure.drive or pure.root:
        raise LayoutError(
            f"{where} = {path!r}: an absolute path; a model names files inside {folder} "
            "(allow_any_path / --allow-any-path for a model you trust)"
        )
    depth = 0
    for part in pure.parts:
        depth += -1 if part == ".." else 0 if part == "." else 1
        if depth < 0:
            raise LayoutError(
                f"{where} = {path!r} leaves {folder} through '..' (allow_any_path / --allow-any-path for a model "
                "you trust)"
            )
        if part.startswith(".") and part not in (".", ".."):
            raise LayoutError(f"{where} = {path!r}: the hidden name {part!r}; a model names no hidden file or folder")
    normal = PurePath(os.path.normpath(path))
    if normal == PurePath("."):
        raise LayoutError(f"{where} = {path!r} names {folder} itself, not a file in it")
    return normal


def _inside(folder: Path, path: Path) -> bool:
    return path == folder or folder in path.parents


def open_regular(path: Path, what: str, *, follow_links: bool = True) -> tuple[BinaryIO, int]:
    """``path`` opened for reading without blocking, and its size; LayoutError unless it is a
    regular file outside ``/proc``, ``/sys`` and ``/dev`` (a FIFO, a device, a folder or a kernel
    pseudo-file is refused before anything is read)."""
    flags = _READ_FLAGS | (0 if follow_links else _NO_FOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise LayoutError(f"cannot read {what} {str(path)!r}: {_reason(error)}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise LayoutError(f"{what} {str(path)!r} is not a regular file ({_kind(info.st_mode)})")
    if _is_pseudo_file(path, info.st_dev):
        os.close(fd)
        raise LayoutError(f"{what} {str(path)!r} is a file of /proc, /sys or /dev, which holds no data to read")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb"), info.st_size


def _is_pseudo_file(path: Path, device: int) -> bool:
    real = os.path.realpath(path)
    if any(real == folder or real.startswith(folder + os.sep) for folder in _PSEUDO_FOLDERS):
        return True
    return device in _pseudo_devices()


@functools.cache
def _pseudo_devices() -> frozenset[int]:
    """The devices of the kernel's pseudo-file systems mounted at ``/proc``, ``/sys``, ``/dev``."""
    devices = set()
    for folder in _PSEUDO_FOLDERS:
        with contextlib.suppress(OSError):
            devices.add(os.stat(folder).st_dev)
    with contextlib.suppress(OSError):
        devices.discard(os.stat("/").st_dev)  # where one is not mounted, it is a plain folder of /
    return frozenset(devices)


def read_regular(path: Path, what: str, max_bytes: int, *, follow_links: bool = True, limit_name: str = "") -> bytes:
    """The bytes of the regular file at ``path``, refused before reading where it holds more than
    ``max_bytes`` (``limit_name`` says how to raise it) or none."""
    file, size = open_regular(path, what, follow_links=follow_links)
    with file:
        if size > max_bytes:
            raise LayoutError(
                f"{what} {str(path)!r} has {size} bytes, more than the {max_bytes} read at most{limit_name}"
            )
        if size == 0:
            raise LayoutError(f"{what} {str(path)!r} is empty")
        try:
            data = file.read(size + 1)
        except OSError as error:
            raise LayoutError(f"cannot read {what} {str(path)!r}: {_reason(error)}") from None
    if len(data) != size:
        raise LayoutError(f"{what} {str(path)!r} changed size while it was read")
    return data


def write_file(output_dir: Path, path: Path, write: Callable[[BinaryIO], object], allow_any_path: bool) -> None:
    """Call ``write`` on a new file that then replaces ``path`` (under ``output_dir`` unless
    ``allow_any_path``, where a link at ``path`` is followed as DxDispatch would): the folders on
    the way are created, never through a link, and only a regular file is replaced. Writing to a
    new file and renaming it into place leaves the old file whole, and any file hard-linked to it
    untouched, when the write fails; the folders made for it are removed again. OSError, in words
    DxDispatch's message can quote, where it cannot."""
    if allow_any_path:
        path = Path(os.path.realpath(path))
        if any(str(path).startswith(folder + os.sep) for folder in _PSEUDO_FOLDERS):
            raise OSError(errno.EPERM, "a file of /proc, /sys or /dev is not written")
        created = _missing_folders(path.parent)
        path.parent.mkdir(parents=True, exist_ok=True)
    else:
        created = _make_folders(output_dir, path.parent)
    temporary = path.parent / f".{path.name}.{secrets.token_hex(4)}.partial"
    try:
        if os.path.lexists(path) and (path.is_symlink() or not path.is_file()):
            kind = "a symbolic link" if path.is_symlink() else _kind(os.lstat(path).st_mode)
            raise OSError(errno.EEXIST, f"{kind} is there, and only a regular file is replaced")
        with os.fdopen(os.open(temporary, _NEW_FILE_FLAGS, 0o666), "wb") as file:
            write(file)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        _remove(created)
        raise


def _missing_folders(folder: Path) -> list[Path]:
    """The folders from the first missing one down to ``folder``, outermost first."""
    missing = []
    while not os.path.lexists(folder) and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing[::-1]


def _make_folders(output_dir: Path, folder: Path) -> list[Path]:
    """``output_dir`` (created where missing) and each folder from it down to ``folder``: created
    where missing, none of them a link, all inside ``output_dir``'s real path; the ones created."""
    created = _missing_folders(output_dir)
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
        real = Path(os.path.realpath(output_dir))
        current = output_dir
        for part in folder.relative_to(output_dir).parts:
            current = current / part
            if current.is_symlink():
                raise OSError(
                    errno.ELOOP, f"{str(current)!r} is a symbolic link, and no file is written through a link"
                )
            if not current.exists():
                current.mkdir()
                created.append(current)
            elif not current.is_dir():
                raise OSError(errno.ENOTDIR, f"{str(current)!r} is not a folder")
        if not _inside(real, Path(os.path.realpath(folder))):
            raise OSError(errno.EXDEV, f"{str(folder)!r} lies outside the output folder {str(real)!r}")
    except BaseException:
        _remove(created)
        raise
    return created


def _remove(folders: list[Path]) -> None:
    """Remove the (empty) ``folders`` made for a write that failed, innermost first."""
    for folder in reversed(folders):
        with contextlib.suppress(OSError):
            folder.rmdir()


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISLNK, "a symbolic link"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _reason(error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return "it is a symbolic link, and links are not followed"
    if error.errno == errno.ENXIO:
        return "it is a FIFO or socket with nobody at the other end"
    return error.strerror or str(error)
