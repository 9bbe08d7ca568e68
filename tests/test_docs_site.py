"""The documentation site builds with `mkdocs build --strict` (a broken link, a missing
page or an unresolved API reference fails), offline, with every page in the navigation,
an API reference generated from the docstrings, and every page listed in README.md."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def nav_pages(entries: list[Any]) -> list[str]:
    pages: list[str] = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages += nav_pages(value) if isinstance(value, list) else [value]
    return pages


def config() -> dict[str, Any]:
    # mkdocs.yml has no !!python tags, so the safe loader reads it.
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    return loaded


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": str(Path(sys.executable).parent)},
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return out


def test_every_page_is_in_the_nav() -> None:
    pages = set(nav_pages(config()["nav"]))
    on_disk = {
        p.relative_to(ROOT / "docs").as_posix()
        for p in (ROOT / "docs").rglob("*.md")
        if "_hooks" not in p.parts
    }
    assert on_disk - pages == set(), "pages missing from the nav of mkdocs.yml"
    assert pages - on_disk == set(), "nav entries with no page"
    for kind in ("player", "scorekeeper", "coach", "researcher"):
        assert f"getting-started/{kind}.md" in pages


def test_readme_lists_the_site_pages() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(docs/([^)#]+\.md)", readme))
    missing = set(nav_pages(config()["nav"])) - linked
    assert not missing, f"site pages README.md does not list: {sorted(missing)}"


def test_nothing_is_fetched_at_build_or_read_time() -> None:
    plugins = [p if isinstance(p, str) else next(iter(p)) for p in config()["plugins"]]
    assert set(plugins) <= {"search", "mkdocstrings"}, "a plugin that may download"
    assert config()["theme"]["font"] is False  # no Google Fonts


@pytest.mark.slow
def test_strict_build_renders_the_api_reference(site: Path) -> None:
    cards = (site / "api" / "cards" / "index.html").read_text(encoding="utf-8")
    assert 'id="chinese_poker.cards.parse_card"' in cards
    assert 'id="chinese_poker.cards.Board"' in cards
    # The docstrings' >>> examples are shown as Python sessions, not as quotes.
    assert 'class="gp"' in cards and "<blockquote>" not in cards
    for page, name in [
        ("evaluate", "chinese_poker.evaluate"),
        ("rules", "chinese_poker.rules.rules_for"),
        ("scoring", "chinese_poker.scoring.settle"),
        ("engine", "chinese_poker.engine.Table"),
        ("ai", "chinese_poker.ai.make_bot"),
        ("ai", "chinese_poker.ai.fantasyland.solve_fantasyland"),
        ("env", "chinese_poker.env.aec_env"),
    ]:
        html = (site / "api" / page / "index.html").read_text(encoding="utf-8")
        assert f'id="{name}"' in html, f"{name} is not documented on api/{page}"


@pytest.mark.slow
def test_built_pages_load_nothing_from_other_hosts(site: Path) -> None:
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        remote = re.findall(r'<(?:script|link|img)[^>]+(?:src|href)="(https?://[^"]+)"', html)
        assert not remote, f"{page.relative_to(site)} loads {remote}"
    changelog = (site / "changelog" / "index.html").read_text(encoding="utf-8")
    assert "Unreleased" in changelog  # CHANGELOG.md is included, not copied
