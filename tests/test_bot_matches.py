"""Bot-against-bot duplicate matches run by the server (issue 42 item 3): both seatings of
each deal on the same cards, the operator's budget, and agreement with ``simulate``."""

from __future__ import annotations

import contextlib
import json
import random
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, event, func, insert, select

from _bots import bot_lobby, bot_table, new_bot, person, poll, random_answer
from _helpers import wait_until
from chinese_poker.ai import make_bot
from chinese_poker.ai.simulate import interval, make_job, simulate
from chinese_poker.engine import Session
from chinese_poker.rules import rules_for
from chinese_poker.server.accounts import PLAYERS, SeatPlayerRow
from chinese_poker.server.app import create_app
from chinese_poker.server.bot_matches import (
    UNOPENED_SECONDS,
    BotInMatch,
    MatchBudget,
    MatchRunner,
    collect,
    may_start,
    online_accounts,
    start_match,
)
from chinese_poker.server.db import Store, StoredSeat
from chinese_poker.server.ratings import RATINGS, rate_pending, same_owner
from chinese_poker.server.schema import BOT_MATCH_HANDS, BOT_MATCHES, HANDS, TABLES
from chinese_poker.server.tables import TableManager
from test_server_restart import own_postgres_database

SEED = 20261207
DEALS = 3


def served(tmp_path: Path) -> Iterator[TestClient]:
    """A server on a fresh SQLite database, its lifespan running."""
    app = create_app(f"sqlite:///{tmp_path / 'matches.db'}", hint_processes=False)
    with TestClient(app) as c:
        yield c


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    yield from served(tmp_path)


def manager_of(client: TestClient) -> TableManager:
    manager = client.app.state.manager  # type: ignore[attr-defined]
    assert isinstance(manager, TableManager)
    return manager


