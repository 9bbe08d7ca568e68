"""Simulations: many complete sessions between bots, reproducible and in parallel.

A :class:`Job` says what to play: the rules, one bot per seat (a registered name of
:data:`chinese_poker.ai.BOTS`, looked up when the job is made, or ``cmd:COMMAND`` for an
external program speaking the bot protocol), the number of hands and a master seed.
:func:`simulate` plays it and returns a :class:`SimulationResult` (points per hand per
seat and per bot with 95% intervals, foul and Fantasyland rates, timeouts, hands per
second).

How a job is cut up (RULES §10):

* The job is a sequence of **units** numbered 0, 1, 2, ... A unit is one session (button
  orbit plus Fantasyland hands), or with ``duplicate`` a **group** of N sessions on the
  same session seed with the seats rotated (every bot plays every seat on the same
  decks). Unit u's session seed and its bots' seeds are derived from the master seed and
  u alone (:func:`derive_seed`), so a unit plays the same wherever and whenever it runs.
* Units are played in chunks of consecutive indices by one process, several local
  processes (``workers``) or Ray tasks (``engine="ray"``), and their hands are taken in
  unit order until the job has ``hands`` hands: the last session is cut after the hand
  that completes the count; with ``duplicate`` every session of the last group is cut to
  the same number of hands, ceil(left / N), so that group stays balanced (the total may
  then exceed ``hands`` by at most N - 1). The result therefore depends only on the job,
  never on the number of workers or the engine.

>>> job = make_job("pineapple", "random,rules", hands=6, seed=1)
>>> result = simulate(job)
>>> result.hands, [line.label for line in result.bots]
(6, ['random', 'rules'])
>>> round(sum(line.points.mean * line.hands for line in result.bots), 9)
0.0
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import multiprocessing
import os
import secrets
import signal
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from types import FrameType
from typing import Any, NamedTuple, Protocol

from chinese_poker.ai.protocol import ExternalBot, build_bot, command_problem
from chinese_poker.engine.actions import Timeout
from chinese_poker.engine.history import write_history
from chinese_poker.engine.session import Agent, Session
from chinese_poker.engine.table import Table
from chinese_poker.rules import Rules, rules_for

__all__ = [
    "ENGINES",
    "SUMMARY_FORMAT",
    "SUMMARY_VERSION",
    "HandStat",
    "Interval",
    "Job",
    "Line",
    "SeatHand",
    "SessionRun",
    "SimulationResult",
    "UnitRun",
    "derive_seed",
    "interval",
    "make_job",
    "run_units",
    "simulate",
    "split_bots",
]

SUMMARY_FORMAT = "chinese-poker-simulation"
SUMMARY_VERSION = 1
ENGINES = ("local", "ray")
# How to get the optional Ray extra from a checkout (the package is not on PyPI).
RAY_INSTALL = 'pip install ".[ray]"'
EXTERNAL_PREFIX = "cmd:"
Z95 = 1.96

ProgressCallback = Callable[[int, int], None]
"""``progress(hands_done, hands_total)``."""


# =========================================================================== jobs


def derive_seed(master: int, *parts: object) -> int:
    """A 63-bit seed from the master seed and a path of parts (BLAKE2b).

    >>> derive_seed(1, "session", 0) == derive_seed(1, "session", 0) != derive_seed(1, "session", 1)
    True
    """
    text = "/".join(["chinese-poker", "simulate", str(master), *(str(p) for p in parts)])
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def _registered() -> Mapping[str, object]:
    from chinese_poker import ai

    return ai.BOTS


def is_external(spec: str) -> bool:
    """True for ``cmd:COMMAND`` bot specs."""
    return spec.startswith(EXTERNAL_PREFIX)


def split_bots(text: str) -> list[str]:
    """Split a ``--bots`` list on commas (a ``cmd:`` command may itself hold commas).

    A part joins the ``cmd:`` spec before it unless it is a registered bot name or starts
    a new ``cmd:``.

    >>> split_bots("random, rules")
    ['random', 'rules']
    >>> split_bots("cmd:python3 bot.py --x 1,2,rules")
    ['cmd:python3 bot.py --x 1,2', 'rules']
    """
    names = {name.lower() for name in _registered()}
    out: list[str] = []
    for raw in text.split(","):
        part = raw.strip()
        if out and is_external(out[-1]) and not is_external(part) and part.lower() not in names:
            out[-1] += "," + raw
            continue
        out.append(part)
    return out


def check_bot(spec: str) -> str:
    """The normalised bot spec, or ``ValueError`` saying what is wrong with it."""
    spec = spec.strip()
    if is_external(spec):
        command = spec[len(EXTERNAL_PREFIX) :].strip()
        problem = command_problem(command)
        if problem is not None:
            raise ValueError(f"cannot start bot {spec!r}: {problem}")
        return EXTERNAL_PREFIX + command
    key = spec.lower()
    bots = _registered()
    if key not in bots:
        known = ", ".join(sorted(bots))
        raise ValueError(f"unknown bot {spec!r}; bots: {known}, or cmd:COMMAND")
    return key


@dataclass(frozen=True)
class Job:
    """What to simulate (see the module docstring); build it with :func:`make_job`.

    ``bots`` holds one spec per seat (the bot instances, numbered from 0). ``deadline``
    is the seconds an external bot has per decision (None: ``rules.time_limit`` or 10 s).
    ``history`` makes workers return the hand-history records.
    """

    rules: Rules
    bots: tuple[str, ...]
    hands: int
    seed: int
    duplicate: bool = False
    deadline: float | None = None
    history: bool = False

    @property
    def players(self) -> int:
        return len(self.bots)

    @property
    def names(self) -> tuple[str, ...]:
        """The player name of each bot instance: ``random#1``, ``rules#2``, ``cmd#3``."""
        return tuple(
            f"{'cmd' if is_external(spec) else spec}#{i + 1}" for i, spec in enumerate(self.bots)
        )

    @property
    def labels(self) -> tuple[str, ...]:
        """The distinct bot specs, in seat order (the per-bot lines of the summary)."""
        return tuple(dict.fromkeys(self.bots))

    def instances(self, rotation: int) -> tuple[int, ...]:
        """The bot instance at each seat in a rotation (instance j sits at seat j + r)."""
        n = self.players
        return tuple((seat - rotation) % n for seat in range(n))

    @property
    def rotations(self) -> int:
        return self.players if self.duplicate else 1


