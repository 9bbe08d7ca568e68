"""The rollouts' Python API: a seat's decision rebuilt from its view as arrays
(:class:`Situation`), the drivers that run the kernels on it, and the look-ups the tools
and tests read."""

from __future__ import annotations

import itertools
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
import numpy.typing as npt

from chinese_poker.ai.fantasyland import solve_fantasyland
from chinese_poker.ai.rollout.features import feature_indices, partial_line_table
from chinese_poker.ai.rollout.parameters import Tables, tables_for
from chinese_poker.ai.rollout.playout import play_rollouts, seed_kernels, solitaire, static_values
from chinese_poker.ai.rollout.policy import policy_street, pref_rows
from chinese_poker.ai.rollout.settlement import deuce_line, fill_line_values, table_points
from chinese_poker.cards import Card, parse_card
from chinese_poker.engine.actions import Decision, Place
from chinese_poker.engine.views import View
from chinese_poker.rules import Rules

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
I16 = npt.NDArray[np.int16]

DEUCE_OF_SPADES = parse_card("2s")
assert DEUCE_OF_SPADES == 0  # the kernels test ``card == 0`` for the Finnish deuce


def line_values(lines: Sequence[Sequence[Card]], tables: Tables) -> I64:
    """A complete board's three line values as the kernels compute them (``value >> 16``
    is the line-strength bucket).

    >>> from chinese_poker.cards import parse_board
    >>> from chinese_poker.rules import rules_for
    >>> b = parse_board("Kd Jc 3h | Th Ts 8c 8d 5s | Qs 9s 6s 4s 3s")
    >>> [hex(v >> 16) for v in line_values(b.lines, tables_for(rules_for("ofc")))]
    ['0xd', '0x2a', '0x5c']
    """
    code, _, _ = line_state(lines, tables.codes)
    out = np.zeros(3, dtype=np.int64)
    fill_line_values(code, tables.t3, tables.t5, tables.fo, out)
    return out


def kernel_totals(rules: Rules, boards: Sequence[tuple[Sequence[Card], ...]]) -> list[float]:
    """Each complete board's points against the others as the playout kernels settle
    them, from the kernels' own line look-ups: they must equal ``settle``'s totals.

    >>> from chinese_poker.cards import parse_board
    >>> from chinese_poker.rules import rules_for
    >>> a = parse_board("Ah Qd 4c | Jh Js 9c 9d 2h | 7c 7d 7h 7s Kc")
    >>> b = parse_board("Kd Jc 3h | Th Ts 8c 8d 5s | Qs 9s 6s 4s 3s")
    >>> kernel_totals(rules_for("ofc"), [a.lines, b.lines])
    [12.0, -12.0]
    """
    t = tables_for(rules)
    n = len(boards)
    vals = np.zeros((n, 3), dtype=np.int64)
    dls = np.zeros(n, dtype=np.int64)
    for j, lines in enumerate(boards):
        code, _, dz = line_state(lines, t.codes)
        fill_line_values(code, t.t3, t.t5, t.fo, vals[j])
        dls[j] = deuce_line(dz)
    out = np.zeros(n, dtype=np.float64)
    table_points(vals, dls, t.roy, t.scoring, out)
    return [float(x) for x in out]


def residual_features(
    lines: Sequence[Sequence[Card]], rules: Rules
) -> tuple[int, int, int, int, int]:
    """The five feature indices of a (partial) board under ``rules`` (whose evaluator
    tables class a five-card line), as the kernels compute them.

    >>> from chinese_poker.cards import parse_cards
    >>> from chinese_poker.rules import rules_for
    >>> board = [parse_cards("Qh Qd"), parse_cards("9s 9c 4d"), parse_cards("Ah Kh")]
    >>> residual_features(board, rules_for("pineapple"))
    (77, 272, 527, 1058, 1437)
    """
    t = tables_for(rules)
    c = [sum(int(t.codes[x]) for x in line) for line in lines]
    k = [len(line) for line in lines]
    f = feature_indices(c[0], c[1], c[2], k[0], k[1], k[2], t.t5, t.fo, partial_line_table())
    return cast("tuple[int, int, int, int, int]", tuple(int(i) for i in f))


def line_state(lines: Sequence[Sequence[Card]], codes: I64) -> tuple[I64, I64, I64]:
    code = np.array([sum(int(codes[c]) for c in line) for line in lines], dtype=np.int64)
    cnt = np.array([len(line) for line in lines], dtype=np.int64)
    dz = np.array([int(DEUCE_OF_SPADES in line) for line in lines], dtype=np.int64)
    return code, cnt, dz


