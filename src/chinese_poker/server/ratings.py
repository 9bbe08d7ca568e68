"""Ratings (openskill's Plackett-Luce model) and players' figures, per variant family.

Every finished hand of the server is one match among its players, ranked by the hand's
points (ties share a place): :func:`rate_hand` is one ``model.rate(teams, scores=...)``
call of the library, one one-player team per seat. Ratings are kept per **family**
(:func:`family_of`: ``classic`` for the 13-card games, ``open-face`` for OFC and its
kin), for people and bots alike.

**Bots anchor the scale.** A bot's rating is fixed: its anchor (:data:`BOT_ANCHORS`, by
bot and level, measured in bot-against-bot play by ``bench/bench_rating_anchors.py`` with the
rules bot pinned at the library's default mean of 25) enters every match it plays, and
is never moved by the result. People's ratings move against these fixed points, so the
scale cannot drift as people come and go, and "25" always means "plays like the rules
bot". A bot with no anchor is rated like a person.

:func:`rate_pending` brings the stored ratings up to date with the stored hands: it
takes the finished hands not rated yet, in the order they finished, and rates each
once (``rated_hands`` records which). It also adds up each player's figures (hands,
points, fouls, Fantasyland entries, royalties) and writes a rating event per hand for
the chart. It is run off the event loop, when a profile or the leaderboard is read.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, cast

from openskill.models import PlackettLuce
from sqlalchemy import (
    BigInteger,
    Connection,
    Double,
    ForeignKey,
    Index,
    Integer,
    RowMapping,
    String,
    Text,
    and_,
    insert,
    select,
    update,
)
from sqlalchemy import Table as SATable
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Mapped, mapped_column

from chinese_poker.rules import Rules
from chinese_poker.server.db import Base, BigId, HandRow, SeatRow, Store

__all__ = [
    "BOT_ANCHORS",
    "BOT_SIGMA",
    "EVENTS",
    "FAMILIES",
    "FAMILY_PATTERN",
    "RATINGS",
    "Family",
    "Participant",
    "RatingRow",
    "bot_anchor",
    "display",
    "family_of",
    "model",
    "rate_hand",
    "rate_pending",
    "same_owner",
]


class Family(StrEnum):
    """A rating family: the games whose hands rate a player on one scale. The one list
    of them: the leaderboard's ``family`` and its ``families`` (the browser's tabs, in
    this order, the default first), the stored rows and the anchors read it."""

    OPEN_FACE = "open-face"
    CLASSIC = "classic"


FAMILIES = tuple(f.value for f in Family)
"""The families' names, the leaderboard's default first."""

FAMILY_PATTERN = "^(" + "|".join(sorted(FAMILIES)) + ")$"
"""A family's name, as a query parameter's pattern (the names have no special characters)."""

#: A bot's fixed rating (mean) per family, bot and level (None: a bot without levels).
#: Measured by ``bench/bench_rating_anchors.py`` (docs/browser.md, "Ratings" has the run).
BOT_ANCHORS: dict[Family, dict[tuple[str, int | None], float]] = {
    # The mean of three runs (seeds 2, 3 and 4) of 80 deals per pairing, each played
    # twice (1,600 hands a run; sigma about 1.6 on each mc level's mean in a run, 2.0 on
    # random's), re-measured on 2026-12-03 with mc level 3 as it plays Pineapple since
    # issue 11's round seven
    Family.OPEN_FACE: {
        ("random", None): 11.3,
        ("rules", None): 25.0,
        ("mc", 1): 28.3,
        ("mc", 2): 29.6,
        ("mc", 3): 29.9,
    },
    # 300 deals per pairing; the Monte Carlo bot sets classic hands with the setting
    # solver at every level: one anchor for all its levels
    Family.CLASSIC: {
        ("random", None): 5.6,
        ("rules", None): 25.0,
        ("mc", None): 29.4,
    },
}

#: The uncertainty an anchor enters a match with (small: it is a known strength).
BOT_SIGMA = 1.0


def model() -> PlackettLuce:
    """The rating model: openskill's Plackett-Luce with the library's defaults."""
    return PlackettLuce()


def family_of(rules: Rules) -> Family:
    """:attr:`Family.OPEN_FACE` or :attr:`Family.CLASSIC`."""
    return Family.OPEN_FACE if rules.is_open_face else Family.CLASSIC


def display(mu: float, sigma: float) -> float:
    """The rating shown and ranked: the library's ordinal, mu - 3 sigma (conservative:
    a newcomer starts at 0 and rises as his rating becomes certain)."""
    return mu - 3.0 * sigma


@dataclass(frozen=True, slots=True)
class Participant:
    """One seat of a rated hand: its rating going in, and whether it is an anchor."""

    mu: float
    sigma: float
    anchor: bool = False


def rate_hand(
    participants: Sequence[Participant], scores: Sequence[float]
) -> list[tuple[float, float]]:
    """The (mu, sigma) of every participant after one hand (anchors keep theirs).

    >>> after = rate_hand([Participant(25, 25 / 3), Participant(25, 1, anchor=True)], [6, -6])
    >>> after[0][0] > 25, after[1]
    (True, (25.0, 1.0))
    """
    if len(participants) != len(scores) or len(participants) < 2:
        raise ValueError("a rated hand needs two or more participants, one score each")
    m = model()
    teams = [[m.rating(mu=p.mu, sigma=p.sigma)] for p in participants]
    rated = m.rate(teams, scores=list(scores))
    out = []
    for p, team in zip(participants, rated, strict=True):
        mu, sigma = (p.mu, p.sigma) if p.anchor else (team[0].mu, team[0].sigma)
        out.append((float(mu), float(sigma)))
    return out


# --------------------------------------------------------------------------- storage


class RatingRow(Base):
    """A player's rating and figures in one family."""

    __tablename__ = "ratings"

    player_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    family: Mapped[str] = mapped_column(String(16), primary_key=True)
    mu: Mapped[float] = mapped_column(Double)
    sigma: Mapped[float] = mapped_column(Double)
    hands: Mapped[int] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(BigInteger)
    fouls: Mapped[int] = mapped_column(Integer)
    fantasylands: Mapped[int] = mapped_column(Integer)
    royalties: Mapped[int] = mapped_column(BigInteger)
    updated_at: Mapped[float] = mapped_column(Double)


