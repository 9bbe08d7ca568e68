"""The browser client's pure logic under Node's own test runner (``node --test tests/js/``),
so its results count here too; and the eval.js fixtures are what the Python scorer says."""

from __future__ import annotations

import importlib.util
import json
import os
import posixpath
import re
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


STATIC = ROOT / "src/chinese_poker/server/static"
# What a page or module loads: <script src>, <link href>, a manifest's icons, and every
# static or dynamic import (``import ... from "x"``, ``export ... from "x"``, ``import("x")``).
_HTML_REF = re.compile(r"""<(?:script|link)\b[^>]*?\b(?:src|href)=["']([^"']+)["']""")
_JS_REF = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']""")


def _url_path(ref: str, base: str) -> str:
    if ref.startswith("."):
        return posixpath.normpath(posixpath.join(posixpath.dirname(base), ref))
    return ref


def _loaded_by(url: str) -> set[str]:
    """Every same-origin file ``url`` (a page or a /static file) loads, transitively."""
    pages = {"/score": STATIC / "score.html", "/study": STATIC / "study.html"}
    seen: set[str] = set()
    todo = [url]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        file = pages.get(path) or STATIC / path.removeprefix("/static/")
        assert file.is_file(), f"{path} is loaded but {file} does not exist"
        text = file.read_text()
        if file.suffix == ".html":
            refs = _HTML_REF.findall(text)
        elif file.suffix == ".webmanifest":
            refs = [icon["src"] for icon in json.loads(text).get("icons", [])]
        elif file.suffix == ".js":
            refs = _JS_REF.findall(text)
        else:
            refs = []
        todo += [_url_path(ref, path) for ref in refs if ref.startswith(("/", "."))]
    return seen


def test_the_desk_worker_caches_every_file_its_pages_load() -> None:
    """Offline, /score and /study open from the service worker's cache alone: its FILES
    must hold the whole graph the pages load (a module imported by a module included)."""
    worker = (STATIC / "desk/sw.js").read_text()
    listed = re.search(r"const FILES = \[(.*?)\];", worker, re.S)
    assert listed is not None
    files = set(re.findall(r"""["']([^"']+)["']""", listed.group(1)))
    needed = _loaded_by("/score") | _loaded_by("/study")
    assert "/static/js/i18n.js" in needed  # eval.js and util.js import it
    assert needed - files == set(), f"add to FILES in desk/sw.js: {sorted(needed - files)}"


def _glob(pattern: str) -> re.Pattern[str]:
    """A path glob as tsc, ESLint and bash read the ones here: ``**/`` any folders, ``*``
    within one name, ``{a,b}`` either."""
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "{":
            end = pattern.index("}", i)
            out += "(?:" + "|".join(map(re.escape, pattern[i + 1 : end].split(","))) + ")"
            i = end + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out)


def test_every_module_of_the_browser_table_is_linted_and_type_checked() -> None:
    """Each script the table's page loads (app.js and all it imports) is in tsc's include
    (jsconfig.json), under ESLint's rules for the client (eslint.config.js), on the ESLint
    command of scripts/lint-js, and says ``// @ts-check``."""
    loaded = _loaded_by("/static/index.html")
    modules = sorted(
        "src/chinese_poker/server/static/" + path.removeprefix("/static/")
        for path in loaded
        if path.endswith(".js")
    )
    assert "src/chinese_poker/server/static/js/tablestate.js" in modules
    included = json.loads((ROOT / "jsconfig.json").read_text())["include"]
    config = (ROOT / "eslint.config.js").read_text()
    client_rules = next(
        re.findall(r'"([^"]+)"', files)
        for files in re.findall(r"files: \[([^\]]*)\]", config)
        if "src/chinese_poker/server/static/js/**/*.js" in files
    )
    command = next(
        line.split()[1:]
        for line in (ROOT / "scripts/lint-js").read_text().splitlines()
        if line.startswith("node_modules/.bin/eslint ")
    )
    for module in modules:
        assert any(_glob(g).fullmatch(module) for g in included), f"{module}: add to jsconfig.json"
        assert any(_glob(g).fullmatch(module) for g in client_rules), f"{module}: eslint.config.js"
        # A folder on the command line stands for everything under it.
        assert any(_glob(p).fullmatch(module) or module.startswith(p + "/") for p in command), (
            f"{module}: add to scripts/lint-js"
        )
        assert (ROOT / module).read_text().startswith("// @ts-check"), module
