"""Sessions and tournaments: the button orbit, Fantasyland carry-over, the ledger (§9, §10).

A :class:`Session` runs hands one after another at one table:

* the button moves one seat clockwise after each hand, except before a Fantasyland hand
  (unless ``button_moves_before_fl_hand``);
* a session has as many hands as players plus one per Fantasyland hand, and ends after
  the last one once no Fantasyland hand is pending; a *continuous* session
  (``continuous=True``, the casual tables' "hand after hand") has no fixed count and
  ends only when :meth:`Session.end` is called (a player leaves): at once between hands,
  after the hand being played otherwise (docs/rules-decisions.md);
* Fantasyland entry and staying come from the scorer; this module applies the limits
  (``fl_max_consecutive``, ``fl_repeat_limit_scope``: they limit stays, never entries)
  and deals the right card counts;
* points are kept per pair of players and turned into money at per-pair unit values;
* a timeout ends the session after the pending Fantasyland hands
  (``timeout_ends_session``), in which the timed-out player is auto-played or sits out
  (``timed_out_player_in_remaining_hands``).

A :class:`Tournament` is a session in chips: after every hand the points become chips at
the current level's value (levels rise every ``level_minutes`` by an injectable clock, or
every ``level_hands`` hands), a short stack pays all it has under
``insufficient_chips_rule`` and is out, and the match ends with one player left.

>>> import random
>>> from chinese_poker.rules import rules_for
>>> session = Session(rules_for("pineapple"), ["Ann", "Bob", "Cy"], seed=4)
>>> rng = random.Random(0)
>>> while not session.over:
...     table = session.start_hand()
...     while not table.over:
...         table.apply(table.random_action(table.to_act[0], rng))
...     result = session.finish_hand()
>>> len(session.results) >= 3, sum(session.ledger.points.values())
(True, 0)
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from chinese_poker.cards import Card
from chinese_poker.engine.actions import Action
from chinese_poker.engine.history import hand_record
from chinese_poker.engine.table import Table, TableError, new_seed, seat_names
from chinese_poker.engine.views import View
from chinese_poker.rules import InsufficientChipsRule, Rules, TimedOutPlayer
from chinese_poker.scoring import Settlement

__all__ = [
    "Agent",
    "HandResult",
    "Ledger",
    "Session",
    "SessionError",
    "Tournament",
    "hand_seed",
    "pay_chips",
    "play_hand",
    "play_session",
]


class SessionError(ValueError):
    """A session used out of order (no hand running, hand not finished, session over)."""


class Agent(Protocol):
    """Anything that picks an action from a view (the bots of :mod:`chinese_poker.ai`)."""

    def act(self, view: View) -> Action: ...


def play_hand(table: Table, agents: Sequence[Agent] | Mapping[int, Agent]) -> None:
    """Play ``table`` to the showdown, asking ``agents[seat]`` whenever a seat is to act.

    Seats acting at the same time (Fantasyland, classic sets) are asked in play order.
    """
    while not table.over:
        seat = table.to_act[0]
        table.apply(agents[seat].act(table.view(seat)))


def play_session(
    session: Session, agents: Mapping[str, Agent], *, max_hands: int | None = None
) -> list[HandResult]:
    """Play hands until the session is over; ``agents`` maps player names to agents."""
    played: list[HandResult] = []
    while not session.over and (max_hands is None or len(played) < max_hands):
        table = session.start_hand()
        play_hand(table, {seat: agents[name] for seat, name in enumerate(table.players)})
        played.append(session.finish_hand())
    return played


def hand_seed(session_seed: int, number: int) -> int:
    """The seed of hand ``number`` (1-based) of a session: 128 bits of BLAKE2b.

    >>> hand_seed(1, 1) == hand_seed(1, 1) != hand_seed(1, 2)
    True
    """
    digest = hashlib.blake2b(f"chinese-poker/{session_seed}/{number}".encode(), digest_size=16)
    return int.from_bytes(digest.digest(), "big")


# --------------------------------------------------------------------------- results


def _pair_key(a: str, b: str) -> str:
    return f"{a}|{b}"


@dataclass(frozen=True, slots=True)
class Ledger:
    """The running account of a session after some hand.

    ``points`` per player; ``pairs[(a, b)]`` what ``b`` has paid ``a`` in points (``a``
    seated before ``b``); ``money`` per player at the pairs' unit values. In a tournament
    ``stacks`` holds the chips and ``out`` the eliminated players, in order.
    """

    points: Mapping[str, int]
    pairs: Mapping[tuple[str, str], int]
    money: Mapping[str, float]
    stacks: Mapping[str, int] | None = None
    out: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "points": dict(self.points),
            "pairs": {_pair_key(a, b): p for (a, b), p in self.pairs.items()},
            "money": dict(self.money),
        }
        if self.stacks is not None:
            data["stacks"] = dict(self.stacks)
            data["out"] = list(self.out)
        return data


@dataclass(frozen=True, slots=True)
class HandResult:
    """One finished hand of a session.

    ``number`` is 1-based; ``players`` the seats of this hand (sit-outs excluded),
    ``button`` the button's player. ``fantasyland`` the Fantasyland deals of this hand,
    ``fantasyland_next`` those earned for the next one (limits applied). In a tournament
    ``level``, ``chips_per_point``, ``chips`` (the change per player) and ``eliminated``
    are set. ``record`` is the hand-history line (see :mod:`.history`).
    """

    number: int
    players: tuple[str, ...]
    button: str
    fantasyland: Mapping[str, int]
    settlement: Settlement
    totals: Mapping[str, int]
    fantasyland_next: Mapping[str, int]
    ledger: Ledger
    timed_out: tuple[str, ...] = ()
    level: int | None = None
    chips_per_point: int | None = None
    chips: Mapping[str, int] | None = None
    eliminated: tuple[str, ...] = ()
    record: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


# --------------------------------------------------------------------------- chips


def pay_chips(
    stacks: Mapping[str, int],
    owed: Mapping[tuple[str, str], int],
    rule: str = "proportional",
    order: Sequence[str] | None = None,
) -> dict[str, int]:
    """Chip changes after a tournament hand when some players cannot pay in full (§10).

    ``owed[(debtor, creditor)]`` is what the hand says the debtor pays. A player pays at
    most his stack plus what he receives in the hand; one who cannot pay in full pays
    exactly that, so he ends at 0 chips and is out. ``proportional``: every amount he
    owes is scaled by f = (stack + received) / (total owed), rounded down, and the chips
    the rounding leaves go one each to the largest remainders (ties: ``order``).
    ``seat_order``: he pays his creditors in ``order`` (play order) until his chips run
    out. Receipts and payments depend on each other, so the rule is applied until
    nothing changes.

    W17: P3 has 330 chips and owes 400 and 260; P2 owes P1 160.

    >>> pay_chips({"P1": 1000, "P2": 1000, "P3": 330},
    ...           {("P3", "P1"): 400, ("P3", "P2"): 260, ("P2", "P1"): 160})
    {'P1': 360, 'P2': -30, 'P3': -330}

    With 331 chips f is 331/660: 200.6 and 130.4 round down to 330, and the last chip
    goes to P1 (the larger remainder), so P3 still pays everything he has.

    >>> pay_chips({"P1": 1000, "P2": 1000, "P3": 331},
    ...           {("P3", "P1"): 400, ("P3", "P2"): 260, ("P2", "P1"): 160})
    {'P1': 361, 'P2': -30, 'P3': -331}
    """
    if rule not in tuple(InsufficientChipsRule):
        raise ValueError(f"unknown insufficient_chips_rule {rule!r}")
    players = list(stacks)
    seat_rank = {p: i for i, p in enumerate(order if order is not None else players)}
    total_owed = dict.fromkeys(players, 0)
    for (debtor, _creditor), amount in owed.items():
        if amount < 0:
            raise ValueError("owed amounts must be >= 0")
        total_owed[debtor] += amount
    paid = dict(owed)
    while True:
        received = dict.fromkeys(players, 0)
        for (_debtor, creditor), amount in paid.items():
            received[creditor] += amount
        new: dict[tuple[str, str], int] = {}
        for debtor in players:
            debts = sorted(
                ((c, a) for (d, c), a in owed.items() if d == debtor),
                key=lambda item: seat_rank.get(item[0], 0),
            )
            can_pay = stacks[debtor] + received[debtor]
            if can_pay >= total_owed[debtor]:
                shares = [a for _c, a in debts]
            elif rule == InsufficientChipsRule.PROPORTIONAL:
                shares = _proportional_shares([a for _c, a in debts], can_pay)
            else:
                shares = _seat_order_shares([a for _c, a in debts], can_pay)
            for (c, _a), share in zip(debts, shares, strict=True):
                new[(debtor, c)] = share
        if new == paid:
            break
        paid = new
    change = dict.fromkeys(players, 0)
    for (debtor, creditor), amount in paid.items():
        change[debtor] -= amount
        change[creditor] += amount
    return change


def _proportional_shares(amounts: Sequence[int], can_pay: int) -> list[int]:
    """``can_pay`` split in proportion to ``amounts``: rounded down, then the chips left
    one each to the largest remainders (ties: the first amount)."""
    total = sum(amounts)
    shares = [a * can_pay // total for a in amounts]
    remainders = sorted(range(len(amounts)), key=lambda i: -(amounts[i] * can_pay % total))
    for i in remainders[: can_pay - sum(shares)]:
        shares[i] += 1
    return shares


def _seat_order_shares(amounts: Sequence[int], can_pay: int) -> list[int]:
    """``can_pay`` paid to the amounts in order until it runs out."""
    shares = []
    left = can_pay
    for a in amounts:
        pay = min(a, left)
        shares.append(pay)
        left -= pay
    return shares


@dataclass(frozen=True, slots=True)
class _ChipStep:
    """What the chip step of a hand did (a cash session has none)."""

    level: int | None = None
    chips_per_point: int | None = None
    elapsed: float | None = None
    chips: dict[str, int] | None = None
    eliminated: tuple[str, ...] = ()


# --------------------------------------------------------------------------- the session


class Session:
    """A cash session at one table (:class:`Tournament`: the same in chips).

    ``players`` are the names clockwise from seat 0; ``button`` the first hand's button
    seat. ``seed`` fixes every hand's deck (hand k uses :func:`hand_seed` (seed, k));
    without it a seed is drawn from ``secrets`` and kept in :attr:`seed`. ``units`` maps
    a pair of players (either order) to the money value of a point for that pair; other
    pairs use ``rules.unit_value``. ``clock`` (seconds, default ``time.monotonic``)
    times the levels of a tournament. ``Session(..., tournament=True, stacks=...,
    level_hands=...)``, the older spelling, makes a :class:`Tournament`.

    Drive it with :meth:`start_hand` (returns the :class:`Table`), apply actions, then
    :meth:`finish_hand` (returns a :class:`HandResult`), until :attr:`over`.
    """

    tournament: ClassVar[bool] = False

    def __new__(cls, *args: Any, tournament: bool = False, **kwargs: Any) -> Session:
        # The older spelling Session(..., tournament=True) makes a Tournament.
        if tournament and not issubclass(cls, Tournament):
            return object.__new__(Tournament)
        return object.__new__(cls)

    def __init__(
        self,
        rules: Rules,
        players: int | Sequence[str],
        *,
        seed: int | None = None,
        button: int = 0,
        units: Mapping[tuple[str, str], float] | None = None,
        clock: Callable[[], float] | None = None,
        tournament: bool = False,
        stacks: Mapping[str, int] | None = None,
        level_hands: int | None = None,
        continuous: bool = False,
    ) -> None:
        if not self.tournament and (stacks or level_hands is not None):
            raise SessionError("stacks and level_hands are for tournaments (Tournament)")
        if not isinstance(continuous, bool):
            raise SessionError(f"continuous must be true or false, not {continuous!r}")
        if continuous and self.tournament:
            raise SessionError("a tournament ends with one player left; it cannot be continuous")
        names = _check_setup(rules, players, button, seed)
        self.rules = rules
        self.players: tuple[str, ...] = names
        self.seed: int = new_seed() if seed is None else seed
        self.start_button = button
        self.button = button
        self.units: dict[tuple[str, str], float] = _units(names, units)
        self._clock = clock or time.monotonic
        self._stacks: dict[str, int] | None = None
        self._out: list[str] = []
        self._points = dict.fromkeys(names, 0)
        self._pairs: dict[tuple[str, str], int] = {
            (names[i], names[j]): 0 for i in range(len(names)) for j in range(i + 1, len(names))
        }
        self._fl_pending: dict[str, int] = {}
        self._fl_streak = dict.fromkeys(names, 0)  # Fantasyland hands in a row, up to now
        self._fl_stays = dict.fromkeys(names, 0)  # Fantasyland stays played in the session
        self._fl_hands = 0
        self._timed_out: set[str] = set()
        self._ending = False
        self.continuous = continuous
        self._end_asked = False  # end() was called during the running hand
        self.table: Table | None = None
        self.results: list[HandResult] = []
        self._over = False
        self._recorded = True  # the last started hand has been finished
        self._button_player = names[button]

    # ------------------------------------------------------------------ state

    @property
    def over(self) -> bool:
        """True when no more hands are to be played."""
        return self._over

    @property
    def hands_played(self) -> int:
        return len(self.results)

    @property
    def fantasyland_pending(self) -> dict[str, int]:
        """Players who will play the next hand in Fantasyland -> their card counts."""
        return dict(self._fl_pending)

    @property
    def ending(self) -> bool:
        """True after a timeout ended the session (pending Fantasyland hands still play)."""
        return self._ending

    def end(self) -> None:
        """End the session: at once between hands, after the running hand otherwise.

        What a leaving player asks of a continuous session (any session accepts it).
        Pending Fantasyland hands are not played: the player who left would be needed
        for them (docs/rules-decisions.md, "Continuous sessions").
        """
        if self._over:
            return
        if self.table is not None and not self._recorded:
            self._end_asked = True
        else:
            self._over = True
            self._fl_pending = {}

    @property
    def ending_asked(self) -> bool:
        """True when :meth:`end` was called during the running hand."""
        return self._end_asked

    @property
    def timed_out(self) -> frozenset[str]:
        return frozenset(self._timed_out)

    @property
    def stacks(self) -> dict[str, int] | None:
        """Chips per player in a tournament (None in a cash session)."""
        return dict(self._stacks) if self._stacks is not None else None

    @property
    def active_players(self) -> tuple[str, ...]:
        """Players still in (a tournament drops players at zero chips)."""
        return tuple(p for p in self.players if p not in self._out)

    @property
    def ledger(self) -> Ledger:
        """The account after the last finished hand."""
        money = dict.fromkeys(self.players, 0.0)
        for (a, b), points in self._pairs.items():
            unit = self.unit(a, b)
            money[a] += points * unit
            money[b] -= points * unit
        return Ledger(
            points=dict(self._points),
            pairs=dict(self._pairs),
            money={p: round(m, 9) + 0.0 for p, m in money.items()},
            stacks=self.stacks,
            out=tuple(self._out),
        )

    def unit(self, a: str, b: str) -> float:
        """The money value of one point between ``a`` and ``b``."""
        return self.units.get((a, b), self.rules.unit_value)

    def next_participants(self) -> tuple[str, ...]:
        """Who plays the next hand: active players minus timed-out players sitting out."""
        sit_out = self._timed_out if self._ending and self._sit_out() else set()
        return tuple(p for p in self.active_players if p not in sit_out)

    def _sit_out(self) -> bool:
        return self.rules.timed_out_player_in_remaining_hands == TimedOutPlayer.SIT_OUT

    # ------------------------------------------------------------------ hands

    def start_hand(self, *, deck: Sequence[Card] | None = None) -> Table:
        """Deal the next hand and return its table. ``deck`` stacks it (tests, replays)."""
        if self._over:
            raise SessionError("the session is over")
        if self.table is not None and not self._recorded:
            raise SessionError("the current hand is not finished; call finish_hand() first")
        names = self.next_participants()
        fl_seats = {seat: name for seat, name in enumerate(names) if name in self._fl_pending}
        streak = {seat: self._fl_streak[name] + 1 for seat, name in fl_seats.items()}
        auto = (
            [seat for seat, name in enumerate(names) if name in self._timed_out]
            if self._ending and not self._sit_out()
            else []
        )
        number = len(self.results) + 1
        self.table = Table(
            self.rules,
            names,
            button=_table_button(self.players, names, self.button),
            seed=hand_seed(self.seed, number) if deck is None else None,
            deck=deck,
            fantasyland={seat: self._fl_pending[name] for seat, name in fl_seats.items()},
            fantasyland_streak=streak,
            fantasyland_stays={
                seat: self._fl_stays[name] + (streak[seat] > 1) for seat, name in fl_seats.items()
            },
            auto_play=auto,
        )
        self._button_player = self.players[self.button]
        self._recorded = False
        return self.table

    def finish_hand(self) -> HandResult:
        """Settle the finished hand into the ledger and prepare the next one."""
        table = self._finished_table()
        settlement = table.settlement
        assert settlement is not None
        hand_pairs = self._book_points(settlement)
        chips = self._chip_step(table, hand_pairs)
        new_timeouts = self._note_timeouts(table)
        played_fl, earned = self._fantasyland_step(table)
        if not earned or self.rules.button_moves_before_fl_hand:
            self.button = self._next_button(self.button)
        self._recorded = True
        self._over = self._is_over()
        if self._end_asked:
            self._fl_pending = {}
        result = self._result(table, settlement, chips, new_timeouts, played_fl, earned)
        self.results.append(result)
        return result

    def _finished_table(self) -> Table:
        table = self.table
        if table is None or self._recorded:
            raise SessionError("no hand is running; call start_hand() first")
        if not table.over:
            raise SessionError(
                f"the hand is not over yet (to act: {', '.join(map(str, table.to_act))})"
            )
        return table

    def _book_points(self, settlement: Settlement) -> dict[tuple[str, str], int]:
        """Add the hand's points to the ledger; return them per pair (seat order)."""
        # Criss Cross has several settlements per pair of players.
        hand_pairs: dict[tuple[str, str], int] = {}
        for a, b, pts in settlement.pair_points:  # the points alone: no breakdown built
            if self.players.index(a) > self.players.index(b):
                a, b, pts = b, a, -pts
            hand_pairs[(a, b)] = hand_pairs.get((a, b), 0) + pts
        for key, pts in hand_pairs.items():
            self._pairs[key] += pts
        for name, pts in settlement.totals.items():
            self._points[name] += pts
        return hand_pairs

    def _chip_step(self, table: Table, hand_pairs: Mapping[tuple[str, str], int]) -> _ChipStep:
        """Turn the hand's points into chips: nothing in a cash session."""
        return _ChipStep()

    def _note_timeouts(self, table: Table) -> list[str]:
        names = table.players
        new_timeouts = [names[s] for s in sorted(table.timed_out - table.auto_play)]
        self._timed_out.update(new_timeouts)
        if new_timeouts and self.rules.timeout_ends_session:
            self._ending = True
        return new_timeouts

    def _fantasyland_step(self, table: Table) -> tuple[dict[str, int], dict[str, int]]:
        """Who played Fantasyland, and who plays the next hand in it (limits applied).

        The limits bound stays only (§9.4): the table knows how many stays each of its
        Fantasyland seats still has (:meth:`Table.fantasyland_stays_left`); an entry
        from a normal hand always counts.
        """
        names = table.players
        played_fl = {names[s]: c for s, c in table.fantasyland.items()}
        if played_fl:
            self._fl_hands += 1
        for seat, name in enumerate(names):
            if seat in table.fantasyland:
                self._fl_streak[name] = table.fantasyland_streak[seat]
                self._fl_stays[name] = table.fantasyland_stays[seat]
            else:
                self._fl_streak[name] = 0
        earned: dict[str, int] = {}
        for seat, cards in table.fantasyland_next.items():
            name = names[seat]
            if name in self._out:
                continue
            if seat in table.fantasyland and table.fantasyland_stays_left(seat) == 0:
                continue  # a stay the repeat limit does not allow
            if self._ending and self._sit_out() and name in self._timed_out:
                continue
            earned[name] = cards
        self._fl_pending = earned
        return played_fl, earned

    def _result(
        self,
        table: Table,
        settlement: Settlement,
        chips: _ChipStep,
        new_timeouts: list[str],
        played_fl: dict[str, int],
        earned: dict[str, int],
    ) -> HandResult:
        number = len(self.results) + 1
        ledger = self.ledger
        block = self.header()
        block.update(
            {
                "hand": number,
                "button_player": self._button_player,
                "fantasyland_next": dict(earned),
                "timed_out": list(new_timeouts),
                "ending": self._ending,
                "over": self._over,
                **({"ended": True} if self._end_asked else {}),
                "ledger": ledger.to_dict(),
            }
        )
        block.update(self._chip_record(chips))
        return HandResult(
            number=number,
            players=table.players,
            button=self._button_player,
            fantasyland=played_fl,
            settlement=settlement,
            totals=dict(settlement.totals),
            fantasyland_next=dict(earned),
            ledger=ledger,
            timed_out=tuple(new_timeouts),
            level=chips.level,
            chips_per_point=chips.chips_per_point,
            chips=chips.chips,
            eliminated=chips.eliminated,
            record=hand_record(table, session=block),
        )

    def _chip_record(self, chips: _ChipStep) -> dict[str, Any]:
        """The chip step in the history line: nothing in a cash session."""
        return {}

    def _next_button(self, seat: int) -> int:
        n = len(self.players)
        for step in range(1, n + 1):
            nxt = (seat + step) % n
            if self.players[nxt] not in self._out:
                return nxt
        return seat

    def _is_over(self) -> bool:
        if self._end_asked or len(self.next_participants()) < 2:
            return True
        if self._fl_pending:
            return False
        if self._ending:
            return True
        return self._schedule_done()

    def _schedule_done(self) -> bool:
        """A cash session ends after one button orbit plus one hand per Fantasyland hand
        (a continuous one only by :meth:`end`)."""
        if self.continuous:
            return False
        return len(self.results) + 1 >= len(self.players) + self._fl_hands

    # ------------------------------------------------------------------ history

    def header(self) -> dict[str, Any]:
        """What a replay needs to rebuild this session (part of every history line)."""
        data: dict[str, Any] = {
            "kind": "tournament" if self.tournament else "cash",
            "seed": self.seed,
            "players": list(self.players),
            "start_button": self.start_button,
            "units": [[a, b, u] for (a, b), u in self.units.items() if a < b],
        }
        if self.continuous:
            data["continuous"] = True
        return data

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} {self.rules.variant} {list(self.players)}"
            f" hands={len(self.results)} button={self.players[self.button]} over={self._over}>"
        )


