"""Settling a table (RULES.md §7.1, §7.3): seats, then every pair, then totals and money.

Everything about the rules comes from the compiled :class:`~chinese_poker.rules.spec.ScoringSpec`
(``rules.spec.scoring``); nothing here compares option strings.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from chinese_poker import evaluate as _ev
from chinese_poker.cards import LINE_NAMES, RANKS, Board, Card, check_disjoint
from chinese_poker.evaluate import CARD_CODES, describe, evaluate_low27, low27_high_card
from chinese_poker.rules import RoyaltyAward, Rules
from chinese_poker.rules.spec import FantasylandSpec, RulesSpec, ScoringSpec
from chinese_poker.scoring.fantasyland import next_deal
from chinese_poker.scoring.lines import FoulReason, board_foul_reason, cards_text
from chinese_poker.scoring.naturals import find_natural, natural_pair
from chinese_poker.scoring.notes import ItemKind, Note
from chinese_poker.scoring.results import (
    DEUCE_OF_SPADES,
    Hand,
    Item,
    Natural,
    PairResult,
    ScoringError,
    SeatResult,
    Settlement,
)
from chinese_poker.scoring.royalties import BOTTOM, MIDDLE, TOP, middle_royalty, royalty_parts

__all__ = ["line_name", "settle", "settle_totals"]

_DESCRIPTIONS: dict[int, str] = {}
_LOW_DESCRIPTIONS: dict[int, str] = {}


def _describe(value: int) -> str:
    text = _DESCRIPTIONS.get(value)
    if text is None:
        text = _DESCRIPTIONS[value] = describe(value)
    return text


def _line_names(top: int, middle: int, bottom: int) -> tuple[str, str, str]:
    """The names of three line values (high middle)."""
    known = _DESCRIPTIONS
    return (
        known.get(top) or _describe(top),
        known.get(middle) or _describe(middle),
        known.get(bottom) or _describe(bottom),
    )


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


def _five_table(sc: ScoringSpec) -> list[int]:
    return _ev.line_tables(sc.wheel).line5


def _deuce_line(hand: Hand) -> int:
    board = hand.board
    if DEUCE_OF_SPADES in board.top:
        return TOP
    if DEUCE_OF_SPADES in board.middle:
        return MIDDLE
    if DEUCE_OF_SPADES in board.bottom:
        return BOTTOM
    return -1


_NEW = tuple.__new__  # building NamedTuples without the keyword machinery (hot path)


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
    middle (the plain case is looked up inline in :func:`_seat`)."""
    ro = sc.royalties
    top, middle, bottom = values
    if ro.dealt_combination or ro.max_per_hand == 1:
        roy, bonus, dealt_strength = royalty_parts(sc, hand.board, values, hand.dealt)
        return roy, bonus, (top, middle, max(bottom, dealt_strength))
    return (ro.top_of(top), middle_royalty(sc, middle), ro.bottom_of(bottom)), (), values


def _lines(
    sc: ScoringSpec, board: Board, t5: list[int]
) -> tuple[int, int, int, int, tuple[str, str, str], str | None]:
    """(top, middle high, middle, bottom, line names, foul reason) of a complete board."""
    t, m, b = board.top, board.middle, board.bottom
    cc, fo = _CC, _FO
    k = cc[m[0]] + cc[m[1]] + cc[m[2]] + cc[m[3]] + cc[m[4]]
    j = cc[b[0]] + cc[b[1]] + cc[b[2]] + cc[b[3]] + cc[b[4]]
    top = _T3[(cc[t[0]] + cc[t[1]] + cc[t[2]]) >> 12]
    middle_high = t5[(k >> 12) + fo[k & 4095]]
    bottom = t5[(j >> 12) + fo[j & 4095]]
    if sc.lowball_middle:
        middle, hands, reason = _low_middle(sc, board, top, middle_high, bottom)
        return top, middle_high, middle, bottom, hands, reason
    hands = _line_names(top, middle_high, bottom)
    # The plain comparisons of §3.4 on the shared value scale.
    if top <= middle_high <= bottom:
        return top, middle_high, middle_high, bottom, hands, None
    reason = board_foul_reason(sc, board, top, middle_high, 0, bottom)
    return top, middle_high, middle_high, bottom, hands, reason


def _natural_or_surrender(
    sc: ScoringSpec, hand: Hand, middle_high: int, bottom: int
) -> tuple[Natural | None, bool]:
    """(the natural the hand claims, whether it surrenders): a natural is paid first."""
    natural = None
    ns = sc.naturals
    if ns is not None and (not ns.optional_claim or hand.declares_natural):
        natural = find_natural(ns, hand.board, middle_high, bottom)
    return natural, hand.surrender and natural is None


# Stands for a high-middle board's foul reason until the breakdown is read: the sentence
# costs more than the rest of the seat, and the totals need only whether it fouls.
_REASON_LATER = FoulReason("", "later", line="")


