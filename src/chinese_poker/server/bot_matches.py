"""Bot-against-bot duplicate matches that the server runs on its own (issue 42 item 3).

A **match** is two bots, a preset, a number of **deals** and a seed. Each deal is one
session (RULES §10: an orbit of the button plus the Fantasyland hands) played twice, once
in each **seating** (the bots' chairs swapped), on the same decks: hand k of both seatings
is dealt from the same hand seed, so what one bot was dealt in one seating the other was
dealt in the other, and luck cancels out. It is ``chinese-poker simulate --duplicate``'s
group, built from the same :class:`~chinese_poker.ai.simulate.Job`: deal d's session seed
is ``derive_seed(seed, "session", d)``, the bot in chair c of seating s gets
``derive_seed(seed, "bot", d, s, instance)``, so a match's figures equal a ``simulate``
run of the same bots with the same seed (``tests/test_bot_matches.py``).

Each seating of each deal is an ordinary table of the server (:class:`~.tables.LiveTable`
with two bot chairs, stored, leased, replayed after a restart), with the match in its
config: it deals the session's own seeded decks instead of a commitment (both seatings
must get the same cards; no person is at the table to protect), and seeds its bots from
the match. Its hands are rated like any (:mod:`.ratings`). When every table of a match is
finished, :class:`MatchRunner` stores what each seat of each hand scored in
``bot_match_hands`` (migration 0007), and the ladder (:mod:`.ladder`) reads them.

Starting a match stores the match and its tables in the server's setup thread (with a
store of its own, :func:`match_writer`: the server's store is the event loop's), so the
loop only puts the stored tables in play (:func:`open_tables`); finished matches are
collected in that thread too.

**The operator's budget** (:class:`MatchBudget`, ``serve --bot-matches``; off unless
given): at most ``hands_per_hour`` planned match hands started in any hour and at most
``at_once`` matches being played on the whole site: a match holds one of ``at_once``
numbered places (``bot_match_places``, migration 0008) from the transaction that stores
it to the one that collects it, and a place's primary key refuses a second process that
found it free too (:func:`start_in_place`). Which two bots play next: the pair of the
family that has played the fewest matches (:func:`next_pair`), among our own bots at
each level (:func:`house_bots`) and the bot accounts online that accept the preset
heads-up (:func:`online_accounts`): an account's chair is taken in its name, and its own
program plays it over its socket (:mod:`.bot_socket`), with a clock
(:data:`ACCOUNT_TIME_LIMIT`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import (
    Connection,
    Engine,
    ForeignKey,
    Integer,
    String,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy import Table as SATable
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from chinese_poker.ai.simulate import Job, derive_seed, make_job
from chinese_poker.rules import rules_for
from chinese_poker.server.accounts import PLAYERS, SeatPlayerRow, bot_player
from chinese_poker.server.db import Base, Store
from chinese_poker.server.fairness import new_commitment
from chinese_poker.server.game import plan_table
from chinese_poker.server.messages import CreateTable, SeatSpec
from chinese_poker.server.ratings import Family, family_of
from chinese_poker.server.schema import (
    BOT_ACCOUNTS,
    BOT_MATCH_HANDS,
    BOT_MATCHES,
    BOT_PRESENCE,
    HANDS,
    SEATS,
    TABLES,
    StoredSeat,
    StoredTable,
)

if TYPE_CHECKING:
    from chinese_poker.server.tables import TableManager

__all__ = [
    "ACCOUNT_TIME_LIMIT",
    "HOUSE_LEVELS",
    "MATCH_PLACES",
    "UNOPENED_SECONDS",
    "BotInMatch",
    "MatchBudget",
    "MatchPlaceRow",
    "MatchRunner",
    "PlannedMatch",
    "Seating",
    "StoredMatchTable",
    "collect",
    "collect_finished",
    "entrants",
    "house_bots",
    "match_job",
    "match_writer",
    "may_start",
    "next_pair",
    "online_accounts",
    "open_tables",
    "plan_match",
    "planned_hands",
    "seating",
    "start_in_place",
    "start_match",
    "start_unopened",
    "store_match",
    "store_tables",
    "unopened_tables",
]

log = logging.getLogger("chinese_poker.server")

#: Our own bots on the ladder, per family: the rules bot and the Monte Carlo bot at each
#: level it is offered at (in classic it sets hands with the setting solver at every
#: level: one entry).
HOUSE_LEVELS: dict[Family, tuple[tuple[str, int | None], ...]] = {
    Family.OPEN_FACE: (("rules", None), ("mc", 1), ("mc", 2), ("mc", 3)),
    Family.CLASSIC: (("rules", None), ("mc", None)),
}


class MatchPlaceRow(Base):
    """One of the site's places for a running match (migration 0008): the operator's
    ``at_once`` is how many places there are, numbered from 0. A match's place is taken
    in the transaction that stores the match and given back in the one that collects it,
    so the limit holds for every process on the database together."""

    __tablename__ = "bot_match_places"

    place: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    match_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("bot_matches.id", ondelete="CASCADE")
    )


MATCH_PLACES = cast(SATable, MatchPlaceRow.__table__)


@dataclass(frozen=True, slots=True)
class BotInMatch:
    """A bot that plays matches: its player id (its ratings' and the ladder's), and the
    server bot that plays its chairs (``bot``, ``level``), or for a bot account (``bot``
    None) its name: its own program plays its chairs over its socket (:mod:`.bot_socket`).
    """

    player_id: str
    bot: str | None
    level: int | None = None
    name: str = ""

    @property
    def spec(self) -> str:
        """Its bot for :class:`~chinese_poker.ai.simulate.Job` (the level apart), or the
        account's id (a job's bot it only names: no seed reaches a program elsewhere)."""
        return self.bot if self.bot is not None else "account:" + self.player_id


def house_bots(conn: Connection, family: Family) -> list[BotInMatch]:
    """Our own bots of ``family`` (their player rows made on first sight)."""
    return [BotInMatch(bot_player(conn, b, lv), b, lv) for b, lv in HOUSE_LEVELS[family]]


def online_accounts(conn: Connection, preset: str) -> list[BotInMatch]:
    """The bot accounts online now (on any process), not paused, that accept ``preset``
    heads-up (:func:`.bot_accounts.accepts_table`)."""
    from chinese_poker.server.bot_accounts import PRESENCE_SECONDS, accepts_table

    rows = conn.execute(
        select(PLAYERS.c.id, PLAYERS.c.name, BOT_PRESENCE.c.accepts)
        .join(BOT_PRESENCE, BOT_PRESENCE.c.player_id == PLAYERS.c.id)
        .join(BOT_ACCOUNTS, BOT_ACCOUNTS.c.player_id == PLAYERS.c.id)
        .where(
            BOT_PRESENCE.c.seen_at >= time.time() - PRESENCE_SECONDS,
            BOT_ACCOUNTS.c.paused_at.is_(None),
        )
        .order_by(PLAYERS.c.id)
    ).all()
    return [
        BotInMatch(r.id, None, name=r.name)
        for r in rows
        if accepts_table(json.loads(r.accepts), preset, 2)
    ]


def entrants(conn: Connection, preset: str) -> list[BotInMatch]:
    """Who may be paired for a match of ``preset``: our own bots of its family, and the
    bot accounts online that accept it."""
    return house_bots(conn, family_of(rules_for(preset))) + online_accounts(conn, preset)


AT_ONCE, DEALS, PRESETS = 1, 10, ("pineapple", "classic")
"""A budget's defaults: one match at a time, of ten deals, over Pineapple and classic."""
BUDGET_FORM = "HANDS_PER_HOUR[,AT_ONCE[,DEALS[,PRESET...]]]"


