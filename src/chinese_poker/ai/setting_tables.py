"""Opponent tables for the classic setting solver: what a reasonable opponent's lines look like.

The solver (:mod:`chinese_poker.ai.setting`) scores a setting against a model of the
opponents: players who set their own random 13 cards with a reasonable setter. This module
estimates that model by simulation and stores it as small ``.npz`` files in the package
(``chinese_poker/data/setting_<mode>.npz``).

A table holds, for each line (top, middle, bottom), a histogram of the opponent's line
value over *value indices*: the position of a value among the distinct values a line can
take (455 for a three-card top, 7462 for a five-card line; see :func:`value_scale`). The
histograms are split into ``strata`` by the strength of the opponent's middle and bottom, so the
solver can model the correlation between an opponent's lines (lines are taken as
independent only within a stratum), and into hands the setter plays and hands it would
surrender. The table also counts naturals and fouls.

There is one table per *mode*, the part of the rules that changes how lines compare:

========================  =============================================  ============
mode                      rules                                          opponents
========================  =============================================  ============
``high``                  ``middle_mode = high``, ``wheel_rank = lowest``  ``classic``
``wheel``                 ``wheel_rank = second_highest``                 ``classic-wheel``
``lowball``               ``middle_mode = lowball_2_7``                   ``classic-low-middle``
``lowball_wheel``         both                                            (not shipped)
========================  =============================================  ============

Build the shipped tables (reproducible from the seed) with::

    python -m chinese_poker.ai.setting_build --hands 50000 --seed 1 --iterations 2

(the builder is its own module because building needs the solver, which reads these
tables: this module never imports it).

The solver prefers a *family*'s equilibrium table (:mod:`chinese_poker.ai.equilibrium`)
to its mode's: :data:`FAMILIES` ship, others are built on demand into the user cache, keyed
by :func:`family_digest` (:func:`table_for`).

A mode without a shipped table is built small on first use and cached under the user
cache directory (``$CHINESE_POKER_CACHE``, else ``$XDG_CACHE_HOME/chinese-poker``, else
``~/.cache/chinese-poker``).

>>> len(value_scale(0, "high")), len(value_scale(2, "high")), len(value_scale(1, "lowball"))
(455, 7462, 7462)
>>> mode_of(rules_for("classic-low-middle")), mode_of(rules_for("classic-wheel"))
('lowball', 'wheel')
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np
import numpy.typing as npt

from chinese_poker.cards import Board, Card
from chinese_poker.evaluate import evaluate_batch, evaluate_low27_batch
from chinese_poker.rules import NATURALS, Rules, rules_for

__all__ = [
    "FAMILIES",
    "MODES",
    "TABLE_VERSION",
    "Mode",
    "OpponentTable",
    "Setter",
    "TableSetters",
    "build_table",
    "cache_dir",
    "deal_and_set",
    "family_cache_path",
    "family_digest",
    "family_key",
    "family_options",
    "family_path",
    "load_table",
    "mode_of",
    "mode_rules",
    "table_for",
    "table_from",
    "table_path",
    "value_scale",
]

Mode = Literal["high", "wheel", "lowball", "lowball_wheel"]
MODES: tuple[Mode, ...] = ("high", "wheel", "lowball", "lowball_wheel")
#: Bumped whenever the file format or the meaning of the histograms changes.
TABLE_VERSION = 1
#: The modes whose tables ship in the package.
SHIPPED: tuple[Mode, ...] = ("high", "wheel", "lowball")

_MODE_PRESETS: dict[Mode, tuple[str, dict[str, str]]] = {
    "high": ("classic", {}),
    "wheel": ("classic-wheel", {}),
    "lowball": ("classic-low-middle", {}),
    "lowball_wheel": ("classic-low-middle", {"wheel_rank": "second_highest"}),
}
#: Hands simulated per pass when a missing table is built on the fly.
ON_THE_FLY_HANDS = 2000
DEFAULT_STRATA = 9

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
F64 = npt.NDArray[np.float64]


def mode_of(rules: Rules) -> Mode:
    """The table mode of ``rules``: how the middle is ranked and where the wheel sits."""
    sc = rules.spec.scoring
    low = sc.lowball_middle
    wheel = sc.wheel == "second_highest"
    if low:
        return "lowball_wheel" if wheel else "lowball"
    return "wheel" if wheel else "high"


def mode_rules(mode: Mode) -> Rules:
    """The ruleset the opponents of a mode's table are simulated under.

    >>> mode_rules("wheel").wheel_rank
    'second_highest'
    """
    if mode not in _MODE_PRESETS:
        raise ValueError(f"unknown table mode {mode!r}; modes: {', '.join(MODES)}")
    preset, overrides = _MODE_PRESETS[mode]
    return rules_for(preset, **overrides)


# --------------------------------------------------------------------------- value scales


@cache
def _representatives(kind: str) -> tuple[I32, npt.NDArray[np.int8]]:
    """Every distinct value of a line kind, ascending, with one set of cards for each.

    ``kind`` is ``three``, ``five-lowest``, ``five-second_highest`` or ``low``.
    """
    if kind == "three":
        # Equal ranks get different suits by position: suits never matter on top.
        rows = np.array(
            [[r * 4 + _nth(m, i) for i, r in enumerate(m)] for m in _multisets(3)], dtype=np.int64
        )
        values = evaluate_batch(rows)
    else:
        hands5: list[list[int]] = []
        for m in _multisets(5):
            if len(set(m)) == 5:
                hands5.append([m[0] * 4 + 1] + [r * 4 for r in m[1:]])  # off-suit
                hands5.append([r * 4 for r in m])  # suited
            else:
                hands5.append([r * 4 + _nth(m, i) for i, r in enumerate(m)])
        rows = np.array(hands5, dtype=np.int64)
        if kind == "low":
            values = evaluate_low27_batch(rows)
        else:
            values = evaluate_batch(rows, wheel="second_highest" if "second" in kind else "lowest")
    order = np.argsort(values, kind="stable")
    values = values[order]
    rows = rows[order]
    if len(np.unique(values)) != len(values):  # pragma: no cover - a broken evaluator
        raise RuntimeError(f"two representatives of {kind} lines share a value")
    return values.astype(np.int32), rows.astype(np.int8)


def _multisets(size: int) -> list[tuple[int, ...]]:
    return [
        m
        for m in itertools.combinations_with_replacement(range(13), size)
        if max(m.count(r) for r in m) <= 4
    ]


def _nth(m: tuple[int, ...], i: int) -> int:
    """How many earlier positions of ``m`` hold the same rank (the suit to give it)."""
    return m[:i].count(m[i])


def _kind(line: int, mode: Mode) -> str:
    if line == 0:
        return "three"
    if line == 1 and mode in ("lowball", "lowball_wheel"):
        return "low"
    return "five-second_highest" if mode in ("wheel", "lowball_wheel") else "five-lowest"


def value_scale(line: int, mode: Mode) -> I32:
    """The distinct comparison values of ``line`` (0 top, 1 middle, 2 bottom), ascending.

    A line's *value index* is its position here (``np.searchsorted``). The middle of the
    lowball modes uses deuce-to-seven low values (higher is the better low).

    >>> scale = value_scale(2, "wheel")
    >>> bool((np.diff(scale) > 0).all())
    True
    """
    return _representatives(_kind(line, mode))[0]


def representative_cards(line: int, mode: Mode) -> npt.NDArray[np.int8]:
    """One set of cards for each value of :func:`value_scale` (same order)."""
    return _representatives(_kind(line, mode))[1]


# --------------------------------------------------------------------------- the table


@dataclass(frozen=True, eq=False)
class OpponentTable:
    """Simulated opponent lines for one mode.

    ``counts[line]`` has shape ``(2, strata, values)``: how many simulated opponents set
    ``line`` to each value index, in each stratum, among hands the setter played (``[0]``)
    and hands it would have surrendered (``[1]``). ``naturals`` counts the hands that held
    each natural (in :data:`~chinese_poker.rules.NATURALS` order), ``fouls`` the fouled
    boards; neither kind is in the histograms. ``hands`` is every simulated hand.
    """

    mode: Mode
    counts: tuple[I64, I64, I64]
    hands: int
    naturals: tuple[int, int, int, int]
    fouls: int
    seed: int
    setter: str
    meta: dict[str, Any]

    @property
    def strata(self) -> int:
        return int(self.counts[0].shape[1])

    @property
    def played(self) -> int:
        """Hands in the histograms (played or surrendered, no natural, no foul)."""
        return int(self.counts[0].sum())

    def save(self, path: str | Path) -> None:
        """Write the table as a compressed ``.npz`` file."""
        meta = dict(self.meta)
        meta.update(
            version=TABLE_VERSION, mode=self.mode, hands=self.hands, fouls=self.fouls,
            seed=self.seed, setter=self.setter, naturals=list(self.naturals),
        )  # fmt: skip
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + f".{os.getpid()}.tmp.npz")
        np.savez_compressed(
            tmp,
            top=self.counts[0].astype(np.int32),
            middle=self.counts[1].astype(np.int32),
            bottom=self.counts[2].astype(np.int32),
            meta=np.array(json.dumps(meta, sort_keys=True)),
        )
        os.replace(tmp, target)

    @classmethod
    def load(cls, path: str | Path) -> OpponentTable:
        """Read a table written by :meth:`save`; raises ``ValueError`` if it is unusable."""
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            counts = tuple(data[name].astype(np.int64) for name in ("top", "middle", "bottom"))
        if meta.get("version") != TABLE_VERSION:
            raise ValueError(f"{path}: table version {meta.get('version')} != {TABLE_VERSION}")
        mode = meta["mode"]
        if mode not in MODES:
            raise ValueError(f"{path}: unknown mode {mode!r}")
        for line, arr in enumerate(counts):
            want = len(value_scale(line, mode))
            if arr.ndim != 3 or arr.shape[0] != 2 or arr.shape[2] != want:
                raise ValueError(f"{path}: line {line} histogram has shape {arr.shape}")
        return cls(
            mode=mode,
            counts=(counts[0], counts[1], counts[2]),
            hands=int(meta["hands"]),
            naturals=cast(tuple[int, int, int, int], tuple(int(x) for x in meta["naturals"])),
            fouls=int(meta["fouls"]),
            seed=int(meta["seed"]),
            setter=str(meta["setter"]),
            meta=meta,
        )


# --------------------------------------------------------------------------- building

#: A setter for simulation: cards -> (board, would surrender, natural kind or None).
Setter = Callable[[Sequence[Card]], tuple[Board, bool, str | None]]


@dataclass(frozen=True)
class TableSetters:
    """How simulated opponents set their hands while a table is built: ``first`` (stage
    0, from the rules) and ``next`` (later stages, from the rules and the previous
    stage's table). The solver passes its own (:data:`chinese_poker.ai.setting.
    TABLE_SETTERS`): given, not imported, so that this module never imports the solver
    that reads its tables."""

    first: Callable[[Rules], Setter]
    next: Callable[[Rules, OpponentTable], Setter]


@dataclass(frozen=True, eq=False)
class Dealt:
    """The lines one setter made on simulated hands: value indices ``idx`` (hands x 3)
    of the boards it played, whether it would have surrendered each, and the hands it
    held a natural on or fouled (not in ``idx``)."""

    idx: I64
    surrendered: npt.NDArray[np.bool_]
    naturals: tuple[int, int, int, int]
    fouls: int
    hands: int


def deal_and_set(
    mode: Mode,
    setter: Setter,
    *,
    hands: int,
    seed: int,
    stage: int,
    name: str = "",
    rules: Rules | None = None,
    log: Callable[[str], None] | None = None,
) -> Dealt:
    """Set ``hands`` random hands (dealt from ``default_rng([seed, stage])``, four hands
    to a deck) with ``setter`` and record the lines; ``rules`` (default: the mode's)
    decide which boards foul (a low-middle qualifier, say)."""
    from chinese_poker.scoring import is_fouled, line_values

    if rules is None:
        rules = mode_rules(mode)
    elif mode_of(rules) != mode:
        raise ValueError(f"rules of mode {mode_of(rules)!r} cannot fill a {mode!r} table")
    rng = np.random.default_rng([seed, stage])
    scales = [value_scale(line, mode) for line in range(3)]
    idx = np.zeros((hands, 3), dtype=np.int64)
    surrendered = np.zeros(hands, dtype=np.bool_)
    naturals: dict[str, int] = dict.fromkeys(NATURALS, 0)
    fouls = 0
    kept = 0
    started = time.perf_counter()
    deck: list[int] = []
    for n in range(hands):
        if n % 4 == 0:
            deck = [int(c) for c in rng.permutation(52)]
        cards = deck[13 * (n % 4) : 13 * (n % 4) + 13]
        board, surrender, natural = setter(cards)
        if natural is not None:
            naturals[natural] += 1
            continue
        if is_fouled(rules, board):
            fouls += 1
            continue
        values = line_values(rules, board)
        for line in range(3):
            idx[kept, line] = int(np.searchsorted(scales[line], values[line]))
        surrendered[kept] = surrender
        kept += 1
        if log is not None and (n + 1) % 5000 == 0:
            rate = (n + 1) / (time.perf_counter() - started)
            log(f"  {mode} {name}: {n + 1}/{hands} hands ({rate:.0f}/s)")
    return Dealt(idx[:kept], surrendered[:kept],
                 cast(tuple[int, int, int, int], tuple(naturals[k] for k in NATURALS)),
                 fouls, hands)  # fmt: skip


def table_from(
    mode: Mode, parts: Sequence[Dealt], *, strata: int, seed: int, setter: str,
    meta: dict[str, Any],
) -> OpponentTable:  # fmt: skip
    """The table of the pooled lines of ``parts`` (a uniform mixture of their setters
    when every part has the same number of hands), strata cut over the pool."""
    idx = np.concatenate([p.idx for p in parts])
    surrendered = np.concatenate([p.surrendered for p in parts])
    stratum = _strata_of(idx, strata)
    counts: list[I64] = []
    for line in range(3):
        arr = np.zeros((2, strata, len(value_scale(line, mode))), dtype=np.int64)
        np.add.at(arr, (surrendered.astype(np.int64), stratum, idx[:, line]), 1)
        counts.append(arr)
    naturals = tuple(sum(p.naturals[i] for p in parts) for i in range(len(NATURALS)))
    return OpponentTable(
        mode=mode,
        counts=(counts[0], counts[1], counts[2]),
        hands=sum(p.hands for p in parts),
        naturals=cast(tuple[int, int, int, int], naturals),
        fouls=sum(p.fouls for p in parts),
        seed=seed,
        setter=setter,
        meta={"strata_key": "middle bins x bottom bins", **meta},
    )


def _simulate(
    mode: Mode,
    setter: Setter,
    *,
    hands: int,
    seed: int,
    stage: int,
    strata: int,
    name: str,
    log: Callable[[str], None] | None,
) -> OpponentTable:
    dealt = deal_and_set(mode, setter, hands=hands, seed=seed, stage=stage, name=name, log=log)
    return table_from(mode, [dealt], strata=strata, seed=seed, setter=name,
                      meta={"stage": stage})  # fmt: skip


def _equal_bins(key: I64, bins: int) -> I64:
    """Equal-count bins of ``key`` (ties split by arrival order)."""
    n = key.shape[0]
    order = np.argsort(key, kind="stable")
    out = np.empty(n, dtype=np.int64)
    out[order] = (np.arange(n) * bins) // max(n, 1)
    return out


def _strata_of(idx: I64, strata: int) -> I64:
    """Stratum of each simulated hand: middle strength bins, then bottom bins within.

    With ``strata = k1 * k2`` (``k1`` the rounded square root), the hands are cut into
    ``k1`` equal-count bins by middle value, and each of those into ``k2`` by bottom
    value. Lines are independent only within a stratum, which captures most of the
    correlation between an opponent's lines (docs/solvers.md).
    """
    k1 = max(1, round(strata**0.5))
    k2 = strata // k1
    middle = _equal_bins(idx[:, 1], k1)
    out = np.empty(idx.shape[0], dtype=np.int64)
    for j in range(k1):
        sel = np.flatnonzero(middle == j)
        out[sel] = j * k2 + _equal_bins(idx[sel, 2], k2)
    return out


def build_table(
    mode: Mode,
    *,
    setters: TableSetters,
    hands: int,
    seed: int = 1,
    iterations: int = 2,
    strata: int = DEFAULT_STRATA,
    log: Callable[[str], None] | None = None,
) -> OpponentTable:
    """Simulate the opponents of ``mode`` and return their table.

    Stage 0 sets ``hands`` random hands with ``setters.first`` (the solver's: its
    heuristic); each of the ``iterations`` later stages sets fresh hands with
    ``setters.next`` (the solver's: the solver playing against the previous stage's
    table, 3 opponents). The result is a pure function of the
    arguments: each stage deals from ``numpy.random.default_rng([seed, stage])``.
    """
    if hands < 4 * strata or strata < 1:
        raise ValueError(f"need at least {4 * strata} hands for {strata} strata, got {hands}")
    rules = mode_rules(mode)
    table = _simulate(
        mode, setters.first(rules), hands=hands, seed=seed, stage=0, strata=strata,
        name="heuristic", log=log,
    )  # fmt: skip
    for stage in range(1, iterations + 1):
        table = _simulate(
            mode, setters.next(rules, table), hands=hands, seed=seed, stage=stage,
            strata=strata, name=f"solver-{stage}", log=log,
        )  # fmt: skip
    table.meta.update(iterations=iterations, hands_per_stage=hands)
    return table


# --------------------------------------------------------------------------- loading


def table_path(mode: Mode) -> Path:
    """Where the package ships (or would ship) the table of ``mode``."""
    return Path(str(resources.files("chinese_poker") / "data" / f"setting_{mode}.npz"))


def cache_dir() -> Path:
    """The user cache directory for tables built on the fly."""
    env = os.environ.get("CHINESE_POKER_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "chinese-poker"


def _cache_path(mode: Mode) -> Path:
    return cache_dir() / f"setting_{mode}_v{TABLE_VERSION}.npz"


@cache
def load_table(mode: Mode, setters: TableSetters | None = None) -> OpponentTable:
    """The opponent table of ``mode``, loaded once per process.

    Looks in the package data, then in the user cache; if neither has a usable table,
    builds a small one with ``setters`` (:data:`ON_THE_FLY_HANDS` hands per stage, one
    solver iteration, a few seconds) and caches it. Without ``setters`` such a mode is
    a ValueError that says how to build it.
    """
    for path in (table_path(mode), _cache_path(mode)):
        if path.is_file():
            try:
                return OpponentTable.load(path)
            except (ValueError, KeyError, OSError):
                continue
    if setters is None:
        raise ValueError(
            f"no opponent table ships or is cached for mode {mode!r}: pass"
            " setters=chinese_poker.ai.setting.TABLE_SETTERS to build one"
        )
    table = build_table(mode, setters=setters, hands=ON_THE_FLY_HANDS, seed=1, iterations=1)
    with contextlib.suppress(OSError):  # a read-only home still gets its table
        table.save(_cache_path(mode))
    return table


# --------------------------------------------------------------------------- rules families

#: The rules families with a shipped equilibrium table: name -> the rules it is built under.
#: Criss Cross scores a setting exactly as ``classic`` (each hand against the opponent's
#: two, pair by pair), so it is in that family; so are the aliases Capsa Susun and Pusoy.
FAMILIES: dict[str, Rules] = {
    "two_four-plain": rules_for(
        "classic",
        scoring_method="two_four",
        royalty_table="none",
        naturals_enabled=False,
        surrender_allowed=False,
    ),
    "classic": rules_for("classic"),
    "classic-1-6": rules_for("classic-1-6"),
    "classic-low-middle": rules_for("classic-low-middle"),
    "classic-wheel": rules_for("classic-wheel"),
}

#: Parts of the compiled scoring that never change what a setting is worth in points:
#: the money value of a point, and Fantasyland (no classic hand earns it).
_NOT_IN_FAMILY = ("unit_value", "fantasyland")


def family_options(rules: Rules) -> dict[str, Any]:
    """What decides a setting's worth under ``rules``: the compiled scoring
    (:class:`~chinese_poker.rules.spec.ScoringSpec`: line values, royalties, naturals,
    surrender, fouls, the mode, pairing) as plain data, without :data:`_NOT_IN_FAMILY`.

    Taken whole rather than field by field, so an option added to the scoring later
    separates families until someone decides it does not matter.
    """
    scoring = dict(rules.spec.to_dict()["scoring"])
    for name in _NOT_IN_FAMILY:
        scoring.pop(name, None)
    return cast(dict[str, Any], scoring)


def family_digest(rules: Rules) -> str:
    """A stable digest of :func:`family_options` (sha256 of its sorted JSON, 16 hex
    digits): the same in every process and version of Python, unlike ``hash``.

    >>> family_digest(rules_for("classic")) == family_digest(rules_for("criss-cross"))
    True
    >>> family_digest(rules_for("classic")) == family_digest(rules_for("classic", unit_value=5))
    True
    """
    text = json.dumps(family_options(rules), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@cache
def _shipped_digests() -> dict[str, str]:
    return {family_digest(rules): name for name, rules in FAMILIES.items()}


def family_key(rules: Rules) -> str:
    """The family of ``rules``: the name of the shipped family (:data:`FAMILIES`) whose
    options (:func:`family_options`) are the same, else ``rules-<digest>``.

    >>> family_key(rules_for("criss-cross")), family_key(rules_for("capsa-susun"))
    ('classic', 'classic')
    >>> family_key(rules_for("classic-1-6", surrender_cost=4)).startswith("rules-")
    True
    """
    digest = family_digest(rules)
    return _shipped_digests().get(digest, f"rules-{digest}")


def family_path(name: str) -> Path:
    """Where the package ships the equilibrium table of family ``name``."""
    return Path(str(resources.files("chinese_poker") / "data" / f"setting_fp_{name}.npz"))


def family_cache_path(rules: Rules) -> Path:
    """Where an equilibrium table built on demand for the family of ``rules`` is cached
    (``python -m chinese_poker.ai.equilibrium --rules ...``), keyed by its digest."""
    return cache_dir() / f"setting_fp_{family_digest(rules)}_v{TABLE_VERSION}.npz"


@cache
def table_for(rules: Rules, setters: TableSetters | None = None) -> OpponentTable:
    """The opponent table the solver uses for ``rules``: the shipped equilibrium table of
    its family (:mod:`chinese_poker.ai.equilibrium`) when there is one, else one built on
    demand for its family and cached, else the mode's table (:func:`load_table`, which
    builds a mode that does not ship with ``setters``)."""
    name = family_key(rules)
    if name in FAMILIES and family_path(name).is_file():
        # The file ships with the package: a table that does not load is a broken install,
        # never a reason to value settings under another model without a word.
        try:
            return OpponentTable.load(family_path(name))
        except (ValueError, KeyError, OSError) as exc:
            raise ValueError(
                f"the equilibrium table {family_path(name)} does not load ({exc}); "
                f"rebuild it with python -m chinese_poker.ai.equilibrium"
            ) from None
    cached = family_cache_path(rules)
    if cached.is_file():
        try:
            table = OpponentTable.load(cached)
        except (ValueError, KeyError, OSError):
            table = None  # a cache: a stale or broken file is rebuilt, not trusted
        # The digest is in the name and in the table: a file copied under another
        # family's name is not that family's model.
        if table is not None and table.meta.get("digest") == family_digest(rules):
            return table
    return load_table(mode_of(rules), setters)
