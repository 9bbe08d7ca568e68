"""The policy's hill climb (``Level.climb``): the few best placements of a street get
each completion's best arrangement improved by swaps of two drawn cards between lines.

The climb is checked against a brute force over every single swap, with a board's
validity judged by the evaluator (``evaluate``/``evaluate3``), not by the kernels' own
look-ups.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from chinese_poker.ai import rollout
from chinese_poker.ai.rollout import playout, policy
from chinese_poker.cards import Card, parse_cards
from chinese_poker.evaluate import evaluate, evaluate3
from chinese_poker.rules import rules_for

Board = tuple[list[Card], list[Card], list[Card]]


def _valid(board: Board) -> bool:
    top, middle, bottom = board
    return evaluate3(*top) <= evaluate(middle) <= evaluate(bottom)


def _value(t: rollout.Tables, board: Board) -> float:
    """The policy's value of a complete board; a foul, by the evaluator, is the penalty."""
    penalty = float(t.policy[rollout.POL_FOUL_PENALTY])
    if not _valid(board):
        return -penalty
    sums = [sum(int(t.codes[c]) for c in line) for line in board]
    return float(policy.board_value(*sums, t.t3, t.t5, t.fo, t.roy, t.flv, t.strength,
                                      t.policy[rollout.POL_W], penalty))  # fmt: skip


def _split(lines: Board, order: list[Card], f0: int, f01: int) -> Board:
    return (lines[0] + order[:f0], lines[1] + order[f0:f01], lines[2] + order[f01:])


def _swaps(order: list[Card], f0: int, f01: int) -> list[list[Card]]:
    out = []
    for i, j in itertools.combinations(range(len(order)), 2):
        li = 0 if i < f0 else (1 if i < f01 else 2)
        lj = 0 if j < f0 else (1 if j < f01 else 2)
        if li != lj:
            p = order[:]
            p[i], p[j] = p[j], p[i]
            out.append(p)
    return out


def _climb(t: rollout.Tables, lines: Board, order: list[Card], rounds: int) -> float:
    f0 = 3 - len(lines[0])
    f01 = f0 + 5 - len(lines[1])
    c0, c1, c2 = (sum(int(t.codes[c]) for c in line) for line in lines)
    codes = np.array([int(t.codes[c]) for c in order], dtype=np.int64)
    pol = t.policy
    start = _value(t, _split(lines, order, f0, f01))
    return float(policy.climbed_value(c0, c1, c2, f0, f01, len(order), codes, rounds, start, t.t3,
                                t.t5, t.fo, t.roy, t.flv, t.strength, pol[rollout.POL_W],
                                pol[rollout.POL_FOUL_PENALTY]))  # fmt: skip


@pytest.mark.parametrize(
    ("preset", "placed"),
    [("pineapple", ("Qd", "9c 9h", "Ah Kh 5h")), ("ofc", ("", "Td", "8s 8c")),
     ("pineapple", ("Ks", "", "7h 7d 4h"))],
)  # fmt: skip
def test_one_round_takes_the_best_single_swap(preset: str, placed: tuple[str, ...]) -> None:
    t = rollout.tables_for(rules_for(preset))
    lines: Board = tuple(list(parse_cards(x)) if x else [] for x in placed)  # type: ignore[assignment]
    f0 = 3 - len(lines[0])
    f01 = f0 + 5 - len(lines[1])
    need = 13 - sum(len(line) for line in lines)
    seen = set(lines[0] + lines[1] + lines[2])
    pool = [c for c in range(52) if c not in seen]
    rng = random.Random(11)
    moved = 0
    for _ in range(40):
        order = rng.sample(pool, need)
        start = _value(t, _split(lines, order, f0, f01))
        best = max(_value(t, _split(lines, p, f0, f01)) for p in _swaps(order, f0, f01))
        got = _climb(t, lines, order, 1)
        assert got == pytest.approx(max(start, best))
        moved += got > start
    assert moved > 0


def test_more_rounds_never_end_lower_and_sometimes_end_higher() -> None:
    t = rollout.tables_for(rules_for("pineapple"))
    lines: Board = (list(parse_cards("Kd")), list(parse_cards("6s")), list(parse_cards("Ah Th 3h")))
    pool = [c for c in range(52) if c not in lines[0] + lines[1] + lines[2]]
    rng = random.Random(5)
    higher = 0
    for _ in range(60):
        order = rng.sample(pool, 8)
        one, three = _climb(t, lines, order, 1), _climb(t, lines, order, 3)
        assert three >= one
        higher += three > one
    assert higher > 0


def test_the_climb_ends_on_a_board_it_can_name() -> None:
    """The value the climb returns is the value of a real arrangement of the same cards
    (every value it reaches is one of the boards a sequence of swaps makes)."""
    t = rollout.tables_for(rules_for("ofc"))
    lines: Board = (list(parse_cards("Qs")), list(parse_cards("Jc 9d 7c")),
                    list(parse_cards("2d 2s 5h")))  # fmt: skip
    pool = [c for c in range(52) if c not in lines[0] + lines[1] + lines[2]]
    rng = random.Random(2)
    for _ in range(20):
        order = rng.sample(pool, 6)
        f0, f01 = 2, 4
        reachable = {round(_value(t, _split(lines, list(p), f0, f01)), 9)
                     for p in itertools.permutations(order)}  # fmt: skip
        assert round(_climb(t, lines, order, 3), 9) in reachable


