"""Classic naturals (RULES.md §7.10): which a hand claims, and which of two is paid."""

from __future__ import annotations

from collections.abc import Sequence

from chinese_poker.cards import Board, Card
from chinese_poker.evaluate import FLUSH, STRAIGHT, STRAIGHT_FLUSH, evaluate3
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


def find_natural(ns: NaturalsSpec, board: Board, middle: int, bottom: int) -> Natural | None:
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
    values = ns.values
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
