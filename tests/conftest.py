"""Markers the suite sets by itself (pyproject.toml registers them)."""

from __future__ import annotations

import pytest


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test in the ``browser`` xdist group drives Chromium against a real server: it is
    marked ``browser`` too, so that ``-m "not browser"`` leaves out every one of them,
    whichever module it is in."""
    for item in items:
        if any(mark.args[:1] == ("browser",) for mark in item.iter_markers("xdist_group")):
            item.add_marker(pytest.mark.browser)
