"""Settling a table (RULES.md §7.1, §7.3): seats, then every pair, then totals and money.

Everything about the rules comes from the compiled :class:`~chinese_poker.rules.spec.ScoringSpec`
(``rules.spec.scoring``); nothing here compares option strings. One seat is settled by
:mod:`.seats`, one pair by :mod:`.pairs`, the table checked by :mod:`.table_checks`; the
tables the totals-only arithmetic models (:mod:`.totals`) take that faster path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from chinese_poker.rules import RoyaltyAward, Rules
from chinese_poker.rules.spec import ScoringSpec
from chinese_poker.scoring.pairs import Best, best_at_table, pair_points, settle_pair
from chinese_poker.scoring.results import Hand, PairResult, SeatResult, Settlement
from chinese_poker.scoring.seats import line_name, seat, with_reason
from chinese_poker.scoring.table_checks import check_lines, check_table, unit_table
from chinese_poker.scoring.totals import (
    SettlingRules,
    pair_total,
    read_totals_seats,
    settle_plain,
    settling_rules,
    usual_table,
)

__all__ = ["line_name", "settle", "settle_totals"]


def _settling_rules(rules: Rules) -> SettlingRules:
    """What settling reads of ``rules``, built once and kept on its compiled spec
    (``RulesSpec.derived``): found again without hashing or comparing the ruleset."""
    known = rules.spec.derived["settle"] = settling_rules(rules)
    return known


def _money(
    players: list[str], pairings: list[tuple[int, int, float]], points: list[int],
    seats: Sequence[SeatResult],
) -> dict[str, float]:  # fmt: skip
    money = dict.fromkeys(players, 0.0)
    for (i, j, unit), owed in zip(pairings, points, strict=True):
        amount = owed * unit
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


def _breakdown(
    sc: ScoringSpec, seats: Sequence[SeatResult], pairings: list[tuple[int, int, float]],
    best: Best | None,
) -> tuple[tuple[SeatResult, ...], tuple[PairResult, ...]]:  # fmt: skip
    """The seats, their reasons worded, and every pair item by item."""
    shown = tuple([with_reason(sc, s) for s in seats])
    pairs = tuple([settle_pair(sc, shown[i], shown[j], unit, best) for i, j, unit in pairings])
    return shown, pairs


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
    if type(hands) is not list and type(hands) is not tuple:
        hands = tuple(hands)
    try:  # a subscript, not get(): a method call costs more than the look-up
        known = rules.spec.derived["settle"]
    except KeyError:
        known = _settling_rules(rules)
    if not units and known.plain_modelled:
        settled = settle_plain(rules, hands, known)
        if settled is not None:
            return settled
    return _settle_in_full(rules, tuple(hands), units, known)


def _settle_in_full(
    rules: Rules, hands: tuple[Hand, ...], units: Mapping[tuple[str, str], float] | None,
    known: SettlingRules,
) -> Settlement:  # fmt: skip
    """:func:`settle` seat by seat: every rule, every check."""
    spec = rules.spec
    sc = spec.scoring
    players = check_table(spec, hands)
    t5, plain = known.five_table, known.plain_royalties
    try:
        seats = [seat(sc, hand, t5, plain) for hand in hands]
    except IndexError:  # a line too short while another is too long
        for hand in hands:
            check_lines(hand)
        raise
    best = best_at_table(sc, seats) if sc.royalties.award is RoyaltyAward.BEST_AT_TABLE else None
    default_unit = sc.unit_value
    table = unit_table(players, units) if units else None
    pairings = _pairings(sc, seats, table, default_unit)
    points = [pair_points(sc, seats[i], seats[j], best) for i, j, _ in pairings]
    seat_totals = dict.fromkeys([s.name for s in seats], 0)
    for (i, j, _), owed in zip(pairings, points, strict=True):
        seat_totals[seats[i].name] += owed
        seat_totals[seats[j].name] -= owed
    if players == list(seat_totals):  # one seat a player, named after him
        totals = dict(seat_totals)
    else:
        totals = dict.fromkeys(players, 0)
        for s in seats:
            totals[s.player] += seat_totals[s.name]
    if table is None:
        money = {p: t * default_unit + 0.0 for p, t in totals.items()}
    else:
        money = _money(players, pairings, points, seats)
    fouled = tuple([s.name for s in seats if s.fouled])
    fantasyland = {s.name: s.fantasyland for s in seats}
    points_by_pair = tuple(
        [
            (seats[i].player, seats[j].player, owed)
            for (i, j, _), owed in zip(pairings, points, strict=True)
        ]
    )
    return Settlement.deferred(
        rules, totals, seat_totals, money, fouled, fantasyland,
        (_breakdown, sc, seats, pairings, best), points_by_pair,
    )  # fmt: skip


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
    known = rules.spec.derived.get("settle") or _settling_rules(rules)
    sc = known.scoring
    read = (
        read_totals_seats(sc, hands, known.five_table, known.open_face)
        if known.totals_modelled
        else None
    )
    if read is None or not usual_table(spec, hands, read[1], read[2]):
        return dict(settle(rules, hands).totals)  # the full checks and rules
    seats, _, owners = read
    n = len(owners)
    if n == 2:  # heads-up, what solvers and simulations settle most
        points = pair_total(sc, seats[0], seats[1])
        return {owners[0]: points, owners[1]: -points}
    totals = dict.fromkeys(owners, 0)
    for i in range(n):
        pa = owners[i]
        for j in range(i + 1, n):
            pb = owners[j]
            points = pair_total(sc, seats[i], seats[j])
            totals[pa] += points
            totals[pb] -= points
    return totals
