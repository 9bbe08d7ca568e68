"""The FastAPI application: it wires the routers of every area and runs the tables.

>>> app = create_app("sqlite:///:memory:")
>>> sorted({r.path for r in app.routes if r.path.startswith("/api/tables")})[:2]
['/api/tables', '/api/tables/{table_id}']

Each area's routes are module-level functions of its own router: the pages
(:mod:`.pages`), the study desk (:mod:`.desk`), players and sign-in (:mod:`.accounts`),
profiles and the leaderboard (:mod:`.profile_routes`), reviews (:mod:`.reviews`), what
the server offers (:mod:`.meta_routes`), the lobby (:mod:`.lobby_routes`), a table's
results (:mod:`.results_routes`) and the play WebSocket (:mod:`.play_socket`). They read
what the application holds through :mod:`.holdings`.

The database is migrated (Alembic ``upgrade head``) and every unfinished table rebuilt
when the application starts (:func:`running`, its lifespan), so ``uvicorn`` (or
``chinese-poker serve``) resumes every table where it was. See
``docs/server-protocol.md`` for the protocol.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import InterfaceError, OperationalError

from chinese_poker import __version__
from chinese_poker.server import (
    accounts,
    bot_accounts,
    bot_socket,
    desk,
    ladder,
    lobby_routes,
    meta_routes,
    pages,
    play_socket,
    profile_routes,
    results_routes,
    reviews,
)
from chinese_poker.server.bot_matches import MatchBudget, MatchRunner
from chinese_poker.server.db import LEASE_SECONDS, Owner, Store
from chinese_poker.server.defaults import SOCKETS_PER_ADDRESS
from chinese_poker.server.desk import StudyPool
from chinese_poker.server.fair_share import SharedPlaces
from chinese_poker.server.guard import BodyLimit, Limits, RateSpec, SharedCounts, UnicodeText
from chinese_poker.server.holdings import (
    IDLE_SECONDS,
    STATIC_DIR,
    ServerHoldings,
    database_unreachable,
)
from chinese_poker.server.redis_link import RedisLink
from chinese_poker.server.scheduling import GcPacer, Workers
from chinese_poker.server.tables import TableManager, TableMoved

__all__ = ["IDLE_SECONDS", "MAX_BODY", "create_app", "hand_over", "running"]

log = logging.getLogger("chinese_poker.server")

MAX_BODY = 64 * 1024
"""The largest request body accepted (bytes); larger ones get 413 unread."""

ROUTERS = (
    pages.router,
    desk.router,
    accounts.router,
    profile_routes.router,
    reviews.router,
    meta_routes.router,
    lobby_routes.router,
    results_routes.router,
    play_socket.router,
    ladder.router,
    bot_accounts.router,
    bot_socket.router,
)
"""Every area's routes, in the order the application matches them."""


def create_app(
    database_url: str | None = None,
    *,
    public_url: str | None = None,
    static_dir: str | Path | None = None,
    allowed_origins: Sequence[str] = (),
    rate_limits: RateSpec | None = None,
    max_body: int = MAX_BODY,
    idle_seconds: float = IDLE_SECONDS,
    hint_processes: bool = True,
    pace_gc: bool = False,
    sockets_per_address: int | None = None,
    owner_address: str | None = None,
    lease_seconds: float = LEASE_SECONDS,
    renew_seconds: float | None = None,
    redis_url: str | None = None,
    bot_matches: MatchBudget | None = None,
) -> FastAPI:
    """Build the application.

    ``database_url``: a SQLAlchemy URL (default: SQLite in the user's data directory,
    see :func:`chinese_poker.server.db.default_database_url`). ``public_url``: the base
    of invite links (default: the URL the request came to). ``static_dir``: the browser
    UI's files (default: the package's ``static`` folder). ``allowed_origins``: the
    WebSocket origins accepted besides the server's own (``"*"``: any).
    ``rate_limits``: per client address (:class:`~chinese_poker.server.guard.RateSpec`).
    ``max_body``: the largest request body. ``idle_seconds``: when unused tables leave
    memory. ``hint_processes``: hints and the study desk in worker processes (False:
    threads, which lets tests replace their functions). ``pace_gc``: freeze the
    garbage collector's survivors every few seconds (:class:`~.scheduling.GcPacer`;
    ``serve`` does; it acts on the whole process). ``sockets_per_address``: the
    WebSockets one client address may hold open at once (more are refused with close
    code 4429; None: :data:`~.defaults.SOCKETS_PER_ADDRESS`). ``owner_address``: where
    clients reach this process (``public_url`` if not given), named in the ``moved`` message that
    another process of the same database sends them to it with. ``lease_seconds``: how
    long this process's hold on a table lasts unless renewed, every ``renew_seconds``
    (default: 0.3 of it) (docs/server.md "Processes"). ``redis_url``: the Redis that
    every process of this site shares, where the rate limits, sign-in throttles and each
    player's places in the hint and study queues are counted (None: in this process).
    ``bot_matches``: the operator's budget for the bot-against-bot duplicate matches
    this process runs (:mod:`.bot_matches`; None: none).
    """
    renew_seconds = lease_seconds * 0.3 if renew_seconds is None else renew_seconds
    if not 0 < renew_seconds < lease_seconds:
        raise ValueError(
            f"renew_seconds ({renew_seconds}) must be positive and less than"
            f" lease_seconds ({lease_seconds})"
        )
    if sockets_per_address is None:
        sockets_per_address = SOCKETS_PER_ADDRESS
    if sockets_per_address < 1:
        raise ValueError(f"sockets_per_address must be at least 1, not {sockets_per_address}")
    link = RedisLink(redis_url) if redis_url is not None else None  # one per process
    counts = SharedCounts(link)
    holdings = ServerHoldings(
        database_url=database_url,
        public_url=public_url,
        static=Path(static_dir) if static_dir is not None else STATIC_DIR,
        origins=tuple(allowed_origins),
        limits=Limits(rate_limits, counts),
        study=StudyPool(
            processes=hint_processes,
            places=SharedPlaces(link) if link is not None else None,
        ),
        hint_processes=hint_processes,
        pace_gc=pace_gc,
        idle_seconds=idle_seconds,
        sockets_per_address=sockets_per_address,
        owner_address=(owner_address or public_url or "").rstrip("/"),
        lease_seconds=lease_seconds,
        renew_seconds=renew_seconds,
        sign_ins=counts,
        bot_matches=bot_matches,
    )
    app = FastAPI(
        title="chinese-poker",
        version=__version__,
        summary="Chinese poker tables over REST and WebSockets (docs/server-protocol.md).",
        lifespan=running,
    )
    app.state.holdings = holdings
    app.state.limits = holdings.limits  # what the server applies, for operators and tests
    app.state.sockets_per_address = holdings.sockets_per_address
    app.add_middleware(UnicodeText)  # inside BodyLimit: it reads bodies already bounded
    app.add_middleware(BodyLimit, limit=max_body)
    app.add_exception_handler(TableMoved, table_moved)
    for unreachable in (OperationalError, InterfaceError):  # a database restarting: 503
        app.add_exception_handler(unreachable, database_unreachable)
    for router in ROUTERS:
        # Into the app's own list: include_router would add one nested entry without a
        # path, which code reading ``app.routes`` does not expect.
        app.router.routes.extend(router.routes)
    app.mount("/static", StaticFiles(directory=holdings.static, check_dir=False), name="static")
    return app


