"""What keeps strangers from hurting the server: rate limits, body limits, origins.

* :class:`Limits` -- per client address, moving-window rate limits (the ``limits``
  library) for opening tables, joining, wrong join codes and the study desk;
* :class:`SharedCounts` -- where those counts live: this process's memory, or one Redis
  that every server process shares (``serve --redis``), so a flood spread over the
  processes meets one limit;
* :class:`BodyLimit` -- an ASGI middleware that refuses a request body larger than the
  limit before reading it whole (``413``, from ``Content-Length`` or while streaming);
* :class:`UnicodeText` -- an ASGI middleware that refuses JSON text with a lone
  surrogate escape (``"\\ud800"``) in a request body (``400``) or a WebSocket message
  (an ``error`` to that client), before the application reads it;
* :func:`origin_allowed` -- the WebSocket ``Origin`` allow-list (same origin by default).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass, fields
from typing import Any
from urllib.parse import urlsplit

from limits import RateLimitItem, parse
from limits.aio.storage import RedisStorage as AsyncRedisStorage
from limits.aio.strategies import MovingWindowRateLimiter as SharedLimiter
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from starlette.requests import HTTPConnection

from chinese_poker.server.defaults import RATE_LIMITS
from chinese_poker.server.messages import ErrorCode, error_text
from chinese_poker.server.redis_link import REDIS_RETRY_SECONDS, RedisLink, link_to

__all__ = [
    "REDIS_RETRY_SECONDS",
    "BodyLimit",
    "Limits",
    "RateSpec",
    "SharedCounts",
    "UnicodeText",
    "client_address",
    "lone_surrogate",
    "origin_allowed",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def client_address(conn: HTTPConnection) -> str:
    """The address every per-client limit counts by (a request's or a WebSocket's), as
    the connection came ("?" when the server was not told)."""
    return conn.client.host if conn.client is not None else "?"


@dataclass(frozen=True)
class RateSpec:
    """The rate limits of one server, in the ``limits`` notation ("20/minute"): tables
    created, joins (and seat hand-overs), wrong join codes, study-desk requests and
    reads of a table (``/api/tables/{id}``, its ledger, hands and history)."""

    create: str = RATE_LIMITS["create"]
    join: str = RATE_LIMITS["join"]
    bad_code: str = RATE_LIMITS["bad_code"]
    study: str = RATE_LIMITS["study"]
    read: str = RATE_LIMITS["read"]

    @classmethod
    def parse(cls, text: str) -> RateSpec:
        """``KIND=LIMIT`` pairs separated by commas (kinds: the fields), e.g.
        ``create=30/minute,read=1000/minute``; the kinds not named keep their default.
        The older form ``CREATE,JOIN,CODES`` (three limits) still works. ValueError
        naming what is wrong."""
        kinds = [f.name for f in fields(cls)]
        parts = [p.strip() for p in text.split(",") if p.strip()]
        if parts and all("=" not in p for p in parts):
            if len(parts) != 3:
                raise ValueError(
                    f"rate limits are KIND=LIMIT pairs (kinds: {', '.join(kinds)}) or three"
                    f" limits CREATE,JOIN,CODES, not {text!r}"
                )
            parts = [f"{k}={v}" for k, v in zip(("create", "join", "bad_code"), parts, strict=True)]
        given: dict[str, str] = {}
        for part in parts:
            kind, _, limit = (x.strip() for x in part.partition("="))
            if kind not in kinds:
                raise ValueError(f"unknown rate limit {kind!r}; kinds: {', '.join(kinds)}")
            if kind in given:
                raise ValueError(f"rate limit {kind!r} is given twice")
            try:
                parse(limit)
            except ValueError:
                raise ValueError(f"{kind}: {limit!r} is not a limit like 30/minute") from None
            given[kind] = limit
        if not given:
            raise ValueError("no rate limit given")
        return cls(**given)


class SharedCounts:
    """Moving-window counters, shared by every server process through Redis when a link
    (or a URL) is given, else kept in this process's memory.

    Redis is asked without blocking the event loop (``limits.aio`` over the link's
    ``redis.asyncio`` client). While it cannot be reached the counts are kept in this
    process's memory (the link logs it once per outage), so the limits still hold, per
    process, and no request fails for it; when Redis answers again the shared counts
    are used again.
    """

    def __init__(self, redis: RedisLink | str | None = None) -> None:
        self._local = MovingWindowRateLimiter(MemoryStorage())
        self.link = link_to(redis)
        self._shared: tuple[Any, SharedLimiter] | None = None  # (its client, the limiter)

    @property
    def shared(self) -> bool:
        """Whether the counts are meant to be shared (a Redis was given)."""
        return self.link is not None

    def _shared_limiter(self, link: RedisLink) -> SharedLimiter:
        client = link.client()
        if self._shared is None or self._shared[0] is not client:
            storage = AsyncRedisStorage(
                f"async+{link.url}",
                implementation="redispy",
                connection_pool=client.connection_pool,
                key_prefix=f"{link.prefix}:limits",
                wrap_exceptions=True,
            )
            self._shared = (client, SharedLimiter(storage))
        return self._shared[1]

    async def hit(self, item: RateLimitItem, *identifiers: str) -> bool:
        """Count one hit; False: over the limit."""
        return await self._ask("hit", item, identifiers)

    async def test(self, item: RateLimitItem, *identifiers: str) -> bool:
        """Whether one more hit would be allowed (counts nothing)."""
        return await self._ask("test", item, identifiers)

    async def _ask(self, how: str, item: RateLimitItem, identifiers: tuple[str, ...]) -> bool:
        link = self.link
        if link is not None and link.up:
            try:
                allowed: bool = await getattr(self._shared_limiter(link), how)(item, *identifiers)
            except Exception as exc:  # StorageError, or redis' own before limits wraps it
                link.failed(exc)
            else:
                link.answered()
                return allowed
        answer: bool = getattr(self._local, how)(item, *identifiers)
        return answer


class Limits:
    """Moving-window limits per client address, counted in ``counts`` (this process's
    memory unless told otherwise)."""

    def __init__(self, spec: RateSpec | None = None, counts: SharedCounts | None = None) -> None:
        spec = spec or RateSpec()
        self._limiter = counts if counts is not None else SharedCounts()
        self._items: dict[str, RateLimitItem] = {
            f.name: parse(getattr(spec, f.name)) for f in fields(spec)
        }

    async def hit(self, kind: str, address: str) -> bool:
        """Count one ``kind`` request of ``address``; False: over the limit."""
        return await self._limiter.hit(self._items[kind], kind, address)

    async def allowed(self, kind: str, address: str) -> bool:
        """Whether ``address`` is under the ``kind`` limit (counts nothing)."""
        return await self._limiter.test(self._items[kind], kind, address)

    def describe(self, kind: str) -> str:
        item = self._items[kind]
        return f"{item.amount} per {item.multiples} {item.GRANULARITY.name}"


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with 413, without reading them whole."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    size = int(value)
                except ValueError:
                    size = 0
                if size > self.limit:
                    await self._refuse(send)
                    return
        seen = 0
        started = False
        too_large = False

        async def counted() -> Message:
            # Past the limit the app is told the client left, and whatever it answers
            # is replaced by the 413 below.
            nonlocal seen, too_large
            if too_large:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    too_large = True
                    return {"type": "http.disconnect"}
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            if too_large and not started:
                return
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except Exception:
            if not too_large:
                raise
        if too_large and not started:
            await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps({"detail": f"the request body is larger than {self.limit} bytes"})
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body.encode()})


# A JSON escape: \uXXXX (its hex digits captured) or any other (\\, \", \n ...), so
# that an escaped backslash before "u" is not read as the start of an escape.
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)", re.DOTALL)
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def lone_surrogate(text: str) -> str | None:
    r"""The first lone surrogate escape in JSON ``text`` (``"\ud800"``), or None.

    JSON may escape a surrogate, but only a high one followed at once by a low one is a
    character; alone it decodes to a string that no UTF-8 encoder (the database, a
    response) accepts.

    >>> lone_surrogate(r'{"name": "x\ud800"}'), lone_surrogate(r'"\ud83d\ude00 \\ud800"')
    ('\\ud800', None)
    """
    if _SURROGATE.search(text) is None:  # nearly always: no scan
        return None
    high: re.Match[str] | None = None
    for match in _ESCAPE.finditer(text):
        code = int(match.group(1), 16) if match.group(1) else None
        if high is not None:
            if code is not None and 0xDC00 <= code <= 0xDFFF and match.start() == high.end():
                high = None
                continue
            return high.group(0)
        if code is not None and 0xD800 <= code <= 0xDBFF:
            high = match
        elif code is not None and 0xDC00 <= code <= 0xDFFF:
            return match.group(0)
    return None if high is None else high.group(0)


def _surrogate_problem(escape: str) -> str:
    return f"the JSON text has a lone surrogate {escape}: strings must be valid Unicode"


REFUSED_MESSAGE_PAUSE = 0.05
"""Seconds a socket is not read after a refused message (the tables read at most 20
messages a second from a socket; a refused one is not let through faster)."""


class UnicodeText:
    """Refuse JSON text that is not valid Unicode before the application reads it: a
    lone surrogate escape in a request body is answered ``400``, in a WebSocket message
    an ``error`` (``bad_json``) to that client, and the socket reads on. Both used to
    reach the database or a response's encoder, and crash there (500, a traceback)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self.app(scope, self._socket_reader(receive, send), send)
        else:
            await self.app(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        # The whole body first (BodyLimit, outside, bounds it): the app reads it whole too.
        messages: list[Message] = []
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request" or not message.get("more_body", False):
                break
        body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request")
        escape = lone_surrogate(body.decode("utf-8", errors="replace")) if body else None
        if escape is not None:
            await _answer(send, 400, {"detail": _surrogate_problem(escape)})
            return
        replay = iter(messages)

        async def replayed() -> Message:
            return next(replay, None) or await receive()

        await self.app(scope, replayed, send)

    def _socket_reader(self, receive: Receive, send: Send) -> Receive:
        async def read() -> Message:
            while True:
                message = await receive()
                text = message.get("text") if message["type"] == "websocket.receive" else None
                escape = lone_surrogate(text) if isinstance(text, str) else None
                if escape is None:
                    return message
                problem = _surrogate_problem(escape)
                error = error_text(None, ErrorCode.BAD_JSON, problem, None)
                await send({"type": "websocket.send", "text": error})
                await asyncio.sleep(REFUSED_MESSAGE_PAUSE)

        return read


async def _answer(send: Send, status: int, document: Mapping[str, Any]) -> None:
    body = json.dumps(document).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def origin_allowed(origin: str | None, host: str | None, allowed: Iterable[str]) -> bool:
    """Whether a WebSocket from ``origin`` may connect to ``host``.

    No ``Origin`` header (programs, not browsers): allowed. Otherwise the origin must be
    in ``allowed`` (``"*"`` allows any), or, by default, have the same host and port as
    the request's ``Host``.
    """
    if origin is None:
        return True
    wanted = {o.rstrip("/").lower() for o in allowed}
    if "*" in wanted or origin.rstrip("/").lower() in wanted:
        return True
    if host is None:
        return False
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    default = "443" if parts.scheme == "https" else "80"
    netloc = parts.netloc.lower()
    have = netloc if ":" in netloc.rsplit("]", 1)[-1] else f"{netloc}:{default}"
    want = host.lower()
    want = want if ":" in want.rsplit("]", 1)[-1] else f"{want}:{default}"
    return have == want
