"""Every docstring example in the package runs (python-chess style: examples are tests)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import chinese_poker

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(chinese_poker.__path__, prefix="chinese_poker.")
    if ".migrations" not in m.name and not m.name.endswith("__main__")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    try:
        module = importlib.import_module(name)
    except ImportError as exc:  # an optional extra that is not installed
        pytest.skip(f"{name} needs {exc.name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} failing example(s) in {name}"


# README.md and docs/*.md: tests/test_docs_examples.py
