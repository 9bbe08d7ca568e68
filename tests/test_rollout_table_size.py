"""Fantasyland and fouls counted per opponent (``Level.fl_per_opponent``,
``Level.aversion_per_opponent``): a rollout sums the hand's points over every opponent,
while the Fantasyland values are heads-up figures, one opponent's worth.

The oracle for the rollouts is arithmetic on the same rollouts (common random numbers):
with our top already a pair of queens, every board that does not foul earns the one
value :func:`~chinese_poker.ai.rollout.fantasyland_value` gives a 14-card Pineapple
deal, so counting it per opponent adds exactly (opponents - 1) x that value x the
Fantasyland rate to each candidate's mean.
"""

from __future__ import annotations

import dataclasses

import pytest

from chinese_poker.ai import rollout
from chinese_poker.ai.mc import LEVELS, V1_LEVELS, Level, analyse_street
from chinese_poker.engine.actions import iter_placements
from chinese_poker.engine.position import parse_position
from chinese_poker.rules import rules_for

ME = """rules: pineapple
street: 4
me: Qh Qd 4c | Ks Kh 7d | Ah Jh 8h
cards: Kc 8c 2s
"""
OPPONENTS = ["Ac 7c Kd | Ts Td 6d | 6s 3d 3h", "5c 5d 6h | Js Jd 2h | 3s 4s 5s"]


def _situation(opponents: int) -> rollout.Situation:
    text = ME + "".join(f"opponent: {b}\n" for b in OPPONENTS[:opponents])
    view = parse_position(text).view()
    return rollout.Situation.from_view(view, view.decisions[0])


@pytest.mark.parametrize("opponents", [1, 2])
def test_fantasyland_counted_per_opponent_adds_exactly_its_value_per_other_opponent(
    opponents: int,
) -> None:
    sit = _situation(opponents)
    assert sit.opponents == opponents
    cands = [sit.candidate(a) for a in iter_placements(sit.decision, sit.view.version)]
    assert len(cands) > 3

    def stats(per_opponent: bool) -> rollout.RolloutStats:
        sit.tables = rollout.tables_for(sit.view.rules).with_policy(fl_per_opponent=per_opponent)
        return rollout.run_rollouts(sit, cands, rollouts=96, fills=4, choice=3, seed=11)

    plain, counted = stats(False), stats(True)
    value = rollout.fantasyland_value(rules_for("pineapple"), 14)
    assert value > 10
    assert (plain.n == counted.n).all() and (plain.foul_rate() == counted.foul_rate()).all()
    fl = plain.fl_rate()
    assert (fl > 0).sum() >= 3 and fl.max() < 1  # boards that earn it, not always
    extra = counted.mean() - plain.mean()
    assert extra == pytest.approx((opponents - 1) * value * fl, abs=1e-9)


def test_foul_aversion_per_opponent_is_the_aversion_times_the_opponents() -> None:
    """The choice (its order and the halving's) with the aversion counted per opponent is
    the choice with the aversion multiplied by the opponents; heads-up nothing changes."""
    assert all(lv.aversion_per_opponent == 0 and lv.fl_per_opponent == 0
               for lv in V1_LEVELS.values())  # fmt: skip
    base = LEVELS[1]
    per = dataclasses.replace(base, aversion_per_opponent=1)

    def order(opponents: int, level: Level) -> list[tuple[object, float, int]]:
        view = _situation(opponents).view
        out = analyse_street(view, view.decisions[0], level, seed=0)
        return [(o.action, o.value, o.rollouts) for o in out]

    for opponents in (1, 2):
        times = dataclasses.replace(base, foul_aversion=base.foul_aversion * opponents)
        assert order(opponents, per) == order(opponents, times)
    assert order(1, per) == order(1, base)
    assert order(2, per) != order(2, base)  # the position is one where it matters


def test_mc_counts_fantasyland_per_opponent_where_measured_and_heads_up_plays_as_before() -> None:
    """``mc``'s Pineapple level 3 counts it (docs/bots-research.md, *Round five*), nothing
    else does; heads-up the default level's analysis is exactly the one without it."""
    from chinese_poker.ai.mc import THROWING_LEVELS

    assert [THROWING_LEVELS[n].fl_per_opponent for n in range(1, 4)] == [0, 0, 1]
    assert all(lv.fl_per_opponent == 0 for lv in LEVELS.values())
    level = dataclasses.replace(THROWING_LEVELS[3], rollouts=64, candidates=6)
    without = dataclasses.replace(level, fl_per_opponent=0)
    for opponents, same in ((1, True), (2, False)):
        view = _situation(opponents).view
        dec = view.decisions[0]
        ours = [(o.action, o.value) for o in analyse_street(view, dec, level, seed=2)]
        theirs = [(o.action, o.value) for o in analyse_street(view, dec, without, seed=2)]
        assert (ours == theirs) is same, opponents
