"""One seat settled on its own (RULES.md §3.4, §7.3, §8, §9): its line values and names,
whether it fouls, claims a natural or surrenders, its royalties and next Fantasyland deal.

Pairs of seats are settled by :mod:`.pairs`; the table by :mod:`.settlement`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chinese_poker import evaluate as _ev
from chinese_poker.cards import RANKS, Board, Card
from chinese_poker.evaluate import CARD_CODES, describe, evaluate_low27, low27_high_card
from chinese_poker.rules import Rules
from chinese_poker.rules.spec import ScoringSpec
from chinese_poker.scoring.fantasyland import next_deal
from chinese_poker.scoring.lines import FoulReason, board_foul_reason
from chinese_poker.scoring.naturals import find_natural
from chinese_poker.scoring.results import DEUCE_OF_SPADES, Hand, Natural, SeatResult
from chinese_poker.scoring.royalties import BOTTOM, MIDDLE, TOP, middle_royalty, royalty_parts

__all__ = [
    "NEW",
    "deuce_line",
    "five_table",
    "line_name",
    "line_names",
    "read_seat",
    "seat",
    "with_reason",
]

_DESCRIPTIONS: dict[int, str] = {}
_LOW_DESCRIPTIONS: dict[int, str] = {}


def _describe(value: int) -> str:
    text = _DESCRIPTIONS.get(value)
    if text is None:
        text = _DESCRIPTIONS[value] = describe(value)
    return text


def line_names(top: int, middle: int, bottom: int) -> tuple[str, str, str]:
    """The names of three line values (high middle)."""
    known = _DESCRIPTIONS
    try:  # subscripts, not get(): a method call costs more than the look-up
        return known[top], known[middle], known[bottom]
    except KeyError:
        return _describe(top), _describe(middle), _describe(bottom)


def _describe_low(low: int, high: int) -> str:
    text = _LOW_DESCRIPTIONS.get(low)
    if text is None:
        top = low27_high_card(low)
        if top is None:
            text = f"{describe(high)} (no low)"
        else:
            text = f"{RANKS[top]}-low: " + " ".join(
                RANKS[((high >> shift) & 15) - 2] for shift in (16, 12, 8, 4, 0)
            )
        _LOW_DESCRIPTIONS[low] = text
    return text


def line_name(rules: Rules, line: int, cards: Sequence[Card]) -> str:
    """The name of a complete line (0 top, 1 middle, 2 bottom) as the breakdown gives it:
    the low under a low middle, the wheel option applied.

    >>> from chinese_poker.cards import parse_cards
    >>> from chinese_poker.rules import rules_for
    >>> line_name(rules_for("classic-low-middle"), 1, parse_cards("7c 5d 4h 3s 2c"))
    '7-low: 7 5 4 3 2'
    """
    sc = rules.spec.scoring
    if line == 0:
        return _describe(_ev.evaluate3(cards[0], cards[1], cards[2]))
    high = _ev.evaluate(cards, wheel=sc.wheel)
    if line == 1 and sc.lowball_middle:
        return _describe_low(evaluate_low27(cards), high)
    return _describe(high)


_ZERO3 = (0, 0, 0)
_NO_HANDS = ("", "", "")

# The evaluator's look-ups, read directly: a line's value is one index of the sum of its
# cards' codes (chinese_poker.evaluate), and settling calls it six times a pair.
_CC = CARD_CODES
_T3 = _ev.line_tables().line3
_FO = _ev.line_tables().flush_offset


def five_table(sc: ScoringSpec) -> list[int]:
    """The five-card look-up of these rules (the wheel option applied)."""
    return _ev.line_tables(sc.wheel).line5


def deuce_line(hand: Hand) -> int:
    """The line holding the deuce of spades (Finnish OFC), -1 if none."""
    board = hand.board
    if DEUCE_OF_SPADES in board.top:
        return TOP
    if DEUCE_OF_SPADES in board.middle:
        return MIDDLE
    if DEUCE_OF_SPADES in board.bottom:
        return BOTTOM
    return -1


#: Builds a NamedTuple without the keyword machinery (the settlement's hot path).
NEW = tuple.__new__


def _low_middle(
    sc: ScoringSpec, board: Board, top: int, middle_high: int, bottom: int
) -> tuple[int, tuple[str, str, str], str | None]:
    """(middle low value, line names, foul reason) of a board under a low middle."""
    middle = evaluate_low27(board.middle)
    hands = (_describe(top), _describe_low(middle, middle_high), _describe(bottom))
    return middle, hands, board_foul_reason(sc, board, top, middle_high, middle, bottom)


def _capped_royalties(
    sc: ScoringSpec, hand: Hand, values: tuple[int, int, int]
) -> tuple[tuple[int, int, int], tuple[str, ...], tuple[int, int, int]]:
    """(royalties, dealt-combination names, strengths) under the per-hand rules or a low
    middle (the plain case is looked up inline in :func:`seat`)."""
    ro = sc.royalties
    top, middle, bottom = values
    if ro.dealt_combination or ro.max_per_hand == 1:
        roy, bonus, dealt_strength = royalty_parts(sc, hand.board, values, hand.dealt)
        return roy, bonus, (top, middle, max(bottom, dealt_strength))
    return (ro.top_of(top), middle_royalty(sc, middle), ro.bottom_of(bottom)), (), values


def _low_lines(
    sc: ScoringSpec, board: Board, t5: list[int]
) -> tuple[int, int, int, int, tuple[str, str, str], str | None]:
    """(top, middle high, middle low, bottom, line names, foul reason) of a complete board
    under a low middle."""
    t, m, b = board.top, board.middle, board.bottom
    cc, fo = _CC, _FO
    k = cc[m[0]] + cc[m[1]] + cc[m[2]] + cc[m[3]] + cc[m[4]]
    j = cc[b[0]] + cc[b[1]] + cc[b[2]] + cc[b[3]] + cc[b[4]]
    top = _T3[(cc[t[0]] + cc[t[1]] + cc[t[2]]) >> 12]
    middle_high = t5[(k >> 12) + fo[k & 4095]]
    bottom = t5[(j >> 12) + fo[j & 4095]]
    middle, hands, reason = _low_middle(sc, board, top, middle_high, bottom)
    return top, middle_high, middle, bottom, hands, reason


def _claims(
    sc: ScoringSpec, hand: Hand, middle_high: int, bottom: int, out_of_order: bool
) -> tuple[Natural | None, bool, bool]:
    """(the natural the hand claims, whether it surrenders, whether it fouls): a natural
    is paid first, and a seat that surrenders does not foul."""
    natural = None
    ns = sc.naturals
    if ns is not None and (not ns.optional_claim or hand.declares_natural):
        natural = find_natural(ns, hand.board, middle_high, bottom)
    surrendered = hand.surrender and natural is None
    fouled = out_of_order and sc.misset_penalised and natural is None and not surrendered
    return natural, surrendered, fouled


# Stands for a high-middle board's foul reason until the breakdown is read: the sentence
# costs more than the rest of the seat, and the totals need only whether it fouls.
_REASON_LATER = FoulReason("", "later", line="")


def _hidden_surrender(hand: Hand, player: str) -> SeatResult:
    """A seat that surrendered without showing its board."""
    return NEW(SeatResult, (
        hand.name, player, hand.index, hand.board, _ZERO3, _NO_HANDS, _ZERO3, None, False,
        None, True, hand.in_fantasyland, None, -1, (), _ZERO3,
    ))  # fmt: skip


def seat(sc: ScoringSpec, hand: Hand, t5: list[int], plain: bool) -> SeatResult:
    """One seat settled on its own; ``plain``: royalties are the per-line look-ups. A
    high-middle board's foul reason is worded when the breakdown is read
    (:func:`with_reason`)."""
    board = hand.board
    name = hand.name
    player = name if hand.player is None else hand.player
    if hand.surrender and not len(board):  # surrendered, the board not shown
        return _hidden_surrender(hand, player)
    if sc.lowball_middle:
        top, middle_high, middle, bottom, hands, reason = _low_lines(sc, board, t5)
    else:  # the line values inlined for the usual high middle: most of a seat's cost
        t, m, b = board.top, board.middle, board.bottom
        cc, fo = _CC, _FO
        k = cc[m[0]] + cc[m[1]] + cc[m[2]] + cc[m[3]] + cc[m[4]]
        j = cc[b[0]] + cc[b[1]] + cc[b[2]] + cc[b[3]] + cc[b[4]]
        top = _T3[(cc[t[0]] + cc[t[1]] + cc[t[2]]) >> 12]
        middle = middle_high = t5[(k >> 12) + fo[k & 4095]]
        bottom = t5[(j >> 12) + fo[j & 4095]]
        hands = line_names(top, middle, bottom)
        reason = _REASON_LATER if top > middle or middle > bottom else None
    values = (top, middle, bottom)

    natural = None
    surrendered = False
    if sc.naturals is not None or hand.surrender:
        natural, surrendered, fouled = _claims(sc, hand, middle_high, bottom, reason is not None)
    else:
        fouled = reason is not None and sc.misset_penalised
    deuce = deuce_line(hand) if sc.finnish_deuce else -1
    fantasyland = None
    fl = sc.fantasyland
    if reason is None and fl.enabled:
        fantasyland = (
            (fl.entry_by_top[top >> 16] or None)
            if not hand.in_fantasyland
            else (next_deal(fl, top, middle_high, bottom, True))
        )

    if fouled or surrendered or natural is not None:
        return NEW(SeatResult, (
            name, player, hand.index, board, values, hands, _ZERO3, reason, fouled, natural,
            surrendered, hand.in_fantasyland, fantasyland, deuce, (), _ZERO3,
        ))  # fmt: skip
    bonus: tuple[str, ...] = ()
    strength = values
    if plain:
        lt, lm, lb = sc.royalties.lookup
        roy = (lt[top >> 16], lm[middle >> 16], lb[bottom >> 16])
    else:
        roy, bonus, strength = _capped_royalties(sc, hand, values)
    return NEW(SeatResult, (
        name, player, hand.index, board, values, hands, roy, reason, False, None, False,
        hand.in_fantasyland, fantasyland, deuce, bonus, strength,
    ))  # fmt: skip


def with_reason(sc: ScoringSpec, seat: SeatResult) -> SeatResult:
    """The seat with its foul reason worded, if :func:`seat` left it for later."""
    if seat.foul_reason is not _REASON_LATER:
        return seat
    top, middle, bottom = seat.values
    reason = board_foul_reason(sc, seat.board, top, middle, 0, bottom)
    return NEW(SeatResult, (*seat[:7], reason, *seat[8:]))


def read_seat(sc: ScoringSpec, hand: Hand, reading: tuple[Any, ...]) -> SeatResult:
    """The seat :func:`seat` makes, from the totals-only arithmetic's reading of it
    (:func:`chinese_poker.scoring.totals.settle_plain`)."""
    top, middle, bottom, r_top, r_middle, r_bottom, fouled, deuce, next_hand = reading
    board = hand.board
    name = hand.name
    hands = line_names(top, middle, bottom)
    reason = None
    if top > middle or middle > bottom:
        reason = board_foul_reason(sc, board, top, middle, 0, bottom)
    values = (top, middle, bottom)
    player = name if hand.player is None else hand.player
    if fouled:
        return NEW(SeatResult, (
            name, player, hand.index, board, values, hands, _ZERO3, reason, True, None, False,
            hand.in_fantasyland, next_hand, deuce, (), _ZERO3,
        ))  # fmt: skip
    return NEW(SeatResult, (
        name, player, hand.index, board, values, hands, (r_top, r_middle, r_bottom), reason,
        False, None, False, hand.in_fantasyland, next_hand, deuce, (), values,
    ))  # fmt: skip