async def table_moved(_request: Request, exc: Exception) -> Response:
    """Another process of this database plays the table: the client goes there."""
    assert isinstance(exc, TableMoved)
    return JSONResponse({"detail": exc.message["message"], "moved": exc.message}, 409)


@asynccontextmanager
async def running(app: FastAPI) -> AsyncIterator[None]:
    """The application's lifespan: open and migrate the store, resume the tables, keep
    their leases and evict idle ones, warm the workers; close it all at shutdown."""
    holdings: ServerHoldings = app.state.holdings
    store = Store(
        holdings.database_url,
        owner=Owner.here(holdings.owner_address),
        lease_seconds=holdings.lease_seconds,
    )
    store.migrate()
    # The players' places in the hint queue are counted where the study desk's are.
    workers = Workers(hint_processes=holdings.hint_processes, places=holdings.study.places)
    manager = TableManager(store, workers)
    app.state.store = store
    app.state.manager = manager
    # The hint worker starts a little later, so that a restart answers first.
    warming = asyncio.get_running_loop().call_later(5.0, manager.workers.warm)
    starting_desk = asyncio.get_running_loop().call_later(5.0, holdings.study.start)
    count = manager.recover()
    manager.accepting = True  # GET /api/ready says so from now on
    manager.timings.start()
    pacer = GcPacer() if holdings.pace_gc else None
    if pacer is not None:
        pacer.start()
    log.info("database %s ready; %d table(s) resumed", store.dialect, count)
    if manager.quarantined:
        log.error("%d table(s) unavailable (see above)", len(manager.quarantined))
    evictor = asyncio.create_task(_evict(manager, holdings.idle_seconds))
    leases = asyncio.create_task(_keep_leases(manager, holdings.renew_seconds))
    budget = holdings.bot_matches
    matches = asyncio.create_task(MatchRunner(manager, budget).run()) if budget else None
    try:
        yield
    finally:
        warming.cancel()
        starting_desk.cancel()
        evictor.cancel()
        leases.cancel()
        if matches is not None:
            matches.cancel()
        manager.timings.stop()
        if pacer is not None:
            pacer.stop()
        manager.close()
        holdings.study.close()
        await asyncio.sleep(0)
        store.close()


def hand_over(app: FastAPI) -> int:
    """The server is told to stop (SIGTERM): hand its tables over to the other processes
    before its sockets are closed (:meth:`.tables.TableManager.hand_over`); from now on
    ``GET /api/ready`` answers 503. Returns how many tables were handed over."""
    manager: TableManager | None = getattr(app.state, "manager", None)
    return 0 if manager is None else manager.hand_over()


async def _evict(manager: TableManager, idle_seconds: float) -> None:
    while True:
        await asyncio.sleep(min(5.0, max(idle_seconds / 4, 0.05)))
        manager.evict(idle_seconds)


async def _keep_leases(manager: TableManager, renew_seconds: float) -> None:
    while True:
        await asyncio.sleep(renew_seconds)
        try:
            manager.renew()
        except Exception:  # the database is away: the writes will tell
            log.exception("cannot renew the table leases")
