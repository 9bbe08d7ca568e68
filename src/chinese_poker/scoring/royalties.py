"""Royalties (RULES.md §7.4, §7.7, §8.1): per line from the compiled tables, per hand rules."""

from __future__ import annotations

from collections.abc import Sequence

from chinese_poker.cards import LINE_NAMES, Board, Card
from chinese_poker.evaluate import (
    FOUR_OF_A_KIND,
    STRAIGHT_FLUSH,
    describe,
    evaluate3,
    evaluate5,
    evaluate_low27,
)
from chinese_poker.rules import Rules
from chinese_poker.rules.spec import RoyaltySpec, ScoringSpec
from chinese_poker.scoring.lines import check_cards, high5

__all__ = ["line_royalty", "royalties", "royalty_lookup"]

TOP, MIDDLE, BOTTOM = 0, 1, 2


def middle_royalty(sc: ScoringSpec, middle: int) -> int:
    """The middle's royalty; ``middle`` is the low value under a low middle."""
    if sc.lowball_middle:
        return sc.royalties.low_middle_of(middle)
    return sc.royalties.middle_of(middle)


def line_royalty(rules: Rules, line: int | str, value: int) -> int:
    """The royalty of one line of value ``value`` under ``rules`` (§7.4, §8.1).

    ``line`` is 0/1/2 or ``"top"``/``"middle"``/``"bottom"``; ``value`` is as
    :func:`~chinese_poker.scoring.line_values` gives it (the low value for a low middle).
    Per-hand rules (``max_royalties_per_hand``, ``royalty_for_dealt_combination``) are
    not applied.

    >>> from chinese_poker.cards import parse_cards
    >>> from chinese_poker.rules import rules_for
    >>> line_royalty(rules_for("ofc"), "top", evaluate3(*parse_cards("Qh Qd 7c")))
    7
    """
    sc = rules.spec.scoring
    index = LINE_NAMES.index(line) if isinstance(line, str) else line
    if index == TOP:
        return sc.royalties.top_of(value)
    if index == MIDDLE:
        return middle_royalty(sc, value)
    if index == BOTTOM:
        return sc.royalties.bottom_of(value)
    raise ValueError(f"line must be 0, 1, 2 or top, middle, bottom, not {line!r}")


