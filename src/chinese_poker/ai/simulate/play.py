"""Playing a simulation's units (see :mod:`chinese_poker.ai.simulate`): sessions between
the job's bots, hand by hand, and what happened to every seat.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, NamedTuple

from chinese_poker.ai.protocol import ExternalBot, build_bot
from chinese_poker.ai.simulate.job import EXTERNAL_PREFIX, Job, derive_seed, is_external
from chinese_poker.engine.actions import Timeout
from chinese_poker.engine.session import Agent, HandResult, Session
from chinese_poker.engine.table import Table

__all__ = [
    "MAX_WARNINGS",
    "HandStat",
    "IllegalActionWarnings",
    "SeatHand",
    "SessionRun",
    "UnitRun",
    "run_units",
    "worker_init",
]


# =========================================================================== playing


class SeatHand(NamedTuple):
    """What happened to one seat in one hand."""

    bot: int
    """The bot instance sitting there."""
    played: bool
    points: int
    boards: int
    fouls: int
    fl_played: bool
    fl_earned: bool
    """The board qualified for Fantasyland (entry or stay; before the repeat limits)."""
    timed_out: bool
    errors: int
    """Bad answers of the bot (external protocol failures, illegal actions)."""


@dataclass(frozen=True, slots=True)
class HandStat:
    """One hand of a session: its number and each session seat's :class:`SeatHand`."""

    number: int
    seats: tuple[SeatHand, ...]


@dataclass(slots=True)
class SessionRun:
    """One played session: its hands in order, and their history records if asked."""

    unit: int
    rotation: int
    seed: int
    hands: list[HandStat]
    records: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True)
class UnitRun:
    """One unit: a session, or a duplicate group of rotated sessions."""

    unit: int
    sessions: list[SessionRun]

    @property
    def hand_count(self) -> int:
        return sum(len(s.hands) for s in self.sessions)


#: The illegal actions a chunk of units warns about at most (the rest are only counted).
MAX_WARNINGS = 10


@dataclass(slots=True)
class IllegalActionWarnings:
    """The illegal actions warned about so far in one chunk of a run (all of a run played
    in this process): each run starts afresh, so one run's bad bot does not silence the
    next run's warnings."""

    given: int = 0

    def warn(self, message: str) -> None:
        self.given += 1
        if self.given <= MAX_WARNINGS:
            print(f"chinese-poker: warning: {message}", file=sys.stderr, flush=True)


def _play_hand(
    table: Table,
    agents: Mapping[int, Agent],
    labels: Mapping[int, str],
    warnings: IllegalActionWarnings,
) -> dict[int, int]:
    """Play ``table`` to the showdown; an illegal action becomes the seat's Timeout.

    Returns the illegal actions per seat.
    """
    bad: dict[int, int] = {}
    while not table.over:
        seat = table.to_act[0]
        action = agents[seat].act(table.view(seat))
        reason = table.check(action)
        if reason is not None:
            bad[seat] = bad.get(seat, 0) + 1
            warnings.warn(
                f"bot {labels[seat]} at seat {seat}: illegal action ({action}): {reason};"
                " the seat times out (auto-played)"
            )
            action = Timeout(seat, version=table.version)
        table.apply(action)
    return bad


def _seat_hand(
    job: Job, table: Table, result: HandResult, name: str, inst: int, errors: int
) -> SeatHand:
    """What happened to the seat of player ``name`` (bot instance ``inst``) in a hand."""
    settlement = table.settlement
    assert settlement is not None
    fouled = set(settlement.fouled)
    boards = job.rules.spec.variant.hands_per_seat
    tseat = table.players.index(name)
    return SeatHand(
        bot=inst,
        played=True,
        points=result.totals.get(name, 0),
        boards=boards,
        fouls=sum(table.hand_name(tseat, h) in fouled for h in range(boards)),
        fl_played=name in result.fantasyland,
        fl_earned=tseat in table.fantasyland_next,
        timed_out=name in result.timed_out,
        errors=errors,
    )


