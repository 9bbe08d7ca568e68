"""Per-seat views: exactly what one seat (or a spectator) may know (RULES §6).

A :class:`View` holds a seat's own unplaced cards and its own discards, every card
placed face up, the public facts (button, street, who is to act, who is in Fantasyland
and how many cards they got, declarations, who has set), the rules and the version.
It never holds another seat's unplaced cards or discards, a Fantasyland board or a
classic set before the showdown, nor the deck order. After the showdown every board is
shown; discards stay private to their owner.

>>> from chinese_poker.rules import rules_for
>>> from chinese_poker.engine.table import Table
>>> table = Table(rules_for("ofc"), ["Ann", "Bob"], seed=11)
>>> v = table.view(1)
>>> v.to_act, len(v.hand), table.view(0).hand, table.view(None).hand
((1,), 5, (), ())
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chinese_poker.cards import Board, Card, card_name
from chinese_poker.engine.actions import Decision
from chinese_poker.rules import Rules

if TYPE_CHECKING:
    from chinese_poker.engine.table import Table

__all__ = ["BoardView", "View", "build_view"]


_CARD_NAMES = tuple(card_name(c) for c in range(52))


def _names(cards: tuple[Card, ...]) -> list[str]:
    # Card names by table look-up (views are built for every socket on every action).
    names = _CARD_NAMES
    return [names[c] for c in cards]


@dataclass(frozen=True, slots=True)
class BoardView:
    """One board as the viewer sees it.

    ``top``/``middle``/``bottom`` are the visible cards (empty while ``hidden``).
    ``hidden`` is true for a face-down board the viewer may not see yet (a Fantasyland
    board or a classic set of another seat before the showdown). ``placed`` counts the
    cards on the board, ``dealt`` the cards dealt so far and ``discarded`` the discards
    (public counts); ``discards`` lists them for their owner only.
    """

    seat: int
    player: str
    hand: int
    top: tuple[Card, ...]
    middle: tuple[Card, ...]
    bottom: tuple[Card, ...]
    hidden: bool
    placed: int
    dealt: int
    discarded: int
    discards: tuple[Card, ...]
    in_fantasyland: bool
    fantasyland_cards: int
    is_set: bool
    surrendered: bool | None
    natural_claim: bool | None
    natural: str | None

    @property
    def board(self) -> Board:
        return Board(self.top, self.middle, self.bottom)

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "player": self.player,
            "hand": self.hand,
            "top": _names(self.top),
            "middle": _names(self.middle),
            "bottom": _names(self.bottom),
            "hidden": self.hidden,
            "placed": self.placed,
            "dealt": self.dealt,
            "discarded": self.discarded,
            "discards": _names(self.discards),
            "in_fantasyland": self.in_fantasyland,
            "fantasyland_cards": self.fantasyland_cards,
            "is_set": self.is_set,
            "surrendered": self.surrendered,
            "natural_claim": self.natural_claim,
            "natural": self.natural,
        }


@dataclass(frozen=True, slots=True)
class View:
    """What ``seat`` may know now (``seat`` None: a spectator).

    ``hand`` is the viewer's cards still to be placed, ``decisions`` what it must decide
    now (with the room in each line), ``boards`` every board (per seat, then per hand).
    ``street`` is the street being dealt (1-based, 0 when none is), ``to_act`` the seats
    that may act, ``fantasyland`` the seats playing a Fantasyland deal. ``settlement``
    (the :meth:`Settlement.to_dict` form) and ``totals`` appear after the showdown.
    """

    seat: int | None
    player: str | None
    players: tuple[str, ...]
    rules: Rules
    version: int
    phase: str
    street: int
    button: int
    play_order: tuple[int, ...]
    to_act: tuple[int, ...]
    fantasyland: tuple[int, ...]
    timed_out: tuple[int, ...]
    boards: tuple[BoardView, ...]
    hand: tuple[Card, ...]
    decisions: tuple[Decision, ...]
    settlement: dict[str, Any] | None
    totals: dict[str, int] | None

    @property
    def over(self) -> bool:
        return self.phase == "showdown"

    @property
    def my_turn(self) -> bool:
        return self.seat is not None and self.seat in self.to_act

    def board_of(self, seat: int, hand: int = 0) -> BoardView:
        for b in self.boards:
            if b.seat == seat and b.hand == hand:
                return b
        raise KeyError(f"no board for seat {seat} hand {hand}")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (cards by name)."""
        return {
            "seat": self.seat,
            "player": self.player,
            "players": list(self.players),
            "rules": self.rules.to_dict(),
            "variant": self.rules.variant,
            "version": self.version,
            "phase": self.phase,
            "street": self.street,
            "button": self.button,
            "play_order": list(self.play_order),
            "to_act": list(self.to_act),
            "fantasyland": list(self.fantasyland),
            "timed_out": list(self.timed_out),
            "boards": [b.to_dict() for b in self.boards],
            "hand": _names(self.hand),
            "decisions": [d.to_dict() for d in self.decisions],
            "settlement": self.settlement,
            "totals": self.totals,
        }


