"""The bots' ladder in Chromium (issue 42 item 4): reached from the lobby's top bar, one
page per family, on a phone in two languages, axe-core clean with one h1, its figures
the API's. The database is filled before the server starts: a bot account of Ann's and
a finished duplicate match between it and our casual bot."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import insert

import test_browser
from chinese_poker.server.db import Store
from chinese_poker.server.schema import BOT_MATCH_HANDS, BOT_MATCHES
from test_browser import Server, new_page, start_server
from test_browser_a11y import VIEWPORTS, problems
from test_ladder import add_pebble

browser = test_browser.browser
pytestmark = test_browser.pytestmark
expect = test_browser.expect

# Deal by deal, the account's points in each of its four hands (two per seating).
PEBBLE_POINTS = [[3, -1, 2, 0], [-6, 4, 1, 1]]


def fill(store: Store) -> None:
    """Ann, her bot account Pebble, and a finished two-deal match of Pebble against our
    casual bot (the rules bot)."""
    with store.engine.begin() as conn:
        add_pebble(conn, "Royalties first.")
        conn.execute(
            insert(BOT_MATCHES).values(
                id="m-1", family="open-face", preset="pineapple", seed=1,
                players=json.dumps(["bot-rules", "b-pebble"]), deals=2, tables="[]",
                status="finished", created_at=1.0, finished_at=2.0,
            )
        )  # fmt: skip
        rows = []
        for deal, points in enumerate(PEBBLE_POINTS):
            for k, x in enumerate(points):
                seating, hand = divmod(k, 2)
                for seat, (pid, pts) in enumerate([("b-pebble", x), ("bot-rules", -x)]):
                    rows.append(
                        {"match_id": "m-1", "deal": deal, "seating": seating, "hand": hand + 1,
                         "seat": (seat + seating) % 2, "table_id": f"t-{deal}{seating}",
                         "player_id": pid, "hand_seed": "1", "points": pts,
                         "fouled": int(pid == "b-pebble" and x < 0), "fantasyland": 0}
                    )  # fmt: skip
        conn.execute(insert(BOT_MATCH_HANDS), rows)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    workdir = tmp_path_factory.mktemp("ladder")
    store = Store(f"sqlite:///{workdir / 'server.db'}")
    store.migrate()
    fill(store)
    store.close()
    s = start_server(workdir)
    yield s
    s.stop()


# (locale, the casual bot's name, Pebble's owner line, the pairs' heading) per language.
LANGUAGES = {
    "en": ("en-GB", "Casual bot", "Owner: Ann", "Head to head"),
    "ru": ("ru-RU", "бот «Любитель»", "Владелец: Ann", "Личные встречи"),
}


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_the_ladder_on_a_phone_from_the_lobby(browser: Any, server: Server, lang: str) -> None:
    locale, casual, owner, pairs = LANGUAGES[lang]
    page = new_page(browser, locale=locale, viewport=VIEWPORTS["phone"])
    page.goto(server.base + "/")
    # On a phone the top bar's links are behind its menu button (js/topmenu.js).
    page.locator("#menu-button").click()
    page.locator("#nav-ladder").click()
    page.wait_for_selector("body[data-ready='1']")
    assert page.url.endswith("/ladder")
    assert page.get_attribute("html", "lang") == lang
    found = problems(page, f"ladder ({lang}, phone)")
    assert not found, "\n".join(found)
    api = server.get("/api/ladder")
    # Every bot of the API in its order: ours at each level, and Pebble.
    rows = page.locator("#ladder-table tbody tr[data-player]")
    assert [rows.nth(i).get_attribute("data-player") for i in range(rows.count())] == [
        b["player"] for b in api["bots"]
    ]
    assert len(api["bots"]) == 5
    expect(page.locator("#ladder-table tr[data-player='bot-rules']")).to_contain_text(casual)
    pebble = page.locator("#ladder-table tr[data-about='b-pebble']")
    expect(pebble).to_contain_text(owner)
    expect(pebble).to_contain_text("Royalties first.")
    # The head to head: Pebble's points a hand over the two deals, as the API has them.
    expect(page.locator("#ladder h3")).to_have_text(pairs)
    line = next(p for p in api["pairs"] if p["player"] == "b-pebble")["points_per_hand"]
    means = [sum(d) / len(d) for d in PEBBLE_POINTS]
    assert line["n"] == 2 and line["mean"] == pytest.approx(sum(means) / 2)
    cell = page.locator("#ladder-pairs-table tr[data-pair='b-pebble|bot-rules'] td").nth(2)
    shown = cell.inner_text().replace("\u2212", "-").replace(",", ".")
    assert shown.startswith(f"{line['mean']:+.2f}"), shown
    # A phone shows the page without sideways scrolling (the tables scroll in their box).
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= VIEWPORTS["phone"]["width"], width
    # The other family: its own page, our two classic bots.
    page.locator("#ladder-families [data-family='classic']").click()
    page.wait_for_url("**/ladder/classic")
    page.wait_for_selector("body[data-ready='1']")
    expect(page.locator("#ladder-table tbody tr[data-player]")).to_have_count(2)
    found = problems(page, f"ladder classic ({lang}, phone)")
    assert not found, "\n".join(found)
    page.context.close()
