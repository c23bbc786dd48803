"""Check stridelab's size rules: a module of src/ at most 400 lines, a function body at most 50.

A function's body is counted from its first statement to its last line, its docstring left out.
Run from the repository root (``make lint`` does): prints each module or function over its limit
and exits 1 if any is, else prints nothing and exits 0.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 50
ROOT = Path(__file__).resolve().parents[1]


def body_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines of ``node``'s body, its docstring left out."""
    body = node.body
    if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        if isinstance(body[0].value.value, str):
            body = body[1:]
    end = body[-1].end_lineno or body[-1].lineno
    return end - body[0].lineno + 1


def problems(source: str, name: str) -> Iterator[str]:
    """One line for the module ``name`` (its text ``source``) and each of its functions over a limit."""
    lines = len(source.splitlines())
    if lines > MAX_MODULE_LINES:
        yield f"{name}: {lines} lines (at most {MAX_MODULE_LINES})"
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            count = body_lines(node)
            if count > MAX_FUNCTION_LINES:
                yield f"{name}:{node.lineno}: {node.name} has a {count}-line body (at most {MAX_FUNCTION_LINES})"


def main(root: Path = ROOT) -> int:
    found = [
        problem
        for path in sorted((root / "src").rglob("*.py"))
        for problem in problems(path.read_text(encoding="utf-8"), str(path.relative_to(root)))
    ]
    for problem in found:
        print(problem)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
