"""The playout drivers as kernels: a rollout deals the unseen cards, plays every seat's
streets with the fast policy and settles the completed boards; the static screen and
boards completed from scratch (for the strength table and the learned tables)."""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from chinese_poker.ai.rollout.features import LIVE_COUNTS, count_live, learned_estimate
from chinese_poker.ai.rollout.jit import kernel
from chinese_poker.ai.rollout.parameters import (
    POL_EXACT_LAST,
    POL_FOUL_PENALTY,
    POL_OPP_FILLS,
    POL_OPP_FOUL_SCALE,
    POL_OPP_REPAIR,
    POL_OPP_RESIDUAL,
    POL_REPAIR,
    POL_RESIDUAL,
)
from chinese_poker.ai.rollout.policy import (
    completions_total,
    pattern_sums,
    place_street,
    policy_street,
    pref_rows,
    prepare_completions,
)
from chinese_poker.ai.rollout.settlement import (
    fill_line_values,
    finish_board,
    our_points,
    seat_royalties,
)


@kernel
def _deal_deck(deck: Any, pool: Any, fl_cards: Any, m: int, used: Any) -> None:
    """A rollout's deck: Fantasyland sample ``m``'s deals first (none if ``m`` < 0), then
    the rest of the pool shuffled."""
    n_pool = pool.shape[0]
    if m < 0:
        for i in range(n_pool):
            deck[i] = pool[i]
        _shuffle_tail(deck, 0)
        return
    n_flc = fl_cards.shape[1]
    used[:] = False
    for i in range(n_flc):
        deck[i] = fl_cards[m, i]
        used[fl_cards[m, i]] = True
    k = n_flc
    for i in range(n_pool):
        c = pool[i]
        if not used[c]:
            deck[k] = c
            k += 1
    _shuffle_tail(deck, n_flc)


# The same call with a literal constant (``-1``, ``0``) or an omitted default compiles a
# second copy of the callee for that constant: policy_street, the largest kernel, was
# compiled twice (35 of the open-face kernels' 85 s of compiling, docs/benchmarks.md
# "Cold start"). These are numpy int64 values, as the other calls' arguments are (typed
# int for the checker: a numpy integer is one in the kernels).
US = cast(int, np.int64(-1))
"""``who`` of :func:`_play_streets` for our own board."""
POLICY = cast(int, np.int64(0))
"""``kind`` of :func:`policy_street`: the fast policy."""
NO_EVENT = cast(int, np.int64(-1))
"""``skip`` of :func:`_play_streets`: no event left out."""
POOL_START = cast(int, np.int64(0))
"""``lo`` of :func:`draw_fills` drawing from a whole pool."""
FULL_DECK = cast(int, np.int64(52))
"""``end`` of :func:`policy_street` completing boards from a whole deck."""


@kernel
def _play_streets(
    who: int, kind: int, code: Any, cnt: Any, dz: Any, deck: Any, ev_start: Any, ev_who: Any,
    ev_cards: Any, ev_place: Any, ev_disc: Any, n_fills: int, choice: int,
    ev: Any, roy: Any, flv: Any, st: Any, vf: Any, pol: Any, scratch: Any, pref: Any,
    skip: int,
) -> None:  # fmt: skip
    """Play every street event of seat ``who`` (-1: us) on its board with the policy, but
    event ``skip``."""
    for e in range(ev_who.shape[0]):
        if ev_who[e] == who and e != skip:
            policy_street(code, cnt, dz, deck, ev_start[e], ev_cards[e], ev_place[e],
                           ev_disc[e], deck.shape[0], n_fills, choice, kind, ev, roy, flv, st,
                           vf, pol, scratch, pref)  # fmt: skip


@kernel
def _shuffle_tail(deck: Any, lo: int) -> None:
    n = deck.shape[0]
    for i in range(n - 1, lo, -1):
        j = lo + np.random.randint(0, i - lo + 1)
        c = deck[i]
        deck[i] = deck[j]
        deck[j] = c


