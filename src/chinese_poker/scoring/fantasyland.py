"""Fantasyland (RULES.md §9.1, §9.4): which boards enter or stay, and with how many cards."""

from __future__ import annotations

from chinese_poker.cards import Board
from chinese_poker.evaluate import evaluate3, evaluate_low27
from chinese_poker.rules import Rules
from chinese_poker.rules.spec import FantasylandSpec
from chinese_poker.scoring.lines import board_foul_reason, check_cards, high5, require_complete

__all__ = ["fantasyland_next"]


def next_deal(
    fl: FantasylandSpec, top: int, middle_high: int, bottom: int, in_fantasyland: bool
) -> int | None:
    """Cards for the next hand earned by a valid board of these line values, if any."""
    if in_fantasyland:
        return fl.repeat if fl.stays(top, middle_high, bottom) else None
    return fl.entry_cards(top)


def fantasyland_next(rules: Rules, board: Board, *, in_fantasyland: bool) -> int | None:
    """Cards for the next hand if ``board`` earns Fantasyland, else None (§9.1, §9.4).

    Entry needs QQ or better on top; staying needs trips on top, quads or better on the
    bottom, or a middle at least ``fl_repeat_middle_min``. Fouled boards, classic variants
    and ``fantasyland_enabled = no`` never qualify. Repeat limits are the engine's job.

    >>> from chinese_poker.cards import parse_board
    >>> from chinese_poker.rules import rules_for
    >>> board = parse_board("Kh Kd 4c | 9s 9h 9c 5d 2s | Ah Jh 8h 6h 3h")
    >>> fantasyland_next(rules_for("pineapple-progressive"), board, in_fantasyland=False)
    15
    >>> print(fantasyland_next(rules_for("ofc"), board, in_fantasyland=True))
    None
    """
    sc = rules.spec.scoring
    if not sc.fantasyland.enabled:
        return None
    require_complete(board)
    check_cards(board.cards)
    top = evaluate3(*board.top)
    middle_high = high5(sc, board.middle)
    bottom = high5(sc, board.bottom)
    middle_low = evaluate_low27(board.middle) if sc.lowball_middle else 0
    if board_foul_reason(sc, board, top, middle_high, middle_low, bottom) is not None:
        return None
    return next_deal(sc.fantasyland, top, middle_high, bottom, in_fantasyland)
