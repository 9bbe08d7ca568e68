"""The bots' ladder (issue 42 item 4): its figures are the stored match results, computed
here again independently (plain floats and the statistics module)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Connection, insert, select

from chinese_poker.server.accounts import PLAYERS
from chinese_poker.server.ladder import house_key
from chinese_poker.server.ratings import BOT_ANCHORS, BOT_SIGMA, RATINGS, Family
from chinese_poker.server.schema import BOT_ACCOUNTS, BOT_MATCH_HANDS
from test_bot_matches import RANDOM_BOT, RULES_BOT, manager_of, played_match, served


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    yield from served(tmp_path)


def test_our_bots_are_on_each_familys_ladder_at_every_level(client: TestClient) -> None:
    got = {}
    for family in ("open-face", "classic"):
        r = client.get("/api/ladder", params={"family": family})
        assert r.status_code == 200
        got[family] = r.json()
    faces = {b["house"]: b for b in got["open-face"]["bots"]}
    assert sorted(faces) == ["casual", "expert", "mc-1", "strong"]
    assert sorted(b["house"] for b in got["classic"]["bots"]) == ["casual", "mc"]
    # Unrated yet: each stands at its fixed anchor, mu - 3 sigma, best first.
    expert = faces["expert"]
    anchor = BOT_ANCHORS[Family.OPEN_FACE]["mc", 3]
    assert expert["mu"] == anchor and expert["rating"] == round(anchor - 3 * BOT_SIGMA, 2)
    assert expert["low"] == round(anchor - 1.96 * BOT_SIGMA, 2)
    ratings = [b["rating"] for b in got["open-face"]["bots"]]
    assert ratings == sorted(ratings, reverse=True)
    assert client.get("/api/ladder", params={"family": "chess"}).status_code == 422


def test_the_ladders_figures_are_the_stored_match_results(client: TestClient) -> None:
    # Two matches of one pair on different seeds: deal 0 of one is not deal 0 of the other.
    matches = [played_match(client, [RULES_BOT, RANDOM_BOT], seed) for seed in (1, 2)]
    store = manager_of(client).store
    with store.engine.connect() as conn:
        rows = [
            dict(r)
            for r in conn.execute(
                select(BOT_MATCH_HANDS).where(BOT_MATCH_HANDS.c.match_id.in_(matches))
            ).mappings()
        ]
    board = client.get("/api/ladder", params={"family": "open-face"}).json()
    pairs = {(p["player"], p["opponent"]): p["points_per_hand"] for p in board["pairs"]}
    for me, them in [("bot-rules", "bot-random"), ("bot-random", "bot-rules")]:
        per_deal: dict[tuple[str, int], list[int]] = {}
        for r in rows:
            if r["player_id"] == me:
                per_deal.setdefault((r["match_id"], r["deal"]), []).append(r["points"])
        means = [sum(v) / len(v) for v in per_deal.values()]
        got = pairs[me, them]
        assert got["n"] == len(means) == 6
        assert got["mean"] == pytest.approx(statistics.fmean(means), abs=1e-9)
        ci = 1.96 * statistics.stdev(means) / math.sqrt(len(means))
        assert got["ci95"] == pytest.approx(ci, abs=1e-9)
        assert got["low"] == pytest.approx(statistics.fmean(means) - ci, abs=1e-9)
    casual = next(b for b in board["bots"] if b.get("house") == "casual")
    mine = [r for r in rows if r["player_id"] == "bot-rules"]
    assert casual["match_hands"] == len(mine)
    assert casual["foul_percent"] == round(100 * sum(r["fouled"] for r in mine) / len(mine), 1)
    fl = 100 * sum(r["fantasyland"] for r in mine) / len(mine)
    assert casual["fantasyland_percent"] == round(fl, 1)
    # Its rated hands: the match's hands, rated like any (the anchor does not move).
    assert casual["rated_hands"] == len(mine) and casual["mu"] == 25.0


def add_pebble(conn: Connection, description: str) -> None:
    """Ann (p-ann) and her bot account Pebble (b-pebble) with its ``description``."""
    conn.execute(insert(PLAYERS).values(id="p-ann", kind="human", name="Ann", created_at=1.0))
    conn.execute(
        insert(PLAYERS).values(
            id="b-pebble", kind="bot", name="Pebble", created_at=1.0, owner="p-ann"
        )
    )
    conn.execute(
        insert(BOT_ACCOUNTS).values(
            player_id="b-pebble", description=description, created_at=1.0, faults=0,
            faults_total=0,
        )
    )  # fmt: skip


def test_a_bot_account_shows_its_owners_name_and_description(client: TestClient) -> None:
    client.get("/api/ladder")  # the store is migrated and ready
    store = manager_of(client).store
    with store.engine.begin() as conn:
        add_pebble(conn, "Greedy: royalties first.")
        conn.execute(
            insert(RATINGS).values(
                player_id="b-pebble", family="open-face", mu=20.0, sigma=2.0, hands=40,
                points=-12, fouls=3, fantasylands=1, royalties=30, updated_at=1.0,
            )
        )  # fmt: skip
    board: dict[str, Any] = client.get("/api/ladder").json()
    pebble = next(b for b in board["bots"] if b["player"] == "b-pebble")
    assert pebble["owner"] == "Ann" and pebble["description"] == "Greedy: royalties first."
    assert pebble["rating"] == 14.0 and pebble["rated_hands"] == 40
    assert pebble["low"] == round(20 - 1.96 * 2, 2) and pebble["high"] == round(20 + 1.96 * 2, 2)
    classic = client.get("/api/ladder", params={"family": "classic"}).json()
    assert all(b["player"] != "b-pebble" for b in classic["bots"])  # not rated there


def test_the_page_is_served_per_family(client: TestClient) -> None:
    for path in ("/ladder", "/ladder/open-face", "/ladder/classic"):
        r = client.get(path)
        assert r.status_code == 200 and "<h1" in r.text, path
    assert house_key("mc", 2) == "strong"
