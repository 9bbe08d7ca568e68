"""The one-hand state machine: deal, turns, legality, timeouts, showdown.

A :class:`Table` plays one hand of any variant (RULES §5) for any allowed number of
seats. Seats are numbered 0..n-1 clockwise; play starts left of the button and the
button acts last. Chance (the deal) happens inside: the deck is shuffled from ``seed``
(or stacked with ``deck=`` for tests and replays) and cards are taken in the canonical
order of §5.1.

One legality source serves every caller:

* :attr:`Table.to_act` -- the seats that may act now (several while Fantasyland
  players or classic players set at the same time);
* :meth:`Table.decisions` -- what a seat must decide, :meth:`Table.legal_actions` --
  every legal action (lazy: a set has millions; ``len()`` counts them);
* :meth:`Table.check` -- why an action is illegal (``None`` if legal), :meth:`Table.can`,
  and :meth:`Table.apply`, which raises :class:`IllegalActionError` with that reason
  and leaves the state exactly as it was;
* :meth:`Table.random_action` -- a uniformly random legal action, drawn without
  enumerating;
* :meth:`Table.view` -- what one seat (or a spectator) may see.

>>> import random
>>> from chinese_poker.rules import rules_for
>>> table = Table(rules_for("pineapple"), ["Ann", "Bob"], seed=7)
>>> table.to_act, table.decisions(1)[0].kind, len(table.legal_actions(1))
((1,), 'street', 232)
>>> rng = random.Random(1)
>>> while not table.over:
...     table.apply(table.random_action(table.to_act[0], rng))
>>> sum(table.totals.values()), len(table.actions)
(0, 10)
"""

from __future__ import annotations

import dataclasses
import random
import secrets
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from chinese_poker.cards import Board, Card, card_name
from chinese_poker.engine.actions import (
    Action,
    ClaimNatural,
    Decision,
    IllegalActionError,
    Place,
    Surrender,
    Timeout,
    check_placement,
    count_placements,
    iter_placements,
    sample_placement,
)
from chinese_poker.engine.autoplay import timeout_action
from chinese_poker.rules import Rules
from chinese_poker.scoring import Hand, Settlement, natural_of, settle

if TYPE_CHECKING:
    from chinese_poker.engine.views import View

__all__ = [
    "NATURALS",
    "PLAY",
    "SHOWDOWN",
    "SURRENDER",
    "LegalActions",
    "LogEntry",
    "Phase",
    "Table",
    "TableError",
    "check_player_names",
    "shuffled_deck",
]

Phase = Literal["play", "naturals", "surrender", "showdown"]
PLAY: Phase = "play"
NATURALS: Phase = "naturals"
SURRENDER: Phase = "surrender"
SHOWDOWN: Phase = "showdown"

_ACTION_CLASSES = (Place, Surrender, ClaimNatural, Timeout)


class TableError(ValueError):
    """A table that cannot be set up: bad seats, button, deck or Fantasyland deal."""


def shuffled_deck(seed: int) -> tuple[Card, ...]:
    """The deck order for ``seed``: ``random.Random(seed).shuffle`` of cards 0..51.

    >>> shuffled_deck(1)[:3] == shuffled_deck(1)[:3]
    True
    """
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    return tuple(deck)


def new_seed() -> int:
    """A fresh 128-bit seed from the operating system's entropy (``secrets``).

    128 bits, so that nobody can recover an unrecorded seed from the cards he has seen.
    """
    return secrets.randbits(128)


class LogEntry(NamedTuple):
    """One applied action; ``auto`` marks placements the engine made for a timed-out seat."""

    action: Action
    auto: bool = False

    def to_dict(self) -> dict[str, Any]:
        data = self.action.to_dict()
        if self.auto:
            data["auto"] = True
        return data