def royalty_lookup(rules: Rules) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Royalty of the top, middle and bottom by ``value >> 16`` of a high line value.

    Every royalty table depends only on a line's category and leading key rank, the
    bits above 16 of its value, so solvers and bots look royalties up in these tuples
    instead of calling :func:`line_royalty` in their loops. A low middle (§8.1) is
    valued on another scale; use :func:`line_royalty` for it. (The tuples are
    ``rules.spec.scoring.royalties.lookup``.)

    >>> from chinese_poker.cards import parse_cards
    >>> from chinese_poker.evaluate import evaluate
    >>> from chinese_poker.rules import rules_for
    >>> top, middle, bottom = royalty_lookup(rules_for("ofc"))
    >>> bottom[evaluate(parse_cards("Ah Kh Qh Jh Th")) >> 16]
    25
    """
    return rules.spec.scoring.royalties.lookup


def _dealt_combinations(
    ro: RoyaltySpec, dealt: Sequence[Card], board: Board
) -> list[tuple[int, int, str]]:
    """Quads and straight flushes dealt but not kept whole in the middle or bottom.

    Each gives (back-line royalty, strength, name): with ``royalty_for_dealt_combination``
    the player collects the back-line royalty of such a combination even though he broke
    it up ([004]). A straight flush run longer than five cards is one combination.
    """
    held = set(dealt)
    lines = (set(board.middle), set(board.bottom))
    return _broken_quads(ro, held, lines) + _broken_straight_flushes(ro, held, lines)


def _broken_quads(
    ro: RoyaltySpec, held: set[Card], lines: tuple[set[Card], set[Card]]
) -> list[tuple[int, int, str]]:
    found = []
    by_rank: dict[int, list[Card]] = {}
    for c in held:
        by_rank.setdefault(c >> 2, []).append(c)
    for rank, cards in by_rank.items():
        if len(cards) == 4 and not any(set(cards) <= line for line in lines):
            kicker = next((c for c in sorted(held) if c >> 2 != rank), (rank + 1) % 13 * 4)
            value = evaluate5(cards[0], cards[1], cards[2], cards[3], kicker)
            found.append((ro.bottom[FOUR_OF_A_KIND], value, describe(value).split(",")[0]))
    return found


def _broken_straight_flushes(
    ro: RoyaltySpec, held: set[Card], lines: tuple[set[Card], set[Card]]
) -> list[tuple[int, int, str]]:
    found = []
    for suit in range(4):
        ranks = {c >> 2 for c in held if c & 3 == suit}
        run = {r * 4 + suit for r in ranks}
        top = 12
        while top >= 3:
            window = tuple(range(top - 4, top + 1)) if top >= 4 else (12, 0, 1, 2, 3)
            if not all(r in ranks for r in window):
                top -= 1
                continue
            kept = any(line <= run and evaluate5(*line) >> 20 == STRAIGHT_FLUSH for line in lines)
            if not kept:
                value = evaluate5(*(r * 4 + suit for r in window))
                royalty = ro.bottom_royal if top == 12 else ro.bottom[STRAIGHT_FLUSH]
                found.append((royalty, value, describe(value)))
            top -= 5  # the windows overlapping this one belong to the same run
    return found


def royalty_parts(
    sc: ScoringSpec,
    board: Board,
    values: tuple[int, int, int],
    dealt: Sequence[Card] | None,
) -> tuple[tuple[int, int, int], tuple[str, ...], int]:
    """Royalties per line, the names of dealt-combination bonuses, their best strength."""
    ro = sc.royalties
    top = ro.top_of(values[0])
    middle = middle_royalty(sc, values[1])
    bottom = ro.bottom_of(values[2])
    max_one = ro.max_per_hand == 1
    if not (ro.dealt_combination or max_one):
        return (top, middle, bottom), (), 0
    parts = [(top, TOP, ""), (middle, MIDDLE, ""), (bottom, BOTTOM, "")]
    strength = 0
    if ro.dealt_combination:
        for royalty, value, name in _dealt_combinations(ro, dealt or board.cards, board):
            if royalty:
                parts.append((royalty, BOTTOM, name))
                strength = max(strength, value)
    if max_one:
        # One royalty per hand: the biggest; on equal amounts the lowest line's.
        best = max(parts, key=lambda part: (part[0], part[1]))
        parts = [best] if best[0] else []
    per_line = [0, 0, 0]
    bonus: list[str] = []
    for amount, line, name in parts:
        per_line[line] += amount
        if name and amount:
            bonus.append(name)
    if not any(name for _, _, name in parts):
        strength = 0
    return (per_line[0], per_line[1], per_line[2]), tuple(bonus), strength


def royalties(
    rules: Rules, board: Board, *, dealt: Sequence[Card] | None = None
) -> tuple[int, int, int]:
    """Royalties of the top, middle and bottom under ``rules.royalty_table`` (§7.4, §8.1).

    The foul is ignored (the caller decides); ``max_royalties_per_hand`` and
    ``royalty_for_dealt_combination`` (with ``dealt`` = the cards dealt, by default the
    board's) are applied. Incomplete lines score nothing.

    >>> from chinese_poker.cards import parse_board
    >>> from chinese_poker.rules import rules_for
    >>> board = parse_board("7s 7h 4d | As Ac Ah 3s 2d | 9s Td Jc Qd Kc")
    >>> royalties(rules_for("ofc"), board), royalties(rules_for("ofc-western"), board)
    ((2, 2, 2), (2, 2, 2))
    >>> royalties(rules_for("classic"), parse_board("Qs Qh 4d | Kc Kd 9s 9h 2c | 8s 8h 8d 8c 3s"))
    (0, 0, 4)
    """
    sc = rules.spec.scoring
    ro = sc.royalties
    check_cards(board.cards)
    if len(board.top) != 3 or len(board.middle) != 5 or len(board.bottom) != 5:
        top = ro.top_of(evaluate3(*board.top)) if len(board.top) == 3 else 0
        middle = 0
        if len(board.middle) == 5 and not sc.lowball_middle:
            middle = ro.middle_of(high5(sc, board.middle))
        bottom = ro.bottom_of(high5(sc, board.bottom)) if len(board.bottom) == 5 else 0
        return top, middle, bottom
    top_v = evaluate3(*board.top)
    middle_v = evaluate_low27(board.middle) if sc.lowball_middle else high5(sc, board.middle)
    values = (top_v, middle_v, high5(sc, board.bottom))
    return royalty_parts(sc, board, values, dealt)[0]
