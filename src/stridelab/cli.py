"""The ``stridelab`` command (also ``python -m stridelab``).

Subcommands:

- ``stridelab lab [DIR] [JupyterLab options]``: copy the tutorial notebooks into DIR (default
  ``./stridelab-tutorials``) where they are not there yet, never overwriting a student's edits,
  and open JupyterLab on ``00-start-here`` there, bound to 127.0.0.1, its kernels reached over Unix
  sockets where the system has them, saving widget state with each notebook so that a notebook
  saved after running keeps its widgets' pictures (see :mod:`stridelab._lab_settings`; in plain
  ``jupyter lab``: Settings > "Save Widget State Automatically"). ``stridelab lab --student DIR [--overwrite]`` writes a
  student copy (the notebooks without their solutions) and exits.
- ``stridelab examples [DIR]``: copy the example DxDispatch models into DIR (default
  ``./stridelab-examples``) where they are not there yet, and print the command that runs one.
- ``stridelab explain DESC``: explain a layout given in one line (``'FLOAT16 (1,1,2,3):(0,0,5,1)'``,
  ``'torch.float16 [2,3]:[3,1] +5'``: see :meth:`TensorDesc.parse_placed`) or as DxDispatch JSON: where
  it starts, its memory order, what DirectML, NumPy and PyTorch call it, its padding, broadcast and
  overlap, and how to reach NCHW or NHWC. A line that names no data type is FLOAT32, and it says so.
- ``stridelab show DESC|MODEL.json [--svg F] [--png F]``: the memory map as text, or as a picture;
  for a DxDispatch model, every tensor of every dispatchable, named, an output that copies its
  input's elements showing their letters (see :mod:`stridelab.dxdispatch.pictures`).
- ``stridelab dispatch MODEL.json [--backend numpy|cupy] [-i N] [--output-dir DIR] ...``: run a
  DxDispatch model and print what DxDispatch prints; its files are read from the model's folder and
  written under ``./<model>-output`` (``--list-io`` lists them and runs nothing).
- ``stridelab check MODULE:FUNCTION --shape 2,3,4,5 [--dtype float32] [--out-shape ...]``: call the
  function with inputs of small whole numbers in every layout of stridelab's catalogue and print one
  row per layout; exit status 1 when a layout fails.

Errors are one line on stderr and exit status 2; a model that fails while running (memory or disk
runs out) exits with status 1, and a file it cannot write is reported in DxDispatch's words while
the run goes on, then exits with status 1. ``--debug`` shows the traceback instead. Every line the
command writes shows control characters as escapes.

internal: the command is the interface; :func:`main` runs it.
"""

from __future__ import annotations

import argparse
import os
import shlex
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._cli_parser import USAGE_ERROR, build_parser
from ._lab_settings import lab_defaults
from ._optional import optional_imports
from ._tutorials import EXAMPLE, START, copy_examples, copy_student_tutorials, copy_tutorials
from .errors import LayoutError

__all__: list[str] = []

RUN_FAILED = 1
INTERRUPTED = 130  # 128 + SIGINT, as shells report it


