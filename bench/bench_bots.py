"""Bot strength and speed: decision times per level, and a duplicate strength table.

    .venv/bin/python bench/bench_bots.py            # full run (several minutes on 1 core)
    .venv/bin/python bench/bench_bots.py --quick    # a quick look (~1 minute)
    .venv/bin/python bench/bench_bots.py --fl       # also estimate Fantasyland values
    .venv/bin/python bench/bench_bots.py --strength # a fresh line-strength table (source)
    .venv/bin/python bench/bench_bots.py --strength-from-play 1300 --workers 2 --seed 500000
        # the table of the boards mc and mc-v1 make heads-up (data/line_strength_table.json)

What it measures (heads-up Pineapple, the ``pineapple`` preset):

1. **Decision times** of ``mc`` at each level: every decision of the mc bot in complete
   hands against the rules bot, timed with ``time.perf_counter`` on one core; median and
   90th percentile (street decisions; Fantasyland sets use the exact solver, ~ms).
2. **Strength**: every bot against every other over *duplicate* deals. A group is one
   session seed played twice with the seats swapped (whole sessions: the button orbit
   plus the Fantasyland hands they earn, so Fantasyland is worth what it wins). The
   figure is points per hand of the row bot (its total over both sessions divided by
   the hands played), with a 95% interval over groups (1.96 sd / sqrt(groups)); foul
   rate (fouled boards per board played, Fantasyland boards included) and Fantasyland
   rate (boards that earned Fantasyland per hand played).
3. With ``--fl``: the value of a Fantasyland hand of 13 to 17 cards (the mc bot in
   Fantasyland against mc playing normally), used by :mod:`chinese_poker.ai.rollout`.

Prints markdown tables on stdout (progress on stderr), writes
``bench/results/bots.json`` and, unless ``--no-docs``, replaces the figures between the
``<!-- bench_bots:start -->`` and ``<!-- bench_bots:end -->`` markers of docs/bots.md.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chinese_poker.ai import make_bot
from chinese_poker.ai.mc import DEFAULT_LEVEL, LEVELS, THROWING_LEVELS
from chinese_poker.engine import Session, Table
from chinese_poker.engine.actions import Action
from chinese_poker.engine.views import View
from chinese_poker.rules import Rules, rules_for

sys.path.insert(0, str(Path(__file__).parent))
from shortfall import short, verdict

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "bots.md"
RESULTS = ROOT / "bench" / "results" / "bots.json"
START, END = "<!-- bench_bots:start -->", "<!-- bench_bots:end -->"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- bots


@dataclass(frozen=True)
class Spec:
    """A bot of the table: a label and how to build one."""

    label: str
    name: str
    level: int | None = None

    def build(self, seed: int) -> Any:
        return make_bot(self.name, seed=seed, level=self.level)


class Timed:
    """Wraps an agent and records how long each decision took (street decisions apart)."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name = getattr(agent, "name", "bot")
        self.street: list[float] = []
        self.other: list[float] = []

    def act(self, view: View) -> Action:
        t0 = time.perf_counter()
        action: Action = self.agent.act(view)
        took = time.perf_counter() - t0
        kind = view.decisions[0].kind if view.decisions else ""
        (self.street if kind == "street" else self.other).append(took)
        return action


# --------------------------------------------------------------------------- timing


def decision_times(rules: Rules, level: int, hands: int, seed: int) -> dict[str, Any]:
    """Time every decision of mc at ``level`` in ``hands`` hands against the rules bot."""
    street: list[float] = []
    other: list[float] = []
    for k in range(hands):
        mc = Timed(make_bot("mc", seed=seed + k, level=level))
        opp = make_bot("rules", seed=seed + k)
        fl = {0: 14} if k % 10 == 9 else None  # now and then a Fantasyland set
        table = Table(rules, 2, seed=seed * 1000 + k, button=k % 2, fantasyland=fl)
        agents = [mc, opp]
        while not table.over:
            s = table.to_act[0]
            table.apply(agents[s].act(table.view(s)))
        street += mc.street
        other += mc.other
    street.sort()

    def q(p: float) -> float:
        return street[min(len(street) - 1, int(p * len(street)))]

    return {
        "level": level,
        "decisions": len(street),
        "median": statistics.median(street),
        "p90": q(0.9),
        "max": street[-1],
        "mean": statistics.fmean(street),
        "fantasyland_sets": len(other),
        "fantasyland_median": statistics.median(other) if other else None,
    }


