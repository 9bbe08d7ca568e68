"""This process's one link to the Redis every process of the site shares (``serve --redis``).

The rate limits and sign-in throttles (:class:`~.guard.SharedCounts`) and the places each
player holds in the hint and study queues (:class:`~.fair_share.SharedPlaces`) are
counted there, through one :class:`RedisLink`: one asynchronous client (``redis.asyncio``,
one connection pool) so that no request waits for Redis on the event loop, and one retry
state. While Redis cannot be reached both count in this process (logged once per
outage); Redis is tried again :data:`REDIS_RETRY_SECONDS` after the last failure, so an
outage costs one failed attempt per interval, not one per request.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

__all__ = ["REDIS_RETRY_SECONDS", "REDIS_TIMEOUT", "RedisLink", "link_to", "retry_clock"]

log = logging.getLogger("chinese_poker.server")

REDIS_RETRY_SECONDS = 2.0
"""After Redis fails, what it counts is counted in this process this long before Redis
is tried again."""

REDIS_TIMEOUT = 0.5
"""The longest one request waits for Redis (to connect, or for an answer) before it is
counted in this process instead."""


retry_clock = time.monotonic
"""The clock of the retry interval; its own name so that a test can move it without
moving the event loop's clock (``time.monotonic`` itself)."""


class RedisLink:
    """The Redis at ``url``, as every user of it in this process reaches it: a client per
    event loop (an application started again on a new loop gets a new one) and whether
    Redis is to be asked now (:attr:`up`), after :meth:`failed` and :meth:`answered`."""

    def __init__(self, url: str, *, prefix: str = "chinese-poker") -> None:
        self.url = url
        self.prefix = prefix
        self._down_until = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: Any = None

    @property
    def up(self) -> bool:
        """Whether Redis is to be asked now (not within a retry interval of a failure)."""
        return retry_clock() >= self._down_until

    def client(self) -> Any:
        """The ``redis.asyncio`` client of the running event loop."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            import redis.asyncio  # the optional client `serve --redis` already checked
            from redis.asyncio.retry import Retry
            from redis.backoff import NoBackoff

            self._loop = loop
            self._client = redis.asyncio.Redis.from_url(
                self.url,
                socket_timeout=REDIS_TIMEOUT,
                socket_connect_timeout=REDIS_TIMEOUT,
                retry=Retry(NoBackoff(), 0),  # one attempt: the caller counts here instead
            )
        return self._client

    def failed(self, exc: BaseException) -> None:
        """Redis did not answer: count in this process until the retry time."""
        if not self._down_until:
            log.warning(
                "Redis cannot be reached (%s); rate limits and queue places are counted"
                " in this process",
                exc,
            )
        self._down_until = retry_clock() + REDIS_RETRY_SECONDS

    def answered(self) -> None:
        """Redis answered: if it had failed, what is shared is shared again."""
        if self._down_until:
            log.warning("Redis answers again; rate limits and queue places are shared again")
            self._down_until = 0.0


def link_to(redis: RedisLink | str | None) -> RedisLink | None:
    """A link to ``redis`` (a URL: a link of its own, as a process of its own has)."""
    return RedisLink(redis) if isinstance(redis, str) else redis
