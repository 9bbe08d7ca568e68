"""The bots' ladder (issue 42 item 4): per rating family, every bot with its rating and
interval, its games, and its points a hand against each other bot from the duplicate
matches (:mod:`.bot_matches`), with 95% intervals; ``GET /api/ladder`` and the page
``/ladder`` (``static/ladder.html``).

Points a hand against another bot are counted as ``simulate --duplicate`` counts them,
so the two agree exactly on the same deals and seeds: per deal (both seatings of one
session's decks), the bot's mean over the deal's hands, exactly (fractions); the
interval is over the deals, of every match between the two (ai.simulate.stats.interval).
Foul and Fantasyland rates are over the bot's match hands: a share of its hands that
fouled, and of those that earned Fantasyland.

Who is on it: our own bots at each level of the family (:data:`.bot_matches.HOUSE_LEVELS`,
always, rated or not) and every bot account (a player of kind ``bot`` with an owner) with
a rating or a match in the family, with its owner's name and description.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, Response
from sqlalchemy import Connection, or_, select

from chinese_poker.ai.simulate import Interval, interval
from chinese_poker.server.accounts import PLAYERS, off_loop
from chinese_poker.server.bot_matches import HOUSE_LEVELS, house_bots
from chinese_poker.server.bot_names import STRENGTHS
from chinese_poker.server.holdings import Holdings, store_of, throttle
from chinese_poker.server.ratings import (
    BOT_SIGMA,
    FAMILIES,
    FAMILY_PATTERN,
    RATINGS,
    Family,
    bot_anchor,
    display,
    rate_pending,
)
from chinese_poker.server.schema import BOT_ACCOUNTS, BOT_MATCH_HANDS, BOT_MATCHES

__all__ = ["house_key", "ladder", "pair_points", "router"]

router = APIRouter(tags=["players"])

Z95 = 1.96
"""A rating's 95% interval is mu ± 1.96 sigma (openskill's sigma is a normal's)."""


def house_key(bot: str, level: int | None) -> str:
    """The page's name for one of our bots (its words: ``ladder.bot.<key>``): the lobby's
    strength where it has one, else the bot and level.

    >>> house_key("rules", None), house_key("mc", 3), house_key("mc", 1), house_key("mc", None)
    ('casual', 'expert', 'mc-1', 'mc')
    """
    strength = STRENGTHS.get((bot, None)) or STRENGTHS.get((bot, level))
    if strength is not None:
        return strength.lower()
    return bot + (f"-{level}" if level is not None else "")


def pair_points(
    rows: Iterable[Mapping[str, Any]], matches: Mapping[str, Sequence[str]]
) -> dict[tuple[str, str], Interval]:
    """Per (bot, opponent): the interval of the bot's points a hand over the deals of
    their matches, each deal's value its mean over both seatings' hands (``rows``: stored
    ``bot_match_hands``; ``matches``: each match's two player ids).

    >>> rows = [{"match_id": "m", "deal": 0, "player_id": p, "points": x}
    ...         for p, x in [("a", 3), ("b", -3), ("a", -1), ("b", 1), ("a", 2), ("b", -2)]]
    >>> got = pair_points(rows, {"m": ["a", "b"]})
    >>> got["a", "b"].n, got["a", "b"].mean, got["b", "a"].mean
    (1, 1.3333333333333333, -1.3333333333333333)
    """
    deals: dict[tuple[str, int, str], list[int]] = {}
    for r in rows:
        deals.setdefault((r["match_id"], int(r["deal"]), r["player_id"]), []).append(
            int(r["points"])
        )
    samples: dict[tuple[str, str], list[Fraction]] = {}
    for (match_id, _deal, player), points in sorted(deals.items()):
        pair = matches.get(match_id) or ()
        for opponent in pair:
            if opponent != player:
                samples.setdefault((player, opponent), []).append(
                    Fraction(sum(points), len(points))
                )
    return {pair: interval(values) for pair, values in samples.items()}


def _accounts(conn: Connection, family: Family, ids: set[str]) -> list[dict[str, Any]]:
    """The bot accounts on the ladder: with a rating in the family or in ``ids`` (its
    matches), with their owners' names and descriptions."""
    rated = select(RATINGS.c.player_id).where(RATINGS.c.family == family.value)
    owner = PLAYERS.alias("owner")
    query = (
        select(
            PLAYERS.c.id,
            PLAYERS.c.name,
            owner.c.name.label("owner_name"),
            BOT_ACCOUNTS.c.description,
        )
        .join(BOT_ACCOUNTS, BOT_ACCOUNTS.c.player_id == PLAYERS.c.id, isouter=True)
        .join(owner, owner.c.id == PLAYERS.c.owner, isouter=True)
        .where(
            PLAYERS.c.kind == "bot",
            PLAYERS.c.owner.is_not(None),
            or_(PLAYERS.c.id.in_(rated), PLAYERS.c.id.in_(sorted(ids))),
        )
        .order_by(PLAYERS.c.id)
    )
    return [dict(r) for r in conn.execute(query).mappings()]


