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

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chinese_poker.cards import Board, Card, card_name, parse_card
from chinese_poker.engine.actions import Decision
from chinese_poker.rules import Rules
from chinese_poker.scoring import placements_that_foul

if TYPE_CHECKING:
    from chinese_poker.engine.table import HandState, LogEntry, Table

__all__ = [
    "BoardView",
    "View",
    "build_view",
    "build_views",
    "placement_fouls",
    "public_log_entry",
]


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
    ``fantasyland_streak`` counts the Fantasyland hands the seat plays in a row with this
    one (0: not in Fantasyland) and ``fantasyland_stays_left`` the stays the repeat limit
    still allows it (§9.4; None: unlimited; 0: a stay would not count) -- both public,
    since every player has seen the earlier hands of the session.
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
    fantasyland_streak: int = 0
    fantasyland_stays_left: int | None = 0

    @property
    def board(self) -> Board:
        return Board(self.top, self.middle, self.bottom)

    @property
    def fantasyland_stay_allowed(self) -> bool:
        """True if this board plays Fantasyland and a stay earned now would count."""
        return self.in_fantasyland and self.fantasyland_stays_left != 0

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
            "fantasyland_streak": self.fantasyland_streak,
            "fantasyland_stays_left": self.fantasyland_stays_left,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> BoardView:
        """Rebuild a board from its :meth:`to_dict` form."""
        stays = d.get("fantasyland_stays_left", 0)
        return cls(
            seat=int(d["seat"]),
            player=str(d["player"]),
            hand=int(d.get("hand", 0)),
            top=_cards(d.get("top", [])),
            middle=_cards(d.get("middle", [])),
            bottom=_cards(d.get("bottom", [])),
            hidden=bool(d.get("hidden", False)),
            placed=int(d.get("placed", 0)),
            dealt=int(d.get("dealt", 0)),
            discarded=int(d.get("discarded", 0)),
            discards=_cards(d.get("discards", [])),
            in_fantasyland=bool(d.get("in_fantasyland", False)),
            fantasyland_cards=int(d.get("fantasyland_cards", 0)),
            is_set=bool(d.get("is_set", False)),
            surrendered=d.get("surrendered"),
            natural_claim=d.get("natural_claim"),
            natural=d.get("natural"),
            fantasyland_streak=int(d.get("fantasyland_streak", 0)),
            fantasyland_stays_left=None if stays is None else int(stays),
        )


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

    @property
    def hidden_boards(self) -> tuple[tuple[int, int], ...]:
        """The (seat, hand) of every board the viewer may not see (usually none): what
        :func:`public_log_entry` hides from the log as well."""
        return tuple((b.seat, b.hand) for b in self.boards if b.hidden)

    def to_dict(
        self, rules: object = None, boards: list[object] | None = None, *, with_rules: bool = True
    ) -> dict[str, Any]:
        """Plain JSON data (cards by name).

        ``rules``: what to put as the rules (default ``self.rules.to_dict()``); a server
        sending many views of one table passes the table's, built once. ``boards``: what
        to put as the boards, one for each of :attr:`boards` (default each one's
        ``to_dict()``), for a server that serialises a board once for every view.
        ``with_rules`` False leaves the rules out, for a client that has them already
        (the play socket sends them once, in its ``welcome``).
        """
        if with_rules and rules is None:
            rules = self.rules.to_dict()
        data = {
            "seat": self.seat,
            "player": self.player,
            "players": list(self.players),
            "rules": rules,
            "variant": self.rules.variant,
            "version": self.version,
            "phase": self.phase,
            "street": self.street,
            "button": self.button,
            "play_order": list(self.play_order),
            "to_act": list(self.to_act),
            "fantasyland": list(self.fantasyland),
            "timed_out": list(self.timed_out),
            "boards": [b.to_dict() for b in self.boards] if boards is None else boards,
            "hand": _names(self.hand),
            "decisions": [d.to_dict() for d in self.decisions],
            "settlement": self.settlement,
            "totals": self.totals,
        }
        if not with_rules:
            del data["rules"]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> View:
        """Rebuild a view from its :meth:`to_dict` form (what bot ``act`` messages carry).

        >>> from chinese_poker.engine.table import Table
        >>> from chinese_poker.rules import rules_for
        >>> table = Table(rules_for("pineapple"), 2, seed=3)
        >>> view = table.view(1)
        >>> View.from_dict(view.to_dict()) == view
        True
        """
        seat = data.get("seat")
        return cls(
            seat=None if seat is None else int(seat),
            player=data.get("player"),
            players=tuple(str(p) for p in data["players"]),
            rules=_rules_of(data["rules"]),
            version=int(data["version"]),
            phase=str(data["phase"]),
            street=int(data.get("street", 0)),
            button=int(data["button"]),
            play_order=_ints(data.get("play_order", [])),
            to_act=_ints(data.get("to_act", [])),
            fantasyland=_ints(data.get("fantasyland", [])),
            timed_out=_ints(data.get("timed_out", [])),
            boards=tuple(BoardView.from_dict(b) for b in data.get("boards", [])),
            hand=_cards(data.get("hand", [])),
            decisions=tuple(_decision_from_dict(d) for d in data.get("decisions", [])),
            settlement=data.get("settlement"),
            totals=data.get("totals"),
        )


