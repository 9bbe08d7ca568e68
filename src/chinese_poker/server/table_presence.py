"""A live table's presence: who sits where, who is connected, who is away.

Seats are claimed under a token (only its hash is stored). A person whose last socket
closed has a grace period, then a stand-in bot plays his chair until he is back (docs/
server.md "Leavers and clocks"); everybody watching is told (``seats``, ``notice``).
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from typing import TYPE_CHECKING, Any

from chinese_poker.engine import Action
from chinese_poker.server import PROTOCOL_VERSION
from chinese_poker.server.connections import Conn
from chinese_poker.server.db import LeaseLost, compact_json
from chinese_poker.server.table_part import TablePart
from chinese_poker.server.table_records import seats_record

if TYPE_CHECKING:
    from chinese_poker.server.tables import LiveTable

__all__ = ["FINISHED_LINGER", "TablePresence", "secret_hash"]

FINISHED_LINGER = 1.0
"""Seconds a finished table stays in memory after its last socket closed."""


def secret_hash(secret: str) -> str:
    """What is stored of a seat's token or a table's join code."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class TablePresence(TablePart):
    """The seats, sockets and grace periods of one table."""

    def __init__(self, live: LiveTable) -> None:
        super().__init__(live)
        # People who left: a grace timer per chair, then a stand-in bot until the person
        # is back (the game stores who, in tables.live: a restart keeps them).
        self.grace: dict[int, asyncio.TimerHandle] = {}
        self._stand_in: set[int] = live.game.stand_ins
        self._spec_dict: dict[str, Any] | None = None

    # ------------------------------------------------------------------ seating

    def seat_for_token(self, token: str) -> int | None:
        h = secret_hash(token)
        for c in self.live.game.chairs:
            if c.token_hash is not None and secrets.compare_digest(c.token_hash, h):
                return c.seat
        return None

    def claim(self, seat: int | None, name: str) -> tuple[int, str, str]:
        """Give a free human seat to ``name``: (seat, player name, token).

        LookupError when there is no such free seat; ValueError when the engine refuses
        the name (nothing is stored then)."""
        live = self.live
        seat, name = live.game.seat_name(seat, name)
        token = "s-" + secrets.token_urlsafe(24)
        try:
            if not live.store.claim_seat(live.id, seat, name, secret_hash(token)):
                raise LookupError(f"seat {seat} was just taken")
            live.game.seated(seat, name, secret_hash(token))
            self.broadcast_seats()
            if not live.game.free_human_seats() and live.game.session is None:
                live.flow.start_session()
        except LeaseLost:
            raise live.manager.step_down(live) from None
        return seat, name, token

    def claim_as(self, seat: int, name: str, token_hash: str) -> None:
        """Seat ``name`` in ``seat`` under a token he already holds (a rematch: the same
        person's token for the old table opens his seat at the new one)."""
        live = self.live
        try:
            taken = live.store.claim_seat(live.id, seat, name, token_hash)
        except LeaseLost:
            raise live.manager.step_down(live) from None
        if not taken:
            raise LookupError(f"seat {seat} was just taken")
        live.game.seated(seat, name, token_hash)

    def creator_chair(self) -> int | None:
        """The chair of the person who opened the table (the first human chair when the
        creator joined at once)."""
        if not self.live.spec.join:
            return None
        return next((c.seat for c in self.live.game.chairs if c.kind == "human"), None)

    def seats_info(self) -> list[dict[str, Any]]:
        """The chairs, each with ``stand_in``: a bot plays it until its person is back."""
        return [
            {**s, "stand_in": s["seat"] in self._stand_in} for s in seats_record(self.live.game)
        ]

    # ------------------------------------------------------------------ leavers

    def left(self, chair: int) -> None:
        """The last socket of a person's chair closed: his grace period starts."""
        live = self.live
        grace = live.spec.grace
        c = live.game.chairs[chair]
        if grace is None or c.kind != "human" or not c.taken or chair in self._stand_in:
            return
        if live.gone is not None:  # another process keeps the clocks now
            return
        if live.status == "finished":  # nothing left to stand in for
            return
        old = self.grace.pop(chair, None)
        if old is not None:
            old.cancel()
        self.grace[chair] = live.loop.call_later(grace, self.stand_in, chair)

    def _returned(self, chair: int) -> None:
        """A person is back at his chair: no more grace timer or stand-in."""
        timer = self.grace.pop(chair, None)
        if timer is not None:
            timer.cancel()
        if chair in self._stand_in:
            live = self.live
            self._stand_in.discard(chair)
            live.ownership.save_live()
            self.broadcast_seats()
            self.notice("back", chair, f"{live.game.chairs[chair].name} is back at the table.")
            live.flow.after_change()

    def stand_in(self, chair: int) -> bool:
        """A bot plays ``chair`` from now until its person reconnects (the grace period
        ran out, or the table's creator asked). False if the chair has nobody away."""
        live = self.live
        self.grace.pop(chair, None)
        c = live.game.chairs[chair]
        if c.kind != "human" or not c.taken or c.connected > 0 or chair in self._stand_in:
            return False
        if live.game.session is None or live.status == "finished" or live.manager.closing:
            return False
        self._stand_in.add(chair)
        live.ownership.save_live()
        self.broadcast_seats()
        self.notice(
            "stand_in", chair, f"{c.name} has left; a bot plays the seat until they return."
        )
        live.flow.after_change()
        return True

    def stop(self) -> None:
        for timer in self.grace.values():
            timer.cancel()
        self.grace.clear()

    # ------------------------------------------------------------------ telling everybody

    def broadcast_seats(self) -> None:
        live = self.live
        text = compact_json(
            {
                "type": "seats",
                "table_id": live.id,
                "seats": self.seats_info(),
                "status": live.status,
            }
        )
        self.tell_all(text)

    def tell_all(self, text: str) -> None:
        """``text`` to every socket, behind the table's pending writes."""
        send = self.live.ownership.send
        for conn in list(self.live.conns):
            send(conn, text)

    def notice(self, kind: str, chair: int, text: str, action: Action | None = None) -> None:
        """A ``notice`` to every socket; the cards of ``action`` go to its chair only."""
        live = self.live
        base = {
            "type": "notice",
            "table_id": live.id,
            "kind": kind,
            "chair": chair,
            "player": live.game.chairs[chair].player,
            "text": text,
        }
        public = compact_json(base)
        private = compact_json({**base, "action": action.to_dict()}) if action else public
        for conn in list(live.conns):
            live.ownership.send(conn, private if conn.chair == chair else public)

    # ------------------------------------------------------------------ sockets

    def attach(self, conn: Conn) -> None:
        """A socket joined: welcome it and send the full state with the hand's log."""
        live = self.live
        if live.ownership.steps:
            live.manager.flush()  # show it stored state only
        live.last_used = time.monotonic()
        live.conns.append(conn)
        chair = live.game.chairs[conn.chair] if conn.chair is not None else None
        if chair is not None:
            chair.connected += 1
        conn.send(
            compact_json(
                {
                    "type": "welcome",
                    "protocol": PROTOCOL_VERSION,
                    "table_id": live.id,
                    "role": "seat" if conn.chair is not None else "spectator",
                    "seat": conn.chair,
                    "player": chair.name if chair is not None else None,
                    "table": live.info(),
                    # What the page must know of the rules (royalties, Fantasyland, the
                    # variant's facts): the compiled spec, so it keeps no copy of its own.
                    "spec": self._spec(),
                }
            )
        )
        if chair is not None:
            # After the welcome, so that a returning person's socket hears it first.
            self._returned(chair.seat)
            if chair.connected == 1:
                self.broadcast_seats()
        if live.table is not None:
            conn.send(live.state_message(conn.chair, None, None, with_log=True))

    def _spec(self) -> dict[str, Any]:
        """The compiled spec's plain form, made once per table (the rules never change;
        a burst of connections would otherwise rebuild it for each)."""
        if self._spec_dict is None:
            self._spec_dict = self.live.game.rules.spec.to_dict()
        return self._spec_dict

    def detach(self, conn: Conn) -> None:
        live = self.live
        live.last_used = time.monotonic()
        if live.gone is not None:
            if conn in live.conns:
                live.conns.remove(conn)
            conn.close()
            return
        if conn in live.conns:
            live.conns.remove(conn)
            if conn.chair is not None:
                chair = live.game.chairs[conn.chair]
                chair.connected -= 1
                if chair.connected == 0:
                    self.broadcast_seats()
                    self.left(chair.seat)
                    live.flow.release(chair.seat)  # nobody left to look: no hold
        conn.close()
        if live.status == "finished" and live.idle:
            # Leaves memory just after its last socket, not at the next sweep: a busy
            # server would otherwise keep one round of finished tables beside the live
            # ones. The short wait keeps a socket opened and closed in a loop from
            # rebuilding the whole session each time.
            live.loop.call_later(FINISHED_LINGER, live.manager.drop_if_idle, live)