@kernel
def opponent_policy(pol: Any) -> Any:
    """The policy that completes the opponents' boards: ours, with the opponents' foul
    penalty factor, repair rounds and weight of the learned correction (POL_OPP_*; -1:
    ours; the number of completions, POL_OPP_FILLS, is read by the caller)."""
    opol = pol.copy()
    opol[POL_FOUL_PENALTY] *= pol[POL_OPP_FOUL_SCALE]
    if pol[POL_OPP_REPAIR] >= 0:
        opol[POL_REPAIR] = pol[POL_OPP_REPAIR]
    if pol[POL_OPP_RESIDUAL] >= 0:
        opol[POL_RESIDUAL] = pol[POL_OPP_RESIDUAL]
    return opol


@kernel
def exact_street(
    board: Any, deck: Any, start: int, n_cards: int, n_place: int, n_disc: int, in_fl: bool,
    seats: Any, settle: Any, trial: Any,
) -> None:  # fmt: skip
    """Place our last street ``deck[start:start + n_cards]`` (it completes the board) the
    way that scores the most against the opponents' completed boards, Fantasyland
    included: every placement is settled exactly (:func:`our_points`; ``trial``: a board's
    arrays to try it on), where the policy would go by its board value. It sees the
    opponents' last cards of the rollout, which at the table only the seats placing after
    them see: an optimistic bias."""
    code, cnt, dz = board
    tcode, tcnt, tdz = trial
    codes = settle[0][0]
    n_discards = n_cards if n_disc == 1 else 1
    top = -1e300
    best_d = -1
    best_a = -1
    for d in range(n_discards):
        if n_disc != 1:
            d = -1
        for a in range(3**n_place):
            ok, _, _, _, _, _ = pattern_sums(code, cnt, deck, start, n_cards, d, a, codes)
            if not ok:
                continue
            for line in range(3):
                tcode[line] = code[line]
                tcnt[line] = cnt[line]
                tdz[line] = dz[line]
            place_street(tcode, tcnt, tdz, deck, start, n_cards, d, a, codes)
            total, _, _ = our_points(tcode, tdz, in_fl, seats, settle)
            if total > top:
                top = total
                best_d = d
                best_a = a
    place_street(code, cnt, dz, deck, start, n_cards, best_d, best_a, codes)


