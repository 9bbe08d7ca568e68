"""Live tables: engine sessions, seats and tokens, bots, decision timers, broadcasting.

Everything here runs on the server's asyncio event loop (one thread): a table's state
only changes in :meth:`LiveTable.submit`, which asks the engine (``check``), applies the
action, commits it to the store and only then broadcasts the new state, each socket
receiving its own seat's view (``table.view(seat).to_dict()``, cached per version).
Bots think in a worker thread on an immutable view and submit like anybody else;
decision timers are ``loop.call_later`` handles that submit the engine's ``Timeout``.

The wire protocol is ``docs/server-protocol.md``; the design ``docs/server.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import importlib
import inspect
import json
import logging
import random
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    TypeAdapter,
    ValidationError,
)
from sqlalchemy import Connection

from chinese_poker import ai
from chinese_poker.cards import card_name
from chinese_poker.engine import (
    Action,
    LogEntry,
    Session,
    Table,
    Timeout,
    Tournament,
    View,
    action_from_dict,
)
from chinese_poker.engine.history import HandToReplay, ReplayClock, replay_hand
from chinese_poker.rules import Rules, rules_for
from chinese_poker.server import PROTOCOL_VERSION
from chinese_poker.server.db import HandEnd, NewHand, Store, StoredSeat, StoredTable, compact_json
from chinese_poker.server.fairness import (
    SCHEME,
    Commitment,
    ContributionRefused,
    HandRandomness,
    new_commitment,
    rules_digest,
)

__all__ = [
    "MAX_MESSAGE",
    "Conn",
    "CreateTable",
    "LiveTable",
    "SeatSpec",
    "TableManager",
    "TournamentSpec",
]

log = logging.getLogger("chinese_poker.server")

MAX_MESSAGE = 64 * 1024
"""The largest client message accepted (characters of a text frame)."""

_SEND_QUEUE_LIMIT = 2000

HINT_SECONDS = 3.0
FIRST_DEAL_WAIT = 2.0
"""Seconds hand 1 waits, once every seat is taken, for players' fair-shuffle values
(never longer than ``next_hand_delay``; not at all once everybody has sent his)."""
"""The time budget of one hint (its Monte Carlo sampling stops early)."""


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- requests


class SeatSpec(BaseModel):
    """One seat of a new table: a human (named when he joins) or a bot."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["human", "bot"] = "human"
    name: str | None = Field(default=None, min_length=1, max_length=40)
    bot: str | None = Field(default=None, description="bot name (GET /api/bots); bots only")
    level: int | None = Field(default=None, ge=0, le=100, description="bot level, if it has")


class TournamentSpec(BaseModel):
    """Tournament settings (``mode = "tournament"``)."""

    model_config = ConfigDict(extra="forbid")

    stacks: dict[str, int] | None = Field(
        default=None, description="starting chips per player name (default starting_chips)"
    )
    level_hands: int | None = Field(
        default=None, ge=1, description="levels rise every N hands (null: by level_minutes)"
    )


