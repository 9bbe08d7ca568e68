"""Hand histories: one JSON object per line, and replays that check them.

A hand is fully determined by its rules, its deck (or the seed that shuffles it) and its
actions. Each line records those, plus what came of them (the final boards, discards,
totals, the settlement and, in a session, the ledger), so a replay can recompute and
compare everything. The format is documented in ``docs/hand-history.md``.

>>> import random, tempfile, os
>>> from chinese_poker.rules import rules_for
>>> from chinese_poker.engine.table import Table
>>> table = Table(rules_for("turbo"), 3, seed=5)
>>> rng = random.Random(2)
>>> while not table.over:
...     table.apply(table.random_action(table.to_act[0], rng))
>>> path = os.path.join(tempfile.mkdtemp(), "hands.jsonl")
>>> write_history(path, [table])
>>> [r.totals == table.totals for r in replay_history(read_history(path))]
[True]
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chinese_poker.cards import Card, CardError, cards_str, parse_card
from chinese_poker.engine.actions import Action, IllegalActionError, action_from_dict
from chinese_poker.engine.table import Table, TableError, shuffled_deck
from chinese_poker.rules import Rules, RulesError

if TYPE_CHECKING:
    from chinese_poker.engine.session import HandResult, Session

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "HandToReplay",
    "HistoryError",
    "ReplayClock",
    "ReplayMismatch",
    "ReplayedHand",
    "apply_actions",
    "hand_record",
    "parse_history",
    "read_history",
    "replay_hand",
    "replay_history",
    "table_from_record",
    "write_history",
]

FORMAT = "chinese-poker-hand"
FORMAT_VERSION = 1


class HistoryError(ValueError):
    """A history file or record that cannot be read (``index``: which record, from 1)."""

    index: int | None = None


class ReplayMismatch(HistoryError):
    """Replaying a recorded hand gave a different result from the one recorded."""


@dataclass(frozen=True, slots=True)
class ReplayedHand:
    """A hand that replayed exactly as recorded."""

    index: int
    players: tuple[str, ...]
    boards: dict[str, str]
    totals: dict[str, int]
    session_hand: int | None
    ledger: dict[str, Any] | None
    record: dict[str, Any]


# --------------------------------------------------------------------------- writing


def hand_record(table: Table, *, session: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The history line of a finished hand (``session``: the session block, if any)."""
    if not table.over or table.settlement is None:
        raise HistoryError("only a finished hand (after the showdown) can be recorded")
    boxes = [(seat, hand) for seat in range(table.n_seats) for hand in range(_hands(table))]
    names = table.players
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "rules": table.rules.to_dict(),
        "players": list(names),
        "button": table.button,
        "seed": table.seed,
        "deck": cards_str(table.deck).split(),
        "fantasyland": {names[s]: c for s, c in table.fantasyland.items()},
        "auto_play": [names[s] for s in sorted(table.auto_play)],
        "actions": [entry.to_dict() for entry in table.log],
        "boards": {table.hand_name(s, h): str(table.board(s, h)) for s, h in boxes},
        "discards": {
            table.hand_name(s, h): cards_str(table.discards(s, h)).split() for s, h in boxes
        },
        "totals": dict(table.totals),
        "fantasyland_qualified": {names[s]: c for s, c in table.fantasyland_next.items()},
        "settlement": table.settlement.to_dict(),
        "session": dict(session) if session is not None else None,
    }


def _hands(table: Table) -> int:
    return 2 if table.rules.spec.variant.criss_cross else 1


def write_history(
    path: str | Path,
    hands: Iterable[Table | HandResult | Mapping[str, Any]],
    *,
    append: bool = False,
) -> None:
    """Write hands (finished tables, session results or records), one JSON line each."""
    with open(path, "a" if append else "w", encoding="utf-8") as out:
        for hand in hands:
            out.write(json.dumps(_as_record(hand), separators=(",", ":")) + "\n")


