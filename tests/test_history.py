"""Hand histories: the JSON-lines format, replays that check everything, the replay command."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from chinese_poker.ai import make_bot
from chinese_poker.cli import main
from chinese_poker.engine import (
    FORMAT_VERSION,
    HistoryError,
    ReplayMismatch,
    Session,
    Table,
    Timeout,
    Tournament,
    hand_record,
    play_session,
    read_history,
    replay_history,
    write_history,
)
from chinese_poker.rules import rules_for
from test_engine_scripts import drive, stack_hand


def finished_table(preset: str = "pineapple", n: int = 3, seed: int = 1, **kw: Any) -> Table:
    t = Table(rules_for(preset), n, seed=seed, **kw)
    rng = random.Random(seed)
    while not t.over:
        t.apply(t.random_action(t.to_act[0], rng))
    return t


def session_records(tournament: bool = False) -> list[dict[str, Any]]:
    rules = rules_for("pineapple-progressive", level_values="1,2,3", level_minutes=1)
    now = [0.0]
    if tournament:
        s: Session = Tournament(rules, ["A", "B", "C"], seed=5, clock=lambda: now[0])
    else:
        s = Session(rules, ["A", "B", "C"], seed=5, units={("A", "B"): 2.5})
    bots = {n: make_bot("random", seed=i) for i, n in enumerate(s.players)}
    records = []
    while not s.over and len(records) < 12:
        now[0] += 45.0
        records.extend(r.record for r in play_session(s, bots, max_hands=1))
    return records


def test_record_fields() -> None:
    t = finished_table("pineapple", 2, seed=2, fantasyland={0: 14})
    rec = hand_record(t)
    assert rec["format"] == "chinese-poker-hand" and rec["format_version"] == FORMAT_VERSION
    assert rec["seed"] == t.seed and len(rec["deck"]) == 52
    assert rec["fantasyland"] == {"P1": 14} and rec["session"] is None
    assert rec["totals"] == t.totals and len(rec["actions"]) == len(t.log)
    assert set(rec["boards"]) == {"P1", "P2"} and len(rec["discards"]["P1"]) == 1
    json.dumps(rec)
    unfinished = Table(rules_for("ofc"), 2, seed=1)
    with pytest.raises(HistoryError, match="finished"):
        hand_record(unfinished)


def test_tables_write_read_replay(tmp_path: Path) -> None:
    tables = [
        finished_table(p, n, seed)
        for p, n, seed in [("ofc", 4, 1), ("classic", 4, 2), ("criss-cross", 2, 3), ("turbo", 3, 4)]
    ]
    stacked = Table(rules_for("ofc"), 2, deck=list(range(51, -1, -1)))
    stacked.apply(Timeout(1))
    rng = random.Random(0)
    while not stacked.over:
        stacked.apply(stacked.random_action(stacked.to_act[0], rng))
    tables.append(stacked)
    path = tmp_path / "hands.jsonl"
    write_history(path, tables[:2])
    write_history(path, tables[2:], append=True)
    records = read_history(path)
    assert len(records) == 5 and records[-1]["seed"] is None
    assert any(a.get("auto") for a in records[-1]["actions"])
    replayed = replay_history(records)
    assert [r.totals for r in replayed] == [t.totals for t in tables]
    assert replayed[2].boards["P1/2"] == str(tables[2].board(0, 1))


@pytest.mark.parametrize("tournament", [False, True])
def test_sessions_replay_with_ledger(tmp_path: Path, tournament: bool) -> None:
    records = session_records(tournament)
    path = tmp_path / "session.jsonl"
    write_history(path, records)
    replayed = replay_history(read_history(path))
    assert len(replayed) == len(records)
    assert [r.session_hand for r in replayed] == list(range(1, len(records) + 1))
    assert replayed[-1].ledger == records[-1]["session"]["ledger"]
    if tournament:
        assert "stacks" in replayed[-1].ledger  # type: ignore[operator]
        assert records[-1]["session"]["level"] >= 1


def test_scripted_session_with_fantasyland_replays(tmp_path: Path) -> None:
    s = Session(rules_for("pineapple"), ["S1", "S2", "S3"], seed=7)
    deck, queues = stack_hand(s.rules, 3, 0, {2: "Kd Kc 2h | 7s 7h 7d 3c 4c | As Ah Ad Qs Qh"})
    drive(s.start_hand(deck=deck), queues)
    records = [s.finish_hand().record]
    bots = {n: make_bot("rules", seed=i) for i, n in enumerate(s.players)}
    records += [r.record for r in play_session(s, bots)]
    assert records[1]["fantasyland"] == {"S3": 14}
    assert records[0]["seed"] is None and records[1]["seed"] is not None
    assert len(replay_history(records)) == len(records)


def _tampered(records: list[dict[str, Any]], edit: Any) -> list[dict[str, Any]]:
    out = copy.deepcopy(records)
    edit(out)
    return out


def test_replay_detects_tampering() -> None:
    t = finished_table("pineapple", 2, seed=9)
    base = [hand_record(t)]
    json_base = json.loads(json.dumps(base))

    def totals(r: list[dict[str, Any]]) -> None:
        r[0]["totals"]["P1"] += 1

    def board(r: list[dict[str, Any]]) -> None:
        r[0]["boards"]["P1"] = r[0]["boards"]["P2"]

    def deck(r: list[dict[str, Any]]) -> None:
        r[0]["deck"][0], r[0]["deck"][1] = r[0]["deck"][1], r[0]["deck"][0]

    def action(r: list[dict[str, Any]]) -> None:
        r[0]["actions"][0]["top"] = ["As", "Ks", "Qs"]

    def drop(r: list[dict[str, Any]]) -> None:
        r[0]["actions"].pop()

    def button(r: list[dict[str, Any]]) -> None:
        r[0]["button"] = 1

    cases = [
        (totals, "totals.P1 differs"),
        (board, "boards.P1 differs"),
        (deck, "does not produce the recorded deck"),
        (action, "illegal on replay"),
        (drop, "end before the showdown"),
        (button, "illegal on replay"),  # the table is rebuilt with the recorded button
    ]
    for edit, message in cases:
        with pytest.raises(ReplayMismatch, match=message):
            replay_history(_tampered(json_base, edit))
    assert replay_history(json_base)[0].totals == t.totals


def test_the_foul_reasons_data_is_checked_and_older_histories_without_it_replay() -> None:
    # A fouled board, so that the settlement carries the reason's data.
    for seed in range(40):
        t = finished_table("pineapple", 2, seed=seed)
        record = json.loads(json.dumps([hand_record(t)]))
        fouled = [p for p in record[0]["settlement"]["players"] if p["foul"]]
        if fouled:
            break
    assert fouled, "no foul in 40 random-bot hands"
    name = fouled[0]["name"]

    def edited(r: list[dict[str, Any]]) -> None:
        p = next(p for p in r[0]["settlement"]["players"] if p["name"] == name)
        p["foul"]["below"] = "top" if p["foul"]["below"] != "top" else "bottom"

    def older(r: list[dict[str, Any]]) -> None:  # written before the field existed
        for p in r[0]["settlement"]["players"]:
            del p["foul"]

    def older_but_forged(r: list[dict[str, Any]]) -> None:
        older(r)
        r[0]["settlement"]["players"][0]["foul_reason"] = "top beats nothing"

    with pytest.raises(ReplayMismatch, match=r"settlement\.players\[\d\]\.foul\.below differs"):
        replay_history(_tampered(record, edited))
    assert replay_history(_tampered(record, older))[0].totals == t.totals
    with pytest.raises(ReplayMismatch, match=r"foul_reason differs"):
        replay_history(_tampered(record, older_but_forged))


def test_replay_detects_session_tampering() -> None:
    records = json.loads(json.dumps(session_records()))

    def ledger(r: list[dict[str, Any]]) -> None:
        r[-1]["session"]["ledger"]["points"]["A"] += 3

    with pytest.raises(ReplayMismatch, match=r"session\.ledger\.points\.A"):
        replay_history(_tampered(records, ledger))
    with pytest.raises(HistoryError, match="earlier hands"):
        replay_history(records[1:])

    def swap(r: list[dict[str, Any]]) -> None:
        r[1], r[2] = r[2], r[1]

    with pytest.raises(HistoryError, match="follows hand"):
        replay_history(_tampered(records, swap))


def test_bad_files(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    good = json.dumps(hand_record(finished_table("ofc", 2, seed=1)))
    cases = [
        ("", "no hands"),
        (good + "\n{oops\n", r"bad\.jsonl:2: not valid JSON"),
        ('{"format": "other"}\n', "not a chinese-poker hand record"),
        (good.replace('"format_version": 1', '"format_version": 99') + "\n", "version 99"),
        ('{"format": "chinese-poker-hand", "format_version": 1}\n', "lacks rules"),
        ("[1, 2]\n", "must be a JSON object"),
    ]
    for text, message in cases:
        path.write_text(text, encoding="utf-8")
        with pytest.raises(HistoryError, match=message):
            read_history(path)


def test_replay_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.jsonl"
    write_history(path, session_records(tournament=True))
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "hands replayed" in out and "stacks:" in out
    assert main(["replay", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] and data["hands"][0]["session_hand"] == 1
    records = read_history(path)
    records[0]["totals"] = {"A": 100}
    write_history(path, records)
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "hand 1: totals" in err[0]
    assert main(["replay", str(tmp_path / "missing.jsonl")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"timed_out_player_in_remaining_hands": "sit_out"},
        {"timeout_ends_session": False, "button_moves_before_fl_hand": True},
        {"fl_repeat_limit_scope": "per_session", "insufficient_chips_rule": "seat_order"},
    ],
)
def test_every_preset_session_replays(options: dict[str, Any]) -> None:
    from chinese_poker.rules import preset_names

    rng = random.Random(str(options))
    records: list[dict[str, Any]] = []
    for preset in preset_names():
        rules = rules_for(preset, **options)
        for tournament in (False, True):
            n = rng.choice(list(rules.player_counts))
            s = Session(
                rules,
                n,
                seed=rng.randrange(10**9),
                tournament=tournament,
                level_hands=1 if tournament else None,
                button=rng.randrange(n),
            )
            while not s.over and s.hands_played < 12:
                t = s.start_hand()
                while not t.over:
                    seat = rng.choice(t.to_act)
                    if rng.random() < 0.01 and t.can(Timeout(seat)):
                        t.apply(Timeout(seat))
                    else:
                        t.apply(t.random_action(seat, rng))
                records.append(s.finish_hand().record)
            assert sum(s.ledger.points.values()) == 0
    replayed = replay_history(json.loads(json.dumps(records)))
    assert [r.totals for r in replayed] == [r["totals"] for r in records]


# --------------------------------------------------------------------------- the one replay


def test_replay_hand_rebuilds_a_session_hand_by_hand() -> None:
    """What the server does after a restart: deal each stored hand from its deck and
    apply its stored actions; the last hand may still be in progress."""
    from chinese_poker.cards import parse_card
    from chinese_poker.engine.history import HandToReplay, ReplayClock, replay_hand

    records = session_records(tournament=True)
    rules = rules_for("pineapple-progressive", level_values="1,2,3", level_minutes=1)
    clock = ReplayClock(lambda: 0.0)
    with clock.pinned(0.0):
        session = Tournament(rules, ["A", "B", "C"], seed=5, clock=clock)
    for i, rec in enumerate(records):
        last = i == len(records) - 1
        actions = [a for a in rec["actions"] if not a.get("auto")]
        if last:
            actions = actions[: len(actions) // 2]
        deck = [parse_card(c) for c in rec["deck"]]
        table, result = replay_hand(
            session, HandToReplay(actions, deck, rec["session"]["elapsed"], f"hand {i + 1}"), clock
        )
        if last:
            assert result is None and not table.over and session.table is table
        else:
            assert result is not None and result.record["session"] == rec["session"]
            assert result.totals == rec["totals"]
    # the clock is live again after each pinned settlement
    assert clock() == 0.0 and clock.fixed is None


def test_replay_hand_names_the_hand_and_the_action() -> None:
    from chinese_poker.engine.history import HandToReplay, replay_hand

    rec = session_records()[0]
    session = Session(
        rules_for("pineapple-progressive", level_values="1,2,3", level_minutes=1),
        ["A", "B", "C"],
        seed=5,
        units={("A", "B"): 2.5},
    )
    actions = copy.deepcopy(rec["actions"])
    act = next(a for a in actions if a["type"] == "place" and not a.get("auto"))
    act["top"], act["bottom"] = act["bottom"], act["top"]
    with pytest.raises(ReplayMismatch, match=r"^table t-1 hand 1, action \d+ .*illegal on replay"):
        replay_hand(session, HandToReplay(actions, None, None, "table t-1 hand 1"))
    with pytest.raises(HistoryError, match="'actions' must be a list"):
        replay_hand(Session(rules_for("ofc"), 2, seed=1), HandToReplay("x", None))  # type: ignore[arg-type]


def test_host_fields_are_ignored_and_errors_carry_the_record_index() -> None:
    records = [dict(r, fairness={"anything": 1}) for r in session_records()]
    assert len(replay_history(records)) == len(records)
    records[2] = copy.deepcopy(records[2])
    records[2]["totals"] = {k: v + 1 for k, v in records[2]["totals"].items()}
    with pytest.raises(ReplayMismatch) as err:
        replay_history(records)
    assert err.value.index == 3 and str(err.value).startswith("hand 3: totals.")


def test_partial_sessions_replay_each_hand_on_its_own() -> None:
    records = session_records()
    with pytest.raises(HistoryError, match="replays from its hand 1"):
        replay_history(records[1:])
    replayed = replay_history(records[1:], partial_sessions=True)
    assert [h.totals for h in replayed] == [r["totals"] for r in records[1:]]
    forged = copy.deepcopy(records[-1])
    forged["settlement"]["money"]["A"] += 1.0
    with pytest.raises(ReplayMismatch, match=r"hand 1: settlement\.money\.A differs"):
        replay_history([forged], partial_sessions=True)