def printable(text: str) -> str:
    """``text`` as a terminal shows it, never acts on it: every control character (a newline that
    would forge a line, an escape that would retitle the terminal) written as an escape.

    >>> printable("model.json: name 'a\\x1b]0;title\\x07\\nDispatch ...'")
    "model.json: name 'a\\\\x1b]0;title\\\\x07\\\\nDispatch ...'"
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class CommandError(Exception):
    """A bad command line or environment: printed as one line, exit status 2."""


class RunFailed(Exception):
    """A failure while a model runs (memory, disk): printed as one line, exit status 1."""


def jupyterlab_argv(directory: Path, options: Sequence[str], *, uid: int | None) -> list[str]:
    """JupyterLab's arguments to serve ``directory`` and open ``START`` there (the URL it prints
    opens the notebook too): bound to 127.0.0.1, with ``--allow-root`` for uid 0 (JupyterLab
    refuses root otherwise); ``options`` come last, so a user's ``--ip=0.0.0.0`` wins.

    >>> jupyterlab_argv(Path("tutorials"), ["--no-browser"], uid=0)  # doctest: +NORMALIZE_WHITESPACE
    ['--ServerApp.root_dir=tutorials', '--LabApp.default_url=/lab/tree/00-start-here.ipynb',
     '--ip=127.0.0.1', '--allow-root', '--no-browser']
    """
    root = ["--allow-root"] if uid == 0 else []
    return [
        f"--ServerApp.root_dir={directory}",
        f"--LabApp.default_url=/lab/tree/{START}",
        "--ip=127.0.0.1",
        *root,
        *options,
    ]


#: The longest path a Unix socket may have, in bytes: ``sun_path`` holds 104 bytes on macOS and
#: the BSDs (108 on Linux), the final NUL included.
MAX_SOCKET_PATH = 103
#: The name jupyter_client gives a kernel's Unix sockets in the runtime folder (the number: 1 to 5).
_KERNEL_SOCKET = "kernel-00000000-0000-0000-0000-000000000000-ipc-99"


def kernel_options(runtime_dir: str, *, posix: bool) -> list[str]:
    """JupyterLab's options for reaching its kernels: over Unix sockets in its runtime folder, which
    only the user may open (so ipykernel has no unencrypted TCP to warn about at each kernel start),
    where the system has them and the sockets' paths fit; otherwise none: TCP on 127.0.0.1.

    >>> kernel_options("/home/ada/.local/share/jupyter/runtime", posix=True)
    ['--KernelManager.transport=ipc']
    >>> kernel_options("/home/ada/.local/share/jupyter/runtime", posix=False)
    []
    >>> kernel_options("/home/" + "a" * 60, posix=True)  # a socket path past the limit
    []
    """
    socket = os.path.join(runtime_dir, _KERNEL_SOCKET)
    if not posix or len(os.fsencode(socket)) > MAX_SOCKET_PATH:
        return []
    return ["--KernelManager.transport=ipc"]


def _lab(args: argparse.Namespace, jupyterlab_options: list[str]) -> int:
    directory: Path = args.directory
    if args.student:
        return _student_copy(directory, jupyterlab_options, overwrite=args.overwrite)
    if args.overwrite:
        raise CommandError("--overwrite goes with --student; stridelab lab never overwrites a tutorial file")
    if directory.exists() and not directory.is_dir():
        raise CommandError(f"cannot copy the tutorials into {directory}: it is a file, not a folder")
    try:
        with optional_imports("lab", "stridelab lab"):
            from jupyter_core.paths import jupyter_runtime_dir
            from jupyterlab.labapp import LabApp
    except ImportError as error:
        raise CommandError(str(error)) from error
    try:
        copied, kept = copy_tutorials(directory)
    except OSError as error:
        raise CommandError(str(error)) from error
    if copied:
        print(f"stridelab: copied {len(copied)} tutorial files into {directory}")
    if kept:
        print(f"stridelab: left the {len(kept)} tutorial files already in {directory} as they are", end=" ")
        print("(delete one to get a fresh copy)")
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    options = [*kernel_options(jupyter_runtime_dir(), posix=os.name == "posix"), *jupyterlab_options]
    with lab_defaults():
        LabApp.launch_instance(argv=jupyterlab_argv(directory, options, uid=uid))
    return 0


def _student_copy(directory: Path, jupyterlab_options: list[str], *, overwrite: bool) -> int:
    """``stridelab lab --student DIR``: the student copy written, no JupyterLab started."""
    if jupyterlab_options:
        unused = " ".join(jupyterlab_options)
        raise CommandError(f"--student writes a copy and starts no JupyterLab; options not used: {unused}")
    try:
        written, left_out = copy_student_tutorials(directory, overwrite=overwrite)
    except OSError as error:
        raise CommandError(str(error)) from error
    shown = printable(str(directory))
    print(f"stridelab: wrote {len(written)} tutorial files into {shown}, leaving out {left_out} solutions")
    print(f"stridelab: students open them with: stridelab lab {shown}")
    return 0


def _examples(args: argparse.Namespace, options: list[str]) -> int:
    directory: Path = args.directory
    try:
        copied, kept = copy_examples(directory)
    except OSError as error:
        raise CommandError(str(error)) from error
    shown = printable(str(directory))
    if not copied and not kept:
        print(f"stridelab: {shown} is where the example models are kept; nothing to copy")
    if copied:
        print(f"stridelab: copied {len(copied)} example models into {shown}:")
        for path in copied:
            print(f"  {printable(path.name)}")
    if kept:
        print(f"stridelab: left the {len(kept)} example files already in {shown} as they are", end=" ")
        print("(delete one to get a fresh copy)")
    print(f"stridelab: try: stridelab dispatch {printable(shlex.quote(str(directory / EXAMPLE)))}")
    return 0


def _explain(args: argparse.Namespace, options: list[str]) -> int:
    from ._desc_text import read_placed
    from ._explain import explain
    from .desc import TensorDesc

    try:
        placed, typed = read_placed(TensorDesc, args.desc)
    except LayoutError as error:
        raise CommandError(str(error)) from error
    if not typed:
        print(_assumed(placed))
    print(explain(placed))
    return 0


def _assumed(placed: Any) -> str:
    """The line saying that a description given without a data type is FLOAT32, with the line
    that names one (FLOAT16 for the example)."""
    example = str(placed.desc.replace(data_type="FLOAT16").placed(placed.offset))
    return f"data type: {placed.desc.data_type} assumed, since none is given (name one first, e.g. '{example}')"


def _is_model(argument: str) -> bool:
    return argument.lower().endswith(".json") and not argument.lstrip().startswith("{")


def _shown(what: str, max_model_bytes: int) -> tuple[list[tuple[str, Any, Any]], list[str]]:
    """What ``stridelab show`` draws, as (name, description, where its labels come from): one
    description (drawn from its offset into the buffer on), unnamed, or every tensor of a model;
    and the lines to print first about a description (its data type assumed)."""
    if not _is_model(what):
        from ._desc_text import read_placed
        from .desc import TensorDesc

        placed, typed = read_placed(TensorDesc, what)
        return [("", placed, None)], [] if typed else [_assumed(placed)]
    from .dxdispatch.loading import read_dispatchables
    from .dxdispatch.pictures import panels

    return list(panels(read_dispatchables(what, max_model_bytes=max_model_bytes))), []


def _show(args: argparse.Namespace, options: list[str]) -> int:
    from .render.scene import build_scene
    from .render.text import TEXT_MAX_CELLS, scene_text

    try:
        shown, notes = _shown(args.what, args.max_model_bytes)
        for note in notes:
            print(note)
        if args.svg is None and args.png is None:
            texts = [
                (f"== {name}\n" if name else "")
                + scene_text(build_scene(desc, max_cells=TEXT_MAX_CELLS, labels_from=by))
                for name, desc, by in shown
            ]
            print("\n\n".join(texts) if shown else "the model has no dispatchables, so no tensors")
            return 0
        scenes, names = [build_scene(desc, labels_from=by) for _, desc, by in shown], [name for name, _, _ in shown]
        if not scenes:
            raise CommandError(f"{args.what} has no dispatchables, so no tensors to draw")
        if args.svg is not None:
            from .render.svg import pictures_svg

            _write(args.svg, pictures_svg(scenes, names).encode())
        if args.png is not None:
            with optional_imports("plot", "stridelab show --png"):
                from .render.png import pictures_png
            _write(args.png, pictures_png(scenes, names))
    except (LayoutError, TypeError, ImportError) as error:
        raise CommandError(str(error)) from error
    return 0


def _write(path: Path, data: bytes) -> None:
    """Write a picture the user asked for: a regular file (a FIFO or a device is refused, never
    waited on)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        if path.exists() and not path.is_file():
            raise CommandError(f"cannot write {str(path)!r}: it is not a regular file")
        fd = os.open(path, flags, 0o666)
        with os.fdopen(fd, "wb") as file:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise CommandError(f"cannot write {str(path)!r}: it is not a regular file")
            os.set_blocking(fd, True)
            file.write(data)
    except OSError as error:
        raise CommandError(f"cannot write {str(path)!r}: {error.strerror or error}") from error
    print(f"wrote {printable(str(path))}")


