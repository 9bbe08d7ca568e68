"""Line values and the line order (RULES.md §3, §4, §8.1): what a board is worth, and fouls."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from chinese_poker.cards import RANKS, Board, Card, card_name
from chinese_poker.evaluate import (
    FLUSH,
    HIGH_CARD,
    STRAIGHT,
    STRAIGHT_FLUSH,
    Category,
    evaluate,
    evaluate3,
    evaluate5,
    evaluate_low27,
    low27_high_card,
)
from chinese_poker.rules import Rules
from chinese_poker.rules.spec import ScoringSpec
from chinese_poker.scoring.results import ScoringError

__all__ = ["FoulReason", "foul_reason", "is_fouled", "line_values"]


class FoulReason(str):
    """Why a board fouls: the sentence players read, and what it says as data.

    A ``str`` so that every place that prints or stores the reason keeps working; the
    fields let a client say it in another language without parsing the English.
    ``kind`` is ``"beats"`` (``line`` beats ``below``, the line that must be stronger) or
    ``"low_middle"`` (the low middle is not ``ceiling``-high or better with no pair,
    straight or flush).

    >>> r = FoulReason("top Q Q 7 beats middle Q Q 6 5 4", "beats", line="top", below="middle")
    >>> r == "top Q Q 7 beats middle Q Q 6 5 4", r.as_dict()["below"]
    (True, 'middle')
    """

    kind: str
    line: str
    below: str | None
    ceiling: str | None

    def __new__(
        cls,
        text: str,
        kind: str,
        *,
        line: str,
        below: str | None = None,
        ceiling: str | None = None,
    ) -> FoulReason:
        self = super().__new__(cls, text)
        self.kind, self.line, self.below, self.ceiling = kind, line, below, ceiling
        return self

    def __reduce__(self) -> tuple[Any, ...]:  # pickles (worker processes) keep the fields
        return (_foul_reason_of, (str(self), self.as_dict()))

    def as_dict(self) -> dict[str, str | None]:
        """The reason as JSON: its kind, its lines, and the low middle's ceiling rank."""
        return {
            "kind": self.kind,
            "line": self.line,
            "below": self.below,
            "ceiling": self.ceiling,
        }


def _foul_reason_of(text: str, fields: dict[str, Any]) -> FoulReason:
    return FoulReason(text, fields["kind"], line=fields["line"], below=fields["below"],
                      ceiling=fields["ceiling"])  # fmt: skip


def high5(sc: ScoringSpec, line: Sequence[Card]) -> int:
    """The high value of a five-card line under the wheel option."""
    if sc.wheel == "lowest":
        return evaluate5(line[0], line[1], line[2], line[3], line[4])
    return evaluate(line, wheel=sc.wheel)


def require_complete(board: Board) -> None:
    if len(board.top) != 3 or len(board.middle) != 5 or len(board.bottom) != 5:
        raise ScoringError(
            f"board {board} is not complete: lines need 3, 5 and 5 cards, "
            f"have {len(board.top)}, {len(board.middle)} and {len(board.bottom)}"
        )


def check_cards(cards: Sequence[Card]) -> None:
    if len(set(cards)) != len(cards):
        raise ScoringError(f"a board holds a card twice: {cards_text(cards)}")
    if cards and (min(cards) < 0 or max(cards) > 51):
        raise ScoringError(f"card numbers must be 0..51, got {sorted(cards)}")


def cards_text(cards: Iterable[Card]) -> str:
    return " ".join(card_name(c) if 0 <= c < 52 else str(c) for c in cards)


def line_values(rules: Rules, board: Board) -> tuple[int, int, int]:
    """The values of the top, middle and bottom under ``rules`` (higher is stronger).

    The wheel option applies to the middle and bottom; under ``middle_mode =
    lowball_2_7`` the middle value is :func:`~chinese_poker.evaluate.evaluate_low27`
    (higher is the better low).

    >>> from chinese_poker.cards import parse_board
    >>> from chinese_poker.rules import rules_for
    >>> board = parse_board("Qh Qd 7c | Qs Qc 6d 5h 4s | Ah Kh 9h 8h 2h")
    >>> t, m, b = line_values(rules_for("ofc"), board)
    >>> t > m, m < b
    (True, True)
    """
    require_complete(board)
    check_cards(board.cards)
    sc = rules.spec.scoring
    top = evaluate3(*board.top)
    middle = evaluate_low27(board.middle) if sc.lowball_middle else high5(sc, board.middle)
    return top, middle, high5(sc, board.bottom)


