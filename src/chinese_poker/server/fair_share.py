"""A fair share of the server's slow work (hints, reviews, the study desk) per player.

Each kind of slow work has a bounded queue: a few places on the whole server, and one or
two workers. Without a share per player, one client holding many seats (or sending many
desk requests) took every place, and everybody else's hint was ``busy``. Now:

* a player (a client address: one person with sixty seats is still one address) holds
  at most :attr:`FairShare.per_player` places, waiting or running; more are refused for
  that player alone;
* a free worker takes the next job of the player served longest ago (round robin over
  the players waiting), so a player's second job waits behind the others' first.

With a Redis shared by every process of the site (``serve --redis``), the places a
player holds are counted there (:class:`SharedPlaces`), so a flood spread over the
processes meets one share; without one, or while Redis cannot be reached, each process
counts its own. The turns are always per process: each process has its own workers.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass

from chinese_poker.server.redis_link import REDIS_RETRY_SECONDS, RedisLink, link_to

__all__ = ["REDIS_RETRY_SECONDS", "FairShare", "Place", "SharedPlaces"]


PLACE_SECONDS = 300.0
"""A place counted in Redis is forgotten after this long: the places of a process that
died holding them come free (a place is normally given back within a minute)."""


@dataclass(frozen=True)
class Place:
    """One place of a queue, held by ``player`` (``number``: its name in Redis)."""

    player: str
    number: str


class SharedPlaces:
    """The places each player holds, counted in the Redis every process shares.

    One sorted set per kind of work and player: a member per place, scored with the
    time it is forgotten (:data:`PLACE_SECONDS`), so a dead process's places expire. A
    place is added, the expired removed and the set counted in one transaction; over the
    share, the place is removed again (two processes racing may both refuse: never both
    admit past the share). Redis is asked through the process's :class:`RedisLink`,
    without blocking the event loop.
    """

    def __init__(self, redis: RedisLink | str) -> None:
        link = link_to(redis)
        assert link is not None
        self.link = link
        self._prefix = f"{link.prefix}:places"
        # Places whose giving back failed (Redis away): removed with the next take that
        # reaches Redis, so a blip does not hold a player's places until they expire.
        self._owed: set[tuple[str, str]] = set()
        self._giving_back: set[asyncio.Task[None]] = set()

    def _key(self, kind: str, player: str) -> str:
        return f"{self._prefix}:{kind}:{player}"

    @property
    def up(self) -> bool:
        """Whether Redis is to be asked now (not within a retry interval of a failure)."""
        return self.link.up

    async def take(self, kind: str, place: Place, share: int) -> bool | None:
        """Count ``place``; False: the player already holds ``share`` places; None:
        Redis cannot be reached (the caller counts in its own process)."""
        key = self._key(kind, place.player)
        now = time.time()
        owed = list(self._owed)
        try:
            async with self.link.client().pipeline() as pipe:
                for owed_key, member in owed:
                    pipe.zrem(owed_key, member)
                pipe.zremrangebyscore(key, "-inf", now)
                pipe.zadd(key, {place.number: now + PLACE_SECONDS})
                pipe.zcard(key)
                pipe.expire(key, int(PLACE_SECONDS) + 1)
                held = int((await pipe.execute())[len(owed) + 2])
            self._owed.difference_update(owed)
        except Exception as exc:  # redis' errors: connection, timeout, response
            self.link.failed(exc)
            return None
        self.link.answered()
        if held > share:
            await self.give_back(kind, place)
            return False
        return True

    async def give_back(self, kind: str, place: Place) -> None:
        key = self._key(kind, place.player)
        try:
            await self.link.client().zrem(key, place.number)
        except Exception as exc:  # removed with the next take that reaches Redis
            self._owed.add((key, place.number))
            self.link.failed(exc)

    def give_back_soon(self, kind: str, place: Place) -> None:
        """Give the place back without waiting for Redis (from code that cannot wait)."""
        task = asyncio.get_running_loop().create_task(self.give_back(kind, place))
        self._giving_back.add(task)
        task.add_done_callback(self._giving_back.discard)


class FairShare:
    """The places of one kind of slow work, a fair share of them per player, and the
    turns of its ``workers`` round robin over the players waiting.

    :meth:`take` a place before the work is accepted (None: refused, ``busy``), run the
    work inside ``async with share.turn(place.player)``, then :meth:`give_back` the place.
    """

    def __init__(
        self,
        places: int,
        per_player: int,
        workers: int = 1,
        *,
        kind: str = "hints",
        shared: SharedPlaces | None = None,
    ) -> None:
        self.places = places
        self.per_player = per_player
        self.workers = workers
        self.kind = kind
        self._shared = shared
        self.held = 0
        self._held_by: dict[str, int] = {}
        self._in_redis: set[Place] = set()
        self._running = 0
        self._waiting: dict[str, deque[asyncio.Future[None]]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._turns = 0
        self._last_turn: dict[str, int] = {}  # of the players holding places

    def take(self, player: str) -> Place | None:
        """A place for ``player``'s work in this process, or None: the queue is full,
        or the player already holds his share of it here. With a shared count the place
        is only his once :meth:`admit` says so."""
        if self.held >= self.places or self._held_by.get(player, 0) >= self.per_player:
            return None
        place = Place(player, uuid.uuid4().hex)
        self.held += 1
        self._held_by[player] = self._held_by.get(player, 0) + 1
        return place

    async def admit(self, place: Place) -> bool:
        """Count a place :meth:`take` gave in the Redis every process shares (if any,
        and if it answers); False: the player holds his share over all the processes,
        and the place is given back."""
        shared = self._shared
        if shared is None or not shared.up:
            return True
        counted = await shared.take(self.kind, place, self.per_player)
        if counted is False:
            self.give_back(place)
            return False
        if counted:
            self._in_redis.add(place)
        return True

    async def take_admitted(self, player: str) -> Place | None:
        """:meth:`take` and :meth:`admit` in one: a place, or None (refused)."""
        place = self.take(player)
        if place is None or not await self.admit(place):
            return None
        return place

    def give_back(self, place: Place) -> None:
        self.held -= 1
        left = self._held_by[place.player] - 1
        if left:
            self._held_by[place.player] = left
        else:
            del self._held_by[place.player]
            self._last_turn.pop(place.player, None)
        if place in self._in_redis:
            self._in_redis.discard(place)
            assert self._shared is not None
            self._shared.give_back_soon(self.kind, place)

    @contextlib.asynccontextmanager
    async def turn(self, player: str) -> AsyncIterator[None]:
        """Wait for a worker (the player served longest ago goes first), hold it."""
        await self._wait_turn(player)
        try:
            yield
        finally:
            self._pass_turn()

    async def _wait_turn(self, player: str) -> None:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            # An application started again on a new loop (tests do): what the old loop
            # held or waited for will never be given back.
            self._loop, self._running, self._waiting = loop, 0, {}
        if self._running < self.workers and not self._waiting:
            self._start(player)
            return
        turn: asyncio.Future[None] = loop.create_future()
        self._waiting.setdefault(player, deque()).append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._pass_turn()  # given the turn, then cancelled: the next one has it
            else:
                self._forget(player, turn)
            raise

    def _start(self, player: str) -> None:
        self._running += 1
        self._turns += 1
        if player in self._held_by:
            self._last_turn[player] = self._turns

    def _forget(self, player: str, turn: asyncio.Future[None]) -> None:
        queue = self._waiting.get(player)
        if queue is not None and turn in queue:
            queue.remove(turn)
            if not queue:
                del self._waiting[player]

    def _pass_turn(self) -> None:
        self._running = max(0, self._running - 1)
        while self._waiting and self._running < self.workers:
            # Never served (-1) first, then the one served longest ago; ties: arrival.
            player = min(self._waiting, key=lambda p: self._last_turn.get(p, -1))
            queue = self._waiting[player]
            turn = queue.popleft()
            if not queue:
                del self._waiting[player]
            if not turn.cancelled():
                self._start(player)
                turn.set_result(None)
