"""The articles' five languages in Debian's Chromium, as a person meets them: the lobby,
the table and the showdown in English, Bulgarian, Croatian, Russian and Latvian, chosen
from the browser's language (the context's ``locale``) or with the switch in the top bar,
which a reload keeps; a server error shown by its code in the player's language.

The expected words are written here by hand (not read from the catalogues), so a
catalogue that drifts from what players of each country say fails. Screenshots go to
``CP_SCREENSHOT_DIR`` (docs/screenshots for docs/browser.md), as in tests/test_browser.py,
whose server, browser and helpers these tests share.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import test_browser
from test_browser import (
    DESKTOP,
    PHONE,
    SHORT_PHONE,
    Server,
    create_table,
    new_page,
    no_page_errors,
    open_seat,
    play_keys,
    wait_decision,
)

browser, server, shots = test_browser.browser, test_browser.server, test_browser.shots

# The same marks as test_browser: never skipped silently in CI.
pytestmark = test_browser.pytestmark
expect = test_browser.expect

LOCALES = {"en": "en-GB", "bg": "bg-BG", "hr": "hr-HR", "ru": "ru-RU", "lv": "lv-LV"}
PLAY_NOW = {"en": "Play now", "bg": "Играй сега", "hr": "Igraj sada", "ru": "Играть сейчас",
            "lv": "Spēlēt tagad"}  # fmt: skip
RESULT = {"en": "Hand 1 result", "bg": "Резултат от ръка 1", "hr": "Rezultat ruke 1",
          "ru": "Итог руки 1", "lv": "Rokas 1 rezultāts"}  # fmt: skip
LINE_WORDS = {
    "en": ("top", "middle", "bottom"),
    "bg": ("горна", "средна", "долна"),
    "hr": ("gornja", "srednja", "donja"),
    "ru": ("верхняя", "средняя", "нижняя"),
    "lv": ("priekšējā", "vidējā", "aizmugurējā"),
}
LEDGER = {"en": "Ledger", "bg": "Сметка", "hr": "Obračun", "ru": "Счёт", "lv": "Rēķins"}
STALE = {
    "en": "The table moved on",
    "bg": "Масата продължи",
    "hr": "Stol je krenuo dalje",
    "ru": "Стол ушёл вперёд",
    "lv": "Galds turpināja",
}
# English words of hands and cards that must not show through in another language
# ("kicker" is the Croatian players' word too).
ENGLISH = re.compile(r"\b(Pair of|high|Two pair|Three|Four|Flush|Straight|Full house|of spades"
                     r"|of hearts|of diamonds|of clubs)\b")  # fmt: skip
# Which screens are kept for the docs (a handful, 1280 wide or a phone).
SHOTS = {"ru": "i18n-lobby-ru.png", "bg": "i18n-table-bg.png", "hr": "i18n-showdown-hr.png",
         "lv": "i18n-showdown-lv-phone.png"}  # fmt: skip


def _play_to_showdown(page: Any, mid_hand_shot: Path | None = None) -> None:
    streets = 0
    while not (d := wait_decision(page, timeout=30)).get("showdown"):
        if streets == 2 and mid_hand_shot is not None:
            page.screenshot(path=str(mid_hand_shot))
        play_keys(page, d)
        streets += 1


@pytest.mark.parametrize("lang", list(LOCALES))
def test_lobby_table_and_showdown_in_the_browsers_language(
    browser: Any, server: Server, shots: Path, lang: str
) -> None:
    phone = lang == "lv"
    viewport = PHONE if phone else DESKTOP
    page = new_page(browser, locale=LOCALES[lang], viewport=viewport)
    page.goto(server.base + "/")
    # The lobby speaks the browser's language, and the switch shows it.
    expect(page.locator("#quick-panel h2")).to_have_text(PLAY_NOW[lang])
    assert page.get_attribute("html", "lang") == lang
    assert page.input_value("#lang") == lang
    if lang in SHOTS and lang == "ru":
        page.screenshot(path=str(shots / SHOTS[lang]))

    # The table: line names, the player's cards named in the language, and a hand.
    # The showdown is held for its checks (a loaded machine may take seconds over them).
    open_seat(page, server, create_table(server, name=f"i18n-{lang}", next_hand_delay=30))
    d = wait_decision(page)
    labels = page.locator("#my-board .line-label .long").all_text_contents()
    assert tuple(labels) == LINE_WORDS[lang]
    card = page.locator("#hand [data-card]").first
    name = card.get_attribute("aria-label") or ""
    assert name and (lang == "en") != (ENGLISH.search(name) is None), name
    play_keys(page, d)
    mid = shots / SHOTS[lang] if lang == "bg" else None
    _play_to_showdown(page, mid)

    # The showdown: the breakdown, the hand names and the ledger in the same language.
    breakdown = page.locator("#breakdown")
    expect(breakdown.locator("h2")).to_contain_text(RESULT[lang])
    expect(page.locator("#ledger h2")).to_contain_text(LEDGER[lang])
    # The boards are drawn a moment after the showdown's state arrives.
    page.wait_for_function(
        "() => [...document.querySelectorAll('#my-board .line-info')]"
        ".filter((e) => e.innerText.trim()).length === 3"
    )
    names = [t for t in page.locator("#my-board .line-info").all_inner_texts() if t.strip()]
    assert len(names) == 3, names
    text = breakdown.inner_text()
    if lang == "en":
        assert ENGLISH.search(" ".join(names)), names
    else:
        assert ENGLISH.search(" ".join(names)) is None, names
        assert ENGLISH.search(text) is None, text
    if lang in ("hr", "lv"):
        page.screenshot(path=str(shots / SHOTS[lang]), full_page=not phone)
    if phone:
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 391, f"the page is {width}px wide on a 390px phone"
    no_page_errors(page)
    page.context.close()  # its table plays on otherwise, beside the next tests


def test_the_switch_changes_the_page_and_a_reload_keeps_it(browser: Any, server: Server) -> None:
    page = new_page(browser, locale="en-US")
    page.goto(server.base + "/")
    expect(page.locator("#quick-panel h2")).to_have_text("Play now")
    options = page.locator("#lang option").all_inner_texts()
    assert options == ["English", "Български", "Hrvatski", "Русский", "Latviešu"]
    page.select_option("#lang", "hr")
    expect(page.locator("#quick-panel h2")).to_have_text(PLAY_NOW["hr"])
    expect(page.locator("#topbar .desklinks a").first).to_have_text("Bodovi")
    assert page.get_attribute("html", "lang") == "hr"
    page.reload()
    expect(page.locator("#quick-panel h2")).to_have_text(PLAY_NOW["hr"])
    assert page.input_value("#lang") == "hr"

    # At the table mid-decision: a switch re-renders in place and keeps the staged cards.
    open_seat(page, server, create_table(server, name="switch"))
    d = wait_decision(page)
    page.keyboard.press("1")
    page.keyboard.press("b")
    page.wait_for_function("() => window.__cp.moves.length === 1")
    page.select_option("#lang", "ru")
    expect(page.locator("#my-board .line-label .long").first).to_have_text("верхняя")
    page.wait_for_function("() => window.__cp.view && window.__cp.moves.length === 1")
    assert d["staged"] == 0

    # A server error, shown by its code in the player's language (a stale version).
    page.evaluate(
        """() => window.__cp.ws.send(JSON.stringify({type: "action", id: 999,
             action: {type: "place", seat: window.__cp.seat, hand: 0, version: 0, top: [],
                      middle: [], bottom: [], discard: []}}))"""
    )
    expect(page.locator(".toast.error .msg").last).to_contain_text(STALE["ru"])
    no_page_errors(page)
    page.context.close()  # its table plays on otherwise, beside the next tests


def test_every_language_names_the_same_screen_fully(browser: Any, server: Server) -> None:
    """No key shows through untranslated: the lobby's visible text in each language has
    no catalogue key (``lobby.play_now``) and no unfilled ``{placeholder}``."""
    root = Path(__file__).resolve().parent.parent / "src/chinese_poker/server/static/i18n"
    keys = set(json.loads((root / "en.json").read_text()))
    page = new_page(browser, locale="en-US")
    page.goto(server.base + "/")
    for lang in LOCALES:
        page.select_option("#lang", lang)
        expect(page.locator("#quick-panel h2")).to_have_text(PLAY_NOW[lang])
        page.evaluate("() => { document.querySelector('#custom').open = true; }")
        text = page.inner_text("body")
        shown = {k for k in keys if k in text}
        assert not shown, f"{lang}: keys shown as text: {sorted(shown)}"
        assert not re.search(r"\{\w+\}", text), lang
    no_page_errors(page)
    page.context.close()  # its table plays on otherwise, beside the next tests


# What can overflow or overlap at the table: the line labels (their words beside the
# cards), the buttons of the action bar and the hand zone, the discard zone's label.
# Returns one sentence per problem: text beyond its box, a label over the cards, two
# buttons over each other, a control beyond the screen's edge.
FIT_JS = """() => {
  const seen = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
  };
  const textBox = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
    if (!rects.length) return null;
    const most = (side, pick) => pick(...rects.map((r) => r[side]));
    return { left: most('left', Math.min), right: most('right', Math.max),
             top: most('top', Math.min), bottom: most('bottom', Math.max) };
  };
  const meet = (a, b) => a.left < b.right - 1 && b.left < a.right - 1
    && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const name = (el) => `${el.id ? '#' + el.id : el.className || el.tagName}`
    + ` "${el.innerText.trim()}" (${Math.round(el.clientWidth)} px for ${el.scrollWidth})`;
  const out = [];
  const width = document.documentElement.clientWidth;
  for (const label of document.querySelectorAll('.line-row .line-label')) {
    if (!seen(label)) continue;
    const box = label.getBoundingClientRect(), text = textBox(label);
    if (!text) continue;
    const spills = text.right > box.right + 1 || text.left < box.left - 1;
    if (spills) out.push('overflows: ' + name(label));
    const cards = label.parentElement.querySelector('.cards');
    const onCards = cards && meet(text, cards.getBoundingClientRect());
    if (onCards) out.push('on the cards: ' + name(label));
  }
  const controls = [...document.querySelectorAll(['#action-bar button', '.hand-zone button',
    '.discard-zone .label', '.table-head button', '.decision-zone button'].join(', '))]
    .filter((el) => seen(el) && !el.classList.contains('card'));
  for (const el of controls) {
    const box = el.getBoundingClientRect(), text = textBox(el);
    const spills = text && (text.right > box.right + 1 || text.left < box.left - 1);
    if (el.scrollWidth > el.clientWidth + 1 || spills) out.push('overflows: ' + name(el));
    if (box.right > width + 1 || box.left < -1) out.push('beyond the screen: ' + name(el));
  }
  const bar = [...document.querySelectorAll('#action-bar button')].filter(seen);
  for (let i = 0; i < bar.length; i++) {
    for (let j = i + 1; j < bar.length; j++) {
      const [a, b] = [bar[i], bar[j]];
      const over = meet(a.getBoundingClientRect(), b.getBoundingClientRect());
      if (over) out.push(`overlap: ${name(a)} / ${name(b)}`);
    }
  }
  return out;
}"""

VIEWPORTS = {"phone": SHORT_PHONE, "desktop": DESKTOP}


@pytest.mark.parametrize("size", list(VIEWPORTS))
@pytest.mark.parametrize("lang", list(LOCALES))
def test_labels_and_buttons_fit_in_every_language(
    browser: Any, server: Server, shots: Path, lang: str, size: str
) -> None:
    """Issue 40 item 7: on a 360x740 phone and a desktop, in each language, no line
    label runs over the cards or out of its box ("СЕРЕДИНА", "AIZMUGURĒJĀ" did), and no
    button of the action bar or the hand zone overflows, overlaps another or leaves the
    screen: with nothing staged, then with a card staged (Undo, Reset and Confirm
    enabled), on a Pineapple street with a discard."""
    page = new_page(browser, locale=LOCALES[lang], viewport=VIEWPORTS[size])
    open_seat(page, server, create_table(server, name=f"fit-{lang}-{size}"))
    d = wait_decision(page)
    assert page.get_attribute("html", "lang") == lang
    problems = page.evaluate(FIT_JS)
    page.keyboard.press("1")
    page.keyboard.press("b")
    page.wait_for_function("() => window.__cp.moves.length === 1")
    problems += page.evaluate(FIT_JS)
    if (lang, size) in (("ru", "phone"), ("lv", "desktop")):
        page.screenshot(path=str(shots / f"fit-{lang}-{size}.png"))
    play_keys(page, {**d, "place": d["place"] - 1, "free": [f - (i == 2) for i, f in
                                                            enumerate(d["free"])]})  # fmt: skip
    d = wait_decision(page, timeout=30)
    if not d.get("showdown"):  # street 2: a discard zone and the discard's words
        problems += page.evaluate(FIT_JS)
    assert not problems, f"{lang} {size}: {sorted(set(problems))}"
    no_page_errors(page)
    page.context.close()
