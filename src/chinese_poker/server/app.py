"""The FastAPI application: REST lobby, ledger, hand histories and the play WebSocket.

>>> app = create_app("sqlite:///:memory:")
>>> sorted({r.path for r in app.routes if r.path.startswith("/api/tables")})[:2]
['/api/tables', '/api/tables/{table_id}']

The database is migrated (Alembic ``upgrade head``) and every unfinished table rebuilt
when the application starts (its lifespan), so ``uvicorn`` (or ``chinese-poker serve``)
resumes every table where it was. See ``docs/server-protocol.md`` for the protocol.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import sys
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI, HTTPException, Query, Request, WebSocket
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.websockets import WebSocketDisconnect

from chinese_poker import __version__
from chinese_poker.rules.words import option_catalogue, preset_catalogue
from chinese_poker.server import PROTOCOL_VERSION
from chinese_poker.server.accounts import accounts_router
from chinese_poker.server.db import LEASE_SECONDS, Owner, Store
from chinese_poker.server.defaults import SOCKETS_PER_ADDRESS
from chinese_poker.server.desk import StudyPool, desk_router
from chinese_poker.server.guard import (
    BodyLimit,
    Limits,
    RateSpec,
    UnicodeText,
    client_address,
    origin_allowed,
)
from chinese_poker.server.messages import MOVED_CLOSE, AuthMsg
from chinese_poker.server.reviews import reviews_router
from chinese_poker.server.scheduling import GcPacer, Workers
from chinese_poker.server.tables import (
    Conn,
    CreateTable,
    LiveTable,
    TableManager,
    TableMoved,
    WriteFailed,
    bot_catalogue,
    make_server_bot,
)

__all__ = ["create_app"]

log = logging.getLogger("chinese_poker.server")

STATIC_DIR = Path(__file__).parent / "static"

# --------------------------------------------------------------------------- response models


class Health(BaseModel):
    """The server is up."""

    ok: bool
    version: str
    protocol: int


class PresetInfo(BaseModel):
    """One RULES §14 preset, in players' words (rules.words)."""

    name: str
    label: str = Field(description="the preset's name in players' words")
    help: str = Field(description="a one-line explanation")
    variant: str
    open_face: bool = Field(description="an open-face game (the compiled spec's variant fact)")
    hands_per_seat: int = Field(description="hands a player sets (two in Criss Cross)")
    players: list[int] = Field(description="the allowed player counts")
    fantasyland_entry: str | None = Field(
        description="the weakest top pair that enters Fantasyland (QQ), none without it"
    )
    rules: dict[str, Any] = Field(description="the complete rules (Rules.to_dict())")


class OptionChoice(BaseModel):
    value: str
    label: str


class OptionInfo(BaseModel):
    """One RULES §13 option in players' words (rules.words), with its choices' words."""

    key: str
    label: str
    help: str
    kind: Literal["choice", "yes_no", "value"] = Field(
        description="choice: one of choices; yes_no: true/false; value: typed as text"
    )
    choices: list[OptionChoice]


class BotInfo(BaseModel):
    """A server-side bot."""

    name: str
    levels: bool = Field(description="whether it takes a level")


class SeatInfo(BaseModel):
    """One seat of a table."""

    seat: int
    kind: Literal["human", "bot"]
    name: str | None
    bot: str | None
    level: int | None
    taken: bool
    connected: bool
    stand_in: bool = Field(default=False, description="a bot plays it until its person is back")


