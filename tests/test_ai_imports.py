"""No import cycle in ``chinese_poker.ai``, lazy or not: the graph of every import the
modules make (at module level and inside functions, ``import_module`` string literals
included) is read from their source, and a cycle fails the test, named module by module.
A module's own parent packages are not edges (Python runs them before the module, and
they import their modules: that is the package's structure, not a cycle)."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

AI = Path(__file__).resolve().parents[1] / "src" / "chinese_poker" / "ai"
PREFIX = "chinese_poker.ai"


def _module_name(path: Path, root: Path, prefix: str) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([prefix, *parts])


def _absolute(module: str, level: int, importer: str, is_package: bool) -> str:
    """The absolute name of a relative import's ``from`` part."""
    if level == 0:
        return module
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, module] if module else base)


def _imported(tree: ast.AST, importer: str, is_package: bool) -> Iterator[tuple[str, str]]:
    """(module, name) pairs of every import in ``tree``: ``name`` is what a ``from``
    import takes from the module ('' for a plain import)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, ""
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module or "", node.level, importer, is_package)
            for alias in node.names:
                yield base, alias.name
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, (ast.Attribute, ast.Name))
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node.args[0].value, ""


def import_graph(sources: Mapping[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """Edges between the modules of ``sources`` (name -> (source, is a package))."""
    graph: dict[str, set[str]] = {name: set() for name in sources}
    for name, (source, is_package) in sources.items():
        parents = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        for module, taken in _imported(ast.parse(source), name, is_package):
            target = f"{module}.{taken}" if f"{module}.{taken}" in sources else module
            while target not in sources and "." in target:  # ``import a.b.c`` of a function
                target = target.rsplit(".", 1)[0]
            if target in sources and target != name and target not in parents:
                graph[name].add(target)
    return graph


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as its modules in order (the first repeated at the end), or
    None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return None


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Every cycle of ``graph`` by its strongly connected parts (two or more modules that
    import each other, however indirectly), each named by one of its cycles."""
    parts: list[list[str]] = []
    seen: set[str] = set()
    for start in sorted(graph):
        if start in seen:
            continue
        reach = _reachable(graph, start)
        part = sorted(n for n in reach if start in _reachable(graph, n))
        seen.update(part)
        if len(part) > 1:
            cycle = find_cycle({n: graph[n] & set(part) for n in part})
            parts.append(cycle or part)
    return parts


def _reachable(graph: Mapping[str, set[str]], start: str) -> set[str]:
    out = {start}
    todo = [start]
    while todo:
        for nxt in graph[todo.pop()]:
            if nxt not in out:
                out.add(nxt)
                todo.append(nxt)
    return out


def ai_sources() -> dict[str, tuple[str, bool]]:
    out = {}
    for path in sorted(AI.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        out[_module_name(path, AI, PREFIX)] = (source, path.stem == "__init__")
    return out


def test_the_ai_package_has_no_import_cycle() -> None:
    graph = import_graph(ai_sources())
    assert "chinese_poker.ai.rollout.policy" in graph  # the package's modules are read
    found = cycles(graph)
    assert found == [], "import cycles: " + "; ".join(" -> ".join(c) for c in found)


_BAD = {
    "lazy": (
        "def f():\n    from chinese_poker.ai import b\n",
        "from chinese_poker.ai.a import f\n",
    ),
    "module level, plain import": ("import chinese_poker.ai.b\n", "import chinese_poker.ai.a\n"),
    "relative": ("from . import b\n", "from .a import f\n"),
    "import_module": (
        "import importlib\nimportlib.import_module('chinese_poker.ai.b')\n",
        "from chinese_poker.ai import a\n",
    ),
}


@pytest.mark.parametrize("form", sorted(_BAD))
def test_a_cycle_of_each_import_form_is_found_and_named(form: str) -> None:
    a, b = _BAD[form]
    sources = {
        "chinese_poker.ai": ("", True),
        "chinese_poker.ai.a": (a, False),
        "chinese_poker.ai.b": (b, False),
    }
    cycle = ["chinese_poker.ai.a", "chinese_poker.ai.b", "chinese_poker.ai.a"]
    assert find_cycle(import_graph(sources)) == cycle
    assert cycles(import_graph(sources)) == [cycle]


def test_a_package_importing_its_modules_is_not_a_cycle() -> None:
    sources = {
        "chinese_poker.ai.p": ("from chinese_poker.ai.p.m import f\n", True),
        "chinese_poker.ai.p.m": ("from chinese_poker.ai.p.n import g\n", False),
        "chinese_poker.ai.p.n": ("def g():\n    return 1\n", False),
    }
    assert find_cycle(import_graph(sources)) is None
