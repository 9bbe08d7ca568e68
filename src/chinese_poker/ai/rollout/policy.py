"""The fast policy as kernels: it places one street at a time, scoring each legal
placement by the average, over random completions of the empty slots, of the policy's
board value (royalties, Fantasyland's value, ``w`` x the line strength, minus the foul
penalty), with the optional foul repair, hill climb and learned correction."""

from __future__ import annotations

from typing import Any

import numpy as np

from chinese_poker.ai.rollout.features import (
    LIVE_COUNTS,
    RES_FEATURES,
    count_live,
    learned_estimate,
)
from chinese_poker.ai.rollout.jit import inline_kernel, kernel
from chinese_poker.ai.rollout.parameters import (
    POL_CLIMB,
    POL_CLIMB_ROUNDS,
    POL_FOUL_PENALTY,
    POL_PICK_MAX,
    POL_REPAIR,
    POL_REPAIR_SPARE,
    POL_RESIDUAL,
    POL_THROWN,
    POL_W,
)


@kernel
def board_value(
    ct: int, cm: int, cb: int, t3: Any, t5: Any, fo: Any, roy: Any, flv: Any, st: Any,
    w: float, foul_penalty: float,
) -> float:  # fmt: skip
    """The policy's value of a completed board given by its lines' code sums."""
    vt = t3[ct >> 12]
    vm = t5[(cm >> 12) + fo[cm & 4095]]
    vb = t5[(cb >> 12) + fo[cb & 4095]]
    return lines_value(vt, vm, vb, roy, flv, st, w, foul_penalty)


@inline_kernel
def lines_value(
    vt: int, vm: int, vb: int, roy: Any, flv: Any, st: Any, w: float, foul_penalty: float
) -> float:
    """The policy's value of a completed board given by its line values: royalties,
    Fantasyland's value and ``w`` x the line strength, or ``-foul_penalty`` if it fouls."""
    if vt > vm or vm > vb:
        return -foul_penalty
    ht = vt >> 16
    hm = vm >> 16
    hb = vb >> 16
    return float(
        roy[0, ht] + roy[1, hm] + roy[2, hb] + flv[ht]
        + w * (st[0, ht] + st[1, hm] + st[2, hb])
    )  # fmt: skip


@kernel
def draw_fills(
    deck: Any, lo: int, hi: int, need: int, extra: int, n_fills: int, choice: int, codes: Any,
    scratch: Any, pref: Any,
) -> int:  # fmt: skip
    """Random completions from ``deck[lo:hi]``: for each of ``n_fills`` draws of
    ``need + extra`` cards, ``choice`` random picks of ``need`` of them in random order,
    stored as prefix sums of their codes in ``pref[s * choice + j, 0..need]``; when
    ``pref`` has the rows for foul repair (:func:`pref_rows`), the first pick's codes
    themselves, in order, in ``pref[n_fills * choice + s]`` for :func:`repaired_value`, followed
    by the draw's cards that pick throws. Returns how many codes that row holds (``need``
    without the rows).

    The extra cards stand for the cards a player will see but throw (Pineapple keeps 2
    of 3), and the best of the ``choice`` picks stands for his choosing which card goes
    where: a plain random completion undervalues every draw.
    """
    n = hi - lo
    take = min(need + extra, n)
    keep = pref.shape[0] > n_fills * choice  # the rows for repaired_value
    for i in range(n):
        scratch[i] = deck[lo + i]
    for s in range(n_fills):
        for i in range(take):  # partial Fisher-Yates: scratch[0:take] is the draw
            j = i + np.random.randint(0, n - i)
            c = scratch[j]
            scratch[j] = scratch[i]
            scratch[i] = c
        for g in range(choice):
            row = s * choice + g
            pref[row, 0] = 0
            for i in range(need):
                if g > 0 or take > need:
                    j = i + np.random.randint(0, take - i)
                    c = scratch[j]
                    scratch[j] = scratch[i]
                    scratch[i] = c
                pref[row, i + 1] = pref[row, i] + codes[scratch[i]]
                if keep and g == 0:
                    pref[n_fills * choice + s, i] = codes[scratch[i]]
            if keep and g == 0:  # the cards this pick throws, after its own
                for i in range(need, min(take, pref.shape[1])):
                    pref[n_fills * choice + s, i] = codes[scratch[i]]
    return min(take, pref.shape[1]) if keep else need


