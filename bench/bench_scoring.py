"""How fast ``chinese_poker.scoring.settle`` settles tables, against an earlier commit, in one run.

Run ``python bench/bench_scoring.py [--base COMMIT] [--tables N] [--seconds S] [--rounds R]``.

The base commit's ``src`` is exported from git (``git archive``) into a temporary directory;
two worker processes, one importing the base tree and one this checkout, deal the same
seeded tables (N per scenario: boards set at random, "valid" ones re-set until they keep
the line order so every pair goes to the showdown) and settle them in a loop for about S
seconds of CPU time (best of three stretches). The parent asks the two workers in turn,
R rounds, alternating which goes first, and keeps each one's best: the machine is shared,
and asking both in the same minutes keeps the ratios fair when the load changes.

Three ways to settle, each over the same tables:

* ``settle``: ``settle(rules, hands)`` and its totals read, as most callers use it (the
  itemised breakdown is built when first read, since the base commit);
* ``+ breakdown``: the same, then its ``pairs`` read (every item built);
* ``settle_totals``: the totals-only path.

Before timing, both workers settle every table and the parent checks that the results are
identical (``to_dict()`` of each settlement and ``settle_totals``): a difference stops the
run (exit 1). Targets (issue #39): ``settle`` at least 2.5x the base on heads-up and
3-player tables; every 4-player table (classic included) at 20,000 tables/s or more. A
missed target prints SLOW and the run exits 1 after the report; a worker that fails or a
measurement shorter than asked stops it with exit 2. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from base_commit import UnknownCommit, export_src, full_sha

ROOT = Path(__file__).resolve().parents[1]
#: The commit before issue #39's settlement work (the itemised breakdown built eagerly).
BASE = "5c58190efc7f3da4bc8ed458da8e2dd1926d2af6"
TARGET_PER_SECOND = 20_000
TARGET_RATIO = 2.5
MODES = ("settle", "breakdown", "totals")


@dataclass(frozen=True)
class Scenario:
    preset: str
    players: int
    valid: bool
    options: tuple[tuple[str, str], ...] = ()

    @property
    def label(self) -> str:
        extra = "".join(f", {k}={v}" for k, v in self.options)
        return f"{self.preset}{extra}"

    def target(self) -> str:
        """What this scenario must reach: a ratio to the base, a rate, or nothing."""
        if self.players <= 3 and self.preset in ("ofc", "pineapple") and self.valid:
            return "ratio"
        return "rate" if self.players == 4 else ""


SCENARIOS = [
    Scenario("ofc", 2, True),
    Scenario("ofc", 3, True),
    Scenario("ofc", 4, True),
    Scenario("pineapple", 2, True),
    Scenario("pineapple", 3, True),
    Scenario("ofc", 4, False),
    Scenario("ofc-finnish", 4, True),
    Scenario("classic", 4, True),
    Scenario("classic", 4, False),
    Scenario("classic", 4, True, (("royalty_award", "best_at_table"),)),
]

# Runs in each worker process: ``argv[1]`` is the tree's src directory, ``argv[2]`` the
# scenarios, ``argv[3]`` tables per scenario, ``argv[4]`` the seed. Reads commands
# ("check I" or "time I MODE SECONDS") on stdin, answers one JSON line each.
_WORKER = r"""
import hashlib, json, random, sys, time
sys.path.insert(0, sys.argv[1])
from chinese_poker.cards import Board
from chinese_poker.rules import rules_for
from chinese_poker.scoring import Hand, is_fouled, settle, settle_totals

def board(cards):
    return Board(tuple(cards[:3]), tuple(cards[3:8]), tuple(cards[8:13]))

def deal(rng, rules, players, valid):
    deck = list(range(52))
    rng.shuffle(deck)
    hands = []
    for p in range(players):
        cards = deck[13 * p : 13 * (p + 1)]
        b = board(cards)
        tries = 0
        while valid and is_fouled(rules, b) and tries < 500:
            rng.shuffle(cards)
            b = board(cards)
            tries += 1
        hands.append(Hand(name=f"P{p + 1}", board=b))
    return hands

scenarios = json.loads(sys.argv[2])
count, seed = int(sys.argv[3]), int(sys.argv[4])
setups = []
for preset, players, valid, options in scenarios:
    rules = rules_for(preset, **dict(options))
    rng = random.Random(seed)
    setups.append((rules, [deal(rng, rules, players, valid) for _ in range(count)]))

def run_settle(rules, tables):
    for t in tables:
        settle(rules, t).totals

def run_breakdown(rules, tables):
    for t in tables:
        settle(rules, t).pairs

def run_totals(rules, tables):
    for t in tables:
        settle_totals(rules, t)

RUNS = {"settle": run_settle, "breakdown": run_breakdown, "totals": run_totals}

for line in sys.stdin:
    words = line.split()
    rules, tables = setups[int(words[1])]
    if words[0] == "check":
        text = repr([(s.to_dict(), dict(s.totals), settle_totals(rules, t))
                     for t in tables for s in [settle(rules, t)]])
        print(json.dumps({"digest": hashlib.sha256(text.encode()).hexdigest()}), flush=True)
        continue
    run, seconds = RUNS[words[2]], float(words[3])
    best, spent, calls = 0.0, 0.0, 0
    for _ in range(3):
        count_here = 0
        start = time.process_time()
        while True:
            run(rules, tables)
            count_here += len(tables)
            elapsed = time.process_time() - start
            if elapsed >= seconds / 3:
                break
        spent += elapsed
        calls += count_here
        best = max(best, count_here / elapsed)
    print(json.dumps({"rate": best, "cpu": spent, "calls": calls}), flush=True)
