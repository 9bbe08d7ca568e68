"""The bot protocol (version 1): computer players in other programs, over JSON lines.

A bot is a program that reads one JSON object per line on its standard input and writes
one JSON object per line on its standard output (in the spirit of UCI). The whole
protocol is described in ``docs/bot-protocol.md``; in short:

* engine -> bot ``{"type": "hello", "protocol": 1, "rules": {...}, "players": [...],
  "seat": 0, "player": "...", "deadline_ms": ...}`` once; the bot answers
  ``{"type": "ready", "protocol": 1, "name": "..."}``;
* ``{"type": "new_session", ...}`` before every session (seat, players, a seed);
* ``{"type": "act", "id": 7, "view": <View.to_dict()>, "legal": [<actions>] | null,
  "legal_count": n, "deadline_ms": 10000}`` for every decision; the bot answers
  ``{"type": "action", "id": 7, "action": <action dict>}`` before the deadline
  (``legal`` is null when the set is huge: then any arrangement of the decision's cards
  that fits the counts and the room of ``view.decisions`` is legal);
* ``{"type": "result", ...}`` after every hand, ``{"type": "quit"}`` at the end.

This module holds both sides:

* :class:`ExternalBot` -- the engine side: an :class:`~chinese_poker.engine.Agent` that
  runs a command, speaks the protocol with a deadline per decision, and turns every
  failure of the bot (invalid JSON, an illegal action, a crash, end of output, an answer
  too late) into a warning on standard error, a count in :attr:`ExternalBot.problems`,
  and the engine's :class:`~chinese_poker.engine.Timeout` for that seat (RULES §10:
  the engine plays the rest of the hand); it never raises for a bad bot;
* :func:`serve` -- the bot side: serves one of our bots over the protocol
  (``chinese-poker bot``), with :func:`view_from_dict` to rebuild a :class:`View`.

>>> view_from_dict  # doctest: +ELLIPSIS
<function view_from_dict at ...>
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import queue
import shlex
import shutil
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import IO, Any

from chinese_poker import __version__
from chinese_poker.ai import REGISTRY
from chinese_poker.engine.actions import (
    Action,
    ClaimNatural,
    Place,
    Surrender,
    Timeout,
    action_from_dict,
    check_placement,
    count_placements,
    iter_placements,
)
from chinese_poker.engine.session import Agent
from chinese_poker.engine.views import View
from chinese_poker.rules import Rules

__all__ = [
    "DEFAULT_DEADLINE",
    "LEGAL_LIST_LIMIT",
    "MAX_LINE",
    "MESSAGE_TYPES",
    "PROTOCOL_VERSION",
    "STARTUP_TIMEOUT",
    "ExternalBot",
    "act_message",
    "bounded_lines",
    "build_bot",
    "check_against_view",
    "close_all_external_bots",
    "command_problem",
    "hello_message",
    "legal_for_view",
    "message_problem",
    "result_message",
    "serve",
    "view_from_dict",
]

PROTOCOL_VERSION = 1
"""The version of the protocol spoken here (``hello.protocol``, ``ready.protocol``)."""

DEFAULT_DEADLINE = 10.0
"""Seconds a bot has per decision when the rules set no ``time_limit``."""

STARTUP_TIMEOUT = 20.0
"""Seconds a bot has to start and answer ``hello``."""

LEGAL_LIST_LIMIT = 5000
"""Decisions with at most this many legal actions get them listed in ``act.legal``."""

MAX_LINE = 8 * 1024 * 1024
"""The longest line (characters) either side reads; a longer one is skipped, with an
error. An ``act`` with its ``legal`` list of up to :data:`LEGAL_LIST_LIMIT` actions is
well under a megabyte."""

MAX_WARNINGS = 10
"""Warnings printed per bot; later problems are only counted."""

_SLICE = 0.1

MAX_STARTS = 3
"""How often an :class:`ExternalBot` starts its program before giving up on it."""


# =========================================================================== the engine side


def command_problem(command: str | Sequence[str]) -> str | None:
    """Why ``command`` cannot be started (no such program, not executable), or None.

    Only the program is checked, not whether it speaks the protocol.

    >>> command_problem("surely-no-such-program-here --x") is not None
    True
    >>> command_problem([sys.executable, "-c", "pass"]) is None
    True
    """
    try:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
    except ValueError as exc:
        return f"cannot parse the command: {exc}"
    if not argv:
        return "the command is empty"
    program = argv[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        if not os.path.isfile(program):
            return f"{program!r}: no such file"
        if not os.access(program, os.X_OK):
            return f"{program!r} is not executable"
        return None
    if shutil.which(program) is None:
        return f"{program!r}: command not found"
    return None


def legal_for_view(view: View) -> tuple[list[dict[str, Any]] | None, int]:
    """The legal actions of the viewer as dicts (None when more than the list limit).

    Returns ``(actions or None, count)``; built from ``view.decisions`` alone.
    """
    count = sum(count_placements(d) if d.is_placement else 2 for d in view.decisions)
    if count > LEGAL_LIST_LIMIT:
        return None, count
    out: list[dict[str, Any]] = []
    for dec in view.decisions:
        if dec.is_placement:
            out.extend(p.to_dict() for p in iter_placements(dec, view.version))
        elif dec.kind == "surrender":
            out.extend(
                Surrender(dec.seat, flag, dec.hand, view.version).to_dict()
                for flag in (False, True)
            )
        else:
            out.extend(
                ClaimNatural(dec.seat, flag, dec.hand, view.version).to_dict()
                for flag in (True, False)
            )
    return out, count


def act_message(view: View, msg_id: int, deadline: float) -> dict[str, Any]:
    """The ``act`` message for ``view`` (see docs/bot-protocol.md)."""
    legal, count = legal_for_view(view)
    return {
        "type": "act",
        "id": msg_id,
        "deadline_ms": round(deadline * 1000),
        "view": view.to_dict(),
        "legal": legal,
        "legal_count": count,
    }


def hello_message(
    rules: Rules, players: Sequence[str], seat: int | None, player: str | None, deadline: float
) -> dict[str, Any]:
    """The ``hello`` message: the protocol's version, the rules, the seat, the deadline
    per decision (the same whether the engine runs the bot or a server seats it)."""
    return {
        "type": "hello",
        "protocol": PROTOCOL_VERSION,
        "engine": f"chinese-poker {__version__}",
        "rules": rules.to_dict(),
        "players": list(players),
        "seat": seat,
        "player": player,
        "deadline_ms": round(deadline * 1000),
    }


def result_message(view: View, hand: int | None, over: bool) -> dict[str, Any]:
    """The ``result`` message after a hand: its totals and the seat's final view."""
    return {
        "type": "result",
        "hand": hand,
        "session_over": over,
        "totals": view.totals,
        "view": view.to_dict(),
    }