@inline_kernel
def pref_rows(n_fills: int, choice: int, pol: Any) -> int:
    """Rows of a completion buffer for :func:`draw_fills`: the prefix sums, plus one row
    of codes per draw only when the policy repairs fouls (the rollouts' hot path, and
    ``mc-v1``'s, does not)."""
    n_fills = max(n_fills, 1)
    return n_fills * max(choice, 1) + (n_fills if pol[POL_REPAIR] > 0 else 0)


@inline_kernel
def _swapped(s0: int, s1: int, s2: int, li: int, lj: int, d: int) -> tuple[int, int, int]:
    """The line code sums after a drawn card of line ``li`` is exchanged for one of line
    ``lj`` > ``li`` whose code is larger by ``d`` (line 3: a card the completion throws,
    which leaves no line)."""
    if li == 0:
        s0 += d
    elif li == 1:
        s1 += d
    else:
        s2 += d
    if lj == 1:
        s1 -= d
    elif lj == 2:
        s2 -= d
    return s0, s1, s2


@inline_kernel
def pick_value(
    c0: int, c1: int, c2: int, f0: int, f01: int, need: int, pref: Any, row: int, t3: Any,
    t5: Any, fo: Any, roy: Any, flv: Any, st: Any, w: float, foul_penalty: float,
) -> float:  # fmt: skip
    """The policy's value of the board a completion pick (row ``row`` of prefix sums)
    makes of lines summing to ``c0``, ``c1``, ``c2``."""
    return board_value(
        c0 + pref[row, f0], c1 + pref[row, f01] - pref[row, f0],
        c2 + pref[row, need] - pref[row, f01], t3, t5, fo, roy, flv, st, w, foul_penalty,
    )  # fmt: skip


@kernel
def repaired_value(
    c0: int, c1: int, c2: int, f0: int, f01: int, need: int, cards: Any, rounds: int,
    t3: Any, t5: Any, fo: Any, roy: Any, flv: Any, st: Any, w: float, foul_penalty: float,
    spare: int = 0,
) -> float:  # fmt: skip
    """The value of a completion whose arrangement ``cards`` (codes, in slot order: the
    first ``f0`` to the top, up to ``f01`` to the middle, the rest to the bottom) fouls,
    after up to ``rounds`` rounds of swapping two drawn cards between lines, each round
    taking the first swap that makes the board valid (then the best valid one found) or
    else the one that brings the lines closest to order; ``-foul_penalty`` if none does.
    ``spare`` cards after the ``need`` placed ones are cards the completion throws
    (Pineapple): a swap may also put one of them in place of a placed card.

    A few random arrangements rarely find the valid board behind a strong top (a pair of
    queens needs a middle above it): the policy then undervalues every Fantasyland top
    and, in one-card OFC, never makes one (docs/bots-research.md, *Round three*).
    """
    s0 = c0 + _span(cards, 0, f0)
    s1 = c1 + _span(cards, f0, f01)
    s2 = c2 + _span(cards, f01, need)
    best = -foul_penalty
    for _ in range(rounds):
        found = False
        gap_best = 1 << 62
        bi = -1
        bj = -1
        for i in range(need):
            li = 0 if i < f0 else (1 if i < f01 else 2)
            for j in range(i + 1, need + spare):
                lj = 0 if j < f0 else (1 if j < f01 else (2 if j < need else 3))
                if lj == li:
                    continue
                a0, a1, a2 = _swapped(s0, s1, s2, li, lj, cards[j] - cards[i])
                vt = t3[a0 >> 12]
                vm = t5[(a1 >> 12) + fo[a1 & 4095]]
                vb = t5[(a2 >> 12) + fo[a2 & 4095]]
                if vt <= vm and vm <= vb:
                    val = board_value(a0, a1, a2, t3, t5, fo, roy, flv, st, w, foul_penalty)
                    if val > best:
                        best = val
                    found = True
                elif not found:
                    gap = max(vt - vm, 0) + max(vm - vb, 0)
                    if gap < gap_best:
                        gap_best = gap
                        bi = i
                        bj = j
        if found or bi < 0:
            break
        # No single swap makes it valid: take the one closest to order, and go on.
        c = cards[bi]
        cards[bi] = cards[bj]
        cards[bj] = c
        s0 = c0 + _span(cards, 0, f0)
        s1 = c1 + _span(cards, f0, f01)
        s2 = c2 + _span(cards, f01, need)
    return best


