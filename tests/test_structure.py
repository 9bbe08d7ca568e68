"""The source stays in rooms a newcomer can change (issue 41's measures).

- No private name (``_x``) is read from another module: neither ``from m import _x`` nor
  ``m._x`` on an imported project module. A module's private names are its own; what
  another module needs is public, documented and typed.
- No module is over 1,000 lines, except ``engine/table.py`` (the table's state machine,
  one piece by design).
- Radon's D-or-worse blocks (cyclomatic complexity 21 and up) stay at or under 0.4 per
  thousand lines of source.

Each checker is fed a bad example first, so a checker that sees nothing fails the suite.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "chinese_poker"
ROOT = "chinese_poker"
MAX_LINES = 1000
LONG_ALLOWED = {"engine/table.py"}
MAX_COMPLEX_PER_KLOC = 0.4


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([ROOT, *parts])


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_reads(source: str, module: str) -> list[str]:
    """Private names this module's source takes from other project modules."""
    tree = ast.parse(source)
    found: list[str] = []
    project_modules: set[str] = set()  # local names bound to a project module
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == ROOT:
                    project_modules.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            source_module = node.module or ""
            relative = node.level > 0
            if not (relative or source_module.split(".")[0] == ROOT):
                continue
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"line {node.lineno}: from {source_module} import {alias.name}")
                else:
                    project_modules.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id in project_modules:
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_private_checker_sees_both_forms() -> None:
    bad = (
        "from chinese_poker.evaluate import _TABLE3\n"
        "from . import _helper\n"
        "import chinese_poker.evaluate as ev\n"
        "x = ev._FO\n"
        "import os\n"
        "os._exit(0)\n"  # the standard library's names are not ours to judge
    )
    found = private_reads(bad, "chinese_poker.scoring.x")
    assert len(found) == 3, found
    assert any("_TABLE3" in f for f in found)
    assert any("_helper" in f for f in found)
    assert any("ev._FO" in f for f in found)


def test_no_private_name_is_read_across_modules() -> None:
    offences = []
    for path in _sources():
        for found in private_reads(path.read_text(encoding="utf-8"), _module_name(path)):
            offences.append(f"{path.relative_to(PACKAGE)} {found}")
    assert not offences, "private names read from other modules:\n" + "\n".join(offences)


def test_no_module_over_a_thousand_lines() -> None:
    long = []
    for path in _sources():
        rel = path.relative_to(PACKAGE).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES and rel not in LONG_ALLOWED:
            long.append(f"{rel}: {lines} lines")
    assert not long, "modules over 1,000 lines:\n" + "\n".join(long)


def _complex_blocks(source: str) -> list[str]:
    from radon.complexity import cc_rank, cc_visit  # the test extra installs radon

    out = []
    for block in cc_visit(source):
        if cc_rank(block.complexity) in "DEF":
            out.append(f"{block.fullname} {cc_rank(block.complexity)} ({block.complexity})")
    return out


def test_complexity_checker_sees_a_complex_block() -> None:
    branches = "\n".join(f"    if x == {i}:\n        return {i}" for i in range(25))
    assert _complex_blocks(f"def f(x):\n{branches}\n    return -1\n")


def test_few_complex_blocks_per_thousand_lines() -> None:
    blocks: list[str] = []
    total = 0
    for path in _sources():
        source = path.read_text(encoding="utf-8")
        total += len(source.splitlines())
        blocks += [f"{path.relative_to(PACKAGE)} {b}" for b in _complex_blocks(source)]
    per_kloc = len(blocks) / (total / 1000)
    assert per_kloc <= MAX_COMPLEX_PER_KLOC, (
        f"{len(blocks)} D-or-worse blocks in {total} lines = {per_kloc:.2f} per thousand "
        f"(at most {MAX_COMPLEX_PER_KLOC}):\n" + "\n".join(blocks)
    )
