"""Execute notebooks in place and store their outputs, deterministically.

nbval compares a notebook's stored outputs with a fresh run, so the stored outputs must come from
a clean, repeatable execution: this runs each notebook top to bottom with nbclient in the current
environment's kernel and drops timing metadata. Widget outputs are stored without their widget
view: a saved widget view renders nowhere without a kernel or a trusted notebook (and an HTML
export then shows nothing), while every stridelab widget's output also carries its static picture
(SVG and PNG), which every surface shows. Re-running it on an unchanged notebook leaves the file
byte-identical, apart from outputs marked to be ignored by nbval and the PNG pictures' bytes.

Usage: python scripts/execute_notebooks.py notebooks/*.ipynb
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
KERNEL = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def execute(path: Path, timeout: int) -> None:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        store_widget_state=False,
    )
    client.execute()
    nb.metadata["kernelspec"] = KERNEL
    nb.metadata.pop("widgets", None)
    for index, cell in enumerate(nb.cells):
        cell.id = f"cell-{index}"
        cell.metadata.pop("execution", None)
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET_VIEW, None)
    nbformat.write(nb, path)


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
