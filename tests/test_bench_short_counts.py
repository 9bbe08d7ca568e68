"""Every bench in bench/ that measures a count fails loudly when it measured less than it
says: one ``<bench>: FAILED: ...`` line naming what fell short, and a non-zero exit. Each
shortfall is forced by a measuring function that comes back short; the same bench at a
small size passes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from _helpers import bench_module


def failures(err: str, bench: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith(f"{bench}: FAILED: ")]


def short_after(
    monkeypatch: pytest.MonkeyPatch, capsys: Any, bench: str, argv: list[str], name: str,
    short: Callable[[Any], Any], where: Any = None,
) -> list[str]:  # fmt: skip
    """``bench`` passes on ``argv``; with ``name`` (of the bench, or of ``where``) replaced by
    ``short(the real one)`` it exits 1: its FAILED lines."""
    module = bench_module(bench)
    assert module.main(argv) == 0
    target = module if where is None else where
    monkeypatch.setattr(target, name, short(getattr(target, name)))
    capsys.readouterr()
    assert module.main(argv) == 1
    return failures(capsys.readouterr().err, bench)


def test_engine_counts_only_hands_that_reached_their_settlement(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    found = short_after(monkeypatch, capsys, "bench_engine", ["--hands", "3"], "play",
                        lambda real: lambda *a: {**real(*a), "settled": 2})  # fmt: skip
    assert found == [
        "bench_engine: FAILED: pineapple x2: settled hands: measured 2 of 3 asked",
        "bench_engine: FAILED: ofc x4: settled hands: measured 2 of 3 asked",
    ]


def test_env_counts_a_truncated_episode_as_short(
    monkeypatch: pytest.MonkeyPatch, capsys: Any, tmp_path: Any
) -> None:
    argv = ["--hands", "4", "--repeats", "1", "--out", str(tmp_path / "env.json")]
    found = short_after(monkeypatch, capsys, "bench_env", argv, "run",
                        lambda real: lambda *a, **k: (*real(*a, **k)[:3], 3))  # fmt: skip
    assert found[0] == "bench_env: FAILED: pineapple x2 raw_env: whole hands: measured 3 of 4 asked"
    assert len(found) == 2  # the wrapped environment's too


def test_fantasyland_fails_when_a_hand_was_not_set_by_the_solver(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    argv = ["--deals", "1", "--hands", "3"]
    found = short_after(monkeypatch, capsys, "bench_fantasyland", argv, "stay_value_estimate",
                        lambda real: lambda h, s: (*real(h, s)[:3], h - 1))  # fmt: skip
    assert found == [
        "bench_fantasyland: FAILED: Fantasyland hands set by the solver: measured 2 of 3 asked"
    ]


def test_setting_fails_when_a_table_played_fewer_deals(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    def heads_up_short(real: Any) -> Any:
        return lambda rules, players, deals, *rest: real(rules, players,
                                                         deals - (players == 2), *rest)  # fmt: skip

    argv = ["--hands", "2", "--deals", "2", "--hu-deals", "3"]
    found = short_after(monkeypatch, capsys, "bench_setting", argv, "play", heads_up_short)
    assert found == [
        "bench_setting: FAILED: heads-up against heuristic: deals: measured 2 of 3 asked",
        "bench_setting: FAILED: heads-up against random valid: deals: measured 2 of 3 asked",
    ]


def test_bots_fail_without_decisions_or_with_too_few_groups(
    monkeypatch: pytest.MonkeyPatch, capsys: Any, tmp_path: Any
) -> None:
    bots = bench_module("bench_bots")
    real = bots.decision_times
    monkeypatch.setattr(bots, "decision_times", lambda *a: {**real(*a), "decisions": 0})
    monkeypatch.setattr(bots, "strength", lambda rules, pairs, seed: [
        {"a": a.label, "b": b.label, "groups": 1, "mean": 0.0, "ci95": float("nan"),
         "seconds": 0.0} for a, b, _ in pairs
    ])  # fmt: skip
    monkeypatch.setattr(bots, "render", lambda data: "")
    monkeypatch.setattr(bots, "RESULTS", tmp_path / "bots.json")
    assert bots.main(["--quick", "--no-docs", "--levels", "1"]) == 1
    found = failures(capsys.readouterr().err, "bench_bots")
    assert found[0] == "bench_bots: FAILED: level 1: street decisions: measured 0 of 8 asked"
    assert (
        "bench_bots: FAILED: rules against random: duplicate groups: measured 1 of 4 asked" in found
    )


def test_rulebot_fails_a_pairing_with_no_interval() -> None:
    rulebot = bench_module("bench_rulebot")
    row, problem = rulebot.pairing("pineapple", "rules,random", 2, 1, 11)
    assert "no interval" in row
    assert problem == "pineapple rules,random: no 95% interval (fewer than two duplicate groups)"


def test_cold_starts_that_compiled_nothing_are_not_cold(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    cold = bench_module("bench_cold")
    monkeypatch.setattr(cold, "_timed", lambda args, cache: (0.1, ""))
    monkeypatch.setattr(cold, "_bot", lambda cache: (0.1, 0.1, ""))
    monkeypatch.setattr(cold.subprocess, "run", lambda *a, **k: None)
    problems = cold.cold_starts()
    assert problems[0] == "`solve setting`: the cold run compiled nothing (not cold)"
    assert problems[-1] == "`bot --bot mc`: the cold run compiled nothing (not cold)"
    assert len(problems) == len(cold.COMMANDS) + 1
    assert "| `solve setting` | 0.1 | 0.1 | 0.1 | no |" in capsys.readouterr().out


def test_scoring_names_a_short_measurement_as_failed(capsys: Any) -> None:
    scoring = bench_module("bench_scoring")
    with pytest.raises(SystemExit) as stop:
        scoring.fail("the new worker measured 0.1 s of 0.9")
    assert stop.value.code == 2
    assert failures(capsys.readouterr().err, "bench_scoring") == [
        "bench_scoring: FAILED: the new worker measured 0.1 s of 0.9"
    ]


def test_mc_bots_fails_a_match_of_one_group(capsys: Any) -> None:
    bots = bench_module("bench_mc_bots")
    assert bots.main(["--a", "rules", "--b", "random", "--hands", "1"]) == 1
    assert failures(capsys.readouterr().err, "bench_mc_bots") == [
        "bench_mc_bots: FAILED: no 95% interval: 1 duplicate group(s), two needed"
    ]
    assert bots.main(["--a", "rules", "--b", "random", "--hands", "5"]) == 0


def test_fl_boards_fails_deals_without_a_fantasyland_set(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    fl = bench_module("bench_fl_boards")
    monkeypatch.setattr(fl, "run", lambda *a: {"fantasyland_sets": 1})
    assert fl.main(["--deals", "2", "--bot", "rules", "--opponent", "random"]) == 1
    assert failures(capsys.readouterr().err, "bench_fl_boards") == [
        "bench_fl_boards: FAILED: deals opening with seat 0's Fantasyland set: measured 1 of 2"
        " asked"
    ]


def test_value_search_fails_a_street_with_fewer_decisions_than_sessions(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    search = bench_module("bench_value_search")
    # One candidate of one decision, with 5 cards placed after it.
    samples = search.value.SearchSamples(
        decision=np.array([0]), placed=np.array([5]), features=np.zeros((1, 5), np.int64),
        mean=np.zeros(1), foul=np.zeros(1), base=np.zeros(1), rollouts=np.array([200]),
    )  # fmt: skip
    monkeypatch.setattr(search.value, "search_samples", lambda *a, **k: samples)
    assert search.main(["--sessions", "2"]) == 1
    assert failures(capsys.readouterr().err, "bench_value_search") == [
        "bench_value_search: FAILED: 5 cards placed: decisions: measured 1 of 2 asked"
    ]


def test_rating_anchors_count_every_rated_hand(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    argv = ["--family", "classic", "--deals", "1"]
    found = short_after(monkeypatch, capsys, "bench_rating_anchors", argv, "run",
                        lambda real: lambda f, d, s, rated: real(f, d, s, [0]))  # fmt: skip
    assert found == ["bench_rating_anchors: FAILED: classic: hands rated: measured 0 of 6 asked"]


def test_solver_fp_reports_the_deals_it_measured(capsys: Any) -> None:
    fp = bench_module("bench_solver_fp")
    problems: list[str | None] = []
    (row,) = fp.run("classic", 2, 2, 7, problems)
    assert problems == [None, None] and "| 2: " in row
    with pytest.raises(SystemExit):
        fp.main(["--family", "classic", "--deals", "1"])
    assert "--deals and --four must be at least 2" in capsys.readouterr().err


def test_ofc_fantasyland_fails_a_policy_short_of_its_boards(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    ofl = bench_module("bench_ofc_fantasyland")
    argv = ["--boards", "4", "--policies", "6x5", "--presets", "ofc", "--policy-only"]
    three = lambda real: lambda *a, **k: real(*a, **k)[:3]  # noqa: E731
    found = short_after(monkeypatch, capsys, "bench_ofc_fantasyland", argv, "solitaire_values",
                        three, where=ofl.rollout)  # fmt: skip
    assert found == [
        "bench_ofc_fantasyland: FAILED: ofc 6x5: boards completed: measured 3 of 4 asked"
    ]


def test_rulebot_fails_first_streets_with_a_kind_no_deal_showed() -> None:
    rulebot = bench_module("bench_rulebot")
    table, missing = rulebot.first_streets(10, 11)
    assert "| four-card flush | 0 | no deal |" in table
    assert missing == ["first streets: no deal with four-card flush in 10"]
    assert rulebot.first_streets(80, 11)[1] == []


def test_the_budget_check_plays_a_level_that_exists_with_budgets_that_bind() -> None:
    from chinese_poker.ai.mc import MonteCarloBot

    cold = bench_module("bench_cold")
    bot = cold.budget_bound(MonteCarloBot(seed=1, level=3, time_budget=0.1))
    assert bot.params.rollouts == bot.throwing_params.rollouts == cold.BOUND_ROLLOUTS
    offered = MonteCarloBot(seed=1, level=3).throwing_params.rollouts
    assert offered * 3 < cold.BOUND_ROLLOUTS


def test_cold_first_run_names_what_it_could_not_measure(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    cold = bench_module("bench_cold")

    def not_cold(install: bool) -> None:
        raise cold.Shortfall("the cold open-face run compiled nothing (not cold)")

    monkeypatch.setattr(cold, "first_run", not_cold)
    monkeypatch.setattr(cold.sys, "argv", ["bench_cold.py", "--first-run", "--no-install"])
    with pytest.raises(SystemExit) as stop:
        cold.main()
    assert stop.value.code == 1
    assert failures(capsys.readouterr().err, "bench_cold") == [
        "bench_cold: FAILED: the cold open-face run compiled nothing (not cold)"
    ]
