"""Lower layers never import from higher ones (docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "chinese_poker"

# Top-level module or subpackage -> layer number.
LAYERS = {
    "cards": 1,
    "evaluate": 1,
    "rules": 2,
    "scoring": 2,
    "engine": 3,
    "ai": 4,
    "cli": 5,
    "server": 5,
    "env": 5,
    "terminal": 5,
}


def _layer_of(path: Path) -> int | None:
    rel = path.relative_to(PACKAGE)
    head = rel.parts[0].removesuffix(".py")
    return LAYERS.get(head)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return {n.split(".")[1] for n in names if n.startswith("chinese_poker.")}


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if _layer_of(p) is not None)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_upward_imports(path: Path) -> None:
    own = _layer_of(path)
    assert own is not None
    for name in _imports(path):
        layer = LAYERS.get(name)
        assert layer is None or layer <= own, f"{path.name} (layer {own}) imports {name}"


def test_core_needs_only_numpy() -> None:
    allowed = {"numpy", "__future__"}
    for name in ("cards.py", "evaluate.py"):
        tree = ast.parse((PACKAGE / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                top = node.module.split(".")[0]
            elif isinstance(node, ast.Import):
                top = node.names[0].name.split(".")[0]
            else:
                continue
            import sys

            assert top in allowed or top == "chinese_poker" or top in sys.stdlib_module_names, (
                f"{name} imports {top}"
            )
