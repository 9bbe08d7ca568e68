"""``bench/bench_mc_calibration.py``: what the rollouts foresaw of a hand against what
happened. On the last street the board is finished by the placement itself, so the
rollouts' foul and Fantasyland rates there must be exactly the hand's outcome."""

from __future__ import annotations

from typing import Any

import numpy as np

from _helpers import bench_module


def test_the_last_street_is_foreseen_exactly_and_rates_are_rates() -> None:
    calib = bench_module("bench_mc_calibration")
    bots = bench_module("bench_mc_bots")
    rows = calib.play("pineapple", bots.BotSpec("mc:1"), bots.BotSpec("mc-v1:1"), 7, 1)
    assert set(rows[:, 0]) == {0, 5, 7, 9, 11}  # every street of a normal hand
    last = rows[rows[:, 0] == 11]
    assert np.array_equal(last[:, 1], last[:, 4])  # the fouls foreseen are the fouls
    assert np.array_equal(last[:, 2], last[:, 5])  # and Fantasyland earned
    # A hand's outcome is the same at each of its streets: five decisions a hand.
    assert len(rows) % 5 == 0
    for h in range(0, len(rows), 5):
        assert len(set(map(tuple, rows[h : h + 5, 4:]))) == 1
    report = calib.report(rows)
    assert [r["placed_before"] for r in report] == [0, 5, 7, 9, 11]
    for r in report:
        assert 0 <= r["foul"]["predicted"] <= 1 and 0 <= r["fantasyland"]["realised"] <= 1
        assert sum(b["decisions"] for b in r["foul"]["bins"]) == r["decisions"]


def test_the_bench_refuses_no_sessions(capsys: Any) -> None:
    calib = bench_module("bench_mc_calibration")
    assert calib.main(["--sessions", "0"]) == 2
    assert "--sessions must be at least 1" in capsys.readouterr().err
    assert calib.main(["--preset", "classic"]) == 2  # set at once: no streets to foresee
    assert "--preset classic is not open-face" in capsys.readouterr().err
