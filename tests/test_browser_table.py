"""The table people come back to (issue 12), in Debian's Chromium, as a person plays:
one click against a bot with the showdown marks, hand after hand until the player
leaves, and a rematch, a friend by invite link
who leaves (a bot keeps the seat) and comes back, a timeout that places only that
decision and says so, and the phone viewports with every control in view.

Screenshots go to ``CP_SCREENSHOT_DIR`` (docs/screenshots for the docs), as in
tests/test_browser.py, whose server, browser and helpers these tests share.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

import test_browser
from test_browser import (
    DECISION_JS,
    Server,
    new_page,
    no_page_errors,
    play_keys,
    set_with_keys,
    staged_count,
    wait_decision,
)

# Debian's Chromium, the server and the screenshot folder: test_browser's own fixtures.
browser, server, shots = test_browser.browser, test_browser.server, test_browser.shots

# The same marks as test_browser: never skipped silently in CI.
pytestmark = test_browser.pytestmark
expect = test_browser.expect


def play_until_over(page: Any, deadline: float) -> None:
    while not page.evaluate("() => window.__cp.sessionOver"):
        assert time.monotonic() < deadline, "the session did not end"
        d = wait_decision(page, timeout=30)
        if d.get("showdown"):
            page.wait_for_function(
                "() => window.__cp.sessionOver || (window.__cp.view"
                " && window.__cp.view.phase !== 'showdown')",
                timeout=30000,
            )
            continue
        if d["kind"] == "set":
            set_with_keys(page, d)
        else:
            play_keys(page, d)


def play_until_hand(page: Any, number: int, deadline: float) -> None:
    """Play (keys, Next) until hand ``number`` is dealt."""
    while page.evaluate("() => window.__cp.hand") < number:
        assert time.monotonic() < deadline, f"hand {number} was never dealt"
        d = wait_decision(page, timeout=30)
        if d.get("showdown"):
            # Next is there once the hand's end has come (it follows the showdown's state).
            page.wait_for_function(
                "() => window.__cp.lastEnd || window.__cp.view.phase !== 'showdown'"
            )
            if page.locator("#next-btn").count():
                page.click("#next-btn")
            page.wait_for_function(
                "() => window.__cp.view && window.__cp.view.phase !== 'showdown'", timeout=30000
            )
        elif d["kind"] == "set":
            set_with_keys(page, d)
        else:
            play_keys(page, d)


def custom_table(browser: Any, server: Server, fields: dict[str, str], friend: bool = False) -> Any:
    """A new page with the lobby's Custom table filled in for Ann (Pineapple)."""
    page = new_page(browser)
    page.goto(server.base + "/")
    page.click("#custom summary")
    page.fill("#f-player", "Ann")
    page.select_option("#f-preset", "pineapple")
    if friend:
        page.select_option(".seat-row[data-seat='1'] .s-kind", "human")
    for sel, value in fields.items():
        page.fill(sel, value)
    return page


def hold_showdowns(page: Any, seconds: float) -> None:
    """The tables this page opens hold each showdown ``seconds`` instead of the lobby's
    one-click pause (6 s): a loaded machine can take that long over a test's checks of
    the showdown, and then the next hand would be dealt under them."""

    def opening(route: Any) -> None:
        request = route.request
        if request.method != "POST":
            route.continue_()
            return
        body = json.loads(request.post_data or "{}")
        route.continue_(post_data=json.dumps({**body, "next_hand_delay": seconds}))

    page.route("**/api/tables", opening)


