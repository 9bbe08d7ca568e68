"""Lower layers never import from higher ones (docs/architecture.md).

The check reads every import form: ``import chinese_poker.x [as y]``, ``from
chinese_poker import x``, ``from chinese_poker.x import y``, relative imports (``from
. import y``, ``from .. import x``, ``from ..x import y``), and the module names given
as string literals (or f-strings with a literal prefix) to ``importlib.import_module``
and ``__import__``. ``test_checker_sees_every_import_form`` feeds it a bad module of
each form, so a form it cannot see fails the suite.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "chinese_poker"
ROOT = "chinese_poker"

# Top-level module or subpackage -> layer number.
LAYERS = {
    "cards": 1,
    "evaluate": 1,
    "language": 1,
    "rules": 2,
    "scoring": 2,
    "engine": 3,
    "ai": 4,
    "cli": 5,
    "server": 5,
    "env": 5,
    "terminal": 5,
}

_DYNAMIC = {"import_module", "__import__"}


def _module_name(path: Path) -> tuple[str, bool]:
    """(dotted module name, is a package) of a file under PACKAGE."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return ".".join([ROOT, *parts]), is_package


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute name of ``from <level dots><name> import ...`` inside ``module``."""
    if level == 0:
        return name or ""
    base = module.split(".")
    if not is_package:
        base.pop()  # a module's relative imports start from its package
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, name] if name else base)


def _literal_prefix(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value
    return None


def imported(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every absolute module name ``source`` (the text of ``module``) imports, in any form.

    For ``from X import a, b`` both ``X`` and ``X.a``, ``X.b`` are listed: the names may be
    submodules. A dynamic import by a name built at run time is listed by its literal prefix.
    """
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node.level, node.module)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if called in _DYNAMIC:
                text = _literal_prefix(node.args[0])
                if text is not None:
                    names.add(text.rstrip("."))
    return {name for name in names if name}


def _layer_of_name(name: str) -> int | None:
    parts = name.split(".")
    if parts[0] != ROOT or len(parts) < 2:
        return None
    return LAYERS.get(parts[1])


def violations(source: str, module: str, is_package: bool = False) -> list[str]:
    """The imports of ``source`` that reach a higher layer than ``module``'s own."""
    own = _layer_of_name(module)
    assert own is not None, module
    return sorted(
        name
        for name in imported(source, module, is_package)
        if (layer := _layer_of_name(name)) is not None and layer > own
    )


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if _layer_of_name(_module_name(p)[0]))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_upward_imports(path: Path) -> None:
    module, is_package = _module_name(path)
    bad = violations(path.read_text(encoding="utf-8"), module, is_package)
    assert not bad, f"{module} (layer {_layer_of_name(module)}) imports {', '.join(bad)}"


# Each form of import, as a layer-1 (cards) or a layer-2 (scoring.lines) module would
# write it to reach a higher layer.
BAD_FORMS = [
    ("chinese_poker.cards", False, "from chinese_poker import server"),
    ("chinese_poker.cards", False, "from chinese_poker import evaluate, server as s"),
    ("chinese_poker.cards", False, "import chinese_poker.server"),
    ("chinese_poker.cards", False, "import chinese_poker.server as s"),
    ("chinese_poker.cards", False, "import os, chinese_poker.engine.table"),
    ("chinese_poker.cards", False, "from chinese_poker.ai.rollout import tables_for"),
    ("chinese_poker.cards", False, "from . import server"),
    ("chinese_poker.cards", False, "from .engine import Table"),
    ("chinese_poker.scoring.lines", False, "from .. import engine"),
    ("chinese_poker.scoring.lines", False, "from ..ai import mc"),
    ("chinese_poker.scoring", True, "from ..engine import Table"),
    ("chinese_poker.scoring", True, "from .. import cli"),
    ("chinese_poker.rules", True, "import importlib\nimportlib.import_module('chinese_poker.ai')"),
    ("chinese_poker.rules", True, "from importlib import import_module\n"
                                  "import_module('chinese_poker.server.app')"),
    ("chinese_poker.rules", True, "__import__('chinese_poker.engine')"),
    ("chinese_poker.rules", True, "import importlib\ndef f(x):\n"
                                  "    importlib.import_module(f'chinese_poker.cli.{x}')"),
    ("chinese_poker.rules", True, "def f():\n    from chinese_poker import terminal"),
    ("chinese_poker.rules", True, "from typing import TYPE_CHECKING\n"
                                  "if TYPE_CHECKING:\n    from chinese_poker.engine import View"),
]  # fmt: skip


@pytest.mark.parametrize("module,is_package,source", BAD_FORMS)
def test_checker_sees_every_import_form(module: str, is_package: bool, source: str) -> None:
    assert violations(source, module, is_package), source


GOOD_FORMS = [
    ("chinese_poker.scoring.lines", False, "from .results import ScoringError"),
    ("chinese_poker.scoring.lines", False, "from .. import cards, rules"),
    ("chinese_poker.scoring", True, "from . import lines"),
    ("chinese_poker.rules", True, "from chinese_poker import __version__"),
    ("chinese_poker.ai.mc", False, "from chinese_poker import engine, scoring"),
    ("chinese_poker.cards", False, "import importlib\nimportlib.import_module('orjson')"),
]


@pytest.mark.parametrize("module,is_package,source", GOOD_FORMS)
def test_checker_allows_imports_at_or_below(module: str, is_package: bool, source: str) -> None:
    assert violations(source, module, is_package) == []


def test_relative_imports_resolve() -> None:
    assert imported("from . import y", "chinese_poker.scoring.lines") >= {
        "chinese_poker.scoring",
        "chinese_poker.scoring.y",
    }
    assert "chinese_poker.x" in imported("from .. import x", "chinese_poker.scoring.lines")
    assert "chinese_poker.scoring.lines" in imported(
        "from .lines import f", "chinese_poker.scoring", is_package=True
    )


def test_every_module_is_checked() -> None:
    checked = {_module_name(p)[0] for p in MODULES}
    assert {"chinese_poker.cards", "chinese_poker.rules", "chinese_poker.scoring.lines",
            "chinese_poker.engine.table", "chinese_poker.server.tables"} <= checked  # fmt: skip


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
            assert top in allowed or top == ROOT or top in sys.stdlib_module_names, (
                f"{name} imports {top}"
            )
