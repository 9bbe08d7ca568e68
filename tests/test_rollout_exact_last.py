"""Our last street in a rollout placed exactly (``Level.exact_last``): every way to play
it settled against the opponents' completed boards (a player who saw them).

The kernel's choice is checked against a brute force judged by the scorer
(``scoring.settle_totals``) and the Fantasyland value of the rules, not by the kernels'
own settlement; and through the rollouts, against the policy's choice on the same decks.
"""

from __future__ import annotations

import dataclasses
import itertools
import random

import numpy as np
import pytest

from chinese_poker.ai import rollout
from chinese_poker.ai.mc import THROWING_LEVELS, analyse_street
from chinese_poker.ai.rollout import api, playout, settlement
from chinese_poker.ai.simple import RuleBot
from chinese_poker.cards import Board, Card
from chinese_poker.engine import Table
from chinese_poker.evaluate import evaluate3
from chinese_poker.rules import Rules, rules_for
from chinese_poker.scoring import Hand, is_fouled, settle_totals

RULES = rules_for("pineapple")

#: Last streets of every shape (3 cards keep 2, OFC's 1 card, Turbo's 4), the Finnish
#: deuce, the best-at-the-table award, and two opponents.
CASES = {
    "pineapple": (RULES, 1),
    "pineapple, two opponents, the best at the table": (
        rules_for("pineapple", royalty_award="best_at_table"), 2),
    "ofc, Finnish deuce": (rules_for("ofc", finnish_deuce=True), 1),
    "turbo, two opponents": (rules_for("turbo"), 2),
}  # fmt: skip


def _oracle(
    rules: Rules, mine: list[list[Card]], free: list[int], street: list[Card], opps: list[Board]
) -> tuple[float, float]:
    """The most and the least our last street can score: each discard, each way to fill
    the free slots, settled by the scorer against every opponent, plus Fantasyland
    earned."""
    fl = rules.spec.scoring.fantasyland
    n_keep = len(free)
    best, worst = -1e9, 1e9
    for kept in itertools.combinations(street, n_keep):
        for order in set(itertools.permutations(free)):
            lines = [list(x) for x in mine]
            for line, card in zip(order, kept, strict=True):
                lines[line].append(card)
            board = Board(tuple(lines[0]), tuple(lines[1]), tuple(lines[2]))
            hands = [Hand(name="A", board=board)]
            hands += [Hand(name=f"O{j}", board=b) for j, b in enumerate(opps)]
            total = float(settle_totals(rules, hands)["A"])
            if not is_fouled(rules, board):
                cards = fl.entry_cards(evaluate3(*board.top))
                if cards is not None:
                    total += rollout.fantasyland_value(rules, cards)
            best, worst = max(best, total), min(worst, total)
    return best, worst


@pytest.mark.parametrize("case", list(CASES))
def test_the_last_street_scores_what_the_best_play_of_it_scores(case: str) -> None:
    rules, n_opp = CASES[case]
    t = rollout.tables_for(rules).with_policy(exact_last=True)
    n_cards, n_place = rules.streets[-1]
    rng = random.Random(11)
    mattered = 0
    for _ in range(80):
        deck = list(range(52))
        rng.shuffle(deck)
        slots = [0] * 3 + [1] * 5 + [2] * 5
        free = sorted(rng.sample(slots, n_place))
        sizes = [3 - free.count(0), 5 - free.count(1), 5 - free.count(2)]
        cut = [sizes[0], sizes[0] + sizes[1], 13 - n_place]
        mine = [deck[: cut[0]], deck[cut[0] : cut[1]], deck[cut[1] : cut[2]]]
        k = cut[2]
        opps = []
        for _ in range(n_opp):
            opps.append(Board(tuple(deck[k : k + 3]), tuple(deck[k + 3 : k + 8]),
                              tuple(deck[k + 8 : k + 13])))  # fmt: skip
            k += 13
        street = deck[k : k + n_cards]
        code, cnt, dz = api.line_state(mine, t.codes)
        vals = np.zeros((n_opp + 1, 3), dtype=np.int64)
        roys = np.zeros((n_opp + 1, 3), dtype=np.float64)
        odl = np.zeros(n_opp, dtype=np.int64)
        ofoul = np.zeros(n_opp, dtype=np.bool_)
        for j, b in enumerate(opps):
            ocode, _, odz = api.line_state(b.lines, t.codes)
            odl[j], ofoul[j], _ = settlement.finish_board(ocode, odz, t.ev, t.roy, t.scoring,
                                                        vals[j], roys[j])  # fmt: skip
        best = np.full(6, -1, dtype=np.int64)
        deal = np.array(street, dtype=np.int64)
        trial = tuple(np.empty(3, dtype=np.int64) for _ in range(3))
        seats = (vals, roys, odl, ofoul, best)
        settle = (t.ev, t.roy, t.scoring, t.flv, t.policy)
        playout.exact_street((code, cnt, dz), deal, 0, n_cards, n_place, n_cards - n_place,
                             False, seats, settle, trial)  # fmt: skip
        assert cnt.tolist() == [3, 5, 5]
        got, _, _ = settlement.our_points(code, dz, False, seats, settle)
        want, worst = _oracle(rules, mine, free, street, opps)
        assert abs(got - want) < 1e-9
        mattered += want > worst
    if n_cards > 1:  # a choice to make (OFC's one card has its one slot)
        assert mattered > 0


@pytest.mark.parametrize("placed", [5, 7, 9])
def test_through_the_rollouts_no_candidate_scores_less_than_with_the_policy(placed: int) -> None:
    """On the same decks the exact last street can only add points: every candidate's mean
    (from the second street on) is at least the policy's, and above it for some."""
    gained = 0
    for seed in range(3):
        table = Table(RULES, 2, seed=100 + seed)
        bots = [RuleBot(seed=1), RuleBot(seed=2)]
        while len(table.board(table.to_act[0]).cards) != placed:
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
