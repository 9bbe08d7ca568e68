"""What was left of issue 40 ("the table, round three") in Debian's Chromium, as players:
the phone's top bar in every language (its links behind a menu: nothing cut, nothing
scrolled sideways), the phone's chat as a sheet that leaves the player's own board, the
hand and Confirm in view and tappable, and the study desk's refusals in the player's
language.

The expected words are written here by hand (not read from the catalogues), as in
tests/test_browser_i18n.py. Screenshots go to ``CP_SCREENSHOT_DIR`` (docs/screenshots for
docs/browser.md and docs/desk.md); the server, the browser and the helpers are
tests/test_browser.py's.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import test_browser
import test_browser_turn
from chinese_poker.server.desk_refusals import DeskRefusal, refusal_answer
from test_browser import (
    PHONE,
    SHORT_PHONE,
    Server,
    create_table,
    new_page,
    no_page_errors,
    open_seat,
    wait_decision,
)
from test_browser_a11y import problems
from test_browser_i18n import LOCALES
from test_browser_turn import (
    ALERT_STUBS,
    STREET_1,
    STREET_2,
    in_view,
    moves,
    seated_beside_a_stand_in,
)

browser, server, shots = test_browser.browser, test_browser.server, test_browser.shots
stacked = test_browser_turn.stacked
pytestmark = test_browser.pytestmark
expect = test_browser.expect

PHONES = {"360x740": SHORT_PHONE, "390x844": PHONE}
# The top bar's links in players' words: scorekeeper, study desk, leaderboard, bots, me.
LINKS = {
    "en": ["Score", "Study", "Leaderboard", "Bots", "Me"],
    "bg": ["Точки", "Обучение", "Класиране", "Ботове", "Аз"],
    "hr": ["Bodovi", "Učenje", "Ljestvica", "Botovi", "Ja"],
    "ru": ["Счёт", "Учёба", "Рейтинг", "Боты", "Я"],
    "lv": ["Punkti", "Mācības", "Līderu tabula", "Boti", "Es"],
}
MENU = {"en": "Menu", "bg": "Меню", "hr": "Izbornik", "ru": "Меню", "lv": "Izvēlne"}

# Each item of the top bar shown: its text cut (wider than its box) or beyond the screen.
TOP_BAR_JS = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.querySelectorAll('#topbar > *, #topbar .desklinks > a')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const name = `${el.id || el.className || el.tagName} "${el.innerText.trim()}"`;
    const cut = `cut: ${name} (${el.clientWidth} px for ${el.scrollWidth})`;
    if (el.scrollWidth > el.clientWidth) out.push(cut);
    if (r.left < -0.5 || r.right > width + 0.5) out.push(`beyond the screen: ${name}`);
  }
  return out;
}"""


def top_bar_problems(page: Any) -> list[str]:
    return page.evaluate(TOP_BAR_JS)  # type: ignore[no-any-return]