def _opponents(
    view: View, me: int, codes: I64, cum: npt.NDArray[np.int64]
) -> tuple[list[int], list[tuple[I64, I64, I64]], list[int], list[tuple[int, int]], dict[int, int]]:
    """The opponents as the kernels see them: (seats still placing or complete, their line
    states, 1 for a timed-out seat, hidden Fantasyland seats with their deal sizes, the
    street each placing seat is on)."""
    opp_seats: list[int] = []
    opp_rows: list[tuple[I64, I64, I64]] = []
    opp_kind: list[int] = []
    fl_seats: list[tuple[int, int]] = []
    done: dict[int, int] = {}
    for b in view.boards:
        if b.seat == me:
            continue
        if b.hidden or (b.in_fantasyland and b.placed < 13):
            fl_seats.append((b.seat, b.fantasyland_cards))
            continue
        j = len(opp_seats)
        opp_seats.append(b.seat)
        opp_rows.append(line_state((b.top, b.middle, b.bottom), codes))
        opp_kind.append(1 if b.seat in view.timed_out else 0)
        done[j] = int(np.searchsorted(cum, b.placed, side="right"))
    return opp_seats, opp_rows, opp_kind, fl_seats, done


def _street_events(
    streets: Sequence[tuple[int, int]],
    play_order: Sequence[int],
    me: int,
    mine_done: int,
    opp_seats: list[int],
    done: dict[int, int],
) -> tuple[list[int], list[int], list[int]]:
    """Every street still to be dealt, in dealing order: (who: -1 us, else an index into
    ``opp_seats``; cards dealt; cards placed). ``mine_done`` is the street we are on (-1
    when we place no more streets); ``done`` the same per opponent index."""
    who: list[int] = []
    n_cards: list[int] = []
    n_place: list[int] = []
    for k, (dealt, placed) in enumerate(streets):
        for seat in play_order:
            if seat == me:
                if mine_done < 0 or k <= mine_done:
                    continue
                who.append(-1)
            elif seat in opp_seats and k >= done[opp_seats.index(seat)]:
                who.append(opp_seats.index(seat))
            else:
                continue
            n_cards.append(dealt)
            n_place.append(placed)
    return who, n_cards, n_place


@dataclass(frozen=True)
class Candidate:
    """One of our options as the kernels see it: the board after it (lines' cards)."""

    top: tuple[Card, ...]
    middle: tuple[Card, ...]
    bottom: tuple[Card, ...]


