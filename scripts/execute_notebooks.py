"""Execute notebooks in place and store their outputs, deterministically.

nbval compares a notebook's stored outputs with a fresh run, so the stored outputs must come from
a clean, repeatable execution: this runs each notebook top to bottom with nbclient in the current
environment's kernel, stores the widget state (so saved widgets render on GitHub and in trusted
notebooks), and drops timing metadata. Re-running it on an unchanged notebook leaves the file
byte-identical, apart from outputs marked to be ignored by nbval.

Usage: python scripts/execute_notebooks.py notebooks/*.ipynb
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

KERNEL = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def execute(path: Path, timeout: int) -> None:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        store_widget_state=True,
    )
    client.execute()
    nb.metadata["kernelspec"] = KERNEL
    if not _has_widget_outputs(nb):
        nb.metadata.pop("widgets", None)
    for index, cell in enumerate(nb.cells):
        cell.id = f"cell-{index}"
        cell.metadata.pop("execution", None)
    nbformat.write(nb, path)


def _has_widget_outputs(nb: nbformat.NotebookNode) -> bool:
    return any(
        "application/vnd.jupyter.widget-view+json" in output.get("data", {})
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    args = parser.parse_args(argv)
    for path in args.notebooks:
        print(f"executing {path}", file=sys.stderr)
        execute(path, args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