@pytest.mark.parametrize("phone", list(PHONES))
@pytest.mark.parametrize("lang", list(LOCALES))
def test_the_phone_top_bar_fits_in_every_language(
    browser: Any, server: Server, shots: Path, lang: str, phone: str
) -> None:
    """Issue 40, round three, item 1: at a table (the connection and the chat button in the
    bar too) nothing of the bar is cut or scrolled, closed or with its menu open."""
    page = new_page(
        browser, locale=LOCALES[lang], viewport=PHONES[phone], is_mobile=True, has_touch=True
    )
    created = create_table(server, name=f"bar-{lang}-{phone}", next_hand_delay=30)
    open_seat(page, server, created)
    wait_decision(page)
    expect(page.locator("#chat-toggle")).to_be_visible()
    menu = page.locator("#menu-button")
    expect(menu).to_have_attribute("aria-label", MENU[lang])
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(page.locator("#topbar .desklinks")).to_be_hidden()
    assert top_bar_problems(page) == []

    menu.tap()
    expect(menu).to_have_attribute("aria-expanded", "true")
    links = page.locator("#topbar .desklinks a")
    # Whole words, "Bots" in the language (the emoji of the closed phone bar are gone).
    expect(links).to_have_text(LINKS[lang], use_inner_text=True)
    expect(page.locator("#four-colour")).to_be_visible()
    expect(page.locator("#lang")).to_be_visible()
    assert top_bar_problems(page) == []
    # The bar, open, pushes the table down rather than covering it.
    bar = page.locator("#topbar").bounding_box()
    head = page.locator(".table-head").bounding_box()
    assert bar is not None and head is not None and bar["y"] + bar["height"] <= head["y"] + 0.5
    if phone == "360x740" and lang in ("ru", "lv"):
        assert problems(page, f"the phone's menu open ({lang})") == []  # axe-core
        page.screenshot(path=str(shots / f"topbar-menu-{lang}-phone.png"), clip={
            "x": 0, "y": 0, "width": PHONES[phone]["width"], "height": 160})  # fmt: skip

    page.keyboard.press("Escape")
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(links.first).to_be_hidden()
    # A link followed from the menu closes it.
    menu.tap()
    links.nth(2).tap()
    page.wait_for_url("**/leaderboard")
    expect(menu).to_have_attribute("aria-expanded", "false")
    assert top_bar_problems(page) == []
    no_page_errors(page)
    page.context.close()


def test_a_desktop_keeps_the_links_in_the_bar(browser: Any, server: Server) -> None:
    page = new_page(browser, locale="ru-RU")
    page.goto(server.base + "/")
    expect(page.locator("#menu-button")).to_be_hidden()
    expect(page.locator("#topbar .desklinks a")).to_have_text(LINKS["ru"], use_inner_text=True)
    assert top_bar_problems(page) == []
    page.context.close()


@pytest.mark.parametrize("lang", ["lv", "ru"])
def test_the_phone_chat_leaves_the_board_and_confirm_in_reach(
    browser: Any, server: Server, shots: Path, lang: str
) -> None:
    """Issue 40, round three, item 3: on 360x740 the open chat is a sheet over the bottom
    of the page, above the pinned action bar: the player's own lines, the hand and Confirm
    stay in view and answer taps; it closes with its button and with Escape."""
    w, h = 360, 740
    page = new_page(
        browser, locale=LOCALES[lang], viewport={"width": w, "height": h},
        is_mobile=True, has_touch=True, device_scale_factor=2,
    )  # fmt: skip
    open_seat(page, server, create_table(server, name=f"chat-{lang}", time_limit=300))
    wait_decision(page)
    toggle, panel = page.locator("#chat-toggle"), page.locator("#chat")

    for closing in ("button", "Escape"):
        toggle.tap()
        expect(panel).to_be_visible()
        expect(toggle).to_have_attribute("aria-expanded", "true")
        in_view(page, "#confirm-btn", w, h)
        in_view(page, "#my-board .line-row", w, h)
        in_view(page, "#hand [data-card]", w, h)
        in_view(page, "#chat-input", w, h)
        if closing == "button":
            if lang == "lv":
                page.screenshot(path=str(shots / "chat-sheet-lv-phone.png"))
            # Usable, not only seen: a card tapped, then a line, is placed with the chat open.
            page.locator("#hand [data-card]").first.tap()
            page.locator("#my-board .line-row").last.tap()
            page.wait_for_function("() => window.__cp.moves.length === 1")
            page.locator("#chat .chat-close").tap()
        else:
            page.keyboard.press("Escape")
        expect(panel).to_be_hidden()
        expect(toggle).to_have_attribute("aria-expanded", "false")
    no_page_errors(page)
    page.context.close()


# The element at the centre of each of the selector's elements, scrolled to the middle of
# the window: the element itself (or a part of it) where nothing covers it.
ANSWERS_AT_CENTRE = """(sel) => [...document.querySelectorAll(sel)].map((el) => {
  el.scrollIntoView({ block: "center" });
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
  return hit !== null && el.contains(hit);
})"""


