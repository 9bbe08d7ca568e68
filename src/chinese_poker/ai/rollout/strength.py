"""The line strength: for each line and (category, leading rank) bucket (``value >> 16``),
the chance that a typical completed valid board's same line is weaker, and that it is
stronger (the fast policy values a line at ``w`` x their difference beyond its royalty).
The tables are data files in the package's data, in the form ``bench/bench_bots.py
--strength`` prints."""

from __future__ import annotations

import json
from collections.abc import Sequence
from enum import StrEnum
from functools import lru_cache
from importlib import resources

import numpy as np
import numpy.typing as npt

__all__ = [
    "LineStrength",
    "policy_strength_path",
    "strength_from_values",
    "strength_table",
    "strength_table_path",
]

F64 = npt.NDArray[np.float64]


class LineStrength(StrEnum):
    """Whose completed boards a line-strength table was estimated from."""

    #: The policy's own boards, completed from scratch with no opponent: 40,000 Pineapple
    #: boards, iterated twice from a rougher table (``data/line_strength_policy.json``);
    #: every level's of ``mc`` and ``mc-v1``, in every variant (OFC and Turbo too).
    POLICY = "policy"
    #: The boards the bots make at the table: heads-up Pineapple hands of ``mc`` against
    #: ``mc-v1`` (``data/line_strength_table.json``, ``bench/bench_bots.py
    #: --strength-from-play``), so that a line's strength is its chance against the line
    #: the bots make at the table. Estimated from Pineapple boards only; an experiment
    #: (docs/bots-research.md, *Round nine*).
    TABLE = "table"


def strength_table(kind: LineStrength = LineStrength.POLICY) -> F64:
    """The line-strength table (3 x 256, by line and ``value >> 16``).

    >>> t = strength_table(LineStrength.TABLE)
    >>> t.shape, bool(t[2, 0x62] > t[2, 0x4e] > t[2, 0x1e])  # full house, straight, pair
    ((3, 256), True)
    """
    return _strength_array(LineStrength(kind))


def strength_table_path() -> str:
    """Where the :attr:`LineStrength.TABLE` estimate is kept (in the package's data)."""
    return str(resources.files("chinese_poker") / "data" / "line_strength_table.json")


def policy_strength_path() -> str:
    """Where the :attr:`LineStrength.POLICY` estimate is kept (in the package's data)."""
    return str(resources.files("chinese_poker") / "data" / "line_strength_policy.json")


@lru_cache(maxsize=2)
def _strength_array(kind: LineStrength) -> F64:
    path = policy_strength_path() if kind is LineStrength.POLICY else strength_table_path()
    with open(path, encoding="utf-8") as f:
        cdf: Sequence[Sequence[Sequence[float]]] = json.load(f)["lines"]
    table = np.zeros((3, 256), dtype=np.float64)
    for line, rows in enumerate(cdf):
        for hi, below, above in rows:
            table[line, int(hi)] = below - above
    table.setflags(write=False)
    return table


def strength_from_values(values: npt.ArrayLike) -> list[list[tuple[int, float, float]]]:
    """Estimate the strength table from completed valid boards' line values (N x 3).

    For every (line, bucket) seen: (bucket, P(line below the bucket), P(line above)).
    """
    arr = np.asarray(values, dtype=np.int64)
    out: list[list[tuple[int, float, float]]] = []
    for line in range(3):
        hi = arr[:, line] >> 16
        counts = np.bincount(hi, minlength=256).astype(np.float64)
        total = counts.sum()
        below = np.concatenate(([0.0], np.cumsum(counts)[:-1])) / total
        above = 1.0 - below - counts / total
        rows = []
        for h in range(256):
            cat, rank = h >> 4, h & 15
            if cat <= 8 and 2 <= rank <= 14 and (line > 0 or cat in (0, 1, 3)):
                rows.append((h, round(float(below[h]), 4), round(float(max(above[h], 0.0)), 4)))
        out.append(rows)
    return out
