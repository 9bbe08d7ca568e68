"""Reviews, profiles, the leaderboard and sign-in (issue 13), in Debian's Chromium, as a
person uses them: a session against a bot, the review of a hand with its marks right
after it and from the hand list, the profile with its rating, the leaderboard, and
signing in from a second browser.

Screenshots go to ``CP_SCREENSHOT_DIR`` (docs/screenshots for the docs), as in
tests/test_browser.py, whose server, browser and helpers these tests share.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import test_browser
from test_browser import Server, create_table, new_page, no_page_errors, open_seat
from test_browser_table import play_until_over

browser, server, shots = test_browser.browser, test_browser.server, test_browser.shots

# The same marks as test_browser: never skipped silently in CI.
pytestmark = test_browser.pytestmark
expect = test_browser.expect

REVIEW_WAIT = 90_000  # ms: the first review starts the hint worker and its kernels


def test_review_after_a_hand_profile_and_leaderboard(
    browser: Any, server: Server, shots: Path
) -> None:
    page = new_page(browser)
    made = create_table(server, seats=[{"kind": "human", "name": "Ann"},
                                       {"kind": "bot", "bot": "rules"}])  # fmt: skip
    tid = made["table"]["id"]
    open_seat(page, server, made)
    page.wait_for_function("() => window.__cp")  # the page starts once its words are in
    play_until_over(page, time.monotonic() + 240)

    # After the hand: the result panel's button opens the review, with its marks.
    page.click("#review-this-hand")
    review = page.locator("#review")
    expect(review.locator(".review-item").first).to_be_visible(timeout=REVIEW_WAIT)
    items = review.locator(".review-item")
    # Ann's five streets, and the bot's five, or its one Fantasyland set when it earned
    # Fantasyland in an earlier hand of the session (this hand is the session's last).
    assert review.locator(".review-item[data-player='Ann']").count() == 5
    assert items.count() in (6, 10)
    expect(review.locator(".review-summary tr[data-player='Ann'] .accuracy")).to_have_text(
        re.compile(r"^\d+%$")
    )
    expect(review.locator(".review-summary tr.me")).to_contain_text("you")
    kinds = [b.get_attribute("data-kind") for b in review.locator(".mark-badge").all()]
    assert kinds and set(kinds) <= {"best", "ok", "inaccuracy", "mistake", "blunder"}
    hand_no = int(page.evaluate("() => window.__cp.hand"))
    # The page's marks are the server's review, decision for decision.
    data = server.get(f"/api/tables/{tid}/hands/{hand_no}/review")
    assert [d["mark"] for d in data["decisions"]] == [
        items.nth(i).get_attribute("data-mark") for i in range(items.count())
    ]
    test_browser.element_shot(review, shots / "review-after-hand.png")
    page.click("#review-close")
    expect(review).to_have_count(0)

    # From the hand list: every finished hand has its review.
    page.goto(f"{server.base}/?hands={tid}")
    buttons = page.locator("[data-review-hand]")
    expect(buttons).to_have_count(len([h for h in server.get(f"/api/tables/{tid}/hands")
                                       if h["finished"]]))  # fmt: skip
    buttons.first.click()
    expect(page.locator("#review .review-item").first).to_be_visible(timeout=REVIEW_WAIT)
    expect(page.locator("#review h2")).to_contain_text("hand 1")
    test_browser.element_shot(page.locator("#review"), shots / "review-from-hand-list.png")
    page.keyboard.press("Escape")
    # The session's accuracy, over every hand.
    page.click("#review-session")
    session = page.locator("#session-review")
    expect(session.locator("tr[data-player='Ann'] .accuracy")).to_have_text(
        re.compile(r"^\d+%$"), timeout=REVIEW_WAIT
    )
    want = next(p for p in server.get(f"/api/tables/{tid}/review")["players"]
                if p["player"] == "Ann")  # fmt: skip
    expect(session.locator("tr[data-player='Ann'] .accuracy")).to_have_text(
        f"{int(want['accuracy'] + 0.5)}%"  # JavaScript's Math.round
    )

    # The profile: a rating and the figures of the hands just played.
    page.click("#nav-me")
    fam = page.locator("#profile .family[data-family='open-face']")
    expect(fam.locator(".rating")).to_have_text(re.compile(r"^-?\d+\.\d$"))
    played = len([h for h in server.get(f"/api/tables/{tid}/hands") if h["finished"]])
    expect(fam.locator(".hands")).to_have_text(str(played))
    expect(page.locator("#profile-name")).to_contain_text("Ann")
    expect(fam.locator("svg.ledger-chart")).to_be_visible()
    page.screenshot(path=str(shots / "profile.png"), full_page=True)
    me = page.locator("#profile-id").inner_text()

    # The leaderboard: Ann and the rules bot, best first.
    page.click("#nav-leaderboard")
    rows = page.locator("#leaderboard-table tbody tr")
    expect(page.locator(f"#leaderboard-table tr[data-player='{me}']")).to_be_visible()
    expect(page.locator("#leaderboard-table tr[data-player='bot-rules']")).to_contain_text("bot")
    ratings = [float(x) for x in rows.locator(".rating").all_inner_texts()]
    assert ratings == sorted(ratings, reverse=True)
    page.screenshot(path=str(shots / "leaderboard.png"), full_page=True)
    page.click(f"#leaderboard-table tr[data-player='{me}'] a")
    expect(page.locator("#profile-id")).to_have_text(me)
    no_page_errors(page)


def test_sign_in_from_a_second_browser(browser: Any, server: Server, shots: Path) -> None:
    first = new_page(browser)
    first.goto(server.base + "/me")
    expect(first.locator("#profile-id")).to_have_text(re.compile(r"^p-"))
    mine = first.locator("#profile-id").inner_text()
    handle = "ann" + mine[-6:]
    first.fill("#me-name", "Ann")
    first.click("#name-form button")
    expect(first.locator("#profile-name")).to_contain_text("Ann")
    first.fill("#me-handle", handle)
    first.fill("#me-password", "short")
    first.click("#password-form button")  # the browser's own check: 8 characters
    expect(first.locator("#signed-up")).to_have_count(0)
    first.fill("#me-password", "correct horse battery")
    first.click("#password-form button")
    expect(first.locator("#signed-up")).to_contain_text(handle)

    # Another device: a fresh browser context, its own key, then signed in.
    second = new_page(browser)
    second.goto(server.base + "/me")
    expect(second.locator("#profile-id")).to_have_text(re.compile(r"^p-"))
    assert second.locator("#profile-id").inner_text() != mine
    second.fill("#signin-handle", handle)
    second.fill("#signin-password", "wrong password")
    second.click("#signin-form button")
    expect(second.locator("#account-error")).to_contain_text("wrong handle or password")
    second.fill("#signin-password", "correct horse battery")
    second.click("#signin-form button")
    expect(second.locator("#profile-id")).to_have_text(mine)
    expect(second.locator("#profile-name")).to_contain_text("Ann")
    second.screenshot(path=str(shots / "signed-in-second-browser.png"), full_page=True)
    second.reload()  # the new key is kept
    expect(second.locator("#profile-id")).to_have_text(mine)
    # Changing the password there asks for the current one.
    second.fill("#me-current-password", "not the password")
    second.fill("#me-password", "a brand new secret")
    second.click("#password-form button")
    expect(second.locator("#account-error")).to_contain_text("current password is wrong")
    second.fill("#me-current-password", "correct horse battery")
    second.fill("#me-password", "a brand new secret")
    second.click("#password-form button")
    expect(second.locator("#signed-up")).to_contain_text(handle)
    expect(second.locator("#account-error")).to_be_hidden()
    no_page_errors(first)
    no_page_errors(second)