# --------------------------------------------------------------------------- strength


@dataclass
class Side:
    points: int = 0
    hands: int = 0
    boards: int = 0
    fouls: int = 0
    fl_earned: int = 0
    fl_played: int = 0


@dataclass
class Match:
    a: str
    b: str
    groups: list[float] = field(default_factory=list)  # a's points per hand, per group
    sides: dict[str, Side] = field(default_factory=dict)
    seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        n = len(self.groups)
        mean = statistics.fmean(self.groups) if n else 0.0
        ci = 1.96 * statistics.stdev(self.groups) / math.sqrt(n) if n > 1 else float("nan")
        out: dict[str, Any] = {"a": self.a, "b": self.b, "groups": n, "mean": mean, "ci95": ci,
                               "seconds": round(self.seconds, 1)}  # fmt: skip
        for key, side in self.sides.items():
            out[key] = {
                "hands": side.hands,
                "foul_rate": side.fouls / side.boards if side.boards else 0.0,
                "fantasyland_rate": side.fl_earned / side.hands if side.hands else 0.0,
                "fantasyland_hands": side.fl_played / side.hands if side.hands else 0.0,
            }
        return out


def play_group(rules: Rules, a: Spec, b: Spec, seed: int, match: Match) -> None:
    """One duplicate group: session ``seed`` with (a, b), then with (b, a)."""
    total_points = 0
    total_hands = 0
    for swap in (False, True):
        specs = (b, a) if swap else (a, b)
        names = [f"{specs[0].label}#1", f"{specs[1].label}#2"]
        session = Session(rules, names, seed=seed)
        agents = {names[i]: specs[i].build(seed * 2 + i + (7 if swap else 0)) for i in range(2)}
        while not session.over:
            table = session.start_hand()
            while not table.over:
                s = table.to_act[0]
                table.apply(agents[table.players[s]].act(table.view(s)))
            result = session.finish_hand()
            settlement = table.settlement
            assert settlement is not None
            for seat, name in enumerate(table.players):
                spec = specs[names.index(name)]
                side = match.sides.setdefault(spec.label, Side())
                side.hands += 1
                side.boards += 1
                side.fouls += name in settlement.fouled
                side.fl_earned += seat in table.fantasyland_next
                side.fl_played += name in result.fantasyland
                side.points += result.totals.get(name, 0)
                if spec is a:
                    total_points += result.totals.get(name, 0)
            total_hands += 1
    match.groups.append(total_points / total_hands)


def strength(rules: Rules, pairs: list[tuple[Spec, Spec, int]], seed: int) -> list[dict[str, Any]]:
    out = []
    for a, b, groups in pairs:
        match = Match(a.label, b.label)
        t0 = time.perf_counter()
        for g in range(groups):
            play_group(rules, a, b, seed * 100_000 + g, match)
            if (g + 1) % 10 == 0:
                s = match.summary()
                log(f"  {a.label} vs {b.label}: {g + 1}/{groups} groups, "
                    f"{s['mean']:+.2f} ± {s['ci95']:.2f}")  # fmt: skip
        match.seconds = time.perf_counter() - t0
        out.append(match.summary())
        s = out[-1]
        log(f"{a.label} vs {b.label}: {s['mean']:+.2f} ± {s['ci95']:.2f} per hand "
            f"({s['groups']} groups, {s['seconds']:.0f} s)")  # fmt: skip
    return out


