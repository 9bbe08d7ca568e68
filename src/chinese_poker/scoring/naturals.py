"""Classic naturals (RULES.md §7.10): which a hand claims, and which of two is paid."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import reduce
from operator import or_

from chinese_poker.cards import Board, Card
from chinese_poker.evaluate import FLUSH, STRAIGHT, STRAIGHT_FLUSH, evaluate3, evaluate5
from chinese_poker.rules import NATURALS, Rules
from chinese_poker.rules.spec import NaturalsSpec
from chinese_poker.scoring.lines import check_cards, high5, require_complete
from chinese_poker.scoring.notes import Note
from chinese_poker.scoring.results import Hand, Natural

__all__ = ["natural_of"]


def _front_run(top: Sequence[Card]) -> int | None:
    """Top rank of a front of three consecutive ranks (``A 2 3`` is three high), else None."""
    a, b, c = sorted(card >> 2 for card in top)
    if b == a + 1 and c == b + 1:
        return c
    if (a, b, c) == (0, 1, 12):
        return 1
    return None


def _dealt_flushes(cards: Sequence[Card], suits: list[int]) -> tuple[int, ...] | None:
    """The best (back, middle, front) of three flushes the 13 cards (``suits``: how many
    of each suit) can be set into."""
    if sorted(suits) not in ([0, 3, 5, 5], [0, 0, 5, 8], [0, 0, 3, 10], [0, 0, 0, 13]):
        return None
    by_suit: dict[int, list[Card]] = {}
    for c in cards:
        by_suit.setdefault(c & 3, []).append(c)
    if len(by_suit) == 1:  # one suit (also a dragon): each line takes the best five left
        back = max(itertools.combinations(cards, 5), key=lambda five: evaluate5(*five))
        rest = [c for c in cards if c not in back]
        middle = max(itertools.combinations(rest, 5), key=lambda five: evaluate5(*five))
        front = [c for c in rest if c not in middle]
        return evaluate5(*back), evaluate5(*middle), evaluate3(*front)
    # Every line is one suit: try each five of a suit that has five as the back, and the
    # best split of the other eight into a middle and a front; keep the strongest.
    best: tuple[int, ...] | None = None
    for back_group in by_suit.values():
        if len(back_group) < 5:
            continue
        for back in itertools.combinations(back_group, 5):
            rest = [c for c in cards if c not in back]
            key = _flush_rest(rest)
            if key is not None:
                candidate = (evaluate5(*back), *key)
                if best is None or candidate > best:
                    best = candidate
    return best


def _flush_rest(cards: Sequence[Card]) -> tuple[int, int] | None:
    """(middle, front) of the best split of 8 cards into a 5-flush and a 3-flush."""
    best: tuple[int, int] | None = None
    for middle in itertools.combinations(cards, 5):
        if len({c & 3 for c in middle}) != 1:
            continue
        front = [c for c in cards if c not in middle]
        if len({c & 3 for c in front}) == 1:
            candidate = (evaluate5(*middle), evaluate3(*front))
            if best is None or candidate > best:
                best = candidate
    return best


# Runs of ranks (rank index 0 = deuce .. 12 = ace): five-card straights from the wheel up,
# three-card runs from A 2 3 (three-high) up, each as (present-ranks bit mask, rank counts
# packed three bits a rank, top rank). A hand's ranks packed the same way are three
# straights exactly when they are the sum of two five-runs and a three-run: no field of
# such a sum exceeds 3, so nothing carries and the sum is unique (and four of a rank, a
# field of 4, never matches).
def _run(ranks: tuple[int, ...]) -> tuple[int, int, int]:
    return sum(1 << r for r in ranks), sum(1 << 3 * r for r in ranks), ranks[-1]


_FIVE_RUNS = [_run((12, 0, 1, 2, 3))] + [_run(tuple(range(lo, lo + 5))) for lo in range(9)]
_THREES = [_run((12, 0, 1))] + [_run(tuple(range(lo, lo + 3))) for lo in range(11)]
_THREE_RUNS = {packed: top for _, packed, top in _THREES}


# The five-runs a set of ranks holds, by the ranks' bit mask (at most 8,192 of them).
_RUNS_HELD: dict[int, list[tuple[int, int, int]]] = {}


def dealt_straights(packed: int, present: int) -> tuple[int, ...] | None:
    """The best (back, middle, front) of three straights 13 cards' ranks can make
    (``packed``: rank counts three bits a rank; ``present``: the ranks' bit mask): each
    straight by its top rank (suits aside), the front by its top (``A 2 3`` is three-high)."""
    runs = _RUNS_HELD.get(present)
    if runs is None:
        runs = _RUNS_HELD[present] = [run for run in _FIVE_RUNS if run[0] & present == run[0]]
    best: tuple[int, ...] | None = None
    for i, (_, back, back_top) in enumerate(runs):
        for _, middle, middle_top in runs[: i + 1]:  # the middle no stronger than the back
            front_top = _THREE_RUNS.get(packed - back - middle)
            if front_top is not None:
                key = (back_top, middle_top, front_top)
                if best is None or key > best:
                    best = key
    return best


def find_natural(ns: NaturalsSpec, board: Board, middle: int, bottom: int) -> Natural | None:
    """The natural of a set board (``middle``/``bottom`` are its high values), or None.

    Dragons and six pairs depend only on the 13 cards. Three flushes and three straights
    count from the 13 cards under ``natural_source = dealt_cards`` (players declare them,
    however they set the board); under ``set_board`` only as the board is set: W9's third
    board holds a front and two flushes' worth of suits but is set otherwise, and RULES.md
    counts it as no natural there.
    """
    cards = board.cards
    if len(cards) != 13:
        return None
    present = reduce(or_, map(_RANK_BITS.__getitem__, cards))
    distinct = present.bit_count()
    found = _rank_naturals(ns, cards, distinct)
    if ns.from_dealt_cards:
        found += _dealt_naturals(ns, cards, distinct, present)
    else:
        found += _set_naturals(ns, board, middle, bottom)
    return _claimed(ns, found)


def _rank_naturals(ns: NaturalsSpec, cards: Sequence[Card], distinct: int) -> list[Natural]:
    """A dragon or six pairs: they depend only on the ranks of the 13 cards."""
    if distinct == 13:
        return [Natural("dragon", ns.values["dragon"])]
    if distinct > 7:  # six pairs leave at most seven ranks
        return []
    counts = [0] * 13
    for c in cards:
        counts[c >> 2] += 1
    pairs = tuple(r for r in range(12, -1, -1) for _ in range(counts[r] // 2))
    return [Natural("six_pairs", ns.values["six_pairs"], pairs[:6])] if len(pairs) >= 6 else []


# Per card: its rank's bit; and a number whose sum over a hand counts its ranks (three
# bits a rank from bit 0) and its suits (four bits a suit from bit 39). Summed in C, these
# replace a loop over the cards of every classic hand.
_RANK_BITS = tuple(1 << (c >> 2) for c in range(52))
_COUNT_CODES = tuple((1 << 3 * (c >> 2)) | (1 << 39 + 4 * (c & 3)) for c in range(52))
_RANK_COUNTS = (1 << 39) - 1


def _dealt_naturals(
    ns: NaturalsSpec, cards: Sequence[Card], distinct: int, present: int
) -> list[Natural]:
    """Three flushes and three straights the 13 cards (``present``: their ranks' bit mask)
    can be set into."""
    found = []
    counts = sum(map(_COUNT_CODES.__getitem__, cards))
    packed = counts & _RANK_COUNTS
    suits = [counts >> 39 & 15, counts >> 43 & 15, counts >> 47 & 15, counts >> 51 & 15]
    flushes = _dealt_flushes(cards, suits)
    if flushes is not None:
        found.append(Natural("three_flushes", ns.values["three_flushes"], flushes))
    straights = dealt_straights(packed, present) if distinct >= 5 else None
    if straights is not None:
        found.append(Natural("three_straights", ns.values["three_straights"], straights))
    return found


def _set_naturals(ns: NaturalsSpec, board: Board, middle: int, bottom: int) -> list[Natural]:
    """Three flushes and three straights as the board is set."""
    found: list[Natural] = []
    middle_cat, bottom_cat = middle >> 20, bottom >> 20
    if middle_cat < STRAIGHT or bottom_cat < STRAIGHT:
        return found
    top = board.top
    flushes = (FLUSH, STRAIGHT_FLUSH)
    if middle_cat in flushes and bottom_cat in flushes and top[0] & 3 == top[1] & 3 == top[2] & 3:
        key = (bottom, middle, evaluate3(top[0], top[1], top[2]))
        found.append(Natural("three_flushes", ns.values["three_flushes"], key))
    straights = (STRAIGHT, STRAIGHT_FLUSH)
    front = _front_run(top)
    if middle_cat in straights and bottom_cat in straights and front is not None:
        found.append(Natural("three_straights", ns.values["three_straights"],
                             (bottom, middle, front)))  # fmt: skip
    return found


def _claimed(ns: NaturalsSpec, found: list[Natural]) -> Natural | None:
    if not found:
        return None
    # A hand that makes two naturals claims the one worth more (ties: the fixed order).
    order = ns.cross_order or NATURALS
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
    sc = rules.spec.scoring
    ns = sc.naturals
    if ns is None:
        return None
    if isinstance(hand_or_board, Hand):
        if ns.optional_claim and not hand_or_board.declares_natural:
            return None
        board = hand_or_board.board
    else:
        board = hand_or_board
    require_complete(board)
    check_cards(board.cards)
    return find_natural(ns, board, high5(sc, board.middle), high5(sc, board.bottom))


def natural_pair(ns: NaturalsSpec, na: Natural | None, nb: Natural | None) -> tuple[int, Note]:
    """(what B pays A, note) when at least one of them holds a natural."""
    if nb is None:
        assert na is not None
        return na.value, Note.A
    if na is None:
        return -nb.value, Note.B
    if na.value != nb.value:
        return (na.value, Note.HIGHER) if na.value > nb.value else (-nb.value, Note.HIGHER)
    if na.kind == nb.kind:
        if na.key == nb.key:
            return 0, Note.TIE
        return (na.value, Note.SAME_KIND) if na.key > nb.key else (-nb.value, Note.SAME_KIND)
    order = ns.cross_order
    if order is None:
        return 0, Note.CROSS_TIE
    if order.index(na.kind) < order.index(nb.kind):
        return na.value, Note.ORDER
    return -nb.value, Note.ORDER