class Tournament(Session):
    """A :class:`Session` in chips; see the module docstring.

    ``stacks`` are the starting chips per player (default ``rules.starting_chips``),
    ``level_hands`` makes the levels rise every N hands instead of every
    ``rules.level_minutes`` by ``clock``.

    >>> from chinese_poker.rules import rules_for
    >>> t = Tournament(rules_for("ofc", level_values="20"), ["P1", "P2", "P3"], seed=1,
    ...                stacks={"P3": 330}, level_hands=10)
    >>> t.stacks
    {'P1': 1000, 'P2': 1000, 'P3': 330}
    """

    tournament: ClassVar[bool] = True

    def __init__(
        self,
        rules: Rules,
        players: int | Sequence[str],
        *,
        seed: int | None = None,
        button: int = 0,
        units: Mapping[tuple[str, str], float] | None = None,
        stacks: Mapping[str, int] | None = None,
        level_hands: int | None = None,
        clock: Callable[[], float] | None = None,
        tournament: bool = True,
        continuous: bool = False,
    ) -> None:
        if not tournament:
            raise SessionError("a Tournament is always a tournament (tournament=True)")
        if continuous:
            raise SessionError("a tournament ends with one player left; it cannot be continuous")
        super().__init__(rules, players, seed=seed, button=button, units=units, clock=clock)
        if level_hands is not None and (
            isinstance(level_hands, bool) or not isinstance(level_hands, int) or level_hands < 1
        ):
            raise SessionError(f"level_hands must be an integer >= 1, not {level_hands!r}")
        self.level_hands = level_hands
        self._start_time = self._clock()
        self.starting_stacks: dict[str, int] = _starting_stacks(self.players, rules, stacks)
        self._stacks = dict(self.starting_stacks)

    def level(self) -> int:
        """The tournament level (0-based) now, capped at the last level."""
        if self.level_hands is not None:
            return self._level_at(0.0)
        return self._level_at(self._clock() - self._start_time)

    def _level_at(self, elapsed: float) -> int:
        last = len(self.rules.level_values) - 1
        if self.level_hands is not None:
            return min(len(self.results) // self.level_hands, last)
        return min(max(int(elapsed // (self.rules.level_minutes * 60)), 0), last)

    def _chip_step(self, table: Table, hand_pairs: Mapping[tuple[str, str], int]) -> _ChipStep:
        """Points become chips at the level's value; short stacks pay all they have and
        are out (§10)."""
        stacks = self._stacks
        assert stacks is not None
        elapsed = None if self.level_hands is not None else self._clock() - self._start_time
        level = self._level_at(elapsed or 0.0)
        cpp = self.rules.level_values[level]
        owed: dict[tuple[str, str], int] = {}
        for (a, b), pts in hand_pairs.items():
            if pts > 0:
                owed[(b, a)] = pts * cpp
            elif pts < 0:
                owed[(a, b)] = -pts * cpp
        names = table.players
        order = [names[s] for s in table.play_order]
        chips = pay_chips(
            {p: stacks[p] for p in names}, owed, self.rules.insufficient_chips_rule, order
        )
        for name, delta in chips.items():
            stacks[name] += delta
        eliminated = tuple(p for p in order if stacks[p] == 0)
        self._out.extend(eliminated)
        return _ChipStep(level, cpp, elapsed, chips, eliminated)

    def _chip_record(self, chips: _ChipStep) -> dict[str, Any]:
        return {
            "level": chips.level,
            "chips_per_point": chips.chips_per_point,
            "elapsed": chips.elapsed,
            "chips": dict(chips.chips or {}),
            "eliminated": list(chips.eliminated),
        }

    def _schedule_done(self) -> bool:
        """A tournament ends when one player is left."""
        return len(self.active_players) < 2

    def header(self) -> dict[str, Any]:
        data = super().header()
        data["starting_stacks"] = dict(self.starting_stacks)
        data["level_hands"] = self.level_hands
        return data


# --------------------------------------------------------------------------- checks


def _check_setup(
    rules: object, players: int | Sequence[str], button: object, seed: object
) -> tuple[str, ...]:
    """The seat names, once the rules, players, button and seed are known good."""
    if not isinstance(rules, Rules):
        raise SessionError(f"rules must be a Rules, not {type(rules).__name__}")
    try:
        names = seat_names(players)
    except TableError as exc:
        raise SessionError(str(exc)) from None
    counts = rules.player_counts
    if len(names) not in counts:
        raise SessionError(
            f"{rules.variant} is played by {counts.start} to {counts.stop - 1} players,"
            f" not {len(names)}"
        )
    if isinstance(button, bool) or not isinstance(button, int) or not 0 <= button < len(names):
        raise SessionError(f"button must be a seat 0..{len(names) - 1}, not {button!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise SessionError(f"seed must be an integer >= 0, not {seed!r}")
    return names


def _units(
    names: Sequence[str], units: Mapping[tuple[str, str], float] | None
) -> dict[tuple[str, str], float]:
    out: dict[tuple[str, str], float] = {}
    for (a, b), unit in (units or {}).items():
        if a not in names or b not in names or a == b:
            raise SessionError(f"unit value for {a}-{b}: not a pair of players here")
        out[(a, b)] = out[(b, a)] = float(unit)
    return out


def _starting_stacks(
    names: Sequence[str], rules: Rules, stacks: Mapping[str, int] | None
) -> dict[str, int]:
    start = dict.fromkeys(names, rules.starting_chips)
    for name, chips in (stacks or {}).items():
        if name not in start:
            raise SessionError(f"stack for unknown player {name!r}")
        if isinstance(chips, bool) or not isinstance(chips, int) or chips < 1:
            raise SessionError(f"a starting stack must be an integer >= 1: {name}={chips!r}")
        start[name] = chips
    return start


def _table_button(all_players: Sequence[str], present: Iterable[str], button: int) -> int:
    """The table seat of the button among ``present`` players.

    If the button's player is absent, the nearest present player counterclockwise
    takes it, so play still starts with the first present player left of the button.
    """
    seats = list(present)
    n = len(all_players)
    for step in range(n):
        name = all_players[(button - step) % n]
        if name in seats:
            return seats.index(name)
    raise SessionError("nobody is left to play")