def check_against_view(view: View, action: Action) -> str | None:
    """Why ``action`` is not a legal answer to ``view``, or None (the view's own check).

    A bot must act for its own seat, on one of its open decisions, with the view's
    version (or none); a :class:`Timeout` is the host's action, never a bot's.
    """
    if isinstance(action, Timeout):
        return "a bot may not send a timeout action (that is the host's)"
    if action.seat != view.seat:
        return f"it acted for seat {action.seat}, but it plays seat {view.seat}"
    if action.version is not None and action.version != view.version:
        return f"the action is for version {action.version}, the view is at {view.version}"
    for dec in view.decisions:
        if dec.hand != action.hand:
            continue
        if isinstance(action, Place):
            if not dec.is_placement:
                return f"it must decide {dec.kind!r} now, not place cards"
            return check_placement(dec, action)
        if isinstance(action, Surrender):
            ok = dec.kind == "surrender"
            return None if ok else f"it must decide {dec.kind!r}, not surrender"
        ok = dec.kind == "natural"
        return None if ok else f"it must decide {dec.kind!r}, not a natural"
    return f"hand {action.hand} has nothing to decide now"


class _BadAnswer(Exception):
    """A bot's answer that cannot be used; the message says why."""


class _Dead(Exception):
    """The bot's program is not running."""


_LIVE: weakref.WeakSet[ExternalBot] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for bot in list(_LIVE):
        bot.close()


def close_all_external_bots() -> None:
    """Stop every external bot program this process started (also run at exit)."""
    _close_all()


