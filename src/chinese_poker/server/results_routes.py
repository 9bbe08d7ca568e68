"""A table's results over REST: the session ledger, every hand's fairness commitment
and reveal, and the finished hands' histories to download (docs/hand-history.md)."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Query, Request, Response

from chinese_poker.server.holdings import Manager, read_table
from chinese_poker.server.responses import HandInfo, LedgerInfo

__all__ = ["router"]

router = APIRouter(tags=["results"])


@router.get("/api/tables/{table_id}/ledger", response_model=LedgerInfo)
async def ledger(request: Request, table_id: str) -> dict[str, Any]:
    """The session ledger: points, pairs, money (and chips in a tournament)."""
    return (await read_table(request, table_id)).ledger_info()


@router.get("/api/tables/{table_id}/hands", response_model=list[HandInfo])
async def hands(request: Request, table_id: str) -> list[dict[str, Any]]:
    """Every hand's fairness commitment, with the seed and salt once it is played."""
    return (await read_table(request, table_id)).hands_info()


@router.get(
    "/api/tables/{table_id}/history",
    response_class=Response,
    responses={
        200: {
            "description": "JSON Lines: one hand-history record (docs/hand-history.md)"
            " per finished hand, with its `fairness` block",
            "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
        }
    },
)
async def history(
    request: Request, table_id: str, manager: Manager, hand: int | None = Query(None, ge=1)
) -> Response:
    """Download the finished hands (the engine's hand-history format + fairness)."""
    live = await read_table(request, table_id)
    records = manager.store.records(live.id, hand)
    body = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)
    return Response(
        body,
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{table_id}.jsonl"'},
    )
