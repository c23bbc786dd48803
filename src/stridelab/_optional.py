"""Optional dependencies: a missing one is an ImportError that names the extra to install.

stridelab's core needs only numpy; the views, plots, JupyterLab and the GPU backend come with
extras. Using a feature whose extra is absent says which extra brings it, e.g.
``pip install 'stridelab[widgets]'``, instead of a bare ``ModuleNotFoundError``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple


class Extra(NamedTuple):
    packages: tuple[str, ...]  # the top-level modules the extra makes importable
    install: str  # the command that installs it


EXTRAS: dict[str, Extra] = {
    "widgets": Extra(("anywidget", "ipywidgets", "traitlets"), "pip install 'stridelab[widgets]'"),
    "plot": Extra(("matplotlib",), "pip install 'stridelab[plot]'"),
    "lab": Extra(("jupyterlab",), "pip install 'stridelab[lab]'"),
    "gpu": Extra(
        ("cupy",),
        "pip install 'stridelab[gpu-cuda12]' or 'stridelab[gpu-cuda13]', matching your CUDA major version",
    ),
}


def missing_extra_error(feature: str, package: str, extra: str) -> ImportError:
    """The error for ``feature`` when ``package``, which ``extra`` brings, is not installed.

    >>> print(missing_extra_error("sl.draw_memory_map", "matplotlib", "plot"))
    sl.draw_memory_map needs matplotlib, which is not installed: pip install 'stridelab[plot]'
    """
    return ImportError(f"{feature} needs {package}, which is not installed: {EXTRAS[extra].install}", name=package)


@contextmanager
def optional_imports(extra: str, feature: str) -> Iterator[None]:
    """Report a package of ``extra`` missing inside the block as :func:`missing_extra_error`.

    Any other import error (a broken install, a module missing from stridelab itself) passes through.
    """
    try:
        yield
    except ModuleNotFoundError as error:
        missing = (error.name or "").partition(".")[0]
        if missing not in EXTRAS[extra].packages:
            raise
        raise missing_extra_error(feature, missing, extra) from error