def _as_record(hand: Table | HandResult | Mapping[str, Any]) -> Mapping[str, Any]:
    if isinstance(hand, Table):
        return hand_record(hand)
    if isinstance(hand, Mapping):
        return hand
    return hand.record


# --------------------------------------------------------------------------- reading


def read_history(path: str | Path) -> list[dict[str, Any]]:
    """Read a history file: one record per non-blank line, format and version checked."""
    with open(path, encoding="utf-8") as src:
        return parse_history(src, str(path))


def parse_history(lines: Iterable[str], source: str) -> list[dict[str, Any]]:
    """The records of a history's lines; errors name ``source`` and the line number.

    >>> parse_history(["", "{"], "standard input")
    Traceback (most recent call last):
    ...
    chinese_poker.engine.history.HistoryError: standard input:2: not valid JSON (...)
    """
    records: list[dict[str, Any]] = []
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise HistoryError(f"{source}:{lineno}: not valid JSON ({exc.msg})") from None
        _check_record(data, f"{source}:{lineno}")
        records.append(data)
    if not records:
        raise HistoryError(f"{source}: no hands in the file")
    return records


_REQUIRED = ("rules", "players", "button", "deck", "actions", "boards", "totals")


def _check_record(data: object, where: str) -> None:
    if not isinstance(data, dict):
        raise HistoryError(f"{where}: a hand record must be a JSON object")
    if data.get("format") != FORMAT:
        raise HistoryError(
            f"{where}: not a chinese-poker hand record (format {data.get('format')!r},"
            f" expected {FORMAT!r})"
        )
    version = data.get("format_version")
    if version != FORMAT_VERSION:
        raise HistoryError(
            f"{where}: hand-history format version {version!r} is not supported"
            f" (this version reads {FORMAT_VERSION})"
        )
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        raise HistoryError(f"{where}: the record lacks {', '.join(missing)}")


# --------------------------------------------------------------------------- replaying


class ReplayClock:
    """A session clock that can be pinned to recorded times.

    Reads ``fixed`` while it is set, the ``live`` source (default ``time.time``)
    otherwise. A replay pins it to each hand's recorded finish time, so that a
    tournament's levels by time come out as they did.
    """

    def __init__(self, live: Callable[[], float] = time.time) -> None:
        self.fixed: float | None = None
        self._live = live

    def __call__(self) -> float:
        return self.fixed if self.fixed is not None else self._live()

    @contextmanager
    def pinned(self, when: float | None) -> Iterator[None]:
        """Read ``when`` (if not None) until the block ends."""
        before = self.fixed
        if when is not None:
            self.fixed = when
        try:
            yield
        finally:
            self.fixed = before


@dataclass(frozen=True, slots=True)
class HandToReplay:
    """What replaying one hand of a session needs.

    ``actions``: the applied actions (``to_dict()`` forms; ``auto`` ones are skipped and
    made again by the engine). ``deck``: the stacked deck, or None for the session's own
    shuffle. ``finished_at``: the clock reading when the hand was settled (None: the
    clock as it is). ``where`` names the hand in error messages. ``ended``: a player
    asked for the session to end during this hand (:meth:`Session.end`).
    """

    actions: Sequence[Mapping[str, Any]]
    deck: Sequence[Card] | None = None
    finished_at: float | None = None
    where: str = "hand"
    ended: bool = False


def replay_hand(
    session: Session, hand: HandToReplay, clock: ReplayClock | None = None
) -> tuple[Table, HandResult | None]:
    """Deal ``session``'s next hand and apply ``hand``'s actions: the one replay.

    The server's rebuild after a restart, :func:`replay_history` (``chinese-poker
    replay``) and the fair-shuffle verifier (``chinese-poker verify``) all replay hands
    through this function. A hand whose actions reach the showdown is settled into the
    session (at ``hand.finished_at`` on ``clock``) and its :class:`HandResult` returned;
    otherwise the result is None and the hand stays open (a hand in progress).
    Raises :class:`HistoryError` if the hand cannot be dealt and :class:`ReplayMismatch`
    for an action the engine refuses; the session is then unusable.
    """
    from chinese_poker.engine.session import SessionError

    try:
        table = session.start_hand(deck=hand.deck)
    except (SessionError, TableError) as exc:
        raise HistoryError(f"{hand.where}: cannot deal the hand: {exc}") from None
    if hand.ended:
        session.end()
    apply_actions(table, hand.actions, hand.where)
    if not table.over:
        return table, None
    if clock is None:
        return table, session.finish_hand()
    with clock.pinned(hand.finished_at):
        return table, session.finish_hand()