@dataclass(frozen=True, slots=True)
class MatchBudget:
    """What the operator lets bot matches use: ``hands_per_hour`` planned hands started
    in any hour, ``at_once`` matches at a time, ``deals`` per match, over ``presets``
    (two-player presets; each family's ladder is made of its presets' matches)."""

    hands_per_hour: int
    at_once: int = AT_ONCE
    deals: int = DEALS
    presets: tuple[str, ...] = PRESETS

    def __post_init__(self) -> None:
        if self.hands_per_hour < 1 or self.at_once < 1 or self.deals < 1:
            raise ValueError("bot matches need at least one hand an hour, match and deal")
        for preset in self.presets:
            if 2 not in rules_for(preset).player_counts:
                raise ValueError(f"{preset} is not played heads-up")

    @classmethod
    def parse(cls, text: str) -> MatchBudget:
        """``HANDS_PER_HOUR[,AT_ONCE[,DEALS[,PRESET...]]]`` (``serve --bot-matches``).

        >>> MatchBudget.parse("400,2,5,pineapple")
        MatchBudget(hands_per_hour=400, at_once=2, deals=5, presets=('pineapple',))
        """
        parts = [p.strip() for p in text.split(",") if p.strip()]
        try:
            numbers = [int(p) for p in parts[:3]]
        except ValueError:
            raise ValueError(f"bad bot match budget {text!r}: {BUDGET_FORM}") from None
        if not numbers:
            raise ValueError("the bot match budget needs its hands per hour")
        presets = tuple(parts[3:]) or PRESETS
        hands, at_once, deals = [*numbers, *(0, AT_ONCE, DEALS)[len(numbers) :]]
        return cls(hands, at_once, deals, presets)