# --------------------------------------------------------------------------- Fantasyland


def fantasyland_values(hands: int, seed: int) -> list[dict[str, Any]]:
    """Points of one Fantasyland hand (mc in Fantasyland against mc playing normally)."""
    out = []
    for preset, cards in (("ofc", 13), ("turbo", 13), ("pineapple", 14),
                          ("pineapple-progressive", 15), ("pineapple-progressive", 16),
                          ("pineapple-progressive", 17)):  # fmt: skip
        rules = rules_for(preset)
        points: list[int] = []
        stays = 0
        for k in range(hands):
            table = Table(rules, 2, seed=seed + k, button=k % 2, fantasyland={0: cards})
            agents = [make_bot("mc", seed=k, level=2), make_bot("mc", seed=k + 1, level=2)]
            while not table.over:
                s = table.to_act[0]
                table.apply(agents[s].act(table.view(s)))
            points.append(table.totals[table.players[0]])
            stays += 0 in table.fantasyland_next
        mean = statistics.fmean(points)
        ci = 1.96 * statistics.stdev(points) / math.sqrt(len(points))
        out.append({"preset": preset, "cards": cards, "hands": hands, "mean": mean,
                    "ci95": ci, "stay_rate": stays / hands})  # fmt: skip
        log(f"Fantasyland {preset} {cards}: {mean:+.2f} ± {ci:.2f}, stays {stays / hands:.0%}")
    return out


# --------------------------------------------------------------------------- strength table


def _played_values(first: int, hands: int) -> list[list[int]]:
    """Line values of both boards of ``hands`` heads-up Pineapple hands (single hands, no
    Fantasyland) of ``mc`` against ``mc-v1`` at the default level, hand seeds ``first``,
    ``first + 1``, ...; the two bots change seats every hand."""
    from chinese_poker.ai import rollout
    from chinese_poker.engine import play_hand

    rules = rules_for("pineapple")
    t = rollout.tables_for(rules)
    out: list[list[int]] = []
    for h in range(hands):
        s = first + h
        bots = [make_bot("mc", seed=2 * s), make_bot("mc-v1", seed=2 * s + 1)]
        if h % 2:
            bots.reverse()
        table = Table(rules, 2, seed=s)
        play_hand(table, bots)
        for board in table.boards:
            out.append([int(x) for x in rollout.line_values(board.lines, t)])
        if h % 100 == 99:
            log(f"hands from {first}: {h + 1} of {hands}")
    return out


def strength_from_play(hands: int, seed: int, workers: int) -> dict[str, Any]:
    """The :attr:`~chinese_poker.ai.rollout.LineStrength.TABLE` estimate: ``hands`` hands
    per worker (worker ``k`` plays hand seeds ``seed + 10000 k`` on), their valid boards'
    lines (:func:`~chinese_poker.ai.rollout.strength_from_values`)."""
    from concurrent.futures import ProcessPoolExecutor

    import numpy as np

    from chinese_poker.ai import rollout

    firsts = [seed + 10000 * k for k in range(workers)]
    with ProcessPoolExecutor(workers) as pool:
        parts = list(pool.map(_played_values, firsts, [hands] * workers))
    vals = np.array([v for part in parts for v in part], dtype=np.int64)
    fouled = (vals[:, 0] > vals[:, 1]) | (vals[:, 1] > vals[:, 2])
    log(f"boards: {len(vals)}, fouled {fouled.mean():.1%}")
    return {
        "source": "bench/bench_bots.py --strength-from-play: heads-up Pineapple, mc against "
        "mc-v1 at the default level, single hands, the valid boards",
        "hand_seeds": [[f, f + hands] for f in firsts],
        "boards": len(vals),
        "valid": int((~fouled).sum()),
        "lines": rollout.strength_from_values(vals[~fouled]),
    }