def _cards(value: object) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise ValueError(f"expected a list of cards, got {value!r}")
    return tuple(parse_card(str(c)) for c in value)


def _ints(value: object) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise ValueError(f"expected a list of integers, got {value!r}")
    return tuple(int(v) for v in value)


_RULES_CACHE: dict[str, Rules] = {}


def _rules_of(data: Mapping[str, Any]) -> Rules:
    # Views of one table arrive many times with the same rules: parse them once.
    key = json.dumps(data, sort_keys=True)
    rules = _RULES_CACHE.get(key)
    if rules is None:
        if len(_RULES_CACHE) > 16:
            _RULES_CACHE.clear()
        rules = _RULES_CACHE[key] = Rules.from_dict(data)
    return rules


def _decision_from_dict(d: Mapping[str, Any]) -> Decision:
    free = _ints(d.get("free", [0, 0, 0]))
    if len(free) != 3:
        raise ValueError(f"'free' must have 3 numbers, got {free}")
    return Decision(
        seat=int(d["seat"]),
        kind=d["kind"],
        hand=int(d.get("hand", 0)),
        cards=_cards(d.get("cards", [])),
        place=int(d.get("place", 0)),
        discard=int(d.get("discard", 0)),
        free=(free[0], free[1], free[2]),
        street=int(d.get("street", 0)),
    )


def build_view(table: Table, seat: int | None) -> View:
    """The view of ``seat`` (None for a spectator) of ``table``."""
    return build_views(table, (seat,))[seat]


