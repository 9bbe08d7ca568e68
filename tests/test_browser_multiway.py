"""Issue 40 item 6 in Debian's Chromium, as players: at a three-handed table each line's
mark names the opponent it is against (the name on a desktop played by the keyboard, in
English; the first letters on a phone, tapped, in Latvian, a tap on a mark bringing its
row of the breakdown into view), and the hands list shows each hand's points, the
player's own first. axe-core on both screens.

Screenshots go to ``CP_SCREENSHOT_DIR`` (docs/screenshots for docs/browser.md).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import test_browser
from test_browser import (
    SHORT_PHONE,
    Server,
    create_table,
    element_shot,
    new_page,
    no_page_errors,
    open_seat,
)
from test_browser_a11y import problems

browser, server, shots = test_browser.browser, test_browser.server, test_browser.shots
pytestmark = test_browser.pytestmark
expect = test_browser.expect

SEATS = [
    {"kind": "human", "name": "Ann"},
    {"kind": "bot", "bot": "rules", "name": "Bob"},
    {"kind": "bot", "bot": "rules", "name": "Cleo"},
]


def three_handed(server: Server) -> dict[str, Any]:
    """Ann, Bob and Cleo; Ann's streets are made for her (as the rules bot plays them)
    when her 1 s runs out, so that her board rarely fouls: the page is only looked at."""
    return create_table(
        server, seats=SEATS, next_hand_delay=60, time_limit=1.0, timeouts="decision"
    )


#: The opponents Ann's lines were compared with at this showdown (nobody fouled).
COMPARED = """() => {
  const T = window.__cp;
  if (!T || !T.lastEnd || !T.view || T.view.phase !== 'showdown') return null;
  if (T.lastEnd.hand !== T.hand) return null;
  return T.view.settlement.pairs
    .filter((p) => (p.a === 'Ann' || p.b === 'Ann') && p.items.some((i) => i.kind === 'line'))
    .map((p) => (p.a === 'Ann' ? p.b : p.a));
}"""


def showdown_against_both(page: Any, next_hand: Any) -> None:
    """Play on (``next_hand(page)`` deals the next) until a showdown where Ann's lines
    were compared with both opponents' (a foul compares no line)."""
    for _ in range(6):
        page.wait_for_function(COMPARED, timeout=120_000)
        if sorted(page.evaluate(COMPARED)) == ["Bob", "Cleo"]:
            return
        hand = page.evaluate("() => window.__cp.hand")
        next_hand(page)
        page.wait_for_function(f"() => window.__cp.hand > {hand}", timeout=30_000)
    raise AssertionError("six hands in a row with a foul")


def check_hands_list(page: Any, you: str) -> None:
    """Hand 1 in the hands list with Ann's points first (as ``you``), then Bob's, Cleo's."""
    result = page.locator("#hands .hand-result").first
    expect(result).to_be_visible(timeout=20_000)
    points = result.locator(".hand-points")
    expect(points).to_have_count(3)
    expect(points.nth(0)).to_have_text(re.compile(rf"^{you} [+-]?\d+$"))
    expect(points.nth(1)).to_contain_text("Bob")
    expect(points.nth(2)).to_contain_text("Cleo")
    ledger = page.evaluate("() => window.__cp.ledger.hands[0].totals")
    shown = points.nth(0).locator("b").inner_text().replace("+", "").replace("−", "-")
    assert int(shown) == ledger["Ann"]


def test_desktop_by_keyboard_names_each_opponent_beside_each_line(
    browser: Any, server: Server, shots: Path
) -> None:
    page = new_page(browser, locale="en-GB")
    open_seat(page, server, three_handed(server))

    def next_by_keyboard(p: Any) -> None:
        p.locator("#next-btn").focus()
        p.keyboard.press("Space")

    showdown_against_both(page, next_by_keyboard)
    marks = page.locator("#my-board [data-marks='top'] a.mark[data-vs]")
    expect(marks).to_have_count(2)
    for vs in ("Bob", "Cleo"):
        mark = page.locator(f"#my-board [data-marks='top'] a.mark[data-vs='{vs}']")
        # What is seen, and so what it is called (the phone's letters are hidden here).
        expect(mark).to_have_accessible_name(re.compile(rf"^{vs} ([+-−]\d+|=)$"))
        assert re.fullmatch(rf"{vs} ([+-−]\d+|=)", mark.inner_text().strip())
        expect(mark).to_have_attribute("title", f"top against {vs}")
    # By the keyboard: Tab goes from one opponent's mark to the next.
    marks.first.focus()
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.dataset.vs") == "Cleo"
    check_hands_list(page, "you")
    element_shot(page.locator("#my-board"), shots / "multiway-marks-desktop.png")
    element_shot(page.locator("#hands"), shots / "multiway-hands-list.png")
    found = problems(page, "three-handed showdown (desktop)")
    assert not found, "\n".join(found)
    no_page_errors(page)
    page.context.close()


def test_phone_taps_show_the_first_letters_and_the_breakdown_row(
    browser: Any, server: Server, shots: Path
) -> None:
    page = new_page(
        browser, locale="lv-LV", viewport=SHORT_PHONE, is_mobile=True,
        has_touch=True,
    )  # fmt: skip
    open_seat(page, server, three_handed(server))
    showdown_against_both(page, lambda p: p.locator("#next-btn").tap())
    bob = page.locator("#my-board [data-marks='middle'] a.mark[data-vs='Bob']")
    expect(bob.locator(".vs-short")).to_have_text("B")
    expect(bob.locator(".vs-short")).to_be_visible()
    expect(bob.locator(".vs-long")).to_be_hidden()
    cleo = page.locator("#my-board [data-marks='middle'] a.mark[data-vs='Cleo']")
    expect(cleo.locator(".vs-short")).to_have_text("C")
    pair = bob.get_attribute("data-pair")
    bob.tap()
    expect(page.locator(f"#{pair}")).to_be_in_viewport()
    check_hands_list(page, "jūs")
    element_shot(page.locator("#my-board"), shots / "multiway-marks-phone-lv.png")
    found = problems(page, "three-handed showdown (phone)")
    assert not found, "\n".join(found)
    no_page_errors(page)
    page.context.close()
