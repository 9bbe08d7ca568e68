"""What a benchmark measured against what it was asked, for every script in bench/.

A benchmark that measured fewer tables, hands, samples or moves than it was asked (a
refused connection, a timeout, a session that ended early, an error counted as
nothing) must not print its figures as if it had measured them all: each script
collects one line per shortfall and ends with :func:`verdict`, which prints them on
stderr and gives the exit status (1 when anything fell short).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any


def short(what: str, measured: int, asked: int) -> str | None:
    """``"<what>: measured M of N asked"`` when ``measured < asked``, else None."""
    if measured < asked:
        return f"{what}: measured {measured:,} of {asked:,} asked"
    return None


def verdict(bench: str, problems: Iterable[str | None]) -> int:
    """Print ``<bench>: FAILED: <problem>`` on stderr for each problem (None: none) and
    return the exit status: 1 if any, else 0."""
    found = [p for p in problems if p]
    for problem in found:
        print(f"{bench}: FAILED: {problem}", file=sys.stderr, flush=True)
    return 1 if found else 0


def simulation_shortfall(label: str, result: Any, asked: int) -> str | None:
    """What a :func:`chinese_poker.ai.simulate.simulate` result measured less than its
    ``asked`` hands, in one line (None: nothing): fewer hands, or bots whose answers
    were errors (replaced by a legal action) or timeouts."""
    parts = [short("hands", result.hands, asked)]
    parts += [
        f"{line.label}: {line.errors} error(s), {line.timeouts} timeout(s)"
        for line in result.bots
        if line.errors or line.timeouts
    ]
    found = [part for part in parts if part]
    return f"{label}: {'; '.join(found)}" if found else None
