"""Accessibility (issue 40): axe-core, from npm (node_modules/axe-core, installed by
``npm ci`` in scripts/lint-js), injected into every page on a desktop and a phone
viewport: the lobby, a table as a seat mid-street, a table as a spectator, the
showdown, the replay, a review, the profile, the leaderboard, /score and /study. No
critical or serious violation is allowed, and every page has exactly one ``h1``.

The server, the browser and the table helpers are tests/test_browser.py's.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

import test_browser
from test_browser import (
    DESKTOP,
    PHONE,
    ROOT,
    Server,
    create_table,
    new_page,
    open_seat,
    play_keys,
    wait_decision,
)
from test_browser_table import play_until_over

browser, server = test_browser.browser, test_browser.server
pytestmark = test_browser.pytestmark
expect = test_browser.expect

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
VIEWPORTS = {"desktop": DESKTOP, "phone": PHONE}
RUN_AXE = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .flatMap((v) => v.nodes.map((n) => `${v.impact} ${v.id}: ${n.target.join(' ')}`));
}"""


def problems(page: Any, name: str) -> list[str]:
    """The page's critical and serious axe violations and a missing or second h1."""
    page.add_script_tag(path=str(AXE))
    found = [f"{name}: {line}" for line in page.evaluate(RUN_AXE)]
    h1 = page.locator("h1").count()
    if h1 != 1:
        found.append(f"{name}: {h1} h1 elements, not one")
    return found


def test_axe_core_is_installed() -> None:
    assert Path(AXE).is_file(), "run npm ci (scripts/lint-js does) for node_modules/axe-core"


#: Each viewport in English, and in another language too: a name that holds in English
#: may not in Russian or Latvian (a button whose visible words are not in its name).
WALKS = [("desktop", "en-GB"), ("phone", "en-GB"), ("desktop", "ru-RU"), ("phone", "lv-LV")]


@pytest.mark.parametrize(("viewport", "locale"), WALKS)
def test_every_page_has_no_serious_violation_and_one_h1(
    browser: Any, server: Server, viewport: str, locale: str
) -> None:
    size = VIEWPORTS[viewport]
    found: list[str] = []
    page = new_page(browser, viewport=size, locale=locale)
    page.goto(server.base + "/")
    expect(page.locator("#play-bot")).to_be_visible()
    found += problems(page, "lobby")

    made = create_table(server, next_hand_delay=30)
    tid = made["table"]["id"]
    open_seat(page, server, made)
    d = wait_decision(page)
    expect(page.locator("#hand .card").first).to_be_visible()
    found += problems(page, "table (seat, first street)")
    play_keys(page, d)
    d = wait_decision(page)
    found += problems(page, "table (seat, mid-street)")

    watcher = new_page(browser, viewport=size, locale=locale)
    watcher.goto(f"{server.base}/watch/{tid}")
    watcher.wait_for_function("() => window.__cp && window.__cp.view")
    found += problems(watcher, "table (spectator)")
    watcher.context.close()

    while not (d := wait_decision(page, timeout=30)).get("showdown"):
        play_keys(page, d)
    expect(page.locator("#my-board [data-marks]")).to_have_count(3)
    found += problems(page, "showdown")
    page.click("#leave-btn")
    page.click("#leave-yes")
    play_until_over(page, time.monotonic() + 120)

    page.goto(f"{server.base}/?hands={tid}")
    page.locator("#replay-list [data-hand='1']").click()
    expect(page.locator("#replay-step")).to_be_visible()
    found += problems(page, "replay")

    page.goto(f"{server.base}/review/{tid}/1")
    expect(page.locator(".review-item").first).to_be_visible(timeout=90_000)
    found += problems(page, "review")

    page.goto(server.base + "/me")
    expect(page.locator("#name-form")).to_be_visible()
    found += problems(page, "profile (/me)")
    page.goto(server.base + "/leaderboard")
    expect(page.locator("#leaderboard-table")).to_be_visible()
    found += problems(page, "leaderboard")

    for path in ("/score", "/study"):
        page.goto(server.base + path)
        page.wait_for_selector("body[data-ready='1']")
        found += problems(page, path)
    page.context.close()
    assert not found, f"{viewport} {locale}:\n" + "\n".join(found)
