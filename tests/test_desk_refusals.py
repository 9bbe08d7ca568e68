"""The study desk's refusals carry codes its pages put in the player's words (issue 40,
round three, item 2): every code has words in every catalogue, with the values the
server gives; the desk's answers carry the code of what was wrong and keep the English
detail for API users; the pool's own refusals (busy, over its budget) too."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chinese_poker.language import LANGUAGES
from chinese_poker.server.app import create_app
from chinese_poker.server.desk import StudyPool
from chinese_poker.server.desk_refusals import DESK_REFUSALS, DeskRefusal
from chinese_poker.server.guard import RateSpec

CATALOGUES = Path(__file__).resolve().parent.parent / "src/chinese_poker/server/static/i18n"
PLACEHOLDER = re.compile(r"\{(\w+)\}")
STREET_2 = {"rules": "pineapple", "street": 2, "me": "Ah | Kd Kc | 7s 7d", "cards": "Qh 8c 2s"}


def catalogue(lang: str) -> dict[str, Any]:
    return json.loads((CATALOGUES / f"{lang}.json").read_text())  # type: ignore[no-any-return]


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_every_desk_refusal_has_words_in_every_language(lang: str) -> None:
    words, english = catalogue(lang), catalogue("en")
    for code in DESK_REFUSALS:
        key = f"desk.refusal.{code}"
        assert isinstance(words.get(key), str) and words[key].strip(), (lang, key)
        # The same values filled in: none lost, none that the server does not send.
        assert set(PLACEHOLDER.findall(words[key])) == set(PLACEHOLDER.findall(english[key]))
        if lang != "en" and code not in ("preparing", "no_cards_left"):
            assert words[key] != english[key], (lang, key, "not translated")


def test_a_refusal_needs_a_known_code() -> None:
    with pytest.raises(ValueError, match="unknown study desk refusal 'nope'"):
        DeskRefusal(400, "nope", "no such refusal")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path_factory.mktemp('refusals') / 'desk.db'}"
    with TestClient(create_app(url, hint_processes=False)) as c:
        yield c


REFUSED = {
    "my board short": (
        {**STREET_2, "me": "Ah | Kd |"}, "my_board_size",
        {"n": 2, "need": 5, "street": 2, "game": "pineapple"},
        "my board has 2 cards; before street 2 of pineapple it has 5",
    ),
    "a card missing": (
        {**STREET_2, "cards": "Qh 8c"}, "street_cards",
        {"n": 2, "need": 3, "street": 2, "game": "pineapple"},
        "street 2 of pineapple deals 3 cards, 'cards' has 2",
    ),
    "an opponent's board": (
        {**STREET_2, "opponents": ["2c | 3c | 4c"]}, "opponent_board_size",
        {"opponent": 1, "n": 3, "before": 5, "after": 7, "street": 2, "game": "pineapple"},
        "opponent 1's board has 3 cards",
    ),
    "a bad card": ({**STREET_2, "cards": "Qh 8c Xx"}, "bad_cards", {}, "bad card 'Xx'"),
    "a bad game": ({**STREET_2, "rules": "nope"}, "bad_rules", {}, "unknown preset 'nope'"),
    "no such street": ({**STREET_2, "street": 9}, "bad_position", {}, "street 9 does not exist"),
    "the deck runs out": (
        {**STREET_2, "dead": "2c 3c 4c 5c 6c 7c 9c Tc Jc 2h 3h 4h 5h 6h 7h 8h 9h Th Jh",
         "opponents": ["fantasyland", "fantasyland"]},
        "no_cards_left", {}, "the deck cannot deal the rest",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", list(REFUSED))
def test_a_refused_position_carries_its_code_and_the_english_detail(
    client: TestClient, name: str
) -> None:
    position, code, params, detail = REFUSED[name]
    reply = client.post("/api/hint", json={"position": position, "time_budget": 0.2})
    assert reply.status_code == 400, reply.text
    body = reply.json()
    assert (body["code"], body["params"]) == (code, params)
    assert detail in body["detail"]


def test_other_refusals_carry_their_codes(client: TestClient) -> None:
    reply = client.post("/api/hint", json={"level": 2})
    assert reply.json()["code"] == "bad_request"
    assert reply.json()["detail"] == "the request has no 'position'"
    reply = client.post("/api/score", content=b"[]")
    assert (reply.status_code, reply.json()["code"]) == (400, "bad_table")
    reply = client.get("/api/trainer/next", params={"kind": "setting", "preset": "pineapple"})
    assert (reply.status_code, reply.json()["code"]) == (400, "bad_rules")


def test_the_rate_limit_carries_its_code(tmp_path: Path) -> None:
    app = create_app(
        f"sqlite:///{tmp_path / 'r.db'}", rate_limits=RateSpec(study="1/minute"),
        hint_processes=False,
    )  # fmt: skip
    with TestClient(app) as c:
        assert c.post("/api/board", json={"board": "| |"}).status_code == 200
        reply = c.post("/api/board", json={"board": "| |"})
    assert (reply.status_code, reply.json()["code"]) == (429, "rate_limited")
    assert reply.json()["detail"].startswith("too many requests")


def test_the_pools_refusals_carry_their_codes() -> None:
    """Busy (the queue full) and over its budget, by construction: the first request
    holds the only place until the gate opens."""
    pool = StudyPool(threads=1, queue=1)
    gate = threading.Event()

    async def refused(work: Any, budget: float) -> DeskRefusal:
        try:
            await pool.run(work, budget=budget)
        except DeskRefusal as exc:
            return exc
        raise AssertionError("not refused")

    async def scenario() -> list[tuple[int, str, dict[str, Any]]]:
        first = asyncio.ensure_future(pool.run(lambda: gate.wait(10), budget=10))
        while pool.pending == 0:
            await asyncio.sleep(0.01)
        busy = await refused(lambda: 1, 5)
        gate.set()
        await first
        late = await refused(lambda: time.sleep(1.5), 0.1)
        return [(e.status_code, e.code, e.params) for e in (busy, late)]

    try:
        assert asyncio.run(scenario()) == [
            (503, "busy", {}), (503, "over_budget", {"seconds": 0.1})
        ]  # fmt: skip
    finally:
        gate.set()
        pool.close()