def build_view(table: Table, seat: int | None) -> View:
    """The view of ``seat`` (None for a spectator) of ``table``."""
    n = table.n_seats
    if seat is not None and (
        isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n
    ):
        raise ValueError(f"there is no seat {seat!r}; seats are 0..{n - 1} (or None)")
    over = table.over
    open_face = table.rules.is_open_face
    boards: list[BoardView] = []
    hand: list[Card] = []
    # Under automatic claims every natural is declared once all hands are set.
    automatic_public = table.phase != "play" and table.rules.natural_claim == "automatic"
    for box in sorted(table._boxes, key=lambda b: (b.seat, b.hand)):
        mine = box.seat == seat
        face_down = (box.fl_cards > 0) or not open_face
        # A surrendered classic hand is mucked face down: nobody else ever sees it.
        visible = mine or not face_down or (over and not box.surrender)
        top, middle, bottom = box.lines
        placed = len(top) + len(middle) + len(bottom)
        if mine and box.decision is not None:
            hand.extend(box.decision.cards)
        boards.append(
            BoardView(
                seat=box.seat,
                player=table.players[box.seat],
                hand=box.hand,
                top=tuple(top) if visible else (),
                middle=tuple(middle) if visible else (),
                bottom=tuple(bottom) if visible else (),
                hidden=not visible,
                placed=placed,
                dealt=len(box.dealt),
                discarded=len(box.discards),
                discards=tuple(box.discards) if mine else (),
                in_fantasyland=box.fl_cards > 0,
                fantasyland_cards=box.fl_cards,
                is_set=placed == 13,
                surrendered=box.surrender,
                natural_claim=box.claim,
                natural=box.natural if (over or mine or box.claim or automatic_public) else None,
            )
        )
    settlement = None
    if over and table.settlement is not None:
        settlement = _public_settlement(table, seat, table.settlement.to_dict())
    return View(
        seat=seat,
        player=table.players[seat] if seat is not None else None,
        players=table.players,
        rules=table.rules,
        version=table.version,
        phase=table.phase,
        street=table.street,
        button=table.button,
        play_order=table.play_order,
        to_act=table.to_act,
        fantasyland=tuple(sorted(table.fantasyland)),
        timed_out=tuple(sorted(table.timed_out)),
        boards=tuple(boards),
        hand=tuple(hand),
        decisions=table.decisions(seat) if seat is not None else (),
        settlement=settlement,
        totals=dict(table.totals) if over else None,
    )


def _public_settlement(table: Table, seat: int | None, data: dict[str, Any]) -> dict[str, Any]:
    """The settlement as ``seat`` may see it: other players' surrendered hands stay hidden."""
    hidden = {
        table.hand_name(box.seat, box.hand)
        for box in table._boxes
        if box.surrender and box.seat != seat
    }
    if not hidden:
        return data
    players = []
    for entry in data.get("players", []):
        if entry.get("name") in hidden:
            entry = {**entry, "board": None, "lines": [], "natural": None}
        players.append(entry)
    return {**data, "players": players}