@pytest.mark.parametrize(("size", "lang"), [((768, 1024), "hr"), ((900, 600), "ru")])
def test_the_tablet_chat_is_a_column_beside_the_table(
    browser: Any, server: Server, shots: Path, size: tuple[int, int], lang: str
) -> None:
    """Issue 40, a loose end: between 601 and 900 px (a tablet, a small laptop window, a
    phone held sideways) the open chat is a column beside the table, which narrows to
    give it room: an opponent's board, the player's own lines, the hand and Confirm are
    under no part of it and answer a click there; axe-core finds nothing serious."""
    w, h = size
    page = new_page(browser, locale=LOCALES[lang], viewport={"width": w, "height": h})
    open_seat(page, server, create_table(server, name=f"chat-{w}-{lang}", time_limit=300))
    wait_decision(page)
    toggle, panel = page.locator("#chat-toggle"), page.locator("#chat")
    toggle.click()
    expect(panel).to_be_visible()
    table, opened = page.locator("#table-main").bounding_box(), panel.bounding_box()
    assert table is not None and opened is not None
    assert table["x"] + table["width"] <= opened["x"] + 0.5, (table, opened)
    assert opened["x"] + opened["width"] <= w + 0.5, opened
    reached = (".opponents .board-box", "#my-board .line-row", "#hand [data-card]", "#confirm-btn")
    for sel in reached:
        answers = page.evaluate(ANSWERS_AT_CENTRE, sel)
        assert answers and all(answers), (sel, answers)
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(shots / f"chat-column-{lang}-{w}x{h}.png"))
    found = problems(page, f"table, the chat open at {w}x{h}")
    # Usable, not only seen: a card clicked, then a line, is placed with the chat open.
    page.locator("#hand [data-card]").first.click()
    page.locator("#my-board .line-row").last.click()
    page.wait_for_function("() => window.__cp.moves.length === 1")
    page.locator("#chat .chat-close").click()
    expect(panel).to_be_hidden()
    assert found == []
    no_page_errors(page)
    page.context.close()


# The desk's refusals, written by hand in each language (desk.refusal.* in the catalogues).
MY_BOARD_EMPTY = {
    "en": "my board has 0 cards; before street 2 of pineapple it has 5",  # the detail
    "bg": "подредбата ви има 0 карти; преди улица 2 на pineapple трябва да има 5",
    "lv": "jūsu izkārtojumā ir kāršu: 0; pirms pineapple ielas 2 tajā ir 5",
}
BUSY = {"en": "the study desk is busy", "bg": "бюрото за обучение е заето",
        "lv": "mācību galds ir aizņemts"}  # fmt: skip
OVER_BUDGET = {"en": "took longer than its budget", "bg": "отне повече от позволените 5 s",
               "lv": "vairāk par atļautajām 5 s"}  # fmt: skip


def refused_with(status: int, code: str, detail: str, **params: Any) -> dict[str, Any]:
    """What the server answers for this refusal (its own code path), to play back."""
    answer = refusal_answer(DeskRefusal(status, code, detail, **params))
    return {"status": status, "content_type": "application/json", "body": bytes(answer.body)}


@pytest.mark.parametrize("lang", ["bg", "lv", "en"])
def test_the_study_desks_refusals_in_the_players_language(
    browser: Any, server: Server, shots: Path, lang: str
) -> None:
    """Issue 40, round three, item 2: a position the server refuses (my board empty on
    street 2), a busy desk and an answer over its budget read in the page's language; in
    English, the server's own detail, as before."""
    # The desk's worker process loads its kernels first: not within a test's wait.
    server.post("/api/board", {"rules": "ofc", "board": "| |"}, timeout=180)
    page = new_page(
        browser, locale=LOCALES[lang], viewport=PHONE,
        is_mobile=True, has_touch=True,
    )  # fmt: skip
    page.goto(server.base + "/study")
    page.wait_for_selector("body[data-ready='1']")
    page.locator("[data-tab='position']").tap()
    page.select_option("#ps-preset", "pineapple")
    page.select_option("#ps-street", "2")
    page.locator("#ps-cards .cline").tap()
    for card in ("Qc", "8c", "2s"):
        page.locator(f"#picker [data-card='{card}']").tap()
    page.locator("#ps-analyse").tap()
    reason = page.locator("#ps-reason")
    expect(reason).to_have_text(MY_BOARD_EMPTY[lang])
    if lang == "lv":
        reason.scroll_into_view_if_needed()
        page.screenshot(path=str(shots / "desk-refusal-lv.png"))

    # The server's busy answer, then its over-budget one, played back to the page.
    busy = refused_with(503, "busy", "the study desk is busy: try again in a moment")
    page.route("**/api/hint", lambda route: route.fulfill(**busy))
    page.locator("#ps-analyse").tap()
    expect(reason).to_contain_text(BUSY[lang])
    late = refused_with(
        503, "over_budget", "the request took longer than its budget of 5 seconds", seconds=5.0
    )
    page.route("**/api/trainer/next*", lambda route: route.fulfill(**late))
    page.locator("[data-tab='trainer']").tap()
    page.locator("#tr-next").tap()
    expect(page.locator("#tr-reason")).to_contain_text(OVER_BUDGET[lang])
    body = page.locator("body").inner_text()
    if lang != "en":
        assert "study desk" not in body and "took longer" not in body, body
    no_page_errors(page)
    page.context.close()