def _play_session(
    job: Job,
    unit: int,
    rotation: int,
    externals: dict[int, ExternalBot],
    warnings: IllegalActionWarnings,
) -> SessionRun:
    instances = job.instances(rotation)
    names = job.names
    players = [names[i] for i in instances]
    seed = derive_seed(job.seed, "session", unit)
    session = Session(job.rules, players, seed=seed)
    agents: dict[str, Agent] = {}
    external_of: dict[str, ExternalBot] = {}
    for seat, inst in enumerate(instances):
        spec = job.bots[inst]
        bot_seed = derive_seed(job.seed, "bot", unit, rotation, inst)
        if is_external(spec):
            ext = externals.get(inst)
            if ext is None:
                ext = externals[inst] = ExternalBot(
                    spec[len(EXTERNAL_PREFIX) :],
                    label=f"{names[inst]} ({spec})",
                    deadline=job.deadline,
                )
            ext.new_session(job.rules, players, seat, seed=bot_seed, session=unit)
            agents[players[seat]] = external_of[players[seat]] = ext
        else:
            agents[players[seat]] = build_bot(spec, bot_seed)
    run = SessionRun(unit, rotation, seed, [])
    while not session.over:
        table = session.start_hand()
        here = table.players
        before = {name: ext.problems for name, ext in external_of.items()}
        bad = _play_hand(
            table,
            {seat: agents[name] for seat, name in enumerate(here)},
            {seat: f"{name} ({job.bots[names.index(name)]})" for seat, name in enumerate(here)},
            warnings,
        )
        result = session.finish_hand()
        seats: list[SeatHand] = []
        for name, inst in zip(players, instances, strict=True):
            if name not in here:
                seats.append(SeatHand(inst, False, 0, 0, 0, False, False, False, 0))
                continue
            ext = external_of.get(name)
            errors = bad.get(here.index(name), 0)
            errors += ext.problems - before[name] if ext is not None else 0
            seats.append(_seat_hand(job, table, result, name, inst, errors))
        run.hands.append(HandStat(result.number, tuple(seats)))
        if job.history:
            run.records.append(result.record)
        for name, ext in external_of.items():
            if name in here:
                ext.hand_over(table.view(here.index(name)), hand=result.number, over=session.over)
    return run


def run_units(
    job: Job,
    start: int,
    stop: int,
    on_unit: Callable[[UnitRun], bool] | None = None,
) -> list[UnitRun]:
    """Play units ``start`` .. ``stop - 1`` (the work of one chunk, in any process).

    Returns the units; with ``on_unit(run)`` each unit is handed over as it is played
    instead (nothing is kept), and the chunk stops early when it returns True.
    External bot programs are started once per chunk and always stopped at its end.
    """
    if _stopping:
        os._exit(_STOP_STATUS)
    externals: dict[int, ExternalBot] = {}
    warnings = IllegalActionWarnings()
    out: list[UnitRun] = []
    try:
        for unit in range(start, stop):
            sessions = [
                _play_session(job, unit, r, externals, warnings) for r in range(job.rotations)
            ]
            run = UnitRun(unit, sessions)
            if on_unit is None:
                out.append(run)
            elif on_unit(run):
                break
    finally:
        for ext in externals.values():
            ext.close()
        if _stopping:  # a worker told to stop: leave now that its bots are stopped
            os._exit(_STOP_STATUS)
    return out


_stopping = False
_STOP_STATUS = 128 + signal.SIGTERM


def worker_init() -> None:
    """In a worker process: Ctrl-C is the parent's business; SIGTERM stops cleanly.

    SIGTERM interrupts the chunk being played; :func:`run_units` then stops its external
    bots and ends the process (so that no queued chunk starts).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def stop(signum: int, frame: FrameType | None) -> None:
        global _stopping
        if _stopping:  # already stopping: let the cleanup finish
            return
        _stopping = True
        raise SystemExit(_STOP_STATUS)

    signal.signal(signal.SIGTERM, stop)
