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

import math
import time
from dataclasses import replace
from pathlib import Path

from chinese_poker.ai.simulate.backends import RAY_INSTALL, Backend, ProcessBackend, RayBackend
from chinese_poker.ai.simulate.job import Job, derive_seed, make_job, split_bots
from chinese_poker.ai.simulate.play import HandStat, SeatHand, SessionRun, UnitRun, run_units
from chinese_poker.ai.simulate.stats import (
    SUMMARY_FORMAT,
    SUMMARY_VERSION,
    Interval,
    Line,
    ProgressCallback,
    SimulationResult,
    Tally,
    interval,
)

__all__ = [
    "ENGINES",
    "RAY_INSTALL",
    "SUMMARY_FORMAT",
    "SUMMARY_VERSION",
    "HandStat",
    "Interval",
    "Job",
    "Line",
    "ProgressCallback",
    "SeatHand",
    "SessionRun",
    "SimulationResult",
    "Tally",
    "UnitRun",
    "derive_seed",
    "interval",
    "make_job",
    "run_units",
    "simulate",
    "split_bots",
]

ENGINES = ("local", "ray")


def _run_parallel(job: Job, tally: Tally, backend: Backend) -> None:
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
    tally = Tally(job, history, progress)
    started = time.perf_counter()
    nodes: dict[str, int] = {}
    if engine == "local" and workers == 1:
        run_units(job, 0, job.hands, on_unit=tally.feed)
    else:
        backend: Backend = (
            ProcessBackend(job, workers) if engine == "local" else RayBackend(job, workers, address)
        )
        try:
            _run_parallel(job, tally, backend)
        finally:
            backend.close()
        nodes = backend.nodes
        workers = backend.slots  # Ray with an address: the cluster's CPUs
    elapsed = time.perf_counter() - started
    return tally.result(elapsed, workers, engine, nodes if engine == "ray" else None)
