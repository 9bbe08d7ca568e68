"""The policy's foul repair (``Level.foul_repair``): a completion whose random
arrangements all foul looks for a valid board by swapping drawn cards between lines.

The search is checked against a brute force over every single swap, judged by the
evaluator (``evaluate``/``evaluate3``), not by the kernels' own look-ups.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import threading

import numpy as np
import pytest

from chinese_poker.ai import rollout
from chinese_poker.ai.mc import LEVELS, V1_LEVELS, Level, analyse_street
from chinese_poker.ai.rollout import policy
from chinese_poker.cards import Card, parse_cards
from chinese_poker.engine import Table
from chinese_poker.evaluate import evaluate, evaluate3
from chinese_poker.rules import rules_for


def _valid(top: list[Card], middle: list[Card], bottom: list[Card]) -> bool:
    return evaluate3(*top) <= evaluate(middle) <= evaluate(bottom)


def _one_swap_boards(
    lines: tuple[list[Card], list[Card], list[Card]], order: list[Card], f0: int, f01: int
) -> list[tuple[list[Card], list[Card], list[Card]]]:
    """Every board one swap of two drawn cards (in different lines) away from ``order``."""
    out = []
    for i, j in itertools.combinations(range(len(order)), 2):
        li = 0 if i < f0 else (1 if i < f01 else 2)
        lj = 0 if j < f0 else (1 if j < f01 else 2)
        if li == lj:
            continue
        p = order[:]
        p[i], p[j] = p[j], p[i]
        out.append((lines[0] + p[:f0], lines[1] + p[f0:f01], lines[2] + p[f01:]))
    return out


def _repair(
    t: rollout.Tables, lines: tuple[list[Card], list[Card], list[Card]], order: list[Card],
    rounds: int,
) -> float:  # fmt: skip
    codes = [int(t.codes[c]) for c in order]
    c0, c1, c2 = (sum(int(t.codes[c]) for c in line) for line in lines)
    f0 = 3 - len(lines[0])
    f01 = f0 + 5 - len(lines[1])
    pol = t.policy
    return float(
        policy.repaired_value(c0, c1, c2, f0, f01, len(order), np.array(codes, dtype=np.int64),
                              rounds, t.t3, t.t5, t.fo, t.roy, t.flv, t.strength,
                              pol[rollout.POL_W], pol[rollout.POL_FOUL_PENALTY])
    )  # fmt: skip


def _value(t: rollout.Tables, board: tuple[list[Card], list[Card], list[Card]]) -> float:
    sums = [sum(int(t.codes[c]) for c in line) for line in board]
    w, penalty = t.policy[rollout.POL_W], t.policy[rollout.POL_FOUL_PENALTY]
    return float(policy.board_value(*sums, t.t3, t.t5, t.fo, t.roy, t.flv, t.strength, w,
                                      penalty))  # fmt: skip


def test_one_round_finds_the_best_valid_board_one_swap_away() -> None:
    t = rollout.tables_for(rules_for("ofc"))
    lines = (list(parse_cards("Qd Qs")), list(parse_cards("9c 9h")), list(parse_cards("Ah Kh 5h")))
    seen = set(lines[0] + lines[1] + lines[2])
    pool = [c for c in range(52) if c not in seen]
    rng = random.Random(7)
    checked = repaired = 0
    f0, f01 = 1, 4
    while checked < 60:
        order = rng.sample(pool, 6)
        board = (lines[0] + order[:f0], lines[1] + order[f0:f01], lines[2] + order[f01:])
        if _valid(*board):
            continue  # the repair only ever sees arrangements that foul
        checked += 1
        valid = [b for b in _one_swap_boards(lines, order, f0, f01) if _valid(*b)]
        got = _repair(t, lines, order, 1)
        if valid:
            repaired += 1
            assert got == pytest.approx(max(_value(t, b) for b in valid))
        else:
            assert got == -t.policy[rollout.POL_FOUL_PENALTY]
    assert 0 < repaired < checked  # both outcomes were exercised


def test_a_repair_with_spares_may_also_throw_a_different_card() -> None:
    """With the cards a Pineapple completion throws, one round takes the best valid
    board one swap away, a swap now also putting a thrown card in place of a placed one."""
    t = rollout.tables_for(rules_for("pineapple"))
    lines = (list(parse_cards("Kd Ks")), list(parse_cards("8c 8h")), list(parse_cards("Ah Qh 5h")))
    seen = set(lines[0] + lines[1] + lines[2])
    pool = [c for c in range(52) if c not in seen]
    rng = random.Random(5)
    f0, f01, need, n_spare = 1, 4, 6, 3
    codes_of = {c: int(t.codes[c]) for c in range(52)}
    checked = only_spares = 0
    while checked < 60:
        drawn = rng.sample(pool, need + n_spare)
        order, spares = drawn[:need], drawn[need:]
        board = (lines[0] + order[:f0], lines[1] + order[f0:f01], lines[2] + order[f01:])
        if _valid(*board):
            continue
        checked += 1
        valid = [b for b in _one_swap_boards(lines, order, f0, f01) if _valid(*b)]
        swapped_in = []
        for i, x in itertools.product(range(need), spares):
            p = order[:]
            p[i] = x
            b = (lines[0] + p[:f0], lines[1] + p[f0:f01], lines[2] + p[f01:])
            if _valid(*b):
                swapped_in.append(b)
        c0, c1, c2 = (sum(codes_of[c] for c in line) for line in lines)
        cards = np.array([codes_of[c] for c in drawn], dtype=np.int64)
        pol = t.policy
        got = float(policy.repaired_value(c0, c1, c2, f0, f01, need, cards, 1, t.t3, t.t5, t.fo,
                                    t.roy, t.flv, t.strength, pol[rollout.POL_W],
                                    pol[rollout.POL_FOUL_PENALTY], n_spare))  # fmt: skip
        if valid or swapped_in:
            assert got == pytest.approx(max(_value(t, b) for b in valid + swapped_in))
            only_spares += not valid
        else:
            assert got == -pol[rollout.POL_FOUL_PENALTY]
    assert only_spares > 0  # boards that only a thrown card could make valid


def test_more_rounds_never_find_less() -> None:
    t = rollout.tables_for(rules_for("pineapple"))
    rng = random.Random(3)
    lines: tuple[list[Card], list[Card], list[Card]] = (list(parse_cards("Kd Ks")), [], [])
    pool = [c for c in range(52) if c not in lines[0]]
    foul = -t.policy[rollout.POL_FOUL_PENALTY]
    later = 0
    for _ in range(60):
        order = rng.sample(pool, 11)
        if _valid(lines[0] + order[:1], order[1:6], order[6:]):
            continue
        one, three = _repair(t, lines, order, 1), _repair(t, lines, order, 3)
        assert three >= one
        later += one == foul < three  # found only by the later rounds
    assert later > 0


def test_the_repair_knob_sets_only_its_own_field() -> None:
    t = rollout.tables_for(rules_for("ofc"))
    k = t.with_policy(repair=2, repair_spare=True)
    assert t.policy[rollout.POL_REPAIR] == 0 and k.policy[rollout.POL_REPAIR] == 2
    assert t.policy[rollout.POL_REPAIR_SPARE] == 0 and k.policy[rollout.POL_REPAIR_SPARE] == 1
    mine = (rollout.POL_REPAIR, rollout.POL_REPAIR_SPARE)
    others = [i for i in range(len(t.policy)) if i not in mine]
    assert np.array_equal(k.policy[others], t.policy[others]) and np.array_equal(k.flv, t.flv)


@pytest.mark.parametrize(
    ("preset", "knob", "on"),
    [("ofc", "foul_repair", 2), ("pineapple", "climb", 3),
     ("pineapple", "repair_spare", 1)],
)  # fmt: skip
def test_a_policy_knob_moves_the_analysis_and_mc_v1_has_none(
    preset: str, knob: str, on: int
) -> None:
    assert all(getattr(level, knob) == 0 for level in V1_LEVELS.values())
    table = Table(rules_for(preset), 2, seed=4)
    view = table.view(table.to_act[0])
    dec = view.decisions[0]
    base = LEVELS[1]
    if knob == "repair_spare":  # it changes the repair, so the repair must be on
        base = dataclasses.replace(base, foul_repair=1)

    def values(level: Level) -> list[float]:
        return sorted(o.value for o in analyse_street(view, dec, level, seed=5))

    assert values(dataclasses.replace(base, **{knob: 0})) == values(base)
    assert values(dataclasses.replace(base, **{knob: on})) != values(base)


@pytest.mark.parametrize(
    ("preset", "throws"),
    [("pineapple", True), ("pineapple-progressive", True), ("ofc", False), ("turbo", False)],
)
def test_mc_plays_the_repair_only_where_a_street_throws_a_card(
    preset: str, throws: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chinese_poker.ai import mc

    rules = rules_for(preset)
    assert rules.spec.variant.throws_cards is throws
    used: list[Level] = []
    real = mc.analyse_street
    here = threading.get_ident()

    def spy(view: object, dec: object, level: Level, **kw: object) -> object:
        # Only this test's bots: a bot of another test's server, still playing in a
        # thread of this worker, calls the same function.
        if threading.get_ident() == here:
            used.append(level)
        return real(view, dec, level, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(mc, "analyse_street", spy)
    for cls, lvl in ((mc.MonteCarloBot, 3), (mc.MonteCarloBotV1, 3)):
        table = Table(rules, 2, seed=9)
        view = table.view(table.to_act[0])
        bot = cls(seed=1, level=lvl, time_budget=0.02)
        bot.act(view)
        expected = (mc.THROWING_LEVELS if throws else mc.LEVELS)[lvl]
        if cls is mc.MonteCarloBotV1:
            expected = V1_LEVELS[lvl]
        assert used[-1] == expected
    assert (used[0].foul_repair == 1) is throws and used[1].foul_repair == 0