# The walk: the words of the turn and of the foul question, by hand (issue 40 items 3, 8).
WALK = {
    "lv": {"turn": "Jūsu gājiens", "left": "Jūsu gājiens — atlikušas ", "change": "Mainīt",
           "play": "Spēlēt", "foul": "pārspēj visu, par ko vēl var kļūt"},
    "bg": {"turn": "Ваш ред", "left": "Ваш ред — остават ", "change": "Промени",
           "play": "Играй", "foul": "бие всичко, което"},
}  # fmt: skip


LINES = ("top", "middle", "bottom")


def turn_is_told(page: Any, lang: str) -> None:
    """Item 8: the tab's title and icon, and the polite live region with the time left."""
    page.wait_for_function("() => document.title.startsWith('●')")
    assert WALK[lang]["turn"] in page.title()
    expect(page.locator("link[rel='icon']")).to_have_attribute("href", "/static/favicon-turn.svg")
    live = page.locator("#turn-live")
    expect(live).to_have_attribute("aria-live", "polite")
    expect(live).to_have_text(re.compile(re.escape(WALK[lang]["left"]) + r"\d+:\d\d"))


def place_street(page: Any, d: dict[str, Any], press: Any) -> None:
    """A street placed by pointer (``press``: tap or click), checking item 2 on the way: the
    second card, selected, goes where a tap on the first card's staged place puts it."""
    free = list(d["free"])
    cards = list(d["cards"])
    keep = cards[: d["place"]]

    def line() -> int:  # bottom first, then middle, then top
        return 2 if free[2] else 1 if free[1] else 0

    first = keep[0]
    at = line()
    press(f"#hand [data-card='{first}']")
    press(f"[data-drop='{LINES[at]}']")
    free[at] -= 1
    for card in keep[1:]:
        press(f"#hand [data-card='{card}']")
        if free[at]:  # a tap on the staged card with another selected places it there
            press(f"#my-board [data-unstage='{first}']")
            free[at] -= 1
        else:
            at = line()
            press(f"[data-drop='{LINES[at]}']")
            free[at] -= 1
    for card in cards[d["place"] :]:
        press(f"#hand [data-card='{card}']")
        press("#discard-zone")
    assert len(moves(page)) == len(cards), moves(page)


def confirm_street(page: Any, d: dict[str, Any], press: Any, lang: str) -> None:
    """Confirm; a certain foul is asked in the action bar (never a toast), and played."""
    press("#confirm-btn")
    asked = "!!document.querySelector('#foul-question')"
    page.wait_for_function(f"() => window.__cp.view.version > {d['version']} || {asked}")
    if page.locator("#foul-question").count():
        expect(page.locator("#toasts .toast")).to_have_count(0)
        expect(page.locator("#confirm-btn")).to_have_text(WALK[lang]["play"])
        press("#confirm-btn")
    page.wait_for_function(f"() => window.__cp.view.version > {d['version']}")


