"""The course in the site: ``notebooks/*.ipynb`` copied into ``tutorials/`` when the build starts
(the notebooks stay where nbval, Binder and the wheel read them), rendered with their stored
outputs, each page opening with "Launch on Binder" (the notebook's ``labpath``) and "Download
notebook" (the notebook itself, byte for byte, from ``_sources/``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docutils import nodes
from generated import write_if_changed
from sphinx.application import Sphinx
from sphinx.config import Config

DOCS = Path(__file__).resolve().parents[1]
NOTEBOOKS = DOCS.parent / "notebooks"
TUTORIALS = DOCS / "tutorials"
FOLDER = "tutorials"


def copy_notebooks(app: Sphinx, config: Config) -> None:
    """Copy every notebook into ``tutorials/`` (only those that changed, so that an unchanged page
    is not rebuilt) and remove copies whose notebook is gone: ``tutorials/*.ipynb`` is the build's
    own (ignored by git), not a place for notebooks of one's own."""
    wanted = {path.name: path for path in sorted(NOTEBOOKS.glob("*.ipynb"))}
    TUTORIALS.mkdir(exist_ok=True)
    for copy in TUTORIALS.glob("*.ipynb"):
        if copy.name not in wanted:
            copy.unlink()
    for name, path in wanted.items():
        write_if_changed(TUTORIALS / name, path.read_bytes())


def binder_url(config: Config, notebook: str) -> str:
    """The Binder link that opens ``notebooks/NOTEBOOK`` in JupyterLab."""
    return f"{config.stridelab_binder}?labpath=notebooks/{notebook}"


def _notebook_of(app: Sphinx, docname: str) -> str | None:
    if not docname.startswith(FOLDER + "/"):
        return None
    source = Path(app.env.doc2path(docname))
    return source.name if source.suffix == ".ipynb" else None


def add_launch_line(app: Sphinx, doctree: nodes.document) -> None:
    """Under a tutorial's title: its Binder link and its download link."""
    notebook = _notebook_of(app, app.env.docname)
    if notebook is None:
        return
    binder = binder_url(app.config, notebook)
    html = (
        '<p class="stridelab-launch">'
        f'<a class="reference external stridelab-binder" href="{binder}">Launch on Binder</a>'
        f'<a class="reference internal stridelab-download" href="../_sources/{FOLDER}/{notebook}" '
        f'download="{notebook}">Download notebook</a></p>'
    )
    line = nodes.raw("", html, format="html")
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None:
        doctree.insert(0, line)
        return
    title = next(iter(section.findall(nodes.title)))
    section.insert(section.index(title) + 1, line)


def add_binder_button(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """The same link among the theme's header buttons (the rocket), as sphinx-book-theme draws its own."""
    notebook = _notebook_of(app, pagename)
    if notebook is None or "header_buttons" not in context:
        return
    context["header_buttons"].append(
        {
            "type": "group",
            "tooltip": "Launch interactive content",
            "icon": "fas fa-rocket",
            "label": "launch-buttons",
            "buttons": [
                {
                    "type": "link",
                    "text": "Binder",
                    "tooltip": "Launch on Binder",
                    "icon": "_static/images/logo_binder.svg",
                    "url": binder_url(app.config, notebook),
                }
            ],
        }
    )


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("stridelab_binder", "https://mybinder.org/v2/gh/stridelab/stridelab/HEAD", "html")
    app.connect("config-inited", copy_notebooks)
    app.connect("doctree-read", add_launch_line)
    app.connect("html-page-context", add_binder_button, priority=501)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