class _Box:
    """One board in play: a seat's only hand, or one of its two Criss Cross hands."""

    __slots__ = (
        "claim",
        "dealt",
        "decision",
        "discards",
        "fl_cards",
        "hand",
        "lines",
        "natural",
        "seat",
        "surrender",
    )

    def __init__(self, seat: int, hand: int, fl_cards: int) -> None:
        self.seat = seat
        self.hand = hand
        self.fl_cards = fl_cards
        self.lines: tuple[list[Card], list[Card], list[Card]] = ([], [], [])
        self.discards: list[Card] = []
        self.dealt: list[Card] = []
        self.decision: Decision | None = None
        self.surrender: bool | None = None  # declared in the surrender round
        self.claim: bool | None = None  # natural declaration, when one was asked for
        self.natural: str | None = None

    def free(self) -> tuple[int, int, int]:
        t, m, b = self.lines
        return (3 - len(t), 5 - len(m), 5 - len(b))

    def board(self) -> Board:
        t, m, b = self.lines
        return Board(tuple(t), tuple(m), tuple(b))

    def snapshot(self) -> tuple[Any, ...]:
        return (
            self.seat,
            self.hand,
            self.fl_cards,
            tuple(tuple(line) for line in self.lines),
            tuple(self.discards),
            tuple(self.dealt),
            self.decision,
            self.surrender,
            self.claim,
            self.natural,
        )


