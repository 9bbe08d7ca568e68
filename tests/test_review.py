"""The review of played hands: library, marks, and ``chinese-poker review``."""

from __future__ import annotations

import json
import random
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from chinese_poker.ai.hints import hint
from chinese_poker.ai.review import (
    BLUNDER,
    INACCURACY,
    MISTAKE,
    REVIEW_LEVEL,
    ReviewError,
    mark_for,
    review_hand,
    review_history,
    summarise,
)
from chinese_poker.cards import Board
from chinese_poker.cli import main
from chinese_poker.engine import Table, hand_record, read_history
from chinese_poker.engine.actions import Place
from chinese_poker.rules import rules_for

BUNDLED = Path(__file__).parent.parent / "examples" / "histories" / "pineapple-session.jsonl"


def _classic_hand(fouled: bool) -> tuple[dict[str, Any], Table]:
    """Ann sets a board (fouled: a pair on top over a high-card middle); Bob plays the
    hint engine's best setting."""
    table = Table(rules_for("classic"), ["Ann", "Bob"], seed=11)
    while not table.over:
        seat = table.to_act[0]
        view = table.view(seat)
        dec = view.decisions[0]
        if dec.kind == "set" and seat == 0 and fouled:
            cards = sorted(dec.cards, key=lambda c: c >> 2)
            ranks = [c >> 2 for c in cards]
            pair = next(i for i in range(12, 0, -1) if ranks[i] == ranks[i - 1])
            top = (cards[pair], cards[pair - 1], cards[0])
            rest = [c for c in cards if c not in top]
            table.apply(Place(seat, top, tuple(rest[:5]), tuple(rest[5:]), (), 0, view.version))
        else:
            table.apply(hint(view, level=1)[0].action)
    return hand_record(table), table


def test_marks_follow_the_documented_thresholds() -> None:
    assert INACCURACY < MISTAKE < BLUNDER
    assert mark_for(INACCURACY - 0.01) == ""
    assert mark_for(INACCURACY) == "inaccuracy"
    assert mark_for(MISTAKE) == "mistake"
    assert mark_for(BLUNDER) == "blunder"
    # A gap within the sampling noise is not marked, however large.
    assert mark_for(BLUNDER + 1, stderr=(BLUNDER + 1) / 2) == ""


def test_playing_the_best_option_loses_nothing() -> None:
    record, _ = _classic_hand(fouled=False)
    review = review_hand(record)
    bob = [d for d in review.decisions if d.player == "Bob"]
    assert bob and all(d.rank == 1 and d.loss == 0 and d.mark == "" for d in bob)


def test_a_fouled_set_is_a_blunder_against_the_solvers_best() -> None:
    record, table = _classic_hand(fouled=True)
    assert table.settlement is not None
    ann = next(d for d in review_hand(record).decisions if d.player == "Ann" and d.kind == "set")
    # The fouled board is none of the solver's listed settings: the loss is a lower bound.
    assert not ann.exact and ann.rank is None
    assert ann.mark == "blunder" and ann.loss > 0 and "fouls" in ann.explanation
    # The scorer's own account of Ann's board names the foul (she then surrendered:
    # the hint engine's best answer to a fouled board, reviewed as such).
    ann_board = table.settlement.to_dict()["players"][0]
    assert ann_board["name"] == "Ann" and ann_board["foul_reason"]
    surrender = next(d for d in review_hand(record).decisions
                     if d.kind == "surrender" and d.player == "Ann")  # fmt: skip
    assert surrender.rank == 1


def test_a_valid_setting_off_the_list_is_valued_by_the_setting_solver() -> None:
    from chinese_poker.ai.setting import solve_setting

    table = Table(rules_for("classic"), ["Ann", "Bob"], seed=11)
    while not table.over:
        seat = table.to_act[0]
        view = table.view(seat)
        options = hint(view, level=1)
        if view.decisions[0].kind == "set" and seat == 0:
            # The worst valid setting the solver knows: surely not among the hints.
            sol = solve_setting(view.decisions[0].cards, table.rules, opponents=1, top_n=80_000)
            worst = sol.alternatives[-1][0]
            table.apply(Place(0, worst.top, worst.middle, worst.bottom, (), 0, view.version))
            worst_value = sol.alternatives[-1][1]
        else:
            table.apply(options[0].action)
    ann = next(d for d in review_hand(hand_record(table)).decisions if d.player == "Ann")
    assert ann.exact and ann.rank is None
    assert ann.played_value == pytest.approx(worst_value)
    assert ann.loss > 0 and ann.loss == pytest.approx(ann.best_value - worst_value)
    assert ann.mark == mark_for(ann.loss)


@pytest.mark.slow
def test_last_street_values_are_exact_and_agree_with_the_scorer() -> None:
    """On the last open-face street nothing is left to deal: each option's value is the
    hand's score (no Fantasyland in play here), which the scorer computes on its own."""
    rules = rules_for("ofc", fantasyland_enabled=False)
    table = Table(rules, ["Ann", "Bob"], seed=5)
    rng = random.Random(3)
    while not table.over:
        seat = table.to_act[0]
        table.apply(table.random_action(seat, rng))
    record = hand_record(table)
    review = review_hand(record)
    last = [d for d in review.decisions if d.street == max(x.street for x in review.decisions)]
    assert last and all(d.exact and d.stderr == 0 for d in last)
    final = {d.player: d for d in last}
    # The last decision of the hand was played as recorded: its value is the real score.
    mover = table.players[table.log[-1].action.seat]
    assert final[mover].played_value == pytest.approx(table.totals[mover])


@pytest.mark.slow
def test_review_of_the_bundled_history_is_repeatable() -> None:
    records = read_history(BUNDLED)
    first = review_history(records)
    again = review_history(records)
    assert [h.to_dict() for h in first] == [h.to_dict() for h in again]
    ann = summarise(first, "Ann")
    decisions = [d for h in first for d in h.decisions if d.player == "Ann"]
    assert ann.decisions == len(decisions) == 10  # five streets in each of two hands
    assert ann.accuracy == pytest.approx(100 * sum(not d.mark for d in decisions) / 10)
    assert sum(loss for _, loss, _ in ann.per_street) * ann.hands == pytest.approx(ann.loss)
    assert [label for label, _, _ in ann.per_street] == [f"street {i}" for i in range(1, 6)]


@pytest.mark.slow
def test_only_the_named_players_are_reviewed() -> None:
    hands = review_history(read_history(BUNDLED), players={"Bob"})
    assert {d.player for h in hands for d in h.decisions} == {"Bob"}


def test_a_tampered_record_is_refused_with_its_hand_named() -> None:
    record = read_history(BUNDLED)[0]
    record["actions"][0]["top"] = ["As", "As", "As"]
    with pytest.raises(ReviewError, match="hand 1"):
        review_hand(record)


def test_review_level_is_one_of_the_hint_levels() -> None:
    from chinese_poker.ai.mc import LEVELS

    assert REVIEW_LEVEL in LEVELS


# --------------------------------------------------------------------------- the command


@pytest.mark.slow
def test_cli_review_prints_marks_accuracy_and_the_plot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    svg = tmp_path / "loss.svg"
    assert main(["review", str(BUNDLED), "--seat", "Ann", "--svg", str(svg)]) == 0
    out = capsys.readouterr().out
    assert "Ann: accuracy" in out and "Bob: accuracy" not in out
    assert "expected points lost per hand, by street" in out
    assert "street 1" in out and "█" in out
    assert "blunder" in out
    root = ET.fromstring(svg.read_text())
    assert root.tag.endswith("svg")
    bars = [e for e in root.iter() if e.tag.endswith("rect") and e.find("{*}title") is not None]
    assert len(bars) == 5  # one per street


@pytest.mark.slow
def test_cli_review_json_matches_the_library(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", str(BUNDLED), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    hands = review_history(read_history(BUNDLED))
    assert data["hands"] == [h.to_dict() for h in hands]
    assert {p["player"] for p in data["players"]} == {"Ann", "Bob"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seat", "Zed"], "no player named 'Zed'"),
        (["--svg", "/no/such/folder/x.svg"], "cannot write /no/such/folder/x.svg"),
    ],
)
def test_cli_review_bad_arguments(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", str(BUNDLED), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_cli_review_refuses_a_history_that_does_not_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = BUNDLED.read_text().splitlines()
    rec = json.loads(lines[1])
    rec["totals"] = {name: 0 for name in rec["totals"]}
    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines[0] + "\n" + json.dumps(rec) + "\n")
    assert main(["review", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "hand 2" in err and "totals" in err and err.count("\n") == 1
    missing = tmp_path / "missing.jsonl"
    assert main(["review", str(missing)]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_a_natural_claimed_whatever_the_setting_loses_nothing() -> None:
    """Six pairs from the dealt cards (the classic default, claimed automatically): any
    valid setting of them is paid the natural, so none is a mistake (before, every
    setting but the best was a 'blunder' of about 3 points)."""
    from chinese_poker.cards import parse_cards
    from chinese_poker.scoring import natural_of

    rules = rules_for("classic")
    ann = parse_cards("As Ad Ks Kd Qs Qd Js Jd Ts Td 9s 9d 2c")
    rest = [c for c in range(52) if c not in ann]
    deck = [c for pair in zip(rest, ann, strict=False) for c in pair] + rest[13:]
    table = Table(rules, ["Ann", "Bob"], deck=deck)  # dealt one by one, Bob first
    view = table.view(0)
    dec = next(d for d in view.decisions if d.kind == "set")
    assert sorted(dec.cards) == sorted(ann)
    # A valid, plainly weaker setting that still holds the six pairs.
    played = Place(0, parse_cards("9s 9d 2c"), parse_cards("Ts Td Js Jd Qs"),
                   parse_cards("Qd Ks Kd As Ad"), (), dec.hand, view.version)  # fmt: skip
    board = Board(played.top, played.middle, played.bottom)
    assert natural_of(rules, board) is not None
    table.apply(played)
    while not table.over:
        seat = table.to_act[0]
        table.apply(hint(table.view(seat), level=1)[0].action)
    mine = next(d for d in review_hand(hand_record(table)).decisions
                if d.player == "Ann" and d.kind == "set")  # fmt: skip
    assert mine.loss == 0 and mine.mark == ""