def test_one_click_against_a_bot_with_marks_and_a_rematch(
    browser: Any, server: Server, shots: Path
) -> None:
    page = new_page(browser)
    hold_showdowns(page, 60)
    page.goto(server.base + "/")
    expect(page.locator("#play-bot")).to_be_visible()
    page.fill("#q-name", "Ann")
    page.select_option("#q-strength", "expert")
    expect(page.locator("#q-strength-help")).to_contain_text("the strongest bot")
    page.select_option("#q-strength", "casual")
    expect(page.locator("#q-strength-help")).to_contain_text("rules of thumb")
    expect(page.locator("#q-game option[value=pineapple]")).to_have_text("Pineapple")
    page.screenshot(path=str(shots / "lobby-one-click.png"))
    page.click("#play-bot")
    page.wait_for_url("**/table/*")
    first = page.url

    # The clock: a bar, the move's seconds and the bank; not red with time to spare.
    d = wait_decision(page)
    timer = page.locator("#my-board .timer")
    expect(timer.locator(".bar")).to_be_visible()
    expect(timer).to_contain_text("bank")
    assert "low" not in (timer.get_attribute("class") or "")
    expect(page.locator("#opponents")).to_contain_text("Casual")
    for card in d["cards"][:2]:
        page.click(f"#hand [data-card='{card}']")
        page.click("[data-drop='bottom']")
    page.keyboard.press("u")
    assert staged_count(page) == 1
    page.keyboard.press("u")
    play_keys(page, d)

    # Pineapple discards: the player's own are shown on his board.
    d = wait_decision(page)
    play_keys(page, d)
    expect(page.locator("#my-discards .card")).to_have_count(1)

    # The showdown: marks beside each line, linked to the breakdown.
    while not (d := wait_decision(page, timeout=30)).get("showdown"):
        play_keys(page, d)
    lines = page.locator("#my-board [data-marks]")
    expect(lines).to_have_count(3)
    # +1 / -1 / = against the bot, or the foul, beside every line; when only the bot
    # fouled, the foul's points are one "they fouled" mark at the board's head instead
    # (the scorer's single foul item), and a line shows its royalty if it has one.
    they_fouled = page.locator("#my-board .mark.scoop.pos").filter(has_text="fouled").count()
    for i in range(3):
        texts = lines.nth(i).locator(".mark").all_inner_texts()
        assert texts or they_fouled
        assert all(t.lower() in ("+1", "-1", "=", "foul") or t[0] == "★" for t in texts)
    marks = page.locator("#my-board a.mark")
    expect(page.locator("#next-hand")).to_contain_text("Next hand in")
    # The side panel is redrawn (dropping the flash) when the hand's end brings the new
    # ledger and hand list and the fair-deal check of hand 1: click once both are in.
    expect(page.locator("#hands [data-act='replay'][data-hand='1']")).to_have_count(1)
    verdict = "#fairness li[data-hand='1'] :is(.fair-ok, .fair-warn, .fair-bad)"
    expect(page.locator(verdict)).to_have_count(1)
    marks.first.click()
    expect(page.locator("#breakdown .pair.flash")).to_have_count(1)
    page.screenshot(path=str(shots / "showdown-marks.png"), full_page=True)
    # The hand is held for the table's pause (60 s here); Next deals as soon as Ann is done.
    page.click("#next-btn")
    page.wait_for_function("() => window.__cp.hand === 2", timeout=30000)

    # Hand after hand: past the button's orbit (2 hands), until Ann leaves.
    play_until_hand(page, 3, time.monotonic() + 120)
    assert not page.evaluate("() => window.__cp.sessionOver")
    page.click("#leave-btn")
    expect(page.locator("#leave-ask")).to_contain_text("after this hand")
    page.click("#leave-yes")
    expect(page.locator("#last-hand")).to_contain_text("Ann is leaving")
    play_until_over(page, time.monotonic() + 120)
    expect(page.locator("#session-over")).to_contain_text("Ann left")
    assert page.evaluate("() => window.__cp.hand") == 3
    page.click("#rematch-btn")
    page.wait_for_function(f"() => location.href !== {first!r}")
    d = wait_decision(page)
    assert d["street"] == 1 and len(d["cards"]) == 5
    expect(page.locator(".table-head")).to_contain_text("rematch")
    no_page_errors(page)
    page.context.close()


def test_a_friend_by_link_leaves_a_bot_plays_and_the_friend_returns(
    browser: Any, server: Server, shots: Path
) -> None:
    ann = custom_table(browser, server, friend=True, fields={"#f-grace": "1", "#f-botdelay": "0.2"})
    ann.click("#create-btn")
    url = ann.locator("#invite-url").input_value()
    ann.click("#go-table")

    bob = new_page(browser)
    bob.goto(url)
    expect(bob.locator("#join-info")).to_contain_text("Ann")
    bob.fill("#j-name", "Bob")
    bob.click("#join-btn")
    bob.wait_for_url("**/table/*")
    table_url = bob.url
    # Ann's ledger names Bob as soon as he sits down (re-fetched on `seats`).
    expect(ann.locator("#ledger")).to_contain_text("Bob")
    play_keys(bob, wait_decision(bob))
    play_keys(ann, wait_decision(ann))

    # Bob closes the table; after the grace period a bot plays his seat.
    bob.goto(server.base + "/")
    expect(ann.locator("#opponents .chip.standin")).to_be_visible(timeout=10000)
    expect(ann.locator(".toast").last).to_contain_text("bot plays the seat")
    d = wait_decision(ann, timeout=20)  # the stand-in played Bob's street 2
    assert d["street"] == 2
    ann.screenshot(path=str(shots / "leaver-bot.png"), full_page=True)
    play_keys(ann, d)

    # Bob comes back: his seat is his again.
    bob.goto(table_url)
    expect(ann.locator("#opponents .chip.standin")).to_have_count(0, timeout=10000)
    # The stand-in may have played Bob's next street before he was back (its delay is
    # 0.2 s): then Ann is to act first. Bob gets a decision of his own either way.
    deadline = time.monotonic() + 40
    while True:
        assert time.monotonic() < deadline, "Bob never got a decision back"
        d = bob.evaluate(f"({DECISION_JS})()")
        if d and not d.get("showdown"):
            break
        a = ann.evaluate(f"({DECISION_JS})()")
        if a and not a.get("showdown"):
            play_keys(ann, a)
        time.sleep(0.1)
    assert d["kind"] in ("street", "set")
    no_page_errors(ann)
    no_page_errors(bob)
    ann.context.close()
    bob.context.close()


