"""The ``stridelab`` command's parser, for the command-line page (sphinx-argparse reads it)."""

from __future__ import annotations

import argparse
from collections import defaultdict

from stridelab._cli_parser import build_parser


def parser() -> argparse.ArgumentParser:
    """The parser ``stridelab`` runs, every command included (none is run here)."""
    return build_parser(defaultdict(lambda: lambda args, rest: 0))