class Table:
    """One hand at one table. See the module docstring for the model.

    ``players`` is a count or the seat names (clockwise). ``button`` is the dealer seat.
    ``seed`` fixes the shuffle; without ``seed`` or ``deck`` a fresh seed is drawn from
    ``secrets`` and kept in :attr:`seed`, so every hand can be replayed. ``deck`` stacks
    the deck (cards are taken from its start in the canonical order). ``fantasyland``
    maps a seat to the number of cards of its Fantasyland deal (§9.2: 13; Pineapple 14;
    Progressive 14-17; a session computes it); ``auto_play``
    lists seats that timed out earlier in the session and are played by the engine.
    """

    def __init__(
        self,
        rules: Rules,
        players: int | Sequence[str] = 2,
        *,
        button: int = 0,
        seed: int | None = None,
        deck: Sequence[Card] | None = None,
        fantasyland: Mapping[int, int] | None = None,
        auto_play: Iterable[int] = (),
    ) -> None:
        if not isinstance(rules, Rules):
            raise TableError(f"rules must be a Rules, not {type(rules).__name__}")
        names = _seat_names(players)
        n = len(names)
        if n not in rules.player_counts:
            counts = rules.player_counts
            raise TableError(
                f"{rules.variant} is played by {counts.start} to {counts.stop - 1} players, not {n}"
            )
        if isinstance(button, bool) or not isinstance(button, int) or not 0 <= button < n:
            raise TableError(f"button must be a seat 0..{n - 1}, not {button!r}")
        self.rules = rules
        self.players: tuple[str, ...] = names
        self.button = button
        self.play_order: tuple[int, ...] = tuple((button + 1 + i) % n for i in range(n))
        self.fantasyland: dict[int, int] = _fantasyland_deal(rules, n, fantasyland)
        self._open_face = rules.is_open_face
        self._streets = rules.streets
        self._timed_out: set[int] = set()
        for seat in auto_play:
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
                raise TableError(f"auto_play seat {seat!r} is not a seat 0..{n - 1}")
            self._timed_out.add(seat)
        self.auto_play: frozenset[int] = frozenset(self._timed_out)

        if deck is not None and seed is not None:
            raise TableError("give a seed or a stacked deck, not both")
        if deck is None:
            self.seed: int | None = new_seed() if seed is None else _check_seed(seed)
            self.deck: tuple[Card, ...] = shuffled_deck(self.seed)
        else:
            self.seed = None
            self.deck = _check_deck(deck)

        self.version = 0
        self.phase: Phase = PLAY
        self._epoch = [0] * n
        self._log: list[LogEntry] = []
        self._open = 0  # boxes with an open decision
        self._queue: list[_Box] = []
        self._qpos = 0
        self.settlement: Settlement | None = None
        hands = 2 if rules.variant == "criss_cross" else 1
        self._boxes: list[_Box] = [
            _Box(seat, h, self.fantasyland.get(seat, 0)) for h in range(hands) for seat in range(n)
        ]
        self._boxes.sort(key=lambda b: (self.play_order.index(b.seat), b.hand))
        self._seat_boxes: list[list[_Box]] = [[] for _ in range(n)]
        for box in self._boxes:
            self._seat_boxes[box.seat].append(box)
        self._schedule: list[tuple[int, int]] = []  # (street index, seat)
        self._street_cards: list[tuple[Card, ...]] = []
        self._pos = 0
        self._deal()
        self._advance()

    # ------------------------------------------------------------------ dealing

    def _deal(self) -> None:
        deck = self.deck
        n = len(self.players)
        if not self._open_face:
            need = 13 * len(self._boxes)
            _need_cards(deck, need)
            per_round = 13 * n
            for h in range(len(self._boxes) // n):
                chunk = deck[h * per_round : (h + 1) * per_round]
                for i, card in enumerate(chunk):
                    self._seat_boxes[self.play_order[i % n]][h].dealt.append(card)
            for box in self._boxes:
                cards = tuple(box.dealt)
                self._open_decision(
                    box,
                    Decision(box.seat, "set", box.hand, cards, 13, 0, (3, 5, 5), 0, _mask(cards)),
                )
            return
        fl_boxes = [b for b in self._boxes if b.fl_cards]
        streets = self._streets
        normal = [s for s in self.play_order if s not in self.fantasyland]
        need = sum(b.fl_cards for b in fl_boxes) + len(normal) * sum(d for d, _ in streets)
        _need_cards(deck, need)
        pos = 0
        for box in fl_boxes:
            cards = tuple(deck[pos : pos + box.fl_cards])
            pos += box.fl_cards
            box.dealt.extend(cards)
            self._open_decision(
                box,
                Decision(
                    box.seat, "set", 0, cards, 13, len(cards) - 13, (3, 5, 5), 0, _mask(cards)
                ),
            )
        for street, (dealt, _placed) in enumerate(streets):
            for seat in normal:
                self._schedule.append((street, seat))
                self._street_cards.append(tuple(deck[pos : pos + dealt]))
                pos += dealt
        self._start_turn()

    def _start_turn(self) -> None:
        """Deal the current street's cards to the seat whose turn it is."""
        if self._pos >= len(self._schedule):
            return
        street, seat = self._schedule[self._pos]
        box = self._seat_boxes[seat][0]
        cards = self._street_cards[self._pos]
        dealt, placed = self._streets[street]
        box.dealt.extend(cards)
        mask = 0
        for card in cards:
            mask |= 1 << card
        self._open_decision(
            box,
            Decision(
                seat, "street", 0, cards, placed, dealt - placed, box.free(), street + 1, mask
            ),
        )

    def _open_decision(self, box: _Box, decision: Decision) -> None:
        box.decision = decision
        self._open += 1
        self._epoch[box.seat] = self.version

    # ------------------------------------------------------------------ reading the state

    @property
    def over(self) -> bool:
        """True once the hand is settled (showdown)."""
        return self.phase == SHOWDOWN

    @property
    def n_seats(self) -> int:
        return len(self.players)

    @property
    def to_act(self) -> tuple[int, ...]:
        """Seats that may act now, in play order (empty at showdown)."""
        if self._open == 1 and self._open_face and self._pos < len(self._schedule):
            return (self._schedule[self._pos][1],)
        seen: list[int] = []
        for box in self._boxes:
            if box.decision is not None and box.seat not in seen:
                seen.append(box.seat)
        return tuple(seen)

    @property
    def street(self) -> int:
        """The street being dealt to the non-Fantasyland seats (1-based); 0 when none is."""
        if self._open_face and self._pos < len(self._schedule):
            return self._schedule[self._pos][0] + 1
        return 0

    def decisions(self, seat: int) -> tuple[Decision, ...]:
        """What ``seat`` must decide now (empty if it is not to act)."""
        return tuple(b.decision for b in self._seat_boxes[seat] if b.decision is not None)

    @property
    def actions(self) -> tuple[Action, ...]:
        """Every action applied so far, including the engine's timeout placements."""
        return tuple(e.action for e in self._log)

    @property
    def log(self) -> tuple[LogEntry, ...]:
        """The applied actions with their ``auto`` flags."""
        return tuple(self._log)

    @property
    def timed_out(self) -> frozenset[int]:
        """Seats the engine plays for: timed out in this hand or earlier (``auto_play``)."""
        return frozenset(self._timed_out)

    def board(self, seat: int, hand: int = 0) -> Board:
        """The true board of a seat (host use; players get :meth:`view`)."""
        return self._box(seat, hand).board()

    @property
    def boards(self) -> tuple[Board, ...]:
        """All boards, one per seat (two per seat in Criss Cross: seat order, then hand)."""
        return tuple(b.board() for b in sorted(self._boxes, key=lambda b: (b.seat, b.hand)))

    def hand_name(self, seat: int, hand: int = 0) -> str:
        """The scorer's name of a seat's hand: the player, or ``"name/1"``, ``"name/2"``
        for the two Criss Cross hands."""
        name = self.players[seat]
        return f"{name}/{hand + 1}" if self.rules.variant == "criss_cross" else name

    def discards(self, seat: int, hand: int = 0) -> tuple[Card, ...]:
        return tuple(self._box(seat, hand).discards)

    def dealt(self, seat: int, hand: int = 0) -> tuple[Card, ...]:
        """Cards dealt to a seat so far, in order (host use)."""
        return tuple(self._box(seat, hand).dealt)

    @property
    def totals(self) -> dict[str, int]:
        """Points per player after showdown (empty before)."""
        if self.settlement is None:
            return {}
        return dict(self.settlement.totals)

    @property
    def fantasyland_next(self) -> dict[int, int]:
        """Seats whose board qualifies for Fantasyland next hand -> cards they would get.

        This is the rule of §9.1-9.2 and §9.4 for this hand alone; the repeat limits
        (``fl_max_consecutive``, ``fl_repeat_limit_scope``) are applied by the session.
        """
        if self.settlement is None or not self._open_face:
            return {}
        out: dict[int, int] = {}
        for seat, name in enumerate(self.players):
            cards = self.settlement.fantasyland.get(name)
            if cards:
                out[seat] = cards
        return out

    def _box(self, seat: int, hand: int = 0) -> _Box:
        boxes = self._seat_boxes[seat]
        if not 0 <= hand < len(boxes):
            raise IndexError(f"seat {seat} has no hand {hand}")
        return boxes[hand]

    def snapshot(self) -> tuple[Any, ...]:
        """The complete state as nested tuples (for tests: equal snapshots, equal states)."""
        return (
            self.version,
            self.phase,
            tuple(self._epoch),
            tuple(self._log),
            self._open,
            tuple(b.snapshot() for b in self._boxes),
            tuple((b.seat, b.hand) for b in self._queue),
            self._qpos,
            self._pos,
            tuple(sorted(self._timed_out)),
            self.settlement is not None,
        )

    def view(self, seat: int | None) -> View:
        """What ``seat`` may see (``None``: a spectator). See :mod:`.views`."""
        from chinese_poker.engine.views import build_view

        return build_view(self, seat)

    def __repr__(self) -> str:
        return (
            f"<Table {self.rules.variant} {len(self.players)} seats button={self.button}"
            f" phase={self.phase} version={self.version} to_act={self.to_act}>"
        )

    # ------------------------------------------------------------------ legality

    def check(self, action: object) -> str | None:
        """Why ``action`` is illegal now, or ``None`` if it is legal.

        >>> from chinese_poker.rules import rules_for
        >>> t = Table(rules_for("ofc"), 2, seed=3)
        >>> t.check(Timeout(0, version=5))
        'version 5 is ahead of the table (version 0)'
        >>> t.check(Place(0, version=0))
        "it is not seat 0's turn (to act: 1)"
        """
        if not isinstance(action, _ACTION_CLASSES):
            return f"not an action: {action!r}"
        if self.phase == SHOWDOWN:
            return "the hand is over"
        seat = action.seat
        n = len(self.players)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            return f"there is no seat {seat!r}; seats are 0..{n - 1}"
        version = action.version
        if version is not None:
            if version > self.version:
                return f"version {version} is ahead of the table (version {self.version})"
            if version < self._epoch[seat]:
                return (
                    f"stale action: made against version {version}, but seat {seat}'s"
                    f" situation changed at version {self._epoch[seat]}"
                    f" (the table is at version {self.version}); look at the table again"
                )
        if isinstance(action, Timeout):
            if seat in self._timed_out:
                return f"seat {seat} has already timed out; the engine plays for it"
            if not self._has_work(seat):
                return f"seat {seat} has nothing left to do in this hand"
            return None
        hand = action.hand
        boxes = self._seat_boxes[seat]
        if isinstance(hand, bool) or not isinstance(hand, int) or not 0 <= hand < len(boxes):
            return f"seat {seat} has no hand {hand!r}"
        dec = boxes[hand].decision
        if dec is None:
            if not any(b.decision for b in boxes):
                return f"it is not seat {seat}'s turn (to act: {_seats(self.to_act)})"
            return f"seat {seat}'s hand {hand + 1} has nothing to decide now"
        kind = dec.kind
        if isinstance(action, Place):
            if not (
                type(action.top) is tuple
                and type(action.middle) is tuple
                and type(action.bottom) is tuple
                and type(action.discard) is tuple
            ):
                return "the lines and the discards of a Place must be tuples of cards"
            if kind != "street" and kind != "set":
                return f"seat {seat} must decide whether to {_ask(kind)}, not place cards"
            return check_placement(dec, action)
        if isinstance(action, Surrender):
            if kind != "surrender":
                return f"seat {seat} cannot surrender now; it must {_ask(kind)}"
            if not isinstance(action.surrender, bool):
                return "surrender must be true or false"
            return None
        if kind != "natural":
            return f"seat {seat} has no natural to declare now; it must {_ask(kind)}"
        if not isinstance(action.claim, bool):
            return "claim must be true or false"
        return None

    def _has_work(self, seat: int) -> bool:
        """True if ``seat`` has a decision now or will have one later in this hand."""
        boxes = self._seat_boxes[seat]
        if any(b.decision is not None for b in boxes):
            return True
        if self._open_face:
            return any(len(b.lines[0]) + len(b.lines[1]) + len(b.lines[2]) < 13 for b in boxes)
        rules = self.rules
        if self.phase == PLAY:
            optional = rules.naturals_enabled and rules.natural_claim == "optional"
            return rules.surrender_allowed or optional
        if self.phase == NATURALS and rules.surrender_allowed:
            return True
        return any(b in boxes for b in self._queue[self._qpos :])

    def can(self, action: object) -> bool:
        """True if ``action`` is legal now."""
        return self.check(action) is None

    def legal_actions(self, seat: int) -> LegalActions:
        """The legal actions of ``seat`` now, as a lazy collection.

        Iterating yields every action (a street has at most a few hundred; a
        Fantasyland or classic set has 72,072 per 13 cards placed, times the ways to
        discard, so iterate lazily); ``len()`` counts without enumerating; ``in`` checks.
        :class:`Timeout` is a host action and is not listed. :meth:`check` is the
        authority: an action not produced here is still legal if ``check`` says so.
        """
        return LegalActions(self, seat)

    def random_action(self, seat: int, rng: random.Random) -> Action:
        """A uniformly random legal action of ``seat``, drawn without enumerating."""
        decs = [b.decision for b in self._seat_boxes[seat] if b.decision is not None]
        if not decs:
            raise IllegalActionError(
                f"seat {seat} has nothing to decide (to act: {_seats(self.to_act)})"
            )
        dec = decs[0]
        if len(decs) > 1:
            weights = [_count(d) for d in decs]
            dec = rng.choices(decs, weights)[0]
        if dec.kind == "street" or dec.kind == "set":
            return sample_placement(dec, rng, self.version)
        flag = rng.random() < 0.5
        if dec.kind == "surrender":
            return Surrender(seat, flag, dec.hand, self.version)
        return ClaimNatural(seat, flag, dec.hand, self.version)

    # ------------------------------------------------------------------ acting

    def apply(self, action: Action) -> None:
        """Apply a legal action; raise :class:`IllegalActionError` (state unchanged) if not."""
        reason = self.check(action)
        if reason is not None:
            raise IllegalActionError(reason, action)
        self._do(action, False)
        self._advance()

    def _do(self, action: Action, auto: bool) -> None:
        if action.version is None:
            action = dataclasses.replace(action, version=self.version)
        self._log.append(LogEntry(action, auto))
        self.version += 1
        seat = action.seat
        self._epoch[seat] = self.version
        if isinstance(action, Timeout):
            self._timed_out.add(seat)
            return
        box = self._seat_boxes[seat][action.hand]
        dec = box.decision
        assert dec is not None
        box.decision = None
        self._open -= 1
        if isinstance(action, Place):
            top, middle, bottom = box.lines
            top.extend(action.top)
            middle.extend(action.middle)
            bottom.extend(action.bottom)
            box.discards.extend(action.discard)
            if dec.kind == "street":
                self._pos += 1
                self._start_turn()
            return
        if isinstance(action, Surrender):
            box.surrender = action.surrender
        else:
            box.claim = action.claim
            if not action.claim:
                box.natural = None
        self._qpos += 1
        self._open_queue()

    def _advance(self) -> None:
        """Play for timed-out seats, then move to the next phase when nobody is to act."""
        if self._open and not self._timed_out:
            return
        while True:
            if self._timed_out:
                auto = next(
                    (
                        b
                        for b in self._boxes
                        if b.decision is not None and b.seat in self._timed_out
                    ),
                    None,
                )
                if auto is not None:
                    assert auto.decision is not None
                    self._do(timeout_action(auto.decision, self.version), True)
                    continue
            if self._open:
                return
            if self.phase == SHOWDOWN:
                return
            self._next_phase()

    def _next_phase(self) -> None:
        rules = self.rules
        if self.phase == PLAY and not self._open_face:
            if rules.naturals_enabled:
                for box in self._boxes:
                    natural = natural_of(rules, box.board())
                    box.natural = natural.kind if natural is not None else None
                if rules.natural_claim == "optional":
                    self._begin_queue(NATURALS, [b for b in self._boxes if b.natural])
                    return
            self.phase = NATURALS
        if self.phase == NATURALS and rules.surrender_allowed:
            self._begin_queue(SURRENDER, [b for b in self._boxes if not b.natural])
            return
        self._showdown()

    def _begin_queue(self, phase: Phase, boxes: list[_Box]) -> None:
        self.phase = phase
        self._queue = boxes
        self._qpos = 0
        self._open_queue()

    def _open_queue(self) -> None:
        if self._qpos < len(self._queue):
            box = self._queue[self._qpos]
            kind: Literal["surrender", "natural"] = (
                "surrender" if self.phase == SURRENDER else "natural"
            )
            self._open_decision(box, Decision(box.seat, kind, box.hand))

    def _showdown(self) -> None:
        rules = self.rules
        classic = not self._open_face
        hands = []
        for box in sorted(self._boxes, key=lambda b: (b.seat, b.hand)):
            name = self.players[box.seat]
            hands.append(
                Hand(
                    name=self.hand_name(box.seat, box.hand),
                    board=box.board(),
                    player=name,
                    index=box.hand,
                    surrender=bool(box.surrender),
                    in_fantasyland=box.fl_cards > 0,
                    dealt=tuple(box.dealt) if classic else None,
                    declares_natural=box.claim is not False,
                )
            )
        self.settlement = settle(rules, hands)
        self.phase = SHOWDOWN
        self._epoch = [self.version] * len(self.players)


class LegalActions:
    """The legal actions of one seat at one moment: lazy, countable, checkable.

    ``iter()`` enumerates (lazily), ``len()`` counts without enumerating, ``action in
    legal`` asks :meth:`Table.check`, and :meth:`sample` draws one uniformly.
    """

    __slots__ = ("_decisions", "_seat", "_table", "_version")

    def __init__(self, table: Table, seat: int) -> None:
        self._table = table
        self._seat = seat
        self._version = table.version
        self._decisions = table.decisions(seat) if 0 <= seat < table.n_seats else ()

    def __iter__(self) -> Iterator[Action]:
        for dec in self._decisions:
            if dec.kind == "street" or dec.kind == "set":
                yield from iter_placements(dec, self._version)
            elif dec.kind == "surrender":
                yield Surrender(self._seat, False, dec.hand, self._version)
                yield Surrender(self._seat, True, dec.hand, self._version)
            else:
                yield ClaimNatural(self._seat, True, dec.hand, self._version)
                yield ClaimNatural(self._seat, False, dec.hand, self._version)

    def __len__(self) -> int:
        return sum(_count(d) for d in self._decisions)

    def __bool__(self) -> bool:
        return bool(self._decisions)

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, _ACTION_CLASSES) or isinstance(action, Timeout):
            return False
        return action.seat == self._seat and self._table.can(action)

    def sample(self, rng: random.Random) -> Action:
        """A uniformly random member (as :meth:`Table.random_action`)."""
        return self._table.random_action(self._seat, rng)

    def __repr__(self) -> str:
        return f"<LegalActions seat {self._seat}: {len(self)} action(s)>"


