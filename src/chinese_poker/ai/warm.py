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
Each family is warmed once per process; concurrent callers wait for the first, and
processes sharing a cache compile a family one at a time (a lock file beside the cache):
the others wait, then load what the first wrote, rather than compile it again.
``python -m chinese_poker.ai.warm`` compiles everything ahead (after an install, in an
image build; ``scripts/test`` runs it before the tests), the families in parallel
processes.

Nobody waits for the open-face kernels (a minute and a half of one core on a fresh
machine, docs/benchmarks.md "Cold start"): while they are not warm in a process, a
decision somebody waits for is made by a quicker method that needs no such kernel.
:class:`UntilWarm` plays the rules bot instead of the Monte Carlo bot (the server's
tables), :func:`chinese_poker.ai.hints.hint` with ``when_cold="quick"`` answers the rules
bot's placement (the server's hints, the study desk, ``chinese-poker hint``), and
:func:`warm_unless_compiling` tells a one-off command whether the kernels loaded or must
be compiled (then :func:`compile_ahead` compiles them in a process of their own).

>>> first = warm_kernels(("setting",))
>>> warm_kernels(("setting",)).parts  # warmed once per process
()
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from chinese_poker.ai import Bot
    from chinese_poker.engine.actions import Action
    from chinese_poker.engine.views import View

__all__ = [
    "NOTICE",
    "OPEN_FACE",
    "PARTS",
    "UntilWarm",
    "WarmResult",
    "compile_ahead",
    "compile_notice",
    "is_warm",
    "stderr_notice",
    "warm_in_background",
    "warm_kernels",
    "warm_unless_compiling",
]

log = logging.getLogger(__name__)

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
open-face playouts (the ``mc`` bot and the hints). Warmed in this order: the first two
compile in a few seconds, and are then ready while the third compiles."""

OPEN_FACE = "open-face"
"""The family that takes long to compile: the Monte Carlo bot's and the hints' playouts."""

_locks = {part: threading.Lock() for part in _WARMERS}
_done: set[str] = set()
_compiling: set[str] = set()  # being compiled now, here or by another process


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
    # Listeners are global: another thread's compilation is not this block's.
    owner = threading.get_ident()

    class _Listener(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            if not compiled[0] and threading.get_ident() == owner:
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
    return _warm(_checked(parts), say, None)


def _checked(parts: Iterable[str]) -> tuple[str, ...]:
    wanted = tuple(parts)
    unknown = [p for p in wanted if p not in _WARMERS]
    if unknown:
        raise ValueError(f"unknown kernel family {unknown[0]!r}; families: {', '.join(PARTS)}")
    # In PARTS' order: the quick families first, ready while the slow one compiles.
    return tuple(p for p in PARTS if p in wanted)


def _warm(
    wanted: tuple[str, ...],
    say: Callable[[str], None] | None,
    compiling: Callable[[], None] | None,
) -> WarmResult:
    """:func:`warm_kernels`; ``compiling()`` is called when numba starts to compile in
    this thread, or when another process holds a family's lock (it compiles)."""
    start = time.perf_counter()
    warmed: list[str] = []
    noted = [False]
    current = [""]

    held: list[IO[str]] = []  # the family's lock file, while this thread holds it

    def busy() -> None:
        _compiling.add(current[0])
        if compiling is not None:
            compiling()

    def note(message: str) -> None:
        _compiling.add(current[0])
        for handle in held:  # tells the processes waiting for the lock
            with contextlib.suppress(OSError):
                handle.seek(0)
                handle.truncate()
                handle.write(COMPILING)
                handle.flush()
        if not noted[0]:
            noted[0] = True
            if say is not None:
                say(message)
            if compiling is not None:
                compiling()

    with compile_notice(note) as compiled:
        for part in wanted:
            with _locks[part]:
                if part in _done:
                    continue
                current[0] = part
                try:
                    with _machine_lock(part, busy) as handle:
                        held[:] = [] if handle is None else [handle]
                        _WARMERS[part]()
                finally:
                    held.clear()
                    _compiling.discard(part)
                _done.add(part)
                warmed.append(part)
    return WarmResult(tuple(warmed), compiled[0], time.perf_counter() - start)


def _lock_path(part: str) -> str:
    """One lock file per family and numba cache (processes with another cache do not
    share compiled code, so they need not wait for each other)."""
    where = os.environ.get("NUMBA_CACHE_DIR") or tempfile.gettempdir()
    user = os.getuid() if hasattr(os, "getuid") else 0
    # Without NUMBA_CACHE_DIR the cache is beside the sources: one per installation.
    install = hashlib.sha1(os.path.dirname(os.path.abspath(__file__)).encode()).hexdigest()
    return os.path.join(where, f"chinese-poker-warm-{user}-{install[:10]}-{part}.lock")


COMPILING = "compiling\n"
"""What a lock file holds while its holder compiles (a holder that only loads from the
cache leaves it empty: the processes waiting for it are then not told to give up)."""

