"""Timeout auto-play (RULES §10): the placement the engine makes for a timed-out seat.

* cards go, in the order dealt, to the bottom until it is full, then the middle, then
  the top;
* in Pineapple the first two cards of a street are placed and the third discarded;
* on a Fantasyland deal (and a classic or Criss Cross set) the first 5 go to the bottom,
  the next 5 to the middle, the next 3 to the top, and the rest are discarded;
* a classic seat that timed out plays (never surrenders) and declares a natural it holds.

>>> from chinese_poker.cards import parse_cards, cards_str
>>> from chinese_poker.engine.actions import Decision
>>> d = Decision(0, "street", cards=parse_cards("5d Jc 2h"), place=2, discard=1,
...              free=(2, 3, 1), street=3)
>>> a = timeout_action(d)
>>> cards_str(a.bottom), cards_str(a.middle), cards_str(a.discard)
('5d', 'Jc', '2h')
"""

from __future__ import annotations

from chinese_poker.cards import Card
from chinese_poker.engine.actions import Action, ClaimNatural, Decision, Place, Surrender

__all__ = ["timeout_action", "timeout_placement"]


def timeout_placement(dec: Decision, version: int | None = None) -> Place:
    """The §10 placement for a street or set decision."""
    kept = dec.cards[: dec.place]
    thrown = dec.cards[dec.place :]
    room = [dec.free[2], dec.free[1], dec.free[0]]  # bottom, middle, top
    lines: list[list[Card]] = [[], [], []]
    line = 0
    for card in kept:
        while room[line] == 0:
            line += 1
        lines[line].append(card)
        room[line] -= 1
    return Place(
        dec.seat,
        tuple(lines[2]),
        tuple(lines[1]),
        tuple(lines[0]),
        tuple(thrown),
        hand=dec.hand,
        version=version,
    )


def timeout_action(dec: Decision, version: int | None = None) -> Action:
    """What the engine does for a timed-out seat facing ``dec``."""
    if dec.kind == "surrender":
        return Surrender(dec.seat, False, hand=dec.hand, version=version)
    if dec.kind == "natural":
        return ClaimNatural(dec.seat, True, hand=dec.hand, version=version)
    return timeout_placement(dec, version)