def apply_actions(table: Table, actions: object, where: str) -> None:
    """Apply recorded actions to ``table`` in order (``auto`` ones are the engine's)."""
    if not isinstance(actions, list | tuple):
        raise HistoryError(f"{where}: 'actions' must be a list")
    for i, data in enumerate(actions, 1):
        if not isinstance(data, Mapping):
            raise HistoryError(f"{where}, action {i}: an action must be an object")
        if data.get("auto"):
            continue
        try:
            action: Action = action_from_dict(data)
        except ValueError as exc:
            raise HistoryError(f"{where}, action {i}: {exc}") from None
        try:
            table.apply(action)
        except IllegalActionError as exc:
            raise ReplayMismatch(
                f"{where}, action {i} ({action}): illegal on replay: {exc}"
            ) from None


def replay_history(
    records: Sequence[Mapping[str, Any]], *, partial_sessions: bool = False
) -> list[ReplayedHand]:
    """Replay every record and check it; raise :class:`ReplayMismatch` on a difference.

    Records of a session (``session`` set) are replayed through a rebuilt
    :class:`~chinese_poker.engine.session.Session`, so buttons, Fantasyland deals,
    timeouts and the ledger are checked too; a session must start at its hand 1,
    unless ``partial_sessions``: then a session's hand whose earlier hands are not in
    ``records`` is replayed on its own (its recorded players, button, Fantasyland deals
    and auto-played seats), and everything but its session block is checked.
    The error's :attr:`HistoryError.index` is the 1-based record it is about.
    """
    out: list[ReplayedHand] = []
    session: Session | None = None
    clock = ReplayClock(lambda: 0.0)
    for index, rec in enumerate(records, 1):
        try:
            session, replayed = _replay_record(rec, index, session, clock, partial_sessions)
        except HistoryError as exc:
            exc.index = index
            raise
        out.append(replayed)
    return out


def _replay_record(
    rec: Mapping[str, Any],
    index: int,
    session: Session | None,
    clock: ReplayClock,
    partial_sessions: bool,
) -> tuple[Session | None, ReplayedHand]:
    where = f"hand {index}"
    _check_record(rec, where)
    block = rec.get("session")
    if block is None:
        table = _replay_lone(rec, where, compare=True)
        return None, _replayed(index, rec, table, None)
    if not isinstance(block, Mapping):
        raise HistoryError(f"{where}: 'session' must be an object or null")
    number = block.get("hand")
    if number == 1 or session is None or _header(session) != _header_of(block):
        if number != 1:
            if partial_sessions:
                return None, _replayed(index, rec, _replay_lone(rec, where, compare=True), None)
            raise HistoryError(
                f"{where}: session hand {number!r} without the session's earlier hands"
                " (a session replays from its hand 1)"
            )
        session = _new_session(rec, block, where, clock)
    elif number != session.hands_played + 1:
        raise HistoryError(f"{where}: session hand {number!r} follows hand {session.hands_played}")
    if session.rules != _rules(rec, where):
        raise ReplayMismatch(f"{where}: the rules differ from the session's first hand")
    seed = rec.get("seed")
    deck = None if seed is not None else _deck(rec, where)
    elapsed = block.get("elapsed")
    finished_at = float(elapsed) if isinstance(elapsed, int | float) else 0.0
    table, result = replay_hand(
        session,
        HandToReplay(rec["actions"], deck, finished_at, where, block.get("ended") is True),
        clock,
    )
    if seed is not None and table.seed != seed:
        raise ReplayMismatch(
            f"{where}: the session's seed gives hand seed {table.seed}, the history says {seed}"
        )
    _check_setup(rec, where, table)
    if result is None:
        raise _unfinished(where, table)
    _compare(where, _jsonable(result.record), rec)
    return session, _replayed(index, rec, table, result.ledger.to_dict())


