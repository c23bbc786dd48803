"""The ``stridelab`` command line's parser: its commands, their options and the checks of their values.

internal: :mod:`stridelab.cli` runs what it parses.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NoReturn

from . import __version__
from .dxdispatch.files import MAX_MODEL_BYTES, MAX_WRITTEN_BYTES

__all__: list[str] = []

DEFAULT_TUTORIALS_DIR = Path("stridelab-tutorials")
DEFAULT_EXAMPLES_DIR = Path("stridelab-examples")
USAGE_ERROR = 2
#: What a command runs: the parsed arguments and the options passed on (``lab``'s to JupyterLab).
Run = Callable[[argparse.Namespace, list[str]], int]


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


def _shape(text: str) -> tuple[int, ...]:
    """Sizes as comma-separated whole numbers, e.g. 2,3,4,5."""
    parts = text.split(",")
    if not text or not all(p.strip().isdigit() and int(p) >= 1 for p in parts) or len(parts) > 8:
        raise argparse.ArgumentTypeError(f"expected 1 to 8 sizes of at least 1 such as 2,3,4,5, not {text!r}")
    return tuple(int(p) for p in parts)


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


def build_parser(runs: Mapping[str, Run]) -> argparse.ArgumentParser:
    """The ``stridelab`` command line; ``runs`` gives the function each command runs, by name."""
    parser = _Parser(
        prog="stridelab",
        description="stridelab: DirectML tensor memory layouts, computed, drawn and tested.",
    )
    parser.add_argument("--version", action="version", version=f"stridelab {__version__}")
    parser.add_argument("--debug", action="store_true", help="on an error, show the traceback")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_lab(commands, runs["lab"])
    _add_examples(commands, runs["examples"])
    _add_explain(commands, runs["explain"])
    _add_show(commands, runs["show"])
    _add_dispatch(commands, runs["dispatch"])
    _add_check(commands, runs["check"])
    return parser


def _add_lab(commands: argparse._SubParsersAction, run: Run) -> None:
    """The ``lab`` command: the tutorials in JupyterLab."""
    lab = commands.add_parser(
        "lab",
        help="open the tutorials in JupyterLab",
        description=(
            "Copy the tutorial notebooks into DIR where they are not there yet (a notebook you "
            "edited is never overwritten) and open JupyterLab on 00-start-here.ipynb, bound to "
            "127.0.0.1. Other options go to JupyterLab in their --name=value form, e.g. "
            "--no-browser, --port=8899, or --ip=0.0.0.0 to serve from a container. "
            "JupyterLab saves widget state with each notebook (unless you turned that off in its settings), "
            "so a notebook saved after running reopens with its widgets drawn. "
            "With --student, write a student copy into DIR instead and exit: the notebooks without "
            "their solutions, for students to open with stridelab lab DIR."
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
    lab.add_argument(
        "--student",
        action="store_true",
        help="write the notebooks without their solutions into DIR, a new or empty folder, and exit",
    )
    lab.add_argument(
        "--overwrite", action="store_true", help="with --student: replace the tutorial files already in DIR"
    )
    lab.set_defaults(run=run, passes_options=True)


def _add_examples(commands: argparse._SubParsersAction, run: Run) -> None:
    """The ``examples`` command: stridelab's example DxDispatch models, copied to try."""
    examples = commands.add_parser(
        "examples",
        help="copy the example DxDispatch models into a folder",
        description=(
            "Copy stridelab's example DxDispatch models (the ones notebook 08 describes) into DIR where they are "
            "not there yet (a model you edited is never overwritten), then run one with stridelab dispatch or "
            "look at its tensors with stridelab show."
        ),
    )
    examples.add_argument(
        "directory",
        metavar="DIR",
        nargs="?",
        type=Path,
        default=DEFAULT_EXAMPLES_DIR,
        help=f"where the models are copied (default: ./{DEFAULT_EXAMPLES_DIR})",
    )
    examples.set_defaults(run=run)