def ladder(conn: Connection, family: Family) -> dict[str, Any]:
    """The ladder of ``family`` (the page's data; see the module's docstring)."""
    matches: dict[str, list[str]] = {
        mid: json.loads(players)
        for mid, players in conn.execute(
            select(BOT_MATCHES.c.id, BOT_MATCHES.c.players).where(
                BOT_MATCHES.c.family == family.value, BOT_MATCHES.c.status == "finished"
            )
        )
    }
    rows = [
        dict(r)
        for r in conn.execute(
            select(BOT_MATCH_HANDS).where(BOT_MATCH_HANDS.c.match_id.in_(sorted(matches)))
        ).mappings()
    ]
    in_matches = {p for pair in matches.values() for p in pair}
    entries: list[dict[str, Any]] = []
    for (bot, level), house in zip(HOUSE_LEVELS[family], house_bots(conn, family), strict=True):
        anchor = bot_anchor(family, (bot, level))
        entries.append(
            {
                "player": house.player_id,
                "house": house_key(bot, level),
                "bot": bot,
                "level": level,
                "fixed": (anchor, BOT_SIGMA) if anchor is not None else None,
            }
        )
    for account in _accounts(conn, family, in_matches):
        entries.append(
            {
                "player": account["id"],
                "name": account["name"],
                "owner": account["owner_name"],
                "description": account["description"] or "",
            }
        )
    ratings = {
        r["player_id"]: dict(r)
        for r in conn.execute(
            select(RATINGS).where(
                RATINGS.c.family == family.value,
                RATINGS.c.player_id.in_([e["player"] for e in entries]),
            )
        ).mappings()
    }
    points = pair_points(rows, matches)
    bots = [_bot_line(e, ratings.get(e["player"]), rows) for e in entries]
    bots.sort(key=lambda b: (-b["rating"], b["player"]))
    return {
        "family": family.value,
        "families": list(FAMILIES),
        "bots": bots,
        "pairs": [
            {"player": p, "opponent": o, "points_per_hand": i.to_dict()}
            for (p, o), i in sorted(points.items())
        ],
    }


def _bot_line(
    entry: Mapping[str, Any], row: Mapping[str, Any] | None, rows: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """One bot's line: its rating (a stored one, else its fixed anchor, else a
    newcomer's 0) and interval, its rated hands, and its match figures."""
    fixed = entry.get("fixed")
    if row is not None:
        mu, sigma = float(row["mu"]), float(row["sigma"])
    elif fixed is not None:
        mu, sigma = fixed
    else:
        mu, sigma = 25.0, 25.0 / 3
    mine = [r for r in rows if r["player_id"] == entry["player"]]
    hands = len(mine)

    def percent(key: str) -> float:
        return round(100 * sum(int(r[key]) for r in mine) / hands, 1) if hands else 0.0

    line = {k: v for k, v in entry.items() if k != "fixed"}
    line.update(
        rating=round(display(mu, sigma), 2),
        mu=round(mu, 3),
        sigma=round(sigma, 3),
        low=round(mu - Z95 * sigma, 2),
        high=round(mu + Z95 * sigma, 2),
        rated_hands=int(row["hands"]) if row is not None else 0,
        match_hands=hands,
        foul_percent=percent("fouled"),
        fantasyland_percent=percent("fantasyland"),
    )
    return line


@router.get("/api/ladder")
async def ladder_api(
    request: Request, family: str = Query(Family.OPEN_FACE.value, pattern=FAMILY_PATTERN)
) -> dict[str, Any]:
    """The bots' ladder of a family: every bot's rating and interval, games, foul and
    Fantasyland rates and description, and the points a hand of each against each other
    from the duplicate matches with 95% intervals; ``families``: every family's name."""
    await throttle(request, "read")
    store = store_of(request)

    def work() -> dict[str, Any]:
        rate_pending(store)
        with store.engine.begin() as conn:  # our bots' player rows are made on first sight
            return ladder(conn, Family(family))

    return await off_loop(request, work)


def _page(static: Path) -> Response:
    page = static / "ladder.html"
    if page.is_file():
        return FileResponse(page, media_type="text/html")
    return HTMLResponse("<!doctype html><title>Ladder</title><h1>Ladder</h1><p>/api/ladder</p>")


@router.get("/ladder", include_in_schema=False)
async def ladder_page(holdings: Holdings) -> Response:
    """The ladder's page (its family: ``?family=``, the default family without it)."""
    return _page(holdings.static)


# One page per family: /ladder/open-face, /ladder/classic.
for _family in HOUSE_LEVELS:
    router.add_api_route(
        f"/ladder/{_family.value}", ladder_page, methods=["GET"], include_in_schema=False
    )