def planned_hands(deals: int) -> int:
    """The hands a match of ``deals`` deals is planned at: per deal an orbit of two hands
    in each of the two seatings (its Fantasyland hands come on top)."""
    return deals * 2 * 2


def may_start(
    budget: MatchBudget,
    now: float,
    started: Sequence[tuple[float, int]],
    playing: int,
    planned: int,
) -> bool:
    """Whether a match of ``planned`` hands may start at ``now``: fewer than ``at_once``
    matches are ``playing``, and the planned hands of the matches ``started`` in the last
    hour ((start time, planned hands) each) plus this one's fit ``hands_per_hour``.

    >>> b = MatchBudget(100, at_once=2)
    >>> may_start(b, 5000.0, [(1500.0, 60)], 0, 40), may_start(b, 5000.0, [(1500.0, 61)], 0, 40)
    (True, False)
    >>> may_start(b, 5200.0, [(1500.0, 61)], 0, 40), may_start(b, 5200.0, [], 2, 40)
    (True, False)
    """
    if playing >= budget.at_once:
        return False
    recent = sum(hands for at, hands in started if now - at < 3600.0)
    return recent + planned <= budget.hands_per_hour


def next_pair(
    bots: Sequence[BotInMatch], played: Mapping[frozenset[str], int]
) -> tuple[BotInMatch, BotInMatch] | None:
    """The two bots whose pairing has played the fewest matches (``played``, by the
    pair's player ids); the first such pair in the bots' order. None with fewer than two.

    >>> a, b, c = (BotInMatch(p, "rules", None) for p in "abc")
    >>> pair = next_pair([a, b, c], {frozenset("ab"): 2, frozenset("ac"): 1})
    >>> [x.player_id for x in pair]
    ['b', 'c']
    """
    pairs = list(combinations(bots, 2))
    if not pairs:
        return None
    return min(pairs, key=lambda p: played.get(frozenset((p[0].player_id, p[1].player_id)), 0))


def match_job(preset: str, bots: Sequence[BotInMatch], deals: int, seed: int) -> Job:
    """The ``simulate`` job a match is: the same bots, seeds and duplicate deals (its
    ``hands`` is the planned count; the match plays every deal whole). Built as
    :func:`~chinese_poker.ai.simulate.make_job` builds it, without checking the bots: a
    bot account is no bot ``simulate`` could start."""
    job = make_job(preset, "random", players=len(bots), hands=planned_hands(deals), seed=seed)
    return replace(job, bots=tuple(b.spec for b in bots), duplicate=True)


@dataclass(frozen=True, slots=True)
class Seating:
    """One table of a match: deal ``deal`` in seating ``seating``: its session seed, and
    per chair the bot (an index into the match's bots) and that bot's seed."""

    deal: int
    seating: int
    session_seed: int
    bots: tuple[int, ...]
    bot_seeds: tuple[int, ...]