def _header(session: Session) -> dict[str, Any]:
    return _jsonable(session.header())


def _header_of(block: Mapping[str, Any]) -> dict[str, Any]:
    keys = (
        "kind",
        "seed",
        "players",
        "start_button",
        "units",
        "starting_stacks",
        "level_hands",
        "continuous",
    )
    return {k: block[k] for k in keys if k in block}


def _new_session(
    rec: Mapping[str, Any], block: Mapping[str, Any], where: str, clock: ReplayClock
) -> Session:
    from chinese_poker.engine.session import Session, SessionError

    rules = _rules(rec, where)
    try:
        units = {(a, b): float(u) for a, b, u in block.get("units", [])}
        tournament = block.get("kind") == "tournament"
        with clock.pinned(0.0):
            session = Session(
                rules,
                list(block["players"]),
                seed=block["seed"],
                button=block["start_button"],
                units=units or None,
                tournament=tournament,
                stacks=block.get("starting_stacks") if tournament else None,
                level_hands=block.get("level_hands"),
                clock=clock,
                continuous=block.get("continuous", False),
            )
    except (KeyError, TypeError, ValueError, SessionError) as exc:
        raise HistoryError(f"{where}: bad session block ({exc})") from None
    return session


def _rules(rec: Mapping[str, Any], where: str) -> Rules:
    try:
        return Rules.from_dict(rec["rules"])
    except (RulesError, TypeError, ValueError) as exc:
        raise HistoryError(f"{where}: bad rules: {exc}") from None


def _deck(rec: Mapping[str, Any], where: str) -> tuple[int, ...]:
    deck = rec["deck"]
    if not isinstance(deck, list):
        raise HistoryError(f"{where}: 'deck' must be a list of cards")
    try:
        return tuple(parse_card(str(c)) for c in deck)
    except CardError as exc:
        raise HistoryError(f"{where}: bad deck: {exc}") from None


def _replay_lone(rec: Mapping[str, Any], where: str, *, compare: bool) -> Table:
    """A record replayed on a fresh table set up from its own fields."""
    table = table_from_record(rec, where)
    apply_actions(table, rec["actions"], where)
    if not table.over:
        raise _unfinished(where, table)
    if compare:
        replayed = _jsonable(hand_record(table))
        if rec.get("session") is not None:  # a session's hand replayed on its own
            replayed["session"] = rec.get("session")
        _compare(where, replayed, rec)
    return table


def table_from_record(rec: Mapping[str, Any], where: str = "hand") -> Table:
    """A fresh table dealt as the record's hand was (its rules, players, button, deck
    or seed, Fantasyland deals and auto-played seats), before any action: what a
    review steps through. Raises :class:`HistoryError` naming ``where``."""
    _check_record(rec, where)
    rules = _rules(rec, where)
    deck = _deck(rec, where)
    seed = rec.get("seed")
    players = rec["players"]
    if not isinstance(players, list):
        raise HistoryError(f"{where}: 'players' must be a list of names")
    fl = rec.get("fantasyland") or {}
    auto = rec.get("auto_play") or []
    try:
        fl_seats = {players.index(name): cards for name, cards in fl.items()}
        auto_seats = [players.index(name) for name in auto]
        table = Table(
            rules,
            players,
            button=rec["button"],
            seed=seed,
            deck=None if seed is not None else deck,
            fantasyland=fl_seats,
            auto_play=auto_seats,
        )
    except (TableError, ValueError, TypeError, AttributeError) as exc:
        raise HistoryError(f"{where}: cannot set up the table: {exc}") from None
    _check_setup(rec, where, table)
    return table


