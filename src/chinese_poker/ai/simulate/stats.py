"""A simulation's statistics (see :mod:`chinese_poker.ai.simulate`): units taken in order
and cut at the job's hand count (:class:`Tally`), means with 95% intervals, and the
:class:`SimulationResult` with its summary.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from chinese_poker.ai.simulate.job import Job
from chinese_poker.ai.simulate.play import HandStat, SeatHand, UnitRun
from chinese_poker.engine.history import write_history

__all__ = [
    "SUMMARY_FORMAT",
    "SUMMARY_VERSION",
    "Interval",
    "Line",
    "ProgressCallback",
    "SimulationResult",
    "Tally",
    "interval",
]

SUMMARY_FORMAT = "chinese-poker-simulation"
SUMMARY_VERSION = 1
Z95 = 1.96

ProgressCallback = Callable[[int, int], None]
"""``progress(hands_done, hands_total)``."""


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


def _cuts(job: Job, run: UnitRun, left: int) -> list[int]:
    """How many hands of each session of ``run`` count when the job lacks ``left`` hands:
    all, or the last session cut after the hand that completes the count; under
    ``duplicate`` every session of the group to the same number, ceil(left / N)."""
    cuts = [len(s.hands) for s in run.sessions]
    if run.hand_count > left:
        if job.duplicate:
            per = math.ceil(left / len(run.sessions))
            cuts = [min(c, per) for c in cuts]
        else:
            cuts[0] = left
    return cuts


class Tally:
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
        if run.hand_count >= left:
            self.done = True
        group: dict[str, list[Fraction | int]] = {label: [] for label in job.labels}
        records: list[dict[str, Any]] = []
        for session, cut in zip(run.sessions, _cuts(job, run, left), strict=True):
            if cut == 0:
                continue
            self.sessions += 1
            for hand in session.hands[:cut]:
                self._take_hand(hand, group)
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

    def _take_hand(self, hand: HandStat, group: dict[str, list[Fraction | int]]) -> None:
        """Count one hand; a bot's points (the mean over its seats) go to its line, or
        under ``duplicate`` to ``group``, the unit's, averaged when the unit is taken."""
        job = self.job
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
            value: Fraction | int = pts[0] if len(pts) == 1 else Fraction(sum(pts), len(pts))
            if job.duplicate:
                group[label].append(value)
            else:
                self.bot_points[label].add(value)

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