def seating(job: Job, deal: int, rotation: int) -> Seating:
    """Deal ``deal`` in seating ``rotation`` as ``simulate`` plays it (RULES §10's group:
    instance j at seat j + rotation, the same session seed in every seating).

    >>> job = make_job("pineapple", ["rules", "random"], hands=8, seed=7, duplicate=True)
    >>> one, two = seating(job, 0, 0), seating(job, 0, 1)
    >>> one.session_seed == two.session_seed, one.bots, two.bots
    (True, (0, 1), (1, 0))
    """
    instances = job.instances(rotation)
    return Seating(
        deal,
        rotation,
        derive_seed(job.seed, "session", deal),
        instances,
        tuple(derive_seed(job.seed, "bot", deal, rotation, inst) for inst in instances),
    )


ACCOUNT_TIME_LIMIT = 10.0
"""Seconds a bot account has per decision at a match table (the table's timeout rule and
the account's faults apply as at any table); a table of our own bots only has no clock."""


def _seat(bot: BotInMatch) -> SeatSpec:
    if bot.bot is None:  # an account's chair: taken in its name, its socket plays it
        return SeatSpec(kind="human", name=bot.name)
    return SeatSpec(kind="bot", bot=bot.bot, level=bot.level)


def _table_request(preset: str, bots: Sequence[BotInMatch], plan: Seating) -> CreateTable:
    """The lobby request a match table is (no wait between moves and hands)."""
    accounts = any(b.bot is None for b in bots)
    return CreateTable(
        name=f"Bot match: {preset}",
        preset=preset,
        seats=[_seat(bots[i]) for i in plan.bots],
        time_limit=ACCOUNT_TIME_LIMIT if accounts else None,
        hints=False,
        bot_delay=0,
        next_hand_delay=0,
        join=False,
    )


@dataclass(frozen=True, slots=True)
class PlannedMatch:
    """A match about to start: its id, what it plays, its seed and its tables (each a
    new table id and the seating it plays), before anything is stored."""

    id: str
    preset: str
    bots: tuple[BotInMatch, ...]
    deals: int
    seed: int
    tables: tuple[tuple[str, Seating], ...]
    created_at: float


def plan_match(
    preset: str, bots: Sequence[BotInMatch], deals: int, seed: int | None, now: float
) -> PlannedMatch:
    """The match's ids, seed and seatings (every deal in both seatings)."""
    seed = secrets.randbits(63) if seed is None else seed
    job = match_job(preset, bots, deals, seed)
    tables = tuple(
        ("t-" + secrets.token_hex(6), seating(job, deal, rotation))
        for deal in range(deals)
        for rotation in range(job.rotations)
    )
    return PlannedMatch("m-" + secrets.token_hex(6), preset, tuple(bots), deals, seed, tables, now)


def store_match(conn: Connection, match: PlannedMatch) -> None:
    """Insert the match's row (status ``playing``) in ``conn``'s transaction."""
    conn.execute(
        insert(BOT_MATCHES).values(
            id=match.id,
            family=family_of(rules_for(match.preset)).value,
            preset=match.preset,
            seed=match.seed,
            players=json.dumps([b.player_id for b in match.bots]),
            deals=match.deals,
            tables=json.dumps([t for t, _ in match.tables]),
            status="playing",
            created_at=match.created_at,
            finished_at=None,
        )
    )


def start_in_place(conn: Connection, match: PlannedMatch, at_once: int) -> bool:
    """Store ``match`` in the lowest free one of the site's ``at_once`` places for
    running matches (:data:`MATCH_PLACES`), in ``conn``'s transaction; False (nothing
    stored) when all are taken. Two processes that saw the same place free both insert
    it: its primary key lets one commit and refuses the other (IntegrityError), so
    however many processes start matches, no more than ``at_once`` run together."""
    taken = set(conn.execute(select(MATCH_PLACES.c.place)).scalars())
    free = next((p for p in range(at_once) if p not in taken), None)
    if free is None:
        return False
    store_match(conn, match)
    conn.execute(insert(MATCH_PLACES).values(place=free, match_id=match.id))
    return True