def make_job(
    rules: Rules | str,
    bots: str | Sequence[str],
    *,
    players: int | None = None,
    hands: int = 1000,
    seed: int | None = None,
    duplicate: bool = False,
    deadline: float | None = None,
) -> Job:
    """Check the arguments and build a :class:`Job`; problems raise ``ValueError``.

    ``rules`` is a :class:`Rules` or a preset name; ``bots`` one spec for every seat or
    one per seat (a list or a comma-separated string). ``players`` defaults to the number
    of bots listed, or 2 for a single bot. Without ``seed`` one is drawn at random (it is
    in the summary, so the run can be repeated).

    >>> make_job("ofc", "rules", players=3, hands=10, seed=2).bots
    ('rules', 'rules', 'rules')
    >>> make_job("ofc", "random,rules", players=3)
    Traceback (most recent call last):
    ...
    ValueError: 2 bots for 3 players: give one bot for every seat, or one for all
    """
    the_rules = rules_for(rules) if isinstance(rules, str) else rules
    if not isinstance(the_rules, Rules):
        raise ValueError(f"rules must be a Rules or a preset name, not {rules!r}")
    specs = split_bots(bots) if isinstance(bots, str) else [str(b) for b in bots]
    if not specs or any(not s.strip() for s in specs):
        raise ValueError(f"bad bot list {bots!r}: a bot name is empty")
    specs = [check_bot(s) for s in specs]
    if players is None:
        players = len(specs) if len(specs) > 1 else 2
    if isinstance(players, bool) or not isinstance(players, int):
        raise ValueError(f"the player count must be an integer, not {players!r}")
    counts = the_rules.player_counts
    if players not in counts:
        raise ValueError(
            f"{the_rules.variant} is played by {counts.start} to {counts.stop - 1} players,"
            f" not {players}"
        )
    if len(specs) == 1:
        specs = specs * players
    elif len(specs) != players:
        raise ValueError(
            f"{len(specs)} bots for {players} players: give one bot for every seat, or one for all"
        )
    if isinstance(hands, bool) or not isinstance(hands, int) or hands < 1:
        raise ValueError(f"the number of hands must be an integer >= 1, not {hands!r}")
    if seed is None:
        seed = secrets.randbits(63)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"the seed must be an integer >= 0, not {seed!r}")
    if deadline is not None and not (isinstance(deadline, int | float) and deadline > 0):
        raise ValueError(f"the deadline must be a positive number of seconds, not {deadline!r}")
    return Job(
        rules=the_rules,
        bots=tuple(specs),
        hands=hands,
        seed=seed,
        duplicate=duplicate,
        deadline=None if deadline is None else float(deadline),
    )


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


