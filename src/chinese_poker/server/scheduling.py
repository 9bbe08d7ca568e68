"""Timers, bots and the worker pools that keep heavy work off the event loop.

Heavy work (bots' decisions, hints, building a bot at table creation) runs in bounded
pools, never on the event loop. Bots and hints have **separate pools**, so no number of
hints can hold up a bot's move: a hint flood only queues behind other hints, and it
cannot grow without bound either: a seat has at most one pending hint (a second is
answered ``busy``), a player (a client address) at most :data:`HINT_PER_PLAYER` hints and
reviews, and the server at most :data:`HINT_QUEUE` (more are ``busy``); the worker takes
them round robin over the players (:mod:`.fair_share`), so one client's flood delays
nobody else's hint by more than one of its own. Hints
run in a worker *process* by default (at a lower scheduling priority), so that their
Monte Carlo sampling competes neither for the interpreter lock nor, on a busy machine,
for the processors with the event loop and the bots. Each hint runs with
a time budget (:data:`HINT_SECONDS`) and is abandoned after :data:`HINT_DEADLINE`.

Decision timers are ``loop.call_later`` handles per engine seat that submit the engine's
``Timeout`` when they run out.

Work on the event loop that may wait a little (a hand's settlement) is :class:`Deferred`:
it runs once the loop has had no message to handle for a moment, so that reading and
acknowledging actions goes first.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

from chinese_poker.ai import warm
from chinese_poker.engine import Table
from chinese_poker.server.fair_share import FairShare, Place, SharedPlaces

__all__ = [
    "HINT_PER_PLAYER",
    "HINT_QUEUE",
    "HINT_SECONDS",
    "Deferred",
    "Timers",
    "Workers",
    "stop_pool",
]

log = logging.getLogger(__name__)

HINT_SECONDS = 3.0
"""The time budget of one hint (its Monte Carlo sampling stops early)."""

HINT_DEADLINE = 60.0
"""A hint not answered within this many seconds is abandoned (``hints_unavailable``):
long enough for a first hint that starts the worker, which loads the kernels (kernels it
must compile are compiled in the background, and the hint is a quick one meanwhile)."""

HINT_QUEUE = 32
"""At most this many hints wait or run at once on one server; more are ``busy``."""

HINT_PER_PLAYER = 2
"""At most this many of them (hints and reviews) are one player's (one client address's,
on every process when they share a Redis); more are ``busy`` for that player only."""

DEFER_QUIET = 0.002
"""Deferred work runs once no message has been handled for this many seconds..."""

DEFER_MAX_WAIT = 0.1
"""... or once the oldest piece of it has waited this long (under a steady flow of
messages the loop is never quiet)."""

DEFER_SLICE = 0.003
"""Deferred work runs at most this long at a time, then lets the loop read its sockets."""

T = TypeVar("T")


class Deferred:
    """Work on the event loop that may wait until the acknowledgements are out.

    In lock step hundreds of tables end their hands in the same instant; settling each
    (history line, ledger, the next commitment: about as much work as two actions) as
    soon as its last action is stored would hold up the acknowledgement of every other
    table's action of that round. Deferred work runs in order, in slices of at most
    :data:`DEFER_SLICE`, once no message has been handled for :data:`DEFER_QUIET`
    (:meth:`busy` marks one), or once its oldest piece has waited :data:`DEFER_MAX_WAIT`,
    so it is never starved. A piece that raises is logged; the rest still run.
    """

    def __init__(self) -> None:
        self._queue: deque[tuple[float, Callable[[], None]]] = deque()
        self._handle: asyncio.TimerHandle | asyncio.Handle | None = None
        self._busy_at = 0.0

    def __len__(self) -> int:
        return len(self._queue)

    def busy(self) -> None:
        """A message is being handled now."""
        self._busy_at = time.perf_counter()

    def add(self, work: Callable[[], None]) -> None:
        self._queue.append((time.perf_counter(), work))
        if self._handle is None:
            self._arm(time.perf_counter())

    def _arm(self, now: float) -> None:
        loop = asyncio.get_running_loop()
        quiet_for = now - self._busy_at
        if quiet_for >= DEFER_QUIET:
            self._handle = loop.call_soon(self._run)  # after the sockets are polled
        else:
            due = min(DEFER_QUIET - quiet_for, self._queue[0][0] + DEFER_MAX_WAIT - now)
            self._handle = loop.call_later(max(0.0, due), self._run)

    def _run(self) -> None:
        self._handle = None
        if not self._queue:
            return
        now = time.perf_counter()
        if now - self._busy_at < DEFER_QUIET and now - self._queue[0][0] < DEFER_MAX_WAIT:
            self._arm(now)
            return
        self._work(now + DEFER_SLICE)
        if self._queue:
            self._arm(time.perf_counter())

    def _work(self, end: float) -> None:
        """Run waiting pieces in order until the queue is empty or ``end`` has passed."""
        while self._queue:
            _since, work = self._queue.popleft()
            try:
                work()
            except Exception:
                log.exception("deferred work failed")
            if time.perf_counter() >= end:
                break

    def drain(self) -> None:
        """Run everything still waiting, now (at shutdown)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._work(float("inf"))


