"""The checks a table passes before it settles (RULES.md §5, §7.1): complete boards,
unique seat names, every card once, the seat counts of the variant, and the money value of
a point between two players. Each fault raises :class:`ScoringError` in players' words.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from chinese_poker.cards import Card, check_disjoint
from chinese_poker.rules.spec import RulesSpec
from chinese_poker.scoring.lines import cards_text
from chinese_poker.scoring.results import Hand, ScoringError

__all__ = ["CARD_NUMBERS", "check_lines", "check_table", "unit_table"]

#: The numbers a card may have.
CARD_NUMBERS = frozenset(range(52))


def check_lines(hand: Hand) -> None:
    """Raise unless the board is complete (or a surrendered board not shown)."""
    board = hand.board
    if not (hand.surrender and len(board) == 0) and (
        len(board.top) != 3 or len(board.middle) != 5 or len(board.bottom) != 5
    ):
        raise ScoringError(
            f"{hand.name}'s board {board} is not complete: the lines need 3, 5 and 5 cards, "
            f"not {len(board.top)}, {len(board.middle)} and {len(board.bottom)}"
        )


def _check_hand(spec: RulesSpec, hand: Hand) -> list[Card]:
    """The checks only some hands need; returns the dealt cards not on the board."""
    board = hand.board
    if hand.surrender:
        if spec.variant.open_face:
            raise ScoringError(f"{hand.name} surrenders, but only classic variants allow surrender")
        if not spec.variant.has_surrender:
            raise ScoringError(f"{hand.name} surrenders, but surrender_allowed is no")
    if hand.in_fantasyland and not spec.variant.open_face:
        raise ScoringError(
            f"{hand.name} is in Fantasyland, but {spec.variant.name} has no Fantasyland"
        )
    check_lines(hand)
    if hand.dealt is None:
        return []
    on_board = set(board.cards)
    if not on_board <= set(hand.dealt):
        missing = cards_text(sorted(on_board - set(hand.dealt)))
        raise ScoringError(f"{hand.name}'s board holds cards not dealt to him: {missing}")
    return [c for c in hand.dealt if c not in on_board]


def check_table(spec: RulesSpec, hands: Sequence[Hand]) -> list[str]:
    """Validate the seats; return the players in order of first appearance."""
    cards: list[Card] = []
    owners: list[str] = []
    names = set()
    dealt = 0  # cards dealt but not on a board
    for hand in hands:
        board = hand.board
        if hand.surrender or hand.in_fantasyland or hand.dealt is not None:
            more = _check_hand(spec, hand)
            dealt += len(more)
            cards += more
        cards += board.top
        cards += board.middle
        cards += board.bottom
        name = hand.name
        names.add(name)
        player = hand.player
        owners.append(name if player is None else player)
    # One count for the lines' sizes: any board off 3/5/5 changes it, or leaves a line
    # short, which the seats' look-ups meet (settle then checks every board).
    if len(cards) - dealt != 13 * len(hands):
        for hand in hands:
            check_lines(hand)
    if len(names) != len(hands):
        _duplicate_names(hands)
    distinct = set(cards)
    if len(distinct) != len(cards) or not distinct <= CARD_NUMBERS:
        _explain_cards(hands, cards)
    players = owners if len(set(owners)) == len(owners) else list(dict.fromkeys(owners))
    variant = spec.variant
    low, high = variant.player_counts
    # The usual table (one hand a player, a count the variant allows) needs no more checks.
    if not (not variant.criss_cross and len(players) == len(owners)
            and low <= len(players) <= high):  # fmt: skip
        _check_seats(spec, hands, players, owners)
    return players


def _duplicate_names(hands: Sequence[Hand]) -> None:
    seen: set[str] = set()
    for hand in hands:
        if hand.name in seen:
            raise ScoringError(f"two seats are called {hand.name!r}; names must be unique")
        seen.add(hand.name)


def _check_seats(
    spec: RulesSpec, hands: Sequence[Hand], players: list[str], owners: list[str]
) -> None:
    count = len(players)
    variant = spec.variant
    low, high = variant.player_counts
    if variant.criss_cross:
        if count != 2:
            raise ScoringError(f"Criss Cross is for exactly 2 players, got {count}")
        for player in players:
            numbers = sorted(h.index for h in hands if h.owner == player)
            if numbers != [0, 1]:
                raise ScoringError(
                    f"in Criss Cross each player plays two hands numbered 0 and 1; "
                    f"{player} has {len(numbers)} numbered {numbers}"
                )
        return
    if not low <= count <= high:
        raise ScoringError(f"{variant.name} is for {low} to {high} players, got {count}")
    if count != len(owners):
        for player in players:
            n = owners.count(player)
            if n != 1:
                raise ScoringError(
                    f"{player} has {n} hands; only Criss Cross gives a player two hands"
                )


def _explain_cards(hands: Sequence[Hand], cards: Sequence[Card]) -> None:
    """Raise the error for a card out of range or dealt twice."""
    for c in cards:
        if not (isinstance(c, int) and 0 <= c < 52):
            raise ScoringError(f"card numbers must be 0..51, got {c!r}")
    groups = []
    for hand in hands:
        on_board = hand.board.cards
        if len(set(on_board)) != len(on_board):
            twice = sorted(c for c in set(on_board) if on_board.count(c) > 1)
            raise ScoringError(f"{hand.name}'s board holds {cards_text(twice)} twice")
        groups.append((hand.name, set(on_board) | set(hand.dealt or ())))
    try:
        check_disjoint(groups)
    except ValueError as exc:
        raise ScoringError(str(exc)) from None
    raise ScoringError("a card appears twice at the table")


def unit_table(
    players: Sequence[str], units: Mapping[tuple[str, str], float]
) -> dict[tuple[str, str], float]:
    table: dict[tuple[str, str], float] = {}
    known = set(players)
    for key, value in units.items():
        if not (isinstance(key, tuple) and len(key) == 2):
            raise ScoringError(f"a unit is keyed by a pair of players, not {key!r}")
        a, b = key
        for name in (a, b):
            if name not in known:
                raise ScoringError(
                    f"unit value for {a}-{b}: no player {name!r} at the table "
                    f"(players: {', '.join(players)})"
                )
        if a == b:
            raise ScoringError(f"unit value for {a}-{b}: a player does not play himself")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ScoringError(f"unit value for {a}-{b} must be a number, not {value!r}")
        if not math.isfinite(value) or value < 0:
            raise ScoringError(f"unit value for {a}-{b} must be a number >= 0, not {value!r}")
        for k in ((a, b), (b, a)):
            if k in table and table[k] != value:
                raise ScoringError(f"two different unit values for {a}-{b}")
            table[k] = float(value)
    return table
