"""The examples of the documentation run, and every result written in a comment is what the code
gives: on a line that is an expression, ``  # value`` after it is its value (a Python literal, or
else its ``repr``); after a ``print(...)``, the ``# `` lines that follow are what it prints.

Every Markdown page of ``docs/`` is run (each page's ```python blocks in order, in one namespace, in
the repository root), except the pages listed in ``SKIPPED`` with the reason.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

#: Pages whose examples are not run yet, and why. Remove a page from here once it can run.
SKIPPED = {}

#: Pages made by the build (ignored by git), not written by hand.
GENERATED = {"benchmarks.md"}


def python_blocks(text: str) -> list[str]:
    """The ```python blocks of a Markdown text, in order."""
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def _comments(source: str) -> dict[int, str]:
    """The comment at the end of each line that has one (line numbers from 1), without ``# ``."""
    found = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            found[token.start[0]] = token.string[1:].strip()
    return found


def _check_value(code: str, value: object, comment: str) -> None:
    try:
        expected = ast.literal_eval(comment)
    except (ValueError, SyntaxError):
        assert repr(value) == comment, (code, value)
    else:
        assert value == expected, (code, value, expected)


def run_examples(blocks: list[str], namespace: dict | None = None) -> int:
    """Run ``blocks`` in one namespace, statement by statement; the number of results checked."""
    namespace = {} if namespace is None else namespace
    checked = 0
    for block in blocks:
        lines = block.splitlines()
        comments = _comments(block)
        for statement in ast.parse(block).body:
            code = ast.get_source_segment(block, statement)
            end = statement.end_lineno or statement.lineno
            call = statement.value if isinstance(statement, ast.Expr) else None
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print":
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    exec(code, namespace)
                printed = []
                for following in lines[end:]:
                    if not following.startswith("# "):
                        break
                    printed.append(following[2:])
                assert out.getvalue().splitlines() == printed, code
                checked += 1
            elif call is not None and end in comments and statement.lineno == end:
                _check_value(code, eval(code, namespace), comments[end])
                checked += 1
            else:
                exec(compile(ast.Module([statement], []), "<docs>", "exec"), namespace)
    return checked


def pages() -> list[str]:
    """Every hand-written Markdown page of the site, relative to ``docs/``."""
    found = []
    for path in sorted(DOCS.rglob("*.md")):
        relative = path.relative_to(DOCS).as_posix()
        if relative.split("/")[0] != "_build" and relative not in GENERATED:
            found.append(relative)
    return found


def test_the_skipped_pages_exist():
    assert set(SKIPPED) <= set(pages())


@pytest.mark.parametrize("page", pages())
def test_the_examples_of_a_page_give_what_it_says(page, monkeypatch):
    if page in SKIPPED:
        pytest.skip(SKIPPED[page])
    blocks = python_blocks((DOCS / page).read_text(encoding="utf-8"))
    if not blocks:
        pytest.skip("no Python example on this page")
    monkeypatch.chdir(ROOT)
    assert run_examples(blocks) >= 1


def test_the_tour_checks_many_results(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert run_examples(python_blocks((DOCS / "tour.md").read_text(encoding="utf-8"))) >= 25


def test_a_wrong_result_in_a_comment_fails():
    with pytest.raises(AssertionError):
        run_examples(["1 + 1   # 3\n"])
    with pytest.raises(AssertionError):
        run_examples(["print('a')\n# b\n"])
    assert run_examples(["x = [1]   # an assignment is run, not compared\nx + [2]   # [1, 2]\n"]) == 1