def _dispatch(args: argparse.Namespace, options: list[str]) -> int:
    from .dxdispatch import list_files, load
    from .dxdispatch.model import device_name

    where = {"input_dir": args.input_dir, "allow_any_path": args.allow_any_path}
    try:
        if args.list_io:
            uses = list_files(args.model, output_dir=args.output_dir, max_model_bytes=args.max_model_bytes, **where)
            for use in uses:
                print(printable(f"{use.action:<8} {use.where:<24} {use.detail}"))
            if not uses:
                print("the model reads and writes no file")
            return USAGE_ERROR if any(use.action == "refused" for use in uses) else 0
        model = load(args.model, max_model_bytes=args.max_model_bytes, **where)
        budget = {"output_dir": args.output_dir, "max_written_bytes": args.max_written_bytes}
        model.check_run(args.backend, **budget)
        print(f"Running on '{device_name(args.backend)}'")
        failures: list[str] = []

        def report(line: str) -> None:  # as DxDispatch does: on stderr, and the run goes on
            failures.append(line)
            print(printable(line), file=sys.stderr)

        model.run(args.backend, args.iterations, log=lambda line: print(printable(line)), on_error=report, **budget)
    except (LayoutError, TypeError, ImportError) as error:
        raise CommandError(str(error)) from error
    except (MemoryError, OSError) as error:
        raise RunFailed(_run_failure(error)) from error
    return RUN_FAILED if failures else 0