@dataclass
class Situation:
    """A seat's decision rebuilt from its view, as arrays for the kernels.

    ``pool``: the cards the seat cannot see. ``events_*``: every street still to be dealt,
    in dealing order (``who`` -1 for us, else an index into the ``opp_*`` arrays of the
    opponents who still place cards). ``fl_seats``: opponents whose hidden Fantasyland
    deals are sampled. ``fixed``: opponents whose boards are complete and visible.
    """

    view: View
    decision: Decision
    tables: Tables
    pool: I64
    mine: tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]
    opp_seats: list[int]
    opp_code: I64
    opp_cnt: I64
    opp_dz: I64
    opp_kind: I64
    events_who: I64
    events_cards: I64
    events_place: I64
    events_disc: I64
    fl_seats: list[tuple[int, int]]
    in_fl: bool

    @classmethod
    def from_view(cls, view: View, decision: Decision | None = None) -> Situation:
        """The situation of ``view``'s seat for ``decision`` (default: its first)."""
        if view.seat is None:
            raise ValueError("a spectator's view has no decision")
        dec = decision if decision is not None else view.decisions[0]
        rules = view.rules
        if not rules.is_open_face:
            raise ValueError("rollouts are for open-face variants")
        tables = tables_for(rules)
        me = view.seat
        mine_view = view.board_of(me, dec.hand)
        seen = set(dec.cards) | set(view.hand) | set(mine_view.discards)
        for b in view.boards:
            seen.update(b.top)
            seen.update(b.middle)
            seen.update(b.bottom)
        pool = np.array([c for c in range(52) if c not in seen], dtype=np.int64)
        streets = rules.streets
        cum = np.cumsum([p for _, p in streets])
        opp_seats, opp_rows, opp_kind, fl_seats, done = _opponents(view, me, tables.codes, cum)
        my_done = int(np.searchsorted(cum, mine_view.placed, side="right"))
        in_fl = mine_view.in_fantasyland
        mine_left = -1 if in_fl or dec.kind != "street" else my_done
        who, n_cards, n_place = _street_events(streets, view.play_order, me, mine_left,
                                               opp_seats, done)  # fmt: skip
        # The pool must hold every card still to be dealt (it always does: the deck has
        # 52 cards and the variants deal at most 52).
        need = sum(n_cards) + sum(n for _, n in fl_seats)
        if need > len(pool):  # pragma: no cover - defensive
            raise ValueError("not enough unseen cards for the rest of the hand")
        q = len(opp_seats)
        return cls(
            view=view,
            decision=dec,
            tables=tables,
            pool=pool,
            mine=(mine_view.top, mine_view.middle, mine_view.bottom),
            opp_seats=opp_seats,
            opp_code=np.array([r[0] for r in opp_rows], dtype=np.int64).reshape(q, 3),
            opp_cnt=np.array([r[1] for r in opp_rows], dtype=np.int64).reshape(q, 3),
            opp_dz=np.array([r[2] for r in opp_rows], dtype=np.int64).reshape(q, 3),
            opp_kind=np.array(opp_kind, dtype=np.int64),
            events_who=np.array(who, dtype=np.int64),
            events_cards=np.array(n_cards, dtype=np.int64),
            events_place=np.array(n_place, dtype=np.int64),
            events_disc=np.array([c - p for c, p in zip(n_cards, n_place, strict=True)],
                                 dtype=np.int64),
            fl_seats=fl_seats,
            in_fl=in_fl,
        )  # fmt: skip

    @property
    def opponents(self) -> int:
        """The opponents our board is settled against in a rollout (those still placing
        or complete, and the hidden Fantasyland seats): the kernels' ``n_opp``."""
        return len(self.opp_seats) + len(self.fl_seats)

    def candidate(self, action: Place) -> Candidate:
        """The board after ``action`` (a street placement or a whole set)."""
        if self.decision.kind == "set":
            return Candidate(action.top, action.middle, action.bottom)
        t, m, b = self.mine
        return Candidate(t + action.top, m + action.middle, b + action.bottom)

    def arrays(self, cands: Sequence[Candidate]) -> tuple[I64, I64, I64]:
        n = len(cands)
        code = np.zeros((n, 3), dtype=np.int64)
        cnt = np.zeros((n, 3), dtype=np.int64)
        dz = np.zeros((n, 3), dtype=np.int64)
        for i, cand in enumerate(cands):
            code[i], cnt[i], dz[i] = line_state(
                (cand.top, cand.middle, cand.bottom), self.tables.codes
            )
        return code, cnt, dz

    def sample_fantasyland(self, samples: int, rng: random.Random) -> tuple[I64, I64, I64]:
        """``samples`` joint deals of the hidden Fantasyland opponents, each set by the
        exact solver: (cards [M, F], line values [M, K, 3], deuce lines [M, K])."""

        k = len(self.fl_seats)
        total = sum(n for _, n in self.fl_seats)
        if k == 0 or samples <= 0:
            empty = np.zeros((0, 0), dtype=np.int64)
            return empty, np.zeros((0, 0, 3), dtype=np.int64), empty
        rules = self.tables.rules
        cards = np.zeros((samples, total), dtype=np.int64)
        vals = np.zeros((samples, k, 3), dtype=np.int64)
        dls = np.full((samples, k), -1, dtype=np.int64)
        pool = [int(c) for c in self.pool]
        for m in range(samples):
            deal = rng.sample(pool, total)
            cards[m] = deal
            at = 0
            for j, (_, n) in enumerate(self.fl_seats):
                board = solve_fantasyland(deal[at : at + n], rules).board
                at += n
                vals[m, j], dls[m, j] = fantasyland_row(board.lines, self.tables)
        return cards, vals, dls


def fantasyland_row(
    lines: Sequence[Sequence[Card]], tables: Tables
) -> tuple[tuple[int, int, int], int]:
    """A set Fantasyland board as the kernels see a hidden opponent's: its three line
    values (:func:`line_values`, the kernels' own look-ups) and the line holding the
    Finnish deuce (-1: none)."""
    _, _, dz = line_state(lines, tables.codes)
    top, middle, bottom = (int(v) for v in line_values(lines, tables))
    return (top, middle, bottom), int(deuce_line(dz))


# =========================================================================== drivers


@dataclass
class RolloutStats:
    """Sums over the rollouts of each candidate."""

    n: I64
    total: F64
    squares: F64
    fouls: I64
    fantasyland: I64

    @classmethod
    def zeros(cls, k: int) -> RolloutStats:
        return cls(np.zeros(k, np.int64), np.zeros(k), np.zeros(k), np.zeros(k, np.int64),
                   np.zeros(k, np.int64))  # fmt: skip

    def mean(self) -> F64:
        return self.total / np.maximum(self.n, 1)

    def stderr(self) -> F64:
        n = np.maximum(self.n, 1)
        var = np.maximum(self.squares / n - self.mean() ** 2, 0.0)
        return cast(F64, np.sqrt(var / np.maximum(n - 1, 1)))

    def foul_rate(self) -> F64:
        return self.fouls / np.maximum(self.n, 1)

    def fl_rate(self) -> F64:
        return self.fantasyland / np.maximum(self.n, 1)


