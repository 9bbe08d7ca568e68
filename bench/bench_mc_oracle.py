"""What the table hides from ``mc``, and what knowing it would be worth.

    PYTHONPATH=src .venv/bin/python bench/bench_mc_oracle.py --know discards \\
        --a mc:3 --b mc:3 --hands 1000 --seed 27100

Bot A is told something its view hides, and its rollouts use it; bot B, the same bot
unless ``--b`` says otherwise, is not. The figure is A's points per hand over duplicate
whole sessions with seat seeds (``bench_mc_bots.py --seat-seeds``): an upper bound on
what any way of inferring that knowledge could gain, since no inference knows more.

``--know discards``: the cards the opponents who play streets have thrown so far (the
rollouts deal the rest of the hand from the cards still unseen less those). What an
opponent's placements reveal about its discards can be worth no more than this.

``--know fantasyland``: a hidden Fantasyland opponent's deal and board: the board it has
set (the Fantasyland seats set before the first street, RULES §9.3), or, when A is in
Fantasyland too and the opponent has not set yet, the exact solver's board of its deal
(what ``mc-v1`` sets, and what the rollouts' samples assume). Every rollout
plays against that one board instead of ``fl_samples`` solved random deals. No rule
shows that board before the showdown, so this bounds what any better sampling of it
(more ``fl_samples``) could gain.

Prints one JSON line (``bench_mc_bots.py``'s, with ``know`` and ``told``: the decisions
in which A was told something); progress on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

import bench_mc_bots as bots
from chinese_poker.ai import rollout
from chinese_poker.ai.fantasyland import solve_fantasyland
from chinese_poker.engine import Table
from chinese_poker.engine.actions import Action, Decision
from chinese_poker.engine.views import View
from shortfall import verdict


class Knowledge(StrEnum):
    """What bot A is told."""

    DISCARDS = "discards"
    FANTASYLAND = "fantasyland"


@dataclass
class Oracle:
    """The table of the hand being played and what A has been told so far."""

    know: Knowledge
    table: Table | None = None
    told: int = 0

    def on_hand(self, table: Table) -> None:
        self.table = table

    def situation(self, view: View, decision: Decision | None = None) -> rollout.Situation:
        """``view``'s situation with the cards A is told are dead taken out of the unseen."""
        sit = _FROM_VIEW(view, decision)
        if self.know is Knowledge.DISCARDS and self.table is not None:
            hidden = {seat for seat, _ in sit.fl_seats}
            dead = {c for s in range(self.table.n_seats) if s != view.seat and s not in hidden
                    for c in self.table.discards(s)}  # fmt: skip
            if dead:
                self.told += 1
                sit.pool = np.array([c for c in sit.pool if int(c) not in dead], dtype=np.int64)
        return sit

    def fantasyland_deals(
        self, sit: rollout.Situation, samples: int, rng: random.Random
    ) -> tuple[Any, Any, Any]:
        """The hidden Fantasyland opponents' true deals and boards, as every sample."""
        if (self.know is not Knowledge.FANTASYLAND or self.table is None or not sit.fl_seats
                or samples <= 0):  # fmt: skip
            return _SAMPLE_FANTASYLAND(sit, samples, rng)
        self.told += 1
        rules = sit.tables.rules
        deal: list[int] = []
        vals = np.zeros((len(sit.fl_seats), 3), dtype=np.int64)
        dls = np.full(len(sit.fl_seats), -1, dtype=np.int64)
        for j, (seat, n) in enumerate(sit.fl_seats):
            state = self.table.hand_state(seat)
            if len(state.dealt) != n:  # pragma: no cover - the engine deals them at once
                raise AssertionError(f"seat {seat} holds {len(state.dealt)} cards, not {n}")
            deal += state.dealt
            lines = (state.top, state.middle, state.bottom)
            if sum(map(len, lines)) < 13:  # both in Fantasyland: it sets as we do
                lines = solve_fantasyland(state.dealt, rules).board.lines
            vals[j], dls[j] = rollout.fantasyland_row(lines, sit.tables)
        return (np.tile(np.array(deal, dtype=np.int64), (samples, 1)),
                np.tile(vals, (samples, 1, 1)), np.tile(dls, (samples, 1)))  # fmt: skip


# The class's own attributes, put back as they were (``from_view`` is a classmethod).
_ORIGINAL = {name: vars(rollout.Situation)[name] for name in ("from_view", "sample_fantasyland")}
_FROM_VIEW = rollout.Situation.from_view
_SAMPLE_FANTASYLAND = rollout.Situation.sample_fantasyland


@contextlib.contextmanager
def told(oracle: Oracle) -> Iterator[None]:
    """While it lasts, every situation the rollouts build is the oracle's."""
    rollout.Situation.from_view = oracle.situation  # type: ignore[method-assign]
    rollout.Situation.sample_fantasyland = (  # type: ignore[method-assign]
        lambda sit, samples, rng: oracle.fantasyland_deals(sit, samples, rng)
    )
    try:
        yield
    finally:
        for name, attribute in _ORIGINAL.items():
            setattr(rollout.Situation, name, attribute)


class Told:
    """An agent that decides with the oracle's knowledge."""

    def __init__(self, agent: Any, oracle: Oracle) -> None:
        self.agent = agent
        self.oracle = oracle

    def act(self, view: View) -> Action:
        with told(self.oracle):
            action: Action = self.agent.act(view)
        return action


@dataclass(frozen=True)
class ToldSpec(bots.BotSpec):
    """A bot spec whose bots are told what ``oracle`` knows."""

    oracle: Oracle | None = None

    def build(self, seed: int) -> Any:
        bot = bots.BotSpec(self.text).build(seed)
        return Told(bot, self.oracle) if self.oracle is not None else bot


def measure(
    know: Knowledge, a: str, b: str, preset: str, players: int, hands: int, seed: int
) -> dict[str, Any]:
    oracle = Oracle(know)
    out = bots.measure(preset, players, ToldSpec(a, oracle), bots.BotSpec(b), hands, seed,
                       seat_seeds=True, on_hand=oracle.on_hand)  # fmt: skip
    out["know"] = str(know)
    out["told"] = oracle.told
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--know", required=True, choices=[k.value for k in Knowledge])
    bots.match_arguments(p, a="mc:3", b="mc:3")
    args = p.parse_args(argv)
    problem = bots.match_problem(args)
    if problem is None and not args.a.startswith("mc"):
        problem = f"--a {args.a} does not play rollouts: only mc and mc-v1 can be told anything"
    if problem is not None:
        print(f"bench_mc_oracle: {problem}", file=sys.stderr)
        return 2
    out = measure(Knowledge(args.know), args.a, args.b, args.preset, args.players,
                  args.hands, args.seed)  # fmt: skip
    print(json.dumps(out), flush=True)
    # Told nothing, A played untold: the figure is no measure of what it was to be told.
    untold = None if out["told"] else f"A was told {args.know} in none of its decisions"
    return verdict("bench_mc_oracle", [untold])


if __name__ == "__main__":
    sys.exit(main())