@inline_kernel
def _span(cards: Any, lo: int, hi: int) -> int:
    total = 0
    for i in range(lo, hi):
        total += cards[i]
    return total


@kernel
def climbed_value(
    c0: int, c1: int, c2: int, f0: int, f01: int, need: int, cards: Any, rounds: int,
    val: float, t3: Any, t5: Any, fo: Any, roy: Any, flv: Any, st: Any, w: float,
    foul_penalty: float,
) -> float:  # fmt: skip
    """The value of the arrangement ``cards`` (codes in slot order, laid out as for
    :func:`repaired_value`; worth ``val``) after up to ``rounds`` rounds of the swap of two drawn
    cards between lines that raises the value most, while one does.

    Best-of-a-few random arrangements rarely find the structured boards a player steers
    his cards into (a flush in the bottom, a pair on top with the middle above it); a
    short hill climb finds many of them at a few dozen evaluations.
    """
    s0 = c0 + _span(cards, 0, f0)
    s1 = c1 + _span(cards, f0, f01)
    s2 = c2 + _span(cards, f01, need)
    for _ in range(rounds):
        best = val
        bi = -1
        bj = -1
        bd = 0
        for i in range(need):
            li = 0 if i < f0 else (1 if i < f01 else 2)
            for j in range(i + 1, need):
                lj = 0 if j < f0 else (1 if j < f01 else 2)
                if lj == li:
                    continue
                d = cards[j] - cards[i]
                a0, a1, a2 = _swapped(s0, s1, s2, li, lj, d)
                v = board_value(a0, a1, a2, t3, t5, fo, roy, flv, st, w, foul_penalty)
                if v > best:
                    best = v
                    bi = i
                    bj = j
                    bd = d
        if bi < 0:
            break
        li = 0 if bi < f0 else (1 if bi < f01 else 2)
        lj = 0 if bj < f0 else (1 if bj < f01 else 2)
        s0, s1, s2 = _swapped(s0, s1, s2, li, lj, bd)
        c = cards[bi]
        cards[bi] = cards[bj]
        cards[bj] = c
        val = best
    return val


@kernel
def _climbed_total(
    c0: int, c1: int, c2: int, f0: int, f01: int, need: int, fills: int, picks: int,
    rounds: int, pref: Any, scratch: Any, t3: Any, t5: Any, fo: Any, roy: Any, flv: Any,
    st: Any, w: float, foul_penalty: float,
) -> float:  # fmt: skip
    """A placement's policy total over its completions, each one's best pick improved by
    :func:`climbed_value` (the codes are read back from the prefix sums). Neither the foul
    repair nor a ``pick_max`` blend applies here: with those on as well, the second pass
    compares on another basis than the first (experiment knobs, not combined at any
    level)."""
    total = 0.0
    for s in range(fills):
        top = -1e300
        g_best = 0
        for g in range(picks):
            row = s * picks + g
            val = pick_value(c0, c1, c2, f0, f01, need, pref, row, t3, t5, fo, roy, flv, st,
                              w, foul_penalty)  # fmt: skip
            if val > top:
                top = val
                g_best = row
        for i in range(need):
            scratch[i] = pref[g_best, i + 1] - pref[g_best, i]
        total += climbed_value(c0, c1, c2, f0, f01, need, scratch, rounds, top, t3, t5, fo, roy,
                        flv, st, w, foul_penalty)  # fmt: skip
    return total


@kernel
def completions_total(
    c0: int, c1: int, c2: int, f0: int, f01: int, need: int, fills: int, picks: int,
    rounds: int, spare: int, t3: Any, t5: Any, fo: Any, roy: Any, flv: Any, st: Any, pol: Any,
    scratch: Any, pref: Any,
) -> tuple[float, int]:  # fmt: skip
    """A placement's policy total over its ``fills`` completions (the best of ``picks``
    picks each, a fouling one repaired by up to ``rounds`` rounds of swaps, blended with
    the picks' mean when the policy says so), and how many of them still foul. Lines sum
    to ``c0``, ``c1``, ``c2``; the completions are the prefix sums ``pref``
    (:func:`draw_fills`). Arrays come one by one, not as records, on this path that runs
    once per placement: unpacking a record costs a reference count per array."""
    w = pol[POL_W]
    foul_penalty = pol[POL_FOUL_PENALTY]
    pick_max = pol[POL_PICK_MAX]
    total = 0.0
    fouls = 0
    for s in range(fills):
        top = -1e300
        mean = 0.0
        for g in range(picks):
            val = pick_value(c0, c1, c2, f0, f01, need, pref, s * picks + g, t3, t5, fo, roy,
                             flv, st, w, foul_penalty)  # fmt: skip
            mean += val
            if val > top:
                top = val
        if rounds > 0 and top == -foul_penalty:
            top = _repaired_copy(c0, c1, c2, f0, f01, need, fills * picks + s, rounds, spare, t3,
                                 t5, fo, roy, flv, st, pol, scratch, pref)  # fmt: skip
        if top == -foul_penalty:
            fouls += 1
        if pick_max != 1.0:
            top = pick_max * top + (1.0 - pick_max) * mean / picks
        total += top
    return total, fouls


