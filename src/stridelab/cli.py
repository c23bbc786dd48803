"""The ``stridelab`` command (also ``python -m stridelab``).

Subcommands:

- ``stridelab lab [DIR] [JupyterLab options]``: copy the tutorial notebooks into DIR (default
  ``./stridelab-tutorials``) where they are not there yet, never overwriting a student's edits,
  and open JupyterLab on ``00-start-here`` there, bound to 127.0.0.1.
- ``stridelab explain DESC``: explain a layout given in one line (``'FLOAT16 (1,1,2,3):(0,0,5,1)'``)
  or as DxDispatch JSON: its memory order, what DirectML, NumPy and PyTorch call it, its padding,
  broadcast and overlap, and how to reach NCHW or NHWC.

Errors are one line on stderr and exit status 2; ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from ._optional import optional_imports
from ._tutorials import START, copy_tutorials

DEFAULT_TUTORIALS_DIR = Path("stridelab-tutorials")
USAGE_ERROR = 2


class CommandError(Exception):
    """A bad command line or environment: printed as one line, exit status 2."""


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
    try:
        with optional_imports("lab", "stridelab lab"):
            from jupyterlab.labapp import LabApp
    except ImportError as error:
        raise CommandError(str(error)) from error
    directory: Path = args.directory
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
    from .errors import LayoutError

    try:
        desc = TensorDesc.parse(args.desc)
    except LayoutError as error:
        raise CommandError(str(error)) from error
    print(explain(desc))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
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
    except CommandError as error:
        if args.debug:
            raise
        print(f"stridelab {args.command}: error: {error}", file=sys.stderr)
        return USAGE_ERROR


if __name__ == "__main__":
    sys.exit(main())