def _default_warn(message: str) -> None:
    print(f"chinese-poker: warning: {message}", file=sys.stderr, flush=True)


class ExternalBot:
    """An agent whose decisions come from another program speaking the bot protocol.

    ``command`` is split like a shell would (``shlex``) and run without a shell. The
    program is started lazily (on :meth:`new_session` or the first :meth:`act`) and
    answers ``hello`` within ``startup_timeout`` seconds. Each decision must be
    answered within ``deadline`` seconds (default: ``rules.time_limit``, else
    :data:`DEFAULT_DEADLINE`).

    Whenever the bot fails -- invalid JSON, an illegal or malformed action, a crash, the
    end of its output, no answer in time -- a warning naming the bot and the problem goes
    to ``warn`` (standard error by default; at most :data:`MAX_WARNINGS` per bot),
    :attr:`problems` counts it, and :meth:`act` returns ``Timeout(seat)``: the engine
    plays the rest of the seat's hand by RULES §10. A program that died is started again
    at the next session, at most :data:`MAX_STARTS` times in all. :meth:`close` (also a
    context manager, and at interpreter exit) sends ``quit`` and terminates the program
    if it does not stop by itself.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        label: str | None = None,
        deadline: float | None = None,
        startup_timeout: float = STARTUP_TIMEOUT,
        warn: Callable[[str], None] | None = None,
        max_starts: int = MAX_STARTS,
    ) -> None:
        text = command if isinstance(command, str) else shlex.join(command)
        problem = command_problem(command)
        if problem is not None:
            raise ValueError(f"cannot start bot 'cmd:{text}': {problem}")
        self.argv: list[str] = shlex.split(command) if isinstance(command, str) else list(command)
        self.label = label or f"cmd:{text}"
        self.name = self.label
        self.deadline = deadline
        self.startup_timeout = startup_timeout
        self.max_starts = max_starts
        self.problems = 0
        self.warnings = 0
        self.bot_name: str | None = None
        self._warn = warn or _default_warn
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._outbox: queue.Queue[str | None] = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._next_id = 0
        self._starts = 0
        self._gave_up = False
        self._dead_reason: str | None = None
        self._quiet_dead = False
        _LIVE.add(self)

    # ------------------------------------------------------------------ lifecycle

    @property
    def running(self) -> bool:
        """True while the program runs and answered ``hello``."""
        return self._proc is not None and self._dead_reason is None

    def __enter__(self) -> ExternalBot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _report(
        self, seat: int | None, problem: str, consequence: str, *, count: bool = True
    ) -> None:
        if count:
            self.problems += 1
        if self._quiet_dead:
            return
        self.warnings += 1
        where = f" at seat {seat}" if seat is not None else ""
        if self.warnings <= MAX_WARNINGS:
            self._warn(f"bot {self.label}{where}: {problem}; {consequence}")
            if self.warnings == MAX_WARNINGS:
                self._warn(f"bot {self.label}: further problems are counted but not shown")

    def _start(self, rules: Rules, players: Sequence[str], seat: int, player: str) -> bool:
        """Start the program and shake hands; False (reported) if that fails."""
        if self._gave_up:
            return False
        if self._starts >= self.max_starts:
            self._gave_up = True
            self._quiet_dead = True
            self._warn(
                f"bot {self.label}: gave up after {self._starts} start(s); its seat is"
                " auto-played from now on"
            )
            return False
        self._starts += 1
        self._kill()
        self._lines = queue.Queue()
        self._outbox = queue.Queue()
        self._dead_reason = None
        try:
            proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
            )
        except OSError as exc:
            self._dead_reason = f"cannot start ({exc})"
            self._report(seat, self._dead_reason, "its seat is auto-played", count=False)
            self._quiet_dead = True
            return False
        self._proc = proc
        assert proc.stdout is not None and proc.stdin is not None
        reader = threading.Thread(
            target=_read_lines, args=(proc.stdout, self._lines), daemon=True, name="bot-reader"
        )
        writer = threading.Thread(
            target=_write_lines, args=(proc.stdin, self._outbox), daemon=True, name="bot-writer"
        )
        reader.start()
        writer.start()
        self._threads = [reader, writer]
        self._send(hello_message(rules, players, seat, player, self._deadline(rules)))
        try:
            answer = self._receive(None, self.startup_timeout)
            if answer.get("type") != "ready":
                raise _BadAnswer(f"expected a 'ready' answer to hello, got {_short(answer)}")
            version = answer.get("protocol", PROTOCOL_VERSION)
            if version != PROTOCOL_VERSION:
                raise _BadAnswer(
                    f"it speaks protocol {version!r}; this engine speaks {PROTOCOL_VERSION}"
                )
            name = answer.get("name")
            self.bot_name = name if isinstance(name, str) else None
        except (_BadAnswer, _Dead) as exc:
            self._dead_reason = str(exc)
            self._report(seat, f"failed to start: {exc}", "its seat is auto-played", count=False)
            self._quiet_dead = True
            self._kill()
            return False
        self._quiet_dead = False
        return True

    def _deadline(self, rules: Rules | None) -> float:
        if self.deadline is not None:
            return self.deadline
        if rules is not None and rules.time_limit is not None:
            return float(rules.time_limit)
        return DEFAULT_DEADLINE

    def new_session(
        self,
        rules: Rules,
        players: Sequence[str],
        seat: int,
        *,
        seed: int | None = None,
        session: int | None = None,
    ) -> None:
        """Tell the bot a new session starts (starting the program if it is not running)."""
        player = players[seat]
        if not self.running and not self._start(rules, players, seat, player):
            return
        self._send(
            {
                "type": "new_session",
                "rules": rules.to_dict(),
                "players": list(players),
                "seat": seat,
                "player": player,
                "seed": seed,
                "session": session,
            }
        )

    def hand_over(self, view: View, *, hand: int | None = None, over: bool = False) -> None:
        """Send the ``result`` of a finished hand (the seat's final view)."""
        if not self.running:
            return
        self._send(result_message(view, hand, over))

    def close(self) -> None:
        """Send ``quit`` and make sure the program ends (terminate, then kill)."""
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            self._send({"type": "quit"})
        self._outbox.put(None)
        try:
            proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            self._kill()
        self._kill()

    def _kill(self) -> None:
        proc = self._proc
        if proc is None:
            return
        self._proc = None
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=5.0)
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()
        self._outbox.put(None)
        for thread in self._threads:
            thread.join(timeout=1.0)
        self._threads = []

    # ------------------------------------------------------------------ talking

    def _send(self, message: Mapping[str, Any]) -> None:
        self._outbox.put(json.dumps(message, separators=(",", ":")) + "\n")

    def _receive(self, msg_id: int | None, timeout: float) -> dict[str, Any]:
        """The next answer (a JSON object) within ``timeout`` seconds.

        Answers carrying another ``id`` are late answers to earlier questions: skipped.
        """
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise _BadAnswer(f"no answer within {timeout:g} s")
            try:
                # Short slices: a signal (Ctrl-C, SIGTERM) handled by Python in the main
                # thread is noticed promptly even if another thread received it.
                line = self._lines.get(timeout=min(left, _SLICE))
            except queue.Empty:
                continue
            if line is None:
                raise _Dead(self._exit_description())
            if line is _TOO_LONG:
                raise _BadAnswer(f"an answer longer than {MAX_LINE} characters")
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                raise _BadAnswer(f"invalid JSON: {_short(line.strip())}") from None
            if not isinstance(data, dict):
                raise _BadAnswer(f"an answer must be a JSON object, got {_short(data)}")
            answer_id = data.get("id")
            if msg_id is not None and answer_id is not None and answer_id != msg_id:
                continue  # a late answer to an earlier question
            return data

    def _exit_description(self) -> str:
        proc = self._proc
        if proc is None:
            return "the program is not running"
        try:
            code = proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return "it closed its output"
        return f"the program exited (status {code})"

    def _drain(self) -> None:
        """Drop lines that arrived after their question was given up (late answers)."""
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self._lines.put(None)
                return

    def act(self, view: View) -> Action:
        """Ask the program for the viewer's action; ``Timeout(seat)`` if it fails."""
        seat = view.seat
        if seat is None:
            raise ValueError("an external bot needs a seat's view, not a spectator's")
        timeout_action = Timeout(seat, version=view.version)
        if not self.running:
            if self._proc is None and self._dead_reason is None and not self._gave_up:
                player = view.player or view.players[seat]
                if not self._start(view.rules, view.players, seat, player):
                    self.problems += 1
                    return timeout_action
            else:
                why = self._dead_reason or "the program is not running"
                self._report(seat, why, "the seat times out (auto-played)")
                self._quiet_dead = True  # said once; later decisions are only counted
                return timeout_action
        deadline = self._deadline(view.rules)
        self._drain()
        self._next_id += 1
        msg_id = self._next_id
        self._send(act_message(view, msg_id, deadline))
        try:
            answer = self._receive(msg_id, deadline)
            action = _action_of(answer)
            if action.version is None:
                action = _with_version(action, view.version)
            problem = check_against_view(view, action)
            if problem is not None:
                raise _BadAnswer(f"illegal action ({action}): {problem}")
        except _Dead as exc:
            self._dead_reason = str(exc)
            self._report(seat, str(exc), "the seat times out (auto-played)")
            self._kill()
            return timeout_action
        except _BadAnswer as exc:
            self._report(seat, str(exc), "the seat times out (auto-played)")
            return timeout_action
        return action


