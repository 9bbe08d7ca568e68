"""Issue 40 item 4: a casual table's timeout keeps the cards the player staged and plays
the rest as the rules bot would (server/timeout_filler.py); staging it cannot keep falls
back to the rules bot's whole street. Over the socket: the page's ``stage`` message is
what the server keeps, and a reload (what a failover does) still has it."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from _helpers import wait_until
from chinese_poker.ai.simple import RuleBot
from chinese_poker.cards import card_name, parse_card
from chinese_poker.engine import Place, Table
from chinese_poker.rules import rules_for
from chinese_poker.server import table_clocks
from chinese_poker.server.timeout_filler import Staging, filler_action, kept_staging
from test_server import client, connect, create, first_state, held_bots, recv_until

__all__ = ["client"]


def first_street(seed: int = 3) -> tuple[Table, int]:
    table = Table(rules_for("pineapple"), 2, seed=seed)
    return table, table.to_act[0]


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_nothing_staged_is_the_rules_bots_street(seed: int) -> None:
    table, seat = first_street(seed)
    view = table.view(seat)
    assert filler_action(view, None, 1, seed=11) == RuleBot(seed=11).act(view)


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_staged_first_street_cards_stay_and_the_rest_is_the_rules_bots(seed: int) -> None:
    table, seat = first_street(seed)
    dec = table.decisions(seat)[0]
    a, b, c = dec.cards[:3]
    staged = Staging(1, 1, top=(a,), middle=(b,), bottom=(c,))
    place = filler_action(table.view(seat), staged, 1, seed=11)
    assert isinstance(place, Place) and table.check(place) is None
    assert a in place.top and b in place.middle and c in place.bottom
    # The two cards left go where the rules bot puts them on a board that already has
    # the staged three: the same street played by hand from the board it leaves.
    rest = Staging(1, 1, place.top, place.middle, place.bottom)
    assert filler_action(table.view(seat), rest, 1, seed=99) == place
    assert sorted(place.top + place.middle + place.bottom) == sorted(dec.cards)


def test_the_rest_differs_from_the_whole_street_when_the_staging_does() -> None:
    # The rules bot alone puts this street elsewhere: keeping the staging is a choice
    # the filler really makes (not the bot's street by chance).
    table, seat = first_street(3)
    view = table.view(seat)
    alone = RuleBot(seed=11).act(view)
    assert isinstance(alone, Place)
    dec = view.decisions[0]
    line = next(n for n in ("top", "middle", "bottom") if dec.cards[0] not in getattr(alone, n))
    staged = Staging(1, 1, **{line: dec.cards[:1]})
    kept = filler_action(view, staged, 1, seed=11)
    assert isinstance(kept, Place) and dec.cards[0] in getattr(kept, line)
    assert kept != alone


@pytest.mark.parametrize(
    "lines",
    [
        {"top": 4},  # more than the top's room
        {"middle": 5, "bottom": 1},  # more cards than the street's
        {"discard": 1},  # the first street throws nothing
    ],
)
def test_staging_that_cannot_be_kept_is_the_rules_bots_whole_street(lines: dict[str, int]) -> None:
    table, seat = first_street(3)
    view = table.view(seat)
    cards = list(view.decisions[0].cards) + [c for c in range(52) if c not in view.hand]
    given: dict[str, Any] = {}
    for name, n in lines.items():
        given[name], cards = tuple(cards[:n]), cards[n:]
    staged = Staging(1, 1, **given)
    assert not kept_staging(view.decisions[0], staged)
    assert filler_action(view, staged, 1, seed=11) == RuleBot(seed=11).act(view)


def test_another_hands_or_streets_staging_is_not_used() -> None:
    table, seat = first_street(3)
    view = table.view(seat)
    dec = view.decisions[0]
    whole = RuleBot(seed=11).act(view)
    for staged in (Staging(2, 1, top=dec.cards[:1]), Staging(1, 2, top=dec.cards[:1])):
        assert filler_action(view, staged, 1, seed=11) == whole


def test_a_card_not_dealt_is_not_kept() -> None:
    table, seat = first_street(3)
    dec = table.decisions(seat)[0]
    stranger = next(c for c in range(52) if c not in dec.cards)
    assert not kept_staging(dec, Staging(1, 1, bottom=(stranger,)))
    assert kept_staging(dec, Staging(1, 1, bottom=dec.cards[:2]))


def test_the_stored_form_reads_back() -> None:
    staged = Staging(3, 2, top=(parse_card("Ah"),), discard=(parse_card("2c"),))
    assert Staging.from_dict(staged.to_dict()) == staged


# --------------------------------------------------------------------------- the server


def casual_table(client: TestClient, time_limit: float) -> dict[str, Any]:
    """Ann against a random bot, only the decision due made when her time runs out."""
    return create(
        client,
        preset="pineapple",
        time_limit=time_limit,
        timeouts="decision",
        seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}],
    )


def test_a_timeout_keeps_the_staged_cards_sent_by_the_page(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    hold = held_bots(monkeypatch)
    monkeypatch.setattr(table_clocks.secrets, "randbits", lambda _bits: 7)
    made = casual_table(client, time_limit=3.0)
    tid = made["table"]["id"]
    seen: list[Any] = []
    with connect(client, tid, made["token"]) as ws:
        first_state(ws, seen)
        hold.go.set()
        mine = recv_until(ws, lambda m: m["type"] == "state" and 0 in m["view"]["to_act"], seen)
        dec = next(d for d in mine["view"]["decisions"] if d["seat"] == 0)
        dealt = dec["cards"]
        ws.send_json(
            {"type": "stage", "hand": 1, "street": 1, "top": dealt[:1], "bottom": dealt[1:3]}
        )
        live = client.app.state.manager.tables[tid]  # type: ignore[attr-defined]
        table = live.table
        view = table.view(live.game.engine_seat(0))
        notice = recv_until(ws, lambda m: m["type"] == "notice", seen)
    assert notice["kind"] == "timeout"
    placed = notice["action"]
    assert dealt[0] in placed["top"] and set(dealt[1:3]) <= set(placed["bottom"])
    staged = Staging(1, 1, top=(parse_card(dealt[0]),), bottom=tuple(map(parse_card, dealt[1:3])))
    expected = filler_action(view, staged, 1, seed=7)
    assert isinstance(expected, Place)
    for line in ("top", "middle", "bottom"):
        assert sorted(placed[line]) == sorted(card_name(c) for c in getattr(expected, line))


def test_the_staging_is_stored_with_the_table(client: TestClient) -> None:
    made = casual_table(client, time_limit=60)
    tid = made["table"]["id"]
    manager = client.app.state.manager  # type: ignore[attr-defined]
    with connect(client, tid, made["token"]) as ws:
        state = first_state(ws)
        live = manager.tables[tid]
        dealt = live.table.decisions(0)[0].cards
        ws.send_json({"type": "stage", "hand": 1, "street": 1, "middle": [card_name(dealt[0])]})
        ws.send_json({"type": "stage", "hand": 1, "street": 1, "top": ["Zz"]})
        bad = recv_until(ws, lambda m: m["type"] == "error")
        assert bad["code"] == "bad_message" and state["type"] == "state"
        wait_until(
            lambda: manager.store.load_table(tid).live.get("staged") is not None,
            "the staging stored",
        )
        stored = manager.store.load_table(tid).live["staged"]["0"]
        assert stored["middle"] == [card_name(dealt[0])] and stored["hand"] == 1
        # The process that takes the table over reads the same staging.
        fresh = client.portal.call(manager.reload, live)  # type: ignore[union-attr]
        assert fresh.timekeeper.staging(0) == Staging(1, 1, middle=(dealt[0],))


def test_a_spectator_cannot_stage(client: TestClient) -> None:
    made = create(client, preset="pineapple")
    with connect(client, made["table"]["id"]) as watcher:
        watcher.send_json({"type": "stage", "id": 5, "hand": 1, "street": 1, "top": ["Ah"]})
        refused = recv_until(watcher, lambda m: m["type"] == "error")
    assert refused["code"] == "read_only" and refused["ref"] == 5
