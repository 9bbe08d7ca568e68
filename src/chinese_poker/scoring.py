"""Settling a table: fouls, royalties, naturals, surrender and money (RULES.md §4, §7, §8, §9).

Every pair of seats settles on its own (§7.1), in the order of §7.3: naturals, then
surrender, then fouls, then the showdown (line points plus royalties). The result of a
pair is what the second seat pays the first; a player's total is the sum over his pairs,
so every table sums to zero. Each pair keeps an itemised breakdown that says what every
point is for, and :meth:`Settlement.render` prints it for people.

>>> from chinese_poker.cards import parse_board
>>> from chinese_poker.rules import rules_for
>>> table = [
...     Hand(name="P1", board=parse_board("Kh Kd 4c | 9s 9h 9c 5d 2s | Ah Jh 8h 6h 3h")),
...     Hand(name="P2", board=parse_board("6s 6d Qc | Jc Js 8c 8d Ac | 7c 7d 7s 2c 2d")),
...     Hand(name="P3", board=parse_board("Ad As 5c | Qs Qd Tc 4d 3c | Ks Kc Th Td 9d")),
... ]
>>> result = settle(rules_for("pineapple-progressive"), table,
...                 units={("P1", "P2"): 100, ("P1", "P3"): 10, ("P2", "P3"): 10})
>>> dict(result.totals), dict(result.money)
({'P1': 28, 'P2': 5, 'P3': -33}, {'P1': 1000.0, 'P2': -670.0, 'P3': -330.0})
>>> result.fouled, result.fantasyland["P1"]
(('P3',), 15)

The scoring choices RULES.md leaves open are listed in ``docs/formats.md``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from chinese_poker.cards import (
    LINE_NAMES,
    RANKS,
    Board,
    Card,
    card_name,
    check_disjoint,
    parse_cards,
)
from chinese_poker.evaluate import (
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    ONE_PAIR,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    Category,
    describe,
    evaluate,
    evaluate3,
    evaluate5,
    evaluate_low27,
    low27_high_card,
)
from chinese_poker.rules import NATURALS, Rules, describe_differences

__all__ = [
    "DEUCE_OF_SPADES",
    "Hand",
    "Item",
    "Natural",
    "PairResult",
    "ScoringError",
    "SeatResult",
    "Settlement",
    "fantasyland_next",
    "foul_reason",
    "is_fouled",
    "item_text",
    "line_royalty",
    "line_values",
    "natural_of",
    "royalties",
    "royalty_lookup",
    "settle",
]

#: The Finnish deuce (§7.6): card number 0 is the 2 of spades.
DEUCE_OF_SPADES: Card = 0

_TOP, _MIDDLE, _BOTTOM = 0, 1, 2


class ScoringError(ValueError):
    """A table that cannot be settled: wrong seats, incomplete boards, repeated cards."""


# ============================================================================ inputs


@dataclass(frozen=True, slots=True, kw_only=True)
class Hand:
    """One seat's hand to settle.

    ``player`` is the owner (defaults to ``name``): in Criss Cross one player owns two
    hands, numbered by ``index`` 0 and 1; seats of one player never settle each other.
    ``dealt`` is what the player was dealt (for ``royalty_for_dealt_combination``; by
    default the board's cards). A surrendering hand may leave its board empty.

    >>> from chinese_poker.cards import parse_board
    >>> Hand(name="A", board=parse_board("Ah Ad 2c | Kh Kd Qs Jc Ts | 9s 9h 9d 5c 5d")).owner
    'A'
    """

    name: str
    board: Board
    player: str | None = None
    index: int = 0
    surrender: bool = False
    in_fantasyland: bool = False
    dealt: tuple[Card, ...] | None = None
    declares_natural: bool = True

    @property
    def owner(self) -> str:
        """The player this hand belongs to."""
        return self.name if self.player is None else self.player


# ============================================================================ results


@dataclass(frozen=True, slots=True)
class Natural:
    """A classic natural (§7.10): its kind, its value in points and a comparison key.

    ``key`` compares two naturals of the same kind (higher wins): the pair ranks for six
    pairs, (back, middle, front) strengths for three flushes and three straights, and
    nothing for a dragon (two dragons tie).
    """

    kind: str
    value: int
    key: tuple[int, ...] = ()

    @property
    def label(self) -> str:
        """The players' name, e.g. ``'Three flushes'``."""
        return self.kind.replace("_", " ").capitalize()


class Item(NamedTuple):
    """One entry of a pair's breakdown: what ``points`` (paid by B to A) are for.

    ``kind`` is one of ``line``, ``overall``, ``scoop``, ``foul``, ``royalty``,
    ``natural``, ``surrender``. For lines and royalties, ``line`` names the line and
    ``a``/``b`` the two hands on it; ``a_amount``/``b_amount`` are the royalties (or the
    natural values) of A and B and ``factor`` is 2 where the Finnish deuce doubled them.
    ``note`` is a short code saying why (see :func:`item_text`).
    """

    kind: str
    points: int
    line: str = ""
    a: str = ""
    b: str = ""
    a_amount: int = 0
    b_amount: int = 0
    factor: int = 1
    note: str = ""


class SeatResult(NamedTuple):
    """One seat as settled: its lines, royalties, foul, natural and next-hand Fantasyland.

    (A named tuple rather than a frozen dataclass: building one is six times cheaper, and
    a table builds one per seat on every settlement.)

    ``values`` are the line values used for comparisons (the middle is a deuce-to-seven
    low value under ``middle_mode = lowball_2_7``), ``hands`` their names. ``royalties``
    are the royalties this seat collects with (zero when fouled, surrendered or playing a
    natural); ``foul_reason`` is set whenever the board breaks the line order, and
    ``fouled`` when that is penalised (not under ``misset_rule = ignore``).
    """

    name: str
    player: str
    hand_index: int
    board: Board
    values: tuple[int, int, int]
    hands: tuple[str, str, str]
    royalties: tuple[int, int, int]
    foul_reason: str | None
    fouled: bool
    natural: Natural | None
    surrendered: bool
    in_fantasyland: bool
    fantasyland: int | None
    deuce_line: int = -1
    dealt_bonus: tuple[str, ...] = ()
    royalty_strength: tuple[int, int, int] = (0, 0, 0)

    @property
    def royalty_total(self) -> int:
        return self.royalties[0] + self.royalties[1] + self.royalties[2]

    @property
    def plays(self) -> bool:
        """True if the board is shown down (no natural, no surrender, no penalised foul)."""
        return not (self.fouled or self.surrendered or self.natural is not None)


class PairResult(NamedTuple):
    """The settlement of seat ``a`` against seat ``b``: ``points`` is what B pays A.

    ``basis`` says which step of §7.3 decided it: ``natural``, ``surrender``,
    ``both_fouled``, ``foul`` or ``showdown``. ``lines`` holds, for a showdown, +1/0/-1 per
    line from A's side. ``unit`` is the money value of one point for this pair.
    """

    a: str
    b: str
    a_player: str
    b_player: str
    points: int
    basis: str
    items: tuple[Item, ...]
    lines: tuple[int, int, int] | None
    unit: float

    @property
    def money(self) -> float:
        """What B pays A in money."""
        return self.points * self.unit

    def points_for(self, seat: str) -> int:
        """The result from ``seat``'s side."""
        return self.points if seat == self.a else -self.points


@dataclass(frozen=True, slots=True)
class Settlement:
    """A settled table.

    ``totals`` and ``money`` are per player (they sum to zero), ``seat_totals`` per seat,
    ``fouled`` names the seats that paid a foul, ``fantasyland`` gives each seat's next-hand
    Fantasyland deal (None if it does not qualify). ``to_dict()`` is the JSON contract of
    ``chinese-poker score --json``; ``render()`` the readable breakdown.
    """

    rules: Rules
    seats: tuple[SeatResult, ...]
    pairs: tuple[PairResult, ...]
    totals: Mapping[str, int]
    seat_totals: Mapping[str, int]
    money: Mapping[str, float]
    fouled: tuple[str, ...]
    fantasyland: Mapping[str, int | None]

    def seat(self, name: str) -> SeatResult:
        """The seat called ``name``."""
        for seat in self.seats:
            if seat.name == name:
                return seat
        raise KeyError(name)

    def pair(self, a: str, b: str) -> PairResult:
        """The pair of seats ``a`` and ``b`` (either order; the result is still B pays A)."""
        for pair in self.pairs:
            if (pair.a, pair.b) == (a, b) or (pair.a, pair.b) == (b, a):
                return pair
        raise KeyError(f"{a}-{b}")

    def points_between(self, a: str, b: str) -> int:
        """What seat (or player) ``b`` pays ``a`` in total over their settlements."""
        total = 0
        for pair in self.pairs:
            if (a, b) in ((pair.a, pair.b), (pair.a_player, pair.b_player)):
                total += pair.points
            elif (b, a) in ((pair.a, pair.b), (pair.a_player, pair.b_player)):
                total -= pair.points
        return total

    def to_dict(self) -> dict[str, Any]:
        """The public JSON form (documented in docs/formats.md)."""
        return _settlement_dict(self)

    def render(self) -> str:
        """A plain-text breakdown: each board, each pair item by item, the totals."""
        return _render(self)


# ============================================================================ per-rules plan
#
# Everything derived from a Rules object is computed once and kept in a small cache keyed on
# id(rules); the entry holds the Rules itself, so the id cannot be reused while cached.
# (Hashing a Rules object walks ~45 fields, more than settling a line costs.)


class _Plan:
    __slots__ = (
        "award",
        "bot_royal",
        "bot_table",
        "claim_automatic",
        "classic",
        "cross_order",
        "dealt_combo",
        "deuce_fouled_doubles",
        "finnish",
        "fl_enabled",
        "fl_middle_min",
        "foul_pays_royalties",
        "foul_value",
        "lookup",
        "low_dp",
        "lowball",
        "max_one",
        "mid_royal",
        "mid_table",
        "misset_ignore",
        "more_lines",
        "natural_values",
        "naturals",
        "o",
        "open_face",
        "parallel",
        "qualifier",
        "rules",
        "rules_dict",
        "s",
        "surrender_allowed",
        "surrender_cost",
        "top_pair",
        "top_trips",
        "v",
        "wheel",
        "wheel_lowest",
    )

    rules: Rules
    rules_dict: dict[str, Any] | None
    lookup: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None
    v: int
    o: int
    s: int
    more_lines: bool
    foul_value: int
    foul_pays_royalties: bool
    misset_ignore: bool
    award: str
    top_pair: tuple[int, ...]
    top_trips: tuple[int, ...]
    mid_table: tuple[int, ...]
    mid_royal: int
    bot_table: tuple[int, ...]
    bot_royal: int
    low_dp: bool
    max_one: bool
    dealt_combo: bool
    finnish: bool
    deuce_fouled_doubles: bool
    surrender_allowed: bool
    surrender_cost: int
    naturals: bool
    natural_values: dict[str, int]
    cross_order: tuple[str, ...] | None
    parallel: bool
    lowball: bool
    qualifier: bool
    wheel: str
    wheel_lowest: bool
    claim_automatic: bool
    classic: bool
    open_face: bool
    fl_enabled: bool
    fl_middle_min: int


_FIVE_KEYS = {
    THREE_OF_A_KIND: "three_of_a_kind",
    STRAIGHT: "straight",
    FLUSH: "flush",
    FULL_HOUSE: "full_house",
    FOUR_OF_A_KIND: "four_of_a_kind",
    STRAIGHT_FLUSH: "straight_flush",
}
# (trips, straight, flush, full house, quads, straight flush, royal flush) per table.
_AMERICAN_MIDDLE = (2, 4, 8, 12, 20, 30, 50)
_AMERICAN_BOTTOM = (0, 2, 4, 6, 10, 15, 25)
_WESTERN_MIDDLE = (2, 4, 8, 12, 16, 20, 30)
_WESTERN_BOTTOM = (0, 2, 4, 6, 8, 10, 15)


def _five_table(row: Sequence[int]) -> tuple[tuple[int, ...], int]:
    """Per category (index 0..8) royalty, plus the royal flush, from a 7-entry row."""
    table = [0] * 9
    for cat, amount in zip(
        (THREE_OF_A_KIND, STRAIGHT, FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH),
        row[:6],
        strict=True,
    ):
        table[cat] = amount
    return tuple(table), row[6]


def _build_plan(rules: Rules) -> _Plan:
    p = _Plan()
    p.rules = rules
    p.rules_dict = None
    p.lookup = None
    p.v, p.o, p.s = rules.line_values
    p.more_lines = rules.overall_unit_rule == "more_lines_won"
    p.foul_value = rules.foul_value
    p.foul_pays_royalties = rules.foul_pays_opponent_royalties
    p.misset_ignore = rules.misset_rule == "ignore"
    p.award = rules.royalty_award
    table = rules.royalty_table
    top_pair = [0] * 13
    top_trips = [0] * 13
    mid_row: Sequence[int] = (0,) * 7
    bot_row: Sequence[int] = (0,) * 7
    if table in ("american", "western"):
        for r in range(4, 13):  # 66 = 1 .. AA = 9
            top_pair[r] = r - 3
        for r in range(13):  # 222 = 10 .. AAA = 22
            top_trips[r] = 10 + r
        mid = _AMERICAN_MIDDLE if table == "american" else _WESTERN_MIDDLE
        # middle_trips_royalty is read for both tables (it only changes anything when 0).
        mid_row = (rules.middle_trips_royalty, *mid[1:])
        bot_row = _AMERICAN_BOTTOM if table == "american" else _WESTERN_BOTTOM
    elif table == "classic_standard":
        top_trips = [3] * 13
        royal_mid, royal_bot = (20, 10) if rules.classic_royal_flush == "20/10" else (14, 7)
        mid_row = (0, 0, 0, 2, 8, 10, royal_mid)
        bot_row = (0, 0, 0, 0, 4, 5, royal_bot)
    elif table == "classic_flat":
        top_trips = [1] * 13
        mid_row = (0, 0, 0, 1, 1, 1, 1)
        bot_row = (0, 0, 0, 0, 1, 1, 1)
    elif table == "custom":
        custom = rules.custom_royalties or {}
        top = custom.get("top", {})
        for r, rank in enumerate(RANKS):
            top_pair[r] = top.get(rank * 2, 0)
            top_trips[r] = top.get(rank * 3, 0)
        rows = []
        for line in ("middle", "bottom"):
            given = custom.get(line, {})
            row = [given.get(_FIVE_KEYS[c], 0) for c in sorted(_FIVE_KEYS)]
            # A royal flush is a straight flush: without its own entry it pays as one.
            row.append(given.get("royal_flush", row[-1]))
            rows.append(row)
        mid_row, bot_row = rows
    p.top_pair = tuple(top_pair)
    p.top_trips = tuple(top_trips)
    p.mid_table, p.mid_royal = _five_table(mid_row)
    p.bot_table, p.bot_royal = _five_table(bot_row)
    p.lowball = rules.middle_mode == "lowball_2_7"
    p.low_dp = p.lowball and rules.low_middle_royalties == "dp_table"
    p.qualifier = p.lowball and rules.low_middle_qualifier == "ten_high_no_pair"
    p.max_one = rules.max_royalties_per_hand == 1
    p.dealt_combo = rules.royalty_for_dealt_combination
    p.finnish = rules.finnish_deuce
    p.deuce_fouled_doubles = rules.finnish_deuce_if_holder_fouled == "doubles_opponent_line"
    p.classic = rules.is_classic
    p.open_face = rules.is_open_face
    p.surrender_allowed = p.classic and rules.surrender_allowed
    p.surrender_cost = rules.surrender_cost
    p.naturals = p.classic and rules.naturals_enabled
    p.natural_values = dict(rules.natural_values)
    p.cross_order = (
        None if rules.natural_cross_type == "tie" else tuple(rules.natural_cross_type.split(">"))
    )
    p.parallel = rules.variant == "criss_cross" and rules.criss_cross_pairing == "parallel"
    p.wheel = rules.wheel_rank
    p.wheel_lowest = p.wheel == "lowest"
    p.claim_automatic = rules.natural_claim == "automatic"
    p.fl_enabled = p.open_face and rules.fantasyland_enabled
    p.fl_middle_min = {"full_house": FULL_HOUSE, "four_of_a_kind": FOUR_OF_A_KIND}.get(
        rules.fl_repeat_middle_min, 99
    )
    return p


_PLANS: dict[int, _Plan] = {}


def _plan(rules: Rules) -> _Plan:
    plan = _PLANS.get(id(rules))
    if plan is None or plan.rules is not rules:
        if len(_PLANS) >= 256:
            _PLANS.clear()
        plan = _PLANS[id(rules)] = _build_plan(rules)
    return plan


# ============================================================================ line values


def _five_royalty(value: int, table: tuple[int, ...], royal: int) -> int:
    cat = value >> 20
    if cat == STRAIGHT_FLUSH and (value >> 16) & 15 == 14:
        return royal
    return table[cat]


def _top_royalty(plan: _Plan, value: int) -> int:
    cat = value >> 20
    if cat == ONE_PAIR:
        return plan.top_pair[((value >> 16) & 15) - 2]
    if cat == THREE_OF_A_KIND:
        return plan.top_trips[((value >> 16) & 15) - 2]
    return 0


def _high5(plan: _Plan, line: tuple[Card, ...]) -> int:
    if plan.wheel == "lowest":
        return evaluate5(*line)
    return evaluate(line, wheel="second_highest")


def _require_complete(board: Board) -> None:
    if len(board.top) != 3 or len(board.middle) != 5 or len(board.bottom) != 5:
        raise ScoringError(
            f"board {board} is not complete: lines need 3, 5 and 5 cards, "
            f"have {len(board.top)}, {len(board.middle)} and {len(board.bottom)}"
        )


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
    _require_complete(board)
    _check_cards(board.cards)
    plan = _plan(rules)
    top = evaluate3(*board.top)
    middle = evaluate_low27(board.middle) if plan.lowball else _high5(plan, board.middle)
    return top, middle, _high5(plan, board.bottom)


def _check_cards(cards: Sequence[Card]) -> None:
    if len(set(cards)) != len(cards):
        raise ScoringError(f"a board holds a card twice: {_cards_text(cards)}")
    if cards and (min(cards) < 0 or max(cards) > 51):
        raise ScoringError(f"card numbers must be 0..51, got {sorted(cards)}")


def _cards_text(cards: Iterable[Card]) -> str:
    return " ".join(card_name(c) if 0 <= c < 52 else str(c) for c in cards)


# ---------------------------------------------------------------------------- foul check


def _rank_text(cards: Sequence[Card]) -> str:
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
        ranks = _RANK_TEXTS[value] = _rank_text(cards)
    text = f"{name} {ranks}"
    cat = value >> 20
    # The ranks alone do not show flushes and straights, nor which category won.
    if cat != other >> 20 or cat in (STRAIGHT, FLUSH, STRAIGHT_FLUSH):
        text += f" ({Category(cat).label.lower()})"
    return text


def _foul_reason(
    plan: _Plan, board: Board, top: int, middle_high: int, middle_low: int, bottom: int
) -> str | None:
    if plan.lowball:
        if top > bottom:
            return (
                f"{_line_text('top', board.top, top, bottom)} beats "
                f"{_line_text('bottom', board.bottom, bottom, top)}"
            )
        if plan.qualifier:
            high = low27_high_card(middle_low)
            if high is None:
                what = Category(middle_high >> 20).label.lower()
                if middle_high >> 20 == HIGH_CARD:
                    what = "straight or flush"  # only these make a no-pair low unqualified
                return (
                    f"middle {_rank_text(board.middle)} has a {what}; a low middle must be "
                    "ten-high or better with no pair, straight or flush"
                )
            if high > 8:
                return (
                    f"middle {_rank_text(board.middle)} is {RANKS[high]}-high; a low middle "
                    "must be ten-high or better"
                )
        return None
    if top > middle_high:
        return (
            f"{_line_text('top', board.top, top, middle_high)} beats "
            f"{_line_text('middle', board.middle, middle_high, top)}"
        )
    if middle_high > bottom:
        return (
            f"{_line_text('middle', board.middle, middle_high, bottom)} beats "
            f"{_line_text('bottom', board.bottom, bottom, middle_high)}"
        )
    return None


def foul_reason(rules: Rules, board: Board) -> str | None:
    """None if ``board`` keeps the line order (§4, §8.1), else a reason players can read.

    >>> from chinese_poker.cards import parse_board
    >>> from chinese_poker.rules import rules_for
    >>> foul_reason(rules_for("ofc"), parse_board("Qh Qd 7c | Qs Qc 6d 5h 4s | Ah Kh 9h 8h 2h"))
    'top Q Q 7 beats middle Q Q 6 5 4'
    >>> foul_reason(rules_for("ofc"), parse_board("Qh Qd 7c | Qs Qc 7d 5h 4s | Ah Kh 9h 8h 2h"))
    """
    plan = _plan(rules)
    _require_complete(board)
    _check_cards(board.cards)
    top = evaluate3(*board.top)
    middle_high = _high5(plan, board.middle)
    middle_low = evaluate_low27(board.middle) if plan.lowball else 0
    return _foul_reason(plan, board, top, middle_high, middle_low, _high5(plan, board.bottom))


def is_fouled(rules: Rules, board: Board) -> bool:
    """True if ``board`` breaks the line order (whatever ``misset_rule`` says about paying).

    >>> from chinese_poker.cards import parse_board
    >>> from chinese_poker.rules import rules_for
    >>> is_fouled(rules_for("ofc"), parse_board("Ah Kd 9c | As Kc 8d 5h 3s | 2c 2d 2h 4s 4d"))
    True
    """
    return foul_reason(rules, board) is not None


# ---------------------------------------------------------------------------- royalties

_LOW_75432 = evaluate_low27(parse_cards("7c 5d 4h 3s 2c"))  # the same for any mixed suits


def _low_royalty(middle_low: int) -> int:
    """The [DP] low-middle table: 9-high 1, 8-high 2, 7-high 4, 7 5 4 3 2 8."""
    high = low27_high_card(middle_low)
    if high is None or high > 7:
        return 0
    if high == 5:
        return 8 if middle_low == _LOW_75432 else 4
    return {6: 2, 7: 1}.get(high, 0)


def line_royalty(rules: Rules, line: int | str, value: int) -> int:
    """The royalty of one line of value ``value`` under ``rules`` (§7.4, §8.1).

    ``line`` is 0/1/2 or ``"top"``/``"middle"``/``"bottom"``; ``value`` is as
    :func:`line_values` gives it (the low value for a low middle). Per-hand rules
    (``max_royalties_per_hand``, ``royalty_for_dealt_combination``) are not applied.

    >>> from chinese_poker.cards import parse_cards
    >>> from chinese_poker.rules import rules_for
    >>> line_royalty(rules_for("ofc"), "top", evaluate3(*parse_cards("Qh Qd 7c")))
    7
    """
    plan = _plan(rules)
    index = LINE_NAMES.index(line) if isinstance(line, str) else line
    if index == _TOP:
        return _top_royalty(plan, value)
    if index == _MIDDLE:
        if plan.lowball:
            return _low_royalty(value) if plan.low_dp else 0
        return _five_royalty(value, plan.mid_table, plan.mid_royal)
    if index == _BOTTOM:
        return _five_royalty(value, plan.bot_table, plan.bot_royal)
    raise ValueError(f"line must be 0, 1, 2 or top, middle, bottom, not {line!r}")


def royalty_lookup(rules: Rules) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Royalty of the top, middle and bottom by ``value >> 16`` of a high line value.

    Every royalty table depends only on a line's category and leading key rank, the
    bits above 16 of its value, so solvers and bots look royalties up in these tuples
    instead of calling :func:`line_royalty` in their loops. A low middle (§8.1) is
    valued on another scale; use :func:`line_royalty` for it.

    >>> from chinese_poker.cards import parse_cards
    >>> from chinese_poker.rules import rules_for
    >>> top, middle, bottom = royalty_lookup(rules_for("ofc"))
    >>> bottom[evaluate(parse_cards("Ah Kh Qh Jh Th")) >> 16]
    25
    """
    plan = _plan(rules)
    if plan.lookup is None:
        tables = []
        for line in (_TOP, _MIDDLE, _BOTTOM):
            row = [0] * (1 << 8)
            for hi in range(1 << 8):
                if hi >> 4 <= STRAIGHT_FLUSH and 2 <= (hi & 15) <= 14:
                    value = hi << 16
                    if line == _TOP:
                        row[hi] = _top_royalty(plan, value)
                    else:
                        table, royal = (
                            (plan.mid_table, plan.mid_royal)
                            if line == _MIDDLE
                            else (plan.bot_table, plan.bot_royal)
                        )
                        row[hi] = _five_royalty(value, table, royal)
            tables.append(tuple(row))
        plan.lookup = (tables[0], tables[1], tables[2])
    return plan.lookup


def _dealt_combinations(
    plan: _Plan, dealt: Sequence[Card], board: Board
) -> list[tuple[int, int, str]]:
    """Quads and straight flushes dealt but not kept whole in the middle or bottom.

    Each gives (back-line royalty, strength, name): with ``royalty_for_dealt_combination``
    the player collects the back-line royalty of such a combination even though he broke
    it up ([004]). A straight flush run longer than five cards is one combination.
    """
    found: list[tuple[int, int, str]] = []
    held = set(dealt)
    lines = (set(board.middle), set(board.bottom))
    by_rank: dict[int, list[Card]] = {}
    for c in held:
        by_rank.setdefault(c >> 2, []).append(c)
    for rank, cards in by_rank.items():
        if len(cards) == 4 and not any(set(cards) <= line for line in lines):
            kicker = next((c for c in sorted(held) if c >> 2 != rank), (rank + 1) % 13 * 4)
            value = evaluate5(cards[0], cards[1], cards[2], cards[3], kicker)
            royalty = plan.bot_table[FOUR_OF_A_KIND]
            found.append((royalty, value, describe(value).split(",")[0]))
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
                royalty = plan.bot_royal if top == 12 else plan.bot_table[STRAIGHT_FLUSH]
                found.append((royalty, value, describe(value)))
            top -= 5  # the windows overlapping this one belong to the same run
    return found


def _royalty_parts(
    plan: _Plan,
    board: Board,
    values: tuple[int, int, int],
    middle_high: int,
    dealt: Sequence[Card] | None,
) -> tuple[tuple[int, int, int], tuple[str, ...], int]:
    """Royalties per line, the names of dealt-combination bonuses, their best strength."""
    top = _top_royalty(plan, values[0])
    if plan.lowball:
        middle = _low_royalty(values[1]) if plan.low_dp else 0
    else:
        middle = _five_royalty(values[1], plan.mid_table, plan.mid_royal)
    bottom = _five_royalty(values[2], plan.bot_table, plan.bot_royal)
    if not (plan.dealt_combo or plan.max_one):
        return (top, middle, bottom), (), 0
    parts = [(top, _TOP, ""), (middle, _MIDDLE, ""), (bottom, _BOTTOM, "")]
    strength = 0
    if plan.dealt_combo:
        for royalty, value, name in _dealt_combinations(plan, dealt or board.cards, board):
            if royalty:
                parts.append((royalty, _BOTTOM, name))
                strength = max(strength, value)
    if plan.max_one:
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
    plan = _plan(rules)
    _check_cards(board.cards)
    if len(board.top) != 3 or len(board.middle) != 5 or len(board.bottom) != 5:
        top = _top_royalty(plan, evaluate3(*board.top)) if len(board.top) == 3 else 0
        middle = 0
        if len(board.middle) == 5 and not plan.lowball:
            middle = _five_royalty(_high5(plan, board.middle), plan.mid_table, plan.mid_royal)
        bottom = 0
        if len(board.bottom) == 5:
            bottom = _five_royalty(_high5(plan, board.bottom), plan.bot_table, plan.bot_royal)
        return top, middle, bottom
    top_v = evaluate3(*board.top)
    middle_high = _high5(plan, board.middle)
    middle_v = evaluate_low27(board.middle) if plan.lowball else middle_high
    values = (top_v, middle_v, _high5(plan, board.bottom))
    return _royalty_parts(plan, board, values, middle_high, dealt)[0]


# ---------------------------------------------------------------------------- naturals


def _front_run(top: Sequence[Card]) -> int | None:
    """Top rank of a front of three consecutive ranks (``A 2 3`` is three high), else None."""
    a, b, c = sorted(card >> 2 for card in top)
    if b == a + 1 and c == b + 1:
        return c
    if (a, b, c) == (0, 1, 12):
        return 1
    return None


def _find_natural(plan: _Plan, board: Board, middle: int, bottom: int) -> Natural | None:
    """The natural of a set board (``middle``/``bottom`` are its high values), or None.

    Dragons and six pairs depend only on the 13 cards. Three flushes and three straights
    count as the board is set: W9's third board holds a front and two flushes' worth of
    suits but is set otherwise, and RULES.md counts it as no natural.
    """
    cards = board.cards
    if len(cards) != 13:
        return None
    distinct = len({c >> 2 for c in cards})
    found: list[Natural] = []
    values = plan.natural_values
    if distinct == 13:
        found.append(Natural("dragon", values["dragon"]))
    elif distinct <= 7:  # six pairs leave at most seven ranks
        counts = [0] * 13
        for c in cards:
            counts[c >> 2] += 1
        pairs = tuple(r for r in range(12, -1, -1) for _ in range(counts[r] // 2))
        if len(pairs) >= 6:
            found.append(Natural("six_pairs", values["six_pairs"], pairs[:6]))
    middle_cat, bottom_cat = middle >> 20, bottom >> 20
    if middle_cat >= STRAIGHT and bottom_cat >= STRAIGHT:
        top = board.top
        if (
            middle_cat in (FLUSH, STRAIGHT_FLUSH)
            and bottom_cat in (FLUSH, STRAIGHT_FLUSH)
            and top[0] & 3 == top[1] & 3 == top[2] & 3
        ):
            key = (bottom, middle, evaluate3(top[0], top[1], top[2]))
            found.append(Natural("three_flushes", values["three_flushes"], key))
        if middle_cat in (STRAIGHT, STRAIGHT_FLUSH) and bottom_cat in (STRAIGHT, STRAIGHT_FLUSH):
            front = _front_run(top)
            if front is not None:
                key = (bottom, middle, front)
                found.append(Natural("three_straights", values["three_straights"], key))
    if not found:
        return None
    # A hand that makes two naturals claims the one worth more (ties: the fixed order).
    order = plan.cross_order or NATURALS
    return max(found, key=lambda n: (n.value, -order.index(n.kind)))


def natural_of(rules: Rules, hand_or_board: Hand | Board) -> Natural | None:
    """The natural (§7.10) a classic hand claims, or None.

    Three flushes and three straights count as the board is set (front, middle, back);
    their key compares the backs, then the middles, then the fronts. Under
    ``natural_claim = optional`` a :class:`Hand` with ``declares_natural`` false claims
    nothing. Open-face variants have no naturals.

    >>> from chinese_poker.cards import parse_board
    >>> from chinese_poker.rules import rules_for
    >>> board = parse_board("2h 7h 9h | 3c 5c 8c Jc Kc | 4d 6d Td Qd 9d")
    >>> natural_of(rules_for("classic"), board).label, natural_of(rules_for("ofc"), board)
    ('Three flushes', None)
    """
    plan = _plan(rules)
    if not plan.naturals:
        return None
    if isinstance(hand_or_board, Hand):
        if rules.natural_claim == "optional" and not hand_or_board.declares_natural:
            return None
        board = hand_or_board.board
    else:
        board = hand_or_board
    _require_complete(board)
    _check_cards(board.cards)
    return _find_natural(plan, board, _high5(plan, board.middle), _high5(plan, board.bottom))


# ---------------------------------------------------------------------------- Fantasyland


def _fantasyland(
    plan: _Plan, top: int, middle_high: int, bottom: int, in_fantasyland: bool
) -> int | None:
    rules = plan.rules
    top_cat = top >> 20
    if in_fantasyland:
        if (
            top_cat == THREE_OF_A_KIND
            or bottom >> 20 >= FOUR_OF_A_KIND
            or middle_high >> 20 >= plan.fl_middle_min
        ):
            return rules.fantasyland_cards(None, repeat=True)
        return None
    if top_cat == THREE_OF_A_KIND:
        return rules.fantasyland_cards("trips", repeat=False)
    if top_cat == ONE_PAIR:
        rank = ((top >> 16) & 15) - 2
        if rank >= 10:  # QQ, KK, AA
            return rules.fantasyland_cards(RANKS[rank] * 2, repeat=False)
    return None


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
    plan = _plan(rules)
    if not plan.fl_enabled:
        return None
    _require_complete(board)
    _check_cards(board.cards)
    top = evaluate3(*board.top)
    middle_high = _high5(plan, board.middle)
    bottom = _high5(plan, board.bottom)
    middle_low = evaluate_low27(board.middle) if plan.lowball else 0
    if _foul_reason(plan, board, top, middle_high, middle_low, bottom) is not None:
        return None
    return _fantasyland(plan, top, middle_high, bottom, in_fantasyland)


# ============================================================================ seats

_DESCRIPTIONS: dict[int, str] = {}
_LOW_DESCRIPTIONS: dict[int, str] = {}


def _describe(value: int) -> str:
    text = _DESCRIPTIONS.get(value)
    if text is None:
        text = _DESCRIPTIONS[value] = describe(value)
    return text


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


_ZERO3 = (0, 0, 0)


def _seat(plan: _Plan, hand: Hand) -> SeatResult:
    board = hand.board
    name = hand.name
    player = hand.name if hand.player is None else hand.player
    if hand.surrender and not board.top and not board.middle and not board.bottom:
        return SeatResult(
            name, player, hand.index, board, _ZERO3, ("", "", ""), _ZERO3, None, False, None,
            True, hand.in_fantasyland, None,
        )  # fmt: skip
    t, m, b = board.top, board.middle, board.bottom
    top = evaluate3(t[0], t[1], t[2])
    if plan.wheel_lowest:
        middle_high = evaluate5(m[0], m[1], m[2], m[3], m[4])
        bottom = evaluate5(b[0], b[1], b[2], b[3], b[4])
    else:
        middle_high = evaluate(m, wheel="second_highest")
        bottom = evaluate(b, wheel="second_highest")
    if plan.lowball:
        middle = evaluate_low27(m)
        hands = (_describe(top), _describe_low(middle, middle_high), _describe(bottom))
        reason = _foul_reason(plan, board, top, middle_high, middle, bottom)
    else:
        middle = middle_high
        known = _DESCRIPTIONS
        hands = (
            known.get(top) or _describe(top),
            known.get(middle) or _describe(middle),
            known.get(bottom) or _describe(bottom),
        )
        # The plain comparisons of §3.4 on the shared value scale.
        reason = (
            None
            if top <= middle and middle <= bottom
            else _foul_reason(plan, board, top, middle, 0, bottom)
        )
    values = (top, middle, bottom)

    natural = None
    if plan.naturals and (plan.claim_automatic or hand.declares_natural):
        natural = _find_natural(plan, board, middle_high, bottom)
    surrendered = hand.surrender and natural is None
    fouled = reason is not None and not plan.misset_ignore and natural is None and not surrendered

    deuce_line = -1
    if plan.finnish:
        if DEUCE_OF_SPADES in t:
            deuce_line = _TOP
        elif DEUCE_OF_SPADES in m:
            deuce_line = _MIDDLE
        elif DEUCE_OF_SPADES in b:
            deuce_line = _BOTTOM

    fantasyland = None
    if plan.fl_enabled and reason is None:
        fantasyland = _fantasyland(plan, top, middle_high, bottom, hand.in_fantasyland)

    if fouled or surrendered or natural is not None:
        return SeatResult(
            name, player, hand.index, board, values, hands, _ZERO3, reason, fouled, natural,
            surrendered, hand.in_fantasyland, fantasyland, deuce_line,
        )  # fmt: skip
    if plan.dealt_combo or plan.max_one:
        roy, bonus, dealt_strength = _royalty_parts(plan, board, values, middle_high, hand.dealt)
        strength = (top, middle, max(bottom, dealt_strength))
    else:
        if plan.lowball:
            mid_roy = _low_royalty(middle) if plan.low_dp else 0
        else:
            mid_roy = _five_royalty(middle, plan.mid_table, plan.mid_royal)
        roy = (
            _top_royalty(plan, top),
            mid_roy,
            _five_royalty(bottom, plan.bot_table, plan.bot_royal),
        )
        bonus = ()
        strength = values
    return SeatResult(
        name, player, hand.index, board, values, hands, roy, reason, False, None, False,
        hand.in_fantasyland, fantasyland, deuce_line, bonus, strength,
    )  # fmt: skip


# ============================================================================ pairs

_NEW_ITEM = tuple.__new__  # building NamedTuples without the keyword machinery (hot path)


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


def _natural_pair(plan: _Plan, na: Natural | None, nb: Natural | None) -> tuple[int, str]:
    """(what B pays A, note) when at least one of them holds a natural."""
    if nb is None:
        assert na is not None
        return na.value, "a"
    if na is None:
        return -nb.value, "b"
    if na.value != nb.value:
        return (na.value, "higher") if na.value > nb.value else (-nb.value, "higher")
    if na.kind == nb.kind:
        if na.key == nb.key:
            return 0, "tie"
        return (na.value, "same_kind") if na.key > nb.key else (-nb.value, "same_kind")
    order = plan.cross_order
    if order is None:
        return 0, "cross_tie"
    if order.index(na.kind) < order.index(nb.kind):
        return na.value, "order"
    return -nb.value, "order"


def _foul_items(plan: _Plan, winner: SeatResult, loser: SeatResult, sign: int) -> list[Item]:
    """Items of a valid ``winner`` against a fouled ``loser`` (sign +1 if winner is A)."""
    note = "scoop_value" if plan.rules.foul_penalty == "scoop_value" else "fixed"
    items = [_item("foul", sign * plan.foul_value, note=note)]
    if plan.foul_pays_royalties:
        doubled = -1
        if plan.finnish:
            if winner.deuce_line >= 0:
                doubled = winner.deuce_line
            elif loser.deuce_line >= 0 and plan.deuce_fouled_doubles:
                doubled = loser.deuce_line
        for line in range(3):
            amount = winner.royalties[line]
            if amount:
                factor = 2 if line == doubled else 1
                if sign > 0:
                    items.append(
                        _item("royalty", factor * amount, LINE_NAMES[line],
                              winner.hands[line], "", amount, 0, factor, "foul")
                    )  # fmt: skip
                else:
                    items.append(
                        _item("royalty", -factor * amount, LINE_NAMES[line],
                              "", winner.hands[line], 0, amount, factor, "foul")
                    )  # fmt: skip
    return items


# "won-lost" notes of the overall unit, prebuilt: formatting them is slower than settling.
_SCORES = tuple(tuple(f"{w}-{lost}" for lost in range(4)) for w in range(4))


def _showdown(
    plan: _Plan,
    a: SeatResult,
    b: SeatResult,
    best: tuple[frozenset[str], frozenset[str], frozenset[str]] | None,
) -> tuple[int, list[Item], tuple[int, int, int]]:
    # Unrolled over the three lines: this is the innermost loop of every settlement.
    v = plan.v
    x0, x1, x2 = a.values
    y0, y1, y2 = b.values
    a0, a1, a2 = a.hands
    b0, b1, b2 = b.hands
    w0, w1, w2 = (x0 > y0) - (x0 < y0), (x1 > y1) - (x1 < y1), (x2 > y2) - (x2 < y2)
    new = _NEW_ITEM
    items = [
        new(Item, ("line", v * w0, "top", a0, b0, 0, 0, 1, "")),
        new(Item, ("line", v * w1, "middle", a1, b1, 0, 0, 1, "")),
        new(Item, ("line", v * w2, "bottom", a2, b2, 0, 0, 1, "")),
    ]
    wins = (w0 == 1) + (w1 == 1) + (w2 == 1)
    losses = (w0 == -1) + (w1 == -1) + (w2 == -1)
    total = v * (wins - losses)
    outcome = (w0, w1, w2)
    o = plan.o
    if o:
        if plan.more_lines:
            a_gets, b_gets = wins > losses, losses > wins
        else:
            a_gets, b_gets = wins >= 2, losses >= 2
        if a_gets:
            total += o
            items.append(new(Item, ("overall", o, "", "", "", 0, 0, 1, _SCORES[wins][losses])))
        elif b_gets:
            total -= o
            items.append(new(Item, ("overall", -o, "", "", "", 0, 0, 1, _SCORES[wins][losses])))
    s = plan.s
    if s:
        if wins == 3:
            total += s
            items.append(new(Item, ("scoop", s, "", "", "", 0, 0, 1, "")))
        elif losses == 3:
            total -= s
            items.append(new(Item, ("scoop", -s, "", "", "", 0, 0, 1, "")))

    ar, br = a.royalties, b.royalties
    if not (ar[0] or ar[1] or ar[2] or br[0] or br[1] or br[2]):
        return total, items, outcome
    doubled = -1
    if plan.finnish:
        doubled = a.deuce_line if a.deuce_line >= 0 else b.deuce_line
    award = plan.award
    for line in range(3):
        ra, rb = ar[line], br[line]
        if not (ra or rb):
            continue
        factor = 2 if line == doubled else 1
        won = outcome[line]
        if award == "net":
            points, note = factor * (ra - rb), "net"
        elif award == "best_at_table":
            assert best is not None
            a_best, b_best = a.name in best[line], b.name in best[line]
            if a_best and not b_best:
                points, note = factor * ra, "best"
            elif b_best and not a_best:
                points, note = -factor * rb, "best"
            else:
                points, note = 0, ("best_tie" if a_best else "not_best")
        elif award == "cancel" and ra and rb:
            points, note = 0, "cancel"
        elif won > 0:
            points, note = factor * ra, ("winner" if ra else "winner_none")
        elif won < 0:
            points, note = -factor * rb, ("winner" if rb else "winner_none")
        else:
            points, note = 0, "tie"
        total += points
        items.append(
            new(Item, ("royalty", points, LINE_NAMES[line], a.hands[line], b.hands[line],
                       ra, rb, factor, note))
        )  # fmt: skip
    return total, items, outcome


def _settle_pair(
    plan: _Plan,
    a: SeatResult,
    b: SeatResult,
    unit: float,
    best: tuple[frozenset[str], frozenset[str], frozenset[str]] | None,
) -> PairResult:
    # §7.3, step by step.
    na, nb = a.natural, b.natural
    if na is not None or nb is not None:
        points, note = _natural_pair(plan, na, nb)
        item = _item(
            "natural", points, a=na.kind if na else "", b=nb.kind if nb else "",
            a_amount=na.value if na else 0, b_amount=nb.value if nb else 0, note=note,
        )  # fmt: skip
        return PairResult(a.name, b.name, a.player, b.player, points, "natural", (item,), None,
                          unit)  # fmt: skip
    if a.surrendered or b.surrendered:
        cost = plan.surrender_cost
        if a.surrendered and b.surrendered:
            points, note = 0, "both"
        elif a.surrendered:
            points, note = (0, "fouled") if b.fouled else (-cost, "a")
        else:
            points, note = (0, "fouled") if a.fouled else (cost, "b")
        return PairResult(a.name, b.name, a.player, b.player, points, "surrender",
                          (_item("surrender", points, note=note),), None, unit)  # fmt: skip
    if a.fouled or b.fouled:
        if a.fouled and b.fouled:
            return PairResult(a.name, b.name, a.player, b.player, 0, "both_fouled",
                              (_item("foul", 0, note="both"),), None, unit)  # fmt: skip
        items = _foul_items(plan, b, a, -1) if a.fouled else _foul_items(plan, a, b, 1)
        points = sum(item.points for item in items)
        return PairResult(a.name, b.name, a.player, b.player, points, "foul", tuple(items),
                          None, unit)  # fmt: skip
    points, items, outcome = _showdown(plan, a, b, best)
    return PairResult(a.name, b.name, a.player, b.player, points, "showdown", tuple(items),
                      outcome, unit)  # fmt: skip


def _best_at_table(
    plan: _Plan, seats: Sequence[SeatResult]
) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """Per line, the seats holding the best royalty hand among the boards that play.

    Under Criss Cross parallel pairing each hand number is its own table.
    """
    best: list[set[str]] = [set(), set(), set()]
    groups: dict[int, list[SeatResult]] = {}
    for seat in seats:
        if seat.plays:
            groups.setdefault(seat.hand_index if plan.parallel else 0, []).append(seat)
    for group in groups.values():
        for line in range(3):
            holders = [s for s in group if s.royalties[line]]
            if holders:
                top = max(s.royalty_strength[line] for s in holders)
                best[line].update(s.name for s in holders if s.royalty_strength[line] == top)
    return frozenset(best[0]), frozenset(best[1]), frozenset(best[2])


# ============================================================================ the table


_DECK = frozenset(range(52))


def _check_hand(plan: _Plan, hand: Hand) -> list[Card]:
    """The checks only some hands need; returns the dealt cards not on the board."""
    board = hand.board
    if hand.surrender:
        if not plan.classic:
            raise ScoringError(f"{hand.name} surrenders, but only classic variants allow surrender")
        if not plan.surrender_allowed:
            raise ScoringError(f"{hand.name} surrenders, but surrender_allowed is no")
    if hand.in_fantasyland and not plan.open_face:
        raise ScoringError(
            f"{hand.name} is in Fantasyland, but {plan.rules.variant} has no Fantasyland"
        )
    if not (hand.surrender and len(board) == 0) and (
        len(board.top) != 3 or len(board.middle) != 5 or len(board.bottom) != 5
    ):
        raise ScoringError(
            f"{hand.name}'s board {board} is not complete: the lines need 3, 5 and 5 cards, "
            f"not {len(board.top)}, {len(board.middle)} and {len(board.bottom)}"
        )
    if hand.dealt is None:
        return []
    on_board = set(board.cards)
    if not on_board <= set(hand.dealt):
        missing = _cards_text(sorted(on_board - set(hand.dealt)))
        raise ScoringError(f"{hand.name}'s board holds cards not dealt to him: {missing}")
    return [c for c in hand.dealt if c not in on_board]


def _check_table(plan: _Plan, hands: Sequence[Hand]) -> list[str]:
    """Validate the seats; return the players in order of first appearance."""
    rules = plan.rules
    cards: list[Card] = []
    owners: list[str] = []
    for hand in hands:
        board = hand.board
        top, middle, bottom = board.top, board.middle, board.bottom
        if (
            len(top) != 3
            or len(middle) != 5
            or len(bottom) != 5
            or hand.surrender
            or hand.in_fantasyland
            or hand.dealt is not None
        ):
            cards += _check_hand(plan, hand)
        cards += top
        cards += middle
        cards += bottom
        owners.append(hand.name if hand.player is None else hand.player)
    if len({hand.name for hand in hands}) != len(hands):
        seen: set[str] = set()
        for hand in hands:
            if hand.name in seen:
                raise ScoringError(f"two seats are called {hand.name!r}; names must be unique")
            seen.add(hand.name)
    distinct = set(cards)
    if len(distinct) != len(cards) or not distinct <= _DECK:
        _explain_cards(hands, cards)
    players = list(dict.fromkeys(owners))
    count = len(players)
    if rules.variant == "criss_cross":
        if count != 2:
            raise ScoringError(f"Criss Cross is for exactly 2 players, got {count}")
        for player in players:
            numbers = sorted(h.index for h in hands if h.owner == player)
            if numbers != [0, 1]:
                raise ScoringError(
                    f"in Criss Cross each player plays two hands numbered 0 and 1; "
                    f"{player} has {len(numbers)} numbered {numbers}"
                )
        return players
    allowed = rules.player_counts
    if count not in allowed:
        raise ScoringError(
            f"{rules.variant} is for {allowed.start} to {allowed.stop - 1} players, got {count}"
        )
    if count != len(owners):
        for player in players:
            n = owners.count(player)
            if n != 1:
                raise ScoringError(
                    f"{player} has {n} hands; only Criss Cross gives a player two hands"
                )
    return players


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
            raise ScoringError(f"{hand.name}'s board holds {_cards_text(twice)} twice")
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

    >>> from chinese_poker.cards import parse_board
    >>> from chinese_poker.rules import rules_for
    >>> a = Hand(name="A", board=parse_board("Ah Qd 4c | Jh Js 9c 9d 2h | 7c 7d 7h 7s Kc"))
    >>> b = Hand(name="B", board=parse_board("Kd Jc 3h | Th Ts 8c 8d 5s | Qs 9s 6s 4s 3s"))
    >>> result = settle(rules_for("ofc"), [a, b])
    >>> result.totals["A"], [(i.kind, i.points) for i in result.pairs[0].items]
    (12, [('line', 1), ('line', 1), ('line', 1), ('scoop', 3), ('royalty', 6)])
    """
    plan = _plan(rules)
    hands = tuple(hands)
    players = _check_table(plan, hands)
    seats = [_seat(plan, hand) for hand in hands]
    best = _best_at_table(plan, seats) if plan.award == "best_at_table" else None
    unit_table = _unit_table(players, units) if units else None
    default_unit = rules.unit_value
    parallel = plan.parallel

    pairs: list[PairResult] = []
    seat_totals = {s.name: 0 for s in seats}
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
            pair = _settle_pair(plan, a, b, unit, best)
            pairs.append(pair)
            points = pair.points
            if points:
                seat_totals[a.name] += points
                seat_totals[b.name] -= points
    totals = dict.fromkeys(players, 0)
    for seat in seats:
        totals[seat.player] += seat_totals[seat.name]
    if unit_table is None:
        money = {p: t * default_unit + 0.0 for p, t in totals.items()}
    else:
        money = dict.fromkeys(players, 0.0)
        for pair in pairs:
            amount = pair.points * pair.unit
            money[pair.a_player] += amount
            money[pair.b_player] -= amount
        # Sums of products of points and units: rounding removes the float dust.
        money = {p: round(m, 9) + 0.0 for p, m in money.items()}
    fouled = tuple([s.name for s in seats if s.fouled])
    fantasyland = {s.name: s.fantasyland for s in seats}
    return Settlement(
        rules, tuple(seats), tuple(pairs), totals, seat_totals, money, fouled, fantasyland
    )


# ============================================================================ text and JSON


def item_text(pair: PairResult, item: Item) -> str:
    """What one item of ``pair`` is for, in words (the ``text`` of the JSON items).

    >>> from chinese_poker.cards import parse_board
    >>> from chinese_poker.rules import rules_for
    >>> a = Hand(name="A", board=parse_board("Ah Qd 4c | Jh Js 9c 9d 2h | 7c 7d 7h 7s Kc"))
    >>> b = Hand(name="B", board=parse_board("Kd Jc 3h | Th Ts 8c 8d 5s | Qs 9s 6s 4s 3s"))
    >>> pair = settle(rules_for("ofc"), [a, b]).pairs[0]
    >>> item_text(pair, pair.items[-1])
    'bottom royalties: A 10 (Four sevens) against B 4 (Flush, queen high), net'
    """
    a, b = pair.a, pair.b
    kind, points = item.kind, item.points
    if kind == "line":
        if points > 0:
            return f"{item.line}: {a} wins ({item.a} vs {item.b})"
        if points < 0:
            return f"{item.line}: {b} wins ({item.b} vs {item.a})"
        return f"{item.line}: tied ({item.a} vs {item.b})"
    if kind == "overall":
        who = a if points > 0 else b
        wins, _, losses = item.note.partition("-")
        score = f"{wins}-{losses}" if points > 0 else f"{losses}-{wins}"
        return f"overall unit: {who} wins the lines {score}"
    if kind == "scoop":
        return f"scoop bonus: {a if points > 0 else b} wins all three lines"
    if kind == "foul":
        if item.note == "both":
            return f"both {a} and {b} fouled: nothing to pay"
        fouled = b if points > 0 else a
        what = "the scoop value" if item.note == "scoop_value" else "the fixed foul penalty"
        return f"{fouled} fouled: pays {what}"
    if kind == "royalty":
        doubled = ", doubled by the Finnish deuce (2s)" if item.factor == 2 else ""
        if item.note == "foul":
            if points > 0:
                who, amount, hand = a, item.a_amount, item.a
            else:
                who, amount, hand = b, item.b_amount, item.b
            return (
                f"{item.line} royalty: {who} {amount} ({hand}), paid by the fouled board{doubled}"
            )
        both = f"{a} {item.a_amount}" + (f" ({item.a})" if item.a_amount else "")
        both += f" against {b} {item.b_amount}" + (f" ({item.b})" if item.b_amount else "")
        why = {
            "net": "net",
            "winner": "paid to the line's winner only",
            "winner_none": "the line's winner has none",
            "tie": "line tied, nothing paid",
            "cancel": "both have one, cancelled",
            "best": "only the best at the table collects",
            "best_tie": "both best at the table, nothing exchanged",
            "not_best": "neither is best at the table",
        }.get(item.note, item.note)
        return f"{item.line} royalties: {both}, {why}{doubled}"
    if kind == "natural":
        a_nat = item.a.replace("_", " ") if item.a else "no natural"
        b_nat = item.b.replace("_", " ") if item.b else "no natural"
        why = {
            "a": f"{a}'s natural is paid",
            "b": f"{b}'s natural is paid",
            "higher": "the natural worth more is paid",
            "same_kind": "same kind, the higher one is paid",
            "tie": "same kind and equal, nothing paid",
            "cross_tie": "different kinds of equal value tie",
            "order": "the natural ranked higher is paid",
        }.get(item.note, item.note)
        return f"naturals: {a} {a_nat} against {b} {b_nat}, {why}"
    if kind == "surrender":
        if item.note == "both":
            return "both surrendered: nothing to pay"
        if item.note == "fouled":
            return "a surrendered hand and a fouled board exchange nothing"
        who = a if item.note == "a" else b
        return f"{who} surrendered: pays the surrender cost"
    return kind


def _rules_dict(rules: Rules) -> dict[str, Any]:
    # Describing a ruleset builds the variant's defaults: do it once per Rules value.
    plan = _plan(rules)
    if plan.rules_dict is None:
        plan.rules_dict = {"variant": rules.variant, **describe_differences(rules)}
    return dict(plan.rules_dict)


def _natural_dict(natural: Natural | None) -> dict[str, Any] | None:
    if natural is None:
        return None
    return {"kind": natural.kind, "value": natural.value}


def _seat_dict(settlement: Settlement, seat: SeatResult) -> dict[str, Any]:
    lines = []
    if len(seat.board):
        for i, name in enumerate(LINE_NAMES):
            lines.append(
                {
                    "line": name,
                    "cards": _cards_text(seat.board.lines[i]),
                    "hand": seat.hands[i],
                    "value": seat.values[i],
                    "royalty": seat.royalties[i],
                }
            )
    player_total = settlement.totals[seat.player]
    return {
        "name": seat.name,
        "player": seat.player,
        "index": seat.hand_index,
        "board": str(seat.board) if len(seat.board) else None,
        "lines": lines,
        "royalties": seat.royalty_total,
        "dealt_bonus": list(seat.dealt_bonus),
        "fouled": seat.fouled,
        "foul_reason": seat.foul_reason,
        "natural": _natural_dict(seat.natural),
        "surrendered": seat.surrendered,
        "in_fantasyland": seat.in_fantasyland,
        "fantasyland": seat.fantasyland,
        "points": settlement.seat_totals[seat.name],
        "player_points": player_total,
    }


def _item_dict(pair: PairResult, item: Item) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": item.kind, "points": item.points}
    if item.line:
        out["line"] = item.line
    if item.kind in ("line", "royalty"):
        out["a_hand"] = item.a or None
        out["b_hand"] = item.b or None
    if item.kind in ("royalty", "natural"):
        out["a_amount"] = item.a_amount
        out["b_amount"] = item.b_amount
    if item.kind == "natural":
        out["a_natural"] = item.a or None
        out["b_natural"] = item.b or None
    if item.factor != 1:
        out["factor"] = item.factor
    if item.note:
        out["note"] = item.note
    out["text"] = item_text(pair, item)
    return out


def _settlement_dict(settlement: Settlement) -> dict[str, Any]:
    return {
        "rules": _rules_dict(settlement.rules),
        "totals": dict(settlement.totals),
        "fouled": list(settlement.fouled),
        "fantasyland": dict(settlement.fantasyland),
        "pairs": [
            {
                "a": pair.a,
                "b": pair.b,
                "a_player": pair.a_player,
                "b_player": pair.b_player,
                "points": pair.points,
                "unit": pair.unit,
                "money": pair.money,
                "basis": pair.basis,
                "lines": list(pair.lines) if pair.lines is not None else None,
                "items": [_item_dict(pair, item) for item in pair.items],
            }
            for pair in settlement.pairs
        ],
        "money": dict(settlement.money),
        "seat_totals": dict(settlement.seat_totals),
        "players": [_seat_dict(settlement, seat) for seat in settlement.seats],
    }


def _signed(points: int) -> str:
    return f"{points:+d}" if points else "0"


def _money_text(amount: float) -> str:
    sign = "-" if amount < 0 else "+" if amount > 0 else " "
    text = f"{abs(amount):,.2f}"
    if text.endswith(".00"):
        text = text[:-3]
    return f"{sign}{text}"


def _rules_line(rules: Rules) -> str:
    v, o, s = rules.line_values
    method = rules.scoring_method if rules.scoring_method != "custom" else f"custom {v}/{o}/{s}"
    extras = {
        k: val
        for k, val in describe_differences(rules).items()
        if k not in ("scoring_method", "scoring_custom", "royalty_table", "royalty_award")
    }
    text = (
        f"Rules: {rules.variant}, scoring {method} (line {v}, overall {o}, scoop bonus {s}; "
        f"scoop value {rules.scoop_value}), royalties {rules.royalty_table} "
        f"({rules.royalty_award})"
    )
    if extras:
        text += "\n       " + ", ".join(f"{k}={val}" for k, val in extras.items())
    return text


def _render(settlement: Settlement) -> str:
    out: list[str] = [_rules_line(settlement.rules), ""]
    width = max(len(s.name) for s in settlement.seats)
    out.append("Boards")
    for seat in settlement.seats:
        head = f"  {seat.name:<{width}}  "
        if not len(seat.board):
            out.append(head + "(surrendered, board not shown)")
            continue
        out.append(head + str(seat.board))
        pad = " " * (width + 4)
        if seat.natural is not None:
            out.append(f"{pad}natural: {seat.natural.label} (worth {seat.natural.value})")
        if seat.surrendered:
            out.append(f"{pad}surrendered")
        for i, name in enumerate(LINE_NAMES):
            roy = seat.royalties[i]
            note = f"royalty {roy}" if roy else ""
            out.append(f"{pad}{name:<7}{seat.hands[i]:<40}{note}".rstrip())
        if seat.dealt_bonus:
            out.append(f"{pad}dealt-combination royalty for: {', '.join(seat.dealt_bonus)}")
        if seat.foul_reason is not None:
            label = "FOULED" if seat.fouled else "mis-set, not penalised"
            if seat.natural is not None or seat.surrendered:
                label = "mis-set, not played"
            out.append(f"{pad}{label}: {seat.foul_reason}")
        if seat.royalty_total:
            out.append(f"{pad}royalties {seat.royalty_total}")
        if seat.fantasyland is not None:
            verb = "stays in" if seat.in_fantasyland else "enters"
            out.append(f"{pad}{verb} Fantasyland: {seat.fantasyland} cards next hand")
    out.append("")
    out.append("Pairs (each item: what the second seat pays the first)")
    for pair in settlement.pairs:
        unit = f" at {_money_text(pair.unit).lstrip('+ ')} a point" if pair.unit != 1 else ""
        if pair.points:
            who = pair.a if pair.points > 0 else pair.b
            head = f"{who} +{abs(pair.points)}"
        else:
            head = "even"
        out.append(f"  {pair.a} vs {pair.b}{unit}: {head}")
        for item in pair.items:
            out.append(f"    {_signed(item.points):>4}  {item_text(pair, item)}")
    out.append("")
    out.append("Totals")
    any_money = any(pair.unit != 1 for pair in settlement.pairs) or settlement.rules.unit_value != 1
    pwidth = max(len(p) for p in settlement.totals)
    for player, points in settlement.totals.items():
        line = f"  {player:<{pwidth}}  {_signed(points):>5}"
        if any_money:
            line += f"   money {_money_text(settlement.money[player])}"
        out.append(line)
    if settlement.fouled:
        out.append(f"Fouled: {', '.join(settlement.fouled)}")
    return "\n".join(out)