@kernel
def prepare_completions(
    deck: Any, lo: int, hi: int, need: int, fills: int, picks: int, pol: Any, codes: Any,
    scratch: Any, pref: Any,
) -> int:  # fmt: skip
    """Draw the completions of ``need`` cards from ``deck[lo:hi]`` into ``pref``
    (:func:`draw_fills`, with the cards the player will see but throw); returns how many
    thrown cards the foul repair may use (Pineapple, when the policy says so)."""
    spare = 0
    if need > 0 and fills > 0:
        extra = int(need * pol[POL_THROWN])
        kept = draw_fills(deck, lo, hi, need, extra, fills, picks, codes, scratch, pref)
        if pol[POL_REPAIR_SPARE] != 0.0:
            spare = kept - need
    elif need == 0:
        pref[0, 0] = 0
    return spare


@kernel
def _keep_top(tops: Any, top_d: Any, top_a: Any, total: float, d: int, a: int) -> None:
    """Insert placement (``d``, ``a``) worth ``total`` into the best ones so far, best first."""
    k = tops.shape[0] - 1
    while k > 0 and tops[k - 1] < total:
        tops[k] = tops[k - 1]
        top_d[k] = top_d[k - 1]
        top_a[k] = top_a[k - 1]
        k -= 1
    tops[k] = total
    top_d[k] = d
    top_a[k] = a


@kernel
def _climbed_best(
    board: Any, deck: Any, start: int, n_cards: int, need: int, fills: int, picks: int,
    learned: Any, top: Any, pt: Any, buffers: Any,
) -> tuple[int, int]:  # fmt: skip
    """The best of the placements ``top`` (totals, discards, patterns; best first) again,
    their completions improved by a hill climb (:func:`_climbed_total`), plus the learned
    term (``learned``: its weight, the cards placed after the street, the live counts)."""
    code, cnt, _ = board
    ev, roy, flv, st, vf, pol = pt
    codes, t3, t5, fo = ev
    scratch, pref = buffers
    res_w, placed_after, live = learned
    tops, top_d, top_a = top
    climb_rounds = int(pol[POL_CLIMB_ROUNDS])
    best = -1e300
    best_d = -1
    best_a = 0
    for k in range(tops.shape[0]):
        if tops[k] == -1e300:
            break
        _, c0, c1, c2, k0, k1 = pattern_sums(code, cnt, deck, start, n_cards, top_d[k],
                                             top_a[k], codes)  # fmt: skip
        f0 = 3 - k0
        f01 = f0 + 5 - k1
        total = _climbed_total(c0, c1, c2, f0, f01, need, fills, picks, climb_rounds, pref,
                               scratch, t3, t5, fo, roy, flv, st, pol[POL_W],
                               pol[POL_FOUL_PENALTY])  # fmt: skip
        if res_w != 0.0:
            total += res_w * learned_estimate(c0, c1, c2, k0, k1, placed_after - k0 - k1, t5,
                                              fo, vf, live, codes)  # fmt: skip
        if total > best:
            best = total
            best_d = top_d[k]
            best_a = top_a[k]
    return best_d, best_a


@inline_kernel
def _learned_weight(residual: float, need: int, fills: int) -> float:
    """The weight of the learned term in a placement's total: the correction (weight
    ``residual``) once per completion, as the totals sum them; with no completions the
    learned value of the board is the estimate."""
    if fills == 0:
        return 1.0
    return residual * fills if need > 0 else 0.0


@inline_kernel
def _climbers(climb: float, need: int, fills: int) -> int:
    """How many of a street's best placements the hill climb revisits (``climb``: the
    policy's number; 0: none; one placement alone has nothing to be compared with)."""
    n = int(climb) if need > 1 and fills != 0 else 0
    return n if n >= 2 else 0