LOCK_POLL = 0.05
"""Seconds between two tries at a family's lock held by another process."""


@contextmanager
def _machine_lock(part: str, busy: Callable[[], None] | None) -> Iterator[IO[str] | None]:
    """Hold the family's lock file (yielded, None without one); ``busy()`` once if the
    process holding it says it compiles (this one waits, then loads what it wrote)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: every process compiles for itself
        yield None
        return
    try:
        handle = open(_lock_path(part), "a+")  # noqa: SIM115 - held across the yield
    except OSError:  # an unwritable directory: no lock, as without one
        yield None
        return
    with handle:
        told = False
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                handle.seek(0)
                if not told and handle.read() == COMPILING and busy is not None:
                    told = True
                    busy()
                time.sleep(LOCK_POLL)
        try:
            yield handle
        finally:
            with contextlib.suppress(OSError):
                handle.truncate(0)
            fcntl.flock(handle, fcntl.LOCK_UN)


def warm_unless_compiling(
    parts: Iterable[str] = PARTS, *, say: Callable[[str], None] | None = None
) -> bool:
    """Warm ``parts`` if numba can load them from its cache, and say True; say False as
    soon as it turns out that they must be compiled (here or by another process): the
    warming then goes on in a background thread (``say`` gets :data:`NOTICE`), and
    :func:`is_warm` turns True once it is done. For a command a person waits for: it
    answers by a quicker method instead of waiting a minute or more."""
    wanted = _checked(parts)
    if is_warm(wanted):
        return True
    # Any family compiling here holds numba's compiler lock, which a load would wait for.
    if _compiling:
        return False
    settled = threading.Event()

    def run() -> None:
        try:
            _warm(wanted, say, settled.set)
        except Exception as exc:  # the caller answers by the quicker method
            log.warning("warming the bots' kernels failed (%s: %s)", type(exc).__name__, exc)
        finally:
            settled.set()

    threading.Thread(target=run, name="warm-kernels", daemon=True).start()
    # Another thread of this process may be compiling: its compilation is noted in
    # _compiling, not in this thread's events.
    while not settled.wait(0.05) and not _compiling:
        pass
    return is_warm(wanted)


def compile_ahead() -> int:
    """Start ``python -m chinese_poker.ai.warm`` as a process of its own, detached from
    this one (a command about to exit would take its compiling thread with it); returns
    its process id. The next command finds the kernels in numba's cache."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "chinese_poker.ai.warm"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    return proc.pid


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


class UntilWarm:
    """A bot that plays as ``quick`` while the kernels of ``bot`` are not warm in this
    process, and as ``bot`` from then on; each quick decision is logged. Someone else
    warms the kernels (the server, :func:`warm_in_background`); ``start=True`` warms them
    in a background thread at the first cold decision. Once warm it decides exactly as
    ``bot``: its strength is the bot's; before, it is the quick bot's (the rules bot).
    Other attributes are the bot's own."""

    def __init__(self, bot: Bot, quick: Bot, *, start: bool = False) -> None:
        self.bot = bot
        self.quick = quick
        self.name = bot.name
        self.parts: tuple[str, ...] = tuple(getattr(bot, "kernels", PARTS))
        self._start = start
        self.quick_decisions = 0

    def act(self, view: View) -> Action:
        if is_warm(self.parts):
            return self.bot.act(view)
        if self._start:
            self._start = False
            warm_in_background(self.parts)
        self.quick_decisions += 1
        log.info(
            "the %s bot's kernels are not compiled yet: the %s bot decides instead",
            self.bot.name,
            self.quick.name,
        )
        return self.quick.act(view)

    def __getattr__(self, name: str) -> object:
        bot = self.__dict__.get("bot")
        if bot is None:  # not built yet (a copy being made)
            raise AttributeError(name)
        return getattr(bot, name)


def _compile_one(part: str) -> tuple[str, float, bool]:
    result = warm_kernels((part,))
    return part, result.seconds, result.compiled


def main(argv: list[str] | None = None) -> int:
    """``python -m chinese_poker.ai.warm [--one-process]``: compile every kernel family
    ahead (after an install, in an image build, before a test run), one process per
    family (in parallel), with the time each took."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m chinese_poker.ai.warm", description=main.__doc__)
    ap.add_argument("--one-process", action="store_true", help="the families one after another")
    args = ap.parse_args(argv)
    start = time.perf_counter()
    if args.one_process:
        results = [_compile_one(part) for part in PARTS]
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(len(PARTS), mp_context=context) as pool:
            results = list(pool.map(_compile_one, PARTS))
    for part, seconds, compiled in results:
        state = "compiled" if compiled else "loaded from numba's cache"
        print(f"{part}: {state} in {seconds:.1f} s", flush=True)
    print(f"kernels ready in {time.perf_counter() - start:.1f} s: {', '.join(PARTS)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
