"""Issue 12, the rest, in Debian's Chromium as a person plays: a rematch with a friend
who follows in one click (no new link), a real touch drag of a card to a line on a
390x844 phone, and the 4-player layout with no opponent or hand name cut.

Screenshots go to ``CP_SCREENSHOT_DIR`` (docs/screenshots for the docs), as in
tests/test_browser.py, whose server, browser and helpers these tests share.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import test_browser
from test_browser import (
    DECISION_JS,
    PHONE,
    Server,
    new_page,
    no_page_errors,
    play_keys,
    set_with_keys,
    wait_decision,
)
from test_browser_table import custom_table

browser, server, shots = test_browser.browser, test_browser.server, test_browser.shots

# The same marks as test_browser: never skipped silently in CI.
pytestmark = test_browser.pytestmark
expect = test_browser.expect


def shot(page: Any, path: Path, **kw: Any) -> None:
    """A screenshot of the page as it stands, without the toasts the keyboard play left."""
    page.evaluate("() => document.querySelectorAll('.toast').forEach((e) => e.remove())")
    page.screenshot(path=str(path), **kw)


def play_all(pages: list[Any], done: Callable[[], bool], deadline: float) -> None:
    """Each page plays its own decisions with the keyboard until ``done()``."""
    while not done():
        assert time.monotonic() < deadline, "the table never got there"
        for page in pages:
            d = page.evaluate(f"({DECISION_JS})()")
            if d and not d.get("showdown"):
                if d["kind"] == "set":
                    set_with_keys(page, d)
                else:
                    play_keys(page, d)
        time.sleep(0.05)


def ann_and_bob(browser: Any, server: Server, fields: dict[str, str]) -> tuple[Any, Any]:
    """Ann opens a custom table for a friend (hand after hand, the form's default) and
    Bob joins it by her invite link: both pages at the table."""
    ann = custom_table(browser, server, fields, friend=True)
    expect(ann.locator("#f-mode")).to_have_value("continuous")
    ann.click("#create-btn")
    invite = ann.locator("#invite-url").input_value()
    ann.click("#go-table")
    bob = new_page(browser)
    bob.goto(invite)
    bob.fill("#j-name", "Bob")
    bob.click("#join-btn")
    bob.wait_for_url("**/table/*")
    return ann, bob


def test_a_rematch_with_a_friend_who_follows_in_one_click(
    browser: Any, server: Server, shots: Path
) -> None:
    ann, bob = ann_and_bob(browser, server, {"#f-nextdelay": "1"})
    expect(ann.locator("#f-mode")).to_have_count(0)
    old = bob.url
    watcher = new_page(browser)
    watcher.goto(old.replace("/table/", "/watch/"))

    # Two hands (the button's orbit), then a third: the session goes on.
    hand = "() => window.__cp.hand"
    play_all([ann, bob], lambda: ann.evaluate(hand) >= 3, time.monotonic() + 150)
    ann.click("#leave-btn")
    ann.click("#leave-yes")
    expect(bob.locator("#last-hand")).to_contain_text("Ann is leaving")
    shot(bob, shots / "last-hand.png")
    over = "() => window.__cp.sessionOver"
    play_all([ann, bob], lambda: bool(bob.evaluate(over)), time.monotonic() + 90)
    expect(bob.locator("#session-over")).to_contain_text("Ann left")

    ann.click("#rematch-btn")
    ann.wait_for_function(f"() => location.href !== {old!r}")
    new = ann.url
    # Bob is offered to follow on the page he has open: one click, no link, no code.
    offer = bob.locator("#rematch-offer")
    expect(offer).to_contain_text("Ann started a rematch")
    shot(bob, shots / "rematch-offer.png")
    bob.click("#follow-btn")
    bob.wait_for_url(new)
    # Somebody watching the old table is offered to watch the new one.
    expect(watcher.locator("#follow-btn")).to_have_text("Watch the rematch")
    watcher.click("#follow-btn")
    watcher.wait_for_url(new.replace("/table/", "/watch/"))
    expect(watcher.locator(".table-head")).to_contain_text("spectating")
    expect(bob.locator("#conn")).to_contain_text("Bob")
    expect(ann.locator("#opponents")).to_contain_text("Bob")
    play_all([ann, bob], lambda: ann.evaluate(hand) == 1 and bool(
        bob.evaluate("() => window.__cp.view && window.__cp.view.street >= 2")),
        time.monotonic() + 60)  # fmt: skip
    assert ann.evaluate("() => window.__cp.info.id") == bob.evaluate("() => window.__cp.info.id")
    no_page_errors(ann)
    no_page_errors(bob)
    no_page_errors(watcher)
    for page in (ann, bob, watcher):
        page.context.close()


def _centre(page: Any, selector: str) -> tuple[float, float]:
    """Where ``selector``'s element is now. A state arriving draws the screen anew, so
    the element found may leave the page before it is measured: then it is found again."""
    for _ in range(20):
        found = page.locator(selector).first
        found.wait_for(state="visible")
        box = found.bounding_box()
        if box is not None:
            return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    raise AssertionError(f"{selector}: never still long enough to be measured")


UNDER_FINGER_JS = """([x, y]) => {
  const el = document.elementFromPoint(x, y);
  return el ? el.outerHTML.slice(0, 160) : 'nothing';
}"""


def touch_drag(page: Any, source: str, target: str) -> str:
    """A finger on ``source``, moved in steps onto ``target`` and lifted: real touch
    events through Chromium's input pipeline (DevTools' Input.dispatchTouchEvent). The
    finger aims at the target where it is at each step (as a person's does, should the
    page move meanwhile). Returns what was under the finger when it was lifted."""
    cdp = page.context.new_cdp_session(page)

    def finger(kind: str, *at: float) -> None:
        points = [{"x": at[0], "y": at[1]}] if at else []
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    x0, y0 = _centre(page, source)
    finger("touchStart", x0, y0)
    for i in range(1, 13):
        x1, y1 = _centre(page, target)
        finger("touchMove", x0 + (x1 - x0) * i / 12, y0 + (y1 - y0) * i / 12)
        if i == 6:  # mid-way a ghost of the card follows the finger
            assert page.locator(".drag-ghost").count() == 1
            # A state arriving mid-drag draws the screen anew (the touched card is no
            # longer in the page): the drag goes on all the same.
            page.evaluate("() => window.__cp.render()")
    under = str(page.evaluate(UNDER_FINGER_JS, [x1, y1]))
    finger("touchEnd")
    cdp.detach()
    return under


def test_a_card_dragged_by_touch_on_a_phone(browser: Any, server: Server, shots: Path) -> None:
    page = new_page(
        browser, viewport=PHONE, is_mobile=True, has_touch=True,
        device_scale_factor=2,
    )  # fmt: skip
    page.goto(server.base + "/")
    page.tap("#play-bot")
    page.wait_for_url("**/table/*")
    d = wait_decision(page)
    first, second = d["cards"][0], d["cards"][1]
    under = touch_drag(page, f"#hand [data-card='{first}']", "[data-drop='middle']")
    moves = page.evaluate("() => window.__cp.moves")
    assert moves == [{"card": first, "to": "middle"}], f"lifted over {under}"
    expect(page.locator(".drag-ghost")).to_have_count(0)
    expect(page.locator("#my-board [data-line='middle'] .card.staged")).to_have_count(1)
    touch_drag(page, f"#hand [data-card='{second}']", "[data-drop='top']")
    # A staged card is dragged on to another line the same way.
    touch_drag(page, f"#my-board [data-unstage='{first}']", "[data-drop='bottom']")
    moves = page.evaluate("() => window.__cp.moves")
    assert {m["card"]: m["to"] for m in moves} == {first: "bottom", second: "top"}
    shot(page, shots / "phone-touch-drag.png")
    # A drop outside every line leaves the card in the hand.
    third = d["cards"][2]
    touch_drag(page, f"#hand [data-card='{third}']", ".table-head")
    assert len(page.evaluate("() => window.__cp.moves")) == 2
    no_page_errors(page)
    page.context.close()


CUT_JS = """() => {
  const bad = [];
  const els = document.querySelectorAll(
    '#opponents .board-head .name, #opponents .bot-level, #opponents .line-info');
  for (const el of els) {
    if (!el.textContent.trim()) continue;
    if (el.scrollWidth > el.clientWidth + 1) bad.push(`cut: ${el.textContent}`);
    const box = el.getBoundingClientRect();
    const outer = el.closest('.board-box').getBoundingClientRect();
    if (box.left < outer.left - 1 || box.right > outer.right + 1)
      bad.push(`outside its board: ${el.textContent}`);
    if (box.right > document.documentElement.clientWidth + 1)
      bad.push(`off the page: ${el.textContent}`);
  }
  return bad;
}"""


def test_four_players_names_and_hand_names_are_not_cut(
    browser: Any, server: Server, shots: Path
) -> None:
    page = custom_table(browser, server, {})
    page.select_option("#f-preset", "ofc")
    page.select_option("#f-count", "4")
    names = ["Bartholomew Pennington", "Anastasia Wolkonsky", "Christopher Ashdown"]
    for i, name in enumerate(names, 1):
        page.select_option(f".seat-row[data-seat='{i}'] .s-bot", "beginner")
        page.fill(f".seat-row[data-seat='{i}'] .s-name", name)
    page.fill("#f-botdelay", "0")
    page.fill("#f-nextdelay", "60")
    page.click("#create-btn")
    page.wait_for_url("**/table/*")
    showdown = "() => window.__cp.view && window.__cp.view.phase === 'showdown'"
    play_all([page], lambda: bool(page.evaluate(showdown)), time.monotonic() + 120)
    heads = page.locator("#opponents .board-head .name")
    expect(heads).to_have_count(3)
    for name in names:
        expect(page.locator("#opponents")).to_contain_text(name)
    # Every opponent's three lines are named at the showdown (the hands as held).
    infos = page.locator("#opponents .line-info")
    assert sum(1 for t in infos.all_inner_texts() if t.strip()) >= 6
    for width, height in ((1280, 900), (1024, 768), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(100)
        assert page.evaluate(CUT_JS) == [], (width, height)
        if width == 1280:
            shot(page, shots / "four-players.png", full_page=True)
    # The check sees a cut when there is one (the old one-line, clipped name).
    page.add_style_tag(
        content="#opponents .board-head .name { display: inline-block;"
        " max-width: 60px; overflow: hidden; white-space: nowrap; }"
    )
    assert any(names[0] in bad for bad in page.evaluate(CUT_JS))
    no_page_errors(page)
    page.context.close()


def test_rule_changes_are_offered_in_the_servers_words(
    browser: Any, server: Server, shots: Path
) -> None:
    from chinese_poker.rules.words import OPTION_WORDS, PRESET_WORDS

    page = custom_table(browser, server, {})
    page.select_option("#f-preset", "ofc")
    expect(page.locator("#f-preset option[value=ofc]")).to_have_text(PRESET_WORDS["ofc"].label)
    expect(page.locator("#f-preset-summary")).to_have_text(PRESET_WORDS["ofc"].help)
    # A closed option: its choices in words, the preset's value marked.
    page.click("#f-add-option")
    row = page.locator(".option-row").nth(0)
    row.locator(".o-name").select_option("royalty_award")
    words = OPTION_WORDS["royalty_award"]
    expect(row.locator(".help")).to_have_text(words.help)
    expect(row.locator("select.o-value option[value=net]")).to_contain_text("(now)")
    row.locator(".o-value").select_option(label=words.choices["winner_only"])
    # A yes/no option, and an open one typed as text.
    page.click("#f-add-option")
    row = page.locator(".option-row").nth(1)
    row.locator(".o-name").select_option("finnish_deuce")
    row.locator(".o-value").select_option("true")
    page.click("#f-add-option")
    row = page.locator(".option-row").nth(2)
    row.locator(".o-name").select_option("unit_value")
    expect(row.locator("input.o-value")).to_have_attribute("placeholder", "now: 1")
    row.locator(".o-value").fill("2.5")
    shot(page, shots / "lobby-rule-words.png", full_page=True)
    page.click("#create-btn")
    page.wait_for_url("**/table/*")
    tid = page.evaluate("() => window.__cp.id")
    info = server.get(f"/api/tables/{tid}")
    assert info["options"] == {"royalty_award": "winner_only", "finnish_deuce": True,
                               "unit_value": 2.5}  # fmt: skip
    assert info["rules"]["royalty_award"] == "winner_only"
    no_page_errors(page)
    page.context.close()


def test_a_server_restart_keeps_the_bank_left_and_the_stand_in(
    browser: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    own = test_browser.start_server(tmp_path)
    try:
        fields = {"#f-time": "1", "#f-bank": "120", "#f-grace": "300", "#f-botdelay": "0.3"}
        ann, bob = ann_and_bob(browser, own, fields)
        # Ann's clock starts when Bob has played (after `before`) and stops when the server
        # takes her street (before `after`): her bank pays for at most that, less her second.
        before = time.monotonic()
        play_keys(bob, wait_decision(bob))
        d = wait_decision(ann)
        time.sleep(3)  # Ann thinks 2 s past her move's second: her bank pays for it
        play_keys(ann, d)
        after = time.monotonic()
        # Bob goes; Ann, who opened the table, hands his seat to a bot at once.
        bob.goto(own.base + "/")
        kicked = time.monotonic()  # Ann's street 2 (and its clock) is dealt after this
        ann.locator("#seat-controls button").click(timeout=15000)
        expect(ann.locator("#opponents .chip.standin")).to_be_visible()
        d = wait_decision(ann)  # the stand-in played Bob's street 2
        assert d["street"] == 2
        bank_js = ("() => { const T = window.__cp; const c = (T.clocks || [])"
                   ".find((x) => x.seat === T.seat); return c ? c.bank : null; }")  # fmt: skip
        bank = ann.evaluate(bank_js)
        # (the clock of street 2 may have run into the bank too before the state was sent)
        spent = after - before - 1 + max(0.0, time.monotonic() - kicked - 1)
        assert bank is not None and 120 - spent - 0.001 <= bank <= 118.001, (bank, spent)

        # The server dies mid-hand and comes back on the same port and database.
        port = int(own.base.rsplit(":", 1)[1])
        seen = ann.evaluate("() => window.__cp.clocksAt")  # when the last state came
        own.proc.kill()
        own.proc.wait(timeout=10)
        monkeypatch.setattr(test_browser, "_free_port", lambda: port)
        own = test_browser.start_server(tmp_path)
        # The page reconnects by itself; the first state of the new server has the clock.
        ann.wait_for_function(f"() => window.__cp.clocksAt > {seen}", timeout=30000)
        # Not refilled to 120: what Ann had left (less what her clock has run since her
        # street 2 was dealt, by the new server or the old, if her page was slow).
        again = ann.evaluate(bank_js)
        assert bank - (time.monotonic() - kicked) - 0.001 <= again <= bank + 0.001, (again, bank)
        expect(ann.locator("#opponents .chip.standin")).to_be_visible()
        tid = ann.evaluate("() => window.__cp.id")
        assert own.get(f"/api/tables/{tid}")["seats"][1]["stand_in"] is True
        play_keys(ann, wait_decision(ann))  # and the hand goes on, the bot for Bob
        ann.wait_for_function("() => window.__cp.view.street >= 3", timeout=20000)
        ann.context.close()
        bob.context.close()
    finally:
        own.stop()
