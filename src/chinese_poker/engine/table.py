"""The one-hand state machine: deal, turns, legality, timeouts, showdown.

A :class:`Table` plays one hand of any variant (RULES §5) for any allowed number of
seats. Seats are numbered 0..n-1 clockwise; play starts left of the button and the
button acts last. Chance (the deal) happens inside: the deck is shuffled from ``seed``
(or stacked with ``deck=`` for tests and replays) and cards are taken in the canonical
order of §5.1.

A hand runs through explicit phases, each with one *begin* step (what it deals and
which decisions it opens) and one *on-action* step (what an action changes, and what
opens next):

* ``play`` -- open-face: the Fantasyland seats set first, all at once (§9.3: "the
  first move regardless of position"); then the streets, one seat at a time in play
  order. Classic: every hand is set at the same time;
* ``naturals`` -- classic, ``natural_claim = optional``: each hand holding a natural
  declares it or not, in play order;
* ``surrender`` -- classic, ``surrender_allowed``: each hand without a natural plays
  or surrenders, in play order;
* ``showdown`` -- the hand is settled by :func:`chinese_poker.scoring.settle`.

A phase with nothing to decide is passed through at once.

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
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
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
from chinese_poker.rules import FlRepeatLimitScope, Rules
from chinese_poker.scoring import Hand, Settlement, natural_of, settle

if TYPE_CHECKING:
    from chinese_poker.engine.views import View

__all__ = [
    "HAND_SEPARATOR",
    "NAME_LIMIT",
    "NATURALS",
    "PLAY",
    "SHOWDOWN",
    "SURRENDER",
    "HandState",
    "LegalActions",
    "LogEntry",
    "Phase",
    "Table",
    "TableError",
    "check_player_names",
    "fantasyland_stays_left",
    "hand_name",
    "seat_names",
    "showable_line",
    "shuffled_deck",
    "validate_player_name",
]

Phase = Literal["play", "naturals", "surrender", "showdown"]
PLAY: Phase = "play"
NATURALS: Phase = "naturals"
SURRENDER: Phase = "surrender"
SHOWDOWN: Phase = "showdown"

#: Joins a player's name and hand number in Criss Cross (``"Ann/1"``, ``"Ann/2"``);
#: a player name may not contain it (:func:`validate_player_name`).
HAND_SEPARATOR = "/"

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


def validate_player_name(name: object) -> str:
    """``name`` if it can name a player, else :class:`TableError` saying why.

    The one rule every client uses (server create, join, rematch and profile; terminal;
    sessions): a string of at most :data:`NAME_LIMIT` characters that shows something
    (not only spaces or invisible characters), without control characters or line
    breaks (they break the lines a name is shown in), without direction overrides or
    isolates (they would turn the text after the name around), and without
    :data:`HAND_SEPARATOR`, which would make Criss Cross hand names ambiguous.

    >>> validate_player_name("Ann")
    'Ann'
    >>> validate_player_name("AC/DC")
    Traceback (most recent call last):
    ...
    chinese_poker.engine.table.TableError: a player name cannot contain '/': 'AC/DC'
    >>> try:
    ...     validate_player_name("\u200b\u200b")
    ... except TableError as exc:
    ...     print(exc)
    a player name must be a non-empty string of visible characters, not '\u200b\u200b'
    """
    if not isinstance(name, str) or not _visible(name):
        raise TableError(
            f"a player name must be a non-empty string of visible characters, not {name!r}"
        )
    if len(name) > NAME_LIMIT:
        raise TableError(f"a player name has at most {NAME_LIMIT} characters, not {len(name)}")
    if any(unicodedata.category(ch) in _BREAKING for ch in name):
        raise TableError(
            f"a player name cannot contain control characters or line breaks: {name!r}"
        )
    if any(ch in _DIRECTION_OVERRIDES for ch in name):
        raise TableError(f"a player name cannot contain direction overrides or isolates: {name!r}")
    if HAND_SEPARATOR in name:
        raise TableError(f"a player name cannot contain {HAND_SEPARATOR!r}: {name!r}")
    return name


#: The longest player name (the lobby's and the profile's field hold as many).
NAME_LIMIT = 40

#: Unicode categories a name may not hold: controls (NUL, tab, new line...), line and
#: paragraph separators, and lone surrogates (no text can hold them).
_BREAKING = frozenset({"Cc", "Zl", "Zp", "Cs"})

#: Embeddings, overrides (U+202A-U+202E) and isolates (U+2066-U+2069).
_DIRECTION_OVERRIDES = frozenset(chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A)))


#: Letters that show as nothing (Hangul fillers, the blank Braille pattern).
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _visible(name: str) -> bool:
    """Whether ``name`` shows anything: a character other than spaces and format
    characters (zero-width space and joiners, soft hyphen, marks of direction)."""
    return any(
        not ch.isspace()
        and unicodedata.category(ch) not in ("Cf", "Cc")
        and ch not in _BLANK_LETTERS
        for ch in name
    )


def showable_line(text: str) -> bool:
    """Whether ``text`` can be shown as one line the way a person typed it: the name
    rule of :func:`validate_player_name` without its length and ``/`` (it shows
    something, and holds no control character, line break, direction override or
    isolate). A chat line at a table passes it too (``server.table_chat``).

    >>> showable_line("gl hf"), showable_line("\u200b"), showable_line("a\u202eb")
    (True, False, False)
    """
    return (
        _visible(text)
        and not any(unicodedata.category(ch) in _BREAKING for ch in text)
        and not any(ch in _DIRECTION_OVERRIDES for ch in text)
    )


def hand_name(player: str, hand: int, criss_cross: bool) -> str:
    """The scorer's name of a player's hand: the player, or ``"Ann/1"``, ``"Ann/2"``
    for the two Criss Cross hands (``hand`` is 0-based).

    >>> hand_name("Ann", 0, False), hand_name("Ann", 1, True)
    ('Ann', 'Ann/2')
    """
    return f"{player}{HAND_SEPARATOR}{hand + 1}" if criss_cross else player


def fantasyland_stays_left(rules: Rules, streak: int, stays: int) -> int | None:
    """How many more Fantasyland stays (§9.4) the repeat limit allows a player now.

    ``streak`` is the number of Fantasyland hands he plays in a row, the current one
    included; ``stays`` how many of his Fantasyland hands in the session were stays,
    the current one included. ``None``: unlimited. ``fl_max_consecutive`` N allows one
    entry plus N-1 stays in a row (``consecutive``), or N-1 stays in the whole session
    (``per_session``, [000]: "you can repeat the fantasy in one game only once").
    Entries are never limited.

    >>> from chinese_poker.rules import rules_for
    >>> ofc = rules_for("ofc")
    >>> fantasyland_stays_left(ofc, 1, 0), fantasyland_stays_left(ofc, 2, 1)
    (1, 0)
    >>> once = rules_for("ofc", fl_repeat_limit_scope="per_session")
    >>> fantasyland_stays_left(once, 1, 1)  # a new entry after his one stay
    0
    """
    limit = rules.spec.scoring.fantasyland.max_consecutive
    if limit is None:
        return None
    if rules.spec.scoring.fantasyland.limit_scope == FlRepeatLimitScope.PER_SESSION:
        return max(limit - 1 - stays, 0)
    return max(limit - streak, 0)


class LogEntry(NamedTuple):
    """One applied action; ``auto`` marks placements the engine made for a timed-out seat."""

    action: Action
    auto: bool = False

    def to_dict(self) -> dict[str, Any]:
        data = self.action.to_dict()
        if self.auto:
            data["auto"] = True
        return data


@dataclass(frozen=True, slots=True)
class HandState:
    """The true state of one board in play, read-only (host use: views, histories).

    ``top``, ``middle``, ``bottom`` are the cards placed, ``fantasyland_cards`` the
    size of its Fantasyland deal (0: not in Fantasyland), ``fantasyland_streak`` and
    ``fantasyland_stays_left`` the seat's standing against the repeat limit (see
    :func:`fantasyland_stays_left`), ``decision`` what it must decide now;
    ``surrender``, ``claim`` and ``natural`` the classic declarations (None: not asked).
    """

    seat: int
    hand: int
    top: tuple[Card, ...]
    middle: tuple[Card, ...]
    bottom: tuple[Card, ...]
    discards: tuple[Card, ...]
    dealt: tuple[Card, ...]
    fantasyland_cards: int
    fantasyland_streak: int
    fantasyland_stays_left: int | None
    decision: Decision | None
    surrender: bool | None
    claim: bool | None
    natural: str | None

    @property
    def placed(self) -> int:
        return len(self.top) + len(self.middle) + len(self.bottom)

    @property
    def board(self) -> Board:
        return Board(self.top, self.middle, self.bottom)


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

    def placed(self) -> int:
        t, m, b = self.lines
        return len(t) + len(m) + len(b)

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


# One open-face street turn: (street 0-based, seat, the cards it is dealt). A plain
# tuple: a table builds up to 36 of them per hand.
_Turn = tuple[int, int, tuple[Card, ...]]


class Table:
    """One hand at one table. See the module docstring for the model.

    ``players`` is a count or the seat names (clockwise). ``button`` is the dealer seat.
    ``seed`` fixes the shuffle; without ``seed`` or ``deck`` a fresh seed is drawn from
    ``secrets`` and kept in :attr:`seed`, so every hand can be replayed. ``deck`` stacks
    the deck (cards are taken from its start in the canonical order). ``fantasyland``
    maps a seat to the number of cards of its Fantasyland deal (§9.2: 13; Pineapple 14;
    Progressive 14-17; a session computes it). ``fantasyland_streak`` maps a
    Fantasyland seat to how many Fantasyland hands it plays in a row with this one
    (default 1, an entry) and ``fantasyland_stays`` to how many of its Fantasyland hands
    in the session were stays, this one included (default: ``streak - 1``); a session
    passes both, and the views show the stays the limit still allows. ``auto_play``
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
        fantasyland_streak: Mapping[int, int] | None = None,
        fantasyland_stays: Mapping[int, int] | None = None,
        auto_play: Iterable[int] = (),
    ) -> None:
        if not isinstance(rules, Rules):
            raise TableError(f"rules must be a Rules, not {type(rules).__name__}")
        names = seat_names(players)
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
        self.fantasyland_streak: dict[int, int] = _fantasyland_counts(
            self.fantasyland, fantasyland_streak, "fantasyland_streak", {}, 1
        )
        self.fantasyland_stays: dict[int, int] = _fantasyland_counts(
            self.fantasyland,
            fantasyland_stays,
            "fantasyland_stays",
            {s: k - 1 for s, k in self.fantasyland_streak.items()},
            0,
        )
        # What the variant deals and asks, compiled once per ruleset (rules.spec).
        self._variant = rules.spec.variant
        self._naturals = rules.spec.scoring.naturals  # None: no naturals in this game
        self._open_face = self._variant.open_face
        self._criss_cross = self._variant.criss_cross
        self._streets = self._variant.streets
        self._timed_out: set[int] = set(_check_auto_play(auto_play, n))
        self.auto_play: frozenset[int] = frozenset(self._timed_out)
        self.seed: int | None
        self.deck: tuple[Card, ...]
        self.seed, self.deck = _seed_and_deck(seed, deck)

        self.version = 0
        self.phase: Phase = PLAY
        self._epoch = [0] * n
        self._log: list[LogEntry] = []
        self.settlement: Settlement | None = None
        self._settlement_data: dict[str, Any] | None = None
        hands = self._variant.hands_per_seat
        self._boxes: list[_Box] = [
            _Box(seat, h, self.fantasyland.get(seat, 0)) for h in range(hands) for seat in range(n)
        ]
        self._boxes.sort(key=lambda b: (self.play_order.index(b.seat), b.hand))
        self._seat_boxes: list[list[_Box]] = [[] for _ in range(n)]
        for box in self._boxes:
            self._seat_boxes[box.seat].append(box)
        # The cursors of the phases: decisions open now; the open-face street turns
        # (dealt from the deck in the canonical order, played from _turn on); the
        # declaration queue of the naturals or surrender phase.
        self._open = 0
        self._turns: list[_Turn] = []
        self._turn = 0
        self._queue: list[_Box] = []
        self._qpos = 0
        self._begin_play()
        self._advance()

    # ------------------------------------------------------------------ phase: play

    def _begin_play(self) -> None:
        """Deal, and open the first decisions: the sets (Fantasyland or classic) at once."""
        if not self._open_face:
            self._deal_classic()
            return
        deck = self.deck
        fl_boxes = [b for b in self._boxes if b.fl_cards]
        normal = [s for s in self.play_order if s not in self.fantasyland]
        need = sum(b.fl_cards for b in fl_boxes) + len(normal) * sum(d for d, _ in self._streets)
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
        for street, (dealt, _placed) in enumerate(self._streets):
            for seat in normal:
                self._turns.append((street, seat, tuple(deck[pos : pos + dealt])))
                pos += dealt
        if not fl_boxes:
            self._begin_turn()

    def _deal_classic(self) -> None:
        deck = self.deck
        n = len(self.players)
        _need_cards(deck, 13 * len(self._boxes))
        per_round = 13 * n
        for h in range(len(self._boxes) // n):
            chunk = deck[h * per_round : (h + 1) * per_round]
            for i, card in enumerate(chunk):
                self._seat_boxes[self.play_order[i % n]][h].dealt.append(card)
        for box in self._boxes:
            cards = tuple(box.dealt)
            self._open_decision(
                box, Decision(box.seat, "set", box.hand, cards, 13, 0, (3, 5, 5), 0, _mask(cards))
            )

    def _begin_turn(self) -> None:
        """Deal the current street's cards to the seat whose turn it is."""
        if self._turn >= len(self._turns):
            return
        street, seat, cards = self._turns[self._turn]
        box = self._seat_boxes[seat][0]
        dealt, placed = self._streets[street]
        box.dealt.extend(cards)
        self._open_decision(
            box,
            Decision(
                seat, "street", 0, cards, placed, dealt - placed, box.free(), street + 1,
                _mask(cards),
            ),
        )  # fmt: skip

    def _on_play(self, box: _Box, dec: Decision, action: Place) -> None:
        top, middle, bottom = box.lines
        top.extend(action.top)
        middle.extend(action.middle)
        bottom.extend(action.bottom)
        box.discards.extend(action.discard)
        if not self._open_face:
            return
        if dec.kind == "street":
            self._turn += 1
            self._begin_turn()
        elif self._open == 0:
            # The last Fantasyland seat has set: the streets begin (§9.3).
            self._begin_turn()

    # ------------------------------------------------------------------ phases: declarations

    def _begin_naturals(self) -> None:
        """Classic: find each hand's natural; under optional claims ask its holder."""
        self.phase = NATURALS
        if self._naturals is None:
            return
        for box in self._boxes:
            natural = natural_of(self.rules, box.board())
            box.natural = natural.kind if natural is not None else None
        if self._naturals.optional_claim:
            self._begin_queue([b for b in self._boxes if b.natural])

    def _begin_surrender(self) -> None:
        """Classic with surrender: each hand without a natural plays or surrenders."""
        self.phase = SURRENDER
        if self._variant.has_surrender:
            self._begin_queue([b for b in self._boxes if not b.natural])

    def _on_declaration(self, box: _Box, action: Surrender | ClaimNatural) -> None:
        if isinstance(action, Surrender):
            box.surrender = action.surrender
        else:
            box.claim = action.claim
            if not action.claim:
                box.natural = None
        self._qpos += 1
        self._open_queue()

    def _begin_queue(self, boxes: list[_Box]) -> None:
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

    # ------------------------------------------------------------------ phase: showdown

    def _begin_showdown(self) -> None:
        classic = not self._open_face
        hands = []
        for box in sorted(self._boxes, key=lambda b: (b.seat, b.hand)):
            hands.append(
                Hand(
                    name=self.hand_name(box.seat, box.hand),
                    board=box.board(),
                    player=self.players[box.seat],
                    index=box.hand,
                    surrender=bool(box.surrender),
                    in_fantasyland=box.fl_cards > 0,
                    dealt=tuple(box.dealt) if classic else None,
                    declares_natural=box.claim is not False,
                )
            )
        self.settlement = settle(self.rules, hands)
        self.phase = SHOWDOWN
        self._epoch = [self.version] * len(self.players)

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
        if self._open == 1 and self._turn < len(self._turns):
            seat = self._turns[self._turn][1]  # the street turn: the common case
            if self._seat_boxes[seat][0].decision is not None:
                return (seat,)
        seen: list[int] = []
        for box in self._boxes:
            if box.decision is not None and box.seat not in seen:
                seen.append(box.seat)
        return tuple(seen)

    @property
    def street(self) -> int:
        """The street being dealt to the non-Fantasyland seats (1-based); 0 when none is
        (classic, and while the Fantasyland seats set before the first street)."""
        if self._turn < len(self._turns):
            street, seat, _cards = self._turns[self._turn]
            if self._seat_boxes[seat][0].decision is not None:
                return street + 1
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

    def hand_states(self) -> tuple[HandState, ...]:
        """The true state of every board, seat order then hand (host use; read-only)."""
        return tuple(self._state(b) for b in sorted(self._boxes, key=lambda b: (b.seat, b.hand)))

    def hand_state(self, seat: int, hand: int = 0) -> HandState:
        """The true state of one board (host use; read-only)."""
        return self._state(self._box(seat, hand))

    def _state(self, box: _Box) -> HandState:
        t, m, b = box.lines
        seat = box.seat
        streak = self.fantasyland_streak.get(seat, 0)
        return HandState(
            seat=seat,
            hand=box.hand,
            top=tuple(t),
            middle=tuple(m),
            bottom=tuple(b),
            discards=tuple(box.discards),
            dealt=tuple(box.dealt),
            fantasyland_cards=box.fl_cards,
            fantasyland_streak=streak,
            fantasyland_stays_left=self.fantasyland_stays_left(seat),
            decision=box.decision,
            surrender=box.surrender,
            claim=box.claim,
            natural=box.natural,
        )

    def fantasyland_stays_left(self, seat: int) -> int | None:
        """How many more Fantasyland stays the limit allows ``seat`` (0 if it is not in
        Fantasyland; None: unlimited). A stay earned now counts only if this is not 0."""
        streak = self.fantasyland_streak.get(seat, 0)
        if not streak:
            return 0
        return fantasyland_stays_left(self.rules, streak, self.fantasyland_stays[seat])

    def hand_name(self, seat: int, hand: int = 0) -> str:
        """The scorer's name of a seat's hand: the player, or ``"name/1"``, ``"name/2"``
        for the two Criss Cross hands (see :func:`hand_name`)."""
        return hand_name(self.players[seat], hand, self._criss_cross)

    def discards(self, seat: int, hand: int = 0) -> tuple[Card, ...]:
        return tuple(self._box(seat, hand).discards)

    def dealt(self, seat: int, hand: int = 0) -> tuple[Card, ...]:
        """Cards dealt to a seat so far, in order (host use)."""
        return tuple(self._box(seat, hand).dealt)

    def settlement_data(self) -> dict[str, Any] | None:
        """The settlement's JSON form (``Settlement.to_dict()``), made once per hand:
        every view of the showdown shows it, and it is most of a showdown view's cost.
        Shared by those views; not to be changed."""
        if self._settlement_data is None and self.settlement is not None:
            self._settlement_data = self.settlement.to_dict()
        return self._settlement_data

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
        (``fl_max_consecutive``, ``fl_repeat_limit_scope``) are applied by the session
        from :meth:`fantasyland_stays_left`.
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
            self._turn,
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
        reason = self._check_seat_and_version(action)
        if reason is not None:
            return reason
        if isinstance(action, Timeout):
            return self._check_timeout(action.seat)
        seat, hand = action.seat, action.hand
        boxes = self._seat_boxes[seat]
        if isinstance(hand, bool) or not isinstance(hand, int) or not 0 <= hand < len(boxes):
            return f"seat {seat} has no hand {hand!r}"
        dec = boxes[hand].decision
        if dec is None:
            if not any(b.decision for b in boxes):
                return f"it is not seat {seat}'s turn (to act: {_seats(self.to_act)})"
            return f"seat {seat}'s hand {hand + 1} has nothing to decide now"
        if isinstance(action, Place):
            return _check_place(dec, action)
        if isinstance(action, Surrender):
            return _check_flag(dec, "surrender", action.surrender)
        return _check_flag(dec, "natural", action.claim)

    def _check_seat_and_version(self, action: Action) -> str | None:
        if self.phase == SHOWDOWN:
            return "the hand is over"
        seat = action.seat
        n = len(self.players)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            return f"there is no seat {seat!r}; seats are 0..{n - 1}"
        version = action.version
        if version is None:
            return None
        if version > self.version:
            return f"version {version} is ahead of the table (version {self.version})"
        if version < self._epoch[seat]:
            return (
                f"stale action: made against version {version}, but seat {seat}'s"
                f" situation changed at version {self._epoch[seat]}"
                f" (the table is at version {self.version}); look at the table again"
            )
        return None

    def _check_timeout(self, seat: int) -> str | None:
        if seat in self._timed_out:
            return f"seat {seat} has already timed out; the engine plays for it"
        if not self._has_work(seat):
            return f"seat {seat} has nothing left to do in this hand"
        return None

    def _has_work(self, seat: int) -> bool:
        """True if ``seat`` has a decision now or will have one later in this hand."""
        boxes = self._seat_boxes[seat]
        if any(b.decision is not None for b in boxes):
            return True
        if self._open_face:
            return any(b.placed() < 13 for b in boxes)
        surrender = self._variant.has_surrender
        if self.phase == PLAY:
            optional = self._naturals is not None and self._naturals.optional_claim
            return surrender or optional
        if self.phase == NATURALS and surrender:
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
        """Record ``action`` and hand it to the current phase's on-action step."""
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
            self._on_play(box, dec, action)
        else:
            self._on_declaration(box, action)

    def _advance(self) -> None:
        """Play for timed-out seats, then begin the next phase while nobody is to act."""
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
            if self._open or self.phase == SHOWDOWN:
                return
            self._next_phase()

    def _next_phase(self) -> None:
        """Begin the phase after the current one (play, naturals, surrender, showdown)."""
        if self.phase == PLAY:
            self._begin_naturals()
        elif self.phase == NATURALS:
            self._begin_surrender()
        else:
            self._begin_showdown()


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


def _check_place(dec: Decision, action: Place) -> str | None:
    if not (
        type(action.top) is tuple
        and type(action.middle) is tuple
        and type(action.bottom) is tuple
        and type(action.discard) is tuple
    ):
        return "the lines and the discards of a Place must be tuples of cards"
    if dec.kind != "street" and dec.kind != "set":
        return f"seat {dec.seat} must decide whether to {_ask(dec.kind)}, not place cards"
    return check_placement(dec, action)


def _check_flag(dec: Decision, kind: Literal["surrender", "natural"], flag: object) -> str | None:
    """A Surrender (``kind`` surrender) or a ClaimNatural (``kind`` natural) against ``dec``."""
    if dec.kind != kind:
        if kind == "surrender":
            return f"seat {dec.seat} cannot surrender now; it must {_ask(dec.kind)}"
        return f"seat {dec.seat} has no natural to declare now; it must {_ask(dec.kind)}"
    if not isinstance(flag, bool):
        return f"{'surrender' if kind == 'surrender' else 'claim'} must be true or false"
    return None


def _ask(kind: str) -> str:
    return {
        "street": "place this street's cards",
        "set": "set its hand",
        "surrender": "play or surrender",
        "natural": "declare its natural or not",
    }[kind]


def _seats(seats: Sequence[int]) -> str:
    return ", ".join(str(s) for s in seats) or "nobody"


def seat_names(players: int | Sequence[str]) -> tuple[str, ...]:
    """A table's seat names from a count (``P1``, ``P2``, ...) or a list of names,
    checked by the engine's rules for names; TableError naming what is wrong."""
    if isinstance(players, bool):
        raise TableError("players must be a count or a list of names")
    if isinstance(players, int):
        if players < 1:
            raise TableError(f"a table needs players, not {players}")
        return tuple(f"P{i + 1}" for i in range(players))
    if isinstance(players, str):
        raise TableError("players must be a list of names, not one string")
    names = tuple(validate_player_name(name) for name in players)
    if len(set(names)) != len(names):
        raise TableError(f"player names must be different: {list(names)}")
    return names


def _check_auto_play(seats: Iterable[int], n: int) -> list[int]:
    out = list(seats)
    for seat in out:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise TableError(f"auto_play seat {seat!r} is not a seat 0..{n - 1}")
    return out


def _seed_and_deck(
    seed: int | None, deck: Sequence[Card] | None
) -> tuple[int | None, tuple[Card, ...]]:
    """The hand's seed (None for a stacked deck) and its deck order."""
    if deck is not None and seed is not None:
        raise TableError("give a seed or a stacked deck, not both")
    if deck is not None:
        return None, _check_deck(deck)
    checked = new_seed() if seed is None else _check_seed(seed)
    return checked, shuffled_deck(checked)


def check_player_names(names: Sequence[str]) -> tuple[str, ...]:
    """The engine's rules for player names, for clients that must refuse a name before
    they store it: the names as a tuple, or TableError naming what is wrong."""
    if isinstance(names, str):
        raise TableError("players must be a list of names, not one string")
    return seat_names(list(names))


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


def _fantasyland_deal(rules: Rules, n: int, fl: Mapping[int, int] | None) -> dict[int, int]:
    if not fl:
        return {}
    if not rules.spec.variant.open_face:
        raise TableError(f"{rules.variant} has no Fantasyland")
    if not rules.spec.scoring.fantasyland.enabled:
        raise TableError("Fantasyland is disabled by the rules (fantasyland_enabled = no)")
    allowed = rules.spec.variant.fantasyland_sizes  # §9.2: 13; Pineapple 14; Progressive 14-17
    out: dict[int, int] = {}
    for seat, cards in fl.items():
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise TableError(f"Fantasyland seat {seat!r} is not a seat 0..{n - 1}")
        if isinstance(cards, bool) or not isinstance(cards, int) or cards not in allowed:
            sizes = " or ".join(str(c) for c in allowed)
            raise TableError(
                f"a Fantasyland deal in {rules.variant} has {sizes} cards, not {cards!r}"
            )
        out[seat] = cards
    return dict(sorted(out.items()))


def _fantasyland_counts(
    fl: Mapping[int, int],
    given: Mapping[int, int] | None,
    what: str,
    default: Mapping[int, int],
    minimum: int,
) -> dict[int, int]:
    """Per Fantasyland seat, a count (``fantasyland_streak`` or ``fantasyland_stays``)."""
    given = dict(given or {})
    for seat in given:
        if seat not in fl:
            raise TableError(f"{what}: seat {seat!r} plays no Fantasyland deal in this hand")
    out: dict[int, int] = {}
    for seat in fl:
        value = given.get(seat, default.get(seat, minimum))
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise TableError(
                f"{what} of seat {seat} must be an integer >= {minimum}, not {value!r}"
            )
        out[seat] = value
        floor = default.get(seat)
        if floor is not None and value < floor:
            raise TableError(
                f"{what} of seat {seat}: its Fantasyland streak holds {floor} stay(s)"
                f" already, not {value}"
            )
    return out
