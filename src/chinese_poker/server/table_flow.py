"""A live table's own flow: sessions and hands begin and end, actions are applied.

A table's state only changes in :meth:`TableFlow.submit`, which asks the engine
(``check``), applies the action, queues its rows for the group commit and, once they are
stored, broadcasts the new state, each socket receiving its own seat's view. A hand's
settlement follows just after the action that ended it is acknowledged; the next hand is
dealt after ``next_hand_delay`` (or once every person present pressed Next), later while a
player looks at the review or replay of the hand just played (his hold: once per hand,
:data:`HOLD_SECONDS` at most).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chinese_poker.engine import Action
from chinese_poker.server.commit import Step
from chinese_poker.server.connections import Conn
from chinese_poker.server.db import NewHand, compact_json
from chinese_poker.server.fairness import Commitment, new_commitment
from chinese_poker.server.game import Applied, Refusal
from chinese_poker.server.messages import ErrorCode, HoldMsg, LeaveMsg
from chinese_poker.server.table_ownership import WriteFailed
from chinese_poker.server.table_part import TablePart

if TYPE_CHECKING:
    from chinese_poker.server.tables import LiveTable

__all__ = ["FIRST_DEAL_WAIT", "HOLD_SECONDS", "Result", "TableFlow", "new_hand"]

log = logging.getLogger("chinese_poker.server")

FIRST_DEAL_WAIT = 2.0
"""Seconds hand 1 waits, once every seat is taken, for the players' fair-shuffle values
(never longer than ``next_hand_delay``; not at all once everybody has sent his)."""

HOLD_SECONDS = 30.0
"""The longest one player's review or replay of the hand just played holds the next deal
(counted from when he opened it; the table's own pause runs within it)."""


@dataclass
class Result:
    """What :meth:`TableFlow.submit` did: ``ok``, or an error ``code`` and ``message``."""

    ok: bool
    code: str | None = None
    message: str | None = None


def new_hand(commit: Commitment) -> NewHand:
    """The store's row for a commitment."""
    return NewHand(commit.hand, commit.seed, commit.salt, commit.commitment)


class TableFlow(TablePart):
    """The session of one table: dealing, acting, settling, leaving."""

    def __init__(self, live: LiveTable) -> None:
        super().__init__(live)
        self.next_hand: asyncio.TimerHandle | None = None
        self.settle_pending = False  # the hand's settlement waits in manager.deferred
        self._done: set[int] = set()  # chairs that pressed Next after this showdown
        self.holds: dict[int, float] = {}  # chair -> loop time his hold of the deal ends
        self._held: set[int] = set()  # chairs that held since the last deal (once each)
        self._deal_at = 0.0  # loop time the next deal is due, holds aside

    # ------------------------------------------------------------------ recovery

    def resume(self) -> None:
        """After a rebuild: restart timers and bots, or schedule the next deal."""
        live = self.live
        game = live.game
        session = game.session
        if session is None:
            return
        if session.over:
            if game.stored_status != "finished":
                game.status = game.stored_status = "finished"
                # The last hand's end may not have been stored (it is stored just after
                # the action that ended it): store it with the status.
                last = game.hands.get(game.hand_no)
                finished = (
                    (last.finished_at or time.time(), last.record)
                    if last is not None and last.record is not None
                    else None
                )
                live.store.add_actions(
                    live.id, game.hand_no, game.stored_seq, [], finished=finished,
                    status="finished",
                )  # fmt: skip
            return
        for c in game.chairs:  # nobody is connected after a restart: each gets his grace
            if c.connected == 0:
                live.presence.left(c.seat)
        table = live.table
        if table is not None and not table.over:
            self.after_change()
            return
        due = game.next_commitment_due()
        if due is not None:  # the next hand's commitment was not stored yet
            commit, end = due
            live.store.add_actions(
                live.id,
                commit.hand - 1,
                game.stored_seq,
                [],
                finished=end.finished if end is not None else None,
                next_hand=new_hand(commit),
            )
            game.committed(commit)
        self.schedule_next_hand()

    # ------------------------------------------------------------------ dealing

    def start_session(self) -> None:
        """All seats are taken: the session begins. Hand 1 (committed when the table
        opened) is dealt now if every person has sent his value for it, or the table
        deals without delay; else once they have, :data:`FIRST_DEAL_WAIT` at most."""
        live = self.live
        now = time.time()
        game = live.game
        first = None if 1 in game.hands else new_commitment(live.id, 1, game.rules)
        game.begin_session(now, first)
        wait = min(live.spec.next_hand_delay, FIRST_DEAL_WAIT)
        deal_now = wait == 0 or game.all_contributed(1)
        dealt = game.received(1) if deal_now else None
        live.store.start_session(live.id, now, new_hand(first) if first else None, dealt)
        if deal_now:
            self._deal(1, now)
        else:
            self.schedule_next_hand(wait)

    def schedule_next_hand(self, delay: float | None = None) -> None:
        wait = self.live.spec.next_hand_delay if delay is None else delay
        self._deal_at = self.live.loop.time() + wait
        self._arm_next_hand()

    def _arm_next_hand(self) -> None:
        """The next deal at its due time, or when the last hold ends if that is later."""
        if self.next_hand is not None:
            self.next_hand.cancel()
        at = max([self._deal_at, *self.holds.values()])
        self.next_hand = self.live.loop.call_at(at, self.start_next_hand)

    def hold(self, conn: Conn, chair: int, msg: HoldMsg) -> None:
        """A seated person opened (or closed) the review or replay of the hand just
        played: the next deal waits for him, :data:`HOLD_SECONDS` at most, once per
        hand; everybody is told who the table waits for and how long at most."""
        live = self.live
        if not msg.on:
            self.release(chair)
            return
        table = live.table
        if table is None or not table.over or self.next_hand is None:
            text = "the deal waits only between hands"
            live.dispatch.error(conn, msg.id, ErrorCode.TOO_LATE, text)
            return
        if chair in self._held or chair in live.game.stand_ins:
            text = "the table waited for you once this hand already"
            live.dispatch.error(conn, msg.id, ErrorCode.DUPLICATE, text)
            return
        self._held.add(chair)
        self.holds[chair] = live.loop.time() + HOLD_SECONDS
        self._arm_next_hand()
        self._tell_hold(chair, HOLD_SECONDS)

    def release(self, chair: int) -> None:
        """The chair's hold ends (he closed the review, or left): the deal comes at its
        own time, or when another hold ends."""
        if self.holds.pop(chair, None) is None:
            return
        if self.next_hand is not None:
            self._arm_next_hand()
        self._tell_hold(chair, None)

    def _tell_hold(self, chair: int, seconds: float | None) -> None:
        live = self.live
        name = live.game.chairs[chair].name
        text = {"type": "hold", "table_id": live.id, "chair": chair, "player": name}
        live.presence.tell_all(compact_json({**text, "seconds": seconds}))

    def start_next_hand(self) -> None:
        self.next_hand = None
        self.holds.clear()  # the deal comes now: every hold ended (or ran out)
        live = self.live
        session = live.game.session
        if session is None or session.over or live.manager.closing:
            return
        table = live.table
        if table is not None and not table.over:
            return
        number = session.hands_played + 1
        now = time.time()
        live.game.close(number)  # no value is taken for it from now on
        start = (live.id, number, now, live.game.received(number))
        # Stored with the tick's other writes; dealt (and broadcast) once committed.
        live.ownership.enqueue(Step(start=start, then=lambda: self._deal(number, now)))

    def _deal(self, number: int, now: float | None = None) -> None:
        live = self.live
        game = live.game
        session = game.session
        if session is None or session.over or live.status == "finished":
            return  # the session ended while the deal was being stored
        self._done.clear()
        self._held.clear()
        game.staged.clear()  # last hand's staging (stored with the next live write)
        table = game.deal(number, now)
        live.views.clear()
        live.bots.new_deal()
        start = compact_json(
            {
                "type": "hand_start",
                "table_id": live.id,
                "hand": number,
                "button": table.button,
                "players": list(table.players),
                "commitment": game.commitment(number),
                "scheme": game.hands[number].commit.scheme,
            }
        )
        for conn in list(live.conns):
            conn.send(start)
            conn.send(live.state_message(conn.chair, None, None, with_log=False))
        self.after_change()

    def next(self, chair: int) -> None:
        """A person pressed Next after the showdown: once every person present has
        (their shuffle values came first on their own sockets), deal without waiting
        for the rest of ``next_hand_delay``."""
        live = self.live
        table = live.table
        if table is None or not table.over or self.next_hand is None:
            return
        self._done.add(chair)
        present = {
            c.seat
            for c in live.game.chairs
            if c.kind == "human" and c.connected > 0 and c.seat not in live.game.stand_ins
        }
        if present <= self._done:
            self._done.clear()
            self.schedule_next_hand(0)

    def after_change(self) -> None:
        """Restart timers and wake bots for the new state."""
        live = self.live
        table = live.table
        if table is None or not live.game.playing or live.manager.closing:
            live.timekeeper.stop()
            return
        live.bots.wake(table)
        live.timekeeper.restart(table)

    # ------------------------------------------------------------------ acting

    def submit(
        self,
        chair: int,
        action: Action,
        ref: object = None,
        sender: Conn | None = None,
        read_at: float | None = None,
    ) -> Result:
        """Check and apply one action of the person in ``chair``; store it, then
        broadcast it.

        Returns the error (nothing changed, nothing sent to anybody) or ok. An accepted
        action joins the tick's group commit: its messages are built now and sent only
        once it is stored. Should building them or the write fail, the table is rebuilt
        from the database (exactly as it was before the action) and ``sender`` gets
        ``server_error``.
        """
        # The hand's settlement (history line, ledger, next commitment) is not made
        # here but just after the action is acknowledged: in lock step, hundreds of
        # tables end their hands in the same instant, and no acknowledgement of that
        # round should wait for all of their settlements (a restart settles a hand
        # stored as over but not settled).
        live = self.live
        outcome = live.game.submit(chair, action, finish=False)
        if not isinstance(outcome, Applied):
            return Result(False, str(outcome.code), outcome.message)
        try:
            step = self._step(chair, outcome, ref, sender)
            step.read_at = read_at
        except Exception:
            log.exception("table %s: cannot show an applied action; reloading", live.id)
            live.manager.reload(live)
            return Result(False, str(ErrorCode.SERVER_ERROR), "the action failed; try again")
        live.ownership.enqueue(step)
        return Result(True)

    def _step(self, chair: int, applied: Applied, ref: object, sender: Conn | None) -> Step:
        live = self.live
        game = live.game
        step = Step(
            rows=game.store_rows(applied),
            end=applied.end,
            sender=(sender, ref) if sender is not None else None,
        )
        table = live.table
        assert table is not None
        engine_seat = game.engine_seat
        texts = live.views.state_messages(
            table,
            table_id=live.id,
            hand=live.hand_no,
            seats=[
                (engine_seat(conn.chair), ref if conn.chair == chair else None)
                for conn in live.conns
            ],
            last=applied.entries[0],
            clocks=live.clocks(),
            commitment=game.commitment(live.hand_no),
        )
        step.messages = list(zip(live.conns, texts, strict=True))
        step.then = self._settle_soon if applied.over else self.after_change
        return step

    # ------------------------------------------------------------------ settling

    def _settle_soon(self) -> None:
        self.after_change()  # the clocks stop, no bot is woken: the hand is over
        # After the acknowledgements waiting to be made (scheduling.Deferred); anybody
        # who asks for this table meanwhile has it settled first (settle_due).
        self.settle_pending = True
        self.live.manager.deferred.add(self._settle)

    def settle_due(self) -> None:
        """Settle now a hand whose settlement waits (before showing the table to anyone)."""
        if self.settle_pending:
            self._settle()

    def _settle(self) -> None:
        """Settle the hand that just ended, store that, then show ``hand_end``."""
        self.settle_pending = False
        live = self.live
        game = live.game
        if not game.unsettled or live.manager.tables.get(live.id) is not live:
            return
        try:
            end = game.finish_hand()
            messages = self._hand_end(end.hand)
        except Exception:
            log.exception("table %s: cannot settle hand %d; reloading", live.id, game.hand_no)
            live.manager.reload(live)
            return
        session = game.session
        assert session is not None
        then = self._session_ended if session.over else self._ended
        live.ownership.enqueue(Step(end=end, messages=messages, then=then))

    def _session_ended(self) -> None:
        if self.live.game.left is not None:
            self.live.ownership.save_live()  # who left (the hand's history line says it ended)
        self.after_change()
        self._review_ahead()

    def _ended(self) -> None:
        self.schedule_next_hand()
        self.after_change()
        self._review_ahead()

    def _review_ahead(self) -> None:
        """The hand just stored is reviewed now if a person at the table may open it
        (a table of bots only is never reviewed unasked)."""
        live = self.live
        if any(c.kind == "human" and c.connected > 0 for c in live.game.chairs):
            # Imported here: reviews reads the table manager, which imports this module.
            from chinese_poker.server.reviews import review_ahead

            hand = live.game.hands.get(live.hand_no)
            # The line as stored and read back (JSON: lists, string keys), without the
            # database's two reads.
            line = None if hand is None or hand.record is None else hand.record
            record = None if line is None else json.loads(compact_json(line))
            review_ahead(live.manager, live.id, live.hand_no, record)

    def _session_end_text(self) -> str:
        live = self.live
        return compact_json(
            {
                "type": "session_end",
                "table_id": live.id,
                "ledger": live.ledger_info(),
                "left": live.game.left,
            }
        )

    def _hand_end(self, number: int) -> list[tuple[Conn, str]]:
        """The ``hand_end`` (and ``session_end``) messages of a hand just finished."""
        live = self.live
        game = live.game
        session = game.session
        assert session is not None
        last = session.results[-1]
        over = session.over
        text = compact_json(
            {
                "type": "hand_end",
                "table_id": live.id,
                "hand": number,
                "totals": dict(last.totals),
                "ledger": last.ledger.to_dict(),
                "reveal": game.hands[number].fair.reveal(),
                "session_over": over,
                "next_hand_in": None if over else live.spec.next_hand_delay,
                "next_commitment": game.commitment(number + 1),
            }
        )
        out = [(conn, text) for conn in live.conns]
        if over:
            end = self._session_end_text()
            out += [(conn, end) for conn in live.conns]
        return out

    # ------------------------------------------------------------------ leaving

    def leave(self, conn: Conn, chair: int, msg: LeaveMsg) -> None:
        """A person leaves: a continuous (or any) session ends after the running hand,
        or at once between hands (docs/rules-decisions.md "Continuous sessions").
        Behind the table's pending writes (a deal being stored) it waits for them, so it
        never ends a session whose next hand is about to be dealt."""
        live = self.live
        ownership = live.ownership
        if ownership.steps:
            ownership.steps.append(Step(then=lambda: self.leave(conn, chair, msg)))
            return
        outcome = live.game.leave(chair)
        if isinstance(outcome, Refusal):
            live.dispatch.error(conn, msg.id, outcome.code, outcome.message)
            return
        name = live.game.chairs[chair].player
        # Stored before anybody is told: a leave the store did not take never happened
        # (the table is rebuilt from the store, without it; only the sender hears).
        if not ownership.save_live(None if outcome else "finished"):
            if live.gone is not None:  # the sockets were sent to the table's owner
                return
            fresh = live.manager.reload(live)
            text = "the leave could not be stored; try again"
            conn.send(fresh.dispatch.error_text(msg.id, ErrorCode.SERVER_ERROR, text))
            return
        ownership.send(conn, compact_json({"type": "leaving", "ref": msg.id, "now": not outcome}))
        presence = live.presence
        if outcome:
            presence.notice("leaving", chair, f"{name} is leaving: this is the last hand.")
            return
        if self.next_hand is not None:
            self.next_hand.cancel()
            self.next_hand = None
        presence.notice("left", chair, f"{name} has left: the session is over.")
        presence.tell_all(self._session_end_text())
        presence.broadcast_seats()
        self.after_change()

    def offer_rematch(self, new_id: str, chair: int) -> None:
        """Point this finished table at its rematch and tell everybody watching it
        (:class:`WriteFailed`, nothing told and nothing changed, if that is not stored)."""
        live = self.live
        live.game.rematch = new_id
        if not live.ownership.save_live():
            live.game.rematch = None
            if live.gone is not None:
                raise live.gone
            raise WriteFailed("the rematch could not be stored; try again")
        text = compact_json(
            {
                "type": "rematch",
                "table_id": live.id,
                "rematch": new_id,
                "by": live.game.chairs[chair].player,
            }
        )
        live.presence.tell_all(text)

    def stop(self) -> None:
        if self.next_hand is not None:
            self.next_hand.cancel()
            self.next_hand = None
