"""stridelab's public API as the site documents it, read from the code: the public modules, the
names in each one's ``__all__``, what kind of object each is, and the ``#:`` comment that documents
a constant where it is defined. Needs no Sphinx: ``tests/test_docs_docstrings.py`` uses it too.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

#: The public modules (docs/architecture.md names them), in the order of the API pages.
PUBLIC_MODULES = ("stridelab", "stridelab.dxdispatch", "stridelab.exercises", "stridelab.ops", "stridelab.testing")

#: The sections of a module's page, by kind of object.
KINDS = ("class", "function", "constant")


@dataclass(frozen=True)
class PublicName:
    """One name of a public module's ``__all__``."""

    module: str
    name: str
    kind: str  # one of KINDS
    obj: object
    #: The public name this is the same object as, in a module earlier in PUBLIC_MODULES, or "".
    same_as: str = ""

    @property
    def qualified(self) -> str:
        return f"{self.module}.{self.name}"


def _kind(obj: object) -> str:
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "constant"


def public_names(module: str) -> list[PublicName]:
    """The names of ``module.__all__`` in its order; one already public in an earlier module (an
    operator of ``stridelab.ops`` is also ``stridelab``'s) carries that name in ``same_as``."""
    earlier: dict[int, str] = {}
    for other in PUBLIC_MODULES[: PUBLIC_MODULES.index(module)]:
        loaded = importlib.import_module(other)
        for name in loaded.__all__:
            value = getattr(loaded, name)
            if _kind(value) != "constant":
                earlier.setdefault(id(value), f"{other}.{name}")
    loaded = importlib.import_module(module)
    names = []
    for name in loaded.__all__:
        value = getattr(loaded, name)
        kind = _kind(value)
        same_as = earlier.get(id(value), "") if kind != "constant" else ""
        names.append(PublicName(module, name, kind, value, same_as))
    return names


def _source_of(module: ModuleType) -> tuple[str, Path]:
    path = Path(inspect.getsourcefile(module) or "")
    return path.read_text(encoding="utf-8"), path


def _imported_from(module: ModuleType, name: str, tree: ast.Module) -> str | None:
    """The module ``name`` is imported from at the top of ``module``'s source, if it is."""
    package = module.__name__ if hasattr(module, "__path__") else module.__name__.rpartition(".")[0]
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == name for a in node.names):
            if node.level == 0:
                return node.module
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            return f"{base}.{node.module}" if node.module else base
    return None


def constant_comment(module: str, name: str) -> tuple[str, str]:
    """The ``#:`` comment of the constant ``module.name`` (the lines above its assignment, or one at
    its end) and the module that defines it, following ``from .x import name`` to the definition.
    The comment is "" where there is none."""
    loaded = importlib.import_module(module)
    source, _ = _source_of(loaded)
    tree = ast.parse(source)
    lines = source.splitlines()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and any(
            isinstance(t, ast.Name) and t.id == name for t in targets
        ):
            comment = []
            row = node.lineno - 2
            while row >= 0 and lines[row].lstrip().startswith("#:"):
                comment.insert(0, lines[row].lstrip()[2:].strip())
                row -= 1
            _, _, trailing = lines[node.lineno - 1].partition("#:")
            return " ".join(comment) or trailing.strip(), module
    origin = _imported_from(loaded, name, tree)
    return constant_comment(origin, name) if origin else ("", module)


def has_example(obj: object) -> bool:
    """Whether ``obj``'s own docstring (not one inherited) holds a doctest example, a ``>>>`` line."""
    doc = obj.__doc__ if isinstance(obj.__doc__, str) else ""
    return any(line.lstrip().startswith(">>>") for line in doc.splitlines())
