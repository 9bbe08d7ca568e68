"""The equilibrium opponent model (fictitious play) and how the solver picks its table."""

from __future__ import annotations

import numpy as np
import pytest

from chinese_poker.ai import setting_tables
from chinese_poker.ai.equilibrium import fictitious_play
from chinese_poker.ai.setting import _evaluate, _expected, _terms, solve_setting, solve_with_table
from chinese_poker.ai.setting_tables import (
    FAMILIES,
    OpponentTable,
    family_key,
    family_path,
    load_table,
    table_for,
)
from chinese_poker.cards import parse_cards
from chinese_poker.rules import rules_for

FAMILY = FAMILIES["two_four-plain"]


def test_family_key_matches_only_the_family() -> None:
    assert family_key(FAMILY) == "two_four-plain"
    # The family is what changes a setting's worth; other options do not matter.
    assert family_key(FAMILY.replace(unit_value=5)) == "two_four-plain"
    assert family_key(rules_for("classic")) is None
    assert family_key(FAMILY.replace(royalty_table="classic_standard")) is None
    assert family_key(FAMILY.replace(naturals_enabled=True)) is None
    assert family_key(FAMILY.replace(surrender_allowed=True)) is None
    assert family_key(FAMILY.replace(wheel_rank="second_highest")) is None


def test_the_solver_uses_the_family_table_when_it_ships() -> None:
    path = family_path("two_four-plain")
    table = table_for(FAMILY)
    if path.is_file():
        assert table.setter.startswith("fp-") and table.meta["family"] == "two_four-plain"
    else:
        assert table.meta == load_table("high").meta
    # (compared by content: another test may clear load_table's cache in this process)
    classic = table_for(rules_for("classic"))
    assert classic.mode == "high" and classic.meta == load_table("high").meta
    cards = parse_cards("Ks 2s 6h Ah 4h Ad 7h 3d Qc 2d 7s Jh Qd")
    assert solve_setting(cards, FAMILY) == solve_with_table(cards, FAMILY, table)


def test_fictitious_play_pools_the_best_responses_and_measures_their_gain() -> None:
    table, report = fictitious_play("two_four-plain", hands=120, eval_hands=12, max_stages=3,
                                    target=0.0, strata=4)  # fmt: skip
    assert isinstance(table, OpponentTable)
    assert len(report.gains) == 3 and table.hands == 3 * 120
    assert table.meta["stages"] == 3 and table.setter == "fp-3"
    assert all(g >= 0 for g in report.gains)  # nothing beats the best response
    # The gain is the best setting's EV minus the pool's own choices, under the model:
    # a setter that always plays the best response to this model gains nothing.
    terms = _terms(FAMILY, 1, table)
    rng = np.random.default_rng(5)
    hand = _evaluate(tuple(int(c) for c in rng.permutation(52)[:13]), FAMILY)
    ev = _expected(hand, FAMILY, terms, table)
    sol = solve_with_table([int(c) for c in hand.cards], FAMILY, table, opponents=1, top_n=0)
    assert sol.expected == pytest.approx(float(ev.max()) + terms.const, abs=1e-9)


def test_table_from_pools_equal_parts_like_one_simulation() -> None:
    high = rules_for("classic")
    setter = setting_tables._heuristic_setter(high)
    a = setting_tables.deal_and_set("high", setter, hands=80, seed=3, stage=0)
    b = setting_tables.deal_and_set("high", setter, hands=80, seed=3, stage=1)
    pooled = setting_tables.table_from("high", [a, b], strata=4, seed=3, setter="x", meta={})
    assert pooled.hands == 160
    assert pooled.played == len(a.idx) + len(b.idx)
    assert pooled.fouls == a.fouls + b.fouls
    for line in range(3):
        want = np.bincount(np.concatenate([a.idx[:, line], b.idx[:, line]]),
                           minlength=pooled.counts[line].shape[2])  # fmt: skip
        assert np.array_equal(pooled.counts[line].sum(axis=(0, 1)), want)