def _seats(
    plan: Seating, bots: Sequence[BotInMatch], planned: Sequence[StoredSeat], now: float
) -> list[StoredSeat]:
    """The chairs as stored: an account's is taken in its name at once (its socket
    finds it by the seat's player row; the token no one holds only marks it taken)."""
    from chinese_poker.server.table_presence import secret_hash

    seats = []
    for chair, index in zip(planned, plan.bots, strict=True):
        if bots[index].bot is None:
            token = secret_hash("s-" + secrets.token_urlsafe(24))
            chair = replace(chair, token_hash=token, joined_at=now)
        seats.append(chair)
    return seats


@dataclass(frozen=True, slots=True)
class StoredMatchTable:
    """A match's table as stored, and the fencing number of the lease this process took
    as it stored it (None: a store without an owner takes no leases)."""

    table: StoredTable
    fence: int | None


def match_writer(store: Store) -> Store:
    """A store of its own for writing a match's tables in the setup thread: the
    server's store writes on one connection, the event loop's (:class:`~.db.Store`),
    which another thread must not share. The same database and owner: the leases it
    takes are this process's."""
    return Store(store.url, owner=store.owner, lease_seconds=store.lease_seconds)


def store_tables(writer: Store, match: PlannedMatch) -> list[StoredMatchTable]:
    """Store the match's tables (each one's seats taken, the accounts' chairs in their
    names) and read each back, as a table is opened: blocking database work, done in
    the server's setup thread with ``writer`` (:func:`match_writer`)."""
    from chinese_poker.server.table_bots import check_bot
    from chinese_poker.server.table_presence import secret_hash
    from chinese_poker.server.tables import new_hand

    stored = []
    for table_id, plan in match.tables:
        spec = _table_request(match.preset, match.bots, plan)
        chairs = plan_table(spec, check_bot)
        config = {
            "request": spec.model_dump(mode="json"),
            "preset": match.preset,
            "rules": chairs.rules.to_dict(),
            "match": {"id": match.id, "deal": plan.deal, "seating": plan.seating,
                      "bot_seeds": list(plan.bot_seeds)},
        }  # fmt: skip
        writer.create_table(
            table_id=table_id,
            name=spec.name or match.preset,
            config=config,
            join_code_hash=secret_hash(secrets.token_urlsafe(8)),
            session_seed=str(plan.session_seed),
            start_button=0,
            seats=_seats(plan, match.bots, chairs.seats, time.time()),
            status="waiting",
            first=new_hand(new_commitment(table_id, 1, chairs.rules)),
        )
        accounts = [
            {"table_id": table_id, "seat": chair, "player_id": match.bots[index].player_id}
            for chair, index in enumerate(plan.bots)
            if match.bots[index].bot is None
        ]
        if accounts:
            with writer.engine.begin() as conn:
                conn.execute(insert(SeatPlayerRow), accounts)
        loaded = writer.load_table(table_id)
        assert loaded is not None
        stored.append(StoredMatchTable(loaded, writer.fences.pop(table_id, None)))
    return stored


def open_tables(manager: TableManager, stored: Sequence[StoredMatchTable]) -> None:
    """Put the match's stored tables in play on the event loop: each starts at once
    (every chair is taken) and is played as the server plays any table."""
    from chinese_poker.server.tables import LiveTable

    for item in stored:
        if item.fence is not None:  # the lease the writer took: the server's store writes
            manager.store.fences[item.table.id] = item.fence
        live = LiveTable(manager, item.table)
        manager.tables[item.table.id] = live
        if live.game.session is None:
            live.start_session()


def _store_new_match(store: Store, match: PlannedMatch) -> list[StoredMatchTable]:
    writer = match_writer(store)
    try:
        with writer.engine.begin() as conn:
            store_match(conn, match)
        return store_tables(writer, match)
    finally:
        writer.close()


async def start_match(
    manager: TableManager,
    preset: str,
    bots: Sequence[BotInMatch],
    deals: int,
    seed: int | None = None,
    now: float | None = None,
) -> str:
    """Store a match between ``bots`` and open its tables (every deal in both seatings;
    each starts at once and is played as the server plays any table). Its id. The
    database work is done in the server's setup thread, off the event loop."""
    match = plan_match(preset, bots, deals, seed, time.time() if now is None else now)
    stored = await manager.workers.setup(_store_new_match, manager.store, match)
    open_tables(manager, stored)
    return match.id


# --------------------------------------------------------------------------- collecting