@kernel
def policy_street(
    code: Any, cnt: Any, dz: Any, deck: Any, start: int, n_cards: int, n_place: int,
    n_disc: int, end: int, n_fills: int, choice: int, kind: int,
    ev: Any, roy: Any, flv: Any, st: Any, vf: Any, pol: Any,
    scratch: Any, pref: Any,
) -> None:  # fmt: skip
    """Place the street ``deck[start:start + n_cards]`` on the board (code sums ``code``,
    card counts ``cnt``, Finnish-deuce flags ``dz``, all updated in place).

    ``kind`` 0 is the fast policy (completions drawn from ``deck[start + n_cards:end]``,
    the cards not dealt yet); 1 is the timeout rule of RULES §10 (bottom, middle, top in
    the order dealt; the last card of a Pineapple street discarded). Its arrays come one
    by one, not as :attr:`Tables.policy_tables`, and the completions' loop is written out
    here: this runs for every street of every seat of every rollout, where unpacking a
    record or binding an inlined helper's arrays costs reference counts (measured: 10 to
    30 % slower).
    """
    codes, t3, t5, fo = ev
    if kind == 1:
        _timeout_street(code, cnt, dz, deck, start, n_place, codes)
        return
    placed = cnt[0] + cnt[1] + cnt[2]
    need = 13 - placed - n_place
    fills = n_fills if need > 0 else 1
    picks = choice if need > 0 else 1
    spare = 0
    if need > 0 and fills > 0:
        extra = int(need * pol[POL_THROWN])
        kept = draw_fills(deck, start + n_cards, end, need, extra, fills, picks, codes,
                           scratch, pref)  # fmt: skip
        if pol[POL_REPAIR_SPARE] != 0.0:
            spare = kept - need
    elif need == 0:
        pref[0, 0] = 0
    w = pol[POL_W]
    foul_penalty = pol[POL_FOUL_PENALTY]
    pick_max = pol[POL_PICK_MAX]
    rounds = int(pol[POL_REPAIR]) if need > 1 else 0
    n_climb = _climbers(pol[POL_CLIMB], need, fills)
    res_w = _learned_weight(pol[POL_RESIDUAL], need, fills)
    placed_after = placed + n_place
    if res_w != 0.0 and vf[1].shape[1] > RES_FEATURES:
        live = np.empty(LIVE_COUNTS, dtype=np.int64)
        count_live(deck, start + n_cards, end, live)
    else:  # never read (a narrow table has no live features): no allocation on the hot path
        live = pref[0]
    n_patterns = 3**n_place
    best = -1e300
    best_d = -1
    best_a = 0
    n_discards = n_cards if n_disc == 1 else 1
    if n_climb > 0:  # the n_climb best placements: total, discard, pattern
        tops = np.full(n_climb, -1e300)
        top_d = np.full(n_climb, -1, dtype=np.int64)
        top_a = np.zeros(n_climb, dtype=np.int64)
    for d in range(n_discards):
        if n_disc != 1:
            d = -1
        for a in range(n_patterns):
            ok, c0, c1, c2, k0, k1 = pattern_sums(code, cnt, deck, start, n_cards, d, a, codes)
            if not ok:
                continue
            f0 = 3 - k0
            f01 = f0 + 5 - k1
            total = 0.0
            for s in range(fills):
                top = -1e300
                mean = 0.0
                for g in range(picks):
                    val = pick_value(c0, c1, c2, f0, f01, need, pref, s * picks + g, t3, t5,
                                      fo, roy, flv, st, w, foul_penalty)  # fmt: skip
                    mean += val
                    if val > top:
                        top = val
                if rounds > 0 and top == -foul_penalty:
                    # A copy (the draws are done with ``scratch``): the swaps must not
                    # reach the other placements.
                    for i in range(need + spare):
                        scratch[i] = pref[fills * picks + s, i]
                    top = repaired_value(c0, c1, c2, f0, f01, need, scratch, rounds, t3, t5, fo,
                                         roy, flv, st, w, foul_penalty, spare)  # fmt: skip
                if pick_max != 1.0:
                    top = pick_max * top + (1.0 - pick_max) * mean / picks
                total += top
            if res_w != 0.0:
                total += res_w * learned_estimate(c0, c1, c2, k0, k1, placed_after - k0 - k1, t5,
                                                  fo, vf, live, codes)  # fmt: skip
            if total > best:
                best = total
                best_d = d
                best_a = a
            if n_climb > 0 and total > tops[n_climb - 1]:
                _keep_top(tops, top_d, top_a, total, d, a)
    if n_climb > 0 and tops[0] != -1e300:
        # The few best placements again, their completions improved by a hill climb: the
        # policy then plays for the boards a player would steer his cards into.
        best_d, best_a = _climbed_best((code, cnt, dz), deck, start, n_cards, need, fills,
                                       picks, (res_w, placed_after, live), (tops, top_d, top_a),
                                       (ev, roy, flv, st, vf, pol), (scratch, pref))  # fmt: skip
    place_street(code, cnt, dz, deck, start, n_cards, best_d, best_a, codes)


