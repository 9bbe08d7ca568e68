"""Profiles and the leaderboard over REST: a player's figures and rating per family
with his recent ratings, and each family's players and bots by rating.

Both bring the ratings up to date with the stored hands first
(:func:`~.ratings.rate_pending`), in the server's setup worker, off the event loop.
"""

from __future__ import annotations

from typing import Any, cast

from fastapi import APIRouter, HTTPException, Query, Request
from sqlalchemy import select

from chinese_poker.server.accounts import PLAYERS, off_loop, public_player
from chinese_poker.server.holdings import store_of, throttle
from chinese_poker.server.ratings import (
    EVENTS,
    FAMILIES,
    FAMILY_PATTERN,
    RATINGS,
    Family,
    display,
    profile_figures,
    rate_pending,
)

__all__ = ["HISTORY_PER_FAMILY", "router"]

router = APIRouter(tags=["players"])

HISTORY_PER_FAMILY = 200
"""Rating events a profile shows per family: the latest ones."""


@router.get("/api/players/{player_id}")
async def profile(request: Request, player_id: str) -> dict[str, Any]:
    """A player's figures and rating per family, with the rating after each of his
    last :data:`HISTORY_PER_FAMILY` hands of the family."""
    await throttle(request, "read")
    store = store_of(request)

    def work() -> dict[str, Any] | None:
        rate_pending(store)
        with store.engine.connect() as conn:
            row = conn.execute(select(PLAYERS).where(PLAYERS.c.id == player_id)).mappings().first()
            if row is None:
                return None
            families = [
                profile_figures(r)
                for r in conn.execute(
                    select(RATINGS)
                    .where(RATINGS.c.player_id == player_id)
                    .order_by(RATINGS.c.family)
                ).mappings()
            ]
            history: dict[str, list[dict[str, Any]]] = {}
            for fam in families:
                latest = conn.execute(
                    select(EVENTS)
                    .where(EVENTS.c.player_id == player_id, EVENTS.c.family == fam["family"])
                    .order_by(EVENTS.c.id.desc())
                    .limit(HISTORY_PER_FAMILY)
                ).mappings()
                history[fam["family"]] = [
                    {
                        "table_id": e["table_id"],
                        "hand": e["hand"],
                        "at": e["at"],
                        "rating": round(display(e["mu"], e["sigma"]), 2),
                    }
                    for e in reversed(list(latest))
                ]
        return {**public_player(dict(row)), "families": families, "history": history}

    done = await off_loop(request, work)
    if done is None:
        raise HTTPException(404, f"no player {player_id!r}")
    return done


@router.get("/api/leaderboard")
async def leaderboard(
    request: Request,
    family: str = Query(Family.OPEN_FACE.value, pattern=FAMILY_PATTERN),
    limit: int = Query(50, ge=1, le=500),
) -> dict[str, Any]:
    """Players and bots of a family by rating (mu - 3 sigma), best first; ``families``:
    every family's name (the browser's tabs)."""
    await throttle(request, "read")
    store = store_of(request)
    # The ranking of ratings.display, in SQL: the database sorts and cuts.
    rank = cast(Any, display(cast(Any, RATINGS.c.mu), cast(Any, RATINGS.c.sigma)))

    def work() -> list[dict[str, Any]]:
        rate_pending(store)
        with store.engine.connect() as conn:
            rows = list(
                conn.execute(
                    select(RATINGS, PLAYERS.c.name, PLAYERS.c.kind)
                    .join(PLAYERS, PLAYERS.c.id == RATINGS.c.player_id)
                    .where(RATINGS.c.family == family)
                    .order_by(rank.desc(), RATINGS.c.player_id)
                    .limit(limit)
                ).mappings()
            )
        return [
            {
                "player": r["player_id"],
                "name": r["name"] or "(no name)",
                "kind": r["kind"],
                **profile_figures(r),
            }
            for r in rows
        ]

    players = await off_loop(request, work)
    return {"family": family, "families": list(FAMILIES), "players": players}
