"""Shared fixtures: ``xp`` runs a test on numpy, and on cupy where a CUDA GPU is usable.

Property tests draw new examples on every run, so that a developer's runs keep looking for
counterexamples; ``HYPOTHESIS_PROFILE=ci`` (set by ``.ci/run``) makes them the same on every run,
so that a CI result depends only on the commit.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def _cupy_usable() -> bool:
    if importlib.util.find_spec("cupy") is None:
        return False
    try:
        import cupy

        return bool(cupy.is_available())
    except Exception:  # a broken CUDA install is the same as none for the tests
        return False


CUPY_USABLE = _cupy_usable()

# Opened by tests/test_browser.py in a real browser; not a notebook for nbval to compare.
collect_ignore_glob = ["browser/*.ipynb"]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if CUPY_USABLE:
        return
    skip = pytest.mark.skip(reason="needs CuPy with a usable CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(params=["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
def xp(request: pytest.FixtureRequest):
    """The array module under test: numpy always, cupy where usable (marked ``gpu``)."""
    if request.param == "numpy":
        return np
    import cupy

    return cupy