def build_views(table: Table, seats: Iterable[int | None]) -> dict[int | None, View]:
    """The views of ``seats`` (None: a spectator) of ``table`` now, each equal to
    :func:`build_view`'s.

    What they share is built once: the boards' states, the public facts, and each
    board as every seat but its owner sees it (the same :class:`BoardView` object in
    each of their views, and in its owner's too when the owner sees it alike: face up,
    no discards). A server shows every seat and spectator of a table after each action
    and serialises each board object once.
    """
    n = table.n_seats
    wanted = list(dict.fromkeys(seats))
    for seat in wanted:
        if seat is not None and (
            isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n
        ):
            raise ValueError(f"there is no seat {seat!r}; seats are 0..{n - 1} (or None)")
    states = table.hand_states()
    facts = _PublicFacts.of(table)
    # By index in ``states``: each board as the others see it, built first when someone
    # else is asked for, so that its owner's view may be that very object.
    others: dict[int, BoardView] = {
        i: _board_view(facts, state, mine=False)
        for i, state in enumerate(states)
        if wanted != [state.seat]  # someone but its owner (``wanted`` has no repeats)
    }

    def board(i: int, state: HandState, seat: int | None) -> BoardView:
        view = others.get(i)
        if state.seat == seat:
            # Its owner sees what the others do when it is face up, with no discards to
            # add and no natural kept from them (Chinese poker without discards, nearly
            # always): the same object, serialised once by a server.
            if view is None or view.hidden or state.discards or view.natural != state.natural:
                return _board_view(facts, state, mine=True)
            return view
        assert view is not None  # built above: a seat other than its owner asks
        return view

    over = facts.over
    data = table.settlement_data() if over else None
    # The same in every view.
    version, street, button, to_act = table.version, table.street, table.button, table.to_act
    fantasyland = tuple(sorted(table.fantasyland))
    timed_out = tuple(sorted(table.timed_out))
    totals = dict(table.totals) if over else None
    views: dict[int | None, View] = {}
    for seat in wanted:
        hand: list[Card] = []
        for state in states:
            if state.seat == seat and state.decision is not None:
                hand.extend(state.decision.cards)
        views[seat] = View(
            seat=seat,
            player=table.players[seat] if seat is not None else None,
            players=facts.players,
            rules=table.rules,
            version=version,
            phase=facts.phase,
            street=street,
            button=button,
            play_order=table.play_order,
            to_act=to_act,
            fantasyland=fantasyland,
            timed_out=timed_out,
            boards=tuple(board(i, state, seat) for i, state in enumerate(states)),
            hand=tuple(hand),
            decisions=table.decisions(seat) if seat is not None else (),
            settlement=(None if data is None else _public_settlement(table, states, seat, data)),
            totals=None if totals is None else dict(totals),
        )
    return views


