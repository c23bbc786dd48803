"""The layer rule of docs/architecture.md: every module of the package, at import time, imports
only from its own layer or the layers below."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "stridelab"


def layers() -> dict[str, int]:
    """Each name of the architecture's layer table, with its layer's number."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = re.search(r"```layers\n(.*?)```", text, re.S)
    assert block, "docs/architecture.md has no ```layers block"
    table = {}
    for line in block[1].splitlines():
        number, _, names = re.fullmatch(r"(\d+) ([^:]+): (.+)", line).groups()
        for name in names.split(", "):
            assert name not in table, f"{name} is in two layers"
            table[name] = int(number)
    return table


def module_names() -> dict[str, Path]:
    """Every module of the package, by its dotted name (a package by its own name)."""
    names = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def layer_of(module: str, table: dict[str, int]) -> int:
    """The layer of ``module`` (dotted, from ``stridelab``): its own entry, else its package's."""
    parts = module.split(".")[1:]
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        if name in table:
            return table[name]
    assert module == "stridelab", f"{module} is in no layer of docs/architecture.md"
    return table["stridelab"]


def top_level_imports(path: Path, module: str) -> set[str]:
    """The stridelab modules (or names of modules) ``path`` imports when it is imported: top-level
    statements, those in ``if``/``try`` blocks included, ``if TYPE_CHECKING:`` left out."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: set[str] = set()
    statements = list(ast.parse(path.read_text(encoding="utf-8")).body)
    while statements:
        node = statements.pop()
        if isinstance(node, ast.If):
            if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                statements += node.body + node.orelse
        elif isinstance(node, ast.Try):
            statements += node.body + node.orelse + node.finalbody + [s for h in node.handlers for s in h.body]
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "stridelab")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            if origin.split(".")[0] != "stridelab":
                continue
            if node.module is None:  # from . import x: x may be a module
                found.update(f"{origin}.{a.name}" for a in node.names)
            else:
                found.add(origin)
    return found


def test_every_module_imports_only_from_its_layer_or_below():
    table, modules = layers(), module_names()
    wrong = []
    for module, path in modules.items():
        own = layer_of(module, table)
        for target in sorted(top_level_imports(path, module)):
            while target not in modules:  # a name imported from a module: that module
                target = target.rsplit(".", 1)[0]
            if layer_of(target, table) > own:
                wrong.append(f"{module} (layer {own}) imports {target} (layer {layer_of(target, table)})")
    assert not wrong, "\n".join(wrong)


def test_the_table_names_only_modules_that_exist():
    modules = module_names()
    missing = [name for name in layers() if f"stridelab.{name}" not in modules and name != "stridelab"]
    assert not missing, missing


def test_the_checker_sees_an_upward_import(tmp_path):
    path = tmp_path / "desc.py"
    path.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .render import scene\n"
        "try:\n    from .ops import _engine\nexcept ImportError:\n    pass\n"
        "def f():\n    from .widgets import compare\n"
    )
    assert top_level_imports(path, "stridelab.desc") == {"stridelab.ops"}
    assert layer_of("stridelab.ops._engine", layers()) == 2 and layer_of("stridelab.desc", layers()) == 1


PUBLIC = {
    "stridelab",
    "stridelab.dxdispatch",
    "stridelab.exercises",
    "stridelab.ops",
    "stridelab.testing",
    "stridelab.__main__",
}


def all_values(tree: ast.Module) -> list[ast.expr]:
    """What the module's top-level assignments to ``__all__`` assign."""
    values = []
    for node in tree.body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        if any(getattr(t, "id", None) == "__all__" for t in targets) and node.value is not None:
            values.append(node.value)
    return values


def test_every_module_outside_the_public_ones_is_marked_internal():
    unmarked = []
    for module, path in module_names().items():
        if module in PUBLIC or any(part.startswith("_") for part in module.split(".")[1:]):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        exported = all_values(tree)
        empty = len(exported) == 1 and isinstance(exported[0], ast.List) and not exported[0].elts
        if not empty or "\ninternal: " not in (ast.get_docstring(tree) or ""):
            unmarked.append(module)
    assert not unmarked, f"give these an empty __all__ and an 'internal:' line in the docstring: {unmarked}"


def test_the_public_modules_say_what_they_export():
    for module in sorted(PUBLIC - {"stridelab.__main__"}):
        exported = all_values(ast.parse(module_names()[module].read_text(encoding="utf-8")))
        assert len(exported) == 1 and isinstance(exported[0], ast.List) and exported[0].elts, module