def strength_source(boards: int, seed: int) -> str:
    """A fresh line-strength table for :mod:`chinese_poker.ai.rollout`, in the form of its
    data file (``data/line_strength_policy.json``).

    The policy completes ``boards`` Pineapple boards from scratch (with the current table),
    and the valid ones give the table; run it twice to iterate.
    """
    from chinese_poker.ai import rollout

    level = LEVELS[DEFAULT_LEVEL]
    vals = rollout.solitaire_values(rules_for("pineapple"), boards, seed=seed,
                                    fills=level.fills, choice=level.choice)  # fmt: skip
    fouled = (vals[:, 0] > vals[:, 1]) | (vals[:, 1] > vals[:, 2])
    log(f"policy boards: {boards}, fouled {fouled.mean():.1%}")
    rows = rollout.strength_from_values(vals[~fouled])
    source = (f"bench/bench_bots.py --strength: {boards} boards the fast policy completed "
              "from scratch in Pineapple")  # fmt: skip
    return json.dumps({"source": source, "lines": rows}, separators=(",", ":"))


# --------------------------------------------------------------------------- report


def render(data: dict[str, Any]) -> str:
    lines = []
    lines.append(f"Measured {data['date']} on {data['machine']} (Python {data['python']}), "
                 f"heads-up `pineapple`, one core per process.")  # fmt: skip
    lines.append("")
    lines.append("### Decision time of `mc` per level")
    lines.append("")
    lines.append("| Level | Rollouts | Decisions | Median | p90 | Max |")
    lines.append("|---|---:|---:|---:|---:|---:|")
    for t in data["times"]:
        lines.append(
            f"| {t['level']}{' (default)' if t['level'] == DEFAULT_LEVEL else ''} "
            f"| {THROWING_LEVELS[t['level']].rollouts} | {t['decisions']} "
            f"| {t['median'] * 1000:.0f} ms | {t['p90'] * 1000:.0f} ms | {t['max'] * 1000:.0f} ms |"
        )
    lines.append("")
    lines.append("### Strength over duplicate deals (points per hand of the first bot)")
    lines.append("")
    lines.append("| Bot | Against | Groups | Hands | Points/hand (95%) | Foul rate | FL rate "
                 "| Opp. foul | Opp. FL |")  # fmt: skip
    lines.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for m in data["strength"]:
        a, b = m[m["a"]], m[m["b"]]
        lines.append(
            f"| {m['a']} | {m['b']} | {m['groups']} | {a['hands']} "
            f"| {m['mean']:+.2f} ± {m['ci95']:.2f} | {a['foul_rate']:.1%} "
            f"| {a['fantasyland_rate']:.1%} | {b['foul_rate']:.1%} | {b['fantasyland_rate']:.1%} |"
        )
    if data.get("fantasyland"):
        lines.append("")
        lines.append("### Value of one Fantasyland hand (mc level 2 against mc level 2)")
        lines.append("")
        lines.append("| Preset | Cards | Hands | Points (95%) | Stays |")
        lines.append("|---|---:|---:|---:|---:|")
        for f in data["fantasyland"]:
            lines.append(
                f"| {f['preset']} | {f['cards']} | {f['hands']} "
                f"| {f['mean']:+.2f} ± {f['ci95']:.2f} | {f['stay_rate']:.0%} |"
            )
    return "\n".join(lines)