def played_match(
    client: TestClient, bots: list[BotInMatch], seed: int = SEED, deals: int = DEALS
) -> str:
    """Start a match on the server's loop and wait until it is collected."""
    manager = manager_of(client)
    match_id: str = client.portal.call(  # type: ignore[attr-defined]
        start_match, manager, "pineapple", bots, deals, seed
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


def test_verify_checks_a_match_hand_by_its_public_seed_and_replay(
    client: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bot match's hand has no commitment (both seatings get the same cards): verify
    says so plainly, checks its seed is its session's seed for the hand as simulate
    deals, and replays it; a changed seed or deck fails."""
    from chinese_poker.cli import main
    from chinese_poker.server.fairness import MATCH_DEAL, verify_records

    match_id = played_match(client, [RULES_BOT, RANDOM_BOT], deals=1)
    table_id = stored_hands(client, match_id)[0]["table_id"]
    records = manager_of(client).store.records(table_id)
    checks = verify_records(records)
    assert all(c.ok and c.scheme == MATCH_DEAL and c.table == match_id for c in checks), checks
    history = tmp_path / "match.jsonl"
    history.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["verify", str(history)]) == 0
    out = capsys.readouterr().out
    assert "no fairness block" not in out
    assert f"line 1 (bot match {match_id}, hand 1): OK (a bot match the server ran" in out
    assert "dealt from its session's public seed" in out and "checked by replay" in out
    # Another seed (its deck dealt from it too) is not the session's: refused.
    other = dict(records[0], seed=records[0]["seed"] + 1)
    (bad,) = verify_records([other])
    assert not bad.ok and "is not its session's seed for hand 1" in str(bad.problem)
    # The session's seed with another deck: the replay refuses it.
    deck = list(records[0]["deck"])
    deck[0], deck[1] = deck[1], deck[0]
    (swapped,) = verify_records([dict(records[0], deck=deck)])
    assert not swapped.ok and "does not produce the recorded deck" in str(swapped.problem)


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
        entrants=lambda conn, preset: cheap,
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
    runner.close()


def test_starting_a_match_leaves_the_event_loop_free(client: TestClient) -> None:
    """The database work of a match's start is done off the event loop: while the
    database holds the match's first table (made slow by the test, not by the clock),
    the server still answers a request."""
    manager = manager_of(client)
    held, answered = threading.Event(), threading.Event()
    waited: list[bool] = []

    def slow(_c: Any, _cur: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO TABLES") and not held.is_set():
            held.set()
            waited.append(answered.wait(30))  # True: the request came meanwhile

    event.listen(Engine, "before_cursor_execute", slow)  # whichever engine stores it
    runner = MatchRunner(
        manager,
        MatchBudget(hands_per_hour=100, deals=2, presets=("pineapple",)),
        entrants=lambda conn, preset: [RULES_BOT, RANDOM_BOT],
    )
    try:
        ticking = client.portal.start_task_soon(runner.tick)  # type: ignore[attr-defined]
        assert held.wait(60), "the match stored no table"
        assert client.get("/api/health").status_code == 200
        answered.set()
        match_id = ticking.result(60)
    finally:
        event.remove(Engine, "before_cursor_execute", slow)
        runner.close()
    assert waited == [True], "the request waited for the database: the loop was held"
    assert match_id is not None and _status(client, match_id) == "playing"
    assert len(manager_of(client).tables) == 4  # two deals, both seatings, all open


def test_a_match_whose_start_was_cut_short_is_put_in_play(client: TestClient) -> None:
    """The process stopped between storing a match and putting its tables in play (its
    runner cancelled while the setup thread stored them): a runner later finds the
    tables still waiting and starts them, so the match ends and gives its place back."""
    manager = manager_of(client)
    now = [1_000_000.0]
    runner = MatchRunner(
        manager,
        MatchBudget(hands_per_hour=100, at_once=1, deals=1, presets=("pineapple",)),
        clock=lambda: now[0],
        entrants=lambda conn, preset: [RULES_BOT, RANDOM_BOT],
    )
    stored = runner.store_next("pineapple")  # stored as the thread stores it, never opened
    assert stored is not None
    match, tables = stored

    def statuses() -> set[str]:
        with manager.store.engine.connect() as conn:
            ids = [t.table.id for t in tables]
            return set(conn.execute(select(TABLES.c.status).where(TABLES.c.id.in_(ids))).scalars())

    # A moment later it may still be on its way into play: left alone, its place held.
    assert client.portal.call(runner.tick) is None  # type: ignore[attr-defined]
    assert statuses() == {"waiting"} and not manager.tables
    now[0] += UNOPENED_SECONDS + 1
    wait_until(
        lambda: client.portal.call(runner.tick) is not None,  # type: ignore[attr-defined]
        "the next match, once the cut-short one was played and collected",
        240,
    )
    assert statuses() == {"finished"} and _status(client, match.id) == "finished"
    assert len(stored_hands(client, match.id)) >= 2 * 2 * 2  # two hands a seating, two seats
    runner.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def shared_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database two server processes share: an SQLite file, or a PostgreSQL database
    of its own (``CHINESE_POKER_TEST_POSTGRES_URL``; skipped without it)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'shared.db'}"
        return
    with own_postgres_database("cp_matches") as url:
        yield url


def test_at_once_holds_for_every_process_together(shared_database: str) -> None:
    """Two processes' runners, each allowed one match at a time, both find no match
    playing before either stores its own (a barrier in the pairing, by construction):
    one starts, the other is refused its place; the place is free again once the match
    is collected."""
    budget = MatchBudget(hands_per_hour=1000, at_once=1, deals=1, presets=("pineapple",))
    both_read = threading.Barrier(2)

    def entrants(conn: Any, preset: str) -> list[BotInMatch]:
        # Called once the budget is read: both runners have read it before either
        # stores a match (a server that let only one read at a time would break the
        # barrier after its wait, and the test would go on).
        with contextlib.suppress(threading.BrokenBarrierError):
            both_read.wait(60)
        return [RULES_BOT, RANDOM_BOT]

    apps = [create_app(shared_database, hint_processes=False) for _ in range(2)]
    with TestClient(apps[0]) as one, TestClient(apps[1]) as two:
        clients = (one, two)
        runners = [MatchRunner(manager_of(c), budget, entrants=entrants) for c in clients]
        with ThreadPoolExecutor(2) as pool:
            started = list(
                pool.map(lambda i: clients[i].portal.call(runners[i].tick), range(2))  # type: ignore[attr-defined]
            )
        assert sum(m is not None for m in started) == 1, started
        both_read.abort()  # from now on one runner at a time: no wait
        engine = manager_of(one).store.engine

        def playing() -> int:
            with engine.connect() as conn:
                return int(
                    conn.execute(
                        select(func.count()).where(BOT_MATCHES.c.status == "playing")
                    ).scalar_one()
                )

        assert playing() == 1
        first = next(m for m in started if m is not None)

        def next_started() -> bool:
            # Both runners tick: never a second match beside the first; once it is over
            # and collected, its place goes to the next one.
            ticks = [c.portal.call(r.tick) for c, r in zip(clients, runners, strict=True)]  # type: ignore[attr-defined]
            assert playing() <= 1
            return any(t is not None for t in ticks)

        wait_until(next_started, "the next match after the first was collected", 240)
        assert playing() == 1
        with engine.connect() as conn:
            status = conn.execute(select(BOT_MATCHES.c.status).where(BOT_MATCHES.c.id == first))
            assert status.scalar_one() == "finished"
        for runner in runners:
            runner.close()


# --------------------------------------------------------------------------- same owner


def stored_hand_between(store: Store, table_id: str, players: dict[int, str]) -> None:
    """A finished heads-up hand at a new table whose chairs the given players proved."""
    names = ["Ann", "Bob"]
    session = Session(rules_for("pineapple"), names, seed=5)
    table = session.start_hand()
    bots = [make_bot("rules", seed=1), make_bot("rules", seed=2)]
    while not table.over:
        seat = table.to_act[0]
        table.apply(bots[seat].act(table.view(seat)))
    record = session.finish_hand().record
    seats = [
        StoredSeat(i, "human", n, None, None, None, None) for i, n in enumerate(["Ann", "Bob"])
    ]
    store.create_table(
        table_id=table_id, name="t", config={}, join_code_hash="0" * 64, session_seed="5",
        start_button=0, seats=seats, status="finished",
    )  # fmt: skip
    with store.engine.begin() as conn:
        conn.execute(
            insert(HANDS).values(
                table_id=table_id, number=1, seed="0", salt="0", commitment="0",
                committed_at=1.0, started_at=1.0, finished_at=2.0, record=json.dumps(record),
            )
        )  # fmt: skip
        for chair, pid in players.items():
            conn.execute(insert(SeatPlayerRow).values(table_id=table_id, seat=chair, player_id=pid))


def test_games_between_accounts_of_one_owner_are_not_rated(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'owners.db'}")
    store.migrate()
    with store.engine.begin() as conn:
        for pid, kind, owner in [
            ("p-ann", "human", None),
            ("p-cy", "human", None),
            ("b-ann1", "bot", "p-ann"),
            ("b-ann2", "bot", "p-ann"),
            ("b-cy", "bot", "p-cy"),
        ]:
            conn.execute(
                insert(PLAYERS).values(id=pid, kind=kind, name=pid, created_at=1.0, owner=owner)
            )
    stored_hand_between(store, "t-own-bot", {0: "p-ann", 1: "b-ann1"})  # a person, his bot
    stored_hand_between(store, "t-two-bots", {0: "b-ann1", 1: "b-ann2"})  # one owner's two
    assert rate_pending(store) == 2
    with store.engine.connect() as conn:
        assert conn.execute(select(RATINGS)).all() == []
        assert not same_owner(conn, ["p-ann", "b-cy"]) and same_owner(conn, ["b-ann2", "p-ann"])
    # Another owner's bot against Ann's: rated, both.
    stored_hand_between(store, "t-strangers", {0: "b-cy", 1: "b-ann1"})
    rate_pending(store)
    with store.engine.connect() as conn:
        rated = {r.player_id for r in conn.execute(select(RATINGS.c.player_id))}
    assert rated == {"b-cy", "b-ann1"}
    store.close()


# --------------------------------------------------------------------------- an outside bot


def test_an_online_bot_account_plays_a_duplicate_match_over_its_socket(client: TestClient) -> None:
    """The runner pairs a bot account that is online and accepts the preset; its chairs
    are taken in its name and played by its program over the bot socket, in both
    seatings on the same cards; the ladder lists it with its owner's words."""
    manager = manager_of(client)
    owner = person(client, "ann")
    bot_id, token = new_bot(client, owner, "Pebble")
    rng = random.Random(3)
    answer = random_answer(rng)
    with bot_lobby(client, token, presets=["pineapple"], players=[2]) as lobby:
        runner = MatchRunner(
            manager,
            MatchBudget(hands_per_hour=100, deals=1, presets=("pineapple",)),
            # Our casual bot and the accounts online (only Pebble accepts pineapple).
            entrants=lambda conn, preset: [RULES_BOT, *online_accounts(conn, preset)],
        )
        match_id = client.portal.call(runner.tick)  # type: ignore[attr-defined]
        assert match_id is not None
        tables: set[str] = set()
        while len(tables) < 2:  # an invitation per seating
            m = poll(lobby, 5)
            assert m is not None, "no invitation came"
            if m["type"] == "invite":
                tables.add(m["table_id"])
        with contextlib.ExitStack() as stack:
            sockets = [stack.enter_context(bot_table(client, t, token)) for t in sorted(tables)]

            def finished() -> bool:
                for ws in sockets:
                    m = poll(ws, 0.02)
                    if m is not None and m["type"] == "act":
                        ws.send_json(answer(m))
                with manager.store.engine.begin() as conn:
                    return collect(conn, match_id) or _status(client, match_id) == "finished"

            wait_until(finished, "the match with the bot account", 240)
        runner.close()
    rows = stored_hands(client, match_id)
    first = [r for r in rows if r["hand"] == 1]
    assert {(r["seating"], r["player_id"]) for r in first} == {
        (s, p) for s in (0, 1) for p in ("bot-rules", bot_id)
    }
    seat_of = {(r["seating"], r["player_id"]): r["seat"] for r in first}
    assert seat_of[0, bot_id] == seat_of[1, "bot-rules"]  # swapped chairs ...
    store = manager.store
    decks = {r["seating"]: store.records(r["table_id"], 1)[0]["deck"] for r in first}
    assert decks[0] == decks[1]  # ... on the same cards
    board = client.get("/api/ladder").json()
    pebble = next(b for b in board["bots"] if b["player"] == bot_id)
    assert pebble["description"] == "d" and pebble["match_hands"] == len(
        [r for r in rows if r["player_id"] == bot_id]
    )
    assert any(p["player"] == bot_id and p["opponent"] == "bot-rules" for p in board["pairs"])


def test_serve_refuses_a_bad_budget_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from chinese_poker.cli import main

    url = f"sqlite:///{tmp_path / 'serve.db'}"
    for budget, words in [("lots", "HANDS_PER_HOUR"), ("10,1,1,ofc-nowhere", "ofc-nowhere")]:
        assert main(["serve", "--port", "0", "--database-url", url, "--bot-matches", budget]) == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1, err
