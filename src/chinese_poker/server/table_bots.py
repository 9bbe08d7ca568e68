"""A live table's bots: the server's bot catalogue (read from :data:`chinese_poker.ai.REGISTRY`),
building a seat's bot, and playing the bot seats and stand-ins when they are to act.

A bot thinks in a worker thread (:meth:`.scheduling.Workers.bot`); its move goes through
:meth:`.tables.LiveTable.submit` like a person's. A bot that fails, or whose moves are
refused three times, plays a random legal move instead.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import secrets
from typing import TYPE_CHECKING, Any

from chinese_poker.ai import REGISTRY, Bot, make_bot, warm
from chinese_poker.engine import Action, Table, View
from chinese_poker.server.table_part import TablePart

if TYPE_CHECKING:
    from chinese_poker.server.tables import LiveTable

__all__ = ["TableBots", "bot_catalogue", "check_bot", "make_server_bot"]

log = logging.getLogger("chinese_poker.server")


def bot_catalogue() -> list[dict[str, Any]]:
    """The server-side bots: name and whether it takes a ``level``."""
    return [{"name": name, "levels": REGISTRY[name].takes_level} for name in sorted(REGISTRY)]


def make_server_bot(name: str, level: int | None, seed: int) -> Bot:
    """Build a bot (``make_bot(name, seed=..., level=...)``); ValueError if impossible."""
    bot = make_bot(name, seed=seed, level=level)
    if warm.OPEN_FACE in getattr(bot, "kernels", ()):
        # Until the server has its kernels (a fresh machine compiles them for a minute
        # and a half), the rules bot moves for it: a player never waits for numba.
        bot = warm.UntilWarm(bot, make_bot("rules", seed=seed))
    return bot


def check_bot(name: str, level: int | None) -> None:
    """ValueError for an unknown bot or a level it does not take (cheap: no build)."""
    kind = REGISTRY.get(name)
    if kind is None:
        raise ValueError(f"unknown bot {name!r}; bots: {', '.join(sorted(REGISTRY))}")
    if level is not None and not kind.takes_level:
        raise ValueError(f"bot {name!r} does not take a level")


class TableBots(TablePart):
    """The bots of one table: one per bot chair (a stand-in for a person's), built when
    first needed, and the task of each chair whose bot is thinking."""

    def __init__(self, live: LiveTable) -> None:
        super().__init__(live)
        self.tasks: dict[int, asyncio.Task[None]] = {}
        self._bots: dict[int, Bot] = {}
        self._rng = random.Random(secrets.randbits(64))

    def played_by_bot(self, chair: int) -> bool:
        """A bot's chair, or a person's that a stand-in plays while he is away."""
        return self.live.game.chairs[chair].kind == "bot" or chair in self.live.game.stand_ins

    def wake(self, table: Table) -> None:
        """Start thinking for each bot chair that is to act and is not thinking yet."""
        live = self.live
        to_act = table.to_act
        for seat, chair in enumerate(live.game.in_hand):
            if self.played_by_bot(chair) and seat in to_act and chair not in self.tasks:
                self.tasks[chair] = live.loop.create_task(self._turn(chair))

    def new_deal(self) -> None:
        """A new deal renumbers the engine seats: a bot still thinking on last hand's
        seat is cancelled (it restarts on its new seat)."""
        self.stop()

    def stop(self) -> None:
        for task in self.tasks.values():
            task.cancel()
        self.tasks.clear()

    def _seat(self, chair: int) -> tuple[Table, int] | None:
        """The table and the engine seat of a bot's chair, if it is to act now."""
        live = self.live
        table = live.table
        seat = live.game.engine_seat(chair)
        # A stand-in stops the moment its person is back, even mid-think.
        if (
            table is None
            or not self.played_by_bot(chair)
            or seat is None
            or table.over
            or seat not in table.to_act
            or live.game.status != "playing"
            or live.manager.closing
        ):
            return None
        return table, seat

    async def _turn(self, chair: int) -> None:
        live = self.live
        try:
            await asyncio.sleep(live.spec.bot_delay)
            for _attempt in range(3):
                found = self._seat(chair)
                if found is None:
                    return
                table, seat = found
                view = table.view(seat)
                try:
                    action = await live.manager.workers.bot(self._act, chair, view)
                except Exception:
                    log.exception("table %s: bot of seat %d failed; random action", live.id, seat)
                    action = table.random_action(seat, self._rng)
                if action.version is None:
                    action = dataclasses.replace(action, version=view.version)
                if live.table is not table or self._seat(chair) is None:
                    return
                self.tasks.pop(chair, None)
                result = live.submit(chair, action)
                if result.ok:
                    return
                log.info("table %s: bot %d action refused: %s", live.id, seat, result.message)
            found = self._seat(chair)
            if found is not None:
                table, seat = found
                self.tasks.pop(chair, None)
                live.submit(chair, table.random_action(seat, self._rng))
        finally:
            task = self.tasks.get(chair)
            if task is asyncio.current_task():
                del self.tasks[chair]

    def _act(self, chair: int, view: View) -> Action:
        """Run in a worker thread: build the chair's bot if needed, and let it act."""
        return self._bot(chair).act(view)

    def _bot(self, chair: int) -> Bot:
        bot = self._bots.get(chair)
        if bot is None:
            c = self.live.game.chairs[chair]
            # A person's chair has no bot of its own: its stand-in plays sound rules.
            name, seed = c.bot or "rules", self.live.game.bot_seed(chair)
            if seed is None:  # not a bot match's table: a fresh seed
                seed = secrets.randbits(32)
            try:
                bot = make_server_bot(name, c.level, seed)
            except ValueError:
                if c.level is None:
                    raise
                # A table stored before its bot's level was withdrawn (mc's levels 4
                # and 5, never shown stronger than 3): the bot's default, its strongest.
                log.warning("table %s seat %d: %s level %s is no longer offered; it plays "
                            "its default level", self.live.id, chair, name, c.level)  # fmt: skip
                bot = make_server_bot(name, None, seed)
            self._bots[chair] = bot
        return bot