def write_docs(text: str) -> None:
    if not DOCS.exists():
        log(f"{DOCS} is missing: figures not written")
        return
    doc = DOCS.read_text(encoding="utf-8")
    if START not in doc or END not in doc:
        log(f"{DOCS} has no {START} ... {END} markers: figures not written")
        return
    head, rest = doc.split(START, 1)
    _, tail = rest.split(END, 1)
    DOCS.write_text(f"{head}{START}\n{text}\n{END}{tail}", encoding="utf-8")
    log(f"figures written to {DOCS.relative_to(ROOT)}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="small samples (a quick look)")
    p.add_argument("--fl", action="store_true", help="also estimate Fantasyland values")
    p.add_argument(
        "--strength",
        action="store_true",
        help="only print a fresh line-strength table (data/line_strength_policy.json)",
    )
    p.add_argument(
        "--strength-from-play",
        type=int,
        metavar="HANDS",
        default=0,
        help="only rebuild data/line_strength_table.json from HANDS hands per worker",
    )
    p.add_argument("--workers", type=int, default=1, help="processes for --strength-from-play")
    p.add_argument("--levels", default=None, help="levels to time, e.g. 1,2,3 (default all)")
    p.add_argument(
        "--groups",
        type=int,
        default=None,
        help="duplicate groups for mc against rules (default 150, quick 12)",
    )
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--no-docs", action="store_true", help="do not update docs/bots.md")
    p.add_argument("--skip-times", action="store_true")
    p.add_argument("--skip-strength", action="store_true")
    args = p.parse_args(argv)
    if args.strength:
        print(strength_source(4000 if args.quick else 40000, args.seed))
        return 0
    if args.strength_from_play:
        from chinese_poker.ai import rollout

        doc = strength_from_play(args.strength_from_play, args.seed, max(1, args.workers))
        path = Path(rollout.strength_table_path())
        path.write_text(json.dumps(doc, separators=(",", ":")) + "\n", encoding="utf-8")
        log(f"written to {path}")
        return 0
    rules = rules_for("pineapple")
    quick = args.quick
    levels = [int(x) for x in args.levels.split(",")] if args.levels else sorted(LEVELS)
    key_groups = args.groups or (12 if quick else 150)

    # Compile the kernels before anything is timed.
    warm = Table(rules, 2, seed=1)
    make_bot("mc", seed=0, level=1).act(warm.view(warm.to_act[0]))

    problems: list[str | None] = []
    data: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "seed": args.seed,
        "times": [],
        "strength": [],
    }
    if not args.skip_times:
        for level in levels:
            hands = {1: 40, 2: 30, 3: 30, 4: 12, 5: 6}.get(level, 10)
            hands = max(2, hands // 5) if quick else hands
            t = decision_times(rules, level, hands, args.seed + level)
            data["times"].append(t)
            # Every hand has at least one street decision of mc's.
            problems.append(short(f"level {level}: street decisions", t["decisions"], hands))
            log(f"level {level}: median {t['median'] * 1000:.0f} ms, p90 {t['p90'] * 1000:.0f} ms"
                f" over {t['decisions']} decisions")  # fmt: skip
    if not args.skip_strength:
        rnd = Spec("random", "random")
        rb = Spec("rules", "rules")
        mc = Spec("mc", "mc", DEFAULT_LEVEL)
        quick_mc = Spec("mc-1", "mc", 1)
        small = 4 if quick else 40
        pairs: list[tuple[Spec, Spec, int]] = [
            (rb, rnd, small),
            (quick_mc, rnd, small),
            (mc, rnd, small),
            (quick_mc, rb, key_groups // 2 if quick else 100),
            (mc, rb, key_groups),
            (mc, quick_mc, 6 if quick else 80),
        ]
        data["strength"] = strength(rules, pairs, args.seed)
        for (a, b, groups), line in zip(pairs, data["strength"], strict=True):
            problems.append(short(f"{a.label} against {b.label}: duplicate groups",
                                  line["groups"], max(groups, 2)))  # fmt: skip
    if args.fl:
        data["fantasyland"] = fantasyland_values(10 if quick else 150, args.seed)
    text = render(data)
    print(text)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(data, indent=2), encoding="utf-8")
    if not args.no_docs and not quick:
        write_docs(text)
    return verdict("bench_bots", problems)


if __name__ == "__main__":
    _: Callable[..., int] = main
    sys.exit(main())
