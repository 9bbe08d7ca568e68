"""The settlement kernels: completed open-face boards settled exactly as the scorer does
(line points, the overall unit and the scoop, royalties under the award mode, the
Finnish deuce, fouls), plus the value of earning or keeping Fantasyland."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from chinese_poker.ai.rollout.jit import kernel
from chinese_poker.ai.rollout.parameters import (
    AWARD_BEST,
    AWARD_CANCEL,
    AWARD_NET,
    POL_FL_ENABLED,
    POL_FL_PER_OPP,
    POL_STAY_BOTTOM_MIN,
    POL_STAY_MIDDLE_MIN,
    POL_STAY_VALUE,
    SC_AWARD,
    SC_DEUCE_FOULED,
    SC_FINNISH,
    SC_FOUL_PAYS,
    SC_FOUL_VALUE,
    SC_MAX_ONE,
    SC_PENALISED,
    SC_SHOWDOWN,
    SC_SPLIT_TIES,
)


@kernel
def fill_line_values(code: Any, t3: Any, t5: Any, fo: Any, out: Any) -> None:
    out[0] = t3[code[0] >> 12]
    out[1] = t5[(code[1] >> 12) + fo[code[1] & 4095]]
    out[2] = t5[(code[2] >> 12) + fo[code[2] & 4095]]


@kernel
def seat_royalties(vals: Any, fouled: bool, roy: Any, sc: Any, out: Any) -> None:
    """A seat's royalties per line as the scorer pays them: none when fouled, and under
    ``max_royalties_per_hand = 1`` only the biggest (equal amounts: the lowest line's)."""
    for line in range(3):
        out[line] = 0.0 if fouled else roy[line, vals[line] >> 16]
    if sc[SC_MAX_ONE] != 0:
        keep = 2
        for line in (1, 0):
            if out[line] > out[keep]:
                keep = line
        for line in range(3):
            if line != keep:
                out[line] = 0.0


@kernel
def _best_lines(vals: Any, roys: Any, n: int, out: Any) -> None:
    """Per line, the strongest value among the first ``n`` seats holding a royalty there
    (-1 if none): the best at the table (fouled seats hold no royalties); ``out[3 + line]``
    counts the seats holding it."""
    for line in range(3):
        out[line] = -1
        out[3 + line] = 0
        for j in range(n):
            if roys[j, line] != 0.0:
                if vals[j, line] > out[line]:
                    out[line] = vals[j, line]
                    out[3 + line] = 1
                elif vals[j, line] == out[line]:
                    out[3 + line] += 1


@kernel
def _foul_points(wr: Any, wdl: int, ldl: int, sc: Any) -> float:
    """What a fouled board pays the valid board ``wr`` (its royalties, by line)."""
    total = float(sc[SC_FOUL_VALUE])
    if sc[SC_FOUL_PAYS] != 0:
        doubled = -1
        if sc[SC_FINNISH] != 0:
            if wdl >= 0:
                doubled = wdl
            elif sc[SC_DEUCE_FOULED] != 0:
                doubled = ldl
        for line in range(3):
            total += 2.0 * wr[line] if line == doubled else wr[line]
    return total


@kernel
def _pair_points(
    av: Any, ar: Any, adl: int, afoul: bool, bv: Any, br: Any, bdl: int, bfoul: bool,
    best: Any, sc: Any,
) -> float:  # fmt: skip
    """What B pays A (RULES §7.3 for two open-face boards): ``av``/``bv`` line values,
    ``ar``/``br`` royalties (:func:`seat_royalties`), ``adl``/``bdl`` the line holding
    the Finnish deuce or -1, ``best`` the best royalty value per line at the table and
    how many seats hold it (:func:`_best_lines`)."""
    if afoul and bfoul:
        return 0.0
    if bfoul:
        return _foul_points(ar, adl, bdl, sc)
    if afoul:
        return -_foul_points(br, bdl, adl, sc)
    # int(): numpy booleans do not subtract when the kernels run without numba.
    w0 = int(av[0] > bv[0]) - int(av[0] < bv[0])
    w1 = int(av[1] > bv[1]) - int(av[1] < bv[1])
    w2 = int(av[2] > bv[2]) - int(av[2] < bv[2])
    total = float(sc[SC_SHOWDOWN + 13 + 9 * w0 + 3 * w1 + w2])  # lines, overall, scoop
    doubled = -1
    if sc[SC_FINNISH] != 0:
        doubled = adl if adl >= 0 else bdl
    for line in range(3):
        if ar[line] != 0.0 or br[line] != 0.0:
            f = 2.0 if line == doubled else 1.0
            total += f * _line_royalty(line, av, ar, bv, br, best, sc)
    return total


@kernel
def _line_royalty(line: int, av: Any, ar: Any, bv: Any, br: Any, best: Any, sc: Any) -> float:
    """What B pays A for one line's royalties under the award mode (§7.5)."""
    ra: float = ar[line]
    rb: float = br[line]
    award = sc[SC_AWARD]
    if award == AWARD_NET:
        return ra - rb
    if award == AWARD_BEST:
        a_best = ra != 0.0 and av[line] == best[line]
        b_best = rb != 0.0 and bv[line] == best[line]
        share = best[3 + line] if sc[SC_SPLIT_TIES] != 0 else 1
        if a_best and not b_best:
            return float(math.floor(ra / share))
        if b_best and not a_best:
            return -float(math.floor(rb / share))
        return 0.0
    if award == AWARD_CANCEL and ra != 0.0 and rb != 0.0:
        return 0.0
    if av[line] > bv[line]:
        return ra
    if av[line] < bv[line]:
        return -rb
    return 0.0


@kernel
def table_points(vals: Any, dls: Any, roy: Any, sc: Any, out: Any) -> None:
    """Each seat's points against all the others (complete boards: ``vals`` line values,
    ``dls`` Finnish-deuce lines), settled with the same kernels as the rollouts."""
    n = vals.shape[0]
    roys = np.zeros((n, 3), dtype=np.float64)
    fouled = np.zeros(n, dtype=np.bool_)
    best = np.full(6, -1, dtype=np.int64)
    for j in range(n):
        fouled[j] = sc[SC_PENALISED] != 0 and (vals[j, 0] > vals[j, 1] or vals[j, 1] > vals[j, 2])
        seat_royalties(vals[j], fouled[j], roy, sc, roys[j])
    if sc[SC_AWARD] == AWARD_BEST:
        _best_lines(vals, roys, n, best)
    for i in range(n):
        out[i] = 0.0
        for j in range(n):
            if j != i:
                out[i] += _pair_points(vals[i], roys[i], dls[i], fouled[i], vals[j], roys[j],
                                       dls[j], fouled[j], best, sc)  # fmt: skip


@kernel
def finish_board(
    code: Any, dz: Any, ev: Any, roy: Any, sc: Any, vals: Any, roys: Any
) -> tuple[int, bool, bool]:
    """A completed board's line values and royalties (into ``vals``/``roys``); returns
    (its Finnish-deuce line, whether it pays a foul, whether it breaks the line order)."""
    _, t3, t5, fo = ev
    fill_line_values(code, t3, t5, fo, vals)
    misset = vals[0] > vals[1] or vals[1] > vals[2]
    fouled = sc[SC_PENALISED] != 0 and misset
    seat_royalties(vals, fouled, roy, sc, roys)
    return deuce_line(dz), fouled, misset


@kernel
def _fantasyland_earned(mine: Any, in_fl: bool, flv: Any, pol: Any) -> tuple[bool, float]:
    """Whether a valid board earns Fantasyland (an entry, or a stay when already in it),
    and what that is worth."""
    if in_fl:
        stays = pol[POL_FL_ENABLED] != 0.0 and (
            (mine[0] >> 20) == 3  # trips on top always stay (§9.4)
            or (mine[2] >> 20) >= pol[POL_STAY_BOTTOM_MIN]
            or (mine[1] >> 20) >= pol[POL_STAY_MIDDLE_MIN]
        )  # fmt: skip
        return stays, float(pol[POL_STAY_VALUE])
    bonus = float(flv[mine[0] >> 16])
    return bonus > 0.0, bonus


@kernel
def deuce_line(dz: Any) -> int:
    for line in range(3):
        if dz[line] != 0:
            return line
    return -1


@kernel
def our_points(
    code: Any, dz: Any, in_fl: bool, seats: Any, settle: Any
) -> tuple[float, bool, bool]:
    """Our completed board (code sums ``code``, deuce flags ``dz``) settled against the
    opponents', plus the value of earning Fantasyland; returns (points, whether it pays a
    foul, whether it earns Fantasyland). ``seats``: every seat's line values and
    royalties (``vals``, ``roys``: the opponents' rows, then ours, which this fills), the
    opponents' Finnish-deuce lines and fouls, and the best lines' buffer
    (:func:`_best_lines`); ``settle``: the evaluation look-ups, royalties, scoring
    parameters (``SC_*``), Fantasyland values and the policy (``POL_*``)."""
    vals, roys, odl, ofoul, best = seats
    ev, roy, sc, flv, pol = settle
    n_opp = vals.shape[0] - 1
    mine = vals[n_opp]
    myroy = roys[n_opp]
    dl, fouled, misset = finish_board(code, dz, ev, roy, sc, mine, myroy)
    if sc[SC_AWARD] == AWARD_BEST:
        _best_lines(vals, roys, n_opp + 1, best)
    total = 0.0
    for j in range(n_opp):
        total += _pair_points(mine, myroy, dl, fouled, vals[j], roys[j], odl[j], ofoul[j],
                              best, sc)  # fmt: skip
    earned = False
    if not misset:
        earned, value = _fantasyland_earned(mine, in_fl, flv, pol)
        if earned:
            # The points above are summed over the opponents; the value is one
            # opponent's (a heads-up figure) unless the policy counts it per opponent.
            total += value * (n_opp if pol[POL_FL_PER_OPP] != 0.0 else 1)
    return total, fouled, earned