_illegal_warnings = 0
MAX_WARNINGS = 10


def _warn(message: str) -> None:
    print(f"chinese-poker: warning: {message}", file=sys.stderr, flush=True)


def _play_hand(
    table: Table, agents: Mapping[int, Agent], labels: Mapping[int, str]
) -> dict[int, int]:
    """Play ``table`` to the showdown; an illegal action becomes the seat's Timeout.

    Returns the illegal actions per seat.
    """
    global _illegal_warnings
    bad: dict[int, int] = {}
    while not table.over:
        seat = table.to_act[0]
        action = agents[seat].act(table.view(seat))
        reason = table.check(action)
        if reason is not None:
            bad[seat] = bad.get(seat, 0) + 1
            _illegal_warnings += 1
            if _illegal_warnings <= MAX_WARNINGS:
                _warn(
                    f"bot {labels[seat]} at seat {seat}: illegal action ({action}): {reason};"
                    " the seat times out (auto-played)"
                )
            action = Timeout(seat, version=table.version)
        table.apply(action)
    return bad


def _play_session(
    job: Job, unit: int, rotation: int, externals: dict[int, ExternalBot]
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
        )
        result = session.finish_hand()
        settlement = table.settlement
        assert settlement is not None
        fouled = set(settlement.fouled)
        boards = job.rules.spec.variant.hands_per_seat
        seats: list[SeatHand] = []
        for name, inst in zip(players, instances, strict=True):
            if name not in here:
                seats.append(SeatHand(inst, False, 0, 0, 0, False, False, False, 0))
                continue
            tseat = here.index(name)
            ext = external_of.get(name)
            errors = bad.get(tseat, 0) + (ext.problems - before[name] if ext is not None else 0)
            seats.append(
                SeatHand(
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
            )
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
    out: list[UnitRun] = []
    try:
        for unit in range(start, stop):
            run = UnitRun(
                unit, [_play_session(job, unit, r, externals) for r in range(job.rotations)]
            )
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


# =========================================================================== statistics


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean with its 95% interval: ``mean ± ci95``, ci95 = 1.96 sd / sqrt(n).

    ``sd`` and ``ci95`` are None with fewer than two samples.
    """

    n: int
    mean: float
    sd: float | None
    ci95: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "mean": _round(self.mean),
            "sd": None if self.sd is None else _round(self.sd),
            "ci95": None if self.ci95 is None else _round(self.ci95),
            "low": None if self.ci95 is None else _round(self.mean - self.ci95),
            "high": None if self.ci95 is None else _round(self.mean + self.ci95),
        }

    def __str__(self) -> str:
        if self.n == 0:
            return "n/a"
        if self.ci95 is None:
            return f"{self.mean:+.3f}"
        return f"{self.mean:+.3f} ± {self.ci95:.3f}"


def _round(x: float) -> float:
    return round(x, 9) + 0.0


class _Acc:
    """Exact running sums of samples (ints or fractions) for an :class:`Interval`."""

    __slots__ = ("n", "q", "s")

    def __init__(self) -> None:
        self.n = 0
        self.s: Fraction | int = 0
        self.q: Fraction | int = 0

    def add(self, x: Fraction | int) -> None:
        self.n += 1
        self.s += x
        self.q += x * x

    def interval(self) -> Interval:
        n = self.n
        if n == 0:
            return Interval(0, 0.0, None, None)
        mean = Fraction(self.s) / n
        if n < 2:
            return Interval(n, float(mean), None, None)
        var = (Fraction(self.q) - Fraction(self.s) * self.s / n) / (n - 1)
        sd = math.sqrt(max(float(var), 0.0))
        return Interval(n, float(mean), sd, Z95 * sd / math.sqrt(n))


def interval(values: Iterable[int | float | Fraction]) -> Interval:
    """The mean and 95% interval of samples (exact sums; floats are taken exactly).

    >>> interval([1, -1, 1, -1]).ci95 == 1.96 * (4 / 3) ** 0.5 / 2
    True
    """
    acc = _Acc()
    for v in values:
        acc.add(v if isinstance(v, int | Fraction) else Fraction(v))
    return acc.interval()


class _Counts:
    __slots__ = ("boards", "errors", "fl_earned", "fl_played", "fouls", "hands", "timeouts")

    def __init__(self) -> None:
        self.hands = self.boards = self.fouls = 0
        self.fl_played = self.fl_earned = self.timeouts = self.errors = 0

    def add(self, s: SeatHand) -> None:
        self.hands += 1
        self.boards += s.boards
        self.fouls += s.fouls
        self.fl_played += s.fl_played
        self.fl_earned += s.fl_earned
        self.timeouts += s.timed_out
        self.errors += s.errors


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the summary: a seat or a bot.

    ``hands`` counts the seat-hands played; ``points`` is the interval of points per hand
    (per bot: over hands, or over duplicate groups). Rates are shares: fouls per board,
    Fantasyland hands played and boards that qualified for Fantasyland per seat-hand.
    """

    label: str
    seat: int | None
    seats: int
    hands: int
    points: Interval
    foul_rate: float
    fl_played_rate: float
    fl_earned_rate: float
    timeouts: int
    errors: int

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"bot": self.label}
        if self.seat is not None:
            data = {"seat": self.seat, "bot": self.label}
        else:
            data["seats"] = self.seats
        data.update(
            {
                "hands": self.hands,
                "points_per_hand": self.points.to_dict(),
                "foul_rate": _round(self.foul_rate),
                "fantasyland_played_rate": _round(self.fl_played_rate),
                "fantasyland_earned_rate": _round(self.fl_earned_rate),
                "timeouts": self.timeouts,
                "errors": self.errors,
            }
        )
        return data