def _seat_rows(
    match: Mapping[str, Any],
    record: Mapping[str, Any],
    players: Sequence[str],
    chairs: Mapping[str, int],
) -> list[dict[str, Any]]:
    """The ``bot_match_hands`` rows of one stored hand of a match table (``match``: its
    config's match; ``players``: the player id in each chair; ``chairs``: each name's)."""
    fouled = set((record.get("settlement") or {}).get("fouled") or [])
    qualified = record.get("fantasyland_qualified") or {}
    names = record["players"]
    rows = []
    for name in names:
        chair = chairs[name]
        rows.append(
            {
                "match_id": match["id"],
                "deal": int(match["deal"]),
                "seating": int(match["seating"]),
                "hand": int(record["session"]["hand"]),
                "seat": chair,
                "table_id": match["table"],
                "player_id": players[chair],
                "hand_seed": str(record["seed"]),
                "points": int(record["totals"][name]),
                "fouled": int(name in fouled),
                "fantasyland": int(bool(qualified.get(name))),
            }
        )
    return rows


def collect(conn: Connection, match_id: str) -> bool:
    """Store the hands of a match whose tables are all finished, and mark it finished
    (in ``conn``'s transaction); False (nothing written) while a table plays on."""
    row = conn.execute(select(BOT_MATCHES).where(BOT_MATCHES.c.id == match_id)).mappings().one()
    table_ids: list[str] = json.loads(row["tables"])
    players: list[str] = json.loads(row["players"])
    found = {
        r.id: r
        for r in conn.execute(
            select(TABLES.c.id, TABLES.c.status, TABLES.c.config).where(TABLES.c.id.in_(table_ids))
        )
    }
    if len(found) < len(table_ids) or any(r.status != "finished" for r in found.values()):
        return False
    rows: list[dict[str, Any]] = []
    for table_id in table_ids:
        match = {**json.loads(found[table_id].config)["match"], "table": table_id}
        chairs = {
            str(name): int(seat)
            for name, seat in conn.execute(
                select(SEATS.c.name, SEATS.c.seat).where(SEATS.c.table_id == table_id)
            )
        }
        # Seating s puts the match's bot j in chair j + s (simulate's rotation).
        n, rotation = len(players), int(match["seating"])
        in_chair = [players[(chair - rotation) % n] for chair in range(n)]
        for (text,) in conn.execute(
            select(HANDS.c.record)
            .where(HANDS.c.table_id == table_id, HANDS.c.record.is_not(None))
            .order_by(HANDS.c.number)
        ):
            rows.extend(_seat_rows(match, json.loads(text), in_chair, chairs))
    if rows:
        conn.execute(insert(BOT_MATCH_HANDS), rows)
    conn.execute(
        update(BOT_MATCHES)
        .where(BOT_MATCHES.c.id == match_id)
        .values(status="finished", finished_at=time.time())
    )
    conn.execute(delete(MATCH_PLACES).where(MATCH_PLACES.c.match_id == match_id))
    return True


def collect_finished(engine: Engine) -> list[str]:
    """Collect every playing match whose tables are all finished (each in a transaction
    of its own): their ids."""
    with engine.connect() as conn:
        unfinished = (
            conn.execute(select(BOT_MATCHES.c.id).where(BOT_MATCHES.c.status == "playing"))
            .scalars()
            .all()
        )
    collected = []
    for match_id in unfinished:
        try:
            with engine.begin() as conn:
                if collect(conn, match_id):
                    collected.append(match_id)
        except IntegrityError:
            pass  # another process's runner collected it first
    return collected


UNOPENED_SECONDS = 30.0
"""A match's tables are stored waiting and put in play a moment later (:func:`open_tables`);
one still waiting this long after its match was stored was never put in play (its
process stopped while starting the match), and a runner starts it."""


def unopened_tables(engine: Engine, stored_before: float) -> list[str]:
    """The tables still waiting of the playing matches stored before ``stored_before``."""
    with engine.connect() as conn:
        lists = conn.execute(
            select(BOT_MATCHES.c.tables).where(
                BOT_MATCHES.c.status == "playing", BOT_MATCHES.c.created_at < stored_before
            )
        ).scalars()
        ids = [table_id for text in lists for table_id in json.loads(text)]
        if not ids:
            return []
        waiting = select(TABLES.c.id).where(TABLES.c.id.in_(ids), TABLES.c.status == "waiting")
        return sorted(conn.execute(waiting).scalars())


