"""Issue 40 item 5 in Debian's Chromium: the name saved on the profile is the name the
lobby and the join page offer, on this browser and on one that only holds the key.

Shares tests/test_browser.py's server, browser and helpers."""

from __future__ import annotations

import json
import re
import secrets
import urllib.request
from typing import Any

import test_browser
from test_browser import Server, create_table, new_page, no_page_errors

browser, server = test_browser.browser, test_browser.server

pytestmark = test_browser.pytestmark
expect = test_browser.expect


def test_the_profile_name_is_offered_in_the_lobby_and_on_the_join_page(
    browser: Any, server: Server
) -> None:
    page = new_page(browser)
    page.goto(server.base + "/me")
    page.fill("#me-name", "Зоя Ёлкина")
    page.click("#name-form button")
    expect(page.locator("#profile-name")).to_contain_text("Зоя Ёлкина")
    page.goto(server.base + "/")
    expect(page.locator("#q-name")).to_have_value("Зоя Ёлкина")
    expect(page.locator("#f-player")).to_have_value("Зоя Ёлкина")
    no_page_errors(page)

    # A browser that holds only the key (its name never typed here) asks the server.
    key = secrets.token_urlsafe(24)
    put = urllib.request.Request(
        server.base + "/api/me/name",
        data=json.dumps({"name": "Zoë"}).encode(),
        headers={"X-Player-Key": key, "Content-Type": "application/json"},
        method="PUT",
    )
    with urllib.request.urlopen(put) as answer:
        assert answer.status == 200
    other = new_page(browser)
    other.goto(server.base + "/me")  # any page: the storage is the site's
    other.evaluate(f"() => localStorage.setItem('cp.playerKey', {json.dumps(json.dumps(key))})")
    made = create_table(server, seats=[{"kind": "human", "name": "Ann"}, {"kind": "human"}])
    other.goto(f"{server.base}/join/{made['table']['id']}?code={made['join_code']}")
    expect(other.locator("#j-name")).to_have_value("Zoë")
    no_page_errors(other)


def test_a_player_who_gives_no_name_is_named_in_his_language(browser: Any, server: Server) -> None:
    page = new_page(browser, locale="ru-RU")
    page.goto(server.base + "/")
    expect(page.locator("#q-name")).to_have_value("")
    page.click("#play-bot")
    page.wait_for_url(re.compile(r"/table/t-"))
    table_id = page.url.rsplit("/", 1)[-1].split("?")[0]
    seats = server.get(f"/api/tables/{table_id}")["seats"]
    assert seats[0]["name"] == "Игрок 1"
    assert seats[1]["name"] == "бот «Любитель»"  # the one-click table's bot, in Russian too
    no_page_errors(page)


def test_a_join_without_a_name_is_named_in_the_players_language(
    browser: Any, server: Server
) -> None:
    """Only spaces typed on the join page of a browser with no saved name: the seat is
    named "Player N" in the player's language, not the server's English default."""
    page = new_page(browser, locale="ru-RU")
    made = create_table(server, seats=[{"kind": "human", "name": "Ann"}, {"kind": "human"}])
    tid = made["table"]["id"]
    page.goto(f"{server.base}/join/{tid}?code={made['join_code']}")
    page.fill("#j-name", "   ")
    page.click("#join-btn")
    page.wait_for_url(re.compile(r"/table/t-"))
    assert server.get(f"/api/tables/{tid}")["seats"][1]["name"] == "Игрок 2"
    no_page_errors(page)
    page.context.close()
