"""``Settlement.pair_points``: what each pair of seats settled to, told without building
the itemised breakdown where the settlement knows it from its own arithmetic, and always
the points of ``pairs`` in their order.

The engine books every hand's points per pair of players from it, so a wrong pair here
is a wrong ledger; the differential test of ``settle`` itself is tests/test_settle_lazy.py.
"""

from __future__ import annotations

import random

import pytest

from chinese_poker.cards import Board
from chinese_poker.rules import PRESETS, Rules, rules_for
from chinese_poker.scoring import Hand, Settlement, is_fouled, settle


def _boards(rng: random.Random, rules: Rules, count: int) -> list[Board]:
    """``count`` boards of one deck, most re-set until they keep the line order."""
    deck = rng.sample(range(52), 52)
    out = []
    for cards in (deck[13 * i : 13 * i + 13] for i in range(count)):
        tries = 60 if rng.random() < 0.7 else 1
        while True:
            board = Board(tuple(cards[:3]), tuple(cards[3:8]), tuple(cards[8:]))
            tries -= 1
            if tries <= 0 or not is_fouled(rules, board):
                out.append(board)
                break
            rng.shuffle(cards)
    return out


def _table(rng: random.Random, rules: Rules) -> list[Hand]:
    """Seats for ``rules``, some owned by another name (and the two hands of a Criss
    Cross player)."""
    variant = rules.spec.variant
    if variant.hands_per_seat == 2:
        boards = _boards(rng, rules, 4)
        return [Hand(name=f"P{i // 2}-{i % 2}", player=f"P{i // 2}", index=i % 2, board=board)
                for i, board in enumerate(boards)]  # fmt: skip
    boards = _boards(rng, rules, rng.randint(*variant.player_counts))
    return [Hand(name=f"S{i}", player=f"player {i}" if rng.random() < 0.2 else None, board=b)
            for i, b in enumerate(boards)]  # fmt: skip


def _from_pairs(settled: Settlement) -> tuple[tuple[str, str, int], ...]:
    return tuple((p.a_player, p.b_player, p.points) for p in settled.pairs)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_pair_points_are_the_points_of_the_pairs_read_before_or_after_them(name: str) -> None:
    rules = rules_for(name)
    rng = random.Random(name)
    for _ in range(80):
        hands = _table(rng, rules)
        first = settle(rules, hands)
        early = first.pair_points
        assert early == _from_pairs(first)
        assert first.pair_points is early  # told once
        second = settle(rules, hands)
        assert second.pairs is not None and second.pair_points == early
        # Told first, nothing else of the settlement changes.
        assert first.to_dict() == second.to_dict() and first == second
        for a, b, _ in early:
            assert a != b
        totals = dict.fromkeys(first.totals, 0)
        for a, b, points in early:
            totals[a] += points
            totals[b] -= points
        assert totals == dict(first.totals)


def test_pair_points_of_a_settlement_made_of_its_fields_come_from_its_pairs() -> None:
    rules = rules_for("ofc")
    hands = _table(random.Random(3), rules)
    settled = settle(rules, hands)
    eager = Settlement(*settled)
    assert eager.pair_points == _from_pairs(settled) == settled.pair_points


def test_the_result_read_first_is_the_result_read_after_the_breakdown() -> None:
    """The fields built when first read (money, seat totals, fouls, Fantasyland) are the
    same read before, after or without the breakdown, and each is built once."""
    for name in ("ofc", "pineapple", "pineapple-progressive", "ofc-finnish"):
        rules = rules_for(name)
        rng = random.Random(name)
        for _ in range(60):
            hands = _table(rng, rules)
            early = settle(rules, hands)
            fields = (early.money, early.seat_totals, early.fouled, early.fantasyland)
            assert (early.money, early.seat_totals, early.fouled, early.fantasyland) == fields
            assert early.money is fields[0]
            late = settle(rules, hands)
            assert late.pairs is not None
            assert (late.money, late.seat_totals, late.fouled, late.fantasyland) == fields
            assert early.pairs == late.pairs and early == late