def _seat(
    sc: ScoringSpec, hand: Hand, t5: list[int], plain: bool, reasons: bool = True
) -> SeatResult:
    """One seat settled on its own; ``plain``: royalties are the per-line look-ups;
    ``reasons``: word the foul reason now (else see :func:`_with_reason`)."""
    board = hand.board
    name = hand.name
    player = name if hand.player is None else hand.player
    if hand.surrender and not len(board):  # surrendered, the board not shown
        return _NEW(SeatResult, (
            name, player, hand.index, board, _ZERO3, _NO_HANDS, _ZERO3, None, False, None,
            True, hand.in_fantasyland, None, -1, (), _ZERO3,
        ))  # fmt: skip
    if sc.lowball_middle:
        top, middle_high, middle, bottom, hands, reason = _lines(sc, board, t5)
    else:  # _lines inlined for the usual high middle: this is most of a seat's cost
        t, m, b = board.top, board.middle, board.bottom
        cc, fo = _CC, _FO
        k = cc[m[0]] + cc[m[1]] + cc[m[2]] + cc[m[3]] + cc[m[4]]
        j = cc[b[0]] + cc[b[1]] + cc[b[2]] + cc[b[3]] + cc[b[4]]
        top = _T3[(cc[t[0]] + cc[t[1]] + cc[t[2]]) >> 12]
        middle = middle_high = t5[(k >> 12) + fo[k & 4095]]
        bottom = t5[(j >> 12) + fo[j & 4095]]
        hands = _line_names(top, middle, bottom)
        reason = None
        if top > middle or middle > bottom:
            reason = (
                board_foul_reason(sc, board, top, middle, 0, bottom) if reasons else _REASON_LATER
            )
    values = (top, middle, bottom)

    natural = None
    surrendered = fouled = False
    if sc.naturals is not None or hand.surrender:
        natural, surrendered = _natural_or_surrender(sc, hand, middle_high, bottom)
    if reason is not None:
        fouled = sc.misset_penalised and natural is None and not surrendered
    deuce_line = _deuce_line(hand) if sc.finnish_deuce else -1
    fantasyland = None
    fl = sc.fantasyland
    if reason is None and fl.enabled:
        fantasyland = (
            (fl.entry_by_top[top >> 16] or None)
            if not hand.in_fantasyland
            else (next_deal(fl, top, middle_high, bottom, True))
        )

    if fouled or surrendered or natural is not None:
        return _NEW(SeatResult, (
            name, player, hand.index, board, values, hands, _ZERO3, reason, fouled, natural,
            surrendered, hand.in_fantasyland, fantasyland, deuce_line, (), _ZERO3,
        ))  # fmt: skip
    bonus: tuple[str, ...] = ()
    strength = values
    if plain:
        lt, lm, lb = sc.royalties.lookup
        roy = (lt[top >> 16], lm[middle >> 16], lb[bottom >> 16])
    else:
        roy, bonus, strength = _capped_royalties(sc, hand, values)
    return _NEW(SeatResult, (
        name, player, hand.index, board, values, hands, roy, reason, False, None, False,
        hand.in_fantasyland, fantasyland, deuce_line, bonus, strength,
    ))  # fmt: skip


# ============================================================================ pairs

_NEW_ITEM = _NEW
_LINE, _OVERALL, _SCOOP, _FOUL = ItemKind.LINE, ItemKind.OVERALL, ItemKind.SCOOP, ItemKind.FOUL
_ROYALTY, _NATURAL, _SURRENDER = ItemKind.ROYALTY, ItemKind.NATURAL, ItemKind.SURRENDER
_TOP_NAME, _MIDDLE_NAME, _BOTTOM_NAME = LINE_NAMES


def _item(
    kind: str,
    points: int,
    line: str = "",
    a: str = "",
    b: str = "",
    a_amount: int = 0,
    b_amount: int = 0,
    factor: int = 1,
    note: str = "",
) -> Item:
    return _NEW_ITEM(Item, (kind, points, line, a, b, a_amount, b_amount, factor, note))


def _doubled_line(sc: ScoringSpec, winner: SeatResult, loser: SeatResult) -> int:
    """The line the Finnish deuce doubles when ``loser`` fouled (-1: none)."""
    if not sc.finnish_deuce:
        return -1
    if winner.deuce_line >= 0:
        return winner.deuce_line
    if loser.deuce_line >= 0 and sc.deuce_doubles_when_holder_fouled:
        return loser.deuce_line
    return -1


def _foul_items(sc: ScoringSpec, winner: SeatResult, loser: SeatResult, sign: int) -> list[Item]:
    """Items of a valid ``winner`` against a fouled ``loser`` (sign +1 if winner is A)."""
    note = Note.SCOOP_VALUE if sc.foul_is_scoop else Note.FIXED
    items = [_item(_FOUL, sign * sc.foul_value, note=note)]
    if not sc.foul_pays_royalties:
        return items
    doubled = _doubled_line(sc, winner, loser)
    for line in range(3):
        amount = winner.royalties[line]
        if not amount:
            continue
        factor = 2 if line == doubled else 1
        hand = winner.hands[line]
        if sign > 0:
            items.append(_item(_ROYALTY, factor * amount, LINE_NAMES[line], hand, "", amount, 0,
                               factor, Note.FOUL))  # fmt: skip
        else:
            items.append(_item(_ROYALTY, -factor * amount, LINE_NAMES[line], "", hand, 0, amount,
                               factor, Note.FOUL))  # fmt: skip
    return items


# "won-lost" notes of the overall unit, prebuilt: formatting them is slower than settling.
_SCORES = tuple(tuple(f"{w}-{lost}" for lost in range(4)) for w in range(4))

#: Per line, the seats holding the best royalty hand, each with how many share it.
Best = tuple[dict[str, int], dict[str, int], dict[str, int]]


