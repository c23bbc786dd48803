"""Plain ``pytest`` runs the whole suite: the docstring examples and tests (pyproject.toml's
``testpaths`` and ``--doctest-modules``) and, where nbval is installed, every notebook in strict
mode, comparing stored outputs (as ``make test`` does; ``--nbval-lax`` on the command line wins).

nbval is switched on here rather than in ``addopts`` so that the configuration still loads where
the plugin is absent, as on a GPU machine that runs only ``pytest -m gpu tests``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

NBVAL_SANITIZE = Path(__file__).resolve().parent / "tests" / "nbval-sanitize.cfg"


def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.hasplugin("nbval"):
        return
    option = config.option
    if not (option.nbval or option.nbval_lax):
        option.nbval = True
    if option.nbval_kernel_name is None:
        option.nbval_current_env = True
    if option.nbval_sanitize_with is None:
        option.nbval_sanitize_with = str(NBVAL_SANITIZE)
