"""The README's tour runs, and every result written in its comments is what the code gives."""

import ast
import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_tour_results_are_true():
    blocks = python_blocks(README.read_text())
    assert len(blocks) >= 2
    namespace: dict = {}
    lines = "\n".join(blocks).splitlines()
    checked = 0
    for i, line in enumerate(lines):
        code, _, comment = line.partition("  # ")
        code, comment = code.strip(), comment.strip()
        if not code or code.startswith("#"):
            continue
        if code.startswith("print("):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(code, namespace)
            printed = []
            for following in lines[i + 1 :]:
                if not following.startswith("# "):
                    break
                printed.append(following[2:])
            assert out.getvalue().splitlines() == printed
            checked += 1
        elif comment:
            value = eval(code, namespace)
            try:
                expected = ast.literal_eval(comment)
            except (ValueError, SyntaxError):
                assert repr(value) == comment
            else:
                assert value == expected, (code, value, expected)
            checked += 1
        else:
            exec(code, namespace)
    assert checked >= 11