class Workers:
    """The server's bounded thread pools: bots, hints and setup work, each its own."""

    def __init__(
        self,
        bot_threads: int | None = None,
        hint_workers: int = 1,
        hint_processes: bool = True,
        *,
        places: SharedPlaces | None = None,
    ) -> None:
        cpus = os.cpu_count() or 2
        self._bots = ThreadPoolExecutor(bot_threads or min(4, cpus), "cp-bot")
        self._hint_workers = hint_workers
        self._hint_processes = hint_processes
        self._hints = self._hint_pool()
        self._setup = ThreadPoolExecutor(1, "cp-setup")
        self.hint_places = FairShare(HINT_QUEUE, HINT_PER_PLAYER, hint_workers, shared=places)
        self._hint_seats: dict[tuple[str, int], Place] = {}
        # Set once the bot threads have loaded the kernels (warm): from then on the
        # server's memory is what it keeps; a benchmark of its growth starts there.
        self.kernels_warm = threading.Event()

    async def bot(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._bots, fn, *args)

    async def setup(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._setup, fn, *args)

    @property
    def hints_pending(self) -> int:
        """Hints and reviews waiting or running in this process."""
        return self.hint_places.held

    def hint_slot(self, key: tuple[str, int], player: str = "") -> bool:
        """Reserve the one pending hint of a (table, chair), one of ``player``'s places
        (his client address); False: busy."""
        if key in self._hint_seats:
            return False
        place = self.hint_places.take(player)
        if place is None:
            return False
        self._hint_seats[key] = place
        return True

    async def hint_admitted(self, key: tuple[str, int]) -> bool:
        """Whether the place :meth:`hint_slot` reserved is within its player's share over
        every process sharing a Redis (asked without blocking the loop); False: refused,
        and the slot is free again."""
        place = self._hint_seats.get(key)
        if place is None:
            return False
        if await self.hint_places.admit(place):
            return True
        self._hint_seats.pop(key, None)  # admit gave the place back
        return False

    def hint_done(self, key: tuple[str, int]) -> None:
        place = self._hint_seats.pop(key, None)
        if place is not None:
            self.hint_places.give_back(place)

    def warm(self) -> None:
        """Start the hint worker now rather than at the first hint; it compiles (or
        loads) the kernels, and then a thread of the server loads them from the cache it
        wrote (waiting, without numba's lock, while the worker compiles: one compilation,
        out of the event loop's process; a thread of its own, so that the bots keep all
        of theirs). Neither a hint nor a bot's move waits meanwhile: they are answered by
        the quick methods of :mod:`chinese_poker.ai.warm`."""
        if self._hint_processes:
            with contextlib.suppress(RuntimeError):  # already shut down
                self._hints.submit(_ready).add_done_callback(self._warm_bots)
        else:
            self._warm_bots(None)

    def _warm_bots(self, _: object) -> None:
        def run() -> None:
            _warm_kernels()
            self.kernels_warm.set()

        threading.Thread(target=run, name="cp-warm", daemon=True).start()

    def _hint_pool(self) -> Executor:
        if self._hint_processes:
            return ProcessPoolExecutor(
                self._hint_workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_background,
                initargs=(os.getpid(),),
            )
        return ThreadPoolExecutor(self._hint_workers, "cp-hint")

    async def hint(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """:meth:`hint_for` a client not named (its turns shared with all such)."""
        return await self.hint_for("", fn, *args, **kwargs)

    async def hint_for(self, player: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` in the hint pool, at ``player``'s turn (a module-level
        function and picklable arguments when it is a process pool); TimeoutError after
        :data:`HINT_DEADLINE`, waiting for the turn included."""
        return await asyncio.wait_for(self._hint_at_turn(player, fn, args, kwargs), HINT_DEADLINE)

    async def _hint_at_turn(
        self, player: str, fn: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> T:
        loop = asyncio.get_running_loop()
        call = functools.partial(fn, *args, **kwargs)
        async with self.hint_places.turn(player):
            for attempt in range(2):
                try:
                    return await loop.run_in_executor(self._hints, call)
                except BrokenProcessPool:  # a worker died: a fresh pool, and one more try
                    self._hints.shutdown(wait=False, cancel_futures=True)
                    self._hints = self._hint_pool()
                    if attempt:
                        raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Stop every pool; a hint worker still thinking is terminated (shutdown must
        not wait for a hint nobody will read)."""
        for pool in (self._bots, self._hints, self._setup):
            stop_pool(pool)


STOP_SECONDS = 5.0
"""How long :func:`stop_pool` waits for a terminated worker and the pool's manager."""


def stop_pool(pool: Executor, *, join: bool = True) -> None:
    """Shut ``pool`` down without waiting for its work: queued work is cancelled and a
    worker process still busy is terminated. With ``join`` (at shutdown) the workers and
    the pool's manager thread are joined, so that its queues (and their semaphores) are
    released now: left to the interpreter's exit they leak when the server ends by a
    signal (uvicorn re-raises SIGTERM after its shutdown, which skips the exit handlers),
    and the resource tracker warns of "leaked semaphore objects"."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)  # shutdown forgets it
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    if not join:
        return
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(STOP_SECONDS)
    if isinstance(manager, threading.Thread):
        manager.join(STOP_SECONDS)


def _background(server: int) -> None:
    """A hint worker yields the processors to the server (its bots, its event loop),
    and loads the hint code before the first hint is asked for. It also leaves with its
    server: killed (``kill -9``, out of memory), the server cannot stop it, and the
    worker would wait for work forever (it holds its task queue's write end itself)."""
    leave_with(server)
    with contextlib.suppress(OSError, AttributeError):
        os.nice(10)
    with contextlib.suppress(ImportError):
        from chinese_poker.ai import hints  # noqa: F401  (loaded before the first hint)
    warm_worker()


def warm_worker() -> None:
    """Warm a hint or study worker before it takes work: every kernel family that numba
    can load from its cache. What must be compiled (a fresh machine: seconds for the
    solvers, a minute or more for the open-face kernels) is compiled in a background
    thread, the solvers' first; meanwhile an open-face hint is answered quickly
    (``when_cold="quick"``), and a solve waits at most for the solvers' (seconds)."""
    try:
        warm.warm_unless_compiling(warm.PARTS)
    except Exception as exc:
        logging.getLogger("chinese_poker.server").warning("warming the kernels failed: %s", exc)


ORPHAN_CHECK_SECONDS = 1.0
"""How often a hint worker checks that its server is still there."""


def leave_with(server: int) -> None:
    """In a worker process: exit once the server process ``server`` (its parent) is
    gone. ``server`` is passed in by the server, not read here: a server killed while
    the worker was still starting would otherwise be missed (its parent already init).
    It also ignores Ctrl-C: the terminal sends it to the whole process group, and the
    server stops its workers itself (a worker's KeyboardInterrupt traceback is noise)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == server:
            time.sleep(ORPHAN_CHECK_SECONDS)
        os._exit(0)  # nobody will read an answer

    threading.Thread(target=watch, name="cp-orphan", daemon=True).start()


def _warm_kernels() -> None:
    """Compile or load every kernel family now (chinese_poker.ai.warm); a failure only
    means that the first use compiles instead."""
    try:
        warm.warm_kernels()
    except Exception as exc:
        logging.getLogger("chinese_poker.server").warning("warming the kernels failed: %s", exc)


def _ready() -> None:
    """Nothing: submitted once at startup so that the hint worker starts at once."""


@dataclass
class _Timer:
    key: tuple[Any, ...]
    deadline: float
    limit: float
    handle: asyncio.TimerHandle


class Timers:
    """One table's decision clocks, per engine seat of the current hand."""

    def __init__(self) -> None:
        self._timers: dict[int, _Timer] = {}

    def sync(
        self,
        table: Table,
        hand: int,
        humans: list[int],
        limits: float | Mapping[int, float] | None,
        expire: Callable[[int, tuple[Any, ...]], None],
    ) -> None:
        """Run a clock for every human engine seat to act (restarted when its decision
        changes), and none for anybody else. ``limits``: one limit, or one per seat (a
        seat's limit with its time bank)."""
        to_act = table.to_act
        wanted = set()
        for seat in humans:
            limit = _limit(limits, seat)
            if limit is None or seat not in to_act or seat in table.timed_out:
                continue
            wanted.add(seat)
            key = (hand, table.decisions(seat))
            timer = self._timers.get(seat)
            if timer is not None and timer.key == key:
                continue
            self.cancel(seat)
            loop = asyncio.get_running_loop()
            self._timers[seat] = _Timer(
                key, loop.time() + limit, limit, loop.call_later(limit, expire, seat, key)
            )
        for seat in list(self._timers):
            if seat not in wanted:
                self.cancel(seat)

    @property
    def running(self) -> bool:
        return bool(self._timers)

    def due(self, seat: int, key: tuple[Any, ...]) -> bool:
        """The clock of ``seat`` with ``key`` has run out (and is removed)."""
        timer = self._timers.get(seat)
        if timer is None or timer.key != key:
            return False
        del self._timers[seat]
        return True

    def cancel(self, seat: int) -> None:
        timer = self._timers.pop(seat, None)
        if timer is not None:
            timer.handle.cancel()

    def cancel_all(self) -> None:
        for seat in list(self._timers):
            self.cancel(seat)

    def clocks(
        self, table: Table, hand: int, humans: list[int], limits: float | Mapping[int, float] | None
    ) -> list[dict[str, Any]]:
        """The decision clocks of the state as it is now.

        Worked out from the table rather than read from the running timers: a message
        is built before the timers restart, and must already show the clock of a seat
        that has just come to act (at its full limit) and not the old one.
        """
        if limits is None:
            return []
        now = asyncio.get_running_loop().time()
        out = []
        for seat in humans:
            limit = _limit(limits, seat)
            if limit is None or seat not in table.to_act or seat in table.timed_out:
                continue
            timer = self._timers.get(seat)
            running = timer is not None and timer.key == (hand, table.decisions(seat))
            remaining = max(timer.deadline - now, 0.0) if running and timer else limit
            out.append({"seat": seat, "remaining": round(remaining, 3), "limit": limit})
        return out


def _limit(limits: float | Mapping[int, float] | None, seat: int) -> float | None:
    if isinstance(limits, Mapping):
        return limits.get(seat)
    return limits


FREEZE_SECONDS = 0.25
"""How often the garbage collector's survivors are frozen (:class:`GcPacer`). Freezing
costs next to nothing (the generations are spliced, nothing is walked); at 2 s the
start-up burst of 3,000 tables still left collections of 60-70 ms, at 0.25 s none was
measured (docs/benchmarks.md)."""

FULL_SECONDS = 600.0
"""How often everything is unfrozen and collected once (cycles frozen alive are freed)."""


class GcPacer:
    """Keeps the garbage collector's pauses short on a server with a big heap.

    Thousands of tables are hundreds of MiB of long-lived objects; each young-generation
    collection that promotes into them, and each full collection, walks them all (at
    3,000 tables: pauses of 0.2-0.5 s, 10% of the time). Every :data:`FREEZE_SECONDS`
    what is alive is frozen (``gc.freeze``): collections then walk only what was made
    since. Frozen objects are still freed by reference counting; only reference cycles
    that were alive when frozen wait, until the full collection every
    :data:`FULL_SECONDS` (``gc.unfreeze`` + ``gc.collect``), one long pause instead of
    many. So nothing made per table or per socket may be a cycle (see
    :mod:`chinese_poker.server.transport` for the one uvicorn made).
    """

    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        full_at = loop.time() + FULL_SECONDS
        while True:
            await asyncio.sleep(FREEZE_SECONDS)
            if loop.time() >= full_at:
                gc.unfreeze()
                gc.collect()
                full_at = loop.time() + FULL_SECONDS
            gc.freeze()

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        gc.unfreeze()