def rank_text(cards: Sequence[Card]) -> str:
    """Ranks grouped as a player reads them: ``Q Q 7``, ``9 9 9 5 2``."""
    counts: dict[int, int] = {}
    for c in cards:
        counts[c >> 2] = counts.get(c >> 2, 0) + 1
    order = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    return " ".join(RANKS[r] for r in order for _ in range(counts[r]))


_RANK_TEXTS: dict[int, str] = {}


def _line_text(name: str, cards: Sequence[Card], value: int, other: int) -> str:
    # A value fixes the rank multiset, so the grouped ranks can be memoised by value.
    ranks = _RANK_TEXTS.get(value)
    if ranks is None:
        ranks = _RANK_TEXTS[value] = rank_text(cards)
    text = f"{name} {ranks}"
    cat = value >> 20
    # The ranks alone do not show flushes and straights, nor which category won.
    if cat != other >> 20 or cat in (STRAIGHT, FLUSH, STRAIGHT_FLUSH):
        text += f" ({Category(cat).label.lower()})"
    return text


def _beats(upper: str, lower: str, board: Board, values: dict[str, int]) -> FoulReason:
    cards = {"top": board.top, "middle": board.middle, "bottom": board.bottom}
    return FoulReason(
        f"{_line_text(upper, cards[upper], values[upper], values[lower])} beats "
        f"{_line_text(lower, cards[lower], values[lower], values[upper])}",
        "beats",
        line=upper,
        below=lower,
    )


def _low_middle_reason(
    board: Board, middle_high: int, middle_low: int, ceiling: int
) -> FoulReason | None:
    high = low27_high_card(middle_low)
    if high is None:
        what = Category(middle_high >> 20).label.lower()
        if middle_high >> 20 == HIGH_CARD:
            what = "straight or flush"  # only these make a no-pair low unqualified
        return FoulReason(
            f"middle {rank_text(board.middle)} has a {what}; a low middle must be "
            f"{RANKS[ceiling]}-high or better with no pair, straight or flush",
            "low_middle",
            line="middle",
            ceiling=RANKS[ceiling],
        )
    if high > ceiling:
        return FoulReason(
            f"middle {rank_text(board.middle)} is {RANKS[high]}-high; a low middle "
            f"must be {RANKS[ceiling]}-high or better",
            "low_middle",
            line="middle",
            ceiling=RANKS[ceiling],
        )
    return None


def board_foul_reason(
    sc: ScoringSpec, board: Board, top: int, middle_high: int, middle_low: int, bottom: int
) -> FoulReason | None:
    """The foul reason of a board whose line values are given, or None."""
    values = {"top": top, "middle": middle_high, "bottom": bottom}
    if sc.lowball_middle:
        if top > bottom:
            return _beats("top", "bottom", board, values)
        ceiling = sc.low_qualifier_high
        return (
            None if ceiling is None else _low_middle_reason(board, middle_high, middle_low, ceiling)
        )
    if top > middle_high:
        return _beats("top", "middle", board, values)
    if middle_high > bottom:
        return _beats("middle", "bottom", board, values)
    return None


def foul_reason(rules: Rules, board: Board) -> FoulReason | None:
    """None if ``board`` keeps the line order (§4, §8.1), else a reason players can read.

    >>> from chinese_poker.cards import parse_board
    >>> from chinese_poker.rules import rules_for
    >>> foul_reason(rules_for("ofc"), parse_board("Qh Qd 7c | Qs Qc 6d 5h 4s | Ah Kh 9h 8h 2h"))
    'top Q Q 7 beats middle Q Q 6 5 4'
    >>> foul_reason(rules_for("ofc"), parse_board("Qh Qd 7c | Qs Qc 7d 5h 4s | Ah Kh 9h 8h 2h"))
    """
    sc = rules.spec.scoring
    require_complete(board)
    check_cards(board.cards)
    top = evaluate3(*board.top)
    middle_high = high5(sc, board.middle)
    middle_low = evaluate_low27(board.middle) if sc.lowball_middle else 0
    return board_foul_reason(sc, board, top, middle_high, middle_low, high5(sc, board.bottom))


def is_fouled(rules: Rules, board: Board) -> bool:
    """True if ``board`` breaks the line order (whatever ``misset_rule`` says about paying).

    >>> from chinese_poker.cards import parse_board
    >>> from chinese_poker.rules import rules_for
    >>> is_fouled(rules_for("ofc"), parse_board("Ah Kd 9c | As Kc 8d 5h 3s | 2c 2d 2h 4s 4d"))
    True
    """
    return foul_reason(rules, board) is not None
