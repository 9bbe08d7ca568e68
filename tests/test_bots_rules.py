"""The rules bot plays as the articles ([000]/[001], Pineapple strategy) teach, checked on
constructed first streets and on whole hands by looking at the boards it builds; the
outs it counts against a brute-force count."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable
from fractions import Fraction

import pytest

from chinese_poker.ai.simple import RuleBot, pair_chance
from chinese_poker.cards import Card
from chinese_poker.engine import Place, Table, play_hand
from chinese_poker.rules import preset_names, rules_for

OPEN_FACE = [p for p in preset_names() if rules_for(p).is_open_face]
SEEDS = range(40)


def _rank(c: Card) -> int:
    return c >> 2


def _first_street(preset: str, make: Callable[[random.Random], list[Card]], seed: int
                  ) -> tuple[list[Card], Place]:  # fmt: skip
    """The rules bot's first placement of five cards built by ``make`` (both seats are
    dealt such five; the seat to act first is checked)."""
    rng = random.Random(seed)
    while True:
        a, b = make(rng), make(rng)
        if not set(a) & set(b):
            break
    rest = [c for c in range(52) if c not in a + b]
    rng.shuffle(rest)
    table = Table(rules_for(preset), 2, deck=a + b + rest)
    seat = table.to_act[0]
    view = table.view(seat)
    dec = view.decisions[0]
    assert dec.street == 1 and sorted(dec.cards) in (sorted(a), sorted(b))
    action = RuleBot(seed=seed).act(view)
    assert isinstance(action, Place) and table.check(action) is None
    return list(dec.cards), action


def _four_flush(rng: random.Random) -> list[Card]:
    suit = rng.randrange(4)
    flush = [r * 4 + suit for r in rng.sample(range(13), 4)]
    other = rng.choice([c for c in range(52) if c & 3 != suit])
    return [*flush, other]


def _pair_of_threes(rng: random.Random) -> list[Card]:
    while True:
        threes = [1 * 4 + s for s in rng.sample(range(4), 2)]
        others = [r * 4 + rng.randrange(4) for r in rng.sample([r for r in range(13) if r != 1], 3)]
        cards = threes + others
        if max(Counter(c & 3 for c in cards).values()) < 4:
            return cards


def _nothing(rng: random.Random) -> list[Card]:
    while True:
        cards = [r * 4 + rng.randrange(4) for r in rng.sample(range(13), 5)]
        if max(Counter(c & 3 for c in cards).values()) < 4:
            return cards


@pytest.mark.parametrize("preset", ["pineapple", "ofc"])
def test_four_card_flush_goes_to_the_bottom_together(preset: str) -> None:
    # [001] rule 4: "four cards of the same suit in the first hand: all 4 in the bottom".
    for seed in SEEDS:
        cards, place = _first_street(preset, _four_flush, seed)
        suit, n = Counter(c & 3 for c in cards).most_common(1)[0]
        assert n == 4
        assert sum(1 for c in place.bottom if c & 3 == suit) == 4, (cards, place)


@pytest.mark.parametrize("preset", ["pineapple", "ofc"])
def test_a_pair_of_threes_stays_together_in_the_bottom(preset: str) -> None:
    # [001] first bullet: "pairs are best placed in the bottom"; rule 1: no pair on top.
    for seed in SEEDS:
        cards, place = _first_street(preset, _pair_of_threes, seed)
        threes = [c for c in cards if _rank(c) == 1]
        assert all(c in place.bottom for c in threes), (cards, place)


@pytest.mark.parametrize("preset", ["pineapple", "pineapple-progressive"])
def test_nothing_puts_the_high_cards_low(preset: str) -> None:
    # [001] rule 3: "no pair or better: cards above ten in the bottom box, the middle
    # card in the middle, the small ones on top"; rule 1: an ace may go on top. (A
    # Pineapple rule: one-card OFC does not follow it, docs/bots.md.)
    for seed in SEEDS:
        cards, place = _first_street(preset, _nothing, seed)
        for c in place.middle:
            assert _rank(c) < 9, (cards, place)  # no jack, queen, king or ace
        for c in place.top:
            assert _rank(c) <= 6 or _rank(c) == 12, (cards, place)  # an 8 or lower, or an ace


@pytest.mark.parametrize("preset", OPEN_FACE)
def test_no_low_pair_on_top_early(preset: str) -> None:
    # [001] rule 1: no pair on top at once (a pair below the Fantasyland queens).
    rules = rules_for(preset)
    for seed in range(12):
        table = Table(rules, 2, seed=seed)
        bots = [RuleBot(seed=seed), RuleBot(seed=seed + 100)]
        while not table.over:
            seat = table.to_act[0]
            view = table.view(seat)
            dec = view.decisions[0]
            action = bots[seat].act(view)
            assert table.check(action) is None
            table.apply(action)
            if dec.kind == "street" and dec.street <= 2 and isinstance(action, Place):
                top = table.view(seat).board_of(seat, dec.hand).top
                ranks = Counter(_rank(c) for c in top)
                assert not any(n >= 2 and r < 10 for r, n in ranks.items()), (seed, top)


def test_pair_chance_counts_the_outs_exactly() -> None:
    """Against a brute-force count of every set of cards to come."""
    for unseen, outs, seen in [(10, 2, 3), (12, 3, 4), (9, 1, 9), (8, 0, 3), (11, 4, 1)]:
        deck = list(range(unseen))  # cards 0 .. outs-1 are the outs
        hits = sum(1 for draw in itertools.combinations(deck, seen) if min(draw) < outs)
        total = sum(1 for _ in itertools.combinations(deck, seen))
        assert pair_chance(outs, unseen, seen) == pytest.approx(float(Fraction(hits, total)))


@pytest.mark.parametrize("preset", OPEN_FACE)
def test_whole_hands_are_legal_in_every_open_face_preset(preset: str) -> None:
    for seed in range(3):
        for seats in (2, 3):
            table = Table(rules_for(preset), seats, seed=seed)
            play_hand(table, [RuleBot(seed=seed + i) for i in range(seats)])
            assert table.over