def _check_setup(rec: Mapping[str, Any], where: str, table: Table) -> None:
    seed = rec.get("seed")
    if seed is not None and shuffled_deck(seed)[: len(rec["deck"])] != _deck(rec, where):
        raise ReplayMismatch(f"{where}: seed {seed} does not produce the recorded deck")
    got = {
        "players": list(table.players),
        "button": table.button,
        "fantasyland": {table.players[s]: c for s, c in table.fantasyland.items()},
        "auto_play": [table.players[s] for s in sorted(table.auto_play)],
    }
    for key, value in got.items():
        recorded = rec.get(key, {} if key == "fantasyland" else [])
        if value != recorded:
            raise ReplayMismatch(
                f"{where}: {key} differ: the history has {recorded!r}, the replay {value!r}"
            )


def _unfinished(where: str, table: Table) -> ReplayMismatch:
    return ReplayMismatch(
        f"{where}: the recorded actions end before the showdown"
        f" (still to act: {', '.join(map(str, table.to_act))})"
    )


def _replayed(
    index: int, rec: Mapping[str, Any], table: Table, ledger: dict[str, Any] | None
) -> ReplayedHand:
    block = rec.get("session")
    return ReplayedHand(
        index=index,
        players=table.players,
        boards={k: str(v) for k, v in _jsonable(hand_record(table))["boards"].items()},
        totals=dict(table.totals),
        session_hand=block.get("hand") if isinstance(block, Mapping) else None,
        ledger=ledger,
        record=dict(rec),
    )


def _jsonable(data: Mapping[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(json.dumps(data))
    return result


# Checked first, so that the message names the most telling difference.
_ORDER = (
    "actions",
    "boards",
    "discards",
    "totals",
    "fantasyland_qualified",
    "settlement",
    "session",
)


def _compare(where: str, replayed: Mapping[str, Any], recorded: Mapping[str, Any]) -> None:
    # Only what the engine writes is checked: hosts may add fields of their own (the
    # server's "fairness" block), which readers ignore (docs/hand-history.md).
    keys = [k for k in _ORDER if k in replayed] + sorted(replayed)
    seen: set[str] = set()
    for key in keys:
        if key in seen:
            continue
        seen.add(key)
        a, b = recorded.get(key), replayed.get(key)
        if key == "settlement":
            b = _as_written_then(b, a)
        if a != b:
            raise ReplayMismatch(f"{where}: {_difference(key, a, b)}")


# Fields the scorer added to a settlement's players after histories were first written;
# each is derived from the rest (the foul reason as data), so an older history that lacks
# one is still checked on everything it has. A present field is compared as any other.
_ADDED_PLAYER_FIELDS = ("foul",)


def _as_written_then(replayed: Any, recorded: Any) -> Any:
    if not (isinstance(replayed, dict) and isinstance(recorded, dict)):
        return replayed
    mine, theirs = replayed.get("players"), recorded.get("players")
    if not (isinstance(mine, list) and isinstance(theirs, list)):
        return replayed
    players = [
        {k: v for k, v in p.items() if k not in _ADDED_PLAYER_FIELDS or k in q}
        if isinstance(p, dict) and isinstance(q, dict)
        else p
        for p, q in zip(mine, theirs, strict=False)
    ] + mine[len(theirs) :]
    return {**replayed, "players": players}


def _difference(path: str, recorded: Any, replayed: Any) -> str:
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for key in list(recorded) + [k for k in replayed if k not in recorded]:
            if recorded.get(key) != replayed.get(key):
                return _difference(f"{path}.{key}", recorded.get(key), replayed.get(key))
    if isinstance(recorded, list) and isinstance(replayed, list):
        for i, (x, y) in enumerate(zip(recorded, replayed, strict=False)):
            if x != y:
                return _difference(f"{path}[{i}]", x, y)
        if len(recorded) != len(replayed):
            return (
                f"{path} differs: the history has {len(recorded)} entries,"
                f" the replay {len(replayed)}"
            )
    return (
        f"{path} differs: the history has {_short(recorded)}, the replay gives {_short(replayed)}"
    )


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 120 else text[:117] + "..."