class TableInfo(BaseModel):
    """A table as the lobby shows it."""

    id: str
    name: str
    preset: str
    variant: str
    options: dict[str, Any]
    rules: dict[str, Any]
    status: Literal["waiting", "playing", "finished", "unavailable"] = Field(
        description="unavailable: stored but cannot be rebuilt (quarantined)"
    )
    mode: Literal["session", "tournament"]
    time_limit: float | None
    hints: bool
    spectators: bool
    bot_delay: float
    next_hand_delay: float
    seats: list[SeatInfo]
    hand: int = Field(description="the current (or last) hand, 0 before the first deal")
    version: int = Field(description="the current hand's table version")
    hands_played: int
    session_over: bool
    commitment: str | None = Field(description="the current hand's fairness commitment")
    next_commitment: str | None = Field(description="the next hand's commitment, once fixed")
    streets: list[list[int]] = Field(
        default_factory=list,
        description="per street (cards dealt, cards placed): the deal order a page checks",
    )
    created_at: str
    spectators_connected: int
    time_bank: float = Field(default=0, description="seconds a player may run over, per session")
    timeouts: Literal["hand", "decision"] = Field(
        default="hand", description="what a timeout does (see CreateTable.timeouts)"
    )
    grace: float | None = Field(default=None, description="seconds before a bot plays a leaver")
    session_hands: Literal["orbit", "continuous"] = Field(
        default="orbit", description="how long the session is (see CreateTable.hands)"
    )
    left: str | None = Field(default=None, description="who left, ending the session")
    rematch: str | None = Field(default=None, description="the id of this table's rematch")


class Created(BaseModel):
    """A new table, its invite and (with ``join``) the creator's seat and token."""

    table: TableInfo
    join_code: str
    invite_url: str
    seat: int | None
    token: str | None
    ws_url: str | None


class JoinRequest(BaseModel):
    """Take a seat with the table's join code."""

    code: str = Field(min_length=1, max_length=100)
    name: str = Field(default="", max_length=40)
    seat: int | None = Field(default=None, ge=0, description="a particular free human seat")


class SeatToken(BaseModel):
    """A seat's token: who asks (the table's creator, to hand a seat to a bot)."""

    model_config = ConfigDict(extra="forbid")

    token: str = Field(min_length=1, max_length=200)


class StandIn(BaseModel):
    """A bot now plays the seat until its person returns."""

    table_id: str
    seat: int
    stand_in: bool


class Rematch(BaseModel):
    """The rematch table: the asker's seat there (his token for the old table opens it)."""

    table: TableInfo
    seat: int


class Joined(BaseModel):
    """The seat taken and its token (the seat's only credential)."""

    table_id: str
    seat: int
    player: str
    token: str
    ws_url: str


class HandTotals(BaseModel):
    """One finished hand in the ledger."""

    hand: int
    button: str
    totals: dict[str, int]


class LedgerInfo(BaseModel):
    """The session ledger (the engine's Ledger.to_dict()) and per-hand totals."""

    table_id: str
    kind: Literal["cash", "tournament"]
    players: list[str]
    hands_played: int
    over: bool
    points: dict[str, int]
    pairs: dict[str, int]
    money: dict[str, float]
    stacks: dict[str, int] | None
    out: list[str]
    hands: list[HandTotals]


class HandInfo(BaseModel):
    """A hand's fairness commitment, and its reveal once it is finished."""

    hand: int
    commitment: str
    started: bool
    finished: bool
    seed: str | None
    salt: str | None
    scheme: str


# --------------------------------------------------------------------------- the app


_PLACEHOLDER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>chinese-poker</title></head>
<body><h1>chinese-poker server</h1>
<p>The browser UI is not installed. The API is described at <a href="/docs">/docs</a>.</p>
</body></html>
"""


def _ws_base(request: Request, public_url: str | None) -> tuple[str, str]:
    base = (public_url or str(request.base_url)).rstrip("/")
    ws = "wss" + base[5:] if base.startswith("https") else "ws" + base[4:]
    return base, ws


MAX_BODY = 64 * 1024
"""The largest request body accepted (bytes); larger ones get 413 unread."""

IDLE_SECONDS = 300.0
"""A table nobody has used for this long leaves memory (it is rebuilt on demand)."""

AUTH_SECONDS = 10.0
"""How long a seat's socket may take to send its ``auth`` message."""

SEAT_COOKIE_DAYS = 30
"""How long the browser keeps a seat's cookie (the seat survives restarts)."""