DEADLINE_CHUNK = 0.004
"""Seconds a batch of rollouts lasts under a deadline: how far a budget can overshoot."""

FIRST_FULL_BATCH = 0.25
"""Before a rollout of this shape has been timed in this process, a deadline closer than
this many seconds starts with one rollout (to measure its cost) rather than a full batch."""

# Seconds per rollout of one candidate, last measured, by the shape of what is left to
# play (street events, opponents' boards): a first street costs many times a last one.
_COST: dict[tuple[int, int], float] = {}


def run_rollouts(
    sit: Situation,
    cands: Sequence[Candidate],
    *,
    rollouts: int,
    fills: int,
    seed: int,
    choice: int = 1,
    fl_samples: int = 8,
    batch: int = 16,
    halving: int = 0,
    keep: int = 2,
    foul_aversion: float = 0.0,
    deadline: float | None = None,
    rng: random.Random | None = None,
) -> RolloutStats:
    """Play up to ``rollouts`` rollouts for every candidate (common random numbers).

    ``halving``: rounds of successive halving (0: none, every candidate gets every
    rollout; -1: as many rounds as it takes to get down to ``keep`` candidates). The
    rollouts a surviving candidate has had double every round up to ``rollouts`` in the
    last, and after each round only the better half (at least ``keep``) goes on, so the
    work is about ``rounds x keep x rollouts`` however many candidates there are. The
    halving ranks by mean points minus ``foul_aversion`` x foul rate.
    ``deadline`` (a ``time.monotonic()`` value): batches of ``batch`` rollouts (the same
    as without a deadline, so a budget that is not reached changes nothing) while the
    measured cost of a rollout says the next one fits; then batches of about
    :data:`DEADLINE_CHUNK`, none started that would end past the deadline (at least one
    rollout is always played).
    """
    t = sit.tables
    code, cnt, dz = sit.arrays(cands)
    k = len(cands)
    stats = RolloutStats.zeros(k)
    active = np.ones(k, dtype=np.bool_)
    fl_cards, fl_vals, fl_dl = sit.sample_fantasyland(
        fl_samples if sit.fl_seats else 0, rng or random.Random(seed)
    )
    if halving < 0:
        rounds = max(1, math.ceil(math.log2(max(k / max(keep, 1), 1.0))) + 1)
    else:
        rounds = max(halving, 1)
    hidden = (fl_cards, fl_vals, fl_dl)
    opponents = (sit.opp_code, sit.opp_cnt, sit.opp_dz, sit.opp_kind)
    events = (sit.events_who, sit.events_cards, sit.events_place, sit.events_disc)
    sums = (stats.n, stats.total, stats.squares, stats.fouls, stats.fantasyland)
    done = 0
    batch_no = 0
    shape = (len(sit.events_who), int(sit.opp_code.shape[0]))
    for rnd in range(rounds):
        target = max(1, math.ceil(rollouts / 2 ** (rounds - 1 - rnd)))
        while done < target:
            stop = min(target, done + batch)
            if deadline is not None:
                # A full batch (the same rollouts as without a deadline) when its
                # predicted cost fits in the time left; else shorter batches of about
                # DEADLINE_CHUNK, and none that would end past the deadline.
                left = deadline - time.monotonic()
                unit = _COST.get(shape, 0.0) * max(int(active.sum()), 1)  # one rollout, live ones
                if unit == 0.0 and left < FIRST_FULL_BATCH:
                    stop = done + 1  # no cost measured yet in this process: measure it
                elif (stop - done) * unit > left:
                    if batch_no > 0 and unit > left:
                        return stats
                    size = max(1, int(min(left, DEADLINE_CHUNK) / max(unit, 1e-9)))
                    stop = min(stop, done + size)
            began = time.monotonic()
            play_rollouts(
                sit.pool, done, stop, (seed * 1_000_003 + batch_no) % (2**32 - 1), hidden,
                opponents, events, (code, cnt, dz, active), sit.in_fl, fills, choice,
                t.policy_tables, t.scoring, sums,
            )  # fmt: skip
            now = time.monotonic()
            # The cost of one rollout of one candidate, as last measured (it carries over
            # to the next decision, whose first batch it sizes).
            _COST[shape] = (now - began) / ((stop - done) * max(int(active.sum()), 1))
            done = stop
            batch_no += 1
            if deadline is not None and now > deadline:
                return stats
        if rnd < rounds - 1:
            live = np.flatnonzero(active)
            if len(live) > keep:
                rank = stats.mean()[live] - foul_aversion * stats.foul_rate()[live]
                order = live[np.argsort(-rank, kind="stable")]
                active[order[max(keep, (len(live) + 1) // 2) :]] = False
    return stats


def static_scores(
    sit: Situation, cands: Sequence[Candidate], *, fills: int, seed: int, choice: int = 1
) -> tuple[F64, F64]:
    """The fast policy's value and foul rate of each candidate (random completions)."""
    t = sit.tables
    code, cnt, _ = sit.arrays(cands)
    out = np.zeros(len(cands))
    fouls = np.zeros(len(cands))
    if len(cands):
        static_values(sit.pool, seed % (2**32 - 1), fills, choice, code, cnt, t.policy_tables,
                      out, fouls)  # fmt: skip
    return out, fouls


def policy_place(
    rules: Rules,
    lines: tuple[Sequence[Card], Sequence[Card], Sequence[Card]],
    street: Sequence[Card],
    place: int,
    unseen: Sequence[Card],
    *,
    fills: int = 8,
    choice: int = 3,
    seed: int = 0,
) -> tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]:
    """The fast policy's placement of ``street`` on ``lines`` (for tests and tools):
    (top, middle, bottom) cards added, and the discards. ``unseen`` feeds completions.

    When two assignments give every line the same ranks and suits (``Ah Ks`` on top and
    ``As Kh`` in the middle, or the other way round) either may come back: they are worth
    the same to the policy.
    """
    t = tables_for(rules)
    code, cnt, dz = line_state(lines, t.codes)
    before = cnt.copy()
    deck = np.array(list(street) + [c for c in unseen if c not in street], dtype=np.int64)
    scratch = np.empty(52, dtype=np.int64)
    pref = np.zeros((pref_rows(fills, choice, t.policy), 14), dtype=np.int64)
    seed_kernels(seed)
    n = len(street)
    policy_street(code, cnt, dz, deck, 0, n, place, n - place, len(deck), fills, choice, 0,
                  *t.policy_tables, scratch, pref)  # fmt: skip
    # Recover which card went where: try the assignments of the counts the kernel added
    # until the lines' code sums match.
    added = [int(cnt[i] - before[i]) for i in range(3)]
    base = [sum(int(t.codes[c]) for c in line) for line in lines]
    for thrown in itertools.combinations(street, n - place):
        kept = [c for c in street if c not in thrown]
        for top in itertools.combinations(kept, added[0]):
            rest = [c for c in kept if c not in top]
            for middle in itertools.combinations(rest, added[1]):
                bottom = tuple(c for c in rest if c not in middle)
                sums = [base[0] + sum(int(t.codes[c]) for c in top),
                        base[1] + sum(int(t.codes[c]) for c in middle),
                        base[2] + sum(int(t.codes[c]) for c in bottom)]  # fmt: skip
                if sums == [int(x) for x in code]:
                    return tuple(top), tuple(middle), bottom, tuple(thrown)
    raise AssertionError("policy placement not found")  # pragma: no cover


def solitaire_values(
    rules: Rules, boards: int, *, seed: int = 0, fills: int = 8, choice: int = 3,
    repair: int = 0, climb: int = 0, climb_rounds: int = 2, repair_spare: bool = False,
    residual: float = 0.0, value: int = 0,
) -> I64:  # fmt: skip
    """Line values (N x 3) of ``boards`` boards the policy completed from scratch
    (``repair``, ``climb``, ``climb_rounds``, ``repair_spare``, ``residual``, ``value``:
    see :meth:`Tables.with_policy`; with ``value`` and ``fills`` 0 the learned value
    places every street)."""
    if fills == 0 and not value:
        raise ValueError("a policy with no completions (fills 0) needs the learned value")
    t = tables_for(rules)
    if repair or climb or residual or value:
        t = t.with_policy(repair=repair, climb=climb, climb_rounds=climb_rounds,
                          repair_spare=repair_spare, residual=residual,
                          value=value)  # fmt: skip
    streets = rules.streets
    out = np.zeros((boards, 3), dtype=np.int64)
    streets_arrays = (np.array([d for d, _ in streets], dtype=np.int64),
                      np.array([p for _, p in streets], dtype=np.int64),
                      np.array([d - p for d, p in streets], dtype=np.int64))  # fmt: skip
    solitaire(boards, seed % (2**32 - 1), streets_arrays, fills, choice, t.policy_tables, out)
    return out