# --------------------------------------------------------------------------- helpers


def _mask(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _count(dec: Decision) -> int:
    if dec.kind == "street" or dec.kind == "set":
        return count_placements(dec)
    return 2


def _ask(kind: str) -> str:
    return {
        "street": "place this street's cards",
        "set": "set its hand",
        "surrender": "play or surrender",
        "natural": "declare its natural or not",
    }[kind]


def _seats(seats: Sequence[int]) -> str:
    return ", ".join(str(s) for s in seats) or "nobody"


def _seat_names(players: int | Sequence[str]) -> tuple[str, ...]:
    if isinstance(players, bool):
        raise TableError("players must be a count or a list of names")
    if isinstance(players, int):
        if players < 1:
            raise TableError(f"a table needs players, not {players}")
        return tuple(f"P{i + 1}" for i in range(players))
    if isinstance(players, str):
        raise TableError("players must be a list of names, not one string")
    names = tuple(players)
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise TableError(f"a player name must be a non-empty string, not {name!r}")
        if "/" in name:
            raise TableError(f"a player name cannot contain '/': {name!r}")
    if len(set(names)) != len(names):
        raise TableError(f"player names must be different: {list(names)}")
    return names


def check_player_names(names: Sequence[str]) -> tuple[str, ...]:
    """The engine's rules for player names, for clients that must refuse a name before
    they store it: the names as a tuple, or TableError naming what is wrong."""
    if isinstance(names, str):
        raise TableError("players must be a list of names, not one string")
    return _seat_names(list(names))


def _check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise TableError(f"seed must be an integer >= 0, not {seed!r}")
    return seed


def _check_deck(deck: Sequence[Card]) -> tuple[Card, ...]:
    cards = tuple(deck)
    seen = 0
    for card in cards:
        if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < 52:
            raise TableError(f"deck holds {card!r}, which is not a card 0..51")
        if seen >> card & 1:
            raise TableError(f"deck holds {card_name(card)} twice")
        seen |= 1 << card
    return cards


def _need_cards(deck: Sequence[Card], need: int) -> None:
    if need > 52:
        raise TableError(f"this deal needs {need} cards; a deck has 52")
    if len(deck) < need:
        raise TableError(f"the stacked deck has {len(deck)} cards; this deal needs {need}")


def _fantasyland_sizes(rules: Rules) -> tuple[int, ...]:
    """The Fantasyland deal sizes of §9.2: 13; Pineapple 14; Progressive 14 to 17."""
    if rules.variant != "pineapple":
        return (13,)
    return (14, 15, 16, 17) if rules.fl_progressive else (14,)


def _fantasyland_deal(rules: Rules, n: int, fl: Mapping[int, int] | None) -> dict[int, int]:
    if not fl:
        return {}
    if not rules.is_open_face:
        raise TableError(f"{rules.variant} has no Fantasyland")
    if not rules.fantasyland_enabled:
        raise TableError("Fantasyland is disabled by the rules (fantasyland_enabled = no)")
    out: dict[int, int] = {}
    for seat, cards in fl.items():
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise TableError(f"Fantasyland seat {seat!r} is not a seat 0..{n - 1}")
        allowed = _fantasyland_sizes(rules)
        if isinstance(cards, bool) or not isinstance(cards, int) or cards not in allowed:
            sizes = " or ".join(str(c) for c in allowed)
            raise TableError(
                f"a Fantasyland deal in {rules.variant} has {sizes} cards, not {cards!r}"
            )
        out[seat] = cards
    return dict(sorted(out.items()))