def _royalty_award(
    award: str, ra: int, rb: int, won: int, a_best: int, b_best: int
) -> tuple[int, Note]:
    """(what B pays A before the Finnish factor, note) for one line's royalties (§7.5).

    ``a_best``/``b_best``: 0 if the seat does not hold the best royalty hand at the table,
    else the number of seats it shares the pool with under ``best_at_table_ties = split``
    (1 when each collects in full). A share is in whole points, rounded down.
    """
    if award == RoyaltyAward.NET:
        return ra - rb, Note.NET
    if award == RoyaltyAward.BEST_AT_TABLE:
        if a_best and not b_best:
            return ra // a_best, Note.BEST
        if b_best and not a_best:
            return -(rb // b_best), Note.BEST
        return 0, (Note.BEST_TIE if a_best else Note.NOT_BEST)
    if award == RoyaltyAward.CANCEL and ra and rb:
        return 0, Note.CANCEL
    if won > 0:
        return ra, (Note.WINNER if ra else Note.WINNER_NONE)
    if won < 0:
        return -rb, (Note.WINNER if rb else Note.WINNER_NONE)
    return 0, Note.TIE


def _royalty_items(
    sc: ScoringSpec, a: SeatResult, b: SeatResult, outcome: tuple[int, int, int],
    best: Best | None, items: list[Item],
) -> int:  # fmt: skip
    """Append the royalty items of a showdown; return their total."""
    doubled = -1
    if sc.finnish_deuce:
        doubled = a.deuce_line if a.deuce_line >= 0 else b.deuce_line
    award = sc.royalties.award
    net = award == RoyaltyAward.NET
    ar, br = a.royalties, b.royalties
    total = 0
    for line in range(3):
        ra, rb = ar[line], br[line]
        if not (ra or rb):
            continue
        factor = 2 if line == doubled else 1
        if net:  # the OFC default, settled inline
            points, note = ra - rb, Note.NET
        else:
            a_best = best[line].get(a.name, 0) if best is not None else 0
            b_best = best[line].get(b.name, 0) if best is not None else 0
            points, note = _royalty_award(award, ra, rb, outcome[line], a_best, b_best)
        points *= factor
        total += points
        items.append(
            _NEW_ITEM(Item, (_ROYALTY, points, LINE_NAMES[line], a.hands[line], b.hands[line],
                             ra, rb, factor, note))
        )  # fmt: skip
    return total


def _showdown(
    sc: ScoringSpec, a: SeatResult, b: SeatResult, best: Best | None
) -> tuple[int, list[Item], tuple[int, int, int]]:
    # Unrolled over the three lines: this is the innermost loop of every settlement.
    v, o, s = sc.line_values
    x0, x1, x2 = a.values
    y0, y1, y2 = b.values
    a0, a1, a2 = a.hands
    b0, b1, b2 = b.hands
    w0, w1, w2 = (x0 > y0) - (x0 < y0), (x1 > y1) - (x1 < y1), (x2 > y2) - (x2 < y2)
    new = _NEW_ITEM
    items = [
        new(Item, (_LINE, v * w0, _TOP_NAME, a0, b0, 0, 0, 1, "")),
        new(Item, (_LINE, v * w1, _MIDDLE_NAME, a1, b1, 0, 0, 1, "")),
        new(Item, (_LINE, v * w2, _BOTTOM_NAME, a2, b2, 0, 0, 1, "")),
    ]
    wins = (w0 == 1) + (w1 == 1) + (w2 == 1)
    losses = (w0 == -1) + (w1 == -1) + (w2 == -1)
    total = v * (wins - losses)
    outcome = (w0, w1, w2)
    if o:
        if sc.more_lines_won:
            a_gets, b_gets = wins > losses, losses > wins
        else:
            a_gets, b_gets = wins >= 2, losses >= 2
        if a_gets:
            total += o
            items.append(new(Item, (_OVERALL, o, "", "", "", 0, 0, 1, _SCORES[wins][losses])))
        elif b_gets:
            total -= o
            items.append(new(Item, (_OVERALL, -o, "", "", "", 0, 0, 1, _SCORES[wins][losses])))
    if s:
        if wins == 3:
            total += s
            items.append(new(Item, (_SCOOP, s, "", "", "", 0, 0, 1, "")))
        elif losses == 3:
            total -= s
            items.append(new(Item, (_SCOOP, -s, "", "", "", 0, 0, 1, "")))
    ar, br = a.royalties, b.royalties
    if ar[0] or ar[1] or ar[2] or br[0] or br[1] or br[2]:
        total += _royalty_items(sc, a, b, outcome, best, items)
    return total, items, outcome


def _natural_result(sc: ScoringSpec, a: SeatResult, b: SeatResult, unit: float) -> PairResult:
    na, nb = a.natural, b.natural
    assert sc.naturals is not None
    points, note = natural_pair(sc.naturals, na, nb)
    item = _item(
        _NATURAL, points, a=na.kind if na else "", b=nb.kind if nb else "",
        a_amount=na.value if na else 0, b_amount=nb.value if nb else 0, note=note,
    )  # fmt: skip
    return PairResult(a.name, b.name, a.player, b.player, points, "natural", (item,), None, unit)


def _surrender(sc: ScoringSpec, a: SeatResult, b: SeatResult) -> tuple[int, Note]:
    """(what B pays A, note) when at least one of them surrenders."""
    cost = sc.surrender_cost or 0
    if a.surrendered and b.surrendered:
        return 0, Note.BOTH
    if a.surrendered:
        return (0, Note.FOULED) if b.fouled else (-cost, Note.A)
    return (0, Note.FOULED) if a.fouled else (cost, Note.B)


def _surrender_result(sc: ScoringSpec, a: SeatResult, b: SeatResult, unit: float) -> PairResult:
    points, note = _surrender(sc, a, b)
    return PairResult(a.name, b.name, a.player, b.player, points, "surrender",
                      (_item(_SURRENDER, points, note=note),), None, unit)  # fmt: skip


def _settle_pair(
    sc: ScoringSpec, a: SeatResult, b: SeatResult, unit: float, best: Best | None
) -> PairResult:
    # §7.3, step by step.
    if a.natural is not None or b.natural is not None:
        return _natural_result(sc, a, b, unit)
    if a.surrendered or b.surrendered:
        return _surrender_result(sc, a, b, unit)
    if a.fouled or b.fouled:
        if a.fouled and b.fouled:
            return PairResult(a.name, b.name, a.player, b.player, 0, "both_fouled",
                              (_item(_FOUL, 0, note=Note.BOTH),), None, unit)  # fmt: skip
        items = _foul_items(sc, b, a, -1) if a.fouled else _foul_items(sc, a, b, 1)
        points = sum(item.points for item in items)
        return PairResult(a.name, b.name, a.player, b.player, points, "foul", tuple(items),
                          None, unit)  # fmt: skip
    points, items, outcome = _showdown(sc, a, b, best)
    return _NEW(PairResult, (a.name, b.name, a.player, b.player, points, "showdown",
                             tuple(items), outcome, unit))  # fmt: skip


def _foul_points(sc: ScoringSpec, winner: SeatResult, loser: SeatResult) -> int:
    """What a fouled ``loser`` pays a valid ``winner``: the sum of :func:`_foul_items`."""
    total = sc.foul_value
    if sc.foul_pays_royalties:
        doubled = _doubled_line(sc, winner, loser)
        for line, amount in enumerate(winner.royalties):
            total += 2 * amount if line == doubled else amount
    return total


def _pair_points(sc: ScoringSpec, a: SeatResult, b: SeatResult, best: Best | None) -> int:
    """What B pays A: :func:`_settle_pair`'s arithmetic without building its items."""
    if a.natural is not None or b.natural is not None:
        assert sc.naturals is not None
        return natural_pair(sc.naturals, a.natural, b.natural)[0]
    if a.surrendered or b.surrendered:
        return _surrender(sc, a, b)[0]
    if a.fouled or b.fouled:
        if a.fouled and b.fouled:
            return 0
        return -_foul_points(sc, b, a) if a.fouled else _foul_points(sc, a, b)
    x0, x1, x2 = a.values
    y0, y1, y2 = b.values
    w0, w1, w2 = (x0 > y0) - (x0 < y0), (x1 > y1) - (x1 < y1), (x2 > y2) - (x2 < y2)
    total = sc.showdown_points[13 + 9 * w0 + 3 * w1 + w2]
    ar, br = a.royalties, b.royalties
    if ar[0] or ar[1] or ar[2] or br[0] or br[1] or br[2]:
        # The items are dropped: only tables the totals arithmetic does not model come here.
        total += _royalty_items(sc, a, b, (w0, w1, w2), best, [])
    return total


def _best_at_table(sc: ScoringSpec, seats: Sequence[SeatResult]) -> Best:
    """Per line, the seats holding the best royalty hand among the boards that play, each
    with the number of seats it shares the pool with (1 unless ``best_at_table_ties`` is
    ``split``).

    Under Criss Cross parallel pairing each hand number is its own table.
    """
    best: list[dict[str, int]] = [{}, {}, {}]
    split = sc.royalties.split_ties
    groups: dict[int, list[SeatResult]] = {}
    for seat in seats:
        if seat.plays:
            groups.setdefault(seat.hand_index if sc.parallel_pairing else 0, []).append(seat)
    for group in groups.values():
        for line in range(3):
            holders = [s for s in group if s.royalties[line]]
            if holders:
                top = max(s.royalty_strength[line] for s in holders)
                tied = [s.name for s in holders if s.royalty_strength[line] == top]
                best[line].update(dict.fromkeys(tied, len(tied) if split else 1))
    return best[0], best[1], best[2]


# ============================================================================ the table


_DECK = frozenset(range(52))


def _check_lines(hand: Hand) -> None:
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
    _check_lines(hand)
    if hand.dealt is None:
        return []
    on_board = set(board.cards)
    if not on_board <= set(hand.dealt):
        missing = cards_text(sorted(on_board - set(hand.dealt)))
        raise ScoringError(f"{hand.name}'s board holds cards not dealt to him: {missing}")
    return [c for c in hand.dealt if c not in on_board]


def _check_table(spec: RulesSpec, hands: Sequence[Hand]) -> list[str]:
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
            _check_lines(hand)
    if len(names) != len(hands):
        _duplicate_names(hands)
    distinct = set(cards)
    if len(distinct) != len(cards) or not distinct <= _DECK:
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


def _unit_table(
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


def _money(
    players: list[str], pairings: list[tuple[int, int, float]], points: list[int],
    seats: Sequence[SeatResult],
) -> dict[str, float]:  # fmt: skip
    money = dict.fromkeys(players, 0.0)
    for (i, j, unit), pair_points in zip(pairings, points, strict=True):
        amount = pair_points * unit
        money[seats[i].player] += amount
        money[seats[j].player] -= amount
    # Sums of products of points and units: rounding removes the float dust.
    return {p: round(m, 9) + 0.0 for p, m in money.items()}


def _pairings(
    sc: ScoringSpec, seats: Sequence[SeatResult],
    unit_table: dict[tuple[str, str], float] | None, default_unit: float,
) -> list[tuple[int, int, float]]:  # fmt: skip
    """Every pair of seats of different players that settle (§7.1), with their unit."""
    pairings = []
    parallel = sc.parallel_pairing
    n = len(seats)
    for i in range(n):
        a = seats[i]
        for j in range(i + 1, n):
            b = seats[j]
            if a.player == b.player or (parallel and a.hand_index != b.hand_index):
                continue
            unit = default_unit
            if unit_table is not None:
                unit = unit_table.get((a.player, b.player), default_unit)
            pairings.append((i, j, unit))
    return pairings


def _with_reason(sc: ScoringSpec, seat: SeatResult) -> SeatResult:
    """The seat with its foul reason worded, if :func:`_seat` left it for later."""
    if seat.foul_reason is not _REASON_LATER:
        return seat
    top, middle, bottom = seat.values
    reason = board_foul_reason(sc, seat.board, top, middle, 0, bottom)
    return _NEW(SeatResult, (*seat[:7], reason, *seat[8:]))


def _breakdown(
    sc: ScoringSpec, seats: Sequence[SeatResult], pairings: list[tuple[int, int, float]],
    best: Best | None,
) -> tuple[tuple[SeatResult, ...], tuple[PairResult, ...]]:  # fmt: skip
    """The seats, their reasons worded, and every pair item by item."""
    shown = tuple([_with_reason(sc, seat) for seat in seats])
    pairs = tuple([_settle_pair(sc, shown[i], shown[j], unit, best) for i, j, unit in pairings])
    return shown, pairs


def _plain_seat(sc: ScoringSpec, hand: Hand, seat: tuple[Any, ...]) -> SeatResult:
    """The seat :func:`_seat` makes, from :func:`_settle_plain`'s reading of it."""
    top, middle, bottom, r_top, r_middle, r_bottom, fouled, deuce, next_hand = seat
    board = hand.board
    name = hand.name
    hands = _line_names(top, middle, bottom)
    reason = None
    if top > middle or middle > bottom:
        reason = board_foul_reason(sc, board, top, middle, 0, bottom)
    values = (top, middle, bottom)
    player = name if hand.player is None else hand.player
    if fouled:
        return _NEW(SeatResult, (
            name, player, hand.index, board, values, hands, _ZERO3, reason, True, None, False,
            hand.in_fantasyland, next_hand, deuce, (), _ZERO3,
        ))  # fmt: skip
    return _NEW(SeatResult, (
        name, player, hand.index, board, values, hands, (r_top, r_middle, r_bottom), reason,
        False, None, False, hand.in_fantasyland, next_hand, deuce, (), values,
    ))  # fmt: skip


def _plain_breakdown(
    sc: ScoringSpec, hands: tuple[Hand, ...], seats: list[tuple[Any, ...]]
) -> tuple[tuple[SeatResult, ...], tuple[PairResult, ...]]:
    """The breakdown of a table :func:`_settle_plain` settled."""
    unit = sc.unit_value
    if len(hands) == 2:
        a, b = _plain_seat(sc, hands[0], seats[0]), _plain_seat(sc, hands[1], seats[1])
        return (a, b), (_settle_pair(sc, a, b, unit, None),)
    shown = [_plain_seat(sc, hand, seat) for hand, seat in zip(hands, seats, strict=True)]
    n = len(shown)
    pairs = [
        _settle_pair(sc, shown[i], shown[j], unit, None) for i in range(n) for j in range(i + 1, n)
    ]
    return tuple(shown), tuple(pairs)


def settle(
    rules: Rules,
    hands: Sequence[Hand],
    *,
    units: Mapping[tuple[str, str], float] | None = None,
) -> Settlement:
    """Settle a table: every pair of seats of different players, in the order of §7.3.

    ``units`` gives the money value of a point for some pairs of players (either order);
    the others play at ``rules.unit_value``. Raises :class:`ScoringError` for a table that
    cannot be settled (seat counts, incomplete boards, a card twice).

    The totals, money, fouls and Fantasyland are settled here; the itemised breakdown
    (``seats`` and ``pairs``) is built from the same seats the first time it is read.

    >>> from chinese_poker.cards import parse_board
    >>> from chinese_poker.rules import rules_for
    >>> a = Hand(name="A", board=parse_board("Ah Qd 4c | Jh Js 9c 9d 2h | 7c 7d 7h 7s Kc"))
    >>> b = Hand(name="B", board=parse_board("Kd Jc 3h | Th Ts 8c 8d 5s | Qs 9s 6s 4s 3s"))
    >>> result = settle(rules_for("ofc"), [a, b])
    >>> result.totals["A"], [(i.kind, i.points) for i in result.pairs[0].items]
    (12, [('line', 1), ('line', 1), ('line', 1), ('scoop', 3), ('royalty', 6)])
    """
    spec = rules.spec
    sc = spec.scoring
    if type(hands) is not tuple:
        hands = tuple(hands)
    if not units:
        plain_rules = _PLAIN.get(id(spec))
        if plain_rules is None or plain_rules[0] is not spec:
            plain_rules = _plain_rules(spec)
        if plain_rules[1]:  # modelled
            settled = _settle_plain(rules, hands, plain_rules)
            if settled is not None:
                return settled
    known = _compiled(sc)
    players = _check_table(spec, hands)
    _, _, t5, plain = known
    try:
        seats = [_seat(sc, hand, t5, plain, False) for hand in hands]
    except IndexError:  # a line too short while another is too long
        for hand in hands:
            _check_lines(hand)
        raise
    best = _best_at_table(sc, seats) if sc.royalties.award is RoyaltyAward.BEST_AT_TABLE else None
    default_unit = sc.unit_value
    unit_table = _unit_table(players, units) if units else None
    pairings = _pairings(sc, seats, unit_table, default_unit)
    points = [_pair_points(sc, seats[i], seats[j], best) for i, j, _ in pairings]
    seat_totals = dict.fromkeys([s.name for s in seats], 0)
    for (i, j, _), pair_points in zip(pairings, points, strict=True):
        seat_totals[seats[i].name] += pair_points
        seat_totals[seats[j].name] -= pair_points
    if players == list(seat_totals):  # one seat a player, named after him
        totals = dict(seat_totals)
    else:
        totals = dict.fromkeys(players, 0)
        for seat in seats:
            totals[seat.player] += seat_totals[seat.name]
    if unit_table is None:
        money = {p: t * default_unit + 0.0 for p, t in totals.items()}
    else:
        money = _money(players, pairings, points, seats)
    fouled = tuple([s.name for s in seats if s.fouled])
    fantasyland = {s.name: s.fantasyland for s in seats}
    return Settlement.deferred(
        rules, totals, seat_totals, money, fouled, fantasyland,
        (_breakdown, sc, seats, pairings, best),
    )  # fmt: skip


class _PlainRules(NamedTuple):
    """What :func:`_settle_plain` reads of a ruleset, looked up once."""

    spec: RulesSpec
    modelled: bool  # the totals-only arithmetic settles these rules
    scoring: ScoringSpec
    five_table: list[int]
    top_royalty: Sequence[int]
    middle_royalty: Sequence[int]
    bottom_royalty: Sequence[int]
    penalised: bool
    finnish: bool
    fantasyland: FantasylandSpec
    entry: Sequence[int] | None  # Fantasyland entry by top value, None if disabled
    unit: float
    fewest: int
    most: int
    open_face: bool
    showdown: tuple[int, ...]  # ScoringSpec.showdown_points


# Per rules spec (kept alive by the entry, so its id is not reused while cached).
_PLAIN: dict[int, _PlainRules] = {}


def _plain_rules(spec: RulesSpec) -> _PlainRules:
    if len(_PLAIN) > 256:
        _PLAIN.clear()
    sc = spec.scoring
    _, modelled, t5, _ = _compiled(sc)
    fl = sc.fantasyland
    variant = spec.variant
    known = _PLAIN[id(spec)] = _PlainRules(
        spec, modelled and not variant.criss_cross, sc, t5, *sc.royalties.lookup,
        sc.misset_penalised, sc.finnish_deuce, fl, fl.entry_by_top if fl.enabled else None,
        sc.unit_value, *variant.player_counts, variant.open_face, sc.showdown_points,
    )  # fmt: skip
    return known


def _settle_plain(rules: Rules, hands: tuple[Hand, ...], known: _PlainRules) -> Settlement | None:
    """:func:`settle` by the totals-only arithmetic for a table it models (no surrender,
    no dealt cards, one seat a player, every card once), else None (the full path checks
    and names the fault)."""
    (_, _, sc, t5, lt, lm, lb, penalised, finnish, fl, entry, unit, fewest, most,
     open_face, showdown) = known  # fmt: skip
    n = len(hands)
    if not fewest <= n <= most:
        return None
    cc, fo, t3 = _CC, _FO, _T3
    # Per seat: line values, royalties, fouled, deuce line, next Fantasyland deal.
    seats: list[tuple[Any, ...]] = []
    cards: list[Card] = []
    for hand in hands:
        if hand.surrender or hand.dealt is not None:
            return None
        board = hand.board
        t, m, b = board.top, board.middle, board.bottom
        cards += t
        cards += m
        cards += b
        # A line of the wrong size or a card past 51 fails here (a negative one below).
        try:
            t0, t1, t2 = t
            m0, m1, m2, m3, m4 = m
            b0, b1, b2, b3, b4 = b
            k = cc[m0] + cc[m1] + cc[m2] + cc[m3] + cc[m4]
            j = cc[b0] + cc[b1] + cc[b2] + cc[b3] + cc[b4]
            top = t3[(cc[t0] + cc[t1] + cc[t2]) >> 12]
            middle = t5[(k >> 12) + fo[k & 4095]]
            bottom = t5[(j >> 12) + fo[j & 4095]]
        except (ValueError, IndexError, TypeError):
            return None
        deuce = _deuce_line(hand) if finnish else -1
        if top > middle or middle > bottom:  # no Fantasyland out of line order
            if hand.in_fantasyland and not open_face:
                return None
            if penalised:
                seats.append((top, middle, bottom, 0, 0, 0, True, deuce, None))
                continue
            next_hand = None
        elif hand.in_fantasyland:
            if not open_face:
                return None
            next_hand = None if entry is None else next_deal(fl, top, middle, bottom, True)
        else:
            next_hand = None if entry is None else (entry[top >> 16] or None)
        seats.append((top, middle, bottom, lt[top >> 16], lm[middle >> 16], lb[bottom >> 16],
                      False, deuce, next_hand))  # fmt: skip
    distinct = set(cards)
    if len(distinct) != 13 * n or not distinct <= _DECK:  # a negative number read a code
        return None
    if n == 2:  # heads-up, the most common table
        hand_a, hand_b = hands
        a, b = seats
        name_a, name_b = hand_a.name, hand_b.name
        player_a = name_a if hand_a.player is None else hand_a.player
        player_b = name_b if hand_b.player is None else hand_b.player
        if name_a == name_b or player_a == player_b:
            return None
        if a[6] or b[6] or a[3] or a[4] or a[5] or b[3] or b[4] or b[5]:
            points = _pair_total(sc, a, b)
        else:  # a showdown without royalties, inlined: the most common pair
            x, y = a[0], b[0]
            index = 13 + 9 * ((x > y) - (x < y))
            x, y = a[1], b[1]
            index += 3 * ((x > y) - (x < y))
            x, y = a[2], b[2]
            points = showdown[index + (x > y) - (x < y)]
        seat_totals = {name_a: points, name_b: -points}
        totals = {player_a: points, player_b: -points}
        money = {player_a: points * unit + 0.0, player_b: -points * unit + 0.0}
        fantasyland = {name_a: a[8], name_b: b[8]}
        fouled: tuple[str, ...] = (name_a, name_b) if a[6] and b[6] else (
            (name_a,) if a[6] else (name_b,) if b[6] else ())  # fmt: skip
    else:
        names = []
        owners = []
        fouled_names = []
        fantasyland = {}
        for hand, seat in zip(hands, seats, strict=True):
            name = hand.name
            player = hand.player
            names.append(name)
            owners.append(name if player is None else player)
            fantasyland[name] = seat[8]
            if seat[6]:
                fouled_names.append(name)
        if len(set(names)) != n or len(set(owners)) != n:
            return None
        seat_points = [0] * n
        for i in range(n):
            seat = seats[i]
            for j in range(i + 1, n):
                points = _pair_total(sc, seat, seats[j])
                seat_points[i] += points
                seat_points[j] -= points
        seat_totals = dict(zip(names, seat_points, strict=True))
        totals = dict(zip(owners, seat_points, strict=True))
        money = {p: t * unit + 0.0 for p, t in totals.items()}
        fouled = tuple(fouled_names)
    return Settlement.deferred(
        rules, totals, seat_totals, money, fouled, fantasyland,
        (_plain_breakdown, sc, hands, seats),
    )  # fmt: skip


# ============================================================================ totals only


# Per compiled spec (kept alive by the entry, so its id is not reused while cached):
# whether the totals-only path models it, and its five-card look-up.
_FAST: dict[int, tuple[ScoringSpec, bool, list[int], bool]] = {}


def _compiled(sc: ScoringSpec) -> tuple[ScoringSpec, bool, list[int], bool]:
    """(the spec, whether settle_totals models it, its five-card look-up, whether royalties
    are the per-line look-ups alone), kept per spec."""
    known = _FAST.get(id(sc))
    if known is None or known[0] is not sc:
        if len(_FAST) > 256:
            _FAST.clear()
        ro = sc.royalties
        plain = not (ro.dealt_combination or ro.max_per_hand == 1 or sc.lowball_middle)
        known = _FAST[id(sc)] = (sc, _fast_path(sc), _five_table(sc), plain)
    return known


def _fast_path(sc: ScoringSpec) -> bool:
    """True if the totals-only path models these rules (otherwise it settles in full)."""
    ro = sc.royalties
    return (
        sc.naturals is None
        and not sc.lowball_middle
        and not ro.dealt_combination
        and ro.max_per_hand is None
        and ro.award != RoyaltyAward.BEST_AT_TABLE
    )


def _foul_total(sc: ScoringSpec, winner: tuple[int, ...], loser: tuple[int, ...]) -> int:
    """What a fouled ``loser`` pays a valid ``winner`` (seat tuples of :func:`_pair_total`)."""
    total = sc.foul_value
    if sc.foul_pays_royalties:
        doubled = -1
        if sc.finnish_deuce and winner[7] >= 0:
            doubled = winner[7]
        elif sc.finnish_deuce and sc.deuce_doubles_when_holder_fouled:
            doubled = loser[7]
        total += winner[3] + winner[4] + winner[5] + (winner[3 + doubled] if doubled >= 0 else 0)
    return total


def _royalty_total(
    sc: ScoringSpec, a: tuple[int, ...], b: tuple[int, ...], outcome: tuple[int, int, int]
) -> int:
    """What B pays A for the royalties of a showdown (all but ``best_at_table``)."""
    award = sc.royalties.award
    doubled = -1
    if sc.finnish_deuce:
        doubled = a[7] if a[7] >= 0 else b[7]
    if award == RoyaltyAward.NET and doubled < 0:
        return a[3] + a[4] + a[5] - b[3] - b[4] - b[5]
    total = 0
    for line in range(3):
        ra, rb = a[3 + line], b[3 + line]
        if award == RoyaltyAward.NET:
            points = ra - rb
        elif award == RoyaltyAward.CANCEL and ra and rb:
            continue
        else:
            won = outcome[line]
            points = ra if won > 0 else -rb if won < 0 else 0
        total += 2 * points if line == doubled else points
    return total


def _pair_total(sc: ScoringSpec, a: tuple[Any, ...], b: tuple[Any, ...]) -> int:
    """What B pays A: seats as (top, middle, bottom, r_top, r_middle, r_bottom, fouled,
    deuce line), the same arithmetic as :func:`_settle_pair` without the items."""
    if a[6] or b[6]:
        if a[6] and b[6]:
            return 0
        return -_foul_total(sc, b, a) if a[6] else _foul_total(sc, a, b)
    a0, a1, a2 = a[0], a[1], a[2]
    b0, b1, b2 = b[0], b[1], b[2]
    w0, w1, w2 = (a0 > b0) - (a0 < b0), (a1 > b1) - (a1 < b1), (a2 > b2) - (a2 < b2)
    total: int = sc.showdown_points[13 + 9 * w0 + 3 * w1 + w2]
    if a[3] or a[4] or a[5] or b[3] or b[4] or b[5]:
        total += _royalty_total(sc, a, b, (w0, w1, w2))
    return total


def settle_totals(rules: Rules, hands: Sequence[Hand]) -> dict[str, int]:
    """Each player's points, as ``settle(rules, hands).totals``, without the breakdown.

    For solvers and simulations that need only the result: the same checks and the same
    arithmetic, no items, names or reasons built. Rules it does not model in this form
    (naturals, a low middle, per-hand royalty limits, dealt combinations, the best at the
    table) and surrendering or Fantasyland seats are settled in full.

    >>> from chinese_poker.cards import parse_board
    >>> from chinese_poker.rules import rules_for
    >>> a = Hand(name="A", board=parse_board("Ah Qd 4c | Jh Js 9c 9d 2h | 7c 7d 7h 7s Kc"))
    >>> b = Hand(name="B", board=parse_board("Kd Jc 3h | Th Ts 8c 8d 5s | Qs 9s 6s 4s 3s"))
    >>> settle_totals(rules_for("ofc"), [a, b])
    {'A': 12, 'B': -12}
    """
    spec = rules.spec
    sc = spec.scoring
    known = _compiled(sc)
    read = _fast_seats(sc, hands, known[2], spec.variant.open_face) if known[1] else None
    if read is None or not _usual_table(spec, hands, read[1], read[2]):
        return dict(settle(rules, hands).totals)  # the full checks and rules
    seats, _, owners = read
    n = len(owners)
    if n == 2:  # heads-up, what solvers and simulations settle most
        points = _pair_total(sc, seats[0], seats[1])
        return {owners[0]: points, owners[1]: -points}
    totals = dict.fromkeys(owners, 0)
    for i in range(n):
        pa = owners[i]
        for j in range(i + 1, n):
            pb = owners[j]
            points = _pair_total(sc, seats[i], seats[j])
            totals[pa] += points
            totals[pb] -= points
    return totals


def _usual_table(
    spec: RulesSpec, hands: Sequence[Hand], cards: list[Card], owners: list[str]
) -> bool:
    """Whether the table :func:`_fast_seats` read passes :func:`_check_table` as it
    stands: one seat a player, a count the variant allows, every card once."""
    n = len(owners)
    low, high = spec.variant.player_counts
    # The look-ups raised for numbers past 51 and for non-numbers; the rest is checked here,
    # and the full path names the fault.
    return not (
        not low <= n <= high
        or len(cards) != 13 * n
        or len(set(cards)) != 13 * n
        or min(cards) < 0
        or spec.variant.criss_cross
        or len(set(owners)) != n
        or len({hand.name for hand in hands}) != n
    )


def _fast_seats(
    sc: ScoringSpec, hands: Sequence[Hand], t5: list[int], open_face: bool
) -> tuple[list[tuple[int, ...]], list[Card], list[str]] | None:
    """(seat tuples of :func:`_pair_total` plus whether the board breaks the line order,
    every card, the owners), or None for a table the totals-only path leaves to the full
    path (surrender, dealt cards, Fantasyland outside open face, a line too short or not
    made of card numbers)."""
    lt, lm, lb = sc.royalties.lookup
    penalised = sc.misset_penalised
    finnish = sc.finnish_deuce
    seats: list[tuple[int, ...]] = []
    cards: list[Card] = []
    owners = []
    cc, fo, t3 = _CC, _FO, _T3
    for hand in hands:
        board = hand.board
        t, m, b = board.top, board.middle, board.bottom
        if hand.surrender or hand.dealt is not None or (hand.in_fantasyland and not open_face):
            return None
        cards += t
        cards += m
        cards += b
        owners.append(hand.name if hand.player is None else hand.player)
        # The line values, inlined: this loop is the whole cost of a totals-only settle. A
        # short line raises IndexError here, a long one shows in the card count.
        try:
            k = cc[m[0]] + cc[m[1]] + cc[m[2]] + cc[m[3]] + cc[m[4]]
            j = cc[b[0]] + cc[b[1]] + cc[b[2]] + cc[b[3]] + cc[b[4]]
            top = t3[(cc[t[0]] + cc[t[1]] + cc[t[2]]) >> 12]
        except (IndexError, TypeError):
            return None
        middle = t5[(k >> 12) + fo[k & 4095]]
        bottom = t5[(j >> 12) + fo[j & 4095]]
        deuce = _deuce_line(hand) if finnish else -1
        if top > middle or middle > bottom:
            if penalised:
                seats.append((top, middle, bottom, 0, 0, 0, True, deuce, True))
            else:
                seats.append((top, middle, bottom, lt[top >> 16], lm[middle >> 16],
                              lb[bottom >> 16], False, deuce, True))  # fmt: skip
        else:
            seats.append((top, middle, bottom, lt[top >> 16], lm[middle >> 16],
                          lb[bottom >> 16], False, deuce, False))  # fmt: skip
    return seats, cards, owners
