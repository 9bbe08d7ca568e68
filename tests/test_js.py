"""The browser client's pure logic under Node's own test runner (``node --test tests/js/``),
so its results count here too; and the eval.js fixtures are what the Python scorer says."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node")


def test_the_eval_fixtures_are_fresh() -> None:
    path = ROOT / "tests/js/make_fixtures.py"
    spec = importlib.util.spec_from_file_location("make_fixtures", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = (ROOT / "tests/js/eval-fixtures.json").read_text()
    assert committed == module.text(), "run: python tests/js/make_fixtures.py"


@pytest.mark.skipif(NODE is None and not os.environ.get("CI"), reason="node is not installed")
def test_node_unit_tests_pass() -> None:
    assert NODE is not None
    done = subprocess.run(
        [NODE, "--test", "tests/js/"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout
