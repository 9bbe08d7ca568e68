"""Simulations: determinism, workers, duplicate mode, histories, the summary math, the CLI."""

from __future__ import annotations

import doctest
import json
import math
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from chinese_poker import ai
from chinese_poker.ai import protocol
from chinese_poker.ai import simulate as simulate_module
from chinese_poker.ai.simulate import (
    HandStat,
    Job,
    SeatHand,
    SessionRun,
    Tally,
    UnitRun,
    derive_seed,
    interval,
    make_job,
    run_units,
    simulate,
    split_bots,
)
from chinese_poker.ai.simulate.play import MAX_WARNINGS
from chinese_poker.cli import main
from chinese_poker.engine import Place, read_history, replay_history
from chinese_poker.engine.views import View


@pytest.mark.parametrize("module", [simulate_module, protocol], ids=lambda m: m.__name__)
def test_doctests(module: object) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)  # type: ignore[arg-type]
    assert result.failed == 0 and result.attempted > 0


def _summary(job: Job, **kwargs: Any) -> dict[str, Any]:
    return simulate(job, **kwargs).to_dict(performance=False)


# --------------------------------------------------------------------------- determinism


def test_same_seed_same_summary() -> None:
    job = make_job("pineapple", "random,rules", hands=24, seed=7)
    first = _summary(job)
    assert first == _summary(job)
    assert first != _summary(make_job("pineapple", "random,rules", hands=24, seed=8))
    assert first["hands"] == 24
    points = [line["points_per_hand"]["mean"] for line in first["seat_results"]]
    assert math.isclose(sum(points), 0.0, abs_tol=1e-9)


def test_workers_give_identical_results() -> None:
    job = make_job("ofc", "random,rules,random", hands=30, seed=3)
    one = _summary(job, workers=1)
    two = _summary(job, workers=2)
    assert one == two
    assert one["hands"] == 30


def test_units_are_independent_of_chunking() -> None:
    job = make_job("turbo", "random", players=2, hands=10, seed=5)
    whole = run_units(job, 0, 4)
    parts = run_units(job, 0, 1) + run_units(job, 1, 4)
    assert [u.sessions[0].hands for u in whole] == [u.sessions[0].hands for u in parts]
    assert [u.sessions[0].seed for u in whole] == [derive_seed(5, "session", u) for u in range(4)]


def test_hand_count_is_exact() -> None:
    for hands in (1, 5, 13):
        result = simulate(make_job("pineapple", "random", hands=hands, seed=11))
        assert result.hands == hands
        assert all(line.hands == hands for line in result.seats)


# --------------------------------------------------------------------------- duplicate


def test_duplicate_rotates_seats_on_the_same_cards() -> None:
    job = make_job("pineapple", "random,rules", hands=8, seed=2, duplicate=True)
    job = replace(job, history=True)
    (unit,) = run_units(job, 0, 1)
    a, b = unit.sessions
    assert a.seed == b.seed and (a.rotation, b.rotation) == (0, 1)
    assert a.records[0]["players"] == ["random#1", "rules#2"]
    assert b.records[0]["players"] == ["rules#2", "random#1"]
    assert a.records[0]["deck"] == b.records[0]["deck"]
    # Every bot sits in every seat.
    assert [s.bot for s in a.hands[0].seats] == [0, 1]
    assert [s.bot for s in b.hands[0].seats] == [1, 0]


def test_duplicate_summary_is_per_group_and_balanced() -> None:
    job = make_job("pineapple", "random,rules", hands=9, seed=4, duplicate=True)
    result = simulate(job)
    data = result.to_dict(performance=False)
    assert data["interval_over"] == "groups"
    assert result.groups is not None
    assert [line.label for line in result.bots] == ["random", "rules"]
    assert result.bots[0].points.n == result.groups
    # The last group is cut to the same number of hands in both rotations.
    assert 9 <= result.hands <= 10
    assert result.bots[0].hands == result.bots[1].hands == result.hands
    assert all(line.label == "(rotating)" for line in result.seats)
    assert _summary(job, workers=2) == data


# --------------------------------------------------------------------------- histories


def test_history_replays_through_the_engine(tmp_path: Path) -> None:
    path = tmp_path / "hands.jsonl"
    job = make_job("ofc", "random,rules,random", hands=14, seed=9)
    result = simulate(job, history=path)
    records = read_history(path)
    assert len(records) == result.hands == 14
    replayed = replay_history(records)
    assert len(replayed) == 14
    totals: dict[str, int] = {}
    for hand in replayed:
        for name, points in hand.totals.items():
            totals[name] = totals.get(name, 0) + points
    assert totals["rules#2"] == round(result.seats[1].points.mean * 14)


def test_duplicate_history_replays(tmp_path: Path) -> None:
    path = tmp_path / "dup.jsonl"
    result = simulate(
        make_job("pineapple", "random,rules", hands=6, seed=1, duplicate=True), history=path
    )
    assert len(replay_history(read_history(path))) == result.hands


def test_bad_history_path(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot write the history file"):
        simulate(make_job("ofc", "random", hands=1, seed=1), history=tmp_path / "no" / "h.jsonl")


# --------------------------------------------------------------------------- summary math


def test_interval_formula() -> None:
    values = [3, -1, 4, -1, 5, -9]
    got = interval(values)
    mean = sum(values) / 6
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / 5)
    assert got.n == 6
    assert math.isclose(got.mean, mean)
    assert got.sd is not None and math.isclose(got.sd, sd)
    assert got.ci95 is not None and math.isclose(got.ci95, 1.96 * sd / math.sqrt(6))
    single = interval([4])
    assert (single.mean, single.sd, single.ci95) == (4.0, None, None)
    assert interval([]).n == 0


def _hand(number: int, *seats: tuple[int, int]) -> HandStat:
    """A hand with (bot instance, points) per seat; seat 0 fouls, seat 1 earns FL."""
    return HandStat(
        number,
        tuple(
            SeatHand(bot, True, pts, 1, int(i == 0), False, i == 1, False, 0)
            for i, (bot, pts) in enumerate(seats)
        ),
    )


def test_summary_of_a_controlled_case() -> None:
    job = Job(
        rules=make_job("ofc", "random", hands=1, seed=0).rules,
        bots=("random", "rules"),
        hands=3,
        seed=0,
    )
    tally = Tally(job, None, None)
    tally.feed(
        UnitRun(0, [SessionRun(0, 0, 1, [_hand(1, (0, -6), (1, 6)), _hand(2, (0, 2), (1, -2))])])
    )
    # Only the first hand of the second session is needed: the session is cut there.
    assert tally.feed(
        UnitRun(1, [SessionRun(1, 0, 2, [_hand(1, (0, 1), (1, -1)), _hand(2, (0, 9), (1, -9))])])
    )
    result = tally.result(1.0, 1, "local")
    assert result.hands == 3 and result.sessions == 2
    seat0, seat1 = result.seats
    assert seat0.points == interval([-6, 2, 1])
    assert seat1.points == interval([6, -2, -1])
    assert seat0.foul_rate == 1.0 and seat1.foul_rate == 0.0
    assert seat1.fl_earned_rate == 1.0
    assert result.bots[0].points == interval([-6, 2, 1])
    data = result.to_dict()
    assert data["performance"]["hands_per_second"] == 3.0
    assert data["seat_results"][0]["points_per_hand"]["low"] == pytest.approx(
        -1 - 1.96 * math.sqrt(19) / math.sqrt(3), abs=1e-8
    )


def test_duplicate_summary_math_over_groups() -> None:
    job = Job(
        rules=make_job("ofc", "random", hands=1, seed=0).rules,
        bots=("random", "rules"),
        hands=100,
        seed=0,
        duplicate=True,
    )
    tally = Tally(job, None, None)
    # Group 0: rotation 0 has two hands, rotation 1 one hand (bots swap seats).
    tally.feed(
        UnitRun(
            0,
            [
                SessionRun(0, 0, 1, [_hand(1, (0, -6), (1, 6)), _hand(2, (0, 3), (1, -3))]),
                SessionRun(0, 1, 1, [_hand(1, (1, 4), (0, -4))]),
            ],
        )
    )
    tally.feed(
        UnitRun(
            1,
            [
                SessionRun(1, 0, 2, [_hand(1, (0, 1), (1, -1))]),
                SessionRun(1, 1, 2, [_hand(1, (1, 1), (0, -1))]),
            ],
        )
    )
    result = tally.result(1.0, 1, "local")
    # random: group 0 = (-6 + 3 - 4) / 3, group 1 = (1 - 1) / 2.
    assert result.bots[0].points == interval([Fraction(-7, 3), 0])
    assert result.bots[1].points == interval([Fraction(7, 3), 0])
    assert result.groups == 2 and result.sessions == 4 and result.hands == 5


def test_same_bot_in_several_seats_is_averaged_per_hand() -> None:
    job = Job(
        rules=make_job("ofc", "random", hands=1, seed=0).rules,
        bots=("random", "random", "rules"),
        hands=1,
        seed=0,
    )
    tally = Tally(job, None, None)
    tally.feed(UnitRun(0, [SessionRun(0, 0, 1, [_hand(1, (0, 3), (1, -1), (2, -2))])]))
    result = tally.result(1.0, 1, "local")
    assert result.bots[0].points.mean == 1.0 and result.bots[0].seats == 2
    assert result.bots[0].hands == 2


# --------------------------------------------------------------------------- bots


def test_split_bots() -> None:
    assert split_bots("random,rules") == ["random", "rules"]
    assert split_bots("cmd:python b.py --a=1,2,rules,cmd:x") == [
        "cmd:python b.py --a=1,2",
        "rules",
        "cmd:x",
    ]


class _Cheater:
    """A bot that always answers with an illegal action."""

    name = "cheater"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def act(self, view: View) -> Place:
        assert view.seat is not None
        return Place(view.seat, version=view.version)


def test_bots_are_looked_up_when_the_job_is_made(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ValueError, match="unknown bot 'cheater'"):
        make_job("pineapple", "cheater,rules")
    monkeypatch.setitem(ai.REGISTRY, "cheater", ai.BotKind("cheater", "Cheater", _Cheater))
    result = simulate(make_job("pineapple", "cheater,rules", hands=3, seed=1))
    cheater = result.bots[0]
    assert cheater.errors == 3 and cheater.timeouts == 3
    assert "illegal action" in capsys.readouterr().err


def test_illegal_action_warnings_are_counted_per_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """At most MAX_WARNINGS lines a run, and the next run warns again (the count was
    once global to the process, so one bad bot silenced every later run)."""
    monkeypatch.setitem(ai.REGISTRY, "cheater", ai.BotKind("cheater", "Cheater", _Cheater))
    job = make_job("pineapple", "cheater,rules", hands=MAX_WARNINGS + 2, seed=1)
    for _ in range(2):
        assert simulate(job).bots[0].errors == MAX_WARNINGS + 2
        assert capsys.readouterr().err.count("illegal action") == MAX_WARNINGS


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rules": "nope"}, "unknown preset"),
        ({"bots": "random,nobody"}, "unknown bot 'nobody'"),
        ({"bots": "random,rules,random", "players": 2}, "3 bots for 2 players"),
        ({"players": 5}, "not 5"),
        ({"bots": "cmd:/no/such/program"}, "cannot start bot"),
        ({"bots": "cmd:no-such-program-anywhere-1"}, "command not found"),
        ({"hands": 0}, "hands"),
        ({"seed": -1}, "seed"),
    ],
)
def test_make_job_errors(kwargs: dict[str, Any], message: str) -> None:
    args: dict[str, Any] = {"rules": "pineapple", "bots": "random"} | kwargs
    with pytest.raises(ValueError, match=message):
        make_job(args.pop("rules"), args.pop("bots"), **args)


def test_ray_missing_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ValueError, match=r'pip install "\.\[ray\]"'):
        simulate(make_job("ofc", "random", hands=1, seed=1), engine="ray")


# --------------------------------------------------------------------------- the command


def test_cli_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    history = tmp_path / "h.jsonl"
    argv = [
        "simulate",
        "--rules",
        "pineapple",
        "--bots",
        "random,rules",
        "--hands",
        "6",
        "--seed",
        "3",
        "--json",
        "--quiet",
        "--history",
        str(history),
    ]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["format"] == "chinese-poker-simulation"
    assert data["hands"] == 6 and data["seed"] == 3
    assert [b["bot"] for b in data["bot_results"]] == ["random", "rules"]
    assert {"foul_rate", "fantasyland_played_rate", "fantasyland_earned_rate"} <= set(
        data["bot_results"][0]
    )
    assert data["performance"]["hands_per_second"] > 0
    assert len(read_history(history)) == 6


def test_cli_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--bots", "rules", "--hands", "3", "--seed", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "points/hand (95%)" in out and "hands/s" in out


@pytest.mark.parametrize(
    "args",
    [
        ["--rules", "nope"],
        ["--bots", "random,nobody"],
        ["--bots", "random,rules,random", "--players", "2"],
        ["--players", "9"],
        ["--bots", "cmd:/no/such/program"],
        ["--history", "/no/such/dir/h.jsonl"],
        ["--engine", "spark"],
        ["--hands", "0"],
        ["--workers", "0"],
    ],
)
def test_cli_bad_input_is_one_line(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--quiet", "--hands", "2", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("chinese-poker simulate: error: ")
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
