"""Compile (or load from numba's on-disk cache) the bots' kernels before they are needed.

Every hot loop of the bots is a numba kernel with ``cache=True``: the first process on
a machine compiles it (10 to 20 s for the open-face playouts, about a second for the
setting and Fantasyland solvers) and writes the machine code next to the sources (or
under ``NUMBA_CACHE_DIR``, or the user cache directory when the package directory is
read-only); every later process loads it in well under a second. numba keys the cache
on the source's content hash and the CPU, so a cache is never stale.

:func:`warm_kernels` runs each kernel family once on a fixed small deal, so that the
compilation (or the load) happens when the program starts rather than in the middle
of the first decision: ``chinese-poker bot`` warms before it answers ``hello``, the
server warms in a background thread at start-up (:func:`warm_in_background`), and the
commands that decide once (``hint``, ``solve``, ``play``'s suggestion) warm first with
a one-line notice on standard error when (and only when) numba really compiles.
Each family is warmed once per process; concurrent callers wait for the first.
``python -m chinese_poker.ai.warm`` compiles everything ahead (after an install, in an
image build; ``scripts/test`` runs it before the tests).

>>> first = warm_kernels(("setting",))
>>> warm_kernels(("setting",)).parts  # warmed once per process
()
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = [
    "NOTICE",
    "PARTS",
    "WarmResult",
    "compile_notice",
    "is_warm",
    "stderr_notice",
    "warm_in_background",
    "warm_kernels",
]

NOTICE = (
    "compiling the bots' kernels for this machine (once; later runs load them from "
    "numba's cache)..."
)
"""The line shown when a kernel is really being compiled (not loaded from the cache)."""


def _open_face() -> None:
    # One heads-up Pineapple hand of the mc bot at its quickest level plays every street
    # shape (the 232-placement first street, discards, the exact last street) through the
    # screen and playout kernels; a hint on a view runs the same kernels.
    from chinese_poker.ai.mc import MonteCarloBot
    from chinese_poker.ai.rollout import fantasyland_row, tables_for
    from chinese_poker.cards import parse_board
    from chinese_poker.engine import Table, play_hand
    from chinese_poker.rules import rules_for

    rules = rules_for("pineapple")
    table = Table(rules, 2, seed=7)
    play_hand(table, [MonteCarloBot(seed=1, level=1), MonteCarloBot(seed=2, level=1)])
    # A hidden Fantasyland opponent's board as the rollouts see it (its line look-ups).
    board = parse_board("Qs Qh 2c | 9d 9c 5s 4h 3d | As Ks Js 8s 2s")
    fantasyland_row(board.lines, tables_for(rules))


def _fantasyland() -> None:
    import numpy as np

    from chinese_poker.ai.fantasyland import fantasyland_boards, solve_fantasyland
    from chinese_poker.cards import parse_cards
    from chinese_poker.rules import rules_for

    deal = parse_cards("As Ks Qh Jh Td 9d 8c 7c 6s 5s 4h 3h 2d 2c")
    solve_fantasyland(deal, rules_for("pineapple"))
    # The next best boards, as mc's levels 3 to 5 search them (with a line bonus).
    fantasyland_boards(deal, rules_for("pineapple"), line_bonus=np.zeros((3, 256)), count=2)


def _setting() -> None:
    from chinese_poker.ai.setting import solve_setting
    from chinese_poker.cards import parse_cards
    from chinese_poker.rules import rules_for

    solve_setting(parse_cards("As Ah Ad Kc Kd 9h 8h 7h 5h 3c Js Ts 2d"), rules_for("classic"))


_WARMERS: dict[str, Callable[[], None]] = {
    "setting": _setting,
    "fantasyland": _fantasyland,
    "open-face": _open_face,
}

PARTS: tuple[str, ...] = tuple(_WARMERS)
"""The kernel families: the classic setting solver, the Fantasyland solver, the
open-face playouts (the ``mc`` bot and the hints)."""

_lock = threading.Lock()
_done: set[str] = set()


@dataclass(frozen=True, slots=True)
class WarmResult:
    """What a :func:`warm_kernels` call did: the families it warmed now (the others were
    warm already), whether numba had to compile any kernel, and the seconds it took."""

    parts: tuple[str, ...]
    compiled: bool
    seconds: float


@contextmanager
def compile_notice(say: Callable[[str], None] | None) -> Iterator[list[bool]]:
    """Call ``say(NOTICE)`` once, at the start of the first real numba compilation inside
    the block (a load from the cache says nothing). Yields a one-element list that is
    ``[True]`` after the block when something was compiled."""
    compiled = [False]
    try:
        from numba.core import event
    except ImportError:  # pragma: no cover - without numba nothing is ever compiled
        yield compiled
        return

    class _Listener(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            if not compiled[0]:
                compiled[0] = True
                if say is not None:
                    say(NOTICE)

        def on_end(self, ev: event.Event) -> None:
            pass

    with event.install_listener("numba:compile", _Listener()):
        yield compiled


def stderr_notice(message: str) -> None:
    """Print ``message`` as one line on standard error, at once."""
    print(message, file=sys.stderr, flush=True)


def is_warm(parts: Iterable[str] = PARTS) -> bool:
    """Whether this process has warmed every family of ``parts`` (a :func:`warm_kernels`
    call for them returns at once)."""
    return all(p in _done for p in parts)


def warm_kernels(
    parts: Iterable[str] = PARTS, *, say: Callable[[str], None] | None = None
) -> WarmResult:
    """Compile or load the kernels of ``parts`` (see :data:`PARTS`) unless this process
    has already; ``say`` gets :data:`NOTICE` if numba really compiles. Raises
    ``ValueError`` for an unknown part."""
    wanted = tuple(parts)
    unknown = [p for p in wanted if p not in _WARMERS]
    if unknown:
        raise ValueError(f"unknown kernel family {unknown[0]!r}; families: {', '.join(PARTS)}")
    start = time.perf_counter()
    warmed: list[str] = []
    with _lock, compile_notice(say) as compiled:
        for part in wanted:
            if part in _done:
                continue
            _WARMERS[part]()
            _done.add(part)
            warmed.append(part)
    return WarmResult(tuple(warmed), compiled[0], time.perf_counter() - start)


def warm_in_background(
    parts: Iterable[str] = PARTS, *, say: Callable[[str], None] | None = None
) -> threading.Thread:
    """:func:`warm_kernels` in a daemon thread (started, returned): a server calls this at
    start-up so that its first page never waits for numba, and its first hint finds the
    kernels ready. A failure is reported through ``say`` and otherwise ignored (the
    kernels then compile on first use, as without warming)."""
    wanted = tuple(parts)

    def run() -> None:
        try:
            warm_kernels(wanted, say=say)
        except Exception as exc:  # the server must run on; first use compiles instead
            if say is not None:
                say(f"warming the bots' kernels failed ({type(exc).__name__}: {exc})")

    thread = threading.Thread(target=run, name="warm-kernels", daemon=True)
    thread.start()
    return thread


def main() -> int:
    """``python -m chinese_poker.ai.warm``: compile every kernel family ahead (after an
    install, in an image build, before a test run), with the time it took."""
    result = warm_kernels(say=stderr_notice)
    state = "compiled" if result.compiled else "loaded from numba's cache"
    print(f"kernels {state} in {result.seconds:.1f} s: {', '.join(result.parts)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
