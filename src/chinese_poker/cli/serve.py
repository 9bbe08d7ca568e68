"""``chinese-poker serve``: run the game server (FastAPI + uvicorn, one process).

Migrates the database (SQLite in the user's data directory by default, or
``--database-url``), resumes every unfinished table, and prints the address to open
once the server accepts connections.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import socket
import sys
from typing import Any

from chinese_poker.cli import real, whole
from chinese_poker.server.defaults import RATE_LIMITS, SOCKETS_PER_ADDRESS


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "serve",
        help="run the game server (lobby, tables over WebSockets, histories)",
        description=(
            "Run the chinese-poker server: a lobby to open tables from any preset, invite"
            " links, real-time play over WebSockets, spectators, persistence and fair"
            " shuffles. See docs/server.md."
        ),
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument(
        "--port", type=whole(0, 65535), default=8000, help="port (default 8000; 0: any free port)"
    )
    p.add_argument(
        "--database-url",
        default=None,
        help="SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db"
        " (default: SQLite in the user data directory)",
    )
    p.add_argument(
        "--public-url", default=None, help="base URL for invite links (default: as requested)"
    )
    p.add_argument(
        "--process-url",
        default=None,
        metavar="URL",
        help="where clients reach this process itself, when several processes share the"
        " database behind a proxy (each its own port or host name there): another process"
        " sends a table's clients here when this one plays it (default: --public-url, else"
        " http://HOST:PORT; docs/deploy.md)",
    )
    p.add_argument(
        "--forwarded-allow-ips",
        default=None,
        metavar="IPS",
        help="the proxies whose X-Forwarded-For and X-Forwarded-Proto are believed, comma"
        " separated ('*': any); a client behind them counts by its own address in the rate"
        " and socket limits (default: $FORWARDED_ALLOW_IPS, else 127.0.0.1,::1)",
    )
    p.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a WebSocket origin allowed besides the server's own, e.g."
        " https://poker.example.org (repeatable; '*': any)",
    )
    p.add_argument(
        "--rate-limits",
        default=None,
        metavar="KIND=LIMIT,...",
        help=f"per client address; kinds {', '.join(RATE_LIMITS)}, e.g. the defaults"
        f" '{','.join(f'{k}={v}' for k, v in RATE_LIMITS.items())}' (kinds not named keep"
        " theirs; the older CREATE,JOIN,CODES works)",
    )
    p.add_argument(
        "--sockets-per-address",
        type=whole(1, 1_000_000),
        default=None,
        metavar="N",
        help="WebSockets one client address may hold open at once (default"
        f" {SOCKETS_PER_ADDRESS}; behind a proxy that is not trusted with"
        " --forwarded-allow-ips every client has the proxy's address, so raise it there)",
    )
    p.add_argument(
        "--lease-seconds",
        type=real(0.5, 3600.0),
        default=5.0,
        metavar="SECONDS",
        help="how long this process's hold on a table lasts unless renewed (renewed every"
        " 0.3 of it); another process sharing the database takes a table over once it"
        " runs out (default 5; docs/server.md 'Processes')",
    )
    p.add_argument(
        "--redis",
        default=None,
        metavar="URL",
        help="a Redis every process of this site shares (redis://HOST:PORT/DB), where the"
        " rate limits and sign-in throttles are counted, so that a flood spread over the"
        " processes meets one limit (default: counted in this process; docs/deploy.md)",
    )
    p.add_argument(
        "--bot-matches",
        default=None,
        metavar="BUDGET",
        help="run bot-against-bot duplicate matches for the ladder within a budget:"
        " HANDS_PER_HOUR[,AT_ONCE[,DEALS[,PRESET...]]] (default: none; docs/ladder.md)",
    )
    p.add_argument(
        "--log-level",
        default="warning",
        choices=["critical", "error", "warning", "info", "debug"],
        help="uvicorn log level (default warning)",
    )
    p.add_argument(
        "--ws",
        default="auto",
        choices=["auto", "websockets", "websockets-sansio", "wsproto"],
        help="uvicorn's WebSocket implementation (default auto)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from chinese_poker.server.app import create_app
    from chinese_poker.server.bot_matches import MatchBudget
    from chinese_poker.server.db import default_database_url
    from chinese_poker.server.transport import http_protocol, websocket_protocol

    url = args.database_url or default_database_url()
    limits = _rate_limits(args.rate_limits)
    _check_database(url)
    if args.redis is not None:
        _check_redis(args.redis)
    matches = MatchBudget.parse(args.bot_matches) if args.bot_matches is not None else None
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Small messages must not wait for Nagle's algorithm (accepted sockets inherit it).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as exc:
        sock.close()
        raise ValueError(f"cannot listen on {args.host}:{args.port}: {exc.strerror}") from None
    port = sock.getsockname()[1]
    shown = f"[{args.host}]" if family == socket.AF_INET6 else args.host
    if args.host in ("0.0.0.0", "::"):
        shown = "127.0.0.1"
    app = create_app(
        url,
        public_url=args.public_url,
        allowed_origins=args.allow_origin,
        rate_limits=limits,
        pace_gc=True,
        sockets_per_address=args.sockets_per_address,
        # What another process sharing the database sends this table's clients to.
        owner_address=args.process_url or args.public_url or f"http://{shown}:{port}",
        lease_seconds=args.lease_seconds,
        redis_url=args.redis,
        bot_matches=matches,
    )
    config = uvicorn.Config(
        app,
        log_level=args.log_level,
        http=http_protocol(),
        ws=websocket_protocol(args.ws),
        ws_max_size=1024 * 1024,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        lifespan="on",
        proxy_headers=True,
        forwarded_allow_ips=args.forwarded_allow_ips,
    )
    # Fewer young-generation collections: the hot path allocates many short-lived
    # objects (views, JSON); long-lived startup objects are frozen out of collections.
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
    server = _announcing(
        config,
        f"chinese-poker server: open http://{shown}:{port}/\ndatabase: {_redact(url)}",
        app,
    )
    server.run(sockets=[sock])
    sys.stdout.flush()
    return 0


def _announcing(config: Any, address: str, app: Any) -> Any:
    """A uvicorn server that prints ``address`` (its lines) once its socket accepts
    connections: the database's migration and the tables' recovery run before that
    (about a second), and an address printed earlier was refused when opened at once.
    Told to stop (SIGTERM, Ctrl-C), it stops listening and hands ``app``'s tables over
    to the other processes before uvicorn closes the sockets (docs/server.md
    "Processes")."""
    import uvicorn

    from chinese_poker.server.app import hand_over

    class Announcing(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started:
                print(address, flush=True)

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            for server in self.servers:
                server.close()  # no new connection comes to a process that stops
            if hand_over(app):
                await asyncio.sleep(0.2)  # the sockets' writers send "moved" and close
            await super().shutdown(sockets)

    return Announcing(config)


def _rate_limits(text: str | None) -> Any:
    from chinese_poker.server.guard import RateSpec

    if text is None:
        return None
    try:
        return RateSpec.parse(text)
    except ValueError as exc:
        raise ValueError(f"--rate-limits: {exc}") from None


def _check_database(url: str) -> None:
    """Connect to the database once, turning what a user can get wrong (the URL,
    a missing driver, an unreachable server, an unwritable file) into one line."""
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

    from chinese_poker.cli import UsageError
    from chinese_poker.server.db import Store

    shown = _redact(url)
    scheme = url.split(":", 1)[0]
    try:
        store = Store(url)
    except NoSuchModuleError:
        raise UsageError(
            f"unknown database URL scheme {scheme!r} in {shown}"
            " (use sqlite:///PATH or postgresql+psycopg://USER@HOST/DB)"
        ) from None
    except ArgumentError as exc:
        raise UsageError(f"bad database URL {shown}: {_first_line(exc)}") from None
    except ImportError as exc:
        raise UsageError(
            f"the database driver {exc.name or scheme!r} is not installed"
            ' (for PostgreSQL: pip install "psycopg[binary]")'
        ) from None
    try:
        with store.engine.connect():
            pass
    except SQLAlchemyError as exc:
        cause = getattr(exc, "orig", None) or exc
        raise UsageError(f"cannot open the database {shown}: {_first_line(cause)}") from None
    finally:
        store.close()


def _check_redis(url: str) -> None:
    """Ask the Redis once, so that a wrong URL, a missing client library or a Redis that
    does not answer is one line at start-up, not a warning at the first request."""
    from chinese_poker.cli import UsageError

    shown = _redact(url)
    try:
        import redis
    except ImportError:
        raise UsageError(
            'the Redis client is not installed (pip install "chinese-poker[redis]")'
        ) from None
    try:
        client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
    except ValueError as exc:
        raise UsageError(f"bad Redis URL {shown}: {_first_line(exc)}") from None
    try:
        client.ping()
    except redis.RedisError as exc:
        raise UsageError(f"cannot reach Redis at {shown}: {_first_line(exc)}") from None
    finally:
        client.close()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _redact(url: str) -> str:
    """The URL without its password."""
    if "://" in url and "@" in url:
        scheme, rest = url.split("://", 1)
        creds, host = rest.rsplit("@", 1)
        user = creds.split(":", 1)[0]
        return f"{scheme}://{user}:***@{host}"
    return url
