"""``bench/bench_mc_oracle.py``: bot A told what its view hides. The knowledge must reach
the rollouts exactly (the opponents' discards out of the unseen cards, the hidden
Fantasyland board as every sample), and nothing else may change, before or after."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from _helpers import bench_module
from chinese_poker.ai import rollout
from chinese_poker.ai.fantasyland import solve_fantasyland
from chinese_poker.ai.simple import RuleBot
from chinese_poker.engine import Table
from chinese_poker.rules import rules_for


def _street(table: Table, bots: list[RuleBot], seat: int, placed: int) -> None:
    """Play until ``seat`` must decide with ``placed`` cards on its board."""
    while len(table.board(seat)) < placed or seat not in table.to_act:
        s = table.to_act[0]
        table.apply(bots[s].act(table.view(s)))


def test_told_the_discards_the_rollouts_deal_without_them() -> None:
    oracle_bench = bench_module("bench_mc_oracle")
    rules = rules_for("pineapple")
    table = Table(rules, 2, seed=5, button=0)  # seat 1 places first, seat 0 after
    bots = [RuleBot(seed=1), RuleBot(seed=2)]
    _street(table, bots, 0, 9)
    view = table.view(0)
    thrown = set(table.discards(1))
    assert len(thrown) == 3  # the opponent has thrown a card on each of three streets
    plain = rollout.Situation.from_view(view)
    assert thrown <= {int(c) for c in plain.pool}  # unseen to seat 0
    oracle = oracle_bench.Oracle(oracle_bench.Knowledge.DISCARDS)
    oracle.on_hand(table)
    with oracle_bench.told(oracle):
        sit = rollout.Situation.from_view(view)
        # The Fantasyland knowledge is not given: deals are sampled as before.
        assert sit.sample_fantasyland(0, random.Random(1))[0].shape == (0, 0)
    assert oracle.told == 1
    assert [int(c) for c in sit.pool] == [int(c) for c in plain.pool if int(c) not in thrown]
    assert np.array_equal(sit.events_cards, plain.events_cards)
    # Put back as it was: a classmethod again, and the plain pool once more.
    assert isinstance(vars(rollout.Situation)["from_view"], classmethod)
    again = rollout.Situation.from_view(view)
    assert np.array_equal(again.pool, plain.pool)


def test_told_the_fantasyland_board_every_sample_is_that_board() -> None:
    oracle_bench = bench_module("bench_mc_oracle")
    rules = rules_for("pineapple")
    tables = rollout.tables_for(rules)
    table = Table(rules, 2, seed=8, fantasyland={1: 14})
    assert table.to_act == (1,)  # the Fantasyland seat sets first, face down
    table.apply(RuleBot(seed=4).act(table.view(1)))
    view = table.view(0)
    assert view.boards[1].hidden
    plain = rollout.Situation.from_view(view)
    assert [seat for seat, _ in plain.fl_seats] == [1]
    dealt = table.hand_state(1).dealt
    oracle = oracle_bench.Oracle(oracle_bench.Knowledge.FANTASYLAND)
    oracle.on_hand(table)
    with oracle_bench.told(oracle):
        sit = rollout.Situation.from_view(view)
        cards, vals, dls = sit.sample_fantasyland(5, random.Random(3))
    assert oracle.told == 1
    assert np.array_equal(sit.pool, plain.pool)  # no discards were told
    assert cards.shape == (5, 14) and all(sorted(row) == sorted(dealt) for row in cards)
    state = table.hand_state(1)
    want, deuce = rollout.fantasyland_row((state.top, state.middle, state.bottom), tables)
    assert all(tuple(v[0]) == want for v in vals) and set(dls[:, 0]) == {deuce}
    # The plain sampler draws other deals, each solved the same way.
    other, other_vals, _ = plain.sample_fantasyland(5, random.Random(3))
    for row, v in zip(other, other_vals, strict=True):
        sol = solve_fantasyland([int(c) for c in row], rules).board
        assert tuple(v[0]) == rollout.fantasyland_row(sol.lines, tables)[0]


def test_a_short_run_is_told_and_the_bench_refuses_what_it_cannot_do(capsys: Any) -> None:
    oracle_bench = bench_module("bench_mc_oracle")
    out = oracle_bench.measure(oracle_bench.Knowledge.DISCARDS, "mc:1", "mc:1", "pineapple",
                               2, 4, 3)  # fmt: skip
    assert out["know"] == "discards" and out["hands"] >= 4 and out["told"] > 0
    assert out["seat_seeds"] is True
    assert oracle_bench.main(["--know", "discards", "--a", "rules"]) == 2
    assert "only mc and mc-v1 can be told" in capsys.readouterr().err
    assert oracle_bench.main(["--know", "discards", "--hands", "0"]) == 2
    assert "--hands must be at least 1" in capsys.readouterr().err


def test_both_in_fantasyland_an_unset_board_is_the_solvers() -> None:
    oracle_bench = bench_module("bench_mc_oracle")
    rules = rules_for("pineapple")
    tables = rollout.tables_for(rules)
    table = Table(rules, 2, seed=9, fantasyland={0: 14, 1: 14})
    assert set(table.to_act) == {0, 1}  # both set at once, face down
    view = table.view(0)
    oracle = oracle_bench.Oracle(oracle_bench.Knowledge.FANTASYLAND)
    oracle.on_hand(table)
    with oracle_bench.told(oracle):
        sit = rollout.Situation.from_view(view)
        cards, vals, _ = sit.sample_fantasyland(3, random.Random(2))
    dealt = table.hand_state(1).dealt
    board = solve_fantasyland(dealt, rules).board
    assert all(sorted(row) == sorted(dealt) for row in cards)
    assert all(tuple(v[0]) == rollout.fantasyland_row(board.lines, tables)[0] for v in vals)