def public_log_entry(
    entry: LogEntry,
    viewer: int | None,
    hidden: tuple[tuple[int, int], ...],
    full: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An applied action as seat ``viewer`` (None: a spectator) may see it in the log.

    It hides what the viewer's :class:`View` hides: another seat's discards, and the
    cards placed on a board in ``hidden`` (the view's :attr:`View.hidden_boards`: a
    Fantasyland board or a classic set before the showdown). ``full`` is
    ``entry.action.to_dict()`` if the caller has it (it is not changed).

    >>> import random
    >>> from chinese_poker.engine.table import Table
    >>> from chinese_poker.rules import rules_for
    >>> table, rng = Table(rules_for("pineapple"), 2, seed=3), random.Random(0)
    >>> for _ in range(3):  # the first street of both seats, then a discard
    ...     table.apply(table.random_action(table.to_act[0], rng))
    >>> last = table.log[-1]
    >>> me, other = last.action.seat, 1 - last.action.seat
    >>> "discard" in public_log_entry(last, me, ()), "discard" in public_log_entry(last, other, ())
    (True, False)
    """
    data = entry.action.to_dict() if full is None else dict(full)
    data["auto"] = entry.auto
    data.setdefault("hand", 0)
    if data["seat"] == viewer or data["type"] != "place":
        return data
    data.pop("discard", None)
    if (data["seat"], data["hand"]) in hidden:
        for line in ("top", "middle", "bottom"):
            data.pop(line, None)
    return data


def placement_fouls(view: View) -> dict[str, dict[str, str | None]]:
    """The placements of the viewer's open-face streets that foul whatever comes.

    For each ``street`` decision of the viewer, every placement of its cards is judged
    by :func:`chinese_poker.scoring.placements_that_foul` against the cards the viewer
    has not seen (cards on a hidden board included); the ones that cannot be finished
    without a foul are returned, keyed ``"<hand>:<placement>"`` (one letter per dealt
    card in the dealt order: ``t``, ``m``, ``b``, or ``d`` for a discard), each with its
    reason (``FoulReason.as_dict()`` and its ``text``): what a client staging cards needs
    to warn exactly. A Fantasyland or classic set is not listed: it is complete when it
    can be confirmed, and a complete board is the line order alone. It costs one judgement
    per placement (232 on a five-card first street), too much to add to every view the
    server sends (docs/architecture.md): it is meant to be asked for.

    >>> from chinese_poker.engine.table import Table
    >>> from chinese_poker.rules import rules_for
    >>> view = Table(rules_for("ofc"), 2, seed=11).view(1)
    >>> len(view.hand), placement_fouls(view)  # five cards on an empty board
    (5, {})
    """
    seat = view.seat
    if seat is None or not view.rules.is_open_face:
        return {}
    decisions = [d for d in view.decisions if d.kind == "street" and d.seat == seat]
    if not decisions:
        return {}
    seen: set[Card] = set(view.hand)
    for b in view.boards:
        seen.update(b.top, b.middle, b.bottom, b.discards)
    unseen = frozenset(range(52)) - seen
    out: dict[str, dict[str, str | None]] = {}
    for d in decisions:
        board = view.board_of(seat, d.hand).board
        fouls = placements_that_foul(view.rules, board, d.cards, d.place, d.free, unseen)
        for code, reason in fouls.items():
            out[f"{d.hand}:{code}"] = {**reason.as_dict(), "text": str(reason)}
    return out


@dataclass(frozen=True, slots=True)
class _PublicFacts:
    """What every board's view is judged by, the same for every viewer."""

    players: tuple[str, ...]
    phase: str
    over: bool
    boards_face_down: bool
    fantasyland_face_down: bool
    automatic_naturals_public: bool

    @classmethod
    def of(cls, table: Table) -> _PublicFacts:
        variant = table.rules.spec.variant
        # Under automatic claims every natural is declared once all hands are set.
        naturals = table.rules.spec.scoring.naturals
        phase = table.phase
        return cls(
            players=table.players,
            phase=phase,
            over=table.over,
            boards_face_down=variant.boards_face_down,
            fantasyland_face_down=variant.fantasyland_face_down,
            automatic_naturals_public=(
                phase != "play" and naturals is not None and not naturals.optional_claim
            ),
        )


def _board_view(facts: _PublicFacts, state: HandState, *, mine: bool) -> BoardView:
    """One board as its owner (``mine``) or any other seat or spectator sees it."""
    over = facts.over
    face_down = facts.boards_face_down or (
        state.fantasyland_cards > 0 and facts.fantasyland_face_down
    )
    # A surrendered classic hand is mucked face down: nobody else ever sees it.
    visible = mine or not face_down or (over and not state.surrender)
    public_natural = over or mine or state.claim or facts.automatic_naturals_public
    placed = state.placed
    return BoardView(
        seat=state.seat,
        player=facts.players[state.seat],
        hand=state.hand,
        top=state.top if visible else (),
        middle=state.middle if visible else (),
        bottom=state.bottom if visible else (),
        hidden=not visible,
        placed=placed,
        dealt=len(state.dealt),
        discarded=len(state.discards),
        discards=state.discards if mine else (),
        in_fantasyland=state.fantasyland_cards > 0,
        fantasyland_cards=state.fantasyland_cards,
        is_set=placed == 13,
        surrendered=state.surrender,
        natural_claim=state.claim,
        natural=state.natural if public_natural else None,
        fantasyland_streak=state.fantasyland_streak,
        fantasyland_stays_left=state.fantasyland_stays_left,
    )


def _public_settlement(
    table: Table, states: tuple[HandState, ...], seat: int | None, data: dict[str, Any]
) -> dict[str, Any]:
    """The settlement as ``seat`` may see it: other players' surrendered hands stay hidden."""
    hidden = {
        table.hand_name(state.seat, state.hand)
        for state in states
        if state.surrender and state.seat != seat
    }
    if not hidden:
        return data
    players = []
    for entry in data.get("players", []):
        if entry.get("name") in hidden:
            entry = {**entry, "board": None, "lines": [], "natural": None}
        players.append(entry)
    return {**data, "players": players}
