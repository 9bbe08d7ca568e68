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
each hand the best setting's expected points against the mixture, minus the mean over
the mixture's setters of the expected points of the setting each of them chose (the
same hands every stage, so the figure moves only with the model). Heads-up points (one
opponent). The model's *self-consistency* is what it predicts for the mixture against
itself, which is 0 in a symmetric game: the mean expected points of the mixture's own
choices against the model.

Build the shipped ``two_four`` family table (no royalties, naturals or surrender)::

    python -m chinese_poker.ai.equilibrium --hands 12000 --eval-hands 600 --seed 1
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from chinese_poker.ai.setting import _evaluate, _expected, _terms, solve_with_table
from chinese_poker.ai.setting_tables import (
    DEFAULT_STRATA,
    FAMILIES,
    Dealt,
    OpponentTable,
    deal_and_set,
    family_path,
    load_table,
    mode_of,
    table_from,
)
from chinese_poker.cards import Board, Card
from chinese_poker.rules import Rules

__all__ = ["Report", "fictitious_play", "main"]


@dataclass
class Report:
    """One fictitious-play run: per stage, the best response's gain against the model of
    the stages so far (points a hand, heads-up), and the model's prediction for itself."""

    family: str
    gains: list[float] = field(default_factory=list)
    self_values: list[float] = field(default_factory=list)
    seconds: float = 0.0


Setter = Callable[[Sequence[Card]], tuple[Board, bool, str | None]]


def _setter(rules: Rules, table: OpponentTable) -> Setter:
    def setter(cards: Sequence[Card]) -> tuple[Board, bool, str | None]:
        sol = solve_with_table(cards, rules, table, opponents=1, top_n=0)
        return sol.board, sol.surrender, sol.natural

    return setter


def fictitious_play(
    name: str,
    *,
    hands: int,
    eval_hands: int,
    seed: int = 1,
    target: float = 0.005,
    max_stages: int = 12,
    strata: int = DEFAULT_STRATA,
    log: Callable[[str], None] | None = None,
) -> tuple[OpponentTable, Report]:
    """Run fictitious play for family ``name`` (see the module docstring)."""
    rules = FAMILIES[name]
    mode = mode_of(rules)
    started = time.perf_counter()
    rng = np.random.default_rng([seed, 99])
    evals = []
    for _ in range(eval_hands):
        deck = rng.permutation(52)
        evals.append(_evaluate(tuple(int(c) for c in deck[:13]), rules))
    # The setting index each stage's setter chooses on each evaluation hand.
    choices: list[np.ndarray] = []
    report = Report(name)

    def best_indices(table: OpponentTable) -> np.ndarray:
        terms = _terms(rules, 1, table)
        return np.array([int(np.argmax(_expected(h, rules, terms, table))) for h in evals])

    model = load_table(mode)  # stage 0 answers the shipped table
    parts: list[Dealt] = []
    for stage in range(max_stages):
        choices.append(best_indices(model))
        parts.append(deal_and_set(mode, _setter(rules, model), hands=hands, seed=seed,
                                  stage=stage, name=f"br-{stage}", log=log))  # fmt: skip
        model = table_from(mode, parts, strata=strata, seed=seed, setter=f"fp-{stage + 1}",
                           meta={"family": name, "stages": stage + 1})  # fmt: skip
        terms = _terms(rules, 1, model)
        gain = mix = 0.0
        for i, h in enumerate(evals):
            ev = _expected(h, rules, terms, model)
            own = float(np.mean([ev[c[i]] for c in choices]))
            gain += float(ev.max()) - own
            mix += own + terms.const
        report.gains.append(gain / eval_hands)
        report.self_values.append(mix / eval_hands)
        if log is not None:
            log(f"stage {stage + 1}: best response gains {report.gains[-1]:.4f}/hand;"
                f" the model predicts {report.self_values[-1]:+.4f}/hand for itself"
                f" ({time.perf_counter() - started:.0f} s)")  # fmt: skip
        if report.gains[-1] <= target:
            break
    report.seconds = time.perf_counter() - started
    model.meta.update(gains=report.gains, self_values=report.self_values,
                      hands_per_stage=hands, eval_hands=eval_hands)  # fmt: skip
    return model, report


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m chinese_poker.ai.equilibrium``: build and write a family's table."""
    parser = argparse.ArgumentParser(prog="python -m chinese_poker.ai.equilibrium",
                                     description=__doc__.split("\n\n")[0])  # fmt: skip
    parser.add_argument("--family", choices=sorted(FAMILIES), default="two_four-plain")
    parser.add_argument("--hands", type=int, default=12000, help="hands per stage")
    parser.add_argument("--eval-hands", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--target", type=float, default=0.005)
    parser.add_argument("--max-stages", type=int, default=12)
    parser.add_argument("--out", type=Path, default=None, help="file (default: package data)")
    args = parser.parse_args(argv)
    table, report = fictitious_play(
        args.family, hands=args.hands, eval_hands=args.eval_hands, seed=args.seed,
        target=args.target, max_stages=args.max_stages,
        log=lambda text: print(text, file=sys.stderr, flush=True),
    )  # fmt: skip
    table.meta["command"] = (
        f"python -m chinese_poker.ai.equilibrium --family {args.family} --hands {args.hands}"
        f" --eval-hands {args.eval_hands} --seed {args.seed} --target {args.target}"
        f" --max-stages {args.max_stages}"
    )
    path = args.out or family_path(args.family)
    table.save(path)
    print(
        f"{args.family}: {len(report.gains)} stages, gain {report.gains[-1]:.4f}/hand,"
        f" self {report.self_values[-1]:+.4f}/hand, {report.seconds:.0f} s -> {path}"
    )
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