def test_a_timeout_places_only_that_decision_and_says_so(
    browser: Any, server: Server, shots: Path
) -> None:
    # Ann has 2 s a move. The bot (first on every street) takes 4 s over each: after
    # Ann's street 1 runs out, her street 2 and its clock start 4 s later, so the checks
    # of street 1's notice are not overtaken by street 2's.
    fields = {"#f-time": "2", "#f-bank": "0", "#f-botdelay": "4"}
    page = custom_table(browser, server, fields=fields)
    expect(page.locator("#f-timeouts")).to_have_value("decision")
    page.click("#create-btn")
    page.wait_for_url("**/table/*")
    d = wait_decision(page)
    assert d["street"] == 1
    # Red for the last 0.4 s only: looked for at every frame (an expect polls each second).
    page.wait_for_function("() => document.querySelector('#my-board .timer.low') !== null")
    notice = page.locator("#timeout-notice")
    expect(notice).to_contain_text("Time ran out: placed", timeout=10000)
    expect(notice).to_contain_text("on the bottom")
    for card in d["cards"]:
        expect(notice).to_contain_text(card)
    page.screenshot(path=str(shots / "timeout-notice.png"), full_page=True)
    # Only street 1 was placed for Ann: the session goes on with her street 2.
    d = wait_decision(page, timeout=20)
    assert d["street"] == 2
    assert not page.evaluate("() => window.__cp.sessionOver")
    assert page.locator("#my-board .line-row .card").count() == 5
    no_page_errors(page)
    page.context.close()


@pytest.mark.parametrize("size", [(390, 844), (360, 740)])
def test_the_phone_shows_every_control_without_scrolling(
    browser: Any, server: Server, shots: Path, size: tuple[int, int]
) -> None:
    w, h = size
    page = new_page(
        browser, viewport={"width": w, "height": h}, is_mobile=True, has_touch=True,
        device_scale_factor=2,
    )  # fmt: skip
    page.goto(server.base + "/")
    page.tap("#play-bot")
    page.wait_for_url("**/table/*")

    def check_in_view(selectors: list[str], taps: bool) -> None:
        assert page.evaluate("() => window.scrollY") == 0
        for sel in selectors:
            loc = page.locator(sel)
            assert loc.count() >= 1, sel
            for i in range(loc.count()):
                box = loc.nth(i).bounding_box()
                assert box is not None, sel
                assert box["x"] >= 0 and box["y"] >= 0, (sel, box)
                assert box["x"] + box["width"] <= w + 0.5, (sel, box)
                assert box["y"] + box["height"] <= h + 0.5, (sel, box)
                # ... and not under anything else (the pinned action bar): a tap there
                # reaches it. What covers it is named, should it be covered.
                if not taps:
                    continue
                over = loc.nth(i).evaluate(
                    "(el) => { const r = el.getBoundingClientRect();"
                    " const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);"
                    " if (el.contains(top)) return null;"
                    " return top ? top.outerHTML.slice(0, 200) : 'nothing'; }"
                )
                assert over is None, (sel, box, "covered by", over)

    def in_view(selectors: list[str], taps: bool = True) -> None:
        """Every selector on screen and reachable once the page has settled: a render
        just after a message may replace or move the controls for a moment, so the same
        checks are tried again for up to 5 s and the last failure is the one raised."""
        deadline = time.monotonic() + 5
        while True:
            try:
                check_in_view(selectors, taps)
                return
            except AssertionError:
                if time.monotonic() > deadline:
                    raise
                page.wait_for_timeout(100)

    controls = ["#confirm-btn", "#undo-btn", "[data-act='top']", "[data-act='middle']",
                "[data-act='bottom']", "#hand .card", "#my-board",
                "#opponents .board-box"]  # fmt: skip
    d = wait_decision(page)
    in_view(controls)
    expect(page.locator("#shortcuts")).to_have_count(0)
    expect(page.locator("#hand .card .key")).to_have_count(0)
    for card in d["cards"][:3]:
        page.tap(f"#hand [data-card='{card}']")
        page.tap("[data-drop='bottom']")
    for card in d["cards"][3:]:
        page.tap(f"#hand [data-card='{card}']")
        page.tap("[data-drop='middle']")
    page.tap("#confirm-btn")
    d = wait_decision(page)
    assert d["street"] == 2
    in_view([*controls, "#discard-zone"])
    # Live warnings (foul risks, royalties, Fantasyland) must not push the hand and the
    # discard zone under the action bar: three, as the page writes them (whether the
    # deal makes any is chance).
    page.evaluate(
        """() => { document.querySelector('#warnings').innerHTML =
        '<div class="warning soft">The middle (a pair of nines) is above the bottom'
        + ' (king high) so far</div><div class="good">Royalties so far: 2</div>'
        + '<div class="good">★ qualifies for Fantasyland</div>'; }"""
    )
    in_view([*controls, "#discard-zone"])
    in_view(["#warnings .warning", "#warnings .good"], taps=False)  # taps pass through
    page.tap(f"#hand [data-card='{d['cards'][0]}']")
    page.tap("[data-drop='top']")
    page.screenshot(path=str(shots / f"phone-{w}x{h}.png"))
    # A reload keeps the staged card.
    page.reload()
    d = wait_decision(page)
    assert d["staged"] == 1
    in_view([*controls, "#discard-zone", "#my-board .card.staged"])
    no_page_errors(page)
    page.context.close()


