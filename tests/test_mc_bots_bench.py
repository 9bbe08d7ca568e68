"""``bench/bench_mc_bots.py`` on the command line: every argument the engine or
``make_bot`` would refuse is refused before the first hand, in one line with exit 2 (no
traceback), and a bot's level fields are changed as written."""

from __future__ import annotations

from typing import Any

import pytest

from _helpers import bench_module

REFUSED = [
    (["--hands", "0"], "--hands must be at least 1"),
    (["--seed", "-1"], "--seed must be at least 0"),
    (["--preset", "nope"], "unknown preset 'nope'"),
    (["--players", "9"], "pineapple is played by 2 to 3 players, not 9"),
    (["--a", "zzz"], "unknown bot 'zzz'"),
    (["--b", "mc:x"], "bot 'mc:x': the level 'x' is not a whole number"),
    (["--a", "mc:9"], "mc level must be 1 to 3, not 9"),
    (["--a", "rules::x=1"], "bot 'rules::x=1': rules has no level fields to change"),
    (["--a", "mc:3:foo=1"], "'foo=1' is not field=value with a field of mc's Level"),
    (["--a", "mc:3:rollouts"], "'rollouts' is not field=value"),
    (["--a", "mc:3:rollouts=abc"], "rollouts must be int, not 'abc'"),
]


@pytest.mark.parametrize(("argv", "message"), REFUSED)
def test_a_bad_argument_is_refused_in_one_line(argv: list[str], message: str, capsys: Any) -> None:
    bots = bench_module("bench_mc_bots")
    assert bots.main(argv) == 2
    out = capsys.readouterr()
    assert out.out == ""
    lines = out.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("bench_mc_bots: ") and message in lines[0]


def test_the_oracle_bench_refuses_with_the_same_checks(capsys: Any) -> None:
    oracle = bench_module("bench_mc_oracle")
    assert oracle.main(["--know", "discards", "--players", "9"]) == 2
    assert capsys.readouterr().err == (
        "bench_mc_oracle: pineapple is played by 2 to 3 players, not 9\n"
    )


def test_a_spec_changes_the_fields_of_both_level_tables() -> None:
    bot = bench_module("bench_mc_bots").BotSpec("mc:2:rollouts=7,fl_scale=1.5").build(0)
    for params in (bot.params, bot.throwing_params):
        assert params.rollouts == 7 and params.fl_scale == 1.5
