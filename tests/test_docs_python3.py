"""Every example in the docs that runs Python names an interpreter a reader has (issue
39): ``python3`` for a program of its own (the example bot), ``.venv/bin/python`` where
the project's virtual environment is meant -- never a bare ``python``, which a Debian
system without an active venv does not have. The docs are README.md, docs/, examples/
and the docstrings of the modules the API pages show (``::: module``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# `python` run as a command: before -m, -c, -X or a script, not after `/` (.venv/bin/python).
BARE = re.compile(r"(?<![\w./\-])python(?=[ \t]+(?:-[mcX]\b|[\w./\-]+\.py\b))")


def _pages() -> list[Path]:
    examples = [p for p in (ROOT / "examples").rglob("*") if p.suffix in (".py", ".md", ".txt")]
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted(examples)]


def _shown_modules() -> list[Path]:
    paths = []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        for name in re.findall(r"^::: ([\w.]+)", page.read_text(encoding="utf-8"), re.M):
            base = ROOT / "src" / Path(*name.split("."))
            paths.append(base / "__init__.py" if base.is_dir() else base.with_suffix(".py"))
    return paths


def _docstrings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return [
        doc
        for node in ast.walk(tree)
        if isinstance(node, kinds) and (doc := ast.get_docstring(node))
    ]


def test_the_scan_finds_a_bare_python() -> None:
    assert BARE.search("run `python -m chinese_poker.ai.warm`")
    assert BARE.search("--bots 'cmd:python examples/bots/random_bot.py,rules'")
    assert not BARE.search("`python3 -m venv .venv`, `.venv/bin/python bench/x.py`, ```python")


def test_no_docs_example_calls_a_bare_python() -> None:
    found = []
    for path in _pages():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if BARE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    for path in _shown_modules():
        for doc in _docstrings(path):
            found.extend(
                f"{path.relative_to(ROOT)} (docstring): {line.strip()}"
                for line in doc.splitlines()
                if BARE.search(line)
            )
    assert not found, "\n".join(found)


def test_the_api_pages_show_modules() -> None:
    assert len(_shown_modules()) >= 10