def test_the_climb_knob_sets_only_its_own_fields() -> None:
    t = rollout.tables_for(rules_for("pineapple"))
    k = t.with_policy(climb=3, climb_rounds=4)
    mine = (rollout.POL_CLIMB, rollout.POL_CLIMB_ROUNDS)
    assert t.policy[rollout.POL_CLIMB] == 0 and k.policy[rollout.POL_CLIMB] == 3
    assert k.policy[rollout.POL_CLIMB_ROUNDS] == 4
    others = [i for i in range(len(t.policy)) if i not in mine]
    assert np.array_equal(k.policy[others], t.policy[others]) and np.array_equal(k.flv, t.flv)


def test_the_climb_improves_the_policys_boards() -> None:
    """Over the same 600 deals the policy's boards earn more royalties with the climb
    (docs/bots-research.md, *Round four*)."""
    rules = rules_for("pineapple")
    t = rollout.tables_for(rules)

    def royalties(climb: int) -> float:
        v = rollout.solitaire_values(rules, 600, seed=3, fills=6, choice=5, climb=climb)
        foul = (v[:, 0] > v[:, 1]) | (v[:, 1] > v[:, 2])
        roy = t.roy[0, v[:, 0] >> 16] + t.roy[1, v[:, 1] >> 16] + t.roy[2, v[:, 2] >> 16]
        return float(roy[~foul].sum())

    assert royalties(3) > royalties(0)


def _policy_choice(t: rollout.Tables, lines: Board, street: list[Card], seed: int) -> list[int]:
    """The line code sums after the policy places a Pineapple street (2 of 3 kept)."""
    code = np.array([sum(int(t.codes[c]) for c in line) for line in lines], dtype=np.int64)
    cnt = np.array([len(line) for line in lines], dtype=np.int64)
    dz = np.zeros(3, dtype=np.int64)
    seen = set(street).union(*lines)
    deck = np.array(street + [c for c in range(52) if c not in seen], dtype=np.int64)
    scratch = np.empty(52, dtype=np.int64)
    pref = np.zeros((policy.pref_rows(6, 5, t.policy), 14), dtype=np.int64)
    playout.seed_kernels(seed)
    policy.policy_street(code, cnt, dz, deck, 0, 3, 2, 1, len(deck), 6, 5, 0, *t.policy_tables,
                         scratch, pref)  # fmt: skip
    return [int(x) for x in code]


def test_without_climbing_rounds_the_best_placements_keep_their_order() -> None:
    """With 0 rounds the second pass recomputes the K best totals unchanged, so the
    policy must choose what it chooses without the knob: the K best are the right ones,
    kept in order, ties to the first found."""
    t = rollout.tables_for(rules_for("pineapple"))
    rng = random.Random(8)
    differ = 0
    for k in range(40):
        cards = rng.sample(range(52), 8)
        lines: Board = ([cards[0]], [cards[1], cards[2]], [cards[3], cards[4]])
        street = cards[5:8]
        plain = _policy_choice(t, lines, street, k)
        for n in (2, 3, 5):
            same = t.with_policy(climb=n, climb_rounds=0)
            assert _policy_choice(same, lines, street, k) == plain
        differ += _policy_choice(t.with_policy(climb=5, climb_rounds=3), lines, street, k) != plain
    assert differ > 0  # and with rounds the climb does change choices


def test_the_repair_row_holds_the_first_pick_and_the_cards_it_throws() -> None:
    """``_draw_fills`` keeps, for the repair, the first pick's codes in slot order and
    then the cards its draw throws: distinct cards of the deck's range, the placed ones
    equal to the pick's prefix sums."""
    t = rollout.tables_for(rules_for("pineapple")).with_policy(repair=1, repair_spare=True)
    by_code = {int(t.codes[c]): c for c in range(52)}
    deck = np.array(random.Random(4).sample(range(52), 52), dtype=np.int64)
    lo, hi, need, extra, fills, choice = 7, 52, 8, 4, 6, 5
    pref = np.zeros((policy.pref_rows(fills, choice, t.policy), 14), dtype=np.int64)
    scratch = np.empty(52, dtype=np.int64)
    playout.seed_kernels(3)
    kept = policy.draw_fills(deck, lo, hi, need, extra, fills, choice, t.codes, scratch, pref)
    assert kept == need + extra  # what the repair may swap among
    allowed = set(int(c) for c in deck[lo:hi])
    for s in range(fills):
        row = pref[fills * choice + s]
        cards = [by_code[int(x)] for x in row[: need + extra]]
        assert len(set(cards)) == need + extra and set(cards) <= allowed
        first = pref[s * choice]
        assert [int(first[i + 1] - first[i]) for i in range(need)] == [int(x) for x in row[:need]]
