"""The policy that completes the opponents' boards in the rollouts
(``Level.opp_foul_scale``, ``Level.opp_repair``, ``Level.opp_fills``;
:meth:`rollout.Tables.with_policy`).

The oracle is the kernel itself on the same rollouts (common random numbers). On our
fourth Pineapple street, what is left of our board after a candidate is the last street,
where a completion has nothing to repair and a larger foul penalty changes no choice
(a valid board always beats a foul by then); the opponent still has two streets. There
the opponents' knobs must do exactly what the same change of the whole policy does;
with the knobs at their defaults nothing changes at all.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from _helpers import bench_module
from chinese_poker.ai import rollout
from chinese_poker.ai.mc import LEVELS, THROWING_LEVELS, V1_LEVELS, Level, analyse_street
from chinese_poker.engine.actions import iter_placements
from chinese_poker.engine.position import parse_position

FOURTH = """rules: pineapple
street: 4
me: Qh 9d 4c | Ks Kh 7d | Ah Ad 8h
cards: Kc 8c 2s
opponent: Kd Jc | Ts 6d 5d | 6s 6c 9c 9s
"""
# Our third street: our own policy plays two more streets behind a pair of queens on top.
THIRD = """rules: pineapple
street: 3
me: Qh Qd 4c | Ks 7d | Ah 8h
cards: Kc 8c 2s
opponent: Kd Jc | Ts 6d | 6s 6c 9c
"""


def _stats(text: str, **knobs: object) -> rollout.RolloutStats:
    view = parse_position(text).view()
    sit = rollout.Situation.from_view(view, view.decisions[0])
    assert sit.opponents == 1
    base = rollout.tables_for(view.rules)
    sit.tables = base.with_policy(**knobs) if knobs else base  # type: ignore[arg-type]
    cands = [sit.candidate(a) for a in iter_placements(sit.decision, view.version)]
    return rollout.run_rollouts(sit, cands, rollouts=200, fills=6, choice=5, seed=5)


def _bench() -> Any:
    return bench_module("bench_mc_bots")


def _ours_only(knobs: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in knobs.items() if not k.startswith("opp_")}


def _same(a: rollout.RolloutStats, b: rollout.RolloutStats) -> bool:
    return bool((a.n == b.n).all() and np.array_equal(a.mean(), b.mean())
                and np.array_equal(a.foul_rate(), b.foul_rate()))  # fmt: skip


def test_the_defaults_give_the_rollouts_of_before() -> None:
    """Golden figures: these rollouts as the kernel gave them before the opponents had a
    policy of their own (commit c341aa6), bit for bit."""
    repaired = _stats(FOURTH, repair=1)
    assert repaired.total[:6].tolist() == [-337.0, -403.0, 171.0, -254.0, -1118.0, -1184.0]
    assert repaired.fouls[:6].tolist() == [0, 0, 0, 0, 164, 164]
    plain = _stats(THIRD)
    assert plain.fouls[:6].tolist() == [188, 185, 163, 168, 88, 95]
    assert plain.total[:6].tolist() == pytest.approx(
        [-902.2, -829.25, -82.95, -304.2, 2040.8, 1704.25], abs=1e-6
    )
    assert _stats(THIRD, repair=1).fouls[:6].tolist() == [188, 185, 160, 169, 86, 95]
    # The knobs at their defaults, spelt out, are the same rollouts.
    assert _same(repaired, _stats(FOURTH, repair=1, opp_foul_scale=1.0, opp_repair=-1))
    assert _same(plain, _stats(THIRD, opp_fills=6))  # as many completions as ours (6)


@pytest.mark.parametrize(
    ("opponents_only", "whole_policy"),
    [
        ({"repair": 1, "opp_repair": 0}, {"repair": 0}),
        ({"opp_repair": 2}, {"repair": 2}),
        ({"opp_foul_scale": 2.5}, {"foul_scale": 2.5}),
        ({"repair": 1, "opp_foul_scale": 1.5, "opp_repair": 0}, {"foul_scale": 1.5}),
    ],
)
def test_before_our_last_street_the_opponents_knobs_are_the_whole_policys(
    opponents_only: dict[str, object], whole_policy: dict[str, object]
) -> None:
    ours = _stats(FOURTH, **opponents_only)
    assert _same(ours, _stats(FOURTH, **whole_policy))
    # ... and the opponent's play matters here: without the opponents' knobs it differs.
    assert not _same(ours, _stats(FOURTH, **_ours_only(opponents_only)))


@pytest.mark.parametrize("knobs", [{"opp_foul_scale": 4.0}, {"repair": 1, "opp_repair": 0}])
def test_earlier_they_change_the_opponents_completions_only(knobs: dict[str, object]) -> None:
    plain = _stats(THIRD, **_ours_only(knobs))
    changed = _stats(THIRD, **knobs)
    # Our foul rates come from our own completions only: the same draws, the same policy.
    assert np.array_equal(plain.foul_rate(), changed.foul_rate())
    assert not np.array_equal(plain.mean(), changed.mean())
    # The same change made to the whole policy: {"repair": 1, "opp_repair": 0} is
    # {"repair": 0}, {"opp_foul_scale": 4.0} is {"foul_scale": 4.0}.
    whole = {k.removeprefix("opp_"): v for k, v in knobs.items()}
    assert not np.array_equal(_stats(THIRD, **whole).foul_rate(), plain.foul_rate())


def test_no_level_changes_the_opponents_policy() -> None:
    """Experiment knobs (docs/bots-research.md, *Round six*): no level of ``mc``, ``mc-v1`` or the
    hints turns them, so their play is the one measured before."""
    from chinese_poker.ai.mc import HINT_LEVELS

    for table in (V1_LEVELS, LEVELS, THROWING_LEVELS, HINT_LEVELS):
        for level in table.values():
            assert (level.opp_foul_scale, level.opp_repair, level.opp_fills) == (1.0, -1, -1)


def test_the_bench_spec_reaches_the_knobs() -> None:
    """``bench_mc_bots.py --a "mc:3:opp_foul_scale=2,opp_repair=0"`` sets them on the
    level the bot plays in every variant, as the round's runs did."""
    bot = _bench().BotSpec("mc:3:opp_foul_scale=2,opp_repair=0,opp_fills=12").build(1)
    for level in (bot.params, bot.throwing_params):
        assert (level.opp_foul_scale, level.opp_repair, level.opp_fills) == (2.0, 0, 12)
    # analyse_street hands each knob on by itself: each one alone moves the analysis.
    view = parse_position(THIRD).view()
    base = dataclasses.replace(bot.throwing_params, rollouts=200, candidates=4,
                               opp_foul_scale=1.0, opp_repair=-1, opp_fills=-1)  # fmt: skip

    def values(level: Level) -> list[tuple[object, float]]:
        return [(o.action, o.value) for o in analyse_street(view, view.decisions[0], level, seed=3)]

    plain = values(base)
    assert base.foul_repair == 1
    for knob in ({"opp_foul_scale": 4.0}, {"opp_repair": 0}, {"opp_fills": 12}):
        assert values(dataclasses.replace(base, **knob)) != plain, knob


def test_seat_seeds_cancel_two_identical_bots_exactly() -> None:
    """``bench_mc_bots.py --seat-seeds``: a bot's seed depends on its seat only, so the
    same bot on both sides scores exactly 0 (the rotations cancel); seeded by rotation,
    two random players do not."""
    bench = _bench()
    same = bench.measure("pineapple", 2, bench.BotSpec("random"), bench.BotSpec("random"),
                         6, 3, seat_seeds=True)  # fmt: skip
    assert same["mean"] == 0.0 and same["ci95"] == 0.0 and same["hands"] >= 6
    apart = bench.measure("pineapple", 2, bench.BotSpec("random"), bench.BotSpec("random"), 6, 3)
    assert apart["mean"] != 0.0
