"""Open-face positions a person can type, turned into the seat's :class:`View`.

A position is what a player at a real table knows when it is his turn on a street: the
rules, the street, his board so far, the cards he has just been dealt, the cards he
knows are dead (his own discards, burned or exposed cards) and every opponent's board.
It is written as ``key: value`` lines (docs/formats.md, "Positions"), or as the JSON
object with the same keys that ``POST /api/hint`` takes::

    rules: pineapple
    street: 3
    me: Kh Kd | 9s 9h | Ah Jh 8h
    cards: Qc 8c 2s
    dead: 4c
    opponent: Ac 7d | Qs Qd | Ks Kc 3d

:func:`parse_position` checks it the way a dealer would (the right number of cards on
every board for the street, no card twice, a player count the variant allows) and
:meth:`Position.view` builds the engine's view of that seat, which the hint engine
(:func:`chinese_poker.ai.hints.hint`) takes.

>>> pos = parse_position('''rules: pineapple
... street: 3
... me: Kh Kd | 9s 9h | Ah Jh 8h
... cards: Qc 8c 2s
... dead: 4c
... opponent: Ac 7d | Qs Qd | Ks Kc 3d''')
>>> view = pos.view()
>>> view.decisions[0].street, view.decisions[0].place, view.decisions[0].free
(3, 2, (1, 3, 2))
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chinese_poker.cards import Board, Card, CardError, check_disjoint, parse_board, parse_cards
from chinese_poker.engine.actions import Decision
from chinese_poker.engine.table import fantasyland_stays_left
from chinese_poker.engine.views import BoardView, View
from chinese_poker.rules import Rules, RulesError, parse_assignment, rules_from_document

__all__ = ["POSITION_KEYS", "Position", "PositionError", "parse_position", "position_from_dict"]

POSITION_KEYS = ("rules", "options", "street", "me", "cards", "dead", "opponents")
"""The keys of a position (``opponent`` lines of the text form become ``opponents``)."""

FANTASYLAND_WORD = "fantasyland"
"""An opponent's board written as this word: he plays a Fantasyland hand face down."""


class PositionError(ValueError):
    """A position that cannot be: one line naming what is wrong."""


