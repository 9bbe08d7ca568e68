"""Issue 40 item 10: a whole hand played with the keyboard alone on a desktop, and what
a screen reader is told along the way, in English and Russian: the turn in the polite
live region when it starts, each card selected, placed (and where) or taken back in the
play region, the cards and the controls named by what they show, and the showdown.

The words are written here by hand, as players of each language say them. Shares
tests/test_browser.py's server, browser and helpers."""

from __future__ import annotations

import re
from typing import Any

import pytest

import test_browser
from test_browser import Server, create_table, new_page, no_page_errors, open_seat, wait_decision

browser, server = test_browser.browser, test_browser.server
pytestmark = test_browser.pytestmark
expect = test_browser.expect

WORDS = {
    "en-GB": {"turn": "Your turn", "lines": ("Top", "Mid", "Bottom"), "confirm": "Confirm",
              "undo": "Undo", "selected": "selected", "back": "taken back",
              "discard": "discard", "result": "Hand 1 result"},
    "ru-RU": {"turn": "Ваш ход", "lines": ("Верхняя", "Средняя", "Нижняя"),
              "confirm": "Готово", "undo": "Отменить", "selected": "выбрана",
              "back": "возвращена", "discard": "сброс", "result": "Итог руки 1"},
}  # fmt: skip
LINE_WORDS = {"en-GB": ("top", "middle", "bottom"), "ru-RU": ("верхняя", "средняя", "нижняя")}


def _tab_to(page: Any, test: str, back: bool = False) -> None:
    """Tab (or Shift+Tab) until the focused element passes ``test`` (a JS function of
    it): what a keyboard user does to reach a control."""
    for _ in range(60):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        if page.evaluate(f"() => ({test})(document.activeElement)"):
            return
    raise AssertionError(f"Tab never reached {test}")


def _street_by_tab(page: Any, d: dict[str, Any], said: dict[str, Any], locale: str) -> None:
    """A street with Tab and Enter only: each card focused and chosen, then the line's
    button, then Confirm; the focus stays where the player was after each press."""
    free = list(d["free"])
    for _ in range(d["place"]):
        line = 2 if free[2] else 1 if free[1] else 0
        free[line] -= 1
        _tab_to(page, "(el) => !!el.dataset.pick", back=True)
        spoken = page.evaluate("() => document.activeElement.title")
        page.keyboard.press("Enter")
        _said(page, f"{spoken} {said['selected']}" if locale == "en-GB"
              else f"{said['selected']}: {spoken}")  # fmt: skip
        assert page.evaluate("() => document.activeElement.dataset.pick") is not None
        act = ("top", "middle", "bottom")[line]
        _tab_to(page, f"(el) => el.dataset.act === '{act}'")
        staged = page.evaluate("() => window.__cp.moves.length")
        page.keyboard.press("Enter")
        # The card is on the line, said so, and the focus still on the line's button.
        _said(page, f"{spoken}: {LINE_WORDS[locale][line]}")
        page.wait_for_function(
            f"() => window.__cp.moves.length === {staged + 1}"
            f" && window.__cp.moves[{staged}].to === '{act}'"
        )
        assert page.evaluate("() => document.activeElement.dataset.act") == act
    _tab_to(page, "(el) => el.id === 'confirm-btn'")
    page.keyboard.press("Enter")


def _live(page: Any, region: str) -> str:
    return str(page.evaluate(f"() => (document.getElementById('{region}') || {{}}).textContent"))


def _said(page: Any, words: str) -> None:
    """The play region says ``words`` (exactly, once the key's render is done)."""
    page.wait_for_function(
        "(w) => (document.getElementById('play-live') || {}).textContent === w", arg=words
    )


@pytest.mark.parametrize("locale", list(WORDS))
def test_a_whole_hand_by_keyboard_with_what_a_screen_reader_says(
    browser: Any, server: Server, locale: str
) -> None:
    said = WORDS[locale]
    page = new_page(browser, locale=locale, viewport=test_browser.DESKTOP)
    open_seat(page, server, create_table(server, name=f"keys-{locale}", next_hand_delay=30))
    live = page.locator("#play-live, #turn-live")
    d = wait_decision(page)
    assert live.count() >= 1
    # The live regions are polite and say it all at once.
    turn_region = page.locator("#turn-live")
    assert turn_region.get_attribute("aria-live") == "polite"
    page.wait_for_function(
        "(w) => document.getElementById('turn-live').textContent.startsWith(w)", arg=said["turn"]
    )
    # The controls are named by what they show, in the player's language.
    for word in said["lines"]:
        expect(page.get_by_role("button", name=word, exact=True)).to_have_count(1)
    expect(page.get_by_role("button", name=re.compile(said["confirm"]))).to_have_count(1)
    expect(page.get_by_role("button", name=re.compile(said["undo"]))).to_have_count(1)

    streets = 0
    while not d.get("showdown"):
        # Every card of the hand is a button whose name starts with its key and what it
        # shows, then its spoken name (the title).
        cards = page.locator("#hand [data-pick]")
        for i in range(cards.count()):
            name = cards.nth(i).get_attribute("aria-label") or ""
            title = cards.nth(i).get_attribute("title") or ""
            assert title and name.endswith(title) and name[0] in "1234567890", (name, title)
        if streets == 0:  # the first street with Tab and Enter alone
            _street_by_tab(page, d, said, locale)
        else:  # the others with the table's keys
            free = list(d["free"])
            for n in range(d["place"]):
                line = 2 if free[2] else 1 if free[1] else 0
                free[line] -= 1
                spoken = page.locator("#hand [data-pick]").first.get_attribute("title")
                page.keyboard.press("1")
                _said(page, f"{spoken} {said['selected']}" if locale == "en-GB"
                      else f"{said['selected']}: {spoken}")  # fmt: skip
                page.keyboard.press("tmb"[line])
                _said(page, f"{spoken}: {LINE_WORDS[locale][line]}")
                if streets == 1 and n == 0:  # once: a card taken back with U, and put again
                    page.keyboard.press("u")
                    _said(page, f"{spoken} {said['back']}" if locale == "en-GB"
                          else f"{said['back']}: {spoken}")  # fmt: skip
                    page.keyboard.press("1")
                    page.keyboard.press("tmb"[line])
                    _said(page, f"{spoken}: {LINE_WORDS[locale][line]}")
            if d["discard"] and streets == 2:  # once: the discard by its key
                spoken = page.locator("#hand [data-pick]").first.get_attribute("title")
                page.keyboard.press("1")
                page.keyboard.press("x")
                _said(page, f"{spoken}: {said['discard']}")
            page.keyboard.press("Enter")
            if page.evaluate("() => window.__cp.foulAsked"):
                expect(page.locator("#foul-question")).to_have_attribute("role", "alert")
                page.keyboard.press("Enter")
        page.wait_for_function(
            f"() => !window.__cp.view || window.__cp.view.version > {d['version']}"
        )
        streets += 1
        d = wait_decision(page, timeout=30)
        if not d.get("showdown"):  # the next street is announced as the player's turn
            page.wait_for_function(
                "(w) => document.getElementById('turn-live').textContent.startsWith(w)",
                arg=said["turn"],
            )
    assert streets == 5
    expect(page.locator("#breakdown h2")).to_contain_text(said["result"])
    assert not _live(page, "turn-live")  # nobody's turn at the showdown: nothing said
    no_page_errors(page)
    page.context.close()
