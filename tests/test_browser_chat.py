"""Chat at the table (issue 40 item 9) in Debian's Chromium, as players: by taps on a
phone in Russian (the top bar's button with the count of unread lines, a quick phrase,
hiding a player, kept over a reload) and by the keyboard on a desktop in Croatian (a
line typed and sent with Enter, the card keys silent while typing, a flood refused in
the player's words), with a friend in English; markup typed into the chat is shown as
text; a spectator of a table that does not allow it has no chat, and at one that does
(ticked in the lobby; a phone in Bulgarian) his phrase reaches the player, who may hide
the spectators;
axe-core finds no critical or serious violation in the chat, open.

Screenshots go to ``CP_SCREENSHOT_DIR`` (docs/screenshots for docs/browser.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import test_browser
from test_browser import (
    DESKTOP,
    PHONE,
    Server,
    custom_form,
    element_shot,
    new_page,
    no_page_errors,
    open_seat,
    play_keys,
    wait_decision,
)
from test_browser_a11y import AXE, RUN_AXE

browser, server, shots = test_browser.browser, test_browser.server, test_browser.shots
pytestmark = test_browser.pytestmark
expect = test_browser.expect


def two_people(server: Server, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A table of Ann and Bob: the creation (Ann's seat) and Bob's join."""
    made = server.post(
        "/api/tables",
        {
            "name": name,
            "preset": "pineapple",
            "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human"}],
            "time_limit": 300,
            "next_hand_delay": 30,
        },
    )
    tid = made["table"]["id"]
    joined = server.post(f"/api/tables/{tid}/join", {"code": made["join_code"], "name": "Bob"})
    return made, {"table": made["table"], "token": joined["token"], "seat": joined["seat"]}


def seated(browser: Any, server: Server, seat: dict[str, Any], locale: str, **kw: Any) -> Any:
    page = new_page(browser, locale=locale, **kw)
    open_seat(page, server, seat)
    page.wait_for_function("() => window.__cp && window.__cp.info")
    return page


def dealt(*pages: Any) -> None:
    """Both are seated: the hand is dealt and each page shows it."""
    for page in pages:
        page.wait_for_function(
            "() => window.__cp && window.__cp.view && document.querySelector('#my-board')"
        )


def said(page: Any) -> list[str]:
    """The chat lines the page shows: who, then what."""
    return page.locator("#chat-log .chat-line").all_inner_texts()  # type: ignore[no-any-return]


# axe-core on the chat's own elements (the whole page is test_browser_a11y's).
RUN_AXE_ON_CHAT = RUN_AXE.replace(
    "axe.run(document,", "axe.run({include: [['#chat'], ['#chat-toggle']]},"
)
assert RUN_AXE_ON_CHAT != RUN_AXE


def problems(page: Any, name: str) -> list[str]:
    """The critical and serious axe violations of the chat's panel and button."""
    page.add_script_tag(path=str(AXE))
    return [f"{name}: {line}" for line in page.evaluate(RUN_AXE_ON_CHAT)]


def below(upper: dict[str, float], lower: dict[str, float]) -> bool:
    return upper["y"] + upper["height"] <= lower["y"] + 0.5