@kernel
def play_rollouts(
    pool: Any, r0: int, r1: int, seed: int, hidden: Any, opponents: Any, events: Any,
    candidates: Any, in_fl: bool, n_fills: int, choice: int, pt: Any, sc: Any, stats: Any,
) -> None:  # fmt: skip
    """Rollouts ``r0 .. r1 - 1`` for every active candidate; adds to the ``stats`` sums
    (rollouts, points, squares, fouls, Fantasyland earned, by candidate).

    ``hidden``: the hidden Fantasyland seats' sampled deals (cards [M, F], line values
    [M, K, 3], deuce lines [M, K]); ``opponents``: the seats still placing (code sums,
    counts, deuce flags [Q, 3], 1 for a timed-out seat); ``events``: every street still to
    be dealt (who, cards dealt, placed, discarded); ``candidates``: our boards after each
    option (code sums, counts, deuce flags [C, 3], whether it is still played); ``pt``:
    the policy's tables (:attr:`Tables.policy_tables`); ``sc``: the scoring parameters.
    The records are unpacked once here: the kernels called per rollout and street take
    their arrays one by one (unpacking a record costs a reference count per array).

    Deck of rollout r: the Fantasyland deals of sample ``r % M`` first (dealt before
    anything else, hidden from us), then the rest of the pool shuffled; the street
    events take their cards from it in the order they are dealt.
    """
    fl_cards, fl_vals, fl_dl = hidden
    opp_code, opp_cnt, opp_dz, opp_kind = opponents
    ev_who, ev_cards, ev_place, ev_disc = events
    cand_code, cand_cnt, cand_dz, active = candidates
    ev, roy, flv, st, vf, pol = pt
    out_n, out_sum, out_sq, out_foul, out_fl = stats
    np.random.seed(seed)
    n_pool = pool.shape[0]
    m_fl = fl_cards.shape[0]
    n_flc = fl_cards.shape[1] if m_fl > 0 else 0
    n_fl_opp = fl_vals.shape[1] if m_fl > 0 else 0
    q = opp_code.shape[0]
    n_opp = q + n_fl_opp
    n_ev = ev_who.shape[0]
    n_cand = cand_code.shape[0]
    deck = np.empty(n_pool, dtype=np.int64)
    used = np.zeros(52, dtype=np.bool_)
    scratch = np.empty(52, dtype=np.int64)
    pref = np.zeros((pref_rows(n_fills, choice, pol), 14), dtype=np.int64)
    opol = opponent_policy(pol)
    o_fills = int(pol[POL_OPP_FILLS]) if pol[POL_OPP_FILLS] > 0 else n_fills
    opref = np.zeros((pref_rows(o_fills, choice, opol), 14), dtype=np.int64)
    ev_start = np.empty(n_ev, dtype=np.int64)  # where each street event's cards start
    ev_start[:] = n_flc + np.cumsum(ev_cards) - ev_cards
    wcode = np.empty(3, dtype=np.int64)
    wcnt = np.empty(3, dtype=np.int64)
    wdz = np.empty(3, dtype=np.int64)
    # Every seat's line values and royalties; row n_opp is ours (per candidate).
    vals = np.empty((n_opp + 1, 3), dtype=np.int64)
    roys = np.zeros((n_opp + 1, 3), dtype=np.float64)
    ovals = vals[:n_opp]
    odl = np.empty(n_opp, dtype=np.int64)
    ofoul = np.empty(n_opp, dtype=np.bool_)
    best = np.full(6, -1, dtype=np.int64)
    # Our last street event, placed exactly when the policy says so (POL_EXACT_LAST).
    last = -1
    if pol[POL_EXACT_LAST] != 0.0:
        for e in range(n_ev):
            if ev_who[e] == -1:
                last = e
    trial = (np.empty(3, dtype=np.int64), np.empty(3, dtype=np.int64),
             np.empty(3, dtype=np.int64))  # fmt: skip
    board = (wcode, wcnt, wdz)
    seats = (vals, roys, odl, ofoul, best)
    settle = (ev, roy, sc, flv, pol)
    for r in range(r0, r1):
        # --- the deck
        _deal_deck(deck, pool, fl_cards, r % m_fl if m_fl > 0 else -1, used)
        # --- the opponents' boards (they do not depend on our placement)
        for j in range(q):
            for line in range(3):
                wcode[line] = opp_code[j, line]
                wcnt[line] = opp_cnt[j, line]
                wdz[line] = opp_dz[j, line]
            _play_streets(j, opp_kind[j], wcode, wcnt, wdz, deck, ev_start, ev_who, ev_cards,
                          ev_place, ev_disc, o_fills, choice, ev, roy, flv, st, vf, opol,
                          scratch, opref, NO_EVENT)  # fmt: skip
            odl[j], ofoul[j], _ = finish_board(wcode, wdz, ev, roy, sc, ovals[j], roys[j])
        for j in range(n_fl_opp):
            m = r % m_fl
            for line in range(3):
                ovals[q + j, line] = fl_vals[m, j, line]
            odl[q + j] = fl_dl[m, j]
            ofoul[q + j] = False
            seat_royalties(ovals[q + j], False, roy, sc, roys[q + j])
        # --- our board, for every candidate
        for c in range(n_cand):
            if not active[c]:
                continue
            for line in range(3):
                wcode[line] = cand_code[c, line]
                wcnt[line] = cand_cnt[c, line]
                wdz[line] = cand_dz[c, line]
            _play_streets(US, POLICY, wcode, wcnt, wdz, deck, ev_start, ev_who, ev_cards,
                          ev_place, ev_disc, n_fills, choice, ev, roy, flv, st, vf, pol, scratch,
                          pref, last)  # fmt: skip
            if last >= 0:
                exact_street(board, deck, ev_start[last], ev_cards[last], ev_place[last],
                             ev_disc[last], in_fl, seats, settle, trial)  # fmt: skip
            total, fouled, earned = our_points(wcode, wdz, in_fl, seats, settle)
            if earned:
                out_fl[c] += 1
            if fouled:
                out_foul[c] += 1
            out_n[c] += 1
            out_sum[c] += total
            out_sq[c] += total * total