class RatingEventRow(Base):
    """A player's rating after one hand (the profile's chart)."""

    __tablename__ = "rating_events"
    __table_args__ = (Index("ix_rating_events_player", "player_id", "family", "id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(String(40))
    family: Mapped[str] = mapped_column(String(16))
    table_id: Mapped[str] = mapped_column(String(32))
    hand: Mapped[int] = mapped_column(Integer)
    at: Mapped[float] = mapped_column(Double)
    mu: Mapped[float] = mapped_column(Double)
    sigma: Mapped[float] = mapped_column(Double)


class RatedHandRow(Base):
    """A hand already counted in the ratings."""

    __tablename__ = "rated_hands"

    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    rated_at: Mapped[float] = mapped_column(Double)


class HandReviewRow(Base):
    """A stored review of one hand at one level (a review never changes)."""

    __tablename__ = "hand_reviews"

    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    level: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[str] = mapped_column(Text)


RATINGS = cast(SATable, RatingRow.__table__)
EVENTS = cast(SATable, RatingEventRow.__table__)
_RATED = cast(SATable, RatedHandRow.__table__)
_HANDS = cast(SATable, HandRow.__table__)
_SEATS = cast(SATable, SeatRow.__table__)


def rate_pending(store: Store, batch: int = 500) -> int:
    """Rate the finished hands not rated yet, oldest first (``batch`` at a time); returns
    how many were rated. Each hand is rated in its own transaction with its mark."""
    done = 0
    while True:
        count = _rate_batch(store, batch)
        done += count
        if count < batch:
            return done


def _rate_batch(store: Store, limit: int) -> int:
    with store.engine.connect() as conn:
        rows = list(
            conn.execute(
                select(_HANDS.c.table_id, _HANDS.c.number, _HANDS.c.finished_at)
                .select_from(
                    _HANDS.outerjoin(
                        _RATED,
                        and_(
                            _RATED.c.table_id == _HANDS.c.table_id,
                            _RATED.c.number == _HANDS.c.number,
                        ),
                    )
                )
                .where(_HANDS.c.record.is_not(None), _RATED.c.table_id.is_(None))
                .order_by(_HANDS.c.finished_at, _HANDS.c.table_id, _HANDS.c.number)
                .limit(limit)
            )
        )
    done = 0
    for table_id, number, finished_at in rows:
        try:
            _rate_stored(store, table_id, number, finished_at)
        except IntegrityError:
            continue  # another process was first (this hand, or a bot's row): next time
        except OperationalError as exc:
            if _sqlstate(exc) not in _TRY_AGAIN:
                raise
            continue  # PostgreSQL chose this transaction to break a lock cycle: next time
        done += 1
    return done


#: PostgreSQL's deadlock and serialization failures: the transaction is rolled back whole,
#: and rating the hand again later is safe.
_TRY_AGAIN = ("40P01", "40001")


def _sqlstate(exc: OperationalError) -> str | None:
    code = getattr(exc.orig, "sqlstate", None) or getattr(exc.orig, "pgcode", None)
    return code if isinstance(code, str) else None


def _rate_stored(store: Store, table_id: str, number: int, finished_at: float | None) -> None:
    """Rate one stored hand in one transaction, which first claims it in ``rated_hands``
    (a second process rating the same hand fails there and changes nothing)."""
    with store.engine.begin() as conn:
        _rate_in(conn, table_id, number, finished_at)


def _rate_in(conn: Connection, table_id: str, number: int, finished_at: float | None) -> None:
    """:func:`_rate_stored` inside the caller's transaction ``conn``."""
    from chinese_poker.server.accounts import bot_player, seat_player_ids

    conn.execute(insert(_RATED).values(table_id=table_id, number=number, rated_at=time.time()))
    record_text = conn.execute(
        select(_HANDS.c.record).where(_HANDS.c.table_id == table_id, _HANDS.c.number == number)
    ).scalar_one()
    seats = list(conn.execute(select(_SEATS).where(_SEATS.c.table_id == table_id)).mappings())
    linked = seat_player_ids(conn, table_id)
    ids: dict[str, str | None] = {}
    bots: dict[str, tuple[str, int | None]] = {}
    for s in seats:
        if s["kind"] == "bot" and s["bot"]:
            name = s["name"] or ""
            bots[name] = (s["bot"], s["level"])
            ids[name] = bot_player(conn, s["bot"], s["level"])
        else:
            ids[s["name"] or f"Seat {s['seat'] + 1}"] = linked.get(s["seat"])
    if same_owner(conn, [pid for pid in ids.values() if pid is not None]):
        return  # claimed, never rated: nobody farms a rating off his own accounts
    _rate_one(
        conn,
        table_id,
        number,
        finished_at or time.time(),
        json.loads(record_text),
        ids,
        bots,
    )


def same_owner(conn: Connection, player_ids: Sequence[str]) -> bool:
    """Two of ``player_ids`` answer to the same person: a person and a bot account he
    owns, or two bot accounts of one owner (issue 42 item 5: such a hand is not rated,
    for anyone at it). Our own bots have no owner, and a person is his own.
    """
    from chinese_poker.server.accounts import PLAYERS

    if len(player_ids) < 2:
        return False
    rows = conn.execute(
        select(PLAYERS.c.id, PLAYERS.c.kind, PLAYERS.c.owner).where(
            PLAYERS.c.id.in_(sorted(set(player_ids)))
        )
    ).all()
    answers = {pid: owner if kind == "bot" else pid for pid, kind, owner in rows}
    whose = [answers[pid] for pid in player_ids if answers.get(pid) is not None]
    return len(whose) != len(set(whose))


def _rate_one(
    conn: Connection,
    table_id: str,
    number: int,
    at: float,
    record: Mapping[str, Any],
    ids: Mapping[str, str | None],
    bots: Mapping[str, tuple[str, int | None]],
) -> None:
    family = _family_of_record(record)
    players = _rated_players(record)
    if family is None or players is None:
        return  # not a record this version reads, or not a match: nothing to rate
    totals = record["totals"]
    figures = _figures(record, players)
    ids = _one_chair_each(ids, players)
    rows = _locked_ratings(conn, [p for p in (ids.get(name) for name in players) if p], family)
    current = {
        name: rows.get(pid) if (pid := ids.get(name)) is not None else None for name in players
    }
    participants = [_participant(family, bots.get(name), current[name]) for name in players]
    after = rate_hand(participants, [float(totals[p]) for p in players])
    # Written in the players' order (as the rows were locked): two raters inserting the
    # same new players' rows cannot wait for each other in a circle.
    rated = sorted(zip(players, after, strict=True), key=lambda x: ids.get(x[0]) or "")
    for name, (mu, sigma) in rated:
        pid = ids.get(name)
        if pid is None:
            continue  # a person without an identity: rated as a newcomer, not stored
        where = _RatedSeat(pid, family, table_id, number, at)
        _store_rating(conn, where, current[name], figures[name], mu, sigma)


def _family_of_record(record: Mapping[str, Any]) -> Family | None:
    try:
        return family_of(Rules.from_dict(record["rules"]))
    except (KeyError, TypeError, ValueError):
        return None


def _rated_players(record: Mapping[str, Any]) -> list[str] | None:
    """The hand's players, if two or more of them all have a total."""
    players = [p for p in record.get("players") or [] if isinstance(p, str)]
    totals = record.get("totals") or {}
    if len(players) < 2 or any(p not in totals for p in players):
        return None
    return players


def _one_chair_each(ids: Mapping[str, str | None], players: Sequence[str]) -> dict[str, str | None]:
    """``ids`` without a person in two chairs of one hand (his own invite opened in the
    same browser): neither chair counts for him, so he cannot rate himself against himself."""
    seen = [ids.get(name) for name in players]
    twice = {pid for pid in seen if pid is not None and seen.count(pid) > 1}
    return {name: (None if pid in twice else pid) for name, pid in ids.items()}


def _participant(
    family: Family, bot: tuple[str, int | None] | None, row: Mapping[str, Any] | None
) -> Participant:
    """A seat going into the match: a bot's anchor, a stored rating, or a newcomer's."""
    anchor = bot_anchor(family, bot)
    if anchor is not None:
        return Participant(anchor, BOT_SIGMA, anchor=True)
    if row is not None:
        return Participant(row["mu"], row["sigma"])
    m = model()
    return Participant(m.mu, m.sigma)


@dataclass(frozen=True, slots=True)
class _RatedSeat:
    """Whose rating one hand moves: the player, the family, and the hand."""

    player_id: str
    family: Family
    table_id: str
    hand: int
    at: float


def _store_rating(
    conn: Connection,
    seat: _RatedSeat,
    row: Mapping[str, Any] | None,
    figures: tuple[int, bool, bool, int],
    mu: float,
    sigma: float,
) -> None:
    """Write a player's rating and figures after the hand (his first row, or added to
    ``row``), and the hand's rating event for his chart."""
    points, fouled, fantasyland, royalties = figures
    family = seat.family.value  # the stored name, whatever the driver makes of an enum
    values = {"mu": mu, "sigma": sigma, "updated_at": seat.at}
    if row is None:
        conn.execute(
            insert(RATINGS).values(
                player_id=seat.player_id,
                family=family,
                hands=1,
                points=points,
                fouls=int(fouled),
                fantasylands=int(fantasyland),
                royalties=royalties,
                **values,
            )
        )
    else:
        conn.execute(
            update(RATINGS)
            .where(RATINGS.c.player_id == seat.player_id, RATINGS.c.family == family)
            .values(
                hands=row["hands"] + 1,
                points=row["points"] + points,
                fouls=row["fouls"] + int(fouled),
                fantasylands=row["fantasylands"] + int(fantasyland),
                royalties=row["royalties"] + royalties,
                **values,
            )
        )
    conn.execute(
        insert(EVENTS).values(
            player_id=seat.player_id,
            family=family,
            table_id=seat.table_id,
            hand=seat.hand,
            at=seat.at,
            mu=mu,
            sigma=sigma,
        )
    )


def bot_anchor(family: Family, bot: tuple[str, int | None] | None) -> float | None:
    """The fixed rating (mean) of our ``bot`` (name, level) in ``family``; None for a bot
    without one (rated like a person)."""
    if bot is None:
        return None
    from chinese_poker.ai.mc import DEFAULT_LEVEL

    anchors = BOT_ANCHORS[family]
    name, level = bot
    if name == "mc-v1":
        # The frozen baseline: mc's levels, except levels 3 to 5 in Pineapple (Rounds
        # four and seven) and in OFC and Turbo (Round six), where it is about 0.4 to 1.3
        # points a hand weaker than mc (docs/bots-research.md, Round ten): inside the anchors'
        # own uncertainty (sigma about 1.6), so it takes mc's.
        name = "mc"
    for key in ((name, level), (name, None), (name, DEFAULT_LEVEL if level is None else -1)):
        if key in anchors:
            return anchors[key]
    return None  # not measured (an mc level 4 or 5 stored before they were withdrawn)


def _locked_ratings(conn: Connection, pids: Sequence[str], family: Family) -> dict[str, Any]:
    """The stored ratings of ``pids`` in ``family``, by player, locked until the
    transaction ends (``SELECT ... FOR UPDATE``): a second process rating another hand of
    the same player waits here, and then reads the rating this one writes, instead of
    overwriting it with one computed from the rating before (a lost update). The rows are
    locked in one order. SQLite has no row locks and needs none: the transaction holds
    its write lock from its first statement, the claim in ``rated_hands``. A player with
    no row yet locks nothing; two first ratings at once collide on the new row's key, and
    the second is rated again later (so is a transaction PostgreSQL breaks a lock cycle
    with, say two new bots' rows inserted in opposite orders)."""
    if not pids:
        return {}
    query = (
        select(RATINGS)
        .where(RATINGS.c.player_id.in_(sorted(set(pids))), RATINGS.c.family == family.value)
        .order_by(RATINGS.c.player_id)
        .with_for_update()
    )
    return {row["player_id"]: dict(row) for row in conn.execute(query).mappings()}


def _figures(
    record: Mapping[str, Any], players: Sequence[str]
) -> dict[str, tuple[int, bool, bool, int]]:
    """Per player: (points, fouled any board, earned Fantasyland, royalties)."""
    totals = record.get("totals") or {}
    settlement = record.get("settlement") or {}
    qualified = record.get("fantasyland_qualified") or {}
    fouled = set(settlement.get("fouled") or [])
    royalties: dict[str, int] = {}
    foul_players: set[str] = set()
    for box in settlement.get("players") or []:
        who = box.get("player") or box.get("name")
        royalties[who] = royalties.get(who, 0) + int(box.get("royalties") or 0)
        if box.get("fouled") or box.get("name") in fouled:
            foul_players.add(who)
    return {
        p: (int(totals[p]), p in foul_players, bool(qualified.get(p)), royalties.get(p, 0))
        for p in players
    }


def profile_figures(row: Mapping[str, Any] | RowMapping) -> dict[str, Any]:
    """A rating row as the profile shows it."""
    hands = int(row["hands"])
    per = (lambda x: x / hands) if hands else (lambda x: 0.0)
    return {
        "family": row["family"],
        "rating": round(display(row["mu"], row["sigma"]), 2),
        "mu": round(row["mu"], 3),
        "sigma": round(row["sigma"], 3),
        "hands": hands,
        "points_per_hand": round(per(row["points"]), 3),
        "foul_percent": round(100 * per(row["fouls"]), 1),
        "fantasyland_percent": round(100 * per(row["fantasylands"]), 1),
        "royalties_per_hand": round(per(row["royalties"]), 3),
    }
