"""Bot-against-bot duplicate matches run by the server (issue 42 item 3): both seatings of
each deal on the same cards, the operator's budget, and agreement with ``simulate``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from tests._helpers import wait_until

from chinese_poker.ai.simulate import interval, make_job, simulate
from chinese_poker.server.app import create_app
from chinese_poker.server.bot_matches import (
    BotInMatch,
    MatchBudget,
    MatchRunner,
    collect,
    may_start,
    start_match,
)
from chinese_poker.server.schema import BOT_MATCH_HANDS, BOT_MATCHES
from chinese_poker.server.tables import TableManager

SEED = 20261207
DEALS = 3


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite:///{tmp_path / 'matches.db'}", hint_processes=False)
    with TestClient(app) as c:
        yield c


def manager_of(client: TestClient) -> TableManager:
    manager = client.app.state.manager  # type: ignore[attr-defined]
    assert isinstance(manager, TableManager)
    return manager


def played_match(client: TestClient, bots: list[BotInMatch], seed: int = SEED) -> str:
    """Start a match on the server's loop and wait until it is collected."""
    manager = manager_of(client)
    match_id: str = client.portal.call(  # type: ignore[attr-defined]
        lambda: start_match(manager, "pineapple", bots, DEALS, seed)
    )

    def collected() -> bool:
        with manager.store.engine.begin() as conn:
            return collect(conn, match_id) or _status(client, match_id) == "finished"

    wait_until(collected, "the match's end", 240)
    return match_id


def _status(client: TestClient, match_id: str) -> str:
    with manager_of(client).store.engine.connect() as conn:
        return str(
            conn.execute(select(BOT_MATCHES.c.status).where(BOT_MATCHES.c.id == match_id)).scalar()
        )


def stored_hands(client: TestClient, match_id: str) -> list[dict[str, Any]]:
    with manager_of(client).store.engine.connect() as conn:
        return [
            dict(r)
            for r in conn.execute(
                select(BOT_MATCH_HANDS).where(BOT_MATCH_HANDS.c.match_id == match_id)
            ).mappings()
        ]


RULES_BOT = BotInMatch("bot-rules", "rules", None)
RANDOM_BOT = BotInMatch("bot-random", "random", None)


def test_a_match_plays_every_deal_in_both_seatings_on_the_same_cards(client: TestClient) -> None:
    match_id = played_match(client, [RULES_BOT, RANDOM_BOT])
    rows = stored_hands(client, match_id)
    store = manager_of(client).store
    by_deal: dict[tuple[int, int], dict[int, list[dict[str, Any]]]] = {}
    for r in rows:
        by_deal.setdefault((r["deal"], r["hand"]), {}).setdefault(r["seating"], []).append(r)
    assert {deal for deal, _ in by_deal} == set(range(DEALS))
    for (deal, hand), seatings in by_deal.items():
        if hand > 2:
            continue  # a Fantasyland hand one seating earned and the other did not
        assert sorted(seatings) == [0, 1], (deal, hand)
        one, two = seatings[0], seatings[1]
        # The stored deal: the same deck in both seatings' history lines...
        decks = []
        for rowset in (one, two):
            table_id = rowset[0]["table_id"]
            (record,) = store.records(table_id, hand)
            decks.append(record["deck"])
            assert "fairness" not in record and record["match"]["id"] == match_id
        assert decks[0] == decks[1]
        # ... with the bots in swapped chairs.
        seat_of = [{r["player_id"]: r["seat"] for r in rowset} for rowset in (one, two)]
        assert seat_of[0]["bot-rules"] == seat_of[1]["bot-random"]
        assert seat_of[0]["bot-random"] == seat_of[1]["bot-rules"]
        # Heads-up: what one wins the other loses.
        assert sum(r["points"] for r in one) == 0 == sum(r["points"] for r in two)


def test_the_match_agrees_exactly_with_simulate_on_the_same_seed(client: TestClient) -> None:
    match_id = played_match(client, [RULES_BOT, RANDOM_BOT])
    rows = stored_hands(client, match_id)
    hands = len({(r["deal"], r["seating"], r["hand"]) for r in rows})
    # The same bots, seeds and duplicate deals in simulate, cut at the match's hands.
    job = make_job("pineapple", ["rules", "random"], hands=hands, seed=SEED, duplicate=True)
    result = simulate(job, workers=1)
    assert result.hands == hands and result.groups == DEALS
    per_deal: dict[int, list[int]] = {}
    for r in rows:
        if r["player_id"] == "bot-rules":
            per_deal.setdefault(r["deal"], []).append(r["points"])
    ours = interval([Fraction(sum(v), len(v)) for _, v in sorted(per_deal.items())])
    rules_line = result.bots[0]
    assert rules_line.label == "rules"
    # Exact: every hand is the same hand (same deck, same bots, same seeds), so the
    # points a hand and the interval are the same numbers, not merely close.
    assert rules_line.points == ours
    mine = [r for r in rows if r["player_id"] == "bot-rules"]
    assert rules_line.hands == len(mine) == hands
    assert rules_line.foul_rate == sum(r["fouled"] for r in mine) / hands
    assert rules_line.fl_earned_rate == sum(r["fantasyland"] for r in mine) / hands


def test_the_budget_is_respected() -> None:
    budget = MatchBudget(hands_per_hour=100, at_once=2, deals=10)
    # 40 planned hands a match: two fit in an hour, a third waits for the first to age.
    assert may_start(budget, 0.0, [], 0, 40)
    assert may_start(budget, 10.0, [(0.0, 40)], 1, 40)
    assert not may_start(budget, 20.0, [(0.0, 40), (10.0, 40)], 0, 40)
    assert not may_start(budget, 20.0, [], 2, 40)  # two at once already
    assert may_start(budget, 3600.5, [(0.0, 40), (10.0, 40)], 0, 40)


def test_the_runner_starts_no_more_than_the_budget(client: TestClient) -> None:
    manager = manager_of(client)
    now = [1_000_000.0]
    cheap = [RULES_BOT, RANDOM_BOT, BotInMatch("bot-rules-2", "rules", None)]
    runner = MatchRunner(
        manager,
        MatchBudget(hands_per_hour=8, at_once=5, deals=1, presets=("pineapple",)),
        clock=lambda: now[0],
        entrants=lambda conn, family: cheap,
    )
    started = [client.portal.call(runner.tick) for _ in range(4)]  # type: ignore[attr-defined]
    # 4 planned hands a match, 8 an hour: two matches, then nothing within the hour.
    assert [m is not None for m in started] == [True, True, False, False]
    now[0] += 3601
    assert client.portal.call(runner.tick) is not None  # type: ignore[attr-defined]
    with manager.store.engine.connect() as conn:
        rows = conn.execute(select(BOT_MATCHES.c.players, BOT_MATCHES.c.deals)).all()
    assert len(rows) == 3 and all(deals == 1 for _, deals in rows)
    # Different pairs first: the runner spreads the matches over the house bots.
    assert len({frozenset(json.loads(p)) for p, _ in rows[:2]}) == 2