class CreateTable(BaseModel):
    """The lobby's request to open a table."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, max_length=200)
    preset: str = Field(default="pineapple", description="a RULES §14 preset name")
    options: dict[str, Any] = Field(default_factory=dict, description="§13 option overrides")
    seats: list[SeatSpec] = Field(
        default_factory=lambda: [SeatSpec(kind="human"), SeatSpec(kind="bot", bot="rules")],
        min_length=2,
        max_length=4,
    )
    time_limit: float | None = Field(
        default=None, gt=0, le=3600, description="seconds per decision; null: no limit"
    )
    mode: Literal["session", "tournament"] = "session"
    tournament: TournamentSpec | None = None
    button: int = Field(default=0, ge=0, description="the first hand's button seat")
    hints: bool = True
    spectators: bool = True
    bot_delay: float = Field(default=0.5, ge=0, le=10)
    next_hand_delay: float = Field(default=3.0, ge=0, le=60)
    join: bool = Field(default=True, description="the creator takes the first human seat")


# --------------------------------------------------------------------------- client messages


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: StrictInt | str | None = Field(default=None, description="echoed as 'ref'")


class ActionBody(BaseModel):
    """An action as a client sends it (the engine's ``to_dict()`` form, version required)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["place", "surrender", "claim_natural"]
    version: StrictInt = Field(ge=0)
    seat: StrictInt | None = None
    hand: StrictInt = Field(default=0, ge=0, le=1)
    top: list[str] = Field(default_factory=list, max_length=17)
    middle: list[str] = Field(default_factory=list, max_length=17)
    bottom: list[str] = Field(default_factory=list, max_length=17)
    discard: list[str] = Field(default_factory=list, max_length=17)
    surrender: StrictBool | None = None
    claim: StrictBool | None = None


class ActionMsg(_Msg):
    type: Literal["action"]
    action: ActionBody


class SyncMsg(_Msg):
    type: Literal["sync"]


class HintMsg(_Msg):
    type: Literal["hint"]
    limit: StrictInt = Field(default=20, ge=1, le=500)


class LegalMsg(_Msg):
    type: Literal["legal"]
    limit: StrictInt = Field(default=300, ge=1, le=1000)


class PingMsg(_Msg):
    type: Literal["ping"]


class ContributeMsg(_Msg):
    """A seat's random value for a committed hand not dealt yet (docs/fairness.md)."""

    type: Literal["contribute"]
    hand: StrictInt = Field(ge=1)
    value: str = Field(pattern=r"^[0-9a-f]{64}$", description="32 random bytes, hex")


ClientMessage = Annotated[
    ActionMsg | SyncMsg | HintMsg | LegalMsg | PingMsg | ContributeMsg,
    Field(discriminator="type"),
]
_CLIENT = TypeAdapter(ClientMessage)
_TYPES = ("action", "sync", "hint", "legal", "ping", "contribute")


def _validation_message(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err["loc"] if not str(p).endswith("Msg"))
        parts.append(f"{where}: {err['msg']}" if where else str(err["msg"]))
    return "; ".join(parts)


# --------------------------------------------------------------------------- bots


def bot_catalogue() -> list[dict[str, Any]]:
    """The server-side bots: name and whether it takes a ``level``."""
    out = []
    for name, cls in sorted(ai.BOTS.items()):
        try:
            params = inspect.signature(cls).parameters
        except (TypeError, ValueError):
            params = {}  # type: ignore[assignment]
        out.append({"name": name, "levels": "level" in params})
    return out


def make_server_bot(name: str, level: int | None, seed: int) -> ai.Bot:
    """Build a bot (``make_bot(name, seed=..., level=...)``); ValueError if impossible."""
    kwargs: dict[str, Any] = {"seed": seed}
    if level is not None:
        kwargs["level"] = level
    try:
        return ai.make_bot(name, **kwargs)
    except TypeError:
        raise ValueError(f"bot {name!r} does not take a level") from None


# --------------------------------------------------------------------------- connections


class Conn:
    """One WebSocket: a seat (``seat`` set) or a spectator (``seat`` None).

    Messages are queued (``send``) and written by the connection's writer task, so that
    broadcasting never waits for a slow client.
    """

    __slots__ = ("closed", "queue", "seat")

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.closed = False

    def send(self, text: str) -> None:
        if self.closed:
            return
        if self.queue.qsize() > _SEND_QUEUE_LIMIT:
            self.close()
            return
        self.queue.put_nowait(text)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(None)


# --------------------------------------------------------------------------- clock


_RULES_MARK = "\x00rules:" + secrets.token_hex(16)
_RULES_MARK_JSON = compact_json(_RULES_MARK)


class _RulesOnce:
    """Stands for the table's rules in a view: ``to_dict()`` gives a marker string that
    is replaced by the rules' JSON, serialised once per table."""

    __slots__ = ("variant",)

    def __init__(self, variant: str) -> None:
        self.variant = variant

    def to_dict(self) -> str:
        return _RULES_MARK


def _card_names(cards: tuple[int, ...]) -> list[str]:
    return [_CARD_NAMES[c] for c in cards]


_CARD_NAMES = [card_name(c) for c in range(52)]


def _view_dict(v: View) -> dict[str, Any]:
    """``View.to_dict()`` with the rules replaced by the marker (see :class:`_RulesOnce`).

    The same keys and values as the engine's ``to_dict`` (a test compares them on random
    states of every variant; at import, a sample view's keys are compared and any
    difference switches back to the engine's own ``to_dict``).
    """
    return {
        "seat": v.seat,
        "player": v.player,
        "players": list(v.players),
        "rules": _RULES_MARK,
        "variant": v.rules.variant,
        "version": v.version,
        "phase": v.phase,
        "street": v.street,
        "button": v.button,
        "play_order": list(v.play_order),
        "to_act": list(v.to_act),
        "fantasyland": list(v.fantasyland),
        "timed_out": list(v.timed_out),
        "boards": [b.to_dict() for b in v.boards],
        "hand": _card_names(v.hand),
        "decisions": [d.to_dict() for d in v.decisions],
        "settlement": v.settlement,
        "totals": v.totals,
    }


def _fast_views_match() -> bool:
    table = Table(rules_for("pineapple"), 2, seed=0)
    view = table.view(1)
    return list(_view_dict(view)) == list(view.to_dict()) and (
        _view_dict(view) | {"rules": view.rules.to_dict()} == view.to_dict()
    )


_FAST_VIEWS = _fast_views_match()


_RULES: dict[str, Rules] = {}


def _shared_rules(data: Mapping[str, Any]) -> Rules:
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
class _Step:
    """One write of a table waiting for the group commit, and what follows it.

    ``rows`` (action rows), ``end`` (a hand's end) and ``start`` (a deal) are written in
    the batch's transaction;
    once it has committed, ``messages`` are sent and ``then`` runs. A step with nothing to
    write only keeps a reply (an error, a pong) in order behind the writes before it.
    """

    rows: list[tuple[str, int, int, str, float]] = field(default_factory=list)
    end: HandEnd | None = None
    start: tuple[str, int, float, dict[str, str] | None] | None = None
    messages: list[tuple[Conn, str]] = field(default_factory=list)
    then: Callable[[], None] | None = None
    sender: tuple[Conn, object] | None = None


@dataclass
class _Seat:
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


@dataclass
class _Hand:
    fair: HandRandomness
    started_at: float | None = None
    finished_at: float | None = None
    record: dict[str, Any] | None = None

    @property
    def commit(self) -> Commitment:
        return self.fair.commit


def deck_for(deck: tuple[int, ...], number: int) -> tuple[int, ...]:
    """The deck of hand ``number`` from its fair shuffle (a hook tests may replace)."""
    return deck


def _new_hand(commit: Commitment) -> NewHand:
    return NewHand(commit.hand, commit.seed, commit.salt, commit.commitment)


@dataclass
class _Timer:
    key: tuple[Any, ...]
    deadline: float
    limit: float
    handle: asyncio.TimerHandle


@dataclass
class _Cached:
    key: tuple[int, int]
    view: View
    text: str


@dataclass
class Result:
    """What :meth:`LiveTable.submit` did: ``ok``, or an error ``code`` and ``message``."""

    ok: bool
    code: str | None = None
    message: str | None = None


# --------------------------------------------------------------------------- a live table


class LiveTable:
    """One table in memory: its session, current hand, seats, sockets, timers and bots."""

    def __init__(self, manager: TableManager, stored: StoredTable) -> None:
        self.manager = manager
        self.store: Store = manager.store
        self.id = stored.id
        self.name = stored.name
        self.created_at = stored.created_at
        self.spec = CreateTable.model_validate(stored.config["request"])
        self.preset: str = stored.config["preset"]
        self.rules = _shared_rules(stored.config["rules"])
        self.join_code_hash = stored.join_code_hash
        self.session_seed = int(stored.session_seed)
        self.start_button = stored.start_button
        self.started_at = stored.started_at
        self.status = stored.status
        self.seats = [
            _Seat(s.seat, s.kind, s.name, s.bot, s.level, s.token_hash) for s in stored.seats
        ]
        self.clock = ReplayClock()
        self.session: Session | None = None
        self.hands: dict[int, _Hand] = {}
        self.hand_no = 0
        self.stored_seq = 0
        self.conns: list[Conn] = []
        self._cache: dict[int | None, _Cached] = {}
        self._timers: dict[int, _Timer] = {}
        self._bot_tasks: dict[int, asyncio.Task[None]] = {}
        self._bots: dict[int, ai.Bot] = {}
        self._next_hand: asyncio.TimerHandle | None = None
        self._steps: list[_Step] = []
        self._rng = random.Random(secrets.randbits(64))
        self._rules_once = _RulesOnce(self.rules.variant)
        self._rules_json = compact_json(self.rules.to_dict())
        self._digest = rules_digest(self.rules)
        self._rebuild(stored)

    # ------------------------------------------------------------------ rebuilding

    def _new_session(self, names: list[str]) -> Session:
        spec = self.spec
        if spec.mode == "tournament":
            t = spec.tournament or TournamentSpec()
            return Tournament(
                self.rules,
                names,
                seed=self.session_seed,
                button=self.start_button,
                stacks=t.stacks,
                level_hands=t.level_hands,
                clock=self.clock,
            )
        return Session(
            self.rules, names, seed=self.session_seed, button=self.start_button, clock=self.clock
        )

    def _rebuild(self, stored: StoredTable) -> None:
        """Replay the stored setup and actions through the engine (startup, recovery)."""
        for h in stored.hands:
            commit = Commitment(self.id, h.number, self._digest, h.seed, h.salt, h.commitment)
            self.hands[h.number] = _Hand(
                HandRandomness(commit, dict(h.contributions or {})),
                h.started_at,
                h.finished_at,
                h.record,
            )
        if self.started_at is None:
            return
        with self.clock.pinned(self.started_at):
            self.session = self._new_session([s.name or f"Seat {s.seat + 1}" for s in self.seats])
        session = self.session
        for h in stored.hands:
            if h.started_at is None:
                break
            hand = self.hands[h.number]
            where = f"table {self.id} hand {h.number}"
            todo = HandToReplay(h.actions, self._close(h.number), h.finished_at, where)
            _table, result = replay_hand(session, todo, self.clock)
            self.hand_no = h.number
            self.stored_seq = len(h.actions)
            if result is not None and hand.record is None:
                # finished in memory but not stored: store it now
                hand.record = self._record(result.record, h.number)
        self.status = "finished" if session.over else "playing"

    def resume(self) -> None:
        """After a rebuild: restart timers and bots, or schedule the next deal."""
        session = self.session
        if session is None:
            return
        table = self.table
        if session.over:
            if self.status != "finished":
                self.status = "finished"
                self.store.set_status(self.id, "finished")
            return
        if table is not None and not table.over:
            self._after_change()
            return
        number = session.hands_played + 1
        if number not in self.hands:  # the next hand's commitment was not stored yet
            commit = new_commitment(self.id, number, self.rules)
            last = self.hands.get(number - 1)
            self.store.add_actions(
                self.id,
                number - 1,
                self.stored_seq,
                [],
                finished=(
                    (last.finished_at or time.time(), last.record)
                    if last is not None and last.record is not None
                    else None
                ),
                next_hand=_new_hand(commit),
            )
            self.hands[number] = _Hand(HandRandomness(commit))
        self._schedule_next_hand()

    # ------------------------------------------------------------------ state

    @property
    def table(self) -> Table | None:
        return self.session.table if self.session is not None else None

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()

    def seat_for_token(self, token: str) -> int | None:
        h = _hash(token)
        for s in self.seats:
            if s.token_hash is not None and secrets.compare_digest(s.token_hash, h):
                return s.seat
        return None

    def check_code(self, code: str) -> bool:
        return secrets.compare_digest(self.join_code_hash, _hash(code))

    def seats_info(self) -> list[dict[str, Any]]:
        return [
            {
                "seat": s.seat,
                "kind": s.kind,
                "name": s.name,
                "bot": s.bot,
                "level": s.level,
                "taken": s.taken,
                "connected": s.kind == "bot" or s.connected > 0,
            }
            for s in self.seats
        ]

    def info(self) -> dict[str, Any]:
        """The ``TableInfo`` of the protocol."""
        table = self.table
        current = self.hands.get(self.hand_no)
        spec = self.spec
        return {
            "id": self.id,
            "name": self.name,
            "preset": self.preset,
            "variant": self.rules.variant,
            "options": dict(spec.options),
            "rules": self.rules.to_dict(),
            "status": self.status,
            "mode": spec.mode,
            "time_limit": self.rules.time_limit,
            "hints": spec.hints,
            "spectators": spec.spectators,
            "bot_delay": spec.bot_delay,
            "next_hand_delay": spec.next_hand_delay,
            "seats": self.seats_info(),
            "hand": self.hand_no,
            "version": table.version if table is not None else 0,
            "hands_played": self.session.hands_played if self.session is not None else 0,
            "session_over": self.session.over if self.session is not None else False,
            "commitment": current.commit.commitment if current is not None else None,
            "next_commitment": self._next_commitment(),
            "streets": [list(s) for s in self.rules.streets],
            "created_at": _iso(self.created_at),
            "spectators_connected": sum(1 for c in self.conns if c.seat is None),
        }

    def _next_commitment(self) -> str | None:
        nxt = self.hands.get(self.hand_no + 1)
        return nxt.commit.commitment if nxt is not None else None

    def ledger_info(self) -> dict[str, Any]:
        """The ``LedgerInfo`` of the protocol."""
        session = self.session
        names = [s.name or f"Seat {s.seat + 1}" for s in self.seats]
        kind = "tournament" if self.spec.mode == "tournament" else "cash"
        if session is None:
            return {
                "table_id": self.id,
                "kind": kind,
                "players": names,
                "hands_played": 0,
                "over": False,
                "points": dict.fromkeys(names, 0),
                "pairs": {},
                "money": dict.fromkeys(names, 0.0),
                "stacks": None,
                "out": [],
                "hands": [],
            }
        ledger = session.ledger.to_dict()
        return {
            "table_id": self.id,
            "kind": kind,
            "players": list(session.players),
            "hands_played": session.hands_played,
            "over": session.over,
            "points": ledger["points"],
            "pairs": ledger["pairs"],
            "money": ledger["money"],
            "stacks": ledger.get("stacks"),
            "out": ledger.get("out", []),
            "hands": [
                {"hand": r.number, "button": r.button, "totals": dict(r.totals)}
                for r in session.results
            ],
        }

    def hands_info(self) -> list[dict[str, Any]]:
        """The ``HandInfo`` list: commitments, and reveals of finished hands."""
        out = []
        for number in sorted(self.hands):
            h = self.hands[number]
            done = h.record is not None
            out.append(
                {
                    "hand": number,
                    "commitment": h.commit.commitment,
                    "started": h.started_at is not None,
                    "finished": done,
                    "seed": h.commit.seed if done else None,
                    "salt": h.commit.salt if done else None,
                    "scheme": h.commit.scheme,
                }
            )
        return out

    # ------------------------------------------------------------------ fair shuffles

    def _close(self, number: int) -> tuple[int, ...]:
        """Hand ``number`` is being dealt: fix its contributions; its deck."""
        assert self.session is not None
        bots = {s.name for s in self.seats if s.kind == "bot" and s.name}
        deck = self.hands[number].fair.close(self.session.next_participants(), bots)
        return deck_for(deck, number)

    def _all_contributed(self, number: int) -> bool:
        """Every person dealt into hand ``number`` has sent his value."""
        assert self.session is not None
        humans = {s.name for s in self.seats if s.kind == "human"}
        received = self.hands[number].fair.received
        return all(p in received for p in self.session.next_participants() if p in humans)

    def _contribute(self, conn: Conn, seat: int, msg: ContributeMsg) -> None:
        hand = self.hands.get(msg.hand)
        if hand is None:
            self._error(conn, msg.id, "no_hand", f"hand {msg.hand} has no commitment yet")
            return
        name = self.seats[seat].name or f"Seat {seat + 1}"
        session = self.session
        players = (
            session.next_participants()
            if session is not None
            else [s.name or f"Seat {s.seat + 1}" for s in self.seats]
        )
        try:
            hand.fair.offer(name, msg.value, players)
        except ContributionRefused as exc:
            self._error(conn, msg.id, exc.code, str(exc))
            return
        self._send(conn, compact_json({"type": "contributed", "ref": msg.id, "hand": msg.hand}))
        if (
            msg.hand == 1
            and session is not None
            and session.table is None
            and self._all_contributed(1)
            and self._next_hand is not None
        ):  # everybody has sent his value: hand 1 need not wait any longer
            self._next_hand.cancel()
            self._start_next_hand()

    def _record(self, record: Mapping[str, Any], number: int) -> dict[str, Any]:
        hand = self.hands[number]
        data = dict(record)
        data["fairness"] = hand.fair.reveal()
        return data

    # ------------------------------------------------------------------ seating

    def free_human_seats(self) -> list[int]:
        return [s.seat for s in self.seats if s.kind == "human" and s.token_hash is None]

    def _unique_name(self, wanted: str, seat: int) -> str:
        taken = {s.name for s in self.seats if s.seat != seat and s.taken and s.name}
        name, k = wanted, 2
        while name in taken:
            name = f"{wanted} ({k})"
            k += 1
        return name

    def claim(self, seat: int | None, name: str) -> tuple[int, str, str]:
        """Give a free human seat to ``name``: (seat, player name, token)."""
        free = self.free_human_seats()
        if seat is None:
            if not free:
                raise LookupError("no free seat at this table")
            seat = free[0]
        elif seat not in free:
            raise LookupError(f"seat {seat} is not a free human seat")
        name = self._unique_name(name.strip() or f"Player {seat + 1}", seat)
        token = "s-" + secrets.token_urlsafe(24)
        if not self.store.claim_seat(self.id, seat, name, _hash(token)):
            raise LookupError(f"seat {seat} was just taken")
        s = self.seats[seat]
        s.name, s.token_hash = name, _hash(token)
        self._broadcast_seats()
        if not self.free_human_seats() and self.session is None:
            self.start_session()
        return seat, name, token

    # ------------------------------------------------------------------ dealing

    def start_session(self) -> None:
        """All seats are taken: deal hand 1 now if every person has sent his value for
        it (or the table deals without delay), else after :data:`FIRST_DEAL_WAIT` at most."""
        now = time.time()
        first = None
        if 1 not in self.hands:  # stored before tables committed to hand 1 on opening
            self.hands[1] = _Hand(HandRandomness(new_commitment(self.id, 1, self.rules)))
            first = _new_hand(self.hands[1].commit)
        with self.clock.pinned(now):
            self.session = self._new_session([s.name or f"Seat {s.seat + 1}" for s in self.seats])
        wait = min(self.spec.next_hand_delay, FIRST_DEAL_WAIT)
        deal_now = wait == 0 or self._all_contributed(1)
        if deal_now:
            self._close(1)
        fair = self.hands[1].fair
        self.store.start_session(self.id, now, first, dict(fair.received) if deal_now else None)
        self.started_at = now
        self.status = "playing"
        if deal_now:
            self.hands[1].started_at = now
            self._deal(1)
        else:
            self._schedule_next_hand(wait)

    def _schedule_next_hand(self, delay: float | None = None) -> None:
        if self._next_hand is not None:
            self._next_hand.cancel()
        wait = self.spec.next_hand_delay if delay is None else delay
        self._next_hand = self.loop.call_later(wait, self._start_next_hand)

    def _start_next_hand(self) -> None:
        self._next_hand = None
        session = self.session
        if session is None or session.over or self.manager.closing:
            return
        table = self.table
        if table is not None and not table.over:
            return
        number = session.hands_played + 1
        now = time.time()
        self._close(number)
        received = dict(self.hands[number].fair.received)

        def dealt() -> None:
            self.hands[number].started_at = now
            self._deal(number)

        # Stored with the tick's other writes; dealt (and broadcast) once committed.
        self._enqueue(_Step(start=(self.id, number, now, received), then=dealt))

    def _deal(self, number: int) -> None:
        assert self.session is not None
        self.session.start_hand(deck=self._close(number))
        self.hand_no = number
        self.stored_seq = 0
        self._cache.clear()
        table = self.table
        assert table is not None
        start = compact_json(
            {
                "type": "hand_start",
                "table_id": self.id,
                "hand": number,
                "button": table.button,
                "players": list(table.players),
                "commitment": self.hands[number].commit.commitment,
                "scheme": SCHEME,
            }
        )
        for conn in list(self.conns):
            conn.send(start)
            conn.send(self.state_message(conn.seat, None, None, with_log=False))
        self._after_change()

    # ------------------------------------------------------------------ acting

    def submit(
        self, seat: int, action: Action, ref: object = None, sender: Conn | None = None
    ) -> Result:
        """Check and apply one action of ``seat``; store it, then broadcast it.

        Returns the error (nothing changed, nothing sent to anybody) or ok. An accepted
        action joins the tick's group commit (:meth:`TableManager.flush`): its messages
        are built now and sent only once it is stored. Should that write fail, the table
        is rebuilt from the database and ``sender`` gets ``server_error``.
        """
        table = self.table
        if table is None or table.over or self.status != "playing":
            return Result(False, "no_hand", "no hand is being played now")
        if action.seat != seat:
            return Result(False, "not_your_seat", f"you hold seat {seat}, not {action.seat}")
        reason = table.check(action)
        if reason is not None:
            return Result(False, "stale" if reason.startswith("stale") else "illegal", reason)
        n_log = len(table.log)
        table.apply(action)
        entries = table.log[n_log:]
        stored = [e.to_dict() for e in entries if not e.auto]
        number = self.hand_no
        finished: tuple[float, dict[str, Any]] | None = None
        next_hand: Commitment | None = None
        status: str | None = None
        session = self.session
        assert session is not None
        if table.over:
            now = time.time()
            with self.clock.pinned(now):
                result = session.finish_hand()
            finished = (now, self._record(result.record, number))
            if session.over:
                status = "finished"
            else:
                next_hand = new_commitment(self.id, number + 1, self.rules)
        step = _Step(
            rows=self.store.action_rows(self.id, number, self.stored_seq, stored),
            sender=(sender, ref) if sender is not None else None,
        )
        self.stored_seq += len(stored)
        if finished is not None:
            new = _new_hand(next_hand) if next_hand is not None else None
            step.end = HandEnd(self.id, number, finished, new, status)
            hand = self.hands[number]
            hand.finished_at, hand.record = finished
            if next_hand is not None:
                self.hands[number + 1] = _Hand(HandRandomness(next_hand))
            if status is not None:
                self.status = status
        acting = entries[0]
        step.messages = [
            (conn, self.state_message(conn.seat, acting, ref if conn.seat == seat else None))
            for conn in self.conns
        ]
        if finished is not None:
            step.messages += self._hand_end(number)
        step.then = self._after_change if finished is None or session.over else self._ended
        self._enqueue(step)
        return Result(True)

    def _ended(self) -> None:
        self._schedule_next_hand()
        self._after_change()

    def _hand_end(self, number: int) -> list[tuple[Conn, str]]:
        """The ``hand_end`` (and ``session_end``) messages of a hand just finished."""
        session = self.session
        assert session is not None
        last = session.results[-1]
        over = session.over
        text = compact_json(
            {
                "type": "hand_end",
                "table_id": self.id,
                "hand": number,
                "totals": dict(last.totals),
                "ledger": last.ledger.to_dict(),
                "reveal": self.hands[number].fair.reveal(),
                "session_over": over,
                "next_hand_in": None if over else self.spec.next_hand_delay,
                "next_commitment": self._next_commitment(),
            }
        )
        out = [(conn, text) for conn in self.conns]
        if over:
            end = compact_json(
                {"type": "session_end", "table_id": self.id, "ledger": self.ledger_info()}
            )
            out += [(conn, end) for conn in self.conns]
        return out

    # ------------------------------------------------------------------ group commit

    def _enqueue(self, step: _Step) -> None:
        if not self._steps:
            self.manager.dirty(self)
        self._steps.append(step)

    def _send(self, conn: Conn, text: str) -> None:
        """Send a reply now, or after the table's pending writes (keeping the order)."""
        if self._steps:
            self._steps.append(_Step(messages=[(conn, text)]))
        else:
            conn.send(text)

    def _committed(self, steps: list[_Step]) -> None:
        """The steps' writes are stored: send their messages, run what follows."""
        for step in steps:
            for conn, text in step.messages:
                conn.send(text)
            if step.then is not None:
                step.then()

    def _write_failed(self, steps: list[_Step]) -> None:
        """The steps' writes failed: nothing of them is broadcast; rebuild the table."""
        reload = False
        for step in steps:
            if step.rows or step.end is not None:
                reload = True
                if step.sender is not None:
                    conn, ref = step.sender
                    self._error_now(
                        conn, ref, "server_error", "the action could not be stored; try again"
                    )
            elif step.start is not None:
                log.error("table %s: cannot store the start of hand %d", self.id, step.start[1])
            else:  # a reply with no write of its own
                for conn, text in step.messages:
                    conn.send(text)
        if reload:
            log.error("table %s: cannot store an action; reloading the table", self.id)
            self.manager.reload(self)
        elif self.manager.tables.get(self.id) is self:
            self._schedule_next_hand()

    def _after_change(self) -> None:
        """Restart timers and wake bots for the new state."""
        table = self.table
        if table is None or table.over or self.status != "playing" or self.manager.closing:
            self._cancel_timers()
            return
        to_act = table.to_act
        limit = self.rules.time_limit
        for s in self.seats:
            seat = s.seat
            if s.kind == "bot":
                if seat in to_act and seat not in self._bot_tasks:
                    self._bot_tasks[seat] = self.loop.create_task(self._bot_turn(seat))
                continue
            if limit is None or seat not in to_act or seat in table.timed_out:
                self._cancel_timer(seat)
                continue
            key = (self.hand_no, table.decisions(seat))
            timer = self._timers.get(seat)
            if timer is not None and timer.key == key:
                continue
            self._cancel_timer(seat)
            loop = self.loop
            self._timers[seat] = _Timer(
                key, loop.time() + limit, limit, loop.call_later(limit, self._expire, seat, key)
            )

    def _cancel_timer(self, seat: int) -> None:
        timer = self._timers.pop(seat, None)
        if timer is not None:
            timer.handle.cancel()

    def _cancel_timers(self) -> None:
        for seat in list(self._timers):
            self._cancel_timer(seat)

    def _expire(self, seat: int, key: tuple[Any, ...]) -> None:
        timer = self._timers.get(seat)
        table = self.table
        if timer is None or timer.key != key or table is None:
            return
        del self._timers[seat]
        if table.over or seat not in table.to_act:
            return
        result = self.submit(seat, Timeout(seat, version=table.version))
        if not result.ok:
            log.warning("table %s: timeout of seat %d refused: %s", self.id, seat, result.message)

    async def _bot_turn(self, seat: int) -> None:
        try:
            await asyncio.sleep(self.spec.bot_delay)
            for _attempt in range(3):
                table = self.table
                if (
                    table is None
                    or table.over
                    or seat not in table.to_act
                    or self.status != "playing"
                    or self.manager.closing
                ):
                    return
                view = table.view(seat)
                try:
                    action = await asyncio.to_thread(self._bot_act, seat, view)
                except Exception:
                    log.exception("table %s: bot of seat %d failed; random action", self.id, seat)
                    action = table.random_action(seat, self._rng)
                if action.version is None:
                    action = dataclasses.replace(action, version=view.version)
                if self.table is not table or self.manager.closing:
                    return
                self._bot_tasks.pop(seat, None)
                result = self.submit(seat, action)
                if result.ok:
                    return
                log.info("table %s: bot %d action refused: %s", self.id, seat, result.message)
            table = self.table
            if table is not None and not table.over and seat in table.to_act:
                self._bot_tasks.pop(seat, None)
                self.submit(seat, table.random_action(seat, self._rng))
        finally:
            task = self._bot_tasks.get(seat)
            if task is asyncio.current_task():
                del self._bot_tasks[seat]

    def _bot_act(self, seat: int, view: View) -> Action:
        """Run in a worker thread: build the seat's bot if needed, and let it act."""
        return self._bot(seat).act(view)

    def _bot(self, seat: int) -> ai.Bot:
        bot = self._bots.get(seat)
        if bot is None:
            s = self.seats[seat]
            bot = make_server_bot(s.bot or "random", s.level, secrets.randbits(32))
            self._bots[seat] = bot
        return bot

    # ------------------------------------------------------------------ messages

    def _view(self, seat: int | None) -> _Cached:
        """``table.view(seat)`` and its ``to_dict()`` JSON, cached per hand and version.

        The rules part is the same in every view of the table: it is serialised once
        (``_RulesOnce``) and spliced in, so the text equals ``dumps(view.to_dict())``.
        """
        table = self.table
        assert table is not None
        key = (self.hand_no, table.version)
        cached = self._cache.get(seat)
        if cached is None or cached.key != key:
            view = table.view(seat)
            if _FAST_VIEWS:
                data = _view_dict(view)
            else:  # the engine's View grew fields this module does not know: its to_dict()
                data = dataclasses.replace(view, rules=cast(Rules, self._rules_once)).to_dict()
            text = compact_json(data).replace(_RULES_MARK_JSON, self._rules_json, 1)
            cached = _Cached(key, view, text)
            self._cache[seat] = cached
        return cached

    def public_entry(self, entry: LogEntry, viewer: int | None, view: View) -> dict[str, Any]:
        """An applied action as ``viewer`` may see it (see the protocol document)."""
        data = entry.action.to_dict()
        data["auto"] = entry.auto
        data.setdefault("hand", 0)
        if data["seat"] == viewer or data["type"] != "place":
            return data
        data.pop("discard", None)
        if view.board_of(data["seat"], data["hand"]).hidden:
            for line in ("top", "middle", "bottom"):
                data.pop(line, None)
        return data

    def clocks(self) -> list[dict[str, Any]]:
        """The decision clocks of the state as it is now.

        Worked out from the table rather than read from the running timers: a message
        is built before ``_after_change`` restarts them, and must already show the clock
        of a seat that has just come to act (at its full limit) and not the old one.
        """
        table = self.table
        limit = self.rules.time_limit
        if table is None or table.over or limit is None or self.status != "playing":
            return []
        now = self.loop.time()
        out = []
        for s in self.seats:
            seat = s.seat
            if s.kind == "bot" or seat not in table.to_act or seat in table.timed_out:
                continue
            timer = self._timers.get(seat)
            running = timer is not None and timer.key == (self.hand_no, table.decisions(seat))
            remaining = max(timer.deadline - now, 0.0) if running and timer else limit
            out.append({"seat": seat, "remaining": round(remaining, 3), "limit": limit})
        return out

    def state_message(
        self, seat: int | None, last: LogEntry | None, ack: object, *, with_log: bool = False
    ) -> str:
        """The ``state`` message for a socket of ``seat`` (None: a spectator)."""
        table = self.table
        assert table is not None
        cached = self._view(seat)
        entries: str = "null"
        if with_log:
            entries = compact_json([self.public_entry(e, seat, cached.view) for e in table.log])
        head = {
            "type": "state",
            "table_id": self.id,
            "hand": self.hand_no,
            "version": table.version,
        }
        tail = {
            "last": self.public_entry(last, seat, cached.view) if last is not None else None,
            "ack": ack,
            "clocks": self.clocks(),
            "commitment": self.hands[self.hand_no].commit.commitment,
        }
        return (
            compact_json(head)[:-1]
            + ',"view":'
            + cached.text
            + ","
            + compact_json(tail)[1:-1]
            + ',"log":'
            + entries
            + "}"
        )

    def _broadcast_seats(self) -> None:
        text = compact_json(
            {
                "type": "seats",
                "table_id": self.id,
                "seats": self.seats_info(),
                "status": self.status,
            }
        )
        for conn in list(self.conns):
            self._send(conn, text)

    def attach(self, conn: Conn) -> None:
        """A socket joined: welcome it and send the full state with the hand's log."""
        if self._steps:
            self.manager.flush()  # show it stored state only
        self.conns.append(conn)
        if conn.seat is not None:
            self.seats[conn.seat].connected += 1
        s = self.seats[conn.seat] if conn.seat is not None else None
        conn.send(
            compact_json(
                {
                    "type": "welcome",
                    "protocol": PROTOCOL_VERSION,
                    "table_id": self.id,
                    "role": "seat" if conn.seat is not None else "spectator",
                    "seat": conn.seat,
                    "player": s.name if s is not None else None,
                    "table": self.info(),
                }
            )
        )
        if conn.seat is not None and self.seats[conn.seat].connected == 1:
            self._broadcast_seats()
        if self.table is not None:
            conn.send(self.state_message(conn.seat, None, None, with_log=True))

    def detach(self, conn: Conn) -> None:
        if conn in self.conns:
            self.conns.remove(conn)
            if conn.seat is not None:
                self.seats[conn.seat].connected -= 1
                if self.seats[conn.seat].connected == 0:
                    self._broadcast_seats()
        conn.close()

    def handle(self, conn: Conn, text: str | None) -> None:
        """Validate and carry out one client message; errors go to ``conn`` only."""
        if text is None:
            self._error(conn, None, "bad_json", "send JSON text frames, not binary ones")
            return
        if len(text) > MAX_MESSAGE:
            self._error(conn, None, "too_large", f"a message may have at most {MAX_MESSAGE} chars")
            return
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            self._error(conn, None, "bad_json", f"not valid JSON: {exc}")
            return
        if not isinstance(data, dict):
            self._error(conn, None, "bad_message", "a message must be a JSON object")
            return
        ref = data.get("id")
        if not isinstance(ref, int | str) or isinstance(ref, bool):
            ref = None
        kind = data.get("type")
        if kind not in _TYPES:
            code = "unknown_type" if kind is not None else "bad_message"
            self._error(conn, ref, code, f"unknown message type {kind!r}; types: {_TYPES}")
            return
        action = data.get("action")
        if kind == "action" and isinstance(action, dict) and action.get("type") == "timeout":
            self._error(conn, ref, "illegal", "timeouts are made by the server when time runs out")
            return
        try:
            msg = _CLIENT.validate_python(data)
        except ValidationError as exc:
            self._error(conn, ref, "bad_message", _validation_message(exc))
            return
        if conn.seat is None and not isinstance(msg, SyncMsg | PingMsg):
            self._error(conn, ref, "read_only", "spectators may only send sync and ping")
            return
        if isinstance(msg, PingMsg):
            self._send(conn, compact_json({"type": "pong", "ref": msg.id, "time": time.time()}))
            return
        if self._steps and not isinstance(msg, ActionMsg):
            self.manager.flush()  # answer from stored state only
        if isinstance(msg, SyncMsg):
            if self.table is None:
                self._error(conn, msg.id, "no_hand", "no hand has been dealt yet")
            else:
                conn.send(self.state_message(conn.seat, None, None, with_log=True))
        elif isinstance(msg, ActionMsg):
            assert conn.seat is not None
            self._action(conn, conn.seat, msg)
        elif isinstance(msg, LegalMsg):
            assert conn.seat is not None
            self._legal(conn, conn.seat, msg)
        elif isinstance(msg, ContributeMsg):
            assert conn.seat is not None
            self._contribute(conn, conn.seat, msg)
        else:
            assert conn.seat is not None and isinstance(msg, HintMsg)
            self.loop.create_task(self._hint(conn, conn.seat, msg))

    def _error(self, conn: Conn, ref: object, code: str, message: str) -> None:
        self._send(conn, self._error_text(ref, code, message))

    def _error_now(self, conn: Conn, ref: object, code: str, message: str) -> None:
        conn.send(self._error_text(ref, code, message))

    def _error_text(self, ref: object, code: str, message: str) -> str:
        table = self.table
        return compact_json(
            {
                "type": "error",
                "ref": ref,
                "code": code,
                "message": message,
                "version": table.version if table is not None else None,
            }
        )

    def _action(self, conn: Conn, seat: int, msg: ActionMsg) -> None:
        body = msg.action.model_dump(exclude_none=True)
        if body.get("seat", seat) != seat:
            self._error(conn, msg.id, "not_your_seat", f"you hold seat {seat}, not {body['seat']}")
            return
        body["seat"] = seat
        try:
            action = action_from_dict(body)
        except ValueError as exc:
            self._error(conn, msg.id, "bad_message", f"bad action: {exc}")
            return
        result = self.submit(seat, action, msg.id, conn)
        if not result.ok:
            assert result.code is not None and result.message is not None
            self._error(conn, msg.id, result.code, result.message)

    def _legal(self, conn: Conn, seat: int, msg: LegalMsg) -> None:
        table = self.table
        if table is None or table.over:
            self._error(conn, msg.id, "no_hand", "no hand is being played now")
            return
        legal = table.legal_actions(seat)
        count = len(legal)
        actions = [a.to_dict() for a in legal] if count <= msg.limit else []
        conn.send(
            compact_json(
                {
                    "type": "legal",
                    "ref": msg.id,
                    "version": table.version,
                    "count": count,
                    "truncated": count > msg.limit,
                    "actions": actions,
                }
            )
        )

    async def _hint(self, conn: Conn, seat: int, msg: HintMsg) -> None:
        ref = msg.id
        if not self.spec.hints:
            self._error(conn, ref, "hints_disabled", "this table does not allow hints")
            return
        try:
            module = importlib.import_module("chinese_poker.ai.hints")
        except ImportError:
            self._error(conn, ref, "hints_unavailable", "hints are unavailable in this build")
            return
        fn: Callable[..., Any] | None = getattr(module, "hint", None)
        if fn is None:
            self._error(conn, ref, "hints_unavailable", "hints are unavailable in this build")
            return
        if self._steps:
            self.manager.flush()
        table = self.table
        if table is None or table.over or seat not in table.to_act:
            self._error(conn, ref, "no_hand", "you have nothing to decide now")
            return
        view = table.view(seat)
        kwargs: dict[str, Any] = {}
        with contextlib.suppress(TypeError, ValueError):
            if "time_budget" in inspect.signature(fn).parameters:
                kwargs["time_budget"] = HINT_SECONDS
        try:
            ranked = await asyncio.to_thread(fn, view, **kwargs)
        except Exception as exc:
            log.exception("table %s: hint failed", self.id)
            self._error(conn, ref, "hints_unavailable", f"the hint failed: {exc}")
            return
        entries = list(ranked)
        conn.send(
            compact_json(
                {
                    "type": "hint",
                    "ref": ref,
                    "version": view.version,
                    "count": len(entries),
                    "actions": [_plain(item) for item in entries[: msg.limit]],
                }
            )
        )

    # ------------------------------------------------------------------ shutdown

    def stop(self) -> None:
        """Cancel timers, bots and the next deal (server shutdown)."""
        self._cancel_timers()
        if self._next_hand is not None:
            self._next_hand.cancel()
            self._next_hand = None
        for task in self._bot_tasks.values():
            task.cancel()
        self._bot_tasks.clear()


def _plain(item: object) -> Any:
    """JSON data from whatever the hints module returns (records, actions, tuples)."""
    if isinstance(item, str | int | float | bool) or item is None:
        return item
    to_dict = getattr(item, "to_dict", None)
    if callable(to_dict):
        return _plain(to_dict())
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        return {f.name: _plain(getattr(item, f.name)) for f in dataclasses.fields(item)}
    if isinstance(item, Mapping):
        return {str(k): _plain(v) for k, v in item.items()}
    if isinstance(item, list | tuple):
        return [_plain(v) for v in item]
    return str(item)


def _iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


# --------------------------------------------------------------------------- the manager


def _write(store: Store, conn: Connection, steps: list[_Step]) -> None:
    store.write_batch(
        conn,
        [row for st in steps for row in st.rows],
        [st.end for st in steps if st.end is not None],
        [st.start for st in steps if st.start is not None],
    )


@dataclass
class Created:
    """A new table with its join code, and the creator's seat and token if he joined."""

    table: LiveTable
    join_code: str
    seat: int | None
    token: str | None


@dataclass
class TableManager:
    """All live tables of one server process, with the store behind them."""

    store: Store
    tables: dict[str, LiveTable] = field(default_factory=dict)
    closing: bool = False
    _dirty: list[LiveTable] = field(default_factory=list)
    _flush_handle: asyncio.Handle | None = None

    # ------------------------------------------------------------------ group commit

    def dirty(self, live: LiveTable) -> None:
        """``live`` has writes waiting: commit them (with every other table's) soon.

        The flush is a ``call_soon`` callback, so it runs after every message that the
        event loop handed over in the same tick: under load, many actions share one
        transaction; alone, an action waits for nothing.
        """
        self._dirty.append(live)
        if self._flush_handle is None:
            self._flush_handle = asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Commit every waiting write in one transaction, then broadcast what they
        carried. If the transaction fails, each table's writes are retried on their own
        and a table whose writes still fail is rebuilt from the database."""
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        dirty, self._dirty = self._dirty, []
        if not dirty:
            return
        batches: list[tuple[LiveTable, list[_Step]]] = []
        for live in dirty:
            batches.append((live, live._steps))
            live._steps = []
        store = self.store
        ok: list[tuple[LiveTable, list[_Step]]] = []
        bad: list[tuple[LiveTable, list[_Step]]] = []
        try:
            with store.transaction() as conn:
                _write(store, conn, [st for _live, steps in batches for st in steps])
            ok = batches
        except Exception:
            log.exception("group commit of %d table(s) failed; retrying each", len(batches))
            for live, steps in batches:
                try:
                    with store.transaction() as conn:
                        _write(store, conn, steps)
                    ok.append((live, steps))
                except Exception:
                    log.exception("table %s: cannot store its writes", live.id)
                    bad.append((live, steps))
        for live, steps in ok:
            live._committed(steps)
        for live, steps in bad:
            live._write_failed(steps)

    def recover(self) -> int:
        """Rebuild every unfinished table from the store; returns how many."""
        count = 0
        for table_id in self.store.table_ids(exclude_status="finished"):
            live = self._load(table_id)
            if live is not None:
                live.resume()
                count += 1
        return count

    def _load(self, table_id: str) -> LiveTable | None:
        stored = self.store.load_table(table_id)
        if stored is None:
            return None
        live = LiveTable(self, stored)
        self.tables[table_id] = live
        return live

    def get(self, table_id: str) -> LiveTable | None:
        """A table by id (finished tables are rebuilt from the store on first use).

        Pending writes are committed first, so that what is read is stored state."""
        if self._dirty:
            self.flush()
        live = self.tables.get(table_id)
        if live is None:
            live = self._load(table_id)
        return live

    def reload(self, live: LiveTable) -> LiveTable:
        """Rebuild a table from the store (after a failed write) and keep its sockets."""
        live.stop()
        fresh = self._load(live.id)
        if fresh is None:
            return live
        fresh.conns = live.conns
        for conn in fresh.conns:
            if conn.seat is not None:
                fresh.seats[conn.seat].connected += 1
            if fresh.table is not None:
                conn.send(fresh.state_message(conn.seat, None, None, with_log=True))
        fresh.resume()
        return fresh

    def create(self, spec: CreateTable) -> Created:
        """Open a table; ValueError for a bad preset, option, seat count or bot."""
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
        seats: list[StoredSeat] = []
        used: set[str] = set()
        for i, s in enumerate(spec.seats):
            if s.kind == "bot":
                if not s.bot:
                    raise ValueError(f"seat {i}: a bot seat needs a bot name")
                make_server_bot(s.bot, s.level, 0)  # validates the name and level
                name = s.name or f"{s.bot}-{i}"
            else:
                if s.bot is not None or s.level is not None:
                    raise ValueError(f"seat {i}: bot and level are for bot seats")
                name = s.name or ""
            if name:
                base, k = name, 2
                while name in used:
                    name = f"{base} ({k})"
                    k += 1
                used.add(name)
            seats.append(StoredSeat(i, s.kind, name or None, s.bot, s.level, None, None))
        if spec.mode == "tournament" and spec.tournament and spec.tournament.stacks:
            names = {s.name for s in seats}
            unknown = sorted(set(spec.tournament.stacks) - names)
            if unknown:
                raise ValueError(
                    f"stacks name unknown players {unknown}; name the seats to set stacks"
                )
        table_id = "t-" + secrets.token_hex(6)
        code = secrets.token_urlsafe(8)
        config = {
            "request": spec.model_dump(mode="json"),
            "preset": spec.preset,
            "rules": rules.to_dict(),
        }
        created_at = self.store.create_table(
            table_id=table_id,
            name=spec.name or f"{spec.preset} table",
            config=config,
            join_code_hash=_hash(code),
            session_seed=str(secrets.randbits(128)),
            start_button=spec.button,
            seats=seats,
            status="waiting",
            first=_new_hand(new_commitment(table_id, 1, rules)),  # published as it opens
        )
        stored = StoredTable(
            id=table_id,
            name=spec.name or f"{spec.preset} table",
            created_at=created_at,
            config=config,
            join_code_hash=_hash(code),
            status="waiting",
            session_seed="0",
            start_button=spec.button,
            started_at=None,
            seats=seats,
            hands=[],
        )
        loaded = self.store.load_table(table_id)
        live = LiveTable(self, loaded if loaded is not None else stored)
        self.tables[table_id] = live
        seat = token = None
        if spec.join and live.free_human_seats():
            first = live.free_human_seats()[0]
            wanted = spec.seats[first].name or f"Player {first + 1}"
            seat, _name, token = live.claim(first, wanted)
        elif not live.free_human_seats():
            live.start_session()
        return Created(live, code, seat, token)

    def close(self) -> None:
        """Store pending writes, stop every table's timers and bots, close every socket."""
        try:
            self.flush()
        except Exception:
            log.exception("cannot store the last writes")
        self.closing = True
        for live in self.tables.values():
            live.stop()
            for conn in list(live.conns):
                conn.close()
