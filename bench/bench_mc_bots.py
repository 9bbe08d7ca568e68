"""A new ``mc`` against the frozen ``mc-v1``: duplicate deals, fouls, Fantasyland, time.

    PYTHONPATH=src .venv/bin/python bench/bench_mc_bots.py --a mc:2 --b mc-v1:2 \\
        --preset pineapple --players 2 --hands 400 --seed 1000 --workers 1

Each *group* is one session seed played once per seat rotation (heads-up: twice, the
seats swapped; three players: three times, bot A in each seat with B in the others).
Whole sessions are played (the button orbit and the Fantasyland hands they earn), so
Fantasyland is worth what it wins. The figure is A's points per hand per opponent
(its total over the group's sessions / hands / opponents), with a 95% interval over
groups (1.96 sd / sqrt(groups)). ``--hands`` stops after the group in which that many
hands (all rotations counted) have been played. Decision times are street decisions
only (a Fantasyland set is one decision a hand, not counted: ``mc``'s levels 3 to 5 play
out its boards in about 150 ms, the others set the exact solver's), one process,
``time.perf_counter``.

A bot is ``name:level`` (``mc``, ``mc-v1``, ``rules``, ``random``), optionally with
overrides of the level's fields for experiments: ``mc:2:keep=4,foul_aversion=6`` (on
the level the bot plays in the preset: ``mc``'s levels 3 to 5 in Pineapple already
have ``foul_repair=1``, fewer rollouts and a foul aversion of 4,
:data:`~chinese_poker.ai.mc.THROWING_LEVELS`, and 2 in OFC and Turbo;
``mc-v1:2:...`` starts from the frozen baseline in every preset).
Prints one JSON line per result on stdout (progress on stderr).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from chinese_poker.ai import make_bot
from chinese_poker.engine import Session, Table, play_hand
from chinese_poker.engine.actions import Action
from chinese_poker.engine.views import View
from chinese_poker.rules import Rules, rules_for
from shortfall import verdict


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class BotSpec:
    """``name:level[:field=value,...]`` as a builder of seeded bots."""

    text: str

    def build(self, seed: int) -> Any:
        parts = self.text.split(":")
        name = parts[0]
        level = None
        if len(parts) > 1 and parts[1]:
            try:
                level = int(parts[1])
            except ValueError:
                raise ValueError(f"bot {self.text!r}: the level {parts[1]!r} is not a "
                                 "whole number") from None  # fmt: skip
        bot: Any = make_bot(name, seed=seed, level=level)
        if len(parts) > 2 and parts[2]:
            if not hasattr(bot, "params"):
                raise ValueError(f"bot {self.text!r}: {name} has no level fields to change")
            changes: dict[str, Any] = {}
            for item in parts[2].split(","):
                key, eq, value = item.partition("=")
                if not eq or not hasattr(bot.params, key):
                    raise ValueError(f"bot {self.text!r}: {item!r} is not field=value with a "
                                     "field of mc's Level")  # fmt: skip
                current = getattr(bot.params, key)
                kind = type(current) if current is not None else float
                try:
                    changes[key] = kind(value)
                except ValueError:
                    raise ValueError(f"bot {self.text!r}: {key} must be {kind.__name__}, "
                                     f"not {value!r}") from None  # fmt: skip
            # A change applies to the level the bot plays in every variant (``mc`` has
            # one table where streets throw a card and one where they do not).
            bot.params = dataclasses.replace(bot.params, **changes)
            bot.throwing_params = dataclasses.replace(bot.throwing_params, **changes)
        return bot


class Timed:
    """An agent that records how long each street decision took."""

    def __init__(self, agent: Any, times: list[float], by_street: dict[int, list[float]]) -> None:
        self.agent = agent
        self.times = times
        self.by_street = by_street

    def act(self, view: View) -> Action:
        t0 = time.perf_counter()
        action: Action = self.agent.act(view)
        if view.decisions and view.decisions[0].kind == "street":
            took = time.perf_counter() - t0
            self.times.append(took)
            dec = view.decisions[0]
            placed = view.board_of(dec.seat, dec.hand).placed
            street = sum(1 for _ in _cumulative(view.rules.streets) if _ <= placed)
            self.by_street.setdefault(street, []).append(took)
        return action


def _cumulative(streets: Any) -> list[int]:
    out, total = [], 0
    for _, placed in streets:
        out.append(total)
        total += placed
    return out


@dataclass
class Side:
    hands: int = 0
    fouls: int = 0
    fl_earned: int = 0
    times: list[float] = field(default_factory=list)
    by_street: dict[int, list[float]] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        t = sorted(self.times)
        streets = sorted(self.by_street.items())
        return {
            "street_median_ms": {k: round(1000 * statistics.median(v), 1) for k, v in streets},
            "street_p99_ms": {k: round(1000 * _quantile(sorted(v), 0.99), 1) for k, v in streets},
            "hands": self.hands,
            "foul_rate": self.fouls / max(self.hands, 1),
            "fantasyland_rate": self.fl_earned / max(self.hands, 1),
            "decisions": len(t),
            "median_ms": 1000 * statistics.median(t) if t else None,
            "p90_ms": 1000 * _quantile(t, 0.9) if t else None,
            "p99_ms": 1000 * _quantile(t, 0.99) if t else None,
        }


def _quantile(ordered: list[float], q: float) -> float:
    """The ``q`` quantile of sorted times, by rank (the value ``q`` of them lie below)."""
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def play_group(
    rules: Rules,
    players: int,
    a: BotSpec,
    b: BotSpec,
    seed: int,
    sides: dict[str, Side],
    seat_seeds: bool = False,
    on_hand: Callable[[Table], None] | None = None,
) -> tuple[float, int]:
    """One group: session ``seed`` once per rotation (A in seat r, B elsewhere).
    Returns (A's points per opponent, hands played).

    ``seat_seeds``: a bot's seed depends on its seat only, not on the rotation, so that
    A and B in the same seat draw the same random numbers (common random numbers for
    the bots too): where they would choose alike, the two rotations cancel exactly, and
    only the decisions in which they differ add noise. Unbiased (each game is the same
    game); it narrows the interval most when A and B are close.

    ``on_hand``: called with each hand's table before it is played (an oracle's way in,
    ``bench_mc_oracle.py``).
    """
    points = 0
    hands = 0
    for r in range(players):
        names = [f"A{i}" if i == r else f"B{i}" for i in range(players)]
        session = Session(rules, names, seed=seed)
        agents: dict[str, Timed] = {}
        for i, name in enumerate(names):
            spec, key = (a, "a") if i == r else (b, "b")
            side = sides.setdefault(key, Side())
            bot_seed = seed * 8 + i + (0 if seat_seeds else 17 * r)
            agents[name] = Timed(spec.build(bot_seed), side.times, side.by_street)
        while not session.over:
            table = session.start_hand()
            if on_hand is not None:
                on_hand(table)
            play_hand(table, [agents[name] for name in table.players])
            result = session.finish_hand()
            settlement = table.settlement
            assert settlement is not None
            for seat, name in enumerate(table.players):
                side = sides["a" if name.startswith("A") else "b"]
                side.hands += 1
                side.fouls += name in settlement.fouled
                side.fl_earned += seat in table.fantasyland_next
            points += result.totals.get(names[r], 0)
            hands += 1
    return points / (players - 1), hands


def measure(
    preset: str,
    players: int,
    a: BotSpec,
    b: BotSpec,
    hands: int,
    seed: int,
    seat_seeds: bool = False,
    on_hand: Callable[[Table], None] | None = None,
) -> dict[str, Any]:
    rules = rules_for(preset)
    sides: dict[str, Side] = {}
    totals: list[float] = []
    counts: list[int] = []
    t0 = time.perf_counter()
    g = 0
    while sum(counts) < hands:
        pts, n = play_group(rules, players, a, b, seed * 100_000 + g, sides, seat_seeds,
                            on_hand)  # fmt: skip
        totals.append(pts)
        counts.append(n)
        g += 1
        if g % 10 == 0:
            mean, ci = _ratio_interval(totals, counts)
            log(f"  {a.text} vs {b.text}: {g} groups, {sum(counts)} hands, "
                f"{mean:+.2f} ± {ci:.2f}")  # fmt: skip
    mean, ci = _ratio_interval(totals, counts)
    return {
        "preset": preset, "players": players, "a": a.text, "b": b.text, "seed": seed,
        "seat_seeds": seat_seeds,
        "groups": g, "hands": sum(counts), "mean": mean, "ci95": ci,
        "seconds": round(time.perf_counter() - t0, 1),
        "a_side": sides["a"].summary(), "b_side": sides["b"].summary(),
    }  # fmt: skip


def _ratio_interval(totals: list[float], counts: list[int]) -> tuple[float, float]:
    """Points per hand (a ratio of sums over groups) and its 95% interval (delta method)."""
    n = len(totals)
    mean = sum(totals) / sum(counts)
    if n < 2:
        return mean, float("nan")
    resid = [t - mean * c for t, c in zip(totals, counts, strict=True)]
    avg = sum(counts) / n
    return mean, 1.96 * statistics.stdev(resid) / math.sqrt(n) / avg


def match_arguments(p: argparse.ArgumentParser, *, a: str, b: str) -> None:
    """The arguments of a duplicate-deal match of bot A against bot B (this bench's and
    ``bench_mc_oracle.py``'s); :func:`match_problem` checks them."""
    p.add_argument("--a", default=a)
    p.add_argument("--b", default=b)
    p.add_argument("--preset", default="pineapple")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--hands", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)


def match_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with a match's arguments, in one line (None: nothing), found before
    the first hand: the preset, the player count and the bots as the engine and
    ``make_bot`` refuse them."""
    if args.hands < 1:
        return "--hands must be at least 1"
    if args.seed < 0:
        return "--seed must be at least 0"
    try:
        Session(rules_for(args.preset), args.players, seed=args.seed * 100_000)
        for spec in (args.a, args.b):
            BotSpec(spec).build(0)
    except ValueError as exc:  # RulesError, SessionError, a bot make_bot refuses
        return str(exc)
    return None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    match_arguments(p, a="mc", b="mc-v1")
    p.add_argument("--workers", type=int, default=1, choices=[1])
    p.add_argument(
        "--seat-seeds",
        action="store_true",
        help="bots seeded by seat, not by rotation: common random numbers for two close "
        "bots (an ablation); the default seeds each rotation apart",
    )
    args = p.parse_args(argv)
    problem = match_problem(args)
    if problem is not None:
        print(f"bench_mc_bots: {problem}", file=sys.stderr)
        return 2
    out = measure(args.preset, args.players, BotSpec(args.a), BotSpec(args.b), args.hands,
                  args.seed, args.seat_seeds)  # fmt: skip
    print(json.dumps(out), flush=True)
    # One duplicate group gives a mean without an interval: not the figure it claims.
    no_interval = math.isnan(out["ci95"])
    return verdict("bench_mc_bots", [
        f"no 95% interval: {out['groups']} duplicate group(s), two needed" if no_interval else None
    ])  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