def test_phone_taps_in_russian(browser: Any, server: Server, shots: Path) -> None:
    ann_seat, bob_seat = two_people(server, "chat-phone")
    ann = seated(
        browser, server, ann_seat, "ru-RU",
        viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2,
    )  # fmt: skip
    bob = seated(browser, server, bob_seat, "en-GB", viewport=DESKTOP)
    dealt(ann, bob)
    play_keys(bob, wait_decision(bob))  # Bob, left of the button, acts first
    wait_decision(ann)
    toggle = ann.locator("#chat-toggle")
    # Closed on a phone: a button in the top bar, above the cards and the action bar.
    expect(toggle).to_be_visible()
    expect(ann.locator("#chat")).to_be_hidden()
    box, hand = toggle.bounding_box(), ann.locator("#my-board").bounding_box()
    assert box is not None and hand is not None and below(box, hand)

    bob.locator("#chat-input").fill("Hi <b>Ann</b>")
    bob.keyboard.press("Enter")
    expect(toggle.locator(".chat-unread")).to_have_text("1")
    assert "1" in (toggle.get_attribute("aria-label") or "")
    ann.screenshot(path=str(shots / "chat-phone-unread-ru.png"))

    toggle.tap()
    panel = ann.locator("#chat")
    expect(panel).to_be_visible()
    expect(toggle.locator(".chat-unread")).to_have_text("")
    expect(ann.locator("#chat-log .chat-line")).to_have_text(["Bob Hi <b>Ann</b>"])
    assert ann.locator("#chat-log b:has-text('Ann')").count() == 0  # text, never markup
    # The open panel leaves the pinned action bar uncovered.
    opened, bar = panel.bounding_box(), ann.locator(".action-bar").first.bounding_box()
    assert opened is not None and bar is not None and below(opened, bar)
    expect(ann.locator(".chat-kept")).to_contain_text("50")

    ann.locator(".chat-phrase[data-phrase='gl']").tap()
    expect(ann.locator("#chat-log .chat-line").last).to_have_text("Ann (вы) Удачи!")
    expect(bob.locator("#chat-log .chat-line").last).to_have_text("Ann Good luck!")
    found = problems(ann, "table, the phone's chat open")
    element_shot(panel, shots / "chat-phone-ru.png")

    # Hiding Bob: his lines go, even after a reload, and come back when shown again.
    ann.locator(".chat-mute[data-mute='seat:1']").tap()
    expect(ann.locator(".chat-mute[data-mute='seat:1']")).to_have_attribute("aria-pressed", "true")
    bob.locator("#chat-input").fill("can you see this?")
    bob.keyboard.press("Enter")
    expect(bob.locator("#chat-log .chat-line").last).to_have_text("Bob (you) can you see this?")
    expect(ann.locator("#chat-log .chat-line")).to_have_text(["Ann (вы) Удачи!"])
    expect(toggle.locator(".chat-unread")).to_have_text("")
    ann.reload()
    dealt(ann)
    ann.locator("#chat-toggle").tap()
    expect(ann.locator("#chat-log .chat-line")).to_have_text(["Ann (вы) Удачи!"])
    ann.locator(".chat-mute[data-mute='seat:1']").tap()
    expect(ann.locator("#chat-log .chat-line")).to_have_count(3)
    ann.locator(".chat-close").tap()
    expect(ann.locator("#chat")).to_be_hidden()
    assert found == []
    no_page_errors(ann)
    no_page_errors(bob)
    ann.context.close()
    bob.context.close()


