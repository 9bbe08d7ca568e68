"""One pair of seats settled item by item (RULES.md §7.3–§7.5, §8): naturals, then
surrender, then fouls, then the showdown's line points, overall unit, scoop and royalties.

:func:`settle_pair` builds the itemised breakdown of a pair; :func:`pair_points` is the
same arithmetic without the items. The seats come from :mod:`.seats`.
"""

from __future__ import annotations

from collections.abc import Sequence

from chinese_poker.cards import LINE_NAMES
from chinese_poker.rules import RoyaltyAward
from chinese_poker.rules.spec import ScoringSpec
from chinese_poker.scoring.naturals import natural_pair
from chinese_poker.scoring.notes import ItemKind, Note
from chinese_poker.scoring.results import Item, PairResult, SeatResult
from chinese_poker.scoring.seats import NEW

__all__ = ["Best", "best_at_table", "pair_points", "settle_pair"]

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
    return NEW(Item, (kind, points, line, a, b, a_amount, b_amount, factor, note))


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
            NEW(Item, (_ROYALTY, points, LINE_NAMES[line], a.hands[line], b.hands[line],
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
    new = NEW
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


def settle_pair(
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
    return NEW(PairResult, (a.name, b.name, a.player, b.player, points, "showdown",
                             tuple(items), outcome, unit))  # fmt: skip


def _foul_points(sc: ScoringSpec, winner: SeatResult, loser: SeatResult) -> int:
    """What a fouled ``loser`` pays a valid ``winner``: the sum of :func:`_foul_items`."""
    total = sc.foul_value
    if sc.foul_pays_royalties:
        doubled = _doubled_line(sc, winner, loser)
        for line, amount in enumerate(winner.royalties):
            total += 2 * amount if line == doubled else amount
    return total


def pair_points(sc: ScoringSpec, a: SeatResult, b: SeatResult, best: Best | None) -> int:
    """What B pays A: :func:`settle_pair`'s arithmetic without building its items."""
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


def best_at_table(sc: ScoringSpec, seats: Sequence[SeatResult]) -> Best:
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
