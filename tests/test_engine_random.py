"""Thousands of random hands of every preset and player count, with invariants.

Each hand checks: the cards dealt are distinct and are exactly the deck's first cards in
the canonical order; every board is filled exactly (3/5/5) from the seat's own cards, the
rest discarded; the totals sum to zero; illegal actions are refused with a reason and
leave the full state unchanged; the hand replays identically from its history record.
"""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chinese_poker.engine import (
    ClaimNatural,
    IllegalActionError,
    Place,
    Surrender,
    Table,
    Timeout,
    hand_record,
    replay_history,
)
from chinese_poker.rules import Rules, preset_names, rules_for

PRESETS = preset_names()
VARIANT_OPTIONS = [
    ("classic", {"natural_claim": "optional"}),
    ("classic", {"surrender_allowed": False, "naturals_enabled": False}),
    ("criss-cross", {"criss_cross_pairing": "parallel", "natural_claim": "optional"}),
    ("ofc", {"fantasyland_enabled": False}),
    ("classic-low-middle", {"low_middle_qualifier": "ten_high_no_pair"}),
]


def _fantasyland_for(rules: Rules, n: int, rng: random.Random) -> dict[int, int]:
    if not rules.is_open_face or not rules.fantasyland_enabled or rng.random() < 0.6:
        return {}
    seats = rng.sample(range(n), rng.randint(1, n))
    deal: dict[int, int] = {}
    for seat in seats:
        if rules.variant == "pineapple":
            deal[seat] = rng.choice([14, 15, 16, 17] if rules.fl_progressive else [14])
        else:
            deal[seat] = 13
    normal = n - len(deal)
    need = sum(deal.values()) + normal * sum(d for d, _ in rules.streets)
    return deal if need <= 52 else {}


def _corrupt(t: Table, action: Place, rng: random.Random) -> object:
    """An action that is certainly illegal, derived from a legal one."""
    cards = action.top + action.middle + action.bottom + action.discard
    others = [c for c in range(52) if c not in cards]
    choice = rng.randrange(6)
    if choice == 0:  # a card the seat does not hold
        line = next(
            name for name in ("top", "middle", "bottom", "discard") if getattr(action, name)
        )
        cards_in = list(getattr(action, line))
        cards_in[0] = rng.choice(others)
        return dataclasses.replace(action, **{line: tuple(cards_in)})
    if choice == 1:  # a card twice
        if len(cards) < 2:
            return Place(action.seat, (cards[0],), (cards[0],), version=action.version)
        line = next(name for name in ("bottom", "middle", "top") if getattr(action, name))
        first = cards[0] if cards[0] not in getattr(action, line) else cards[-1]
        cards_in = list(getattr(action, line))
        cards_in[0] = first
        return dataclasses.replace(action, **{line: tuple(cards_in)})
    if choice == 2:  # a seat that is not to act
        idle = [s for s in range(t.n_seats) if s not in t.to_act]
        return dataclasses.replace(action, seat=idle[0]) if idle else Surrender(action.seat)
    if choice == 3:  # a version from the future
        return dataclasses.replace(action, version=t.version + 1)
    if choice == 4:  # one discard too many
        return dataclasses.replace(action, discard=(*action.discard, rng.choice(others)))
    return ClaimNatural(action.seat)


def play_and_check(rules: Rules, n: int, seed: int, *, illegal: float = 0.15) -> Table:
    rng = random.Random(seed)
    fl = _fantasyland_for(rules, n, rng)
    timeout = rng.random() < 0.15
    t = Table(rules, n, button=seed % n, seed=seed, fantasyland=fl)
    while not t.over:
        seat = rng.choice(t.to_act)
        if timeout and rng.random() < 0.05 and seat not in t.timed_out:
            t.apply(Timeout(seat, version=t.version))
            continue
        action = t.random_action(seat, rng)
        assert t.can(action), t.check(action)
        if isinstance(action, Place) and rng.random() < illegal:
            bad = _corrupt(t, action, rng)
            before = t.snapshot()
            reason = t.check(bad)
            assert reason, bad
            with pytest.raises(IllegalActionError):
                t.apply(bad)  # type: ignore[arg-type]
            assert t.snapshot() == before
        t.apply(action)
    _check_finished(t)
    return t


def _check_finished(t: Table) -> None:
    rules = t.rules
    dealt_all: list[int] = []
    hands = 2 if rules.variant == "criss_cross" else 1
    for seat in range(t.n_seats):
        for h in range(hands):
            dealt = t.dealt(seat, h)
            board = t.board(seat, h)
            assert board.complete
            assert sorted(board.cards + t.discards(seat, h)) == sorted(dealt)
            dealt_all.extend(dealt)
    assert len(set(dealt_all)) == len(dealt_all)
    assert set(dealt_all) == set(t.deck[: len(dealt_all)])
    if rules.is_open_face:
        for seat, cards in t.fantasyland.items():
            assert len(t.dealt(seat)) == cards and len(t.discards(seat)) == cards - 13
    assert sum(t.totals.values()) == 0
    assert t.to_act == ()


@pytest.mark.parametrize("preset", PRESETS)
def test_random_hands_every_preset(preset: str) -> None:
    rules = rules_for(preset)
    hands = 120 if rules.is_classic else 300
    for n in rules.player_counts:
        for seed in range(hands):
            t = play_and_check(rules, n, seed * 31 + n)
            if seed % 10 == 0:
                (replayed,) = replay_history([hand_record(t)])
                assert replayed.totals == t.totals


@pytest.mark.parametrize(("preset", "options"), VARIANT_OPTIONS)
def test_random_hands_option_variants(preset: str, options: dict[str, object]) -> None:
    rules = rules_for(preset, **options)
    for n in rules.player_counts:
        for seed in range(40):
            play_and_check(rules, n, seed + 1000)


@settings(max_examples=60, deadline=None)
@given(
    preset=st.sampled_from(PRESETS),
    seed=st.integers(min_value=0, max_value=2**32),
    extra=st.integers(min_value=0, max_value=2),
)
def test_hypothesis_hands(preset: str, seed: int, extra: int) -> None:
    rules = rules_for(preset)
    n = list(rules.player_counts)[extra % len(rules.player_counts)]
    t = play_and_check(rules, n, seed, illegal=0.3)
    (replayed,) = replay_history([hand_record(t)])
    assert replayed.boards == {k: v for k, v in hand_record(t)["boards"].items()}
