"""The totals-only arithmetic of a settlement: each seat read as a tuple of numbers, each
pair as a sum, for the rules it models (no naturals, a high middle, royalties by the
per-line look-ups, no best at the table).

:func:`settle_plain` settles a whole table this way and leaves the itemised breakdown to
be built when read; :func:`read_totals_seats` and :func:`pair_total` are what
:func:`chinese_poker.scoring.settle_totals` adds up. Both read a ruleset through
:class:`SettlingRules`, built once per ruleset. Anything they do not model returns None,
and :mod:`.settlement` settles the table in full.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from chinese_poker import evaluate as _ev
from chinese_poker.cards import Card
from chinese_poker.evaluate import CARD_CODES
from chinese_poker.rules import RoyaltyAward, Rules
from chinese_poker.rules.spec import FantasylandSpec, RulesSpec, ScoringSpec
from chinese_poker.scoring.fantasyland import next_deal
from chinese_poker.scoring.pairs import settle_pair
from chinese_poker.scoring.results import (
    Hand,
    PairPoints,
    PairResult,
    SeatResult,
    Settlement,
    settled_later,
)
from chinese_poker.scoring.seats import deuce_line, five_table, read_seat

__all__ = [
    "SettlingRules",
    "pair_total",
    "read_totals_seats",
    "settle_plain",
    "settling_rules",
    "usual_table",
]

# The evaluator's look-ups, read directly (see chinese_poker.scoring.seats).
_CC = CARD_CODES
_T3 = _ev.line_tables().line3
_FO = _ev.line_tables().flush_offset
# Each card's code with two fields above any sum of a table's codes (52 codes stay below
# bit 36): its number at bit 36 (a table's numbers sum below 4096) and its own bit at 48
# plus its number. One sum over a table's cards then checks that every card is dealt
# once (13 bits a seat: a card twice carries into fewer) and is a number 0..51 (a card
# past 51 fails the look-up; a negative one reads the code of the card 52 higher, so the
# numbers read differ from the numbers given), where a set of the cards cost a third of
# a heads-up settlement (:func:`settle_plain`).
_NUMBERS_AT = 36
_CARD_BITS = 12  # past the numbers
_CODES = tuple(
    CARD_CODES[c] | c << _NUMBERS_AT | 1 << (_NUMBERS_AT + _CARD_BITS + c) for c in range(52)
)
_RANKS = (1 << 24) - 1  # a line's code sum >> 12 with the fields above masked off
#: The pairs of seats of a table of n seats, in settling order.
_PAIRS = tuple(tuple((i, j) for i in range(n) for j in range(i + 1, n)) for n in range(9))


@dataclass(frozen=True, slots=True)
class SettlingRules:
    """What settling reads of a ruleset, looked up once (:func:`settling_rules`). (Slots,
    not a named tuple: a slot is read several times faster than a named tuple's field.)"""

    totals_modelled: bool  # the totals-only arithmetic models these scoring rules
    plain_modelled: bool  # ... and settle_plain this variant (not Criss Cross)
    plain_royalties: bool  # royalties are the per-line look-ups alone
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
    net: bool  # a showdown's royalties are netted line by line, none doubled
    # The next deal of a board in line order, not in Fantasyland, by top value (None where
    # it does not qualify, everywhere if Fantasyland is disabled): one look-up a seat.
    earned: tuple[int | None, ...]


def _totals_modelled(sc: ScoringSpec) -> bool:
    """True if the totals-only arithmetic models these rules (otherwise settle in full)."""
    ro = sc.royalties
    return (
        sc.naturals is None
        and not sc.lowball_middle
        and not ro.dealt_combination
        and ro.max_per_hand is None
        and ro.award != RoyaltyAward.BEST_AT_TABLE
    )


def settling_rules(rules: Rules) -> SettlingRules:
    """What settling reads of ``rules`` (the caller keeps it per ruleset)."""
    spec = rules.spec
    sc = spec.scoring
    ro = sc.royalties
    fl = sc.fantasyland
    variant = spec.variant
    modelled = _totals_modelled(sc)
    return SettlingRules(
        modelled, modelled and not variant.criss_cross,
        not (ro.dealt_combination or ro.max_per_hand == 1 or sc.lowball_middle),
        sc, five_table(sc), *ro.lookup, sc.misset_penalised, sc.finnish_deuce, fl,
        fl.entry_by_top if fl.enabled else None, sc.unit_value, *variant.player_counts,
        variant.open_face, sc.showdown_points,
        ro.award == RoyaltyAward.NET and not sc.finnish_deuce,
        tuple([(cards or None) if fl.enabled else None for cards in fl.entry_by_top]),
    )  # fmt: skip


# ============================================================================ a whole table


def _reading(
    known: SettlingRules, hand: Hand, top: int, middle: int, bottom: int
) -> tuple[Any, ...] | None:
    """The seat tuple of :func:`pair_total` (plus the next Fantasyland deal) of a board of
    these line values, or None for a hand the totals-only path leaves to the full path
    (surrender, dealt cards, Fantasyland outside open face)."""
    if hand.surrender or hand.dealt is not None or (hand.in_fantasyland and not known.open_face):
        return None
    deuce = deuce_line(hand) if known.finnish else -1
    if top > middle or middle > bottom:  # no Fantasyland out of line order
        if known.penalised:
            return (top, middle, bottom, 0, 0, 0, True, deuce, None)
        next_hand = None
    elif known.entry is None:
        next_hand = None
    elif hand.in_fantasyland:
        next_hand = next_deal(known.fantasyland, top, middle, bottom, True)
    else:
        next_hand = known.entry[top >> 16] or None
    return (top, middle, bottom, known.top_royalty[top >> 16], known.middle_royalty[middle >> 16],
            known.bottom_royalty[bottom >> 16], False, deuce, next_hand)  # fmt: skip


def settle_plain(
    rules: Rules, hands: Sequence[Hand], known: SettlingRules
) -> Settlement | None:  # fmt: skip
    """:func:`~chinese_poker.scoring.settle` by the totals-only arithmetic for a table it
    models (no surrender, no dealt cards, one seat a player, every card once), else None
    (the full path checks and names the fault). Only the totals are built; the rest of
    the settlement is built from the same seats when read. (One loop, inlined, and no
    comprehensions or zips: with two to four seats, calls and making those cost more than
    settling.)"""
    n = len(hands)
    if not known.fewest <= n <= known.most:
        return None
    cc, fo, ranks, t3, t5 = _CODES, _FO, _RANKS, _T3, known.five_table
    lt, lm, lb, earned = known.top_royalty, known.middle_royalty, known.bottom_royalty, known.earned
    finnish = known.finnish
    seats: list[tuple[Any, ...]] = []
    codes = numbers = 0
    fouls = False
    for hand in hands:
        board = hand.board
        # A line of the wrong size or a card that is not a number from -52 to 51 fails
        # here (the card check below refuses the negative ones).
        try:
            t0, t1, t2 = board.top
            m0, m1, m2, m3, m4 = board.middle
            b0, b1, b2, b3, b4 = board.bottom
            x = cc[t0] + cc[t1] + cc[t2]
            k = cc[m0] + cc[m1] + cc[m2] + cc[m3] + cc[m4]
            j = cc[b0] + cc[b1] + cc[b2] + cc[b3] + cc[b4]
        except (ValueError, IndexError, TypeError):
            return None
        numbers += t0 + t1 + t2 + m0 + m1 + m2 + m3 + m4 + b0 + b1 + b2 + b3 + b4
        codes += x + k + j
        top = t3[(x >> 12) & ranks]
        middle = t5[((k >> 12) & ranks) + fo[k & 4095]]
        bottom = t5[((j >> 12) & ranks) + fo[j & 4095]]
        if (
            top > middle or middle > bottom or hand.surrender or hand.dealt is not None
            or hand.in_fantasyland or finnish
        ):  # fmt: skip
            seat = _reading(known, hand, top, middle, bottom)
            if seat is None:
                return None
            if seat[6]:
                fouls = True
        else:  # the usual seat, inlined
            seat = (top, middle, bottom, lt[top >> 16], lm[middle >> 16], lb[bottom >> 16],
                    False, -1, earned[top >> 16])  # fmt: skip
        seats.append(seat)
    cards = codes >> _NUMBERS_AT
    if cards & 4095 != numbers or (cards >> _CARD_BITS).bit_count() != 13 * n:
        return None
    if n == 2:  # heads-up, the most common table
        return _heads_up(rules, known, hands, seats, fouls)
    return _whole_table(rules, known, tuple(hands), seats, fouls)


def _heads_up(
    rules: Rules, known: SettlingRules, hands: Sequence[Hand], seats: list[tuple[Any, ...]],
    fouls: bool,
) -> Settlement | None:  # fmt: skip
    """:func:`settle_plain`'s result for two seats (None if they share a name or a
    player); the usual pair (a showdown with net royalties) inlined, by branches
    (arithmetic on bools is not specialised)."""
    hand_a, hand_b = hands
    a, b = seats
    name_a = hand_a.name
    player_a = name_a if hand_a.player is None else hand_a.player
    player_b = hand_b.name if hand_b.player is None else hand_b.player
    if name_a == hand_b.name or player_a == player_b:
        return None
    if fouls or not known.net:
        points = pair_total(known.scoring, a, b)
    else:
        x, y = a[0], b[0]
        index = 22 if x > y else 4 if x < y else 13
        x, y = a[1], b[1]
        if x > y:
            index += 3
        elif x < y:
            index -= 3
        x, y = a[2], b[2]
        if x > y:
            index += 1
        elif x < y:
            index -= 1
        points = known.showdown[index] + a[3] + a[4] + a[5] - b[3] - b[4] - b[5]
    return settled_later(
        rules, {player_a: points, player_b: -points},
        (_heads_up_result, _plain_breakdown, _heads_up_pair, known, (hand_a, hand_b), seats,
         points),
    )  # fmt: skip


def _heads_up_result(
    known: SettlingRules, hands: tuple[Hand, ...], seats: list[tuple[Any, ...]], points: int
) -> tuple[dict[str, int], dict[str, float], tuple[str, ...], dict[str, int | None]]:
    """The seat totals, money, fouls and Fantasyland of :func:`_heads_up` (spelt out, no
    comprehension: the engine reads them every hand)."""
    hand_a, hand_b = hands
    a, b = seats
    name_a, name_b = hand_a.name, hand_b.name
    unit = known.unit
    fouled: tuple[str, ...] = (name_a, name_b) if a[6] and b[6] else (
        (name_a,) if a[6] else (name_b,) if b[6] else ())  # fmt: skip
    return (
        {name_a: points, name_b: -points},
        {hand_a.owner: points * unit + 0.0, hand_b.owner: -points * unit + 0.0},
        fouled,
        {name_a: a[8], name_b: b[8]},
    )


def _heads_up_pair(
    known: SettlingRules, hands: tuple[Hand, ...], seats: list[tuple[Any, ...]], points: int
) -> PairPoints:
    """The points of :func:`_heads_up`'s pair."""
    return ((hands[0].owner, hands[1].owner, points),)


def _whole_table(
    rules: Rules, known: SettlingRules, hands: tuple[Hand, ...], seats: list[tuple[Any, ...]],
    fouls: bool,
) -> Settlement | None:  # fmt: skip
    """:func:`settle_plain`'s result for three seats or more (None if two share a name or
    a player)."""
    n = len(hands)
    names = set()
    owners: list[str] = []
    for hand in hands:
        name = hand.name
        names.add(name)
        owners.append(name if hand.player is None else hand.player)
    if len(names) != n or len(set(owners)) != n:
        return None
    seat_points = _seat_points(known, seats, not fouls)
    totals: dict[str, int] = {}
    for i in range(n):
        totals[owners[i]] = seat_points[i]
    return settled_later(
        rules,
        totals,
        (
            _whole_table_result,
            _plain_breakdown,
            _whole_table_pairs,
            known,
            hands,
            seats,
            seat_points,
        ),
    )


def _whole_table_result(
    known: SettlingRules, hands: tuple[Hand, ...], seats: list[tuple[Any, ...]],
    seat_points: list[int],
) -> tuple[dict[str, int], dict[str, float], tuple[str, ...], dict[str, int | None]]:  # fmt: skip
    """The seat totals, money, fouls and Fantasyland of :func:`_whole_table`."""
    unit = known.unit
    return (
        {hand.name: points for hand, points in zip(hands, seat_points, strict=True)},
        {hand.owner: points * unit + 0.0 for hand, points in zip(hands, seat_points, strict=True)},
        tuple([hand.name for hand, seat in zip(hands, seats, strict=True) if seat[6]]),
        {hand.name: seat[8] for hand, seat in zip(hands, seats, strict=True)},
    )


def _whole_table_pairs(
    known: SettlingRules, hands: tuple[Hand, ...], seats: list[tuple[Any, ...]],
    _seat_points: list[int],
) -> PairPoints:  # fmt: skip
    """The points of every pair of :func:`_whole_table`, in settling order (the usual
    showdown with net royalties by :func:`_outcome`, as :func:`_seat_points` adds them)."""
    sc = known.scoring
    owners = [hand.owner for hand in hands]
    usual = known.net and not any([seat[6] for seat in seats])
    showdown = known.showdown
    out = []
    for i, j in _PAIRS[len(hands)]:
        a, b = seats[i], seats[j]
        if usual:
            points = (
                showdown[_outcome(a[0], a[1], a[2], b)] + a[3] + a[4] + a[5] - b[3] - b[4] - b[5]
            )
        else:
            points = pair_total(sc, a, b)
        out.append((owners[i], owners[j], points))
    return tuple(out)


def _seat_points(known: SettlingRules, seats: list[tuple[Any, ...]], showdowns: bool) -> list[int]:
    """What each seat wins at the table (:func:`pair_total` over every pair);
    ``showdowns``: no seat fouled."""
    n = len(seats)
    seat_points = [0] * n
    if not (showdowns and known.net):
        sc = known.scoring
        for i in range(n):
            seat = seats[i]
            for j in range(i + 1, n):
                points = pair_total(sc, seat, seats[j])
                seat_points[i] += points
                seat_points[j] -= points
        return seat_points
    # Every pair a showdown with net royalties: a seat nets its royalties against each
    # other seat's, n times its own less the table's.
    showdown = known.showdown
    table = 0
    for a in seats:
        table += a[3] + a[4] + a[5]
    for i in range(n):
        a = seats[i]
        seat_points[i] = n * (a[3] + a[4] + a[5]) - table
    for i, j in _PAIRS[n]:
        a = seats[i]
        points = showdown[_outcome(a[0], a[1], a[2], seats[j])]
        seat_points[i] += points
        seat_points[j] -= points
    return seat_points


def _outcome(x0: int, x1: int, x2: int, b: tuple[Any, ...]) -> int:
    """The index in ``showdown_points`` of lines of values x0, x1, x2 against seat ``b``'s
    (branches, not ``(x > y) - (x < y)``: arithmetic on bools is not specialised)."""
    index = 13
    y = b[0]
    if x0 > y:
        index += 9
    elif x0 < y:
        index -= 9
    y = b[1]
    if x1 > y:
        index += 3
    elif x1 < y:
        index -= 3
    y = b[2]
    if x2 > y:
        return index + 1
    if x2 < y:
        return index - 1
    return index


def _plain_breakdown(
    known: SettlingRules, hands: tuple[Hand, ...], seats: list[tuple[Any, ...]], _points: Any
) -> tuple[tuple[SeatResult, ...], tuple[PairResult, ...]]:
    """The breakdown of a table :func:`settle_plain` settled."""
    sc = known.scoring
    unit = sc.unit_value
    if len(hands) == 2:
        a, b = read_seat(sc, hands[0], seats[0]), read_seat(sc, hands[1], seats[1])
        return (a, b), (settle_pair(sc, a, b, unit, None),)
    shown = [read_seat(sc, hand, seat) for hand, seat in zip(hands, seats, strict=True)]
    n = len(shown)
    pairs = [
        settle_pair(sc, shown[i], shown[j], unit, None) for i in range(n) for j in range(i + 1, n)
    ]
    return tuple(shown), tuple(pairs)


# ============================================================================ a pair


def _foul_total(sc: ScoringSpec, winner: tuple[int, ...], loser: tuple[int, ...]) -> int:
    """What a fouled ``loser`` pays a valid ``winner`` (seat tuples of :func:`pair_total`)."""
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


def pair_total(sc: ScoringSpec, a: tuple[Any, ...], b: tuple[Any, ...]) -> int:
    """What B pays A: seats as (top, middle, bottom, r_top, r_middle, r_bottom, fouled,
    deuce line), the same arithmetic as :func:`~chinese_poker.scoring.pairs.settle_pair`
    without the items."""
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


# ============================================================================ totals only


def usual_table(
    spec: RulesSpec, hands: Sequence[Hand], cards: list[Card], owners: list[str]
) -> bool:
    """Whether the table :func:`read_totals_seats` read passes
    :func:`~chinese_poker.scoring.table_checks.check_table` as it stands: one seat a
    player, a count the variant allows, every card once."""
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


def read_totals_seats(
    sc: ScoringSpec, hands: Sequence[Hand], t5: list[int], open_face: bool
) -> tuple[list[tuple[int, ...]], list[Card], list[str]] | None:
    """(seat tuples of :func:`pair_total` plus whether the board breaks the line order,
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
        deuce = deuce_line(hand) if finnish else -1
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
