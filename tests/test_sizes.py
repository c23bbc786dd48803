"""The size rules of scripts/check_sizes.py (``make lint`` runs it): the package keeps them, and the
script counts what it says it counts."""

import importlib.util
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("check_sizes", ROOT / "scripts" / "check_sizes.py")
assert _spec is not None and _spec.loader is not None
check_sizes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_sizes)


def test_every_module_and_function_of_the_package_is_within_the_limits(capsys):
    assert check_sizes.main(ROOT) == 0, capsys.readouterr().out


def test_a_function_body_is_counted_without_its_docstring():
    body = "".join(f"    x{i} = {i}\n" for i in range(50))
    source = f'def f():\n    """A docstring\n    of three\n    lines."""\n{body}'
    assert list(check_sizes.problems(source, "m.py")) == []
    longer = source + "    return x0\n"
    assert list(check_sizes.problems(longer, "m.py")) == ["m.py:1: f has a 51-line body (at most 50)"]


def test_a_long_module_and_a_long_method_are_named():
    method = "class C:\n    def g(self):\n" + "".join(f"        y = {i}\n" for i in range(60))
    source = method + "\n" * (400 - 62) + "z = 1\n"
    assert list(check_sizes.problems(source, "m.py")) == [
        "m.py: 401 lines (at most 400)",
        "m.py:2: g has a 60-line body (at most 50)",
    ]


def test_a_body_that_is_only_a_docstring_counts_its_own_lines():
    source = textwrap.dedent('''
        def f():
            """Only a docstring."""
    ''')
    assert list(check_sizes.problems(source, "m.py")) == []