def start_unopened(manager: TableManager, table_ids: Sequence[str]) -> int:
    """Put in play, on the event loop, the match tables that were stored but never put in
    play (:func:`unopened_tables`): each is taken (its lease) and starts as it would
    have; one another live process holds is left to it. How many started."""
    from chinese_poker.server.tables import TableMoved

    started = 0
    for table_id in table_ids:
        try:
            live = manager.get(table_id, flush=False)
        except TableMoved:
            continue
        if live is not None and live.game.session is None and not live.free_human_seats():
            live.start_session()
            started += 1
    return started


# --------------------------------------------------------------------------- the runner


@dataclass
class MatchRunner:
    """Starts matches within the budget and collects the finished ones, every
    ``interval`` seconds on the server's event loop (``serve --bot-matches``);
    ``entrants`` says who may be paired in a family (our own bots by default)."""

    manager: TableManager
    budget: MatchBudget
    interval: float = 2.0
    clock: Callable[[], float] = time.time
    entrants: Callable[[Connection, str], list[BotInMatch]] = entrants
    _turn: int = field(default=0, init=False)
    _writer: Store | None = field(default=None, init=False)

    async def run(self) -> None:
        """Tick until cancelled (a failed tick is logged; the next one tries again)."""
        try:
            while True:
                try:
                    await self.tick()
                except Exception:
                    log.exception("bot matches: a tick failed")
                await asyncio.sleep(self.interval)
        finally:
            self.close()

    def close(self) -> None:
        """Close the store the matches' tables are written with (if one was opened)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    async def tick(self) -> str | None:
        """Collect the finished matches, put in play the tables of a match whose start
        was cut short (:func:`unopened_tables`), then start one if the budget allows: its
        id. The database work is done in the server's setup thread, off the event loop."""
        workers = self.manager.workers
        engine = self.manager.store.engine
        await workers.setup(collect_finished, engine)
        if self.manager.draining or not self.manager.ready:
            return None
        unopened = await workers.setup(unopened_tables, engine, self.clock() - UNOPENED_SECONDS)
        start_unopened(self.manager, unopened)
        preset = self.budget.presets[self._turn % len(self.budget.presets)]
        self._turn += 1
        started = await workers.setup(self.store_next, preset)
        if started is None:
            return None
        match, stored = started
        open_tables(self.manager, stored)
        return match.id

    def store_next(self, preset: str) -> tuple[PlannedMatch, list[StoredMatchTable]] | None:
        """Store the next match of ``preset`` and its tables if the budget allows and a
        place is free (blocking: run in the setup thread); None if none starts."""
        store = self.manager.store
        planned = planned_hands(self.budget.deals)
        try:
            with store.engine.begin() as conn:
                now = self.clock()
                started = [
                    (float(at), planned_hands(deals))
                    for at, deals in conn.execute(
                        select(BOT_MATCHES.c.created_at, BOT_MATCHES.c.deals).where(
                            BOT_MATCHES.c.created_at > now - 3600.0
                        )
                    )
                ]
                playing = conn.execute(
                    select(func.count()).where(BOT_MATCHES.c.status == "playing")
                ).scalar_one()
                if not may_start(self.budget, now, started, int(playing), planned):
                    return None
                family = family_of(rules_for(preset))
                bots = self.entrants(conn, preset)
                played: dict[frozenset[str], int] = {}
                for (text,) in conn.execute(
                    select(BOT_MATCHES.c.players).where(BOT_MATCHES.c.family == family.value)
                ):
                    key = frozenset(json.loads(text))
                    played[key] = played.get(key, 0) + 1
                pair = next_pair(bots, played)
                if pair is None:
                    return None
                match = plan_match(preset, pair, self.budget.deals, None, now)
                if not start_in_place(conn, match, self.budget.at_once):
                    return None
        except IntegrityError:
            return None  # another process took the same place first
        if self._writer is None:
            self._writer = match_writer(store)
        return match, store_tables(self._writer, match)