def seat_cookie(table_id: str) -> str:
    """The name of the cookie holding a seat token of table ``table_id``."""
    return f"cp_seat_{table_id}"


def _set_seat_cookie(response: Response, request: Request, table_id: str, token: str) -> None:
    # The token's alternative to the first message: HttpOnly (no script reads it),
    # SameSite=Strict (no other site's page sends it), scoped to this table's socket.
    response.set_cookie(
        seat_cookie(table_id),
        token,
        max_age=SEAT_COOKIE_DAYS * 24 * 3600,
        path=f"/ws/tables/{table_id}",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


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
    (default: 0.3 of it) (docs/server.md "Processes").
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
    static = Path(static_dir) if static_dir is not None else STATIC_DIR
    limits = Limits(rate_limits)
    origins = tuple(allowed_origins)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owner = Owner.here((owner_address or public_url or "").rstrip("/"))
        store = Store(database_url, owner=owner, lease_seconds=lease_seconds)
        store.migrate()
        manager = TableManager(store, Workers(hint_processes=hint_processes))
        app.state.store = store
        app.state.manager = manager
        # The hint worker starts a little later, so that a restart answers first.
        warming = asyncio.get_running_loop().call_later(5.0, manager.workers.warm)
        starting_desk = asyncio.get_running_loop().call_later(5.0, study.start)
        count = manager.recover()
        manager.timings.start()
        pacer = GcPacer() if pace_gc else None
        if pacer is not None:
            pacer.start()
        log.info("database %s ready; %d table(s) resumed", store.dialect, count)
        if manager.quarantined:
            log.error("%d table(s) unavailable (see above)", len(manager.quarantined))

        async def evict() -> None:
            while True:
                await asyncio.sleep(min(5.0, max(idle_seconds / 4, 0.05)))
                manager.evict(idle_seconds)

        async def keep_leases() -> None:
            while True:
                await asyncio.sleep(renew_seconds)
                try:
                    manager.renew()
                except Exception:  # the database is away: the writes will tell
                    log.exception("cannot renew the table leases")

        evictor = asyncio.create_task(evict())
        leases = asyncio.create_task(keep_leases())
        try:
            yield
        finally:
            warming.cancel()
            starting_desk.cancel()
            evictor.cancel()
            leases.cancel()
            manager.timings.stop()
            if pacer is not None:
                pacer.stop()
            manager.close()
            study.close()
            await asyncio.sleep(0)
            store.close()

    app = FastAPI(
        title="chinese-poker",
        version=__version__,
        summary="Chinese poker tables over REST and WebSockets (docs/server-protocol.md).",
        lifespan=lifespan,
    )
    app.add_middleware(UnicodeText)  # inside BodyLimit: it reads bodies already bounded
    app.add_middleware(BodyLimit, limit=max_body)

    @app.exception_handler(TableMoved)
    async def moved(_request: Request, exc: TableMoved) -> Response:
        # Another process of this database plays the table: the client goes there.
        return JSONResponse({"detail": exc.message["message"], "moved": exc.message}, 409)

    def manager_of(request: Request) -> TableManager:
        manager: TableManager = request.app.state.manager
        return manager

    def table_or_404(request: Request, table_id: str) -> LiveTable:
        manager = manager_of(request)
        live = manager.get(table_id)
        if live is None:
            if table_id in manager.quarantined:
                raise HTTPException(503, f"table {table_id!r} is unavailable")
            raise HTTPException(404, f"no table {table_id!r}")
        return live

    async def read_table(request: Request, table_id: str) -> LiveTable:
        """A table for a read endpoint: rate-limited per address, stored state only."""
        throttle(request, "read")
        manager = manager_of(request)
        live = await manager.settled_table(table_id)
        if live is None:
            if table_id in manager.quarantined:
                raise HTTPException(503, f"table {table_id!r} is unavailable")
            raise HTTPException(404, f"no table {table_id!r}")
        return live

    def address(request: Request) -> str:
        return client_address(request)

    def throttle(request: Request, kind: str) -> None:
        if not limits.hit(kind, address(request)):
            raise HTTPException(
                429, f"too many requests from your address (limit {limits.describe(kind)})"
            )

    app.state.throttle = throttle  # the routers of accounts and reviews use it too
    app.state.limits = limits  # what the server applies, for its operators and tests
    app.state.sockets_per_address = sockets_per_address

    # ------------------------------------------------------------------ pages

    def index() -> Response:
        page = static / "index.html"
        if page.is_file():
            return FileResponse(page, media_type="text/html")
        return HTMLResponse(_PLACEHOLDER)

    @app.get("/", include_in_schema=False)
    async def root() -> Response:
        return index()

    @app.get("/join/{table_id}", include_in_schema=False)
    async def join_page(table_id: str) -> Response:
        return index()

    @app.get("/table/{table_id}", include_in_schema=False)
    async def table_page(table_id: str) -> Response:
        return index()

    @app.get("/watch/{table_id}", include_in_schema=False)
    async def watch_page(table_id: str) -> Response:
        return index()

    def desk_page(name: str) -> Response:
        page = static / name
        if page.is_file():
            return FileResponse(page, media_type="text/html")
        return HTMLResponse(_PLACEHOLDER)

    @app.get("/score", include_in_schema=False)
    async def score_page() -> Response:
        return desk_page("score.html")

    @app.get("/study", include_in_schema=False)
    async def study_page() -> Response:
        return desk_page("study.html")

    @app.get("/sw.js", include_in_schema=False)
    async def service_worker() -> Response:
        # Served from the root so that its scope covers /score and /study.
        return FileResponse(static / "desk" / "sw.js", media_type="text/javascript")

    # The desk's routes join the app's own list (include_router would add one nested
    # entry without a path, which code reading ``app.routes`` does not expect).
    study = StudyPool(processes=hint_processes)
    app.router.routes.extend(desk_router(limits, study).routes)
    # Players, ratings and reviews (docs/review.md, docs/browser.md), the same way.
    app.router.routes.extend(accounts_router(index).routes)
    app.router.routes.extend(reviews_router(index).routes)

    app.mount("/static", StaticFiles(directory=static, check_dir=False), name="static")

    # ------------------------------------------------------------------ REST

    @app.get("/api/health", response_model=Health, tags=["meta"])
    async def health() -> dict[str, Any]:
        """Liveness check."""
        return {"ok": True, "version": __version__, "protocol": PROTOCOL_VERSION}

    @app.get("/api/metrics", tags=["meta"], include_in_schema=False)
    async def metrics(request: Request, reset: bool = False) -> dict[str, Any]:
        """The server's own timings (server/metrics.py), for benchmarks on its machine."""
        if address(request) not in ("127.0.0.1", "::1"):
            raise HTTPException(404, "Not Found")
        manager = manager_of(request)
        return manager.timings.snapshot(reset) | {
            "kernels_warm": manager.workers.kernels_warm.is_set(),
            # Memory as Python sees it, to tell a leak from the allocator's high-water
            # mark (RSS) and from reference cycles the GC pacer froze alive.
            "allocated_blocks": sys.getallocatedblocks(),
            "gc_frozen": gc.get_freeze_count(),
        }

    @app.get("/api/presets", response_model=list[PresetInfo], tags=["meta"])
    async def presets() -> list[dict[str, Any]]:
        """Every RULES §14 preset with its words, rules and allowed player counts."""
        return preset_catalogue()

    @app.get("/api/options", response_model=list[OptionInfo], tags=["meta"])
    async def options() -> list[dict[str, Any]]:
        """Every RULES §13 option with its words and its choices' words."""
        return option_catalogue()

    @app.get("/api/bots", response_model=list[BotInfo], tags=["meta"])
    async def bots() -> list[dict[str, Any]]:
        """The bots a seat can be given."""
        return bot_catalogue()

    @app.get("/api/tables", response_model=list[TableInfo], tags=["lobby"])
    async def list_tables(
        request: Request,
        status: Literal["waiting", "playing", "finished"] | None = None,
        limit: int = Query(100, ge=1, le=1000),
        offset: int = Query(0, ge=0),
    ) -> list[dict[str, Any]]:
        """The tables, newest first, a page at a time (``limit``, ``offset``)."""
        return manager_of(request).lobby(status=status, limit=limit, offset=offset)

    @app.post("/api/tables", response_model=Created, status_code=201, tags=["lobby"])
    async def create_table(
        request: Request, response: Response, body: CreateTable
    ) -> dict[str, Any]:
        """Open a table from a preset with option overrides, seats, timer and mode."""
        throttle(request, "create")
        try:
            # Build each bot once in a worker thread: it validates the name and level,
            # and a bot that compiles kernels (mc) does so off the event loop.
            for i, seat in enumerate(body.seats):
                if seat.kind == "bot":
                    if not seat.bot:
                        raise ValueError(f"seat {i}: a bot seat needs a bot name")
                    await manager_of(request).workers.setup(
                        make_server_bot, seat.bot, seat.level, 0
                    )
            made = manager_of(request).create(body)
        except ValueError as exc:
            raise HTTPException(400, str(exc)) from None
        base, ws = _ws_base(request, public_url)
        table_id = made.table.id
        if made.token is not None:
            _set_seat_cookie(response, request, table_id, made.token)
        return {
            "table": made.table.info(),
            "join_code": made.join_code,
            "invite_url": f"{base}/join/{table_id}?code={made.join_code}",
            "seat": made.seat,
            "token": made.token,
            "ws_url": f"{ws}/ws/tables/{table_id}?role=seat" if made.token else None,
        }

    @app.get("/api/tables/{table_id}", response_model=TableInfo, tags=["lobby"])
    async def get_table(request: Request, table_id: str) -> dict[str, Any]:
        """One table."""
        return (await read_table(request, table_id)).info()

    @app.post("/api/tables/{table_id}/join", response_model=Joined, tags=["lobby"])
    async def join_table(
        request: Request, response: Response, table_id: str, body: JoinRequest
    ) -> dict[str, Any]:
        """Take a free human seat with the join code of the invite link."""
        throttle(request, "join")
        if not limits.allowed("bad_code", address(request)):
            raise HTTPException(
                429, f"too many wrong join codes (limit {limits.describe('bad_code')})"
            )
        live = table_or_404(request, table_id)
        if not live.check_code(body.code):
            limits.hit("bad_code", address(request))
            raise HTTPException(403, "wrong join code")
        try:
            seat, player, token = live.claim(body.seat, body.name)
        except LookupError as exc:
            raise HTTPException(409, str(exc.args[0])) from None
        except ValueError as exc:
            raise HTTPException(400, str(exc)) from None
        _base, ws = _ws_base(request, public_url)
        _set_seat_cookie(response, request, table_id, token)
        return {
            "table_id": table_id,
            "seat": seat,
            "player": player,
            "token": token,
            "ws_url": f"{ws}/ws/tables/{table_id}?role=seat",
        }

    @app.post("/api/tables/{table_id}/seats/{seat}/bot", response_model=StandIn, tags=["lobby"])
    async def seat_to_bot(
        request: Request, table_id: str, seat: int, body: SeatToken
    ) -> dict[str, Any]:
        """The table's creator hands the seat of a person who left to a bot at once
        (without waiting for the grace period); the person gets it back on return."""
        throttle(request, "join")
        live = table_or_404(request, table_id)
        asker = live.seat_for_token(body.token)
        if asker is None or asker != live.creator_chair():
            raise HTTPException(403, "only the table's creator can hand a seat to a bot")
        if not 0 <= seat < len(live.seats) or seat == asker:
            raise HTTPException(400, f"seat {seat} is not another seat of this table")
        if not live.stand_in(seat):
            raise HTTPException(409, f"seat {seat} has nobody away (or the table is not playing)")
        return {"table_id": table_id, "seat": seat, "stand_in": True}

    @app.post("/api/tables/{table_id}/rematch", response_model=Rematch, tags=["lobby"])
    async def rematch(request: Request, table_id: str, body: SeatToken) -> dict[str, Any]:
        """The same table again with the same people, once its session is over: every
        person is seated under the token he already holds, and the others are offered
        to follow (a ``rematch`` message on their sockets). Asked again: the same one."""
        throttle(request, "create")
        live = table_or_404(request, table_id)
        asker = live.seat_for_token(body.token)
        if asker is None:
            raise HTTPException(403, "only a player of this table can ask for its rematch")
        try:
            new = manager_of(request).rematch(live, asker)
        except ValueError as exc:
            raise HTTPException(409, str(exc)) from None
        except WriteFailed as exc:
            raise HTTPException(503, str(exc)) from None
        return {"table": new.info(), "seat": asker}

    @app.get("/api/tables/{table_id}/ledger", response_model=LedgerInfo, tags=["results"])
    async def ledger(request: Request, table_id: str) -> dict[str, Any]:
        """The session ledger: points, pairs, money (and chips in a tournament)."""
        return (await read_table(request, table_id)).ledger_info()

    @app.get("/api/tables/{table_id}/hands", response_model=list[HandInfo], tags=["results"])
    async def hands(request: Request, table_id: str) -> list[dict[str, Any]]:
        """Every hand's fairness commitment, with the seed and salt once it is played."""
        return (await read_table(request, table_id)).hands_info()

    @app.get(
        "/api/tables/{table_id}/history",
        tags=["results"],
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
        request: Request, table_id: str, hand: int | None = Query(None, ge=1)
    ) -> Response:
        """Download the finished hands (the engine's hand-history format + fairness)."""
        live = await read_table(request, table_id)
        records = manager_of(request).store.records(live.id, hand)
        body = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)
        return Response(
            body,
            media_type="application/x-ndjson",
            headers={"Content-Disposition": f'attachment; filename="{table_id}.jsonl"'},
        )

    # ------------------------------------------------------------------ WebSocket

    open_sockets: dict[str, int] = {}  # per client address, in this process

    @app.websocket("/ws/tables/{table_id}")
    async def play(
        websocket: WebSocket, table_id: str, role: str | None = None, auth: str | None = None
    ) -> None:
        """A seat (``?role=seat``, then ``{"type": "auth", "token": ...}`` as the first
        message, or ``?role=seat&auth=cookie`` with the seat cookie the join set) or a
        spectator. See docs/server-protocol.md."""
        if not origin_allowed(
            websocket.headers.get("origin"), websocket.headers.get("host"), origins
        ):
            await websocket.close(code=1008, reason="origin not allowed")
            return
        where = client_address(websocket)
        if open_sockets.get(where, 0) >= sockets_per_address:
            # Each socket costs memory and a copy of every state it watches: one address
            # cannot hold the server's sockets, whatever its message rate.
            await websocket.accept()
            limit = f"limit {sockets_per_address}"
            await websocket.close(
                code=4429, reason=f"too many open connections from your address ({limit})"
            )
            return
        open_sockets[where] = open_sockets.get(where, 0) + 1
        try:
            await _socket(websocket, table_id, role, auth)
        finally:
            left = open_sockets[where] - 1
            if left:
                open_sockets[where] = left
            else:
                del open_sockets[where]

    async def _socket(
        websocket: WebSocket, table_id: str, role: str | None, auth: str | None
    ) -> None:
        manager: TableManager = websocket.app.state.manager
        await websocket.accept()
        if "token" in websocket.query_params:
            await websocket.close(
                code=4400, reason="send the seat token in the first message, not in the URL"
            )
            return
        try:
            await _join(websocket, manager, table_id, role, auth)
        except TableMoved as moved:
            # Never a copy of our own: the client is sent to the process that plays it.
            with contextlib.suppress(Exception):
                await websocket.send_text(moved.text())
                await websocket.close(code=MOVED_CLOSE, reason="table moved")

    async def _join(
        websocket: WebSocket,
        manager: TableManager,
        table_id: str,
        role: str | None,
        auth: str | None,
    ) -> None:
        live = manager.get(table_id)
        if live is None:
            await websocket.close(code=4404, reason="no such table")
            return
        seat: int | None = None
        if auth not in (None, "cookie") or (auth is not None and role != "seat"):
            await websocket.close(code=4400, reason="auth=cookie is for role=seat")
            return
        if role == "seat":
            if auth == "cookie":
                token = websocket.cookies.get(seat_cookie(table_id))
            else:
                token = await _auth(websocket)
            if token is None:
                reason = (
                    "no seat cookie for this table"
                    if auth == "cookie"
                    else 'first send {"type":"auth","token":...}'
                )
                await websocket.close(code=4400 if auth is None else 4401, reason=reason)
                return
            # The table may have left memory while the token was awaited: fetch it anew.
            fresh = manager.get(table_id)
            if fresh is None:
                await websocket.close(code=4404, reason="no such table")
                return
            live = fresh
            seat = live.seat_for_token(token)
            if seat is None:
                await websocket.close(code=4401, reason="bad seat token")
                return
        elif role is not None:
            await websocket.close(code=4400, reason="role must be 'seat' or absent")
            return
        elif not live.spec.spectators:
            await websocket.close(code=4403, reason="this table has no spectators")
            return
        conn = Conn(seat, websocket.send_text)
        live.attach(conn)
        writer = asyncio.create_task(_writer(websocket, conn))
        bucket = _Bucket(MESSAGES_PER_SECOND, MESSAGE_BURST)
        try:
            while True:
                # Fair share: a socket sending faster than the bucket allows is simply
                # not read for a while (TCP pushes back), whatever it sends.
                await bucket.take()
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                read_at = time.perf_counter()
                live = manager.tables.get(table_id, live)
                try:
                    live.handle(conn, message.get("text"), read_at)
                except Exception:
                    log.exception("table %s: error handling a message", table_id)
                    conn.send(_SERVER_ERROR)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            manager.tables.get(table_id, live).detach(conn)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 1.0)
            writer.cancel()

    return app


