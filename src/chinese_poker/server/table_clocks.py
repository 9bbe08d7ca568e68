"""A live table's clocks: each person's decision timer, the time bank per chair, and
what happens when time runs out (docs/server.md "Leavers and clocks").

The timers themselves are :class:`.scheduling.Timers`; this part gives each human engine
seat its limit (the move's plus its chair's bank), charges an overrun to the bank, and
on expiry either times the seat out (the engine's ``Timeout``) or, on a casual table,
makes only the decision due and tells the player: the cards he had staged stay where he
put them and the rest goes where the rules bot would put it (:mod:`.timeout_filler`).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import TYPE_CHECKING, Any

from chinese_poker.engine import Table, Timeout
from chinese_poker.server.scheduling import Timers
from chinese_poker.server.table_part import TablePart
from chinese_poker.server.timeout_filler import Staging, filler_action

if TYPE_CHECKING:
    from chinese_poker.server.tables import LiveTable

__all__ = ["STAGING_SAVE_DELAY", "TableClocks"]

log = logging.getLogger("chinese_poker.server")

STAGING_SAVE_DELAY = 1.0
"""Seconds a player's staging waits before it is stored (tables.live): one write for a
quick run of cards, not one per card; a failover within that second loses the last ones."""


class TableClocks(TablePart):
    """The decision timers and time banks of one table."""

    def __init__(self, live: LiveTable) -> None:
        super().__init__(live)
        self.timers = Timers()
        # Time banks per chair (the game stores them in tables.live: a restart keeps
        # them), and when each engine seat's decision started (for them).
        self._bank: dict[int, float] = live.game.banks
        self._started: dict[int, tuple[tuple[Any, ...], float, int]] = {}
        self._staging_save: asyncio.TimerHandle | None = None

    def humans(self) -> list[int]:
        """The engine seats of this hand held by people (not by a stand-in bot)."""
        game = self.live.game
        chairs = game.chairs
        return [
            s
            for s, chair in enumerate(game.in_hand)
            if chairs[chair].kind == "human" and chair not in game.stand_ins
        ]

    def clocks(self) -> list[dict[str, Any]]:
        live = self.live
        table = live.table
        if table is None or not live.game.playing:
            return []
        clocks = self.timers.clocks(table, live.hand_no, self.humans(), self._limits())
        return [self._split_bank(c) for c in clocks]

    def restart(self, table: Table) -> None:
        """The table changed: charge finished decisions, time the ones now due."""
        self._note_starts(table)
        live = self.live
        self.timers.sync(table, live.hand_no, self.humans(), self._limits(), self._expire)

    def stop(self) -> None:
        self.timers.cancel_all()
        if self._staging_save is not None:
            self._staging_save.cancel()
            self._staging_save = None

    def stage(self, chair: int, staged: Staging) -> None:
        """The player's staging now (what a timeout keeps), stored shortly after."""
        game = self.live.game
        if not staged.cards:
            if game.staged.pop(chair, None) is None:
                return
        else:
            game.staged[chair] = staged.to_dict()
        if self._staging_save is None:
            self._staging_save = self.live.loop.call_later(STAGING_SAVE_DELAY, self._save_staging)

    def _save_staging(self) -> None:
        self._staging_save = None
        self.live.ownership.save_live()

    def staging(self, chair: int) -> Staging | None:
        """The chair's stored staging (None if it has none or it does not read)."""
        data = self.live.game.staged.get(chair)
        try:
            return Staging.from_dict(data) if data is not None else None
        except (KeyError, TypeError, ValueError):
            return None

    def bank_left(self, chair: int) -> float:
        return self._bank.setdefault(chair, float(self.live.spec.time_bank))

    def _expire(self, seat: int, key: tuple[Any, ...]) -> None:
        live = self.live
        table = live.table
        if not self.timers.due(seat, key) or table is None:
            return
        if table.over or seat not in table.to_act:
            return
        chair = live.game.in_hand[seat]
        if live.spec.timeouts == "decision":
            self.timeout_decision(table, seat, chair)
            return
        result = live.submit(chair, Timeout(seat, version=table.version))
        if not result.ok:
            log.warning("table %s: timeout of seat %d refused: %s", live.id, seat, result.message)

    def timeout_decision(self, table: Table, seat: int, chair: int) -> None:
        """Casual tables: time ran out, so only this decision is made, as an ordinary
        action: the staged cards kept, the rest as the rules bot plays it (about 10 ms
        on a first street: made here, not in a worker, so that nothing moves between);
        the player is told which cards went where."""
        live = self.live
        if not table.decisions(seat):
            return
        view = table.view(seat)
        action = filler_action(view, self.staging(chair), live.hand_no, secrets.randbits(32))
        if table.check(action) is not None:  # never expected: the rules bot's whole street
            action = filler_action(view, None, live.hand_no, secrets.randbits(32))
        result = live.submit(chair, action)
        if not result.ok:
            log.warning(
                "table %s: auto-placement of seat %d refused: %s", live.id, seat, result.message
            )
            return
        self._bank[chair] = 0.0
        self._started.pop(seat, None)
        live.game.staged.pop(chair, None)
        live.ownership.save_live()
        name = live.game.chairs[chair].name
        live.presence.notice(
            "timeout", chair, f"{name}'s time ran out; the move was made for them.", action
        )

    def _limits(self) -> dict[int, float] | None:
        """Each human engine seat's clock: the move's limit plus its chair's time bank."""
        game = self.live.game
        limit = game.rules.time_limit
        if limit is None:
            return None
        in_hand = game.in_hand
        return {seat: limit + self.bank_left(in_hand[seat]) for seat in self.humans()}

    def _split_bank(self, clock: dict[str, Any]) -> dict[str, Any]:
        """A clock as the page shows it: the move's seconds left, then the bank's."""
        game = self.live.game
        limit = game.rules.time_limit
        assert limit is not None
        bank = self.bank_left(game.in_hand[clock["seat"]])
        left = clock["remaining"]
        return {
            **clock,
            "remaining": round(max(0.0, left - bank), 3),
            "limit": limit,
            "bank": round(min(left, bank), 3),
        }

    def _note_starts(self, table: Table) -> None:
        """Remember when each human seat's decision began, and charge a finished one's
        overrun to its chair's bank."""
        live = self.live
        limit = live.game.rules.time_limit
        if limit is None or not live.spec.time_bank:
            return
        now = live.loop.time()
        to_act = table.to_act
        hand = live.hand_no
        spent = False
        for seat in list(self._started):
            key, began, chair = self._started[seat]
            if seat not in to_act or key != (hand, table.decisions(seat)):
                del self._started[seat]
                over = max(0.0, now - began - limit)
                if over > 0:
                    self._bank[chair] = max(0.0, self.bank_left(chair) - over)
                    spent = True
        if spent:
            live.ownership.save_live()
        in_hand = live.game.in_hand
        for seat in self.humans():
            if seat in to_act and seat not in self._started:
                self._started[seat] = ((hand, table.decisions(seat)), now, in_hand[seat])
