"""``bench/bench_levels.py``: the ladder is read from the bots themselves, and a run never
reports a level as shown stronger when its interval does not lie above 0 or it played
fewer hands than asked."""

from __future__ import annotations

from typing import Any

import pytest

from _helpers import bench_module


def test_the_steps_are_the_levels_a_player_can_choose() -> None:
    levels = bench_module("bench_levels")
    assert levels.steps(["mc"], ["ofc"]) == [("ofc", "mc:2", "mc:1"), ("ofc", "mc:3", "mc:2")]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--presets", "nope"], "unknown preset 'nope'"),
        (["--hands", "1"], "--hands must be at least 2"),
        (["--bots", "zzz"], "unknown bot 'zzz'"),
        (["--bots", "rules"], "no bot named has two levels"),
    ],
)
def test_a_bad_argument_is_refused_in_one_line(argv: list[str], message: str, capsys: Any) -> None:
    assert bench_module("bench_levels").main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err, err


def test_a_step_not_shown_stronger_or_short_of_hands_fails(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    levels = bench_module("bench_levels")
    side = {"foul_rate": 0.1, "fantasyland_rate": 0.125, "median_ms": 1.0}
    made = {
        "mc:2": {"mean": 0.9, "ci95": 0.3, "hands": 100},  # shown stronger
        "mc:3": {"mean": 0.4, "ci95": 0.5, "hands": 60},  # not shown, and short of hands
    }

    def fake(job: tuple[str, str, str, int, int]) -> dict[str, Any]:
        preset, a, b, _, _ = job
        return {"preset": preset, "a": a, "b": b, "a_side": side, "b_side": side, **made[a]}

    class Inline:  # the steps in this process, so that the fake measure is used
        def __init__(self, max_workers: int) -> None: ...
        def __enter__(self) -> Inline:
            return self

        def __exit__(self, *exc: object) -> None: ...
        def map(self, fn: Any, jobs: Any) -> Any:
            return map(fn, jobs)

    monkeypatch.setattr(levels, "run_step", fake)
    monkeypatch.setattr(levels, "ProcessPoolExecutor", Inline)
    assert levels.main(["--presets", "ofc", "--hands", "100"]) == 1
    out, err = capsys.readouterr()
    # The Fantasyland rates are a column of their own (docs/benchmarks.md shows it).
    assert "| ofc | mc:2 over mc:1 | 100 | +0.90 ± 0.30 | 10.0% (10.0%) | 12.5% (12.5%) |" in out
    failed = [line for line in err.splitlines() if "FAILED" in line]
    assert failed == [
        "bench_levels: FAILED: mc:3 over mc:2 in ofc, hands: measured 60 of 100 asked",
        "bench_levels: FAILED: mc:3 over mc:2 in ofc: +0.40 ± 0.50 does not lie above 0",
    ]
    made["mc:3"] = {"mean": 0.6, "ci95": 0.3, "hands": 100}
    assert levels.main(["--presets", "ofc", "--hands", "100"]) == 0