"""


class Worker:
    """One process settling with one tree's scorer."""

    def __init__(self, name: str, src: Path, tables: int, seed: int) -> None:
        self.name = name
        plan = [[s.preset, s.players, s.valid, list(s.options)] for s in SCENARIOS]
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(src), json.dumps(plan), str(tables), str(seed)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
            cwd=tempfile.gettempdir(),
        )  # fmt: skip

    def ask(self, command: str) -> dict[str, float | str]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            fail(f"the {self.name} worker stopped on {command!r} (its error is above)")
        result: dict[str, float | str] = json.loads(answer)
        return result

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)


def fail(message: str) -> None:
    print(f"bench_scoring: FAILED: {message}", file=sys.stderr)
    raise SystemExit(2)


def export_base(commit: str, into: Path) -> str:
    """Write the base commit's ``src`` under ``into``; return its short sha."""
    try:
        export_src(commit, into)
        return full_sha(commit)[:7]
    except UnknownCommit as exc:
        fail(f"--base {commit}: {exc}")
        raise


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default=BASE, help="commit to compare with (%(default).7s)")
    parser.add_argument("--tables", type=int, default=300, help="tables dealt per scenario")
    parser.add_argument("--seconds", type=float, default=0.9, help="CPU seconds per measurement")
    parser.add_argument("--rounds", type=int, default=2, help="measurements per tree and way")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--only", metavar="PRESET", action="append", help="time only these presets (repeatable)"
    )
    args = parser.parse_args()
    if args.tables < 1 or args.seconds <= 0 or args.rounds < 1:
        parser.error("--tables and --rounds must be at least 1, --seconds above 0")
    if args.only:
        unknown = sorted(set(args.only) - {s.preset for s in SCENARIOS})
        if unknown:
            parser.error(f"--only: no scenario of {', '.join(unknown)}")
        SCENARIOS[:] = [s for s in SCENARIOS if s.preset in args.only]

    with tempfile.TemporaryDirectory(prefix="settle-base-") as tmp:
        short = export_base(args.base, Path(tmp))
        started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        load_before = load()
        workers = {
            "base": Worker("base", Path(tmp) / "src", args.tables, args.seed),
            "new": Worker("new", ROOT / "src", args.tables, args.seed),
        }
        try:
            for index, scenario in enumerate(SCENARIOS):
                digests = {name: w.ask(f"check {index}")["digest"] for name, w in workers.items()}
                if digests["base"] != digests["new"]:
                    print(f"bench_scoring: {scenario.label}, {scenario.players} players: the "
                          f"settlements differ from {short}'s", file=sys.stderr)  # fmt: skip
                    return 1
            print(f"results identical to {short} on every table", file=sys.stderr)
            best: dict[tuple[int, str, str], float] = {}
            for index, scenario in enumerate(SCENARIOS):
                print(f"timing {scenario.label}, {scenario.players} players", file=sys.stderr)
                for mode in MODES:
                    for r in range(args.rounds):
                        order = ("base", "new") if r % 2 == 0 else ("new", "base")
                        for name in order:
                            got = workers[name].ask(f"time {index} {mode} {args.seconds}")
                            if float(got["cpu"]) < args.seconds * 0.99 or float(got["calls"]) < 1:
                                fail(f"the {name} worker measured {got} for {args.seconds} s")
                            key = (index, mode, name)
                            best[key] = max(best.get(key, 0.0), float(got["rate"]))
        finally:
            for w in workers.values():
                w.close()

    missed = report(best, short, started, load_before, args)
    if missed:
        print(f"bench_scoring: SLOW: {', '.join(missed)}", file=sys.stderr)
        return 1
    return 0


def report(
    best: dict[tuple[int, str, str], float], short: str, started: str, load_before: str,
    args: argparse.Namespace,
) -> list[str]:  # fmt: skip
    """Print the table; return the targets missed."""
    print("`.venv/bin/python bench/bench_scoring.py"
          f" --seconds {args.seconds} --rounds {args.rounds}`, "
          f"{started}, load {load_before} before, {load()} after; base `{short}`, "
          f"{args.tables} tables per row, tables/s per CPU second (best of "
          f"{args.rounds} × 3 stretches)\n")  # fmt: skip
    print("| Rules | Players | Boards | base settle | settle | × base | + breakdown | × base "
          "| settle_totals | × base | Target |")  # fmt: skip
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|")
    missed = []
    for index, s in enumerate(SCENARIOS):
        base = best[(index, "settle", "base")]
        cells = []
        for mode in MODES:
            new = best[(index, mode, "new")]
            cells += [f"{new:,.0f}", f"{new / best[(index, mode, 'base')]:.2f}×"]
        new_settle = best[(index, "settle", "new")]
        kind = s.target()
        where = f"{s.label} {s.players}p {'valid' if s.valid else 'random'}"
        if kind == "ratio":
            ok = new_settle / base >= TARGET_RATIO
            target = f"≥ {TARGET_RATIO}× base: {'ok' if ok else 'SLOW'}"
        elif kind == "rate":
            ok = new_settle >= TARGET_PER_SECOND
            target = f"≥ {TARGET_PER_SECOND:,}/s: {'ok' if ok else 'SLOW'}"
        else:
            ok, target = True, ""
        if not ok:
            missed.append(where)
        print(f"| {s.label} | {s.players} | {'valid' if s.valid else 'random'} | {base:,.0f} | "
              + " | ".join(cells) + f" | {target} |")  # fmt: skip
    return missed


if __name__ == "__main__":
    sys.exit(main())
