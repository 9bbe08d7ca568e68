"""An equilibrium opponent model for the classic setter, by fictitious play.

The setting solver (:mod:`chinese_poker.ai.setting`) scores each setting against a model
of the opponents' lines (:class:`~chinese_poker.ai.setting_tables.OpponentTable`). The
shipped ``high`` table was built by a few rounds of self-play under the ``classic``
preset, royalties and all; under other scoring the model is off (issue 11: the solver is
over-optimistic about its own boards). This module builds the model for one *family* of
rules by **fictitious play**:

1. stage 0: the solver against the shipped table of the mode sets fresh random hands;
2. the model is the pool of every stage's lines so far (a uniform mixture of those
   setters, strata cut over the pool);
3. the next stage is the solver's **best response** to that model, on fresh hands;
4. stop when a best response gains at most ``target`` points a hand against the model
   (its *exploitability* under the model), or after ``max_stages``.

The gain is measured on a fixed set of evaluation hands, exactly under the model: for
each hand what the best response's decision is expected to collect against the mixture,
minus the mean over the mixture's setters of what each one's decision on that hand is
expected to collect (the same hands every stage, so the figure moves only with the
model). A decision is a setting, a surrender (``-surrender_cost`` against each opponent
who plays) or a natural (its value against an opponent without one), valued as the
solver values it. Heads-up points (one opponent). The model's *self-consistency* is what
it predicts for the mixture against itself, which is 0 in a symmetric game: the mean
expected points of the mixture's own decisions against the model.

Options the model cannot represent are refused (:func:`require_modelled`).

Build a shipped family's table (``--family``, written to the package data; the commands
of the shipped runs are in each table's ``meta["command"]`` and docs/benchmarks.md)::

    python -m chinese_poker.ai.equilibrium --family classic --hands 6000 --eval-hands 500

or the table of the family of any rules (written to the user cache, where
:func:`~chinese_poker.ai.setting_tables.table_for` finds it by the family's digest)::

    python -m chinese_poker.ai.equilibrium --rules classic --set royalty_table=american
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from chinese_poker.ai.setting import (
    SUPPORTED,
    TABLE_SETTERS,
    EvaluatedHand,
    ScoreTerms,
    best_setting_index,
    evaluate_hand,
    expected_points,
    score_terms,
    solve_with_table,
)
from chinese_poker.ai.setting_tables import (
    DEFAULT_STRATA,
    FAMILIES,
    Dealt,
    OpponentTable,
    deal_and_set,
    family_cache_path,
    family_digest,
    family_key,
    family_path,
    load_table,
    mode_of,
    table_from,
)
from chinese_poker.cards import Board, Card
from chinese_poker.rules import Rules

__all__ = ["NATURAL", "SURRENDER", "Report", "fictitious_play", "main", "require_modelled"]


@dataclass
class Report:
    """One fictitious-play run: per stage, the best response's gain against the model of
    the stages so far (points a hand, heads-up), and the model's prediction for itself."""

    family: str
    gains: list[float] = field(default_factory=list)
    self_values: list[float] = field(default_factory=list)
    seconds: float = 0.0


Setter = Callable[[Sequence[Card]], tuple[Board, bool, str | None]]

#: A setter's decision on a hand, besides the index of the setting it plays.
SURRENDER, NATURAL = -1, -2