def _line(label: str, seat: int | None, seats: int, c: _Counts, points: Interval) -> Line:
    def rate(k: int, n: int) -> float:
        return k / n if n else 0.0

    return Line(
        label=label,
        seat=seat,
        seats=seats,
        hands=c.hands,
        points=points,
        foul_rate=rate(c.fouls, c.boards),
        fl_played_rate=rate(c.fl_played, c.hands),
        fl_earned_rate=rate(c.fl_earned, c.hands),
        timeouts=c.timeouts,
        errors=c.errors,
    )


@dataclass(frozen=True)
class SimulationResult:
    """What :func:`simulate` found. ``to_dict()`` is the ``--json`` summary.

    Everything except the ``performance`` block depends only on the job (same seed, same
    result, whatever the workers or the engine).
    """

    job: Job
    hands: int
    sessions: int
    groups: int | None
    seats: tuple[Line, ...]
    bots: tuple[Line, ...]
    elapsed: float
    workers: int
    engine: str
    # Ray: (node id, tasks that ran there), for every node that ran a chunk.
    nodes: tuple[tuple[str, int], ...] = ()

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.elapsed if self.elapsed > 0 else 0.0

    def to_dict(self, *, performance: bool = True) -> dict[str, Any]:
        job = self.job
        data: dict[str, Any] = {
            "format": SUMMARY_FORMAT,
            "format_version": SUMMARY_VERSION,
            "variant": job.rules.variant,
            "rules": job.rules.to_dict(),
            "players": job.players,
            "bots": list(job.bots),
            "seed": job.seed,
            "duplicate": job.duplicate,
            "hands_requested": job.hands,
            "hands": self.hands,
            "sessions": self.sessions,
            "groups": self.groups,
            "interval_over": "groups" if job.duplicate else "hands",
            "seat_results": [line.to_dict() for line in self.seats],
            "bot_results": [line.to_dict() for line in self.bots],
        }
        if performance:
            data["performance"] = {
                "engine": self.engine,
                "workers": self.workers,
                "elapsed_seconds": round(self.elapsed, 3),
                "hands_per_second": round(self.hands_per_second, 1),
            }
            if self.nodes:
                data["performance"]["nodes"] = dict(self.nodes)
        return data

    def render(self) -> str:
        """A readable report (the ``simulate`` command's default output)."""
        job = self.job
        units = _plural(self.sessions, "session")
        if self.groups is not None:
            units = (
                f"{_plural(self.groups, 'duplicate group')} of {job.players} rotations ({units})"
            )
        out = [
            f"{job.rules.variant}, {_plural(job.players, 'player')},"
            f" {_plural(self.hands, 'hand')} in {units},"
            f" seed {job.seed}",
            "",
        ]
        header = (
            f"{'':<6}{'bot':<24}{'hands':>7}  {'points/hand (95%)':<20}{'foul':>7}"
            f"{'FL play':>9}{'FL earn':>9}{'t/o':>6}{'err':>6}"
        )

        def row(first: str, line: Line) -> str:
            label = line.label if len(line.label) <= 23 else line.label[:20] + "..."
            return (
                f"{first:<6}{label:<24}{line.hands:>7}  {line.points!s:<20}"
                f"{line.foul_rate:>7.1%}{line.fl_played_rate:>9.1%}{line.fl_earned_rate:>9.1%}"
                f"{line.timeouts:>6}{line.errors:>6}"
            )

        out.append("seat" + header[4:])
        out.extend(row(str(line.seat), line) for line in self.seats)
        out.append("")
        over = "duplicate groups" if job.duplicate else "hands"
        out.append("bots" + header[4:] + f"   (interval over {over})")
        out.extend(row(f"x{line.seats}", line) for line in self.bots)
        out.append("")
        where = (
            f"{_plural(self.workers, 'local worker')}"
            if self.engine == "local"
            else f"Ray, {_plural(self.workers, 'worker')}"
            + (f" on {_plural(len(self.nodes), 'node')}" if self.nodes else "")
        )
        out.append(f"{self.hands_per_second:.1f} hands/s ({self.elapsed:.2f} s, {where})")
        return "\n".join(out)


