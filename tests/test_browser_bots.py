"""Bot accounts in the browser (issue 42), in Debian's Chromium: on /me a person with an
account makes a bot account and sees its token once; the example bot connects with it
(``chinese-poker bot --connect``); the lobby lists it as online for the game chosen and
its Challenge button opens a table with the person and the bot; revoking the token on
/me disconnects the bot. The server, browser and helpers are tests/test_browser.py's."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import test_browser
from test_bot_online import EXAMPLE, BotProcess
from test_browser import Server, new_page, no_page_errors

browser, server = test_browser.browser, test_browser.server

pytestmark = test_browser.pytestmark
expect = test_browser.expect


def test_make_a_bot_challenge_it_from_the_lobby_and_revoke_it(
    browser: Any, server: Server, tmp_path: Path
) -> None:
    page = new_page(browser)
    page.goto(server.base + "/me")
    expect(page.locator("#bots-need-account")).to_be_visible()
    mine = page.locator("#profile-id").inner_text()
    page.fill("#me-handle", "owner" + mine[-6:])
    page.fill("#me-password", "correct horse battery")
    page.click("#password-form button")
    expect(page.locator("#bots-none")).to_be_visible()
    page.fill("#bot-name", "Webby")
    page.fill("#bot-description", "random, from examples/bots")
    page.click("#bot-form button")
    expect(page.locator("#bot-token code")).to_have_text(re.compile(r"^cpb-"))
    token = page.locator("#bot-token code").inner_text()
    row = page.locator("li.bot-account")
    expect(row).to_contain_text("Webby")
    bot_id = row.get_attribute("data-bot")
    assert bot_id and bot_id.startswith("b-")

    bot = BotProcess(server.base, token, tmp_path / "bot.log", "--bot", EXAMPLE)
    try:
        page.goto(server.base + "/")
        challenge = page.locator(f"#online-bots-list li[data-bot='{bot_id}'] button.challenge")
        expect(challenge).to_be_visible(timeout=30_000)
        expect(page.locator("#online-bots-list")).to_contain_text("random, from examples/bots")
        challenge.click()
        page.wait_for_url(re.compile(r"/table/t-"), timeout=20_000)
        tid = page.url.rsplit("/", 1)[1]
        table = server.get(f"/api/tables/{tid}")
        assert table["status"] == "playing"
        assert "Webby" in [s["name"] for s in table["seats"]]
        expect(page.locator("body")).to_contain_text("Webby")

        # Revoked on /me: the bot's connection is closed and its program stops.
        page.goto(server.base + "/me")
        page.locator(f"li.bot-account[data-bot='{bot_id}'] [data-bot-action='revoke']").click()
        expect(page.locator(f"li.bot-account[data-bot='{bot_id}'] .bot-state")).to_have_text(
            "no token"
        )
        assert bot.proc.wait(30) == 1
        assert "the server closed the connection" in (tmp_path / "bot.log").read_text()
        expect(page.locator("#bot-token")).to_have_count(0)  # a token is shown once
        no_page_errors(page)
    finally:
        bot.stop()