@kernel
def static_values(
    pool: Any, seed: int, n_fills: int, choice: int, cand_code: Any, cand_cnt: Any, pt: Any,
    out: Any, out_foul: Any,
) -> None:  # fmt: skip
    """The policy's value of each candidate: random completions from the whole pool
    (the same completions for every candidate)."""
    ev, roy, flv, st, vf, pol = pt
    codes, t3, t5, fo = ev
    np.random.seed(seed)
    n_pool = pool.shape[0]
    need = 13 - cand_cnt[0, 0] - cand_cnt[0, 1] - cand_cnt[0, 2]
    fills = n_fills if need > 0 else 1
    picks = choice if need > 0 else 1
    scratch = np.empty(52, dtype=np.int64)
    pref = np.zeros((pref_rows(fills, picks, pol), 14), dtype=np.int64)
    spare = prepare_completions(pool, POOL_START, n_pool, need, fills, picks, pol, codes, scratch,
                                pref)  # fmt: skip
    rounds = int(pol[POL_REPAIR]) if need > 1 else 0
    live = np.empty(LIVE_COUNTS, dtype=np.int64)
    count_live(pool, 0, n_pool, live)
    for c in range(cand_code.shape[0]):
        c0, c1, c2 = cand_code[c, 0], cand_code[c, 1], cand_code[c, 2]
        k0, k1, k2 = cand_cnt[c, 0], cand_cnt[c, 1], cand_cnt[c, 2]
        if fills == 0:  # no completions: the learned value of the board
            out[c] = learned_estimate(c0, c1, c2, k0, k1, k2, t5, fo, vf, live, codes)
            out_foul[c] = 0.0
            continue
        f0 = 3 - k0
        total, fouls = completions_total(c0, c1, c2, f0, f0 + 5 - k1, need, fills, picks,
                                         rounds, spare, t3, t5, fo, roy, flv, st, pol, scratch,
                                         pref)  # fmt: skip
        if pol[POL_RESIDUAL] != 0.0 and need > 0:
            total += pol[POL_RESIDUAL] * fills * learned_estimate(c0, c1, c2, k0, k1, k2, t5,
                                                                  fo, vf, live, codes)  # fmt: skip
        out[c] = total / fills
        out_foul[c] = fouls / fills


@kernel
def scratch_boards(seed: int, n_fills: int, choice: int, pol: Any) -> Any:
    """Seed the kernels' generator; a deck, the policy's buffers and one board's arrays
    (code sums, counts, deuce counts) for boards completed from scratch."""
    np.random.seed(seed)
    deck = np.arange(52, dtype=np.int64)
    scratch = np.empty(52, dtype=np.int64)
    pref = np.zeros((pref_rows(n_fills, choice, pol), 14), dtype=np.int64)
    code = np.empty(3, dtype=np.int64)
    cnt = np.empty(3, dtype=np.int64)
    dz = np.empty(3, dtype=np.int64)
    return deck, scratch, pref, code, cnt, dz


@kernel
def new_board(deck: Any, code: Any, cnt: Any, dz: Any) -> None:
    """A fresh shuffle and an empty board."""
    _shuffle_tail(deck, 0)
    code[:] = 0
    cnt[:] = 0
    dz[:] = 0


@kernel
def solitaire(
    n_boards: int, seed: int, streets: Any, n_fills: int, choice: int, pt: Any, out: Any
) -> None:
    """Complete ``n_boards`` boards from scratch with the policy (for the strength table;
    ``streets``: cards dealt, placed and discarded by street)."""
    st_cards, st_place, st_disc = streets
    ev, roy, flv, st, vf, pol = pt
    _, t3, t5, fo = ev
    deck, scratch, pref, code, cnt, dz = scratch_boards(seed, n_fills, choice, pol)
    for b in range(n_boards):
        new_board(deck, code, cnt, dz)
        pos = 0
        for k in range(st_cards.shape[0]):
            policy_street(code, cnt, dz, deck, pos, st_cards[k], st_place[k], st_disc[k],
                          FULL_DECK, n_fills, choice, POLICY, ev, roy, flv, st, vf, pol, scratch,
                          pref)  # fmt: skip
            pos += st_cards[k]
        fill_line_values(code, t3, t5, fo, out[b])


@kernel
def _seed(seed: int) -> None:
    np.random.seed(seed)


def seed_kernels(seed: int) -> None:
    _seed(seed % (2**32 - 1))