def _action_of(answer: Mapping[str, Any]) -> Action:
    if answer.get("type") == "error" or "error" in answer:
        message = answer.get("message", answer.get("error"))
        raise _BadAnswer(f"the bot reported an error: {_short(message)}")
    if "action" not in answer:
        raise _BadAnswer(f"the answer has no 'action': {_short(answer)}")
    try:
        return action_from_dict(answer["action"])
    except (ValueError, TypeError, KeyError) as exc:
        raise _BadAnswer(f"malformed action ({exc})") from None


def _with_version(action: Action, version: int) -> Action:
    import dataclasses

    return dataclasses.replace(action, version=version)


def _short(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= 100 else text[:97] + "..."


_TOO_LONG = "\x00 a line over MAX_LINE\n"  # what the reader passes on for a line it skipped


def _read_lines(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    try:
        for line, complete in bounded_lines(stream, MAX_LINE):
            lines.put(line if complete else _TOO_LONG)
    except (OSError, ValueError):
        pass
    finally:
        lines.put(None)


def _write_lines(stream: IO[str], outbox: queue.Queue[str | None]) -> None:
    try:
        while True:
            line = outbox.get()
            if line is None:
                break
            stream.write(line)
            stream.flush()
    except (OSError, ValueError):
        pass
    finally:
        with contextlib.suppress(OSError, ValueError):
            stream.close()


# =========================================================================== the bot side


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _as_json(value: object) -> str:
    """A value as it was sent, shortened (strings in quotes), for messages."""
    return _short(json.dumps(value, default=str))


def _list_of(kind: type | tuple[type, ...]) -> Callable[[object], bool]:
    return lambda value: (
        isinstance(value, list)
        and all(isinstance(v, kind) and not isinstance(v, bool) for v in value)
    )


# The fields of a view (View.to_dict()): (required, what it must be, the check).
_VIEW_FIELDS: dict[str, tuple[bool, str, Callable[[object], bool]]] = {
    "players": (True, "a list of names", _list_of(str)),
    "rules": (True, "an object (Rules.to_dict())", lambda v: isinstance(v, dict)),
    "version": (True, "a whole number", _whole),
    "phase": (True, "a string", lambda v: isinstance(v, str)),
    "button": (True, "a whole number", _whole),
    "seat": (False, "a whole number or null", lambda v: v is None or _whole(v)),
    "player": (False, "a string or null", lambda v: v is None or isinstance(v, str)),
    "street": (False, "a whole number", _whole),
    "play_order": (False, "a list of whole numbers", _list_of(int)),
    "to_act": (False, "a list of whole numbers", _list_of(int)),
    "fantasyland": (False, "a list of whole numbers", _list_of(int)),
    "timed_out": (False, "a list of whole numbers", _list_of(int)),
    "boards": (False, "a list of objects", _list_of(dict)),
    "hand": (False, "a list of cards", _list_of(str)),
    "decisions": (False, "a list of objects", _list_of(dict)),
    "settlement": (False, "an object or null", lambda v: v is None or isinstance(v, dict)),
    "totals": (False, "an object or null", lambda v: v is None or isinstance(v, dict)),
}
_BOARD_KEYS = ("seat", "player")
_DECISION_KEYS = ("seat", "kind")


def view_from_dict(data: object) -> View:
    """Rebuild a :class:`View` from its ``to_dict()`` form (:meth:`View.from_dict`, for
    the bot side of the protocol). Anything else is a :class:`ValueError` that names the
    missing or wrong field.

    >>> view_from_dict({"players": ["A", "B"], "rules": {}, "version": 7})
    Traceback (most recent call last):
    ...
    ValueError: the view has no 'phase'
    >>> view_from_dict({"players": ["A"], "rules": {}, "version": "7", "phase": "play",
    ...                 "button": 0})
    Traceback (most recent call last):
    ...
    ValueError: the view's 'version' must be a whole number, not "7"
    """
    if not isinstance(data, Mapping):
        raise ValueError(f"a view must be a JSON object, not {_as_json(data)}")
    for key, (required, what, ok) in _VIEW_FIELDS.items():
        if key not in data:
            if required:
                raise ValueError(f"the view has no {key!r}")
            continue
        if not ok(data[key]):
            raise ValueError(f"the view's {key!r} must be {what}, not {_as_json(data[key])}")
    for field, keys in (("boards", _BOARD_KEYS), ("decisions", _DECISION_KEYS)):
        for number, item in enumerate(data.get(field, ())):
            for key in keys:
                if key not in item:
                    raise ValueError(f"the view's {field}[{number}] has no {key!r}")
    try:
        return View.from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        problem = f"no {exc.args[0]!r}" if isinstance(exc, KeyError) and exc.args else exc
        raise ValueError(f"the view is not valid: {problem}") from None


def build_bot(name: str, seed: int | None = None, level: int | None = None) -> Agent:
    """A bot of :data:`chinese_poker.ai.REGISTRY` by name (looked up now).

    ``level`` is passed to bots that take a level; for others it is an error.

    >>> build_bot("random", seed=1).name
    'random'
    """
    key = name.strip().lower()
    kind = REGISTRY.get(key)
    if kind is None:
        raise ValueError(f"unknown bot {name!r}; bots: {', '.join(sorted(REGISTRY))}")
    if level is None:
        agent: Agent = kind.build(seed=seed)
        return agent
    if not kind.takes_level:
        raise ValueError(f"bot {key!r} has no levels")
    leveled: Agent = kind.build(seed=seed, level=level)
    return leveled


MESSAGE_TYPES = ("hello", "new_session", "act", "result", "quit")
"""The engine's message types; a bot ignores types it does not know (newer engines)."""


def message_problem(msg: Mapping[str, Any]) -> str | None:
    """What is wrong with an engine message in the fields a bot reads, naming the field
    (None: nothing); an ``act``'s view is checked as :func:`view_from_dict` rebuilds it.
    Fields a bot does not read (``result``'s, ``legal``, ``deadline_ms``) are not checked.

    >>> message_problem({"type": "act", "id": 3})
    "act has no 'view'"
    >>> print(message_problem({"type": "new_session", "seed": "x"}))
    new_session: 'seed' must be a whole number or null, not "x"
    """
    kind = msg.get("type")
    if not isinstance(kind, str):
        have = "no 'type'" if kind is None else f"a 'type' that is not a string ({_as_json(kind)})"
        return f"the message has {have}; the types are {', '.join(MESSAGE_TYPES)}"
    if kind == "hello":
        if "protocol" not in msg:
            return f"hello has no 'protocol' (this bot speaks {PROTOCOL_VERSION})"
        if msg["protocol"] != PROTOCOL_VERSION:
            return (
                f"unsupported protocol {_as_json(msg['protocol'])}; this bot speaks"
                f" {PROTOCOL_VERSION}"
            )
        return _rules_problem("hello", msg.get("rules"))
    if kind == "new_session":
        seed = msg.get("seed")
        if seed is not None and not _whole(seed):
            return f"new_session: 'seed' must be a whole number or null, not {_as_json(seed)}"
        return None
    if kind == "act":
        for key in ("id", "view"):
            if key not in msg:
                return f"act has no {key!r}"
        if not _whole(msg["id"]):
            return f"act: 'id' must be a whole number, not {_as_json(msg['id'])}"
        if not isinstance(msg["view"], dict):
            return f"act: 'view' must be an object (View.to_dict()), not {_as_json(msg['view'])}"
        return None  # the view itself: view_from_dict
    return None


def _rules_problem(kind: str, data: object) -> str | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        return f"{kind}: 'rules' must be an object (Rules.to_dict()), not {_as_json(data)}"
    try:
        Rules.from_dict(data)
    except (ValueError, TypeError, KeyError) as exc:
        return f"{kind}: 'rules' are not valid rules: {exc}"
    return None


def bounded_lines(stream: IO[str], limit: int) -> Iterator[tuple[str, bool]]:
    """The lines of ``stream``, each with whether it is whole: a line longer than
    ``limit`` characters is not read into memory but skipped (``("", False)``)."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) <= limit or line.endswith("\n"):
            yield line, True
            continue
        while line and not line.endswith("\n"):  # the rest of the long line
            line = stream.readline(1024 * 1024)
        yield "", False


def serve(
    bot: str = "rules",
    *,
    seed: int | None = None,
    level: int | None = None,
    rules: Rules | None = None,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
) -> int:
    """Serve the registered bot ``bot`` over the protocol until ``quit`` or end of input.

    With ``seed`` the bot is seeded once; without it, it is re-created at every
    ``new_session`` with the seed the engine sends (so a simulation is reproducible).
    ``rules`` are only a fallback for an engine that sends none (the views carry the
    table's rules). A malformed message (:func:`message_problem`, :func:`view_from_dict`,
    a line over :data:`MAX_LINE`) is answered with ``{"type": "error"}`` naming the field,
    and the bot reads on. Returns the exit status (0).
    """
    src = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout
    agent = build_bot(bot, seed, level)  # fails early on an unknown bot or level

    def send(message: Mapping[str, Any]) -> None:
        out.write(json.dumps(message, separators=(",", ":")) + "\n")
        out.flush()

    def refuse(msg_id: object, message: str) -> None:
        ref = msg_id if _whole(msg_id) or isinstance(msg_id, str) else None
        send({"type": "error", "id": ref, "message": message})

    for line, complete in bounded_lines(src, MAX_LINE):
        if not complete:
            refuse(None, f"a message may have at most {MAX_LINE} characters; this one was skipped")
            continue
        line = line.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except json.JSONDecodeError as exc:
            refuse(None, f"invalid JSON from the engine: {exc.msg} (column {exc.colno})")
            continue
        if not isinstance(msg, dict):
            refuse(None, f"a message must be a JSON object, not {_as_json(msg)}")
            continue
        problem = message_problem(msg)
        if problem is not None:
            refuse(msg.get("id"), problem)
            continue
        kind = msg["type"]
        if kind == "hello":
            if rules is None and msg.get("rules") is not None:
                rules = Rules.from_dict(msg["rules"])  # checked by message_problem
            send(
                {
                    "type": "ready",
                    "protocol": PROTOCOL_VERSION,
                    "name": f"chinese-poker {bot}",
                    "engine": f"chinese-poker {__version__}",
                }
            )
        elif kind == "new_session":
            session_seed = msg.get("seed")
            if seed is None and session_seed is not None:
                agent = build_bot(bot, session_seed, level)
        elif kind == "act":
            msg_id = msg["id"]
            try:
                view = view_from_dict(msg["view"])
            except ValueError as exc:
                refuse(msg_id, f"act: {exc}")
                continue
            try:
                action = agent.act(view)
            except Exception as exc:  # report and go on: the engine applies the timeout rule
                refuse(msg_id, f"the bot failed on this view: {type(exc).__name__}: {exc}")
                continue
            send({"type": "action", "id": msg_id, "action": action.to_dict()})
        elif kind == "quit":
            break
        # "result" and unknown types (newer engines) need no answer.
    return 0
