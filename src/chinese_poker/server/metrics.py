"""The server's own timings, so that a benchmark can tell the server's latency from its
clients' (which share the machine's cores).

* **actions**: for each action read from a socket, the time from reading the message
  to queuing its acknowledgement (validation, the engine, the group commit, the
  messages built and handed to the sockets);
* **loop lag**: how late a 10 ms ticker on the event loop runs (the time anything that
  arrives waits before the loop gets to it);
* **gc**: the garbage collector's pauses.

``GET /api/metrics`` (from the server's own machine only) returns them and, with
``?reset=true``, starts afresh, together with the process's own counts
(:class:`ProcessCounts`: moves applied, lease renewals, takeovers, handovers), which a
reset leaves alone (an operator's graphs read them as ever-growing counters).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ProcessCounts", "Timings"]

RATE_WINDOW = 60.0
"""Moves per second are counted over the last minute."""

KEEP = 500_000
"""The most samples kept of each kind between two resets (the oldest half is dropped)."""

TICK = 0.01


def _summary(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"count": 0, "p50_ms": None, "p99_ms": None, "max_ms": None}
    ordered = sorted(values)

    def pct(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000, 3)

    return {
        "count": len(ordered),
        "p50_ms": pct(0.5),
        "p99_ms": pct(0.99),
        "max_ms": round(ordered[-1] * 1000, 3),
    }


def _add(values: list[float], value: float) -> None:
    if len(values) >= KEEP:
        del values[: KEEP // 2]
    values.append(value)


class Timings:
    """What the server measures of itself (see the module docstring)."""

    def __init__(self) -> None:
        self.actions: list[float] = []
        self.lags: list[float] = []
        self.pauses: list[float] = []
        self._gc_start = 0.0
        self._ticker: asyncio.Task[None] | None = None

    def action(self, seconds: float) -> None:
        _add(self.actions, seconds)

    def _gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
        else:
            _add(self.pauses, time.perf_counter() - self._gc_start)

    async def _tick(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + TICK
            await asyncio.sleep(TICK)
            _add(self.lags, max(0.0, loop.time() - due))

    def start(self) -> None:
        gc.callbacks.append(self._gc)
        self._ticker = asyncio.get_running_loop().create_task(self._tick())

    def stop(self) -> None:
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._gc)
        if self._ticker is not None:
            self._ticker.cancel()

    def snapshot(self, reset: bool = False) -> dict[str, Any]:
        out = {
            "actions": _summary(self.actions),
            "loop_lag": _summary(self.lags),
            "gc_pauses": _summary(self.pauses) | {"total_ms": round(sum(self.pauses) * 1000, 3)},
        }
        if reset:
            self.actions, self.lags, self.pauses = [], [], []
        return out


@dataclass
class ProcessCounts:
    """What one server process did since it started, counted where it happens: moves
    applied (once stored, :mod:`.table_ownership`), leases renewed, tables taken over
    from a process that died or stalled, tables handed over at its shutdown and taken
    from one that handed them over (:mod:`.tables`)."""

    moves: int = 0
    lease_renewals: int = 0
    takeovers: int = 0
    handovers_given: int = 0
    handovers_taken: int = 0
    recent: deque[list[int]] = field(default_factory=deque)
    """The moves of the last :data:`RATE_WINDOW` seconds, one ``[second, moves]`` pair
    per second that had any (at most 60 pairs, however many moves)."""

    def move(self) -> None:
        self.moves += 1
        second = int(time.monotonic())
        recent = self.recent
        if recent and recent[-1][0] == second:
            recent[-1][1] += 1
        else:
            recent.append([second, 1])
            self._forget(second)

    def _forget(self, second: int) -> None:
        recent = self.recent
        while recent and recent[0][0] <= second - RATE_WINDOW:
            recent.popleft()

    def snapshot(self, tables_owned: int) -> dict[str, Any]:
        self._forget(int(time.monotonic()))
        return {
            "tables_owned": tables_owned,
            "moves_applied": self.moves,
            "moves_per_second": round(sum(n for _s, n in self.recent) / RATE_WINDOW, 3),
            "lease_renewals": self.lease_renewals,
            "takeovers": self.takeovers,
            "handovers_given": self.handovers_given,
            "handovers_taken": self.handovers_taken,
        }
