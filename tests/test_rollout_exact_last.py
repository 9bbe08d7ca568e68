"""Our last street in a rollout placed exactly (``Level.exact_last``): every way to play
it settled against the opponents' completed boards.

The kernel's choice is checked against a brute force judged by the scorer
(``scoring.settle_totals``) and the Fantasyland value of the rules, not by the kernels'
own settlement; and through the rollouts, against the policy's choice on the same decks.
"""

from __future__ import annotations

import dataclasses
import itertools
import random

import numpy as np

from chinese_poker.ai import rollout
from chinese_poker.ai.mc import THROWING_LEVELS, analyse_street
from chinese_poker.ai.simple import RuleBot
from chinese_poker.cards import Board, Card
from chinese_poker.engine import Table
from chinese_poker.evaluate import evaluate3
from chinese_poker.rules import rules_for
from chinese_poker.scoring import Hand, is_fouled, settle_totals

RULES = rules_for("pineapple")


def _oracle(mine: list[list[Card]], free: list[int], street: list[Card], opp: Board) -> float:
    """The most our last street can score: each discard, each way to fill the free slots."""
    fl = RULES.spec.scoring.fantasyland
    best = -1e9
    for d in range(3):
        kept = [c for i, c in enumerate(street) if i != d]
        for order in set(itertools.permutations(free)):
            lines = [list(x) for x in mine]
            for line, card in zip(order, kept, strict=True):
                lines[line].append(card)
            board = Board(tuple(lines[0]), tuple(lines[1]), tuple(lines[2]))
            points = settle_totals(RULES, [Hand(name="A", board=board), Hand(name="B", board=opp)])
            total = float(points["A"])
            if not is_fouled(RULES, board):
                cards = fl.entry_cards(evaluate3(*board.top))
                if cards is not None:
                    total += rollout.fantasyland_value(RULES, cards)
            best = max(best, total)
    return best


def test_the_last_street_scores_what_the_best_play_of_it_scores() -> None:
    t = rollout.tables_for(RULES).with_policy(exact_last=True)
    rng = random.Random(11)
    for _ in range(150):
        deck = list(range(52))
        rng.shuffle(deck)
        free = rng.choice([[0, 1], [0, 2], [1, 2], [1, 1], [2, 2], [0, 0]])
        sizes = [3 - free.count(0), 5 - free.count(1), 5 - free.count(2)]
        mine = [
            deck[: sizes[0]],
            deck[sizes[0] : sizes[0] + sizes[1]],
            deck[sizes[0] + sizes[1] : 11],
        ]
        opp = Board(tuple(deck[11:14]), tuple(deck[14:19]), tuple(deck[19:24]))
        street = deck[24:27]
        code, cnt, dz = rollout._line_state(mine, t.codes)
        vals = np.zeros((2, 3), dtype=np.int64)
        roys = np.zeros((2, 3), dtype=np.float64)
        ocode, _, odz = rollout._line_state(opp.lines, t.codes)
        odl = np.zeros(1, dtype=np.int64)
        ofoul = np.zeros(1, dtype=np.bool_)
        odl[0], ofoul[0], _ = rollout._finish_board(ocode, odz, t.ev, t.roy, t.scoring, vals[0],
                                                    roys[0])  # fmt: skip
        best = np.full(6, -1, dtype=np.int64)
        deal = np.array(street, dtype=np.int64)
        tmp = [np.empty(3, dtype=np.int64) for _ in range(3)]
        rollout._exact_street(code, cnt, dz, deal, 0, 3, 2, 1, t.ev, t.roy, t.scoring, vals,
                              roys, 1, odl, ofoul, best, False, False, t.flv, t.policy,
                              *tmp)  # fmt: skip
        assert cnt.tolist() == [3, 5, 5]
        got, _, _ = rollout._our_points(code, dz, t.ev, t.roy, t.scoring, vals, roys, 1, odl,
                                        ofoul, best, False, False, t.flv, t.policy)  # fmt: skip
        assert abs(got - _oracle(mine, free, street, opp)) < 1e-9


def test_through_the_rollouts_no_candidate_scores_less_than_with_the_policy() -> None:
    """On the same decks the exact last street can only add points: every candidate's mean
    (the fourth street, one street before our last) is at least the policy's, and above it
    for some."""
    gained = 0
    for seed in range(4):
        table = Table(RULES, 2, seed=100 + seed)
        bots = [RuleBot(seed=1), RuleBot(seed=2)]
        while len(table.board(table.to_act[0]).cards) != 9:
            s = table.to_act[0]
            table.apply(bots[s].act(table.view(s)))
        view = table.view(table.to_act[0])
        level = dataclasses.replace(THROWING_LEVELS[1], keep=99)
        plain = analyse_street(view, view.decisions[0], level, seed=seed)
        exact = analyse_street(view, view.decisions[0], dataclasses.replace(level, exact_last=1),
                               seed=seed)  # fmt: skip
        by_action = {o.action: o for o in plain}
        assert len(by_action) == len(exact) > 1
        for o in exact:
            p = by_action[o.action]
            assert o.rollouts == p.rollouts
            assert o.value >= p.value - 1e-9
            gained += o.value > p.value + 1e-9
    assert gained > 0
