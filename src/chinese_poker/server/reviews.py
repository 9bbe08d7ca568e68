"""The review of a stored hand over HTTP, computed in the hint workers.

``GET /api/tables/{id}/hands/{n}/review`` reviews a finished hand of the table
(:func:`chinese_poker.ai.review.review_hand`, at the review's fixed strength): in the
hint worker pool of :mod:`.scheduling` (a worker process at a lower priority, bounded:
one pending review per hand, at most :data:`~.scheduling.HINT_PER_PLAYER` of one client
address and :data:`~.scheduling.HINT_QUEUE` on the server with the hints, more are
``503 busy``), never on the event loop. A review
never changes, so it is stored (``hand_reviews``) and the next request reads it.
Histories are public (``/history``), and so are their reviews.

Each hand a person played is reviewed as soon as it ends (:func:`review_ahead`, called
by the table), in the same workers at the table's own place in the fair share, so that
opening it shows it at once. A request for a review being worked out waits for that
work (never a second one); if the workers were full when the hand ended, the review is
worked out when it is first asked for, as before.
"""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from typing import Any, cast

from fastapi import APIRouter, HTTPException, Request
from sqlalchemy import Table as SATable
from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from chinese_poker.ai.review import REVIEW_LEVEL, HandReview, review_record, summarise
from chinese_poker.server.db import Store
from chinese_poker.server.guard import client_address
from chinese_poker.server.holdings import manager_of, throttle
from chinese_poker.server.ratings import HandReviewRow
from chinese_poker.server.scheduling import HINT_DEADLINE
from chinese_poker.server.tables import TableManager

__all__ = ["SESSION_REVIEW_NEW", "hand_review", "review_ahead", "router", "stored_review"]

log = logging.getLogger("chinese_poker.server")

router = APIRouter(tags=["results"])

SESSION_REVIEW_NEW = 3
"""Hands not reviewed yet that one session-review request reviews (the rest: pending)."""

_REVIEWS = cast(SATable, HandReviewRow.__table__)


def stored_review(store: Store, table_id: str, hand: int) -> dict[str, Any] | None:
    with store.engine.connect() as conn:
        cached = conn.execute(
            select(_REVIEWS.c.data).where(
                _REVIEWS.c.table_id == table_id,
                _REVIEWS.c.number == hand,
                _REVIEWS.c.level == REVIEW_LEVEL,
            )
        ).scalar_one_or_none()
    if cached is None:
        return None
    data: dict[str, Any] = json.loads(cached)
    return data


# The reviews each server's manager is working out now, by (table, hand).
_WORKING: weakref.WeakKeyDictionary[
    TableManager, dict[tuple[str, int], asyncio.Task[dict[str, Any]]]
] = weakref.WeakKeyDictionary()
_AHEAD: set[asyncio.Task[None]] = set()  # the reviews ahead running (held till done)


