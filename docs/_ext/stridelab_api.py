"""The API reference, generated when the build starts: one page per public module listing every
name of its ``__all__`` (classes, functions, constants), so that a name made public appears in the
site without editing the docs. autosummary then writes a page per class and function from its
docstring (numpydoc sections); a constant is documented by its ``#:`` comment where it is defined.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generated import write_if_changed
from public_api import KINDS, PUBLIC_MODULES, PublicName, constant_comment, public_names
from sphinx.application import Sphinx
from sphinx.config import Config

API = Path(__file__).resolve().parents[1] / "api"
SECTIONS = {"class": "Classes", "function": "Functions", "constant": "Constants"}


def _title(text: str, underline: str) -> list[str]:
    return [text, underline * len(text), ""]


def _constant(entry: PublicName) -> list[str]:
    comment, _ = constant_comment(entry.module, entry.name)
    value = repr(entry.obj)
    if len(value) > 200:
        value = value[:197] + "..."
    return [f".. data:: {entry.name}", f"   :value: {value}", "", f"   {comment}", ""]


def module_page(module: str) -> str:
    """The reST of ``module``'s page: its docstring, then a table per kind of name."""
    names = public_names(module)
    lines = [*_title(f"``{module}``", "="), f".. automodule:: {module}", "   :no-members:", ""]
    for kind in KINDS:
        own = [n for n in names if n.kind == kind and not n.same_as]
        if own:
            lines += _title(SECTIONS[kind], "-")
            if kind == "constant":
                for entry in own:
                    lines += _constant(entry)
            else:
                lines += [".. autosummary::", "   :toctree: generated", "", *(f"   {n.name}" for n in own), ""]
    also = [n for n in names if n.same_as]
    if also:
        lines += _title("Also here", "-")
        lines += [
            f"- ``{n.qualified}`` is :{'py:class' if n.kind == 'class' else 'py:func'}:`{n.same_as}`" for n in also
        ]
        lines.append("")
    return "\n".join(lines)


def index_page() -> str:
    lines = [*_title("API reference", "=")]
    lines += [
        "Every public name of stridelab, from the docstrings. Anything not listed here is internal",
        "(a module or name starting with ``_``).",
        "",
        ".. toctree::",
        "   :maxdepth: 1",
        "",
        *(f"   {module}" for module in PUBLIC_MODULES),
        "",
    ]
    return "\n".join(lines)


def write_pages(app: Sphinx, config: Config) -> None:
    API.mkdir(exist_ok=True)
    write_if_changed(API / "index.rst", index_page().encode("utf-8"))
    for module in PUBLIC_MODULES:
        write_if_changed(API / f"{module}.rst", module_page(module).encode("utf-8"))


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", write_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
