"""The ``stridelab`` command (also ``python -m stridelab``).

Subcommands:

- ``stridelab lab [DIR] [JupyterLab options]``: copy the tutorial notebooks into DIR (default
  ``./stridelab-tutorials``) where they are not there yet, never overwriting a student's edits,
  and open JupyterLab on ``00-start-here`` there, bound to 127.0.0.1.
- ``stridelab explain DESC``: explain a layout given in one line (``'FLOAT16 (1,1,2,3):(0,0,5,1)'``)
  or as DxDispatch JSON: its memory order, what DirectML, NumPy and PyTorch call it, its padding,
  broadcast and overlap, and how to reach NCHW or NHWC.
- ``stridelab show DESC|MODEL.json [--svg F] [--png F]``: the memory map as text, or as a picture;
  for a DxDispatch model, every tensor of every dispatchable, named.
- ``stridelab dispatch MODEL.json [--backend numpy|cupy] [-i N] [--output-dir DIR] ...``: run a
  DxDispatch model and print what DxDispatch prints; its files are read from the model's folder and
  written under ``./<model>-output`` (``--list-io`` lists them and runs nothing).

Errors are one line on stderr and exit status 2; a model that fails while running (memory or disk
runs out) exits with status 1, and a file it cannot write is reported in DxDispatch's words while
the run goes on, then exits with status 1. ``--debug`` shows the traceback instead. Every line the
command writes shows control characters as escapes.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from . import __version__
from ._optional import optional_imports
from ._tutorials import START, copy_tutorials
from .dxdispatch.files import MAX_MODEL_BYTES, MAX_WRITTEN_BYTES
from .errors import LayoutError

DEFAULT_TUTORIALS_DIR = Path("stridelab-tutorials")
USAGE_ERROR = 2
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


def _lab(args: argparse.Namespace, jupyterlab_options: list[str]) -> int:
    directory: Path = args.directory
    if directory.exists() and not directory.is_dir():
        raise CommandError(f"cannot copy the tutorials into {directory}: it is a file, not a folder")
    try:
        with optional_imports("lab", "stridelab lab"):
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
    LabApp.launch_instance(argv=jupyterlab_argv(directory, jupyterlab_options, uid=uid))
    return 0


def _explain(args: argparse.Namespace, options: list[str]) -> int:
    from ._explain import explain
    from .desc import TensorDesc

    try:
        desc = TensorDesc.parse(args.desc)
    except LayoutError as error:
        raise CommandError(str(error)) from error
    print(explain(desc))
    return 0


def _is_model(argument: str) -> bool:
    return argument.lower().endswith(".json") and not argument.lstrip().startswith("{")


def _show(args: argparse.Namespace, options: list[str]) -> int:
    from .desc import TensorDesc
    from .render.scene import build_scene
    from .render.text import render_text

    try:
        if _is_model(args.what):
            from .dxdispatch import read_tensors

            tensors = read_tensors(args.what, max_model_bytes=args.max_model_bytes)
        else:
            tensors = {"": TensorDesc.parse(args.what)}
        if args.svg is None and args.png is None:
            texts = [f"== {name}\n{render_text(desc)}" if name else render_text(desc) for name, desc in tensors.items()]
            print("\n\n".join(texts) if tensors else "the model has no dispatchables, so no tensors")
            return 0
        scenes, names = [build_scene(desc) for desc in tensors.values()], list(tensors)
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


def _run_failure(error: BaseException) -> str:
    if isinstance(error, MemoryError):
        return "out of memory (a process limit such as ulimit -v, or the machine's memory)"
    reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    return f"the run stopped: {reason}"


def _byte_count(text: str) -> int:
    """A number of bytes: digits, optionally with a K, M or G suffix (powers of 1024)."""
    scale = {"K": 2**10, "M": 2**20, "G": 2**30}.get(text[-1:].upper(), 1)
    digits = text[:-1] if scale > 1 else text
    if not digits.isdigit() or int(digits) < 1:
        raise argparse.ArgumentTypeError(f"expected a number of bytes such as 4096, 64M or 2G, not {text!r}")
    return int(digits) * scale


def _iterations(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, not {text!r}")
    return value


class _Parser(argparse.ArgumentParser):
    """Command-line mistakes as one line (and exit status 2), like every other error."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _model_size_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-model-bytes",
        type=_byte_count,
        default=MAX_MODEL_BYTES,
        metavar="N",
        help=f"read a model file of at most N bytes (default {MAX_MODEL_BYTES // 2**20}M)",
    )


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="stridelab",
        description="stridelab: DirectML tensor memory layouts, computed, drawn and tested.",
    )
    parser.add_argument("--version", action="version", version=f"stridelab {__version__}")
    parser.add_argument("--debug", action="store_true", help="on an error, show the traceback")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    lab = commands.add_parser(
        "lab",
        help="open the tutorials in JupyterLab",
        description=(
            "Copy the tutorial notebooks into DIR where they are not there yet (a notebook you "
            "edited is never overwritten) and open JupyterLab on 00-start-here.ipynb, bound to "
            "127.0.0.1. Other options go to JupyterLab in their --name=value form, e.g. "
            "--no-browser, --port=8899, or --ip=0.0.0.0 to serve from a container."
        ),
    )
    lab.add_argument(
        "directory",
        metavar="DIR",
        nargs="?",
        type=Path,
        default=DEFAULT_TUTORIALS_DIR,
        help=f"where the tutorials are copied and served (default: ./{DEFAULT_TUTORIALS_DIR})",
    )
    lab.set_defaults(run=_lab, passes_options=True)
    explain = commands.add_parser(
        "explain",
        help="explain a layout",
        description=(
            "Explain a layout: its memory order, what DirectML, NumPy and PyTorch call it, its padding, "
            "broadcast and overlap, and the view or copy that reaches NCHW or NHWC."
        ),
    )
    explain.add_argument(
        "desc",
        metavar="DESC",
        help="the layout in one line, e.g. 'FLOAT16 (1,1,2,3):(0,0,5,1)', or DxDispatch JSON",
    )
    explain.set_defaults(run=_explain)
    show = commands.add_parser(
        "show",
        help="show a layout's memory map, or every tensor of a DxDispatch model",
        description=(
            "Show the memory map of a layout (logical view beside the buffer) as text, or draw it with "
            "--svg/--png. Given a DxDispatch model (MODEL.json), show every tensor of every dispatchable, named."
        ),
    )
    show.add_argument(
        "what",
        metavar="DESC|MODEL.json",
        help="a layout in one line, e.g. 'FLOAT16 (1,1,2,3):(0,0,5,1)', a JSON tensor desc, or a model file",
    )
    show.add_argument("--svg", type=Path, metavar="FILE", help="write the picture as SVG")
    show.add_argument(
        "--png", type=Path, metavar="FILE", help="write the picture as PNG (needs Pillow: the plot extra)"
    )
    _model_size_option(show)
    show.set_defaults(run=_show)
    dispatch = commands.add_parser(
        "dispatch",
        help="run a DxDispatch model",
        description=(
            "Run a DirectML DxDispatch model (resources, dispatchables, commands) with NumPy or on an NVIDIA GPU, "
            "printing what DxDispatch prints. The whole model is checked first: a bad model runs no command. "
            "A model is data from someone else: it reads files only from its own folder (and --input-dir), "
            "writes data files only under the output folder, and is held to a memory and a disk budget; "
            "--allow-any-path gives a model you trust DxDispatch's reach."
        ),
    )
    dispatch.add_argument("model", metavar="MODEL.json", type=Path, help="the model file")
    dispatch.add_argument(
        "--backend", choices=("numpy", "cupy"), default="numpy", help="numpy (CPU, default) or cupy (NVIDIA GPU)"
    )
    dispatch.add_argument(
        "-i",
        "--dispatch-iterations",
        "--dispatch_iterations",  # DxDispatch's spelling
        dest="iterations",
        type=_iterations,
        default=1,
        metavar="N",
        help="run each dispatch N times and print the median time (default 1)",
    )
    dispatch.add_argument(
        "--input-dir", type=Path, metavar="DIR", help="one more folder the model's sourcePath files may come from"
    )
    dispatch.add_argument(
        "--output-dir",
        type=Path,
        metavar="DIR",
        help="where writeFile writes (default: ./MODEL-output, created when a file is written)",
    )
    dispatch.add_argument(
        "--allow-any-path",
        action="store_true",
        help="trust the model as DxDispatch does: absolute paths, '..', links, the current directory",
    )
    dispatch.add_argument(
        "--list-io", action="store_true", help="list every file the model would read or write, and run nothing"
    )
    _model_size_option(dispatch)
    dispatch.add_argument(
        "--max-written-bytes",
        type=_byte_count,
        default=MAX_WRITTEN_BYTES,
        metavar="N",
        help=(
            f"write at most N bytes of files and printed text (default {MAX_WRITTEN_BYTES // 2**20}M; "
            "never over half the free disk)"
        ),
    )
    dispatch.set_defaults(run=_dispatch)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``stridelab`` command with ``argv`` (default: ``sys.argv[1:]``); the exit status."""
    parser = _parser()
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
