"""Continuous sessions: hand after hand until a player leaves (docs/rules-decisions.md)."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from chinese_poker.engine import (
    HistoryError,
    ReplayMismatch,
    Session,
    SessionError,
    Timeout,
    Tournament,
    replay_history,
)
from chinese_poker.rules import rules_for
from test_engine_scripts import drive, stack_hand
from test_session import play_scripted

# Ann enters Fantasyland with kings on top (a valid board).
KK_TOP = "Kd Kc 2h | 7s 7h 7d 3c 4c | As Ah Ad Qs Qh"


def random_hand(session: Session, rng: random.Random) -> None:
    table = session.start_hand()
    while not table.over:
        table.apply(table.random_action(table.to_act[0], rng))


def test_a_continuous_session_deals_past_the_orbit_with_running_totals() -> None:
    rules = rules_for("pineapple", fantasyland_enabled=False)
    session = Session(rules, ["Ann", "Bob"], seed=3, continuous=True)
    rng = random.Random(3)
    buttons = []
    for _ in range(9):  # an orbit of two players is 2 hands
        assert not session.over
        buttons.append(session.players[session.button])
        random_hand(session, rng)
        session.finish_hand()
    assert not session.over
    assert buttons == ["Ann", "Bob"] * 4 + ["Ann"]
    # The ledger is the sum of the hands' own totals (the scorer's, not the ledger's).
    for name in ("Ann", "Bob"):
        assert session.ledger.points[name] == sum(r.totals[name] for r in session.results)
    assert [r.ledger.points["Ann"] for r in session.results] == [
        sum(r.totals["Ann"] for r in session.results[: k + 1]) for k in range(9)
    ]
    assert all(r.record["session"]["continuous"] is True for r in session.results)
    assert all(not r.record["session"]["over"] for r in session.results)


def test_end_during_a_hand_finishes_that_hand_then_stops() -> None:
    session = Session(rules_for("ofc"), ["Ann", "Bob", "Cy"], seed=5, continuous=True)
    rng = random.Random(5)
    random_hand(session, rng)
    session.finish_hand()
    table = session.start_hand()
    session.end()
    assert session.ending_asked and not session.over
    while not table.over:
        table.apply(table.random_action(table.to_act[0], rng))
    result = session.finish_hand()
    assert session.over
    assert result.record["session"]["over"] is True
    assert result.record["session"]["ended"] is True
    with pytest.raises(SessionError, match="over"):
        session.start_hand()
    session.end()  # ending an ended session changes nothing
    assert len(session.results) == 2


def test_end_between_hands_stops_at_once() -> None:
    session = Session(rules_for("ofc"), ["Ann", "Bob"], seed=6, continuous=True)
    random_hand(session, random.Random(6))
    session.finish_hand()
    session.end()
    assert session.over and len(session.results) == 1
    assert "ended" not in session.results[0].record["session"]
    with pytest.raises(SessionError, match="over"):
        session.start_hand()


def test_a_leave_forfeits_the_pending_fantasyland_hand() -> None:
    session = Session(rules_for("ofc"), ["Ann", "Bob"], seed=7, continuous=True)
    names = session.next_participants()
    ann = names.index("Ann")
    play_scripted(session, {ann: KK_TOP})
    session.end()  # asked during the hand in which Ann earned Fantasyland
    result = session.finish_hand()
    assert result.settlement.fantasyland["Ann"] == 13
    assert session.over and session.fantasyland_pending == {}


def test_fantasyland_still_carries_over_hand_after_hand() -> None:
    session = Session(rules_for("ofc"), ["Ann", "Bob"], seed=8, continuous=True)
    ann = session.next_participants().index("Ann")
    play_scripted(session, {ann: KK_TOP})
    session.finish_hand()
    assert session.fantasyland_pending["Ann"] == 13
    table = session.start_hand()
    assert table.fantasyland[ann] == 13


def test_a_timeout_still_ends_a_continuous_session_under_rules_10() -> None:
    session = Session(rules_for("ofc"), ["Ann", "Bob"], seed=9, continuous=True)
    names = session.next_participants()
    deck, queues = stack_hand(session.rules, 2, session.button, {}, {})
    table = session.start_hand(deck=deck)
    table.apply(Timeout(names.index("Bob")))
    drive(table, queues)
    session.finish_hand()
    assert session.over and session.ending


def test_continuous_is_for_cash_sessions_only() -> None:
    with pytest.raises(SessionError, match="tournament"):
        Tournament(rules_for("ofc"), ["A", "B"], continuous=True)
    with pytest.raises(SessionError, match="tournament"):
        Session(rules_for("ofc"), ["A", "B"], tournament=True, continuous=True)
    with pytest.raises(SessionError, match="continuous must be"):
        Session(rules_for("ofc"), ["A", "B"], continuous="yes")  # type: ignore[arg-type]


def _records(ended_in_hand: int, hands: int) -> list[dict[str, Any]]:
    session = Session(rules_for("pineapple"), ["Ann", "Bob", "Cy"], seed=11, continuous=True)
    rng = random.Random(11)
    for number in range(1, hands + 1):
        table = session.start_hand()
        if number == ended_in_hand:
            session.end()
        while not table.over:
            table.apply(table.random_action(table.to_act[0], rng))
        session.finish_hand()
    assert session.over == (ended_in_hand == hands)
    return [r.record for r in session.results]


def test_the_history_of_a_continuous_session_replays() -> None:
    records = _records(ended_in_hand=6, hands=6)
    replayed = replay_history(records)
    assert len(replayed) == 6
    assert replayed[-1].ledger == records[-1]["session"]["ledger"]


def test_a_replay_notices_a_removed_or_invented_leave() -> None:
    records = _records(ended_in_hand=5, hands=5)
    no_leave = copy.deepcopy(records)
    del no_leave[-1]["session"]["ended"]
    with pytest.raises(ReplayMismatch, match="over"):
        replay_history(no_leave)
    early = copy.deepcopy(records)
    early[2]["session"]["ended"] = True
    with pytest.raises(HistoryError):
        replay_history(early)
    not_continuous = copy.deepcopy(records)
    for rec in not_continuous:
        del rec["session"]["continuous"]
    with pytest.raises(HistoryError):
        replay_history(not_continuous)
