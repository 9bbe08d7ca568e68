"""The levels of ``mc``: legal at every level in every open-face preset, and each level
stronger than the one below on a small fixed set of duplicate deals; the experiment
knobs of a level change the policy they name and nothing else.

The strength figures with their intervals come from ``bench/bench_mc_bots.py``
(docs/bots-research.md, *Round two*); here fixed deals and no time budget, so the result is the
same on every machine.
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from chinese_poker.ai import make_bot, rollout
from chinese_poker.ai.mc import LEVELS, Level, MonteCarloBot, analyse_street
from chinese_poker.engine import Session, Table, play_hand
from chinese_poker.rules import preset_names, rules_for

# Slow (left out by `bash scripts/test --quick`): each mc level played against the one
# below on duplicate deals, at every level.
pytestmark = pytest.mark.slow

OPEN_FACE = [p for p in preset_names() if rules_for(p).is_open_face]


@pytest.mark.parametrize("level", sorted(LEVELS))
@pytest.mark.parametrize("preset", OPEN_FACE)
def test_every_level_plays_only_legal_actions(preset: str, level: int) -> None:
    rules = rules_for(preset)
    n = max(rules.player_counts) if level % 2 else 2
    # A Fantasyland seat now and then: the others sample its hidden deal.
    fl = {1: rules.fantasyland_cards("KK", repeat=False)} if level == 3 else {}
    table = Table(rules, n, seed=level, button=level % n, fantasyland=fl)
    # A small budget keeps the high levels quick; whatever it cuts, the answer is legal.
    bots = [MonteCarloBot(seed=i, level=level, time_budget=0.02) for i in range(n)]
    play_hand(table, bots)  # apply() raises on an illegal action
    assert table.over and sum(table.totals.values()) == 0


def _duplicate_points(low: int, high: int, seeds: range) -> float:
    """The higher level's points per hand over heads-up Pineapple sessions, each played
    twice with the seats swapped."""
    rules = rules_for("pineapple")
    points = hands = 0
    for seed in seeds:
        for names in (["hi", "lo"], ["lo", "hi"]):
            session = Session(rules, names, seed=seed)
            bots = {
                name: make_bot("mc", seed=seed * 4 + i, level=high if name == "hi" else low)
                for i, name in enumerate(names)
            }
            while not session.over:
                table = session.start_hand()
                play_hand(table, [bots[name] for name in table.players])
                points += session.finish_hand().totals.get("hi", 0)
                hands += 1
    return points / hands


def test_level_two_beats_level_one_on_fixed_deals() -> None:
    assert _duplicate_points(1, 2, range(6)) > 0


def test_the_policy_knobs_change_what_they_name() -> None:
    t = rollout.tables_for(rules_for("pineapple"))
    k = t.with_policy(foul_scale=2.0, strength_scale=0.5, fl_scale=1.5, pick_max=0.25)
    assert k.policy[rollout.POL_FOUL_PENALTY] == 2.0 * t.policy[rollout.POL_FOUL_PENALTY]
    assert k.policy[rollout.POL_W] == 0.5 * t.policy[rollout.POL_W]
    assert k.policy[rollout.POL_STAY_VALUE] == 1.5 * t.policy[rollout.POL_STAY_VALUE]
    assert np.array_equal(k.flv, 1.5 * t.flv) and t.policy[rollout.POL_PICK_MAX] == 1.0
    assert k.policy[rollout.POL_PICK_MAX] == 0.25
    same = (rollout.POL_STAY_MIDDLE_MIN, rollout.POL_FL_ENABLED, rollout.POL_THROWN)
    assert all(k.policy[i] == t.policy[i] for i in same)
    assert np.array_equal(k.scoring, t.scoring) and np.array_equal(k.roy, t.roy)


def test_a_knob_moves_the_analysis_and_the_defaults_do_not() -> None:
    table = Table(rules_for("pineapple"), 2, seed=11)
    view = table.view(table.to_act[0])
    dec = view.decisions[0]
    base = LEVELS[1]

    def values(level: Level) -> list[float]:
        opts = analyse_street(view, dec, level, seed=5)
        return sorted(o.value for o in opts)

    same = dataclasses.replace(base, policy_foul_scale=1.0, fl_scale=1.0, pick_max=1.0)
    assert values(same) == values(base)
    assert values(dataclasses.replace(base, fl_scale=3.0)) != values(base)


def test_the_first_street_fantasyland_factor_moves_the_first_street_only() -> None:
    """``fl_scale_first`` (docs/bots-research.md, *Round fifteen*) scales Fantasyland's value on the
    first street alone: there it moves the analysis as ``fl_scale`` does, later not at all."""
    rules = rules_for("pineapple")
    table = Table(rules, 2, seed=11)
    base = LEVELS[1]
    bold = dataclasses.replace(base, fl_scale_first=3.0)

    def values(level: Level) -> list[float]:
        view = table.view(table.to_act[0])
        opts = analyse_street(view, view.decisions[0], level, seed=5)
        return sorted(o.value for o in opts)

    assert values(bold) == values(dataclasses.replace(base, fl_scale=3.0)) != values(base)
    rng = random.Random(2)
    while table.view(table.to_act[0]).board_of(table.to_act[0]).placed == 0:
        table.apply(table.random_action(table.to_act[0], rng))
    assert values(bold) == values(base)


def test_level_three_charges_a_quarter_of_the_aversion_or_half_with_a_thrown_card() -> None:
    """docs/bots-research.md, *Round six* and *Round seven*: a quarter of the aversion beat
    ``mc-v1`` in plain OFC, half of it in heads-up Pineapple; levels 1 and 2 and ``mc-v1``
    keep the whole."""
    from chinese_poker.ai.mc import (
        FL_BOARDS,
        FOUL_AVERSION,
        FOUL_AVERSION_NO_THROW,
        FOUL_AVERSION_THROW,
        THROWING_LEVELS,
        V1_LEVELS,
    )

    assert FOUL_AVERSION_NO_THROW == FOUL_AVERSION / 4
    assert FOUL_AVERSION_THROW == FOUL_AVERSION / 2
    low = [FOUL_AVERSION] * 2
    assert [LEVELS[n].foul_aversion for n in range(1, 4)] == [*low, FOUL_AVERSION_NO_THROW]
    assert [THROWING_LEVELS[n].foul_aversion for n in range(1, 4)] == [*low, FOUL_AVERSION_THROW]
    assert sorted(LEVELS) == sorted(THROWING_LEVELS) == [1, 2, 3]
    for n in range(1, 4):
        assert V1_LEVELS[n].foul_aversion == FOUL_AVERSION
        # and level 3 plays out Fantasyland boards (round sixteen)
        boards = FL_BOARDS if n >= 3 else 0
        assert LEVELS[n].fl_boards == THROWING_LEVELS[n].fl_boards == boards
        assert V1_LEVELS[n].fl_boards == 0
        plain = dataclasses.replace(LEVELS[n], foul_aversion=FOUL_AVERSION, fl_boards=0)
        assert plain == V1_LEVELS[n]
        # the rest of the throwing levels is round four's and five's
        thrown = dataclasses.replace(THROWING_LEVELS[n], foul_aversion=FOUL_AVERSION,
                                     fl_boards=0)  # fmt: skip
        if n < 3:
            assert thrown == V1_LEVELS[n]
        else:
            assert (thrown.foul_repair, thrown.fl_per_opponent) == (1, 1)
            assert (
                dataclasses.replace(
                    thrown, rollouts=V1_LEVELS[n].rollouts, foul_repair=0, fl_per_opponent=0
                )
                == V1_LEVELS[n]
            )
    bot = MonteCarloBot(seed=0, level=3)
    assert bot.params == LEVELS[3] and bot.throwing_params == THROWING_LEVELS[3]