def require_modelled(rules: Rules) -> None:
    """Raise a :class:`~chinese_poker.rules.RulesError` for anything in ``rules`` that
    changes what a setting is worth and that the opponent model does not represent.

    The model (:class:`~chinese_poker.ai.setting_tables.OpponentTable`) holds each line's
    distribution within strata, the naturals by kind, fouls and surrenders, and the
    solver scores line points, the overall unit and scoop, every royalty award, the
    one-royalty cap on our side, naturals, surrender and fouls from it. What it cannot
    represent:

    * a natural that is *chosen* (``natural_claim = optional`` or a three-flushes /
      three-straights natural only a setting shows): the solver values a claim as if any
      opposing natural voided it (``natural_pair`` compares them), which decides whether
      to claim; claims forced from the 13 dealt cards decide nothing and are exact;
    * ``max_royalties_per_hand = 1``: the model ignores the opponents' cap (their lines'
      royalties are counted line by line), so it would charge royalties they cannot take;
    * the Finnish deuce: the model has no opponents' deuces (docs/solvers.md).
    """
    from chinese_poker.rules import RulesError, require_supported

    # The solver's own refusals first (variant, royalties for a dealt combination).
    require_supported(rules, "the setting solver", **SUPPORTED)
    sc = rules.spec.scoring
    ns = sc.naturals
    if ns is not None and (ns.optional_claim or not ns.from_dealt_cards):
        raise RulesError(
            "fictitious play cannot model a natural that is chosen (natural_claim="
            f"{rules.natural_claim}, natural_source={rules.natural_source}): the solver "
            "values a claim as if any opposing natural voided it; use natural_claim="
            "automatic with natural_source=dealt_cards, or naturals_enabled=off"
        )
    if sc.royalties.max_per_hand is not None:
        raise RulesError(
            "fictitious play cannot model max_royalties_per_hand="
            f"{sc.royalties.max_per_hand}: the opponent model ignores the opponents' cap;"
            " use max_royalties_per_hand=unlimited"
        )
    if sc.finnish_deuce:
        raise RulesError(
            "fictitious play cannot model the Finnish deuce: the opponent model has no"
            " opponents' deuces; use finnish_deuce=off"
        )


def _setter(rules: Rules, table: OpponentTable) -> Setter:
    def setter(cards: Sequence[Card]) -> tuple[Board, bool, str | None]:
        sol = solve_with_table(cards, rules, table, opponents=1, top_n=0)
        return sol.board, sol.surrender, sol.natural

    return setter


def _decide(hand: EvaluatedHand, rules: Rules, table: OpponentTable) -> tuple[int, float]:
    """The solver's decision on ``hand`` against ``table`` (a setting index,
    :data:`SURRENDER` or :data:`NATURAL`), and the natural's value (0 without one)."""
    sol = solve_with_table([int(c) for c in hand.cards], rules, table, opponents=1, top_n=0)
    ns = rules.spec.scoring.naturals
    if sol.natural is not None and ns is not None:
        return NATURAL, float(ns.values[sol.natural])
    if sol.surrender:
        return SURRENDER, 0.0
    terms = score_terms(rules, 1, table)
    return best_setting_index(hand, expected_points(hand, rules, terms, table)), 0.0


def _value(decision: int, natural: float, ev: np.ndarray, terms: ScoreTerms) -> float:
    """What ``decision`` is expected to collect heads-up under the model of ``terms``."""
    if decision == NATURAL:
        return (1.0 - terms.p_natural) * natural
    if decision == SURRENDER:
        return terms.surrender_ev
    return float(ev[decision]) + terms.const