def foul_question_on_street_2(page: Any, press: Any, lang: str, w: int, h: int) -> None:
    """Items 2 and 3 on the stacked street 2: both kings on top by a tap on the staged
    one, the question in the action bar, Change, then a board that can still be won."""
    press("#hand [data-card='Kd']")
    press("[data-drop='top']")
    press("#hand [data-card='Kc']")
    press("#my-board [data-unstage='Kd']")
    assert moves(page) == [["Kd", "top"], ["Kc", "top"]]
    press("#confirm-btn")
    question = page.locator("#foul-question")
    expect(question).to_contain_text(WALK[lang]["foul"])
    expect(page.locator("#toasts .toast")).to_have_count(0)
    for sel in ("#foul-question", "#foul-change-btn", "#confirm-btn", "#hand .card", "#my-board"):
        in_view(page, sel, w, h)
    expect(page.locator("#foul-change-btn")).to_have_text(WALK[lang]["change"])
    press("#foul-change-btn")
    expect(question).to_have_count(0)
    press("#my-board [data-unstage='Kc']")  # nothing selected: taken back
    press("#hand [data-card='Kc']")
    press("[data-drop='middle']")
    press("#hand [data-card='2h']")
    press("#discard-zone")
    assert moves(page) == [["Kd", "top"], ["Kc", "middle"], ["2h", "discard"]]


def test_a_phone_hand_in_latvian_by_taps(browser: Any, stacked: Server, shots: Path) -> None:
    """Issue 40 round three, item 4: a whole hand on a 360x740 phone in Latvian, against
    the bot: each street told (items 8), placed by taps with one meaning each (item 2),
    the foul question in the action bar (item 3), Confirm in reach all along."""
    w, h = 360, 740
    page = new_page(
        browser, locale=LOCALES["lv"], viewport={"width": w, "height": h},
        is_mobile=True, has_touch=True, device_scale_factor=2,
    )  # fmt: skip
    page.add_init_script(ALERT_STUBS)
    open_seat(page, stacked, create_table(stacked, name="walk-lv", time_limit=120, bot_delay=1))
    tap = page.tap
    street = 0
    while not (d := wait_decision(page, timeout=40)).get("showdown"):
        street += 1
        turn_is_told(page, "lv")
        in_view(page, "#confirm-btn", w, h)
        if street == 1:
            assert d["cards"] == STREET_1.split()
        if street == 2:
            assert d["cards"] == STREET_2.split()
            foul_question_on_street_2(page, tap, "lv", w, h)
            page.screenshot(path=str(shots / "walk-foul-changed-lv-phone.png"))
        else:
            place_street(page, d, tap)
        confirm_street(page, d, tap, "lv")
    assert street == 5
    expect(page.locator("#breakdown")).to_be_visible()
    no_page_errors(page)
    page.context.close()


def test_a_desktop_hand_in_bulgarian_by_clicks_and_keys(
    browser: Any, stacked: Server, shots: Path
) -> None:
    """Item 4 on a 1280x900 desktop in Bulgarian, a stand-in notice above the hand all
    along: Confirm stays in view on every street (item 8), a click on a staged card with
    another selected places it (item 2), the foul question is the action bar's (item 3)."""
    w, h = 1280, 900
    page = seated_beside_a_stand_in(browser, stacked, "bg", "walk-bg")
    click = page.click
    street = 0
    while not (d := wait_decision(page, timeout=40)).get("showdown"):
        street += 1
        turn_is_told(page, "bg")
        expect(page.locator("#notice")).to_be_visible()
        if street == 2:
            foul_question_on_street_2(page, click, "bg", w, h)
        else:
            place_street(page, d, click)
        in_view(page, "#confirm-btn", w, h)
        if street == 3:
            page.screenshot(path=str(shots / "walk-confirm-in-view-bg.png"))
        page.keyboard.press("Enter")
        if page.evaluate("() => window.__cp.foulAsked"):
            expect(page.locator("#toasts .toast")).to_have_count(0)
            page.keyboard.press("Enter")
        page.wait_for_function(f"() => window.__cp.view.version > {d['version']}")
    assert street == 5
    no_page_errors(page)
    page.context.close()
