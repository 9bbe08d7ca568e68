"""Markers the suite sets by itself (pyproject.toml registers them), and the language
the suite runs in."""

from __future__ import annotations

import os

import pytest

# Fixtures kept in modules of their own, for every test file.
pytest_plugins = ["_redis"]

# Every command follows LANGUAGE/LC_ALL/LC_MESSAGES/LANG (issue 39), and the tests read
# English words: a developer's Russian or Latvian terminal must not fail them. A test of
# the language choice passes its own environment.
for _name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
    os.environ.pop(_name, None)
os.environ["LANG"] = "C.UTF-8"


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test in the ``browser`` xdist group drives Chromium against a real server: it is
    marked ``browser`` too, so that ``-m "not browser"`` leaves out every one of them,
    whichever module it is in."""
    for item in items:
        if any(mark.args[:1] == ("browser",) for mark in item.iter_markers("xdist_group")):
            item.add_marker(pytest.mark.browser)