def fictitious_play(
    family: str | Rules,
    *,
    hands: int,
    eval_hands: int,
    seed: int = 1,
    target: float = 0.005,
    max_stages: int = 12,
    strata: int = DEFAULT_STRATA,
    max_seconds: float | None = None,
    log: Callable[[str], None] | None = None,
) -> tuple[OpponentTable, Report]:
    """Run fictitious play for ``family`` (a name in :data:`FAMILIES` or any rules of
    the family; see the module docstring). With ``max_seconds`` it also stops after the
    first stage that ends later than that (the report says how far it got)."""
    if isinstance(family, str):
        if family not in FAMILIES:
            raise ValueError(f"unknown family {family!r}; families: {', '.join(FAMILIES)}")
        rules = FAMILIES[family]
    else:
        rules = family
    require_modelled(rules)
    name = family_key(rules)
    mode = mode_of(rules)
    started = time.perf_counter()
    rng = np.random.default_rng([seed, 99])
    evals = []
    for _ in range(eval_hands):
        deck = rng.permutation(52)
        evals.append(evaluate_hand(tuple(int(c) for c in deck[:13]), rules))
    # Each stage's setter's decision on each evaluation hand, and the hands' naturals.
    choices: list[list[int]] = []
    naturals = np.zeros(eval_hands)
    report = Report(name)

    def decisions(table: OpponentTable) -> list[int]:
        out = []
        for i, h in enumerate(evals):
            decision, naturals[i] = _decide(h, rules, table)
            out.append(decision)
        return out

    model = load_table(mode, TABLE_SETTERS)  # stage 0 answers the mode's table
    parts: list[Dealt] = []
    for stage in range(max_stages):
        choices.append(decisions(model))
        parts.append(deal_and_set(mode, _setter(rules, model), hands=hands, seed=seed,
                                  stage=stage, name=f"br-{stage}", rules=rules,
                                  log=log))  # fmt: skip
        model = table_from(mode, parts, strata=strata, seed=seed, setter=f"fp-{stage + 1}",
                           meta={"family": name, "stages": stage + 1})  # fmt: skip
        terms = score_terms(rules, 1, model)
        gain = mix = 0.0
        best = decisions(model)
        for i, h in enumerate(evals):
            ev = expected_points(h, rules, terms, model)
            own = float(np.mean([_value(c[i], naturals[i], ev, terms) for c in choices]))
            gain += _value(best[i], naturals[i], ev, terms) - own
            mix += own
        report.gains.append(gain / eval_hands)
        report.self_values.append(mix / eval_hands)
        if log is not None:
            log(f"stage {stage + 1}: best response gains {report.gains[-1]:.4f}/hand;"
                f" the model predicts {report.self_values[-1]:+.4f}/hand for itself"
                f" ({time.perf_counter() - started:.0f} s)")  # fmt: skip
        if report.gains[-1] <= target:
            break
        if max_seconds is not None and time.perf_counter() - started > max_seconds:
            break
    report.seconds = time.perf_counter() - started
    model.meta.update(gains=report.gains, self_values=report.self_values,
                      hands_per_stage=hands, eval_hands=eval_hands,
                      digest=family_digest(rules))  # fmt: skip
    return model, report


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m chinese_poker.ai.equilibrium``: build and write a family's table."""
    from chinese_poker.rules import RulesError, parse_assignment, rules_for

    parser = argparse.ArgumentParser(prog="python -m chinese_poker.ai.equilibrium",
                                     description=__doc__.split("\n\n")[0])  # fmt: skip
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--family", choices=sorted(FAMILIES), default=None,
                       help="a shipped family (written to the package data)")  # fmt: skip
    which.add_argument(
        "--rules",
        metavar="PRESET",
        default=None,
        help="the family of these rules (written to the user cache)",
    )
    parser.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="override one option of --rules",
    )
    parser.add_argument("--hands", type=int, default=12000, help="hands per stage")
    parser.add_argument("--eval-hands", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--target", type=float, default=0.005)
    parser.add_argument("--max-stages", type=int, default=12)
    parser.add_argument("--max-minutes", type=float, default=None,
                        help="stop after the stage that ends past this time")  # fmt: skip
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="file (default: package data for --family, the cache for --rules)",
    )
    args = parser.parse_args(argv)
    if args.sets and args.rules is None:
        parser.exit(2, f"{parser.prog}: error: --set changes a preset: give --rules too\n")
    for number in ("hands", "eval_hands", "max_stages"):
        if getattr(args, number) < 1:
            parser.exit(2, f"{parser.prog}: error: --{number.replace('_', '-')} must be >= 1\n")
    try:
        if args.rules is not None:
            rules = rules_for(args.rules, **dict(parse_assignment(t) for t in args.sets))
        else:
            rules = FAMILIES[args.family or "two_four-plain"]
        require_modelled(rules)
    except (RulesError, ValueError) as exc:
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    table, report = fictitious_play(
        rules, hands=args.hands, eval_hands=args.eval_hands, seed=args.seed,
        target=args.target, max_stages=args.max_stages,
        max_seconds=None if args.max_minutes is None else 60 * args.max_minutes,
        log=lambda text: print(text, file=sys.stderr, flush=True),
    )  # fmt: skip
    source = (f"--rules {args.rules}" + "".join(f" --set {t}" for t in args.sets)
              if args.rules is not None else f"--family {report.family}")  # fmt: skip
    table.meta["command"] = (
        f"python -m chinese_poker.ai.equilibrium {source} --hands {args.hands}"
        f" --eval-hands {args.eval_hands} --seed {args.seed} --target {args.target}"
        f" --max-stages {len(report.gains)}"  # reproduces the run, however it stopped
    )
    if args.out is not None:
        path = args.out
    elif args.rules is not None:
        path = family_cache_path(rules)
    else:
        path = family_path(report.family)
    table.save(path)
    print(
        f"{report.family}: {len(report.gains)} stages, gain {report.gains[-1]:.4f}/hand,"
        f" self {report.self_values[-1]:+.4f}/hand, {report.seconds:.0f} s -> {path}"
    )
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