def test_bad_links_get_one_message_and_a_way_on(browser: Any, server: Server) -> None:
    page = new_page(browser)
    # An invite to a table that does not exist.
    page.goto(f"{server.base}/join/t-nothere?code=abc")
    expect(page.locator("#dead-end")).to_contain_text("no longer exists")
    expect(page.locator("#dead-end a[href='/']")).to_be_visible()
    # A table that forbids spectators: no "Just watch", and watching says so once.
    made = server.post("/api/tables", {
        "preset": "pineapple", "spectators": False, "join": True,
        "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human"}]})  # fmt: skip
    tid, code = made["table"]["id"], made["join_code"]
    page.goto(f"{server.base}/join/{tid}?code=wrong")
    expect(page.locator("#join-form")).to_be_visible()
    expect(page.locator("#watch-btn")).to_have_count(0)
    page.fill("#j-name", "Bob")
    page.click("#join-btn")
    expect(page.locator("#join-error")).to_contain_text("join code")
    expect(page.locator(".toast")).to_have_count(0)
    page.goto(f"{server.base}/watch/{tid}")
    expect(page.locator("#dead-end")).to_contain_text("does not allow spectators")
    expect(page.get_by_text("does not allow spectators")).to_have_count(1)
    # The seat is taken meanwhile: the invite says so and offers the lobby only.
    server.post(f"/api/tables/{tid}/join", {"code": code, "name": "Cy"})
    page.goto(f"{server.base}/join/{tid}?code={code}")
    expect(page.locator("#dead-end")).to_contain_text("Every seat")
    expect(page.locator("#way-watch")).to_have_count(0)
    # A stale tab: a seat key that is not valid here falls back to watching, with one note.
    page.goto(server.base + "/")
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "random"}]
    other = server.post("/api/tables", {"preset": "pineapple", "bot_delay": 0, "seats": seats})
    oid = other["table"]["id"]
    page.evaluate("(k) => localStorage.setItem(k, JSON.stringify({token: 's-stale', seat: 0}))",
                  f"cp.seat.{oid}")  # fmt: skip
    page.goto(f"{server.base}/table/{oid}")
    expect(page.locator(".table-head")).to_contain_text("spectating")
    expect(page.locator(".toast")).to_contain_text("not valid")
    expect(page.locator(".toast")).to_have_count(1)
    no_page_errors(page)
    page.context.close()


def test_one_socket_too_many_says_so_and_joins_when_one_is_freed(
    browser: Any, tmp_path: Path
) -> None:
    """A server that lets one address hold a single socket: Ann's table page has it; a
    second tab watching the table is told why it cannot connect (the server's close code
    4429 in words, not "connection lost") and keeps trying; once Ann's tab is closed, it
    connects and shows the table."""
    small = test_browser.start_server(tmp_path, extra=["--sockets-per-address", "1"])
    try:
        created = test_browser.create_table(small)
        tid = created["table"]["id"]
        ann = new_page(browser)
        test_browser.open_seat(ann, small, created)
        wait_decision(ann)
        watcher = new_page(browser)
        watcher.goto(f"{small.base}/watch/{tid}")
        expect(watcher.locator("#banner")).to_contain_text(
            "Too many connections to this server are open from your network"
        )
        assert watcher.evaluate("() => window.__cp.view") is None
        ann.context.close()
        watcher.wait_for_function("() => window.__cp.view !== null", timeout=30000)
        expect(watcher.locator("#banner")).to_be_hidden()
        no_page_errors(watcher)
        watcher.context.close()
    finally:
        small.stop()