def _plural(count: int, noun: str) -> str:
    """``1 session``, ``2 sessions``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


class _Tally:
    """Takes units in order, cuts the job at its hand count, and keeps the statistics."""

    def __init__(
        self, job: Job, history: str | Path | None, progress: ProgressCallback | None
    ) -> None:
        self.job = job
        self.history = history
        self.progress = progress
        self.hands = 0
        self.units = 0
        self.sessions = 0
        self.done = False
        n = job.players
        self.seat_counts = [_Counts() for _ in range(n)]
        self.seat_points = [_Acc() for _ in range(n)]
        self.bot_counts = {label: _Counts() for label in job.labels}
        self.bot_points = {label: _Acc() for label in job.labels}

    def feed(self, run: UnitRun) -> bool:
        """Take the next unit (in order); True once the job has its hands."""
        if self.done:
            return True
        job = self.job
        left = job.hands - self.hands
        cuts = [len(s.hands) for s in run.sessions]
        if run.hand_count >= left:
            self.done = True
            if run.hand_count > left:
                if job.duplicate:
                    per = math.ceil(left / len(run.sessions))
                    cuts = [min(c, per) for c in cuts]
                else:
                    cuts[0] = left
        group: dict[str, list[Fraction | int]] = {label: [] for label in job.labels}
        records: list[dict[str, Any]] = []
        for session, cut in zip(run.sessions, cuts, strict=True):
            if cut == 0:
                continue
            self.sessions += 1
            for hand in session.hands[:cut]:
                per_bot: dict[str, list[int]] = {}
                for seat, sh in enumerate(hand.seats):
                    if not sh.played:
                        continue
                    label = job.bots[sh.bot]
                    self.seat_counts[seat].add(sh)
                    self.seat_points[seat].add(sh.points)
                    self.bot_counts[label].add(sh)
                    per_bot.setdefault(label, []).append(sh.points)
                for label, pts in per_bot.items():
                    value: Fraction | int = (
                        pts[0] if len(pts) == 1 else Fraction(sum(pts), len(pts))
                    )
                    if job.duplicate:
                        group[label].append(value)
                    else:
                        self.bot_points[label].add(value)
            records.extend(session.records[:cut])
            self.hands += cut
        if job.duplicate:
            for label, values in group.items():
                if values:
                    self.bot_points[label].add(Fraction(sum(values), len(values)))
        self.units += 1
        if self.history is not None and records:
            write_history(self.history, records, append=True)
        if self.progress is not None:
            self.progress(min(self.hands, job.hands), job.hands)
        return self.done

    def result(
        self,
        elapsed: float,
        workers: int,
        engine: str,
        nodes: Mapping[str, int] | None = None,
    ) -> SimulationResult:
        job = self.job
        seats = tuple(
            _line(
                job.bots[i] if not job.duplicate else "(rotating)",
                i,
                1,
                self.seat_counts[i],
                self.seat_points[i].interval(),
            )
            for i in range(job.players)
        )
        bots = tuple(
            _line(
                label,
                None,
                job.bots.count(label),
                self.bot_counts[label],
                self.bot_points[label].interval(),
            )
            for label in job.labels
        )
        return SimulationResult(
            job=job,
            hands=self.hands,
            sessions=self.sessions,
            groups=self.units if job.duplicate else None,
            seats=seats,
            bots=bots,
            elapsed=elapsed,
            workers=workers,
            engine=engine,
            nodes=tuple(sorted((nodes or {}).items())),
        )

    def projected(self, units_submitted: int, per_unit: float) -> float:
        """Hands expected once every submitted unit is in."""
        avg = self.hands / self.units if self.units else per_unit
        return self.hands + (units_submitted - self.units) * avg


# =========================================================================== running


class _Backend(Protocol):
    slots: int
    nodes: dict[str, int]  # Ray node id -> chunks that ran there (empty for processes)

    def submit(self, start: int, stop: int) -> object: ...

    def wait(self, handles: Sequence[object]) -> list[tuple[object, list[UnitRun]]]: ...

    def close(self) -> None: ...


_stopping = False
_STOP_STATUS = 128 + signal.SIGTERM


def _worker_init() -> None:
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


class _ProcessBackend:
    """Local worker processes (``spawn``: safe with threads, the same on every OS)."""

    def __init__(self, job: Job, workers: int) -> None:
        self.job = job
        self.slots = workers
        self.nodes: dict[str, int] = {}
        self.pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_worker_init,
        )
        self.futures: list[Future[list[UnitRun]]] = []

    def submit(self, start: int, stop: int) -> object:
        future = self.pool.submit(run_units, self.job, start, stop)
        self.futures.append(future)
        return future

    def wait(self, handles: Sequence[object]) -> list[tuple[object, list[UnitRun]]]:
        futures = [h for h in self.futures if h in handles]
        done: set[Future[list[UnitRun]]] = set()
        while not done:  # in slices, so that Ctrl-C is noticed at once
            done, _ = wait(futures, timeout=0.2, return_when=FIRST_COMPLETED)
        out: list[tuple[object, list[UnitRun]]] = []
        for future in done:
            self.futures.remove(future)
            out.append((future, future.result()))
        return out

    def close(self) -> None:
        busy = [f for f in self.futures if not f.done()]
        for future in self.futures:
            future.cancel()
        if not busy:
            self.pool.shutdown(wait=True, cancel_futures=True)
            return
        # Unneeded (speculative) or interrupted work: stop the workers now. SIGTERM makes
        # each stop its external bots and exit; whatever is still alive after a grace
        # period is killed.
        processes = list((getattr(self.pool, "_processes", None) or {}).values())
        for process in processes:
            with contextlib.suppress(Exception):
                process.terminate()
        self.pool.shutdown(wait=False, cancel_futures=True)
        end = time.monotonic() + 10.0
        for process in processes:
            with contextlib.suppress(Exception):
                process.join(timeout=max(0.0, end - time.monotonic()))
                if process.is_alive():
                    process.kill()
                    process.join(timeout=5.0)


def _ray_chunk(job: Job, start: int, stop: int) -> tuple[str, list[UnitRun]]:
    """A Ray task: :func:`run_units`, and the id of the node that ran it."""
    import ray

    node: str = ray.get_runtime_context().get_node_id()
    return node, run_units(job, start, stop)


# The Ray connection this module opened (a local instance it started, or a cluster it
# joined), kept until the program ends so that Ray's start-up (seconds) is paid once per
# run, not once per simulate() call. None: Ray was not initialised here.
_ray_opened: dict[str, str | None] = {}


def _ray_connect(ray: Any, address: str | None) -> None:
    """Initialise Ray for ``address`` (None: a local instance), reusing a live connection."""
    import logging

    if ray.is_initialized():
        if not _ray_opened or _ray_opened.get("address") == address:
            return  # ours for the same place, or the caller's own ray.init(): use it
        ray.shutdown()  # ours, for another cluster
        _ray_opened.clear()
    options: dict[str, Any] = {
        "include_dashboard": False,
        "logging_level": logging.WARNING,
        "log_to_driver": True,
    }
    try:
        if address:
            ray.init(address=address, **options)
        else:
            # Every CPU of the machine: a later call may ask for more workers than this
            # one and still use the same instance (each call runs at most its workers).
            ray.init(num_cpus=os.cpu_count() or 1, **options)
    except Exception as exc:
        where = f"at {address}" if address else "locally"
        raise ValueError(f"cannot start or reach Ray {where}: {exc}") from None
    _ray_opened["address"] = address


class _RayBackend:
    """Ray tasks, on a local Ray instance or the cluster at ``address``."""

    def __init__(self, job: Job, workers: int, address: str | None) -> None:
        try:
            import ray
        except ImportError:
            raise ValueError(
                f"--engine ray needs Ray, which is not installed: {RAY_INSTALL}"
                " in the chinese-poker checkout"
            ) from None
        self.ray = ray
        _ray_connect(ray, address)
        resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
        cpus = int(resources.get("CPU", workers))
        self.slots = max(1, cpus if address else min(workers, cpus))
        self.job_ref = ray.put(job)
        self.task = ray.remote(num_cpus=1, max_retries=0)(_ray_chunk)
        self.pending: list[Any] = []
        self.nodes: dict[str, int] = {}

    def submit(self, start: int, stop: int) -> object:
        ref = self.task.remote(self.job_ref, start, stop)
        self.pending.append(ref)
        return ref

    def wait(self, handles: Sequence[object]) -> list[tuple[object, list[UnitRun]]]:
        ready: list[Any] = []
        while not ready:  # in slices, so that Ctrl-C is noticed at once
            ready, _ = self.ray.wait(list(handles), num_returns=1, timeout=0.2)
        out: list[tuple[object, list[UnitRun]]] = []
        for ref in ready:
            self.pending.remove(ref)
            node, runs = self.ray.get(ref)
            self.nodes[node] = self.nodes.get(node, 0) + 1
            out.append((ref, runs))
        return out

    def close(self) -> None:
        # Unneeded (speculative) or interrupted chunks are cancelled; Ray itself stays up
        # for the next call (see _ray_opened) and stops when the program ends.
        for ref in self.pending:
            with contextlib.suppress(Exception):
                self.ray.cancel(ref, force=True)
        self.pending = []


def _run_parallel(job: Job, tally: _Tally, backend: _Backend) -> None:
    per_unit = float(job.players * job.rotations)
    estimate = math.ceil(job.hands / per_unit)
    chunk = max(1, min(256, math.ceil(estimate / (backend.slots * 4))))
    in_flight: dict[object, tuple[int, int]] = {}
    finished: dict[int, list[UnitRun]] = {}
    next_start = 0
    next_take = 0
    while not tally.done:
        while len(in_flight) < 2 * backend.slots and (
            not in_flight or tally.projected(next_start, per_unit) < job.hands
        ):
            handle = backend.submit(next_start, next_start + chunk)
            in_flight[handle] = (next_start, chunk)
            next_start += chunk
        for handle, runs in backend.wait(list(in_flight)):
            start, _size = in_flight.pop(handle)
            finished[start] = runs
        while next_take in finished and not tally.done:
            runs = finished.pop(next_take)
            for run in runs:
                if tally.feed(run):
                    break
            next_take += len(runs)


def simulate(
    job: Job,
    *,
    workers: int = 1,
    engine: str = "local",
    address: str | None = None,
    history: str | Path | None = None,
    progress: ProgressCallback | None = None,
) -> SimulationResult:
    """Play ``job`` and summarise it.

    ``workers``: processes (``engine="local"``; 1 plays in this process) or Ray tasks at
    a time on a local Ray instance (``engine="ray"``; ``address`` joins a running
    cluster instead). ``history``: a file that receives every hand as a JSON line
    (the engine's hand-history format). ``progress(done, total)`` is called as hands come
    in. The result does not depend on ``workers`` or ``engine``.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an integer >= 1, not {workers!r}")
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; engines: {', '.join(ENGINES)}")
    if history is not None:
        try:
            with open(history, "w", encoding="utf-8"):
                pass
        except OSError as exc:
            raise ValueError(
                f"cannot write the history file {str(history)!r}: {exc.strerror or exc}"
            ) from None
    job = replace(job, history=history is not None)
    tally = _Tally(job, history, progress)
    started = time.perf_counter()
    nodes: dict[str, int] = {}
    if engine == "local" and workers == 1:
        run_units(job, 0, job.hands, on_unit=tally.feed)
    else:
        backend: _Backend = (
            _ProcessBackend(job, workers)
            if engine == "local"
            else _RayBackend(job, workers, address)
        )
        try:
            _run_parallel(job, tally, backend)
        finally:
            backend.close()
        nodes = backend.nodes
        workers = backend.slots  # Ray with an address: the cluster's CPUs
    elapsed = time.perf_counter() - started
    return tally.result(elapsed, workers, engine, nodes if engine == "ray" else None)
