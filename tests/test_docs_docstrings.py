"""Every public class and function shows an example in its docstring (a ``>>>`` line, which
``--doctest-modules`` then runs), and every public constant is documented by a ``#:`` comment where
it is defined (the API pages show it). Public: the names of each public module's ``__all__``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs" / "_ext"))

from public_api import PUBLIC_MODULES, constant_comment, has_example, public_names

NAMES = [entry for module in PUBLIC_MODULES for entry in public_names(module) if not entry.same_as]


@pytest.mark.parametrize("entry", [e for e in NAMES if e.kind != "constant"], ids=lambda e: e.qualified)
def test_a_public_class_or_function_has_a_docstring_example(entry):
    assert has_example(entry.obj), f"{entry.qualified}: its docstring shows no example (a >>> line)"


@pytest.mark.parametrize("entry", [e for e in NAMES if e.kind == "constant"], ids=lambda e: e.qualified)
def test_a_public_constant_has_a_comment(entry):
    comment, where = constant_comment(entry.module, entry.name)
    assert comment, f"{entry.qualified}: no #: comment where it is defined ({where})"


def test_the_checks_see_a_missing_example_and_a_missing_comment():
    def documented():
        """Twice.

        >>> 2 * 2
        4
        """

    def bare():
        """Twice, without an example."""

    assert (has_example(documented), has_example(bare), has_example(object())) == (True, False, False)
    assert constant_comment("stridelab.dtypes", "DATA_TYPES")[0].startswith("The DirectML data type names")
    assert constant_comment("stridelab.testing", "VERDICTS")[1] == "stridelab._sanitizer._report"