def _check(args: argparse.Namespace, options: list[str]) -> int:
    import importlib

    import numpy as np

    from ._sanitizer import check_layouts, generated

    module_name, _, function_name = args.target.partition(":")
    if not module_name or not function_name.isidentifier():
        raise CommandError(f"expected MODULE:FUNCTION such as mypackage.kernels:row_sum, not {args.target!r}")
    try:
        dtype = np.dtype(args.dtype)
    except TypeError as error:
        raise CommandError(f"--dtype {args.dtype!r} is no NumPy data type") from error
    if dtype.kind not in "biuf":
        raise CommandError(f"--dtype {args.dtype!r} is no number type (bool, int, uint or float)")
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        fn = getattr(importlib.import_module(module_name), function_name)
    except (ImportError, AttributeError) as error:
        raise CommandError(f"cannot import {args.target}: {error}") from error
    try:
        inputs = [generated(shape, dtype) for shape in args.shape]
        out = generated(args.out_shape, dtype) if args.out_shape else None
        check = check_layouts(
            fn, *inputs, out=out, max_layouts=args.max_layouts, strict=args.strict, isolate=args.isolate
        )
    except (LayoutError, TypeError) as error:  # the command's arguments, or a target that is no function
        raise CommandError(f"cannot check {args.target}: {error}") from error
    for line in str(check).splitlines():
        print(printable(line))
    return 0 if check.ok else RUN_FAILED


def _run_failure(error: BaseException) -> str:
    if isinstance(error, MemoryError):
        return "out of memory (a process limit such as ulimit -v, or the machine's memory)"
    reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    return f"the run stopped: {reason}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``stridelab`` command with ``argv`` (default: ``sys.argv[1:]``); the exit status."""
    runs = {"lab": _lab, "examples": _examples, "explain": _explain, "show": _show, "dispatch": _dispatch}
    parser = build_parser({**runs, "check": _check})
    args, unknown = parser.parse_known_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return USAGE_ERROR
    if unknown and not getattr(args, "passes_options", False):
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        return args.run(args, unknown)
    except (CommandError, RunFailed) as error:
        if args.debug:
            raise
        print(f"stridelab {args.command}: error: {printable(str(error))}", file=sys.stderr)
        return USAGE_ERROR if isinstance(error, CommandError) else RUN_FAILED
    except KeyboardInterrupt:
        print(f"stridelab {args.command}: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:  # whoever read stdout stopped (e.g. `| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing left to flush at exit
        return RUN_FAILED


if __name__ == "__main__":
    sys.exit(main())
