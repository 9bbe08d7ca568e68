"""The live table as a pure object: the engine session, its chairs and the seat map.

:class:`TableGame` does no I/O (no database, no sockets, no event loop): it is rebuilt
from a :class:`~chinese_poker.server.db.StoredTable`, and :meth:`TableGame.submit` turns
one action into either a :class:`Refusal` (nothing changed) or an :class:`Applied` (the
engine's new state and the rows to store). The caller stores those rows before anything
is shown to anybody (``server/commit.py``), so the pure object can be tested alone.

**Chairs and engine seats.** A person (or bot) sits in a *chair* for the whole session
(the lobby's seat number, the seat token's seat). The engine deals each hand only to
``session.next_participants()`` and numbers them 0..n-1, so after a tournament
elimination, or when a timed-out player sits out, chair numbers and engine seats differ.
The one mapping between them, :attr:`TableGame.in_hand`, is rebuilt from
``table.players`` every time a hand is dealt; everything that talks to the engine goes
through it, and a chair that is not dealt in is a spectator of that hand.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chinese_poker.cards import Card
from chinese_poker.engine import (
    Action,
    LogEntry,
    Session,
    SessionError,
    Table,
    TableError,
    Tournament,
)
from chinese_poker.engine.history import HandToReplay, ReplayClock, replay_hand
from chinese_poker.engine.table import NAME_LIMIT, check_player_names
from chinese_poker.rules import Rules, rules_for
from chinese_poker.server.bot_names import bot_name
from chinese_poker.server.db import HandEnd, NewHand, Store, StoredSeat, StoredTable
from chinese_poker.server.fairness import (
    Commitment,
    ContributionRefused,
    HandRandomness,
    new_commitment,
    rules_digest,
)
from chinese_poker.server.messages import CreateTable, ErrorCode, SeatSpec, TournamentSpec

__all__ = [
    "Applied",
    "Chair",
    "Clock",
    "HandState",
    "Plan",
    "Refusal",
    "TableGame",
    "check_name",
    "default_name",
    "plan_table",
    "shared_rules",
]


Clock = ReplayClock
"""Wall-clock seconds for tournament levels, pinned to stored times during rebuilds."""


def deck_for(deck: tuple[Card, ...], number: int) -> tuple[Card, ...]:
    """The deck of hand ``number``: its fair shuffle (a hook tests may replace)."""
    return deck


_RULES: dict[str, Rules] = {}


def shared_rules(data: Mapping[str, Any]) -> Rules:
    """``Rules.from_dict(data)``, one object per distinct ruleset (Rules are immutable).

    Tables with the same rules share one object, so the engine's per-rules caches
    (scoring plans, the settlement's rules description; keyed on the object) stay warm
    with hundreds of tables instead of being rebuilt hand after hand.
    """
    key = json.dumps(data, sort_keys=True)
    rules = _RULES.get(key)
    if rules is None:
        if len(_RULES) >= 1024:
            _RULES.clear()
        rules = _RULES[key] = Rules.from_dict(data)
    return rules


@dataclass
class Chair:
    """One chair of the table: who sits in it for the whole session."""

    seat: int
    kind: str
    name: str | None
    bot: str | None
    level: int | None
    token_hash: str | None
    connected: int = 0

    @property
    def taken(self) -> bool:
        return self.kind == "bot" or self.token_hash is not None

    @property
    def player(self) -> str:
        """The name the engine knows him by (an unnamed chair: :func:`default_name`)."""
        return self.name or default_name(self.seat)


@dataclass
class HandState:
    fair: HandRandomness
    started_at: float | None = None
    finished_at: float | None = None
    record: dict[str, Any] | None = None

    @property
    def commit(self) -> Commitment:
        return self.fair.commit


@dataclass(frozen=True)
class Refusal:
    """An action that was not applied (nothing changed): the error code and why."""

    code: ErrorCode
    message: str


@dataclass(frozen=True)
class Applied:
    """An action the engine accepted: what to store, and what it did.

    ``rows`` are the stored forms (``to_dict()``) of the non-automatic log entries,
    numbered from ``first_seq``; ``end`` is the hand's end (history line, the next
    hand's commitment, the status) when the action finished the hand."""

    hand: int
    entries: tuple[LogEntry, ...]
    rows: tuple[dict[str, Any], ...]
    first_seq: int
    end: HandEnd | None
    over: bool = False
    """The action ended the hand (settled in ``end``, or left to the caller)."""

    @property
    def finished(self) -> bool:
        return self.end is not None


def default_name(seat: int) -> str:
    """The name of a person who gives none: "Player N" for chair N - 1."""
    return f"Player {seat + 1}"


def unique_name(name: str, taken: Collection[str]) -> str:
    """``name``, or if another chair has it, ``name (2)``, ``name (3)``, ... (the one
    rule for every chair: named or not, bot or person, at creation or at a join), then
    checked by the engine's name rule."""
    base, k = name, 2
    while name in taken:
        suffix = f" ({k})"
        name = base[: NAME_LIMIT - len(suffix)] + suffix  # a long name still fits the limit
        k += 1
    return check_name(name)


def check_name(name: str) -> str:
    """A player name the engine accepts, or ValueError saying why (the engine's rule)."""
    try:
        return check_player_names([name])[0]
    except TableError as exc:
        raise ValueError(str(exc)) from None


@dataclass(frozen=True)
class Plan:
    """A validated create request: its rules and chairs (nothing stored yet)."""

    rules: Rules
    seats: tuple[StoredSeat, ...]


def _new_session(
    spec: CreateTable, rules: Rules, names: Sequence[str], seed: int, button: int, clock: Clock
) -> Session:
    continuous = spec.hands == "continuous"
    if spec.mode == "tournament":
        t = spec.tournament or TournamentSpec()
        return Tournament(
            rules,
            names,
            seed=seed,
            button=button,
            stacks=t.stacks,
            level_hands=t.level_hands,
            clock=clock,
            continuous=continuous,
        )
    return Session(rules, names, seed=seed, button=button, clock=clock, continuous=continuous)


BotCheck = Callable[[str, int | None], None]
"""``check_bot(name, level)``: ValueError for an unknown bot or a level it does not take."""


def plan_table(spec: CreateTable, check_bot: BotCheck) -> Plan:
    """Validate a create request with the engine's own rules; ValueError naming the fault.

    The names, the seat count, the button and the tournament stacks are checked by
    building the very session the table will play (with the unnamed human chairs under
    the names they get if their player gives none), so nothing is stored that the
    engine would refuse on the first deal or on recovery. ``check_bot(name, level)``
    raises ValueError for an unknown bot or level.
    """
    rules = _plan_rules(spec)
    used: set[str] = set()
    seats = [_plan_seat(i, s, check_bot, used) for i, s in enumerate(spec.seats)]
    if spec.mode == "tournament" and spec.tournament and spec.tournament.stacks:
        unknown = sorted(set(spec.tournament.stacks) - used)
        if unknown:
            raise ValueError(f"stacks name unknown players {unknown}; name the seats to set stacks")
    names = [_session_name(chair, used) for chair in seats]
    try:
        _new_session(spec, rules, names, 0, spec.button, Clock())
    except (SessionError, TableError) as exc:
        raise ValueError(str(exc)) from None
    return Plan(rules, tuple(seats))


def _plan_rules(spec: CreateTable) -> Rules:
    """The request's rules, checked against its seat count, button and mode."""
    options = dict(spec.options)
    if spec.time_limit is not None:
        options["time_limit"] = spec.time_limit
    rules = rules_for(spec.preset, **options)
    n = len(spec.seats)
    if n not in rules.player_counts:
        counts = rules.player_counts
        raise ValueError(
            f"{rules.variant} is played by {counts.start} to {counts.stop - 1} players, not {n}"
        )
    if spec.button >= n:
        raise ValueError(f"button must be a seat 0..{n - 1}")
    if spec.mode != "tournament" and spec.tournament is not None:
        raise ValueError("tournament settings need mode 'tournament'")
    return rules


def _plan_seat(i: int, s: SeatSpec, check_bot: BotCheck, used: set[str]) -> StoredSeat:
    """Chair ``i`` of the request, its name (if it has one) made unique and added to
    ``used``."""
    if s.kind == "bot":
        if not s.bot:
            raise ValueError(f"seat {i}: a bot seat needs a bot name")
        check_bot(s.bot, s.level)
        name = s.name if s.name is not None else bot_name(s.bot, s.level)
    else:
        if s.bot is not None or s.level is not None:
            raise ValueError(f"seat {i}: bot and level are for bot seats")
        name = s.name or ""
    if name:
        try:
            name = unique_name(check_name(name), used)
        except ValueError as exc:
            raise ValueError(f"seat {i}: {exc}") from None
        used.add(name)
    return StoredSeat(i, s.kind, name or None, s.bot, s.level, None, None)


def _session_name(chair: StoredSeat, used: set[str]) -> str:
    """The chair's name in the session: an unnamed human chair's is the one his join
    will give him (added to ``used``)."""
    if chair.name is not None:
        return chair.name
    try:
        name = unique_name(default_name(chair.seat), used)
    except ValueError as exc:
        raise ValueError(f"seat {chair.seat}: {exc}") from None
    used.add(name)
    return name


class TableGame:
    """One table's game state: chairs, the session, the hands' commitments, the seat map.

    Pure: every method either reads, or changes memory only. Writes to store are handed
    back (:class:`Applied`, :meth:`hand_one`, :meth:`next_commitment_due`) for the
    caller to store before it shows anything.
    """

    def __init__(self, stored: StoredTable) -> None:
        self.id = stored.id
        self.name = stored.name
        self.created_at = stored.created_at
        self.spec = CreateTable.model_validate(stored.config["request"])
        self.preset: str = stored.config["preset"]
        self.rules = shared_rules(stored.config["rules"])
        self.join_code_hash = stored.join_code_hash
        self.session_seed = int(stored.session_seed)
        self.start_button = stored.start_button
        self.started_at = stored.started_at
        self.status = stored.status
        self.stored_status = stored.status
        """The status as stored (the rebuild may find the session over before it is)."""
        self.chairs = [
            Chair(s.seat, s.kind, s.name, s.bot, s.level, s.token_hash) for s in stored.seats
        ]
        self.clock = Clock()
        self.rules_digest = rules_digest(self.rules)
        # A bot match's table (server.bot_matches): its hands are the session's own
        # seeded decks, so both seatings of a duplicate deal get the same cards.
        self.match: dict[str, Any] | None = stored.config.get("match")
        self.session: Session | None = None
        self.hands: dict[int, HandState] = {}
        self.hand_no = 0
        self.stored_seq = 0
        self.in_hand: tuple[int, ...] = ()
        """The chair of each engine seat of the current hand."""
        self._engine_of: dict[int, int] = {}
        # The live state no action row holds (stored in tables.live, docs/server.md
        # "Leavers and clocks"): time banks left per chair, the chairs a stand-in bot
        # plays, who ended a continuous session by leaving, the table of a rematch.
        live = stored.live
        self.banks: dict[int, float] = {int(k): float(v) for k, v in live.get("banks", {}).items()}
        self.stand_ins: set[int] = {int(c) for c in live.get("stand_in", [])}
        self.left: str | None = live.get("left")
        self.rematch: str | None = live.get("rematch")
        # The cards each chair staged but has not confirmed (timeout_filler.Staging's
        # stored form): a timeout keeps them, on whichever process plays the table.
        self.staged: dict[int, dict[str, Any]] = {
            int(k): v for k, v in live.get("staged", {}).items()
        }
        # The table's last chat lines (server.table_chat), stored only while it is played.
        self.chat: list[dict[str, Any]] = []
        if stored.status != "finished":
            self.chat = list(live.get("chat", []))
        self._rebuild(stored)

    def live_state(self) -> dict[str, Any]:
        """What :attr:`banks`, :attr:`stand_ins`, :attr:`left`, :attr:`rematch` and
        :attr:`staged` store."""
        data: dict[str, Any] = {
            "banks": {str(k): round(v, 3) for k, v in sorted(self.banks.items())},
            "stand_in": sorted(self.stand_ins),
        }
        if self.left is not None:
            data["left"] = self.left
        if self.rematch is not None:
            data["rematch"] = self.rematch
        if self.staged:
            data["staged"] = {str(k): v for k, v in sorted(self.staged.items())}
        if self.chat and self.status != "finished":
            data["chat"] = self.chat
        return data

    # ------------------------------------------------------------------ rebuilding

    def _session(self, at: float) -> Session:
        self.clock.fixed = at
        try:
            return _new_session(
                self.spec,
                self.rules,
                [c.player for c in self.chairs],
                self.session_seed,
                self.start_button,
                self.clock,
            )
        finally:
            self.clock.fixed = None

    def _rebuild(self, stored: StoredTable) -> None:
        """Replay the stored setup and actions through the engine (startup, recovery).

        Raises whatever the engine raises for a stored table it refuses; the manager
        quarantines such a table."""
        for h in stored.hands:
            commit = Commitment(self.id, h.number, self.rules_digest, h.seed, h.salt, h.commitment)
            self.hands[h.number] = HandState(
                HandRandomness(commit, dict(h.contributions or {})),
                h.started_at,
                h.finished_at,
                h.record,
            )
        if self.started_at is None:
            return
        session = self.session = self._session(self.started_at)
        for h in stored.hands:
            if h.started_at is None:
                break
            where = f"table {self.id} hand {h.number}"
            ended = h.record is not None and (h.record.get("session") or {}).get("ended") is True
            todo = HandToReplay(h.actions, self.close(h.number), h.finished_at, where, ended)
            _table, result = replay_hand(session, todo, self.clock)
            self.hand_no = h.number
            self.stored_seq = len(h.actions)
            self._map_seats()
            hand = self.hands[h.number]
            if result is not None and hand.record is None:
                # finished in memory but not stored: store it now
                hand.record = self._record(result.record, h.number)
        if self.left is not None:
            session.end()  # a leave: after the running hand, or at once between hands
        self.status = "finished" if session.over else "playing"

    # ------------------------------------------------------------------ the seat map

    def _map_seats(self) -> None:
        """Rebuild chair <-> engine seat from the engine's players of this hand."""
        table = self.table
        if table is None:
            self.in_hand, self._engine_of = (), {}
            return
        chair_of = {c.player: c.seat for c in self.chairs}
        self.in_hand = tuple(chair_of[name] for name in table.players)
        self._engine_of = {chair: seat for seat, chair in enumerate(self.in_hand)}

    def engine_seat(self, chair: int | None) -> int | None:
        """The engine seat of ``chair`` in the current hand (None: not dealt in)."""
        if chair is None:
            return None
        return self._engine_of.get(chair)

    def absence(self, chair: int) -> str:
        """Why ``chair`` has no seat in the current hand (for its error messages)."""
        session = self.session
        if session is None or self.table is None:
            return "no hand has been dealt yet"
        name = self.chairs[chair].player
        if self.left is not None:
            return f"the session is ending: {self.left} has left"
        if name in session.ledger.out:
            return f"{name} is out of the tournament and watches the table"
        if name in session.timed_out:
            return f"{name} timed out and sits out the remaining hands"
        return f"{name} is not dealt in this hand"

    # ------------------------------------------------------------------ state

    @property
    def table(self) -> Table | None:
        return self.session.table if self.session is not None else None

    @property
    def playing(self) -> bool:
        """A hand is running and accepts actions."""
        table = self.table
        return table is not None and not table.over and self.status == "playing"

    def commitment(self, number: int) -> str | None:
        h = self.hands.get(number)
        return h.commit.commitment if h is not None else None

    def _record(self, record: Mapping[str, Any], number: int) -> dict[str, Any]:
        data = dict(record)
        if self.match is not None:
            # The record's hand seed gives its deck; no commitment was used for it.
            data["match"] = {key: self.match[key] for key in ("id", "deal", "seating")}
        else:
            data["fairness"] = self.hands[number].fair.reveal()
        return data

    def bot_seed(self, chair: int) -> int | None:
        """The seed a bot match gives the bot of ``chair`` (None: not a match table)."""
        return None if self.match is None else int(self.match["bot_seeds"][chair])

    # ------------------------------------------------------------------ fair shuffles

    def _dealt_players(self) -> list[str]:
        """Who the next deal goes to (all chairs before the session begins)."""
        session = self.session
        if session is None:
            return [c.player for c in self.chairs]
        return list(session.next_participants())

    def close(self, number: int) -> tuple[Card, ...] | None:
        """Hand ``number`` is being dealt: fix its contributions; its deck (None: the
        session's seeded deck, at a bot match's table)."""
        bots = {c.player for c in self.chairs if c.kind == "bot"}
        deck = self.hands[number].fair.close(self._dealt_players(), bots)
        return None if self.match is not None else deck_for(deck, number)

    def all_contributed(self, number: int) -> bool:
        """Every person to be dealt into hand ``number`` has sent his value for it."""
        humans = {c.player for c in self.chairs if c.kind == "human"}
        received = self.hands[number].fair.received
        return all(p in received for p in self._dealt_players() if p in humans)

    def contribute(self, chair: int, number: int, value: str) -> Refusal | None:
        """Take the value of the person in ``chair`` for hand ``number`` (not dealt yet);
        a refusal changes nothing. The values are stored with the hand's deal."""
        hand = self.hands.get(number)
        if hand is None:
            return Refusal(ErrorCode.NO_HAND, f"hand {number} has no commitment yet")
        try:
            hand.fair.offer(self.chairs[chair].player, value, self._dealt_players())
        except ContributionRefused as exc:
            return Refusal(ErrorCode(exc.code), str(exc))
        return None

    def received(self, number: int) -> dict[str, str]:
        """The values a deal of hand ``number`` uses (stored with its start)."""
        return dict(self.hands[number].fair.received)

    # ------------------------------------------------------------------ seating

    def free_human_seats(self) -> list[int]:
        return [c.seat for c in self.chairs if c.kind == "human" and c.token_hash is None]

    def seat_name(self, seat: int | None, wanted: str) -> tuple[int, str]:
        """The chair and the (engine-valid, unique) name a join would get; LookupError
        when no such free seat, ValueError when the engine refuses the name."""
        free = self.free_human_seats()
        if seat is None:
            if not free:
                raise LookupError("no free seat at this table")
            seat = free[0]
        elif seat not in free:
            raise LookupError(f"seat {seat} is not a free human seat")
        # Only an empty name is no name: "  " is refused as the profile refuses it.
        base = check_name(wanted.strip()) if wanted else default_name(seat)
        taken = {c.player for c in self.chairs if c.seat != seat and (c.taken or c.name)}
        return seat, unique_name(base, taken)

    def seated(self, seat: int, name: str, token_hash: str) -> None:
        """Record a stored claim."""
        chair = self.chairs[seat]
        chair.name, chair.token_hash = name, token_hash

    # ------------------------------------------------------------------ dealing

    def begin_session(self, now: float, first: Commitment | None) -> None:
        """Every chair is taken and hand 1's commitment is stored (``first``: it was
        made only now, for a table stored before commitments came with the opening):
        the session begins."""
        self.session = self._session(now)
        self.started_at = now
        self.status = "playing"
        if first is not None:
            self.hands[1] = HandState(HandRandomness(first))

    def deal(self, number: int, now: float | None = None) -> Table:
        """Deal hand ``number`` (its commitment is stored) and rebuild the seat map."""
        assert self.session is not None
        if now is not None:
            self.hands[number].started_at = now
        table = self.session.start_hand(deck=self.close(number))
        self.hand_no = number
        self.stored_seq = 0
        self._map_seats()
        return table

    def next_commitment_due(self) -> tuple[Commitment, HandEnd | None] | None:
        """After a rebuild between hands: the next hand's commitment if it is not stored
        yet, with the last hand's end (its history line, if that was not stored either).
        Store them, then :meth:`committed`."""
        session = self.session
        if session is None or session.over:
            return None
        table = self.table
        if table is not None and not table.over:
            return None
        number = session.hands_played + 1
        if number in self.hands:
            return None
        last = self.hands.get(number - 1)
        end = (
            HandEnd(self.id, number - 1, (last.finished_at or time.time(), last.record), None, None)
            if last is not None and last.record is not None
            else None
        )
        return new_commitment(self.id, number, self.rules), end

    def committed(self, commit: Commitment) -> None:
        """A hand's commitment is stored."""
        self.hands[commit.hand] = HandState(HandRandomness(commit))

    # ------------------------------------------------------------------ acting

    def submit(self, chair: int, action: Action, *, finish: bool = True) -> Refusal | Applied:
        """Check and apply one action of the person in ``chair``.

        The action's seat is an engine seat (what the person's view calls his seat). A
        refusal changes nothing; an accepted action changes the session in memory and
        returns the rows its caller must store before showing anything. An action that
        ends the hand also settles it (``end``), unless ``finish`` is false: then the
        caller calls :meth:`finish_hand` itself (the server does, after acknowledging
        the action)."""
        table = self.table
        if table is None or table.over or self.status != "playing":
            return Refusal(ErrorCode.NO_HAND, "no hand is being played now")
        seat = self.engine_seat(chair)
        if seat is None:
            return Refusal(ErrorCode.NOT_PLAYING, self.absence(chair))
        if action.seat != seat:
            return Refusal(ErrorCode.NOT_YOUR_SEAT, f"you hold seat {seat}, not {action.seat}")
        reason = table.check(action)
        if reason is not None:
            code = ErrorCode.STALE if reason.startswith("stale") else ErrorCode.ILLEGAL
            return Refusal(code, reason)
        n_log = len(table.log)
        table.apply(action)
        entries = tuple(table.log[n_log:])
        rows = tuple(e.to_dict() for e in entries if not e.auto)
        number = self.hand_no
        first_seq = self.stored_seq
        self.stored_seq += len(rows)
        end = self.finish_hand() if table.over and finish else None
        return Applied(number, entries, rows, first_seq, end, table.over)

    @property
    def unsettled(self) -> bool:
        """The hand is over but not yet settled into the session (:meth:`finish_hand`)."""
        table, session = self.table, self.session
        return (
            table is not None
            and table.over
            and session is not None
            and session.hands_played < self.hand_no
        )

    def finish_hand(self) -> HandEnd:
        """Settle the hand just over into the session: its history line, the next
        hand's commitment (or the session's end). Store it, then show it."""
        table, session = self.table, self.session
        assert table is not None and table.over and session is not None
        number = self.hand_no
        gone = self.gone()
        if session.continuous and gone is not None and self.left is None:
            self.left = gone  # stored with the hand's end (tables.live)
            session.end()
        now = time.time()
        self.clock.fixed = now
        try:
            result = session.finish_hand()
        finally:
            self.clock.fixed = None
        finished = (now, self._record(result.record, number))
        hand = self.hands[number]
        hand.finished_at, hand.record = finished
        new: NewHand | None = None
        status: str | None = None
        if session.over:
            status = self.status = "finished"
        else:
            nxt = new_commitment(self.id, number + 1, self.rules)
            self.hands[number + 1] = HandState(HandRandomness(nxt))
            new = NewHand(nxt.hand, nxt.seed, nxt.salt, nxt.commitment)
        return HandEnd(self.id, number, finished, new, status)

    def gone(self) -> str | None:
        """The first person whose seat a stand-in bot plays (None: everybody is here)."""
        for c in self.chairs:
            if c.kind == "human" and c.seat in self.stand_ins:
                return c.player
        return None

    def leave(self, chair: int) -> Refusal | bool:
        """The person in ``chair`` leaves: the session ends after the running hand (True),
        or at once between hands (False: the caller stores the finished status)."""
        session = self.session
        if session is None or self.status != "playing":
            return Refusal(ErrorCode.NO_HAND, "the session is not being played")
        if self.left is not None:
            return Refusal(ErrorCode.DUPLICATE, f"the session is already ending: {self.left} left")
        if self.spec.mode == "tournament":
            return Refusal(
                ErrorCode.ILLEGAL, "a tournament is played to the end; a bot plays a leaver's seat"
            )
        self.left = self.chairs[chair].player
        session.end()
        if session.over:
            self.status = "finished"
            return False
        return True

    def store_rows(self, applied: Applied) -> list[tuple[str, int, int, str, float]]:
        """The ``actions`` rows of an applied action."""
        return Store.action_rows(self.id, applied.hand, applied.first_seq, list(applied.rows))
