"""The benchmarks in bench/ fail loudly when they measured less than they were asked:
one ``<bench>: FAILED: ...`` line per shortfall on stderr and exit 1 (``bench/shortfall.py``).
Each shortfall is forced here by a measuring function that comes back short."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _helpers import bench_module
from chinese_poker.ai.simulate import Job, SimulationResult, make_job, simulate


def failures(err: str, bench: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith(f"{bench}: FAILED: ")]


def short_by(hands: int) -> Callable[..., SimulationResult]:
    """``simulate`` as it would be if it stopped ``hands`` hands before the job's count."""

    def simulate_short(job: Job, **options: Any) -> SimulationResult:
        return simulate(dataclasses.replace(job, hands=job.hands - hands), **options)

    return simulate_short


def test_verdict_prints_each_problem_and_gives_the_exit_status(capsys: Any) -> None:
    check = bench_module("shortfall")
    assert check.short("hands", 10, 10) is None
    assert check.short("hands", 9, 1000) == "hands: measured 9 of 1,000 asked"
    assert check.verdict("bench_x", [None, None]) == 0
    assert capsys.readouterr().err == ""
    assert check.verdict("bench_x", ["a", None, "b"]) == 1
    assert capsys.readouterr().err == "bench_x: FAILED: a\nbench_x: FAILED: b\n"


def test_a_simulation_short_of_its_hands_fails(monkeypatch: Any, capsys: Any) -> None:
    sim = bench_module("bench_simulate")
    argv = ["--hands", "12", "--workers", "1", "--repeats", "1"]
    assert sim.main(argv) == 0
    assert failures(capsys.readouterr().err, "bench_simulate") == []
    monkeypatch.setattr(sim, "simulate", short_by(1))
    assert sim.main(argv) == 1
    assert failures(capsys.readouterr().err, "bench_simulate") == [
        "bench_simulate: FAILED: 1 worker(s): hands: measured 11 of 12 asked"
    ]


def test_a_simulation_with_bot_errors_fails() -> None:
    check = bench_module("shortfall")
    result = simulate(make_job("pineapple", "random,rules", hands=2, seed=1))
    line = dataclasses.replace(result.bots[1], errors=2)
    bad = dataclasses.replace(result, bots=(result.bots[0], line))
    assert check.simulation_shortfall("run", result, 2) is None
    assert check.simulation_shortfall("run", bad, 3) == (
        f"run: hands: measured 2 of 3 asked; {line.label}: 2 error(s), 0 timeout(s)"
    )


def test_a_ray_run_short_of_its_hands_is_reported(monkeypatch: Any) -> None:
    ray_bench = bench_module("bench_ray")
    job = make_job("pineapple", "random,rules", hands=6, seed=1)
    reference = simulate(job).to_dict(performance=False)
    assert ray_bench._run("local", job, reference)["shortfall"] == []
    monkeypatch.setattr(ray_bench, "simulate", short_by(1))
    row = ray_bench._run("local", job, reference, 2)
    assert row["shortfall"] == ["local: hands: measured 5 of 6 asked"] * 2
    assert not row["identical"]


def test_a_rules_bot_pairing_short_of_its_hands_is_reported(monkeypatch: Any) -> None:
    rulebot = bench_module("bench_rulebot")
    assert rulebot.pairing("pineapple", "rules,random", 2, 12, 11)[1] is None
    monkeypatch.setattr(rulebot, "simulate", short_by(4))  # a duplicate group of 4 hands
    row, problem = rulebot.pairing("pineapple", "rules,random", 2, 12, 11)
    assert "| 8 |" in row and problem == "pineapple rules,random: hands: measured 8 of 12 asked"


def test_an_oracle_that_told_nothing_fails(monkeypatch: Any, capsys: Any) -> None:
    oracle_bench = bench_module("bench_mc_oracle")

    def untold(*args: Any, **kwargs: Any) -> dict[str, Any]:
        return {"hands": 10, "mean": 0.0}  # played, but nothing reached the rollouts

    monkeypatch.setattr(oracle_bench.bots, "measure", untold)
    assert oracle_bench.main(["--know", "fantasyland", "--hands", "10"]) == 1
    assert failures(capsys.readouterr().err, "bench_mc_oracle") == [
        "bench_mc_oracle: FAILED: A was told fantasyland in none of its decisions"
    ]


def test_calibration_of_a_bot_without_rollouts_fails(capsys: Any) -> None:
    calib = bench_module("bench_mc_calibration")
    assert calib.main(["--a", "rules", "--b", "rules", "--sessions", "1"]) == 1
    (line,) = failures(capsys.readouterr().err, "bench_mc_calibration")
    assert "rules gave no analysis of a street decision (cards placed 0)" in line


def test_evaluate_without_a_reference_to_measure_against_fails(
    monkeypatch: Any, capsys: Any, tmp_path: Path
) -> None:
    ev = bench_module("bench_evaluate")
    cases = ev.single_hand_cases
    monkeypatch.setattr(ev, "single_hand_cases", lambda hands: cases(hands)[:2])  # ours only
    argv = ["--hands", "2000", "--batch", "20000", "--repeats", "1", "--out", str(tmp_path / "e")]
    assert ev.main(argv) == 1
    found = failures(capsys.readouterr().err, "bench_evaluate")
    assert len(found) == 5 and found[0] == (
        "bench_evaluate: FAILED: single_vs_best_pure_python: no reference installed to"
        " measure it against (pip install -e '.[bench]')"
    )