@dataclass(frozen=True, slots=True)
class Position:
    """A checked position: seat 0 is me, opponents follow in the order given.

    ``opponents`` holds ``None`` for an opponent playing Fantasyland (board unseen).
    """

    rules: Rules
    street: int
    me: Board
    cards: tuple[Card, ...]
    dead: tuple[Card, ...]
    opponents: tuple[Board | None, ...]

    def view(self) -> View:
        """My seat's view (seat 0), to act on :attr:`street`."""
        rules = self.rules
        dealt, place = rules.streets[self.street - 1]
        players = ("me", *(f"opponent {i}" for i in range(1, len(self.opponents) + 1)))
        boards = [_board_view(0, "me", self.me, dealt_before(rules, self.street) + dealt,
                              self.dead, rules)]  # fmt: skip
        for seat, board in enumerate(self.opponents, 1):
            if board is None:
                fl = rules.fantasyland_cards(None, repeat=True)
                boards.append(BoardView(
                    seat=seat, player=players[seat], hand=0, top=(), middle=(), bottom=(),
                    hidden=True, placed=0, dealt=fl, discarded=0, discards=(),
                    in_fantasyland=True, fantasyland_cards=fl, is_set=False,
                    surrendered=None, natural_claim=None, natural=None,
                    fantasyland_streak=1,
                    fantasyland_stays_left=fantasyland_stays_left(rules, 1, 0),
                ))  # fmt: skip
            else:
                boards.append(_board_view(seat, players[seat], board, len(board), (), rules))
        free = (3 - len(self.me.top), 5 - len(self.me.middle), 5 - len(self.me.bottom))
        decision = Decision(
            seat=0, kind="street", cards=self.cards, place=place, discard=dealt - place,
            free=free, street=self.street,
        )  # fmt: skip
        return View(
            seat=0, player="me", players=players, rules=rules, version=0, phase="play",
            street=self.street, button=len(players) - 1,
            play_order=tuple(range(len(players))), to_act=(0,),
            fantasyland=tuple(s for s, b in enumerate(self.opponents, 1) if b is None),
            timed_out=(), boards=tuple(boards), hand=self.cards, decisions=(decision,),
            settlement=None, totals=None,
        )  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (options folded into a full ``rules`` object)."""
        return {
            "rules": self.rules.to_dict(),
            "street": self.street,
            "me": str(self.me),
            "cards": " ".join(_names(self.cards)),
            "dead": " ".join(_names(self.dead)),
            "opponents": [FANTASYLAND_WORD if b is None else str(b) for b in self.opponents],
        }


def _names(cards: Sequence[Card]) -> list[str]:
    from chinese_poker.cards import card_name

    return [card_name(c) for c in cards]


def _board_view(
    seat: int, player: str, board: Board, dealt: int, discards: tuple[Card, ...], rules: Rules
) -> BoardView:
    return BoardView(
        seat=seat, player=player, hand=0, top=board.top, middle=board.middle,
        bottom=board.bottom, hidden=False, placed=len(board), dealt=dealt,
        discarded=len(discards), discards=discards, in_fantasyland=False,
        fantasyland_cards=0, is_set=False, surrendered=None, natural_claim=None,
        natural=None,
    )  # fmt: skip


def placed_before(rules: Rules, street: int) -> int:
    """Cards a board holds when ``street`` (1-based) is dealt."""
    return sum(p for _, p in rules.streets[: street - 1])


def dealt_before(rules: Rules, street: int) -> int:
    return sum(d for d, _ in rules.streets[: street - 1])


def parse_position(text: str, source: str = "the position") -> Position:
    """A position from its text (``key: value`` lines) or JSON form; :class:`PositionError`
    (or a card or rules error) with one line if it cannot be."""
    if not text.strip():
        raise PositionError(f"{source} is empty: expected 'rules: ...', 'street: ...', 'me: ...'")
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PositionError(
                f"{source} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
            ) from None
        if not isinstance(data, dict):
            raise PositionError(f"{source} must be a JSON object")
        return position_from_dict(data)
    typed: dict[str, Any] = {"opponents": []}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = line.partition(":")
        key = key.strip().lower()
        if not sep:
            raise PositionError(f"line {number}: expected 'key: value', got {line!r}")
        value = value.strip()
        if key == "opponent":
            typed["opponents"].append(value)
        elif key == "options":
            typed.setdefault("options", {}).update(_options_text(value, number))
        elif key in POSITION_KEYS and key != "opponents":
            if key in typed:
                raise PositionError(f"line {number}: {key!r} is given twice")
            typed[key] = value
        else:
            raise PositionError(
                f"line {number}: unknown key {key!r}; a position has rules, options, street, "
                "me, cards, dead and one 'opponent' line per opponent"
            )
    return position_from_dict(typed)


def _options_text(value: str, number: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for part in value.replace(",", " ").split():
        try:
            name, option = parse_assignment(part)
        except RulesError as exc:
            raise PositionError(f"line {number}: {exc}") from None
        out[name] = option
    return out


def position_from_dict(data: Mapping[str, Any]) -> Position:
    """A position from its JSON form (the keys of :data:`POSITION_KEYS`)."""
    unknown = [key for key in data if key not in POSITION_KEYS]
    if unknown:
        raise PositionError(
            f"unknown key {unknown[0]!r} in the position; the keys are {', '.join(POSITION_KEYS)}"
        )
    rules = _rules(data)
    if not rules.is_open_face:
        raise PositionError(
            f"positions are for open-face variants (ofc, pineapple, turbo), not {rules.variant!r}"
            "; use the setting solver for classic hands"
        )
    streets = rules.streets
    street = _street(data.get("street"), len(streets))
    dealt, _place = streets[street - 1]
    before = placed_before(rules, street)
    me = _board(data.get("me"), "my board")
    if len(me) != before:
        raise PositionError(
            f"my board has {len(me)} cards; before street {street} of {rules.variant} it has "
            f"{before}"
        )
    cards = _cards(data.get("cards"), "my cards", required=True)
    if len(cards) != dealt:
        raise PositionError(
            f"street {street} of {rules.variant} deals {dealt} cards, 'cards' has {len(cards)}"
        )
    dead = _cards(data.get("dead"), "the dead cards", required=False)
    opponents_raw = data.get("opponents", [])
    if not isinstance(opponents_raw, list):
        raise PositionError('"opponents" must be a list of boards "top | middle | bottom"')
    counts = rules.player_counts
    if not counts.start <= len(opponents_raw) + 1 <= counts.stop - 1:
        raise PositionError(
            f"{rules.variant} is played by {counts.start} to {counts.stop - 1} players; "
            f"this position has {len(opponents_raw) + 1} (me and {len(opponents_raw)} "
            "opponent(s))"
        )
    after = before + streets[street - 1][1]
    opponents: list[Board | None] = []
    for i, raw in enumerate(opponents_raw, 1):
        if isinstance(raw, str) and raw.strip().lower() == FANTASYLAND_WORD:
            if not rules.spec.scoring.fantasyland.enabled:
                raise PositionError(
                    f"opponent {i} is in Fantasyland, but these rules have no Fantasyland"
                )
            opponents.append(None)
            continue
        board = _board(raw, f"opponent {i}'s board")
        if len(board) not in (before, after):
            raise PositionError(
                f"opponent {i}'s board has {len(board)} cards; on street {street} of "
                f"{rules.variant} it has {before} (still to act) or {after} (has placed)"
            )
        opponents.append(board)
    groups: list[tuple[str, Sequence[Card]]] = [
        ("my board", me.cards), ("my cards", cards), ("the dead cards", dead),
    ]  # fmt: skip
    groups += [(f"opponent {i}'s board", b.cards) for i, b in enumerate(opponents, 1) if b]
    check_disjoint(groups)
    return Position(rules, street, me, cards, dead, tuple(opponents))


def _rules(data: Mapping[str, Any]) -> Rules:
    if data.get("rules") is None:
        raise PositionError('the position has no "rules": give a preset such as "pineapple"')
    return rules_from_document(data["rules"], data.get("options"))


def _street(value: object, streets: int) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int):
        raise PositionError(f'"street" must be a number 1 to {streets}, not {value!r}')
    if not 1 <= value <= streets:
        raise PositionError(f"street {value} does not exist: this variant has streets 1 to "
                            f"{streets}")  # fmt: skip
    return value


def _board(value: object, what: str) -> Board:
    if not isinstance(value, str):
        raise PositionError(f"{what} must be a string 'top | middle | bottom'")
    if "|" not in value and not value.strip():
        return Board()
    try:
        return parse_board(value, complete=False)
    except CardError as exc:
        raise CardError(f"{what}: {exc}", *exc.args[1:]) from None


def _cards(value: object, what: str, *, required: bool) -> tuple[Card, ...]:
    if value is None and not required:
        return ()
    if not isinstance(value, str):
        raise PositionError(f"{what} must be a string of cards such as 'Ah Kd 7c'")
    try:
        return parse_cards(value)
    except CardError as exc:
        raise CardError(f"{what}: {exc}", *exc.args[1:]) from None