def test_desktop_keyboard_in_croatian(browser: Any, server: Server, shots: Path) -> None:
    ann_seat, bob_seat = two_people(server, "chat-desktop")
    ann = seated(browser, server, ann_seat, "hr-HR", viewport=DESKTOP)
    bob = seated(browser, server, bob_seat, "en-GB", viewport=DESKTOP)
    dealt(ann, bob)
    # A desktop: the panel beside the table, no button.
    expect(ann.locator("#chat")).to_be_visible()
    expect(ann.locator("#chat-toggle")).to_be_hidden()
    expect(ann.locator("#chat-log")).to_contain_text("Još nema poruka.")
    # Tab from the page to the chat's field; the card keys (1, b, m, t) stay silent there.
    ann.locator("#chat-log").focus()
    ann.keyboard.press("Tab")  # the first quick phrase
    for _ in range(20):
        if ann.evaluate("() => document.activeElement.id") == "chat-input":
            break
        ann.keyboard.press("Tab")
    ann.keyboard.type("1b 1m 1t sretno")
    assert ann.evaluate("() => window.__cp.moves.length") == 0
    ann.keyboard.press("Enter")
    expect(bob.locator("#chat-log .chat-line")).to_have_text(["Ann 1b 1m 1t sretno"])
    expect(ann.locator("#chat-input")).to_have_value("")
    # Bob's phrase in Ann's words.
    bob.locator(".chat-phrase[data-phrase='nh']").click()
    expect(ann.locator("#chat-log .chat-line").last).to_have_text("Bob Lijepa ruka!")
    # A flood: past the burst, the sender is told in his words; nobody else hears it.
    for i in range(5):
        ann.locator("#chat-input").fill(f"flood {i}")
        ann.keyboard.press("Enter")
    expect(ann.locator(".chat-problem")).to_contain_text("Polako")
    # The burst is four lines in 10 s: the first three of the flood always pass (with
    # "sretno", when it is still in the window, they make four), and at most one of the
    # last two (which one depends on whether "sretno" left the window meanwhile: under
    # load it may). Bob hears exactly what Ann's own log shows as said.
    flood_lines = "#chat-log .chat-line:has-text('flood')"
    expect(bob.locator(flood_lines).nth(2)).to_have_text("Ann flood 2")
    heard = bob.locator(flood_lines).all_inner_texts
    for _ in range(100):  # the last lines' echoes may still be on their way
        # Ann's own lines read "Ann (vi) flood 0".
        said = [t.replace(" (vi)", "") for t in ann.locator(flood_lines).all_inner_texts()]
        if heard() == said:
            break
        ann.wait_for_timeout(100)
    assert heard() == said
    assert said[:3] == ["Ann flood 0", "Ann flood 1", "Ann flood 2"], said
    assert len(said) <= 4, said
    found = problems(ann, "table, the desktop's chat")
    element_shot(ann.locator("#chat"), shots / "chat-desktop-hr.png")
    ann.screenshot(path=str(shots / "chat-table-desktop-hr.png"))

    # A spectator of a table that does not let spectators chat has none.
    watcher = new_page(browser, locale="en-GB", viewport=DESKTOP)
    watcher.goto(f"{server.base}/watch/{ann_seat['table']['id']}")
    watcher.wait_for_function("() => window.__cp && window.__cp.view")
    expect(watcher.locator("#chat")).to_be_hidden()
    expect(watcher.locator("#chat-toggle")).to_be_hidden()
    assert "flood" not in watcher.content()
    assert found == []
    no_page_errors(ann)
    for page in (ann, bob, watcher):
        page.context.close()


def test_a_table_that_lets_spectators_chat(browser: Any, server: Server) -> None:
    # Created in the lobby with "Spectators may chat" ticked (off by default).
    ann = new_page(browser, locale="en-GB", viewport=DESKTOP)
    custom_form(ann, server, "2")
    ann.select_option(".seat-row[data-seat='1'] .s-kind", "bot")
    ann.select_option(".seat-row[data-seat='1'] .s-bot", "casual")
    tick = ann.get_by_label("Spectators may chat")
    expect(tick).not_to_be_checked()
    tick.check()
    ann.click("#create-btn")
    ann.wait_for_url("**/table/*")
    tid = ann.url.rsplit("/", 1)[1]
    assert server.get(f"/api/tables/{tid}")["spectator_chat"] is True
    dealt(ann)
    watcher = new_page(browser, locale="bg-BG", viewport=PHONE, is_mobile=True, has_touch=True)
    watcher.goto(f"{server.base}/watch/{tid}")
    watcher.wait_for_function("() => window.__cp && window.__cp.view")
    watcher.locator("#chat-toggle").tap()
    watcher.locator(".chat-phrase[data-phrase='gg']").tap()
    expect(watcher.locator("#chat-log .chat-line")).to_have_text(["Зрител Добра игра!"])
    expect(ann.locator("#chat-log .chat-line")).to_have_text(["Spectator Good game!"])
    # Ann may hide the spectators as one; the rules bot has no button: bots do not chat.
    expect(ann.locator(".chat-mute")).to_have_count(1)
    ann.locator(".chat-mute[data-mute='watchers']").click()
    expect(ann.locator("#chat-log .chat-line")).to_have_count(0)
    no_page_errors(ann)
    no_page_errors(watcher)
    ann.context.close()
    watcher.context.close()
