"""Issue 40 item 1 in Debian's Chromium, as players: the review (tapped on a phone, in
English) and the replay (by the keyboard on a desktop, in Bulgarian) of the hand just
played hold the next deal; the reader's overlay counts the seconds down, a spectator
(in Russian) is told who the table waits for, and closing the overlay deals on. axe-core
on the held screens. Ann's streets are made for her when her clock runs out (a casual
table's timeout), so that a hand ends without anybody's moves.

Screenshots go to ``CP_SCREENSHOT_DIR`` (docs/screenshots for docs/browser.md).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import test_browser
from test_browser import Server, create_table, element_shot, new_page, no_page_errors, open_seat
from test_browser_a11y import problems

browser, server, shots = test_browser.browser, test_browser.server, test_browser.shots
pytestmark = test_browser.pytestmark
expect = test_browser.expect

PHONE = {"viewport": test_browser.SHORT_PHONE, "is_mobile": True, "has_touch": True}
PAUSE = 10.0  # the table's own pause between hands (time for a loaded machine to tap)


def self_playing_table(server: Server) -> dict[str, Any]:
    """Ann against the rules bot; a street of hers is made for her after 1 s."""
    return create_table(server, time_limit=1.0, timeouts="decision", next_hand_delay=PAUSE)


def after_hand_one(page: Any) -> float:
    """When hand 1 ended (time.monotonic()), once the page has its end."""
    page.wait_for_function(
        "() => window.__cp && window.__cp.lastEnd && window.__cp.hand === 1", timeout=90_000
    )
    return time.monotonic()


def past_the_pause(ended: float) -> None:
    """Wait until the table's own pause after hand 1 is 2 s over."""
    time.sleep(max(0.0, ended + PAUSE + 2 - time.monotonic()))


def hand_no(page: Any) -> int:
    return int(page.evaluate("() => window.__cp.hand"))


def test_a_review_tapped_on_a_phone_holds_the_deal_and_a_spectator_is_told(
    browser: Any, server: Server, shots: Path
) -> None:
    made = self_playing_table(server)
    tid = made["table"]["id"]
    page = new_page(browser, locale="en-GB", **PHONE)
    watcher = new_page(browser, locale="ru-RU")
    watcher.goto(f"{server.base}/watch/{tid}")
    open_seat(page, server, made)
    ended = after_hand_one(page)
    page.locator("#review-this-hand").tap()
    note = page.locator("#review #hold-note")
    expect(note).to_have_text(re.compile(r"The table waits for you: \d+ s"))
    held = watcher.locator("#hold-others")
    expect(held).to_contain_text("Стол ждёт: Ann смотрит прошлую руку")
    past_the_pause(ended)  # still hand 1
    assert hand_no(page) == 1 and hand_no(watcher) == 1
    element_shot(page.locator("#review .dialog"), shots / "hold-review-phone.png")
    element_shot(held, shots / "hold-spectator-ru.png")
    found = problems(page, "review held (phone)") + problems(watcher, "spectator told")
    assert not found, "\n".join(found)
    page.locator("#review-close").tap()
    page.wait_for_function("() => window.__cp.hand === 2", timeout=15_000)
    expect(held).to_have_count(0)  # the next hand ended the hold for everybody
    no_page_errors(page)
    no_page_errors(watcher)
    page.context.close()
    watcher.context.close()


def test_the_replay_opened_by_keyboard_holds_the_deal_and_escape_deals_on(
    browser: Any, server: Server, shots: Path
) -> None:
    made = self_playing_table(server)
    page = new_page(browser, locale="bg-BG")
    open_seat(page, server, made)
    ended = after_hand_one(page)
    replay = page.locator("#hands [data-act='replay'][data-hand='1']")
    expect(replay).to_be_visible()
    replay.focus()
    page.keyboard.press("Space")  # Enter is the table's Confirm key (tableinput.js)
    note = page.locator("#replay #hold-note")
    expect(note).to_have_text(re.compile(r"Масата ви чака: \d+ с"))
    page.keyboard.press("ArrowRight")  # the replay's own keys still step it
    expect(page.locator("#replay-pos")).to_contain_text("1")
    past_the_pause(ended)
    assert hand_no(page) == 1
    element_shot(page.locator("#replay .dialog"), shots / "hold-replay-desktop-bg.png")
    found = problems(page, "replay held (desktop)")
    assert not found, "\n".join(found)
    page.keyboard.press("Escape")
    page.wait_for_function("() => window.__cp.hand === 2", timeout=15_000)
    # Hand 2 under way: opening hand 1's replay again holds nothing.
    page.locator("#hands [data-act='replay'][data-hand='1']").focus()
    page.keyboard.press("Space")
    expect(page.locator("#replay")).to_be_visible()
    expect(page.locator("#replay #hold-note")).to_have_count(0)
    page.keyboard.press("Escape")
    no_page_errors(page)
    page.context.close()