MESSAGES_PER_SECOND = 20.0
"""A socket's sustained message rate; faster senders are read more slowly."""

MESSAGE_BURST = 40
"""How many messages a socket may send at once before it is slowed down."""


class _Bucket:
    """A token bucket: ``take`` waits until a token is there."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.at = asyncio.get_running_loop().time()

    async def take(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1.0:
            await asyncio.sleep((1.0 - self.tokens) / self.rate)
            self.tokens = 1.0
            self.at = loop.time()
        self.tokens -= 1.0


async def _auth(websocket: WebSocket) -> str | None:
    """The token of a seat's first message (``auth``), or None if it is not one."""
    try:
        message = await asyncio.wait_for(websocket.receive(), AUTH_SECONDS)
    except TimeoutError:
        return None
    text = message.get("text")
    if not isinstance(text, str) or len(text) > 1000:
        return None
    try:
        return AuthMsg.model_validate_json(text).token
    except ValueError:
        return None


_SERVER_ERROR = json.dumps(
    {"type": "error", "ref": None, "code": "server_error", "message": "internal error"}
)


async def _writer(websocket: WebSocket, conn: Conn) -> None:
    """Write what a connection could not send at once, in order (see :class:`Conn`);
    close the socket when told to."""
    try:
        while True:
            item = await conn.next_item()
            if item is None:
                break
            if isinstance(item, str):
                await websocket.send_text(item)
            else:
                await item
            conn.drained()
    except Exception:
        conn.closed = True
        return
    with contextlib.suppress(Exception):
        await websocket.close()
