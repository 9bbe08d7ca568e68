"""The setting solver finds naturals over every setting, not only on its best board.

Under ``natural_source = set_board`` three flushes and three straights count only as the
board is set, so the solver must look at every setting that could show one. Oracles:
``natural_of`` under ``natural_source = dealt_cards`` (an independent search of the 13
cards: cards that can be set into three straights or three flushes can always be set so
without fouling, since two straights or two flushes can be ordered and a 3-card top never
beats either), ``natural_of`` on the board the solver shows, and ``scoring.settle``.
"""

from __future__ import annotations

import random

import pytest

from chinese_poker.ai.setting import solve_setting
from chinese_poker.cards import Board, Card, parse_cards
from chinese_poker.rules import Rules, rules_for
from chinese_poker.scoring import Hand, is_fouled, natural_of, settle

ISSUE_HAND = "4d Td Qc 3s Js 8d 2h 7d 9s 6s 5s Tc Jc"
SET_NATURALS = ("three_flushes", "three_straights")


def _set_board(claim: str = "automatic") -> Rules:
    return rules_for("classic", natural_source="set_board", natural_claim=claim)


def _dealt_natural(cards: list[Card]) -> str | None:
    """The natural the 13 cards hold, any setting (the dealt-cards search)."""
    board = Board(tuple(cards[:3]), tuple(cards[3:8]), tuple(cards[8:]))
    found = natural_of(rules_for("classic", natural_source="dealt_cards"), board)
    return None if found is None else found.kind


def _opponents(rng: random.Random, mine: list[Card], n: int, rules: Rules) -> list[Board]:
    """Boards for ``n`` opponents from the other 39 cards, set by the solver, no naturals."""
    while True:
        rest = [c for c in range(52) if c not in mine]
        rng.shuffle(rest)
        boards = [solve_setting(rest[13 * i : 13 * i + 13], rules).board for i in range(n)]
        if all(natural_of(rules, b) is None for b in boards):
            return boards


@pytest.mark.parametrize("claim", ["automatic", "optional"])
def test_issue_hand_claims_three_straights(claim: str) -> None:
    rules = _set_board(claim)
    cards = parse_cards(ISSUE_HAND)
    sol = solve_setting(cards, rules, opponents=3)
    assert sol.natural == "three_straights"
    shown = natural_of(rules, sol.board)
    assert shown is not None and shown.kind == "three_straights"
    assert sorted(sol.board.cards) == sorted(cards) and not is_fouled(rules, sol.board)
    # Settled as advised: the natural's value from each of three plain opponents.
    others = _opponents(random.Random(1), list(cards), 3, rules)
    hands = [Hand(name="me", board=sol.board, declares_natural=True)]
    hands += [Hand(name=f"o{i}", board=b) for i, b in enumerate(others)]
    assert settle(rules, hands).totals["me"] == 3 * rules.natural_values["three_straights"]
    # Its best plain setting is worth far less (what the solver used to play).
    plain = solve_setting(cards, rules_for("classic", naturals_enabled=False), opponents=3)
    assert plain.expected < 0 < sol.expected


def _three_straights(rng: random.Random) -> list[Card]:
    while True:
        top = rng.randrange(0, 11)  # 2-3-4 .. Q-K-A
        runs = [[top + i for i in range(3)]]
        runs += [[s + i for i in range(5)] for s in (rng.randrange(0, 9), rng.randrange(0, 9))]
        cards = {r * 4 + rng.randrange(4) for run in runs for r in run}
        if len(cards) == 13:
            return sorted(cards)


def _three_flushes(rng: random.Random) -> list[Card]:
    while True:
        suits = [rng.randrange(4) for _ in range(3)]
        cards: set[Card] = set()
        for suit, size in zip(suits, (3, 5, 5), strict=True):
            cards |= {r * 4 + suit for r in rng.sample(range(13), size)}
        if len(cards) == 13:
            return sorted(cards)


def _hands(seed: int) -> list[list[Card]]:
    """Constructed naturals, and each with one card swapped (sometimes still natural)."""
    rng = random.Random(seed)
    out = []
    for make in (_three_straights, _three_flushes):
        for _ in range(12):
            cards = make(rng)
            out.append(cards)
            broken = list(cards)
            broken[rng.randrange(13)] = rng.choice([c for c in range(52) if c not in cards])
            out.append(sorted(broken))
    return out


@pytest.mark.parametrize("claim", ["automatic", "optional"])
def test_a_natural_is_found_exactly_when_some_setting_shows_one(claim: str) -> None:
    rules = _set_board(claim)
    claimed = 0
    for cards in _hands(7):
        oracle = _dealt_natural(cards)
        sol = solve_setting(cards, rules, opponents=2)
        shown = natural_of(rules, sol.board)
        assert sorted(sol.board.cards) == cards and not is_fouled(rules, sol.board)
        if oracle is None or oracle not in SET_NATURALS:
            assert sol.natural == oracle, (cards, sol)
            continue
        if sol.natural is None:
            # Played instead: only when the best setting beats the claim (worth the
            # natural's value from each opponent who has no natural, p < 10%).
            assert sol.expected > 0.9 * 2 * rules.natural_values[oracle], (cards, sol)
            continue
        assert sol.natural == oracle, (cards, sol)
        assert shown is not None and shown.kind == oracle
        claimed += 1
    assert claimed >= 20  # most constructed hands, and some of the broken ones


def test_dealt_cards_naturals_show_a_board_that_has_them() -> None:
    rules = rules_for("classic")  # natural_source = dealt_cards
    for cards in _hands(3)[::2]:
        sol = solve_setting(cards, rules)
        assert sol.natural == _dealt_natural(cards)
        # The board shown holds the natural as set too, when a setting can show it.
        shown = natural_of(_set_board(), sol.board)
        assert shown is not None and shown.kind == sol.natural


def test_surrender_exactly_when_it_beats_the_best_setting() -> None:
    """Surrender is advised exactly when its expected points beat the best setting's,
    and what is advised is what settling it pays."""
    rules = rules_for("classic-1-6", surrender_cost=2)
    rng = random.Random(5)
    seen = {True: 0, False: 0}
    for _ in range(60):
        deck = list(range(52))
        rng.shuffle(deck)
        # Weak hands often (low cards), so that surrender comes up.
        cards = (
            sorted(deck[:13]) if rng.random() < 0.4 else sorted(rng.sample(range(30), 13))
        )  # 2s to 9h: few pairs, no high cards
        sol = solve_setting(cards, rules, opponents=3)
        if sol.natural is not None:
            continue
        assert sol.surrender_expected is not None
        assert sol.surrender == (sol.surrender_expected > sol.expected)
        seen[sol.surrender] += 1
        if sol.surrender:
            others = _opponents(rng, cards, 3, rules)
            hands = [Hand(name="me", board=sol.board, surrender=True)]
            hands += [Hand(name=f"o{i}", board=b) for i, b in enumerate(others)]
            assert settle(rules, hands).totals["me"] == -3 * rules.surrender_cost
    assert seen[True] >= 3 and seen[False] >= 3, seen