async def hand_review(
    manager: TableManager,
    table_id: str,
    hand: int,
    player: str = "",
    record: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The review of a finished hand: stored, being worked out (it waits for that), or
    computed now at ``player``'s turn (his client address: the fair share of
    :mod:`.scheduling`). ``record``: the hand's history line as stored, from the table
    that has just stored it (nobody can have reviewed it yet): the database is not read
    (two reads a hand, a good part of a move's CPU in lock step)."""
    if record is None:
        cached = stored_review(manager.store, table_id, hand)
        if cached is not None:
            return cached
    working = _WORKING.setdefault(manager, {})
    key = (table_id, hand)
    task = working.get(key)
    if task is None:
        if record is None:
            records = manager.store.records(table_id, hand)
            if not records:
                raise HTTPException(409, f"hand {hand} of this table is not finished")
            record = records[0]
        task = asyncio.ensure_future(_work_out(manager, table_id, hand, record, player))
        working[key] = task
        task.add_done_callback(lambda _t: working.pop(key, None))
    # Shielded: a reader who goes away does not cancel the work another one waits for.
    return await asyncio.shield(task)


def review_ahead(
    manager: TableManager, table_id: str, hand: int, record: dict[str, Any] | None = None
) -> None:
    """Start reviewing a hand that just ended, so that it opens at once (the table is
    its own player in the fair share: one table's hands do not crowd out others').
    ``record``: its history line as stored (see :func:`hand_review`)."""

    async def ahead() -> None:
        try:
            await hand_review(manager, table_id, hand, f"table:{table_id}", record)
        except HTTPException as exc:  # busy, or too long: worked out when asked for
            log.info("table %s: hand %d not reviewed ahead: %s", table_id, hand, exc.detail)
        except Exception:
            log.exception("table %s: reviewing hand %d ahead failed", table_id, hand)

    task = asyncio.ensure_future(ahead())
    _AHEAD.add(task)
    task.add_done_callback(_AHEAD.discard)


async def _work_out(
    manager: TableManager, table_id: str, hand: int, record: dict[str, Any], player: str
) -> dict[str, Any]:
    """Review the hand in the hint workers and store it."""
    store = manager.store
    workers = manager.workers
    key = (f"review:{table_id}", hand)
    if not workers.hint_slot(key, player) or not await workers.hint_admitted(key):
        raise HTTPException(503, "the server is busy with other reviews: try again soon")
    try:
        result: dict[str, Any] = await workers.hint_for(player, review_record, record, hand)
    except TimeoutError:
        raise HTTPException(
            503, f"the review took longer than {HINT_DEADLINE:.0f} s: try again later"
        ) from None
    finally:
        workers.hint_done(key)
    if "error" in result:
        raise HTTPException(422, result["error"])
    result = {"table_id": table_id, "hand": hand, "level": REVIEW_LEVEL, **result}
    try:
        with store.engine.begin() as conn:
            conn.execute(
                insert(_REVIEWS).values(
                    table_id=table_id, number=hand, level=REVIEW_LEVEL, data=json.dumps(result)
                )
            )
    except IntegrityError:
        pass  # stored by a request that finished first: the same review
    return result


def _live_manager(request: Request, table_id: str) -> TableManager:
    manager = manager_of(request)
    if manager.get(table_id) is None:
        raise HTTPException(404, f"no table {table_id!r}")
    return manager


@router.get("/api/tables/{table_id}/hands/{hand}/review")
async def review(request: Request, table_id: str, hand: int) -> dict[str, Any]:
    """Each decision of the hand next to the best one, the expected points lost and
    the marks (docs/review.md); 409 while the hand is not finished."""
    await throttle(request, "read")
    manager = _live_manager(request, table_id)
    if hand < 1:
        raise HTTPException(400, "hands are numbered from 1")
    return await hand_review(manager, table_id, hand, client_address(request))


@router.get("/api/tables/{table_id}/review")
async def session_review(request: Request, table_id: str) -> dict[str, Any]:
    """The session so far: each player's accuracy and expected points lost per hand
    over the finished hands reviewed so far (each hand reviewed, or read back, as
    above). At most :data:`SESSION_REVIEW_NEW` hands not reviewed yet are reviewed
    per request; ``pending`` counts the others (ask again for them)."""
    from chinese_poker.ai.review import HandReview

    await throttle(request, "read")
    manager = _live_manager(request, table_id)
    live = manager.get(table_id)
    assert live is not None  # _live_manager found it
    numbers = [h["hand"] for h in live.hands_info() if h["finished"]]
    reviewed: list[int] = []
    hands: list[HandReview] = []
    pending = computed = 0
    for n in numbers:
        data = stored_review(manager.store, table_id, n)
        if data is None:
            if computed >= SESSION_REVIEW_NEW:
                pending += 1  # one request cannot hold the review workers for long
                continue
            computed += 1
            data = await hand_review(manager, table_id, n, client_address(request))
        reviewed.append(n)
        hands.append(HandReview.from_dict(data))
    players: list[str] = []
    for h in hands:
        players += [p for p in h.players if p not in players]
    return {
        "table_id": table_id,
        "level": REVIEW_LEVEL,
        "hands": reviewed,
        "pending": pending,
        "players": [summarise(hands, p).to_dict() for p in players],
    }
