"""Issue 40 item 11: the study desk answers every position it accepts within its budget,
or refuses it at once with a reason in the page's language.

Every kind of position the desk's analyser accepts (each open-face game, the streets,
opponents still to act or already placed, an opponent in Fantasyland whose cards are
not seen, the most players) is answered within a small budget; a position whose deck
cannot deal the rest of the hand is refused before any sampling; and while the study
worker compiles its kernels (a fresh machine), a request that cannot be answered in its
budget is refused with the reason, without stopping the worker (before: a street-2 hint
waited 62 s behind numba's compiler, was answered "took longer than its budget", and
its worker, stopped, lost the compiling and started it again)."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import HTTPException
from fastapi.testclient import TestClient

from chinese_poker.cards import cards_str
from chinese_poker.engine.position import placed_before
from chinese_poker.language import text_in
from chinese_poker.rules import rules_for
from chinese_poker.server.app import create_app
from chinese_poker.server.desk import StudyPool

BUDGET = 0.3
#: What a loaded machine may add to a budget: the request's way in and out, the
#: listing of the options, and the sampling round that was running at the deadline.
SLACK = 2.0
GAMES = ("ofc", "pineapple", "turbo")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The desk with its work in a thread of this process, its kernels warm (as a
    server's worker is once they are compiled: the compiling is tested below)."""
    from chinese_poker.ai.warm import warm_kernels

    warm_kernels()
    url = f"sqlite:///{tmp_path_factory.mktemp('desk') / 'desk.db'}"
    with TestClient(create_app(url, hint_processes=False)) as c:
        yield c


def _spread(cards: list[int], n: int) -> str:
    """``n`` of ``cards`` on a board as a player fills one: bottom, middle, then top."""
    lines: list[list[int]] = [[], [], []]
    for card in cards[:n]:
        line = next(i for i in (2, 1, 0) if len(lines[i]) < (3 if i == 0 else 5))
        lines[line].append(card)
    return " | ".join(cards_str(line) for line in lines)


def _positions() -> Iterator[tuple[str, dict[str, Any]]]:
    rng = random.Random(40)
    for game in GAMES:
        rules = rules_for(game)
        count = len(rules.streets)
        for street in sorted({1, 2, 3, count - 1, count}):
            dealt, placed = rules.streets[street - 1]
            before = placed_before(rules, street)
            most = rules.player_counts.stop - 2
            for kind, opponents in (("to act", 1), ("placed", 1), ("fantasyland", 1),
                                    ("most players", most)):  # fmt: skip
                deck = list(range(52))
                rng.shuffle(deck)
                me, deck = _spread(deck, before), deck[before:]
                cards, deck = cards_str(deck[:dealt]), deck[dealt:]
                boards = []
                for _ in range(opponents):
                    if kind == "fantasyland":
                        boards.append("fantasyland")
                        continue
                    n = before + placed if kind == "placed" else before
                    boards.append(_spread(deck, n))
                    deck = deck[n:]
                position = {"rules": game, "street": street, "me": me, "cards": cards,
                            "opponents": boards}  # fmt: skip
                yield f"{game}-street{street}-{kind}", position


POSITIONS = dict(_positions())


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_every_kind_of_position_is_answered_within_its_budget(
    client: TestClient, name: str
) -> None:
    body = {"position": POSITIONS[name], "level": 2, "time_budget": BUDGET}
    start = time.monotonic()
    reply = client.post("/api/hint", json=body)
    took = time.monotonic() - start
    assert reply.status_code == 200, reply.text
    hints = reply.json()["hints"]
    assert hints and reply.json()["options"] == len(hints)
    assert all(h["value"] == h["value"] for h in hints)  # valued: no quick answer here
    assert took < BUDGET + SLACK, f"{name}: {took:.2f} s for a budget of {BUDGET} s"


def test_a_position_the_deck_cannot_finish_is_refused_at_once_in_the_pages_language(
    client: TestClient,
) -> None:
    dead = "2c 3c 4c 5c 6c 7c 9c Tc Jc 2h 3h 4h 5h 6h 7h 8h 9h Th Jh"
    position = {"rules": "pineapple", "street": 2, "me": "Ah | Kd Kc | 7s 7d",
                "cards": "Qh 8c 2s", "dead": dead, "opponents": ["fantasyland"] * 2}  # fmt: skip
    for lang in ("ru", "lv", "en"):
        start = time.monotonic()
        reply = client.post("/api/hint", json={"position": position, "time_budget": 5},
                            headers={"Accept-Language": f"{lang}-XX,en;q=0.5"})  # fmt: skip
        assert reply.status_code == 400
        assert reply.json()["detail"] == text_in(lang, "desk.no_cards_left")
        assert time.monotonic() - start < 1 + SLACK  # not after a budget of sampling


def test_a_request_stuck_behind_the_compiler_is_refused_within_its_budget() -> None:
    """The rule for worker processes, on a thread: once the worker said it compiles
    (start()'s probe or a job's answer), a request over its budget is answered with the
    reason and the worker is kept (its job finishes when the compiler lets it)."""
    pool = StudyPool(threads=1)
    pool.processes = True
    pool.compiling = True
    release, finished = threading.Event(), threading.Event()

    def stuck() -> str:
        release.wait(30)
        finished.set()
        return "late"

    async def ask() -> tuple[int, str, float]:
        start = time.monotonic()
        try:
            await pool.run(stuck, budget=0.2, preparing="still preparing")
        except HTTPException as exc:
            return exc.status_code, str(exc.detail), time.monotonic() - start
        raise AssertionError("answered")

    worker = pool._pool  # the worker kept, not replaced
    try:
        status, detail, took = asyncio.run(ask())
        assert (status, detail) == (503, "still preparing")
        assert took < 0.2 + 1.0 + SLACK
        assert pool._pool is worker
        release.set()
        assert finished.wait(10)
    finally:
        release.set()
        pool.close()


def test_the_started_worker_says_whether_it_compiles() -> None:
    from chinese_poker.ai.warm import is_warm

    pool = StudyPool(threads=1)
    pool.processes = True  # start() probes only a worker process
    heard = not is_warm()
    pool.compiling = not heard  # what the probe must change
    try:
        pool.start()
        deadline = time.monotonic() + 10
        while pool.compiling != heard and time.monotonic() < deadline:
            time.sleep(0.01)
        assert pool.compiling == heard
    finally:
        pool.close()


FANTASYLAND = [(preset, size) for preset in ("ofc", "pineapple", "pineapple-progressive", "turbo")
               for size in rules_for(preset).spec.variant.fantasyland_sizes]  # fmt: skip


@pytest.mark.parametrize(("preset", "size"), FANTASYLAND)
def test_every_fantasyland_deal_is_solved_within_the_budget(
    client: TestClient, preset: str, size: int
) -> None:
    """A Fantasyland deal of each size each game deals: the exact solver and its
    runner-ups within the desk's 5 s budget (as a study request's budget)."""
    from chinese_poker.server.desk import STUDY_SECONDS

    deck = list(range(52))
    random.Random(size).shuffle(deck)
    start = time.monotonic()
    reply = client.post(
        "/api/solve/fantasyland", json={"rules": preset, "cards": cards_str(deck[:size])}
    )
    assert reply.status_code == 200, reply.text
    assert reply.json()["cards"] == size
    assert time.monotonic() - start < STUDY_SECONDS
