"""What the application holds, as its routes read it: one record and its dependencies.

:func:`~.app.create_app` builds a :class:`ServerHoldings` (its settings, rate limits,
the study desk's worker, the open sockets per address) and keeps it in
``app.state.holdings``; the start-up adds the store and the table manager
(``app.state.store``, ``app.state.manager``). The routes of every area
(:mod:`.pages`, :mod:`.lobby_routes`, :mod:`.accounts`, ...) are module-level functions
that read these through the FastAPI dependencies below, so a route can be found and
called in an application made of its router alone.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, HTTPException
from fastapi.responses import JSONResponse, Response
from starlette.requests import HTTPConnection, Request

from chinese_poker.server.db import Store
from chinese_poker.server.guard import Limits, SharedCounts, client_address
from chinese_poker.server.tables import LiveTable, TableManager

if TYPE_CHECKING:  # the desk's routes read this module
    from chinese_poker.server.bot_matches import MatchBudget
    from chinese_poker.server.desk import StudyPool

__all__ = [
    "IDLE_SECONDS",
    "STATIC_DIR",
    "Holdings",
    "Manager",
    "ServerHoldings",
    "database_unreachable",
    "holdings_of",
    "manager_of",
    "read_table",
    "store_of",
    "table_or_404",
    "throttle",
]

log = logging.getLogger("chinese_poker.server")

STATIC_DIR = Path(__file__).parent / "static"
"""The browser UI's files shipped with the package."""

IDLE_SECONDS = 300.0
"""A table nobody has used for this long leaves memory (it is rebuilt on demand)."""


@dataclass(frozen=True, slots=True)
class ServerHoldings:
    """One application's settings and the per-application state its routes share."""

    database_url: str | None
    public_url: str | None
    static: Path
    origins: tuple[str, ...]
    limits: Limits
    study: StudyPool
    hint_processes: bool
    pace_gc: bool
    idle_seconds: float
    sockets_per_address: int
    owner_address: str
    lease_seconds: float
    renew_seconds: float
    sign_ins: SharedCounts
    """Sign-in and identity attempts (:mod:`.accounts`), counted where ``limits`` counts:
    in this process, or in the Redis all processes share."""
    bot_matches: MatchBudget | None = None
    """The operator's budget for the bot-against-bot matches this process runs (None:
    none)."""
    open_sockets: dict[str, int] = field(default_factory=dict)
    """WebSockets open per client address, in this process."""


def holdings_of(connection: HTTPConnection) -> ServerHoldings:
    """The application's record (a request's or a WebSocket's)."""
    holdings: ServerHoldings = connection.app.state.holdings
    return holdings


def store_of(connection: HTTPConnection) -> Store:
    """The store the start-up opened."""
    store: Store = connection.app.state.store
    return store


def manager_of(connection: HTTPConnection) -> TableManager:
    """The live tables the start-up resumed."""
    manager: TableManager = connection.app.state.manager
    return manager


Holdings = Annotated[ServerHoldings, Depends(holdings_of)]
Manager = Annotated[TableManager, Depends(manager_of)]


async def throttle(connection: HTTPConnection, kind: str) -> None:
    """429 when this client address is over its limit of ``kind`` (else it counts)."""
    limits = holdings_of(connection).limits
    if not await limits.hit(kind, client_address(connection)):
        raise HTTPException(
            429, f"too many requests from your address (limit {limits.describe(kind)})"
        )


def _missing(manager: TableManager, table_id: str) -> HTTPException:
    if table_id in manager.quarantined:
        return HTTPException(503, f"table {table_id!r} is unavailable")
    return HTTPException(404, f"no table {table_id!r}")


def table_or_404(connection: HTTPConnection, table_id: str) -> LiveTable:
    """The live table, or 404 (503 for a table that cannot be rebuilt)."""
    manager = manager_of(connection)
    live = manager.get(table_id)
    if live is None:
        raise _missing(manager, table_id)
    return live


async def read_table(connection: HTTPConnection, table_id: str) -> LiveTable:
    """A table for a read endpoint: rate-limited per address, stored state only."""
    await throttle(connection, "read")
    manager = manager_of(connection)
    live = await manager.settled_table(table_id)
    if live is None:
        raise _missing(manager, table_id)
    return live


async def database_unreachable(_request: Request, exc: Exception) -> Response:
    """The database did not answer (restarting, or cut off): 503, try again shortly, and
    one line in the log instead of a 500 with a traceback per request."""
    log.warning("the database cannot be reached: %s", str(exc).splitlines()[0][:200])
    return JSONResponse(
        {"detail": "the database cannot be reached: try again in a moment"},
        503,
        headers={"Retry-After": "1"},
    )
