"""Sphinx configuration of stridelab's documentation site (``make docs``).

The site is built from what the repository already holds, without network access and without
running a notebook: the tutorials in ``notebooks/`` are copied into ``tutorials/`` and rendered with
their stored outputs (the outputs nbval checks), the API pages are generated from the public
modules' ``__all__``, the command-line page from the ``argparse`` parser, and the benchmark page from
``benchmarks/RESULTS.md``. Everything generated lies in ignored paths (see ``.gitignore``).
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path[:0] = [str(DOCS / "_ext"), str(ROOT / "src")]

import stridelab  # noqa: E402  (imported from this checkout, after the path is set)

project = "stridelab"
author = "The stridelab developers"
copyright = "the stridelab developers"
release = version = stridelab.__version__

REPOSITORY = "https://github.com/stridelab/stridelab"
BINDER = "https://mybinder.org/v2/gh/stridelab/stridelab/HEAD"

extensions = [
    "myst_nb",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinxarg.ext",
    "stridelab_api",
    "stridelab_benchmarks",
    "stridelab_course",
]

exclude_patterns = ["_build", "_templates", "_ext", "**.ipynb_checkpoints", "api/generated/*.rst.txt"]
templates_path = ["_templates"]
nitpicky = False
suppress_warnings: list[str] = []

# MyST: Markdown pages; notebooks shown exactly as stored (nbval checks these outputs).
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "off"
nb_ipywidgets_js: dict[str, dict[str, str]] = {}  # no widget manager fetched from a CDN
nb_merge_streams = True

# API pages: numpydoc sections, autosummary pages for the names the generated pages list.
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# No intersphinx: the build reaches no network.
html_theme = "sphinx_book_theme"
html_title = f"stridelab {version}"
html_logo = None
html_static_path = ["_static"]
html_css_files = ["stridelab.css"]
html_sourcelink_suffix = ""
html_last_updated_fmt = None
html_theme_options = {
    "repository_url": REPOSITORY,
    "repository_branch": "main",
    "path_to_docs": "docs",
    "use_repository_button": True,
    "use_download_button": True,
    "use_fullscreen_button": False,
    "show_toc_level": 2,
    "navigation_with_keys": False,
}


def setup(app: object) -> None:
    from pygments.lexers.special import TextLexer

    # architecture.md's table of layers is a ```layers block that tests/test_layers.py reads: plain text here.
    app.add_lexer("layers", TextLexer)  # type: ignore[attr-defined]