#: How a layout is written on the command line, for the help of the commands that take one.
DESC_FORMS = (
    "a layout in one line: [DATA_TYPE] (sizes):(strides) [+OFFSET] [bytes=N], e.g. 'FLOAT16 (1,1,2,3):(0,0,5,1)', "
    "'torch.float32 [2,3,4,5]:[60,1,15,3]' or '(2,3):(3,1) +5' (no data type: FLOAT32; +5: element (0, 0) is "
    "buffer element 5), or DxDispatch JSON"
)


def _add_explain(commands: argparse._SubParsersAction, run: Run) -> None:
    """The ``explain`` command: one layout, in every tool's words."""
    explain = commands.add_parser(
        "explain",
        help="explain a layout",
        description=(
            "Explain a layout: where it starts, its memory order, what DirectML, NumPy and PyTorch call it, "
            "its padding, broadcast and overlap, and the view or copy that reaches NCHW or NHWC. Sizes and "
            "strides are in elements (PyTorch's x.shape and x.stride(), not NumPy's byte strides); the data type "
            "is a DirectML, NumPy or PyTorch name (FLOAT16, float16, np.half, torch.float16)."
        ),
        epilog="example: stridelab explain 'torch.float32 [2,3,4,5]:(60,1,15,3) +7'",
    )
    explain.add_argument("desc", metavar="DESC", help=DESC_FORMS)
    explain.set_defaults(run=run)


def _add_show(commands: argparse._SubParsersAction, run: Run) -> None:
    """The ``show`` command: a layout's memory map, or a model's tensors."""
    show = commands.add_parser(
        "show",
        help="show a layout's memory map, or every tensor of a DxDispatch model",
        description=(
            "Show the memory map of a layout (logical view beside the buffer) as text, or draw it with "
            "--svg/--png. Given a DxDispatch model (MODEL.json), show every tensor of every dispatchable, named."
        ),
        epilog="examples: stridelab show '[2,3]:[4,1]'; stridelab show 'FLOAT16 (1,1,2,3):(0,0,5,1)' --svg map.svg",
    )
    show.add_argument("what", metavar="DESC|MODEL.json", help=DESC_FORMS.replace("JSON", "JSON, or a model file"))
    show.add_argument("--svg", type=Path, metavar="FILE", help="write the picture as SVG")
    show.add_argument(
        "--png", type=Path, metavar="FILE", help="write the picture as PNG (needs Pillow: the plot extra)"
    )
    _model_size_option(show)
    show.set_defaults(run=run)


def _add_dispatch(commands: argparse._SubParsersAction, run: Run) -> None:
    """The ``dispatch`` command: run a DxDispatch model (its file options in :func:`_add_model_files`)."""
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
    _add_model_files(dispatch)
    dispatch.set_defaults(run=run)


def _add_model_files(dispatch: argparse.ArgumentParser) -> None:
    """``dispatch``'s options for the files a model reads and writes, and their budgets."""
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


def _add_check(commands: argparse._SubParsersAction, run: Run) -> None:
    """The ``check`` command: a function called with its inputs in every layout of the catalogue."""
    check = commands.add_parser(
        "check",
        help="check that a function gives the same answer for every layout of its inputs",
        description=(
            "Import FUNCTION from MODULE (the current directory comes first on the path) and call it with inputs "
            "of small whole numbers in every layout of stridelab's catalogue (padded, strided, negative, offset, "
            "broadcast, ...) over poisoned buffers; print one row per layout. Exit 1 when a layout fails."
        ),
    )
    check.add_argument("target", metavar="MODULE:FUNCTION", help="the function, e.g. mypackage.kernels:row_sum")
    check.add_argument(
        "--shape", type=_shape, action="append", required=True, metavar="SIZES", help="an input's sizes (repeat)"
    )
    check.add_argument("--dtype", default="float32", help="the inputs' NumPy data type (default float32)")
    check.add_argument("--out-shape", type=_shape, metavar="SIZES", help="pass an output array of these sizes last")
    check.add_argument("--max-layouts", type=_iterations, default=64, metavar="N", help="call at most N times")
    check.add_argument("--strict", action="store_true", help="count a ValueError or TypeError as a failure")
    check.add_argument(
        "--isolate", action="store_true", help="call the function in a worker process, so a crash fails one layout"
    )
    check.set_defaults(run=run)
