"""What a casual table plays for a person whose time ran out (issue 40 item 4).

The cards the player had staged (the page's ``stage`` messages, docs/server-protocol.md)
stay where he put them, and the rest of the street goes where the rules bot
(:class:`chinese_poker.ai.simple.RuleBot`) would put it with those cards already on the
board. Staged cards that cannot be kept (not this street's, a line over its room, more
cards than the street places or throws) are ignored: the rules bot plays the whole
street. A surrender or a natural is answered as RULES §10 says (play on, declare).

>>> from chinese_poker.engine import Table
>>> from chinese_poker.rules import rules_for
>>> table = Table(rules_for("pineapple"), 2, seed=3)
>>> seat = table.to_act[0]
>>> dec = table.decisions(seat)[0]
>>> staged = Staging(1, dec.street, bottom=dec.cards[:2])
>>> place = filler_action(table.view(seat), staged, 1, seed=1)
>>> set(dec.cards[:2]) <= set(place.bottom) and len(place.top + place.middle + place.bottom)
5
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from chinese_poker.ai.simple import RuleBot
from chinese_poker.cards import Card, card_name, parse_card
from chinese_poker.engine import Action, Place, View, timeout_action
from chinese_poker.engine.actions import Decision

__all__ = ["Staging", "filler_action", "kept_staging"]

LINES = ("top", "middle", "bottom")


@dataclass(frozen=True)
class Staging:
    """The cards a player has put on his lines (and aside) but not confirmed yet, for
    the table's hand ``hand`` and its street ``street``."""

    hand: int
    street: int
    top: tuple[Card, ...] = ()
    middle: tuple[Card, ...] = ()
    bottom: tuple[Card, ...] = ()
    discard: tuple[Card, ...] = ()

    @property
    def cards(self) -> tuple[Card, ...]:
        return self.top + self.middle + self.bottom + self.discard

    def to_dict(self) -> dict[str, Any]:
        """The stored form (tables.live), cards by name."""
        out: dict[str, Any] = {"hand": self.hand, "street": self.street}
        for name in (*LINES, "discard"):
            out[name] = [card_name(c) for c in getattr(self, name)]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Staging:
        """The stored or sent form back (ValueError for a card that is not one)."""
        lines = {n: tuple(parse_card(c) for c in data.get(n, ())) for n in (*LINES, "discard")}
        return cls(int(data["hand"]), int(data["street"]), **lines)


def kept_staging(dec: Decision, staged: Staging) -> bool:
    """Whether ``staged`` can stay as it is within ``dec``: its own cards, once each,
    each line within its room, no more placed or thrown than the street asks."""
    cards = staged.cards
    if not cards or len(set(cards)) != len(cards) or not set(cards) <= set(dec.cards):
        return False
    placed = len(staged.top) + len(staged.middle) + len(staged.bottom)
    if placed > dec.place or len(staged.discard) > dec.discard:
        return False
    return all(len(getattr(staged, n)) <= room for n, room in zip(LINES, dec.free, strict=True))


def filler_action(view: View, staged: Staging | None, hand_no: int, seed: int) -> Action:
    """The move made for ``view``'s seat when its time ran out: its staged cards kept
    (if they can be, for hand ``hand_no``), the rest as the rules bot plays it."""
    dec = view.decisions[0]
    if not dec.is_placement:
        return timeout_action(dec, view.version)
    bot = RuleBot(seed=seed)
    if (
        staged is None
        or staged.hand != hand_no
        or staged.street != dec.street
        or dec.kind != "street"
        or not kept_staging(dec, staged)
    ):
        return bot.act(view)
    rest = _rest_of_street(view, dec, staged, bot)
    return Place(
        dec.seat,
        staged.top + rest.top,
        staged.middle + rest.middle,
        staged.bottom + rest.bottom,
        staged.discard + rest.discard,
        hand=dec.hand,
        version=view.version,
    )


def _rest_of_street(view: View, dec: Decision, staged: Staging, bot: RuleBot) -> Place:
    """The rules bot's placement of the cards not staged, with the staged ones seen as
    already on the board (and the staged discards as thrown)."""
    gone = set(staged.cards)
    left = tuple(c for c in dec.cards if c not in gone)
    placed = len(staged.top) + len(staged.middle) + len(staged.bottom)
    if not left:
        return Place(dec.seat, hand=dec.hand, version=view.version)
    free = (
        dec.free[0] - len(staged.top),
        dec.free[1] - len(staged.middle),
        dec.free[2] - len(staged.bottom),
    )
    rest = dataclasses.replace(
        dec,
        cards=left,
        place=dec.place - placed,
        discard=dec.discard - len(staged.discard),
        free=free,
        mask=0,
    )
    boards = tuple(
        dataclasses.replace(
            b,
            top=b.top + staged.top,
            middle=b.middle + staged.middle,
            bottom=b.bottom + staged.bottom,
            placed=b.placed + placed,
            discards=b.discards + staged.discard,
        )
        if b.seat == dec.seat and b.hand == dec.hand
        else b
        for b in view.boards
    )
    hand = tuple(c for c in view.hand if c not in gone)
    seen = dataclasses.replace(view, boards=boards, hand=hand, decisions=(rest,))
    action = bot.act(seen)
    assert isinstance(action, Place)
    return action