@kernel
def _repaired_copy(
    c0: int, c1: int, c2: int, f0: int, f01: int, need: int, row: int, rounds: int, spare: int,
    t3: Any, t5: Any, fo: Any, roy: Any, flv: Any, st: Any, pol: Any, scratch: Any, pref: Any,
) -> float:  # fmt: skip
    """:func:`repaired_value` of the completion kept in row ``row`` of ``pref``, on a copy
    (the draws are done with ``scratch``): the swaps must not reach the other placements."""
    for i in range(need + spare):
        scratch[i] = pref[row, i]
    return repaired_value(
        c0,
        c1,
        c2,
        f0,
        f01,
        need,
        scratch,
        rounds,
        t3,
        t5,
        fo,
        roy,
        flv,
        st,
        pol[POL_W],
        pol[POL_FOUL_PENALTY],
        spare,
    )


@inline_kernel
def _place(code: Any, cnt: Any, dz: Any, line: int, c: int, codes: Any) -> None:
    code[line] += codes[c]
    cnt[line] += 1
    if c == 0:
        dz[line] = 1


@inline_kernel
def place_street(
    code: Any, cnt: Any, dz: Any, deck: Any, start: int, n_cards: int, d: int, a: int,
    codes: Any,
) -> None:  # fmt: skip
    """Place the street ``deck[start:start + n_cards]`` but card ``d`` by the base-3
    digits of ``a`` (as :func:`pattern_sums` reads them)."""
    x = a
    for i in range(n_cards):
        if i == d:
            continue
        _place(code, cnt, dz, x % 3, deck[start + i], codes)
        x //= 3


@kernel
def random_street(
    code: Any, cnt: Any, dz: Any, deck: Any, start: int, n_cards: int, n_place: int,
    n_disc: int, codes: Any,
) -> None:  # fmt: skip
    """Place the street ``deck[start:start + n_cards]`` in a uniformly random legal way
    (the exploration of self-play training)."""
    while True:
        d = np.random.randint(0, n_cards) if n_disc == 1 else -1
        a = np.random.randint(0, 3**n_place)
        if pattern_sums(code, cnt, deck, start, n_cards, d, a, codes)[0]:
            break
    place_street(code, cnt, dz, deck, start, n_cards, d, a, codes)


@kernel
def _timeout_street(
    code: Any, cnt: Any, dz: Any, deck: Any, start: int, n_place: int, codes: Any
) -> None:
    """The timeout rule of RULES §10: bottom, middle, top in the order dealt."""
    for i in range(n_place):
        line = 2 if cnt[2] < 5 else (1 if cnt[1] < 5 else 0)
        _place(code, cnt, dz, line, deck[start + i], codes)


@inline_kernel
def pattern_sums(
    code: Any, cnt: Any, deck: Any, start: int, n_cards: int, d: int, a: int, codes: Any
) -> tuple[bool, int, int, int, int, int]:
    """Line code sums and the top and middle card counts after placing the street's cards
    (but card ``d``) by the base-3 digits of ``a``; false if a line overflows."""
    c0, c1, c2 = code[0], code[1], code[2]
    k0, k1, k2 = cnt[0], cnt[1], cnt[2]
    x = a
    for i in range(n_cards):
        if i == d:
            continue
        line = x % 3
        x //= 3
        v = codes[deck[start + i]]
        if line == 0:
            c0 += v
            k0 += 1
        elif line == 1:
            c1 += v
            k1 += 1
        else:
            c2 += v
            k2 += 1
    return k0 <= 3 and k1 <= 5 and k2 <= 5, c0, c1, c2, k0, k1
