"""Benchmark: hand evaluation, ours against established Python poker evaluators.

Run from the repository root::

    .venv/bin/python bench/bench_evaluate.py            # full run, about half a minute
    .venv/bin/python bench/bench_evaluate.py --quick    # smaller samples, a few seconds

What it measures, in one run:

(a) single-hand calls per second on the same pre-generated random five-card hands, each
    evaluator given the hands in its own card format (converted beforehand, only the
    calls are timed): our ``evaluate`` and ``evaluate5``; treys and deuces
    ``Evaluator().evaluate``; phevaluator ``evaluate_cards`` and ``evaluate_5cards``
    (public), and its compiled ``_pheval.evaluate_5cards`` (private, for reference);
    eval7 ``evaluate``. Each reference is labelled pure Python or C extension from what
    is actually installed.
(b) our ``evaluate_batch`` rate on ``--batch`` random hands (default 5M), with and
    without ``check``, as int64 (numpy's default) and int8 arrays.
(c) the project's targets: single-hand ``evaluate`` at least the best pure-Python public
    call; batch at least 5x the fastest per-call rate of any established evaluator.

Every rate is the best of ``--repeats`` timings with ``time.perf_counter``. The calls
are driven by ``map``/``itertools.starmap`` into a zero-length deque, the same harness for
every evaluator. Thread pools (BLAS, OpenMP) play no part: the batch path is pure numpy
indexing and integer addition on one core.

Results go to ``bench/results/evaluate.json`` (git-ignored) and a markdown table to stdout.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import inspect
import json
import os
import platform
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from itertools import starmap
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from chinese_poker.cards import RANKS, SUITS
from chinese_poker.evaluate import evaluate, evaluate5, evaluate_batch
from shortfall import verdict

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "bench" / "results" / "evaluate.json"
NAMES = [r + s for r in RANKS for s in SUITS]  # our card number -> "Ah"

PURE = "pure Python"
C_EXT = "C extension"
C_WRAPPED = "C extension behind a Python wrapper"


def random_hands(rng: np.random.Generator, n: int, k: int = 5) -> np.ndarray[Any, Any]:
    """``n`` rows of ``k`` distinct cards (int64), by rejection of rows with repeats."""
    hands = rng.integers(0, 52, size=(n, k))
    while True:
        bits = np.zeros(n, dtype=np.uint64)
        for j in range(k):
            bits |= np.left_shift(np.uint64(1), hands[:, j].astype(np.uint64))
        bad = np.flatnonzero(np.bitwise_count(bits) != k)
        if not bad.size:
            return hands
        hands[bad] = rng.integers(0, 52, size=(bad.size, k))


def best_time(fn: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def kind_of(fn: Callable[..., Any], package: ModuleType) -> str:
    """Pure Python, a compiled function, or a Python function in a package that ships one."""
    if inspect.isbuiltin(fn) or type(fn).__name__ in (
        "cython_function_or_method",
        "fused_cython_function",
    ):
        return C_EXT
    pkg_dir = Path(package.__file__ or "").parent
    compiled = [p for p in pkg_dir.rglob("*") if p.suffix in (".so", ".pyd")]
    return C_WRAPPED if compiled else PURE


def version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def order_agrees(ours: list[int], ref: list[int], higher_is_better: bool) -> bool:
    """Sanity check that a reference saw the same hands: same order, same ties."""
    o = np.asarray(ours, dtype=np.int64)
    r = np.asarray(ref, dtype=np.int64) * (1 if higher_is_better else -1)
    pairs = np.unique(np.stack([o, r], axis=1), axis=0)
    return len(pairs) == len(np.unique(o)) == len(np.unique(r)) and bool(
        np.all(np.diff(pairs[:, 1]) > 0)
    )


@dataclass
class Case:
    """One single-hand evaluator: ``fn`` applied to every item of ``args``."""

    name: str
    fn: Callable[..., int]
    args: list[Any]
    star: bool  # call fn(*item) rather than fn(item)
    kind: str
    call: str
    higher_is_better: bool = True
    package: str | None = None
    checked: bool = True  # compare its order with ours before timing

    def run(self) -> None:
        deque(starmap(self.fn, self.args) if self.star else map(self.fn, self.args), maxlen=0)

    def results(self) -> list[int]:
        return list(starmap(self.fn, self.args) if self.star else map(self.fn, self.args))


def single_hand_cases(hands: list[tuple[int, ...]]) -> list[Case]:
    """Our calls and every installed reference, each with the hands in its own format."""
    names = [[NAMES[c] for c in h] for h in hands]
    cases = [
        Case("ours evaluate", evaluate, hands, star=False, kind=PURE, call="evaluate(cards)",
             checked=False),
        Case("ours evaluate5", evaluate5, hands, star=True, kind=PURE,
             call="evaluate5(a, b, c, d, e)", checked=False),
    ]  # fmt: skip

    for mod_name in ("treys", "deuces"):
        try:
            mod = importlib.import_module(mod_name)
        except ImportError:
            print(f"note: {mod_name} is not installed, skipped", file=sys.stderr)
            continue
        fn = mod.Evaluator().evaluate
        args = [([mod.Card.new(x) for x in n[:2]], [mod.Card.new(x) for x in n[2:]]) for n in names]
        kind = kind_of(fn, mod)
        cases.append(
            Case(f"{mod_name} Evaluator().evaluate", fn, args, star=True, kind=kind,
                 call="evaluate(hole2, board3)", higher_is_better=False, package=mod_name)
        )  # fmt: skip

    try:
        import phevaluator  # type: ignore[import-untyped]
        from phevaluator import _pheval, evaluate_cards
        from phevaluator.evaluator import evaluate_5cards  # type: ignore[import-untyped]
    except ImportError:
        print("note: phevaluator is not installed, skipped", file=sys.stderr)
    else:
        # phevaluator numbers cards rank * 4 + suit with suits c d h s (ours: s h d c)
        ph = [tuple((c // 4) * 4 + 3 - c % 4 for c in h) for h in hands]
        for label, fn in (
            ("evaluate_cards", evaluate_cards),
            ("evaluate_5cards", evaluate_5cards),
            ("_pheval.evaluate_5cards", _pheval.evaluate_5cards),
        ):
            private = " (private)" if label.startswith("_") else ""
            kind = kind_of(fn, phevaluator)
            cases.append(
                Case(f"phevaluator {label}{private}", fn, ph, star=True, kind=kind,
                     call=f"{label}(*ids)", higher_is_better=False, package="phevaluator")
            )  # fmt: skip

    try:
        import eval7  # type: ignore[import-untyped]
    except ImportError:
        print("note: eval7 is not installed, skipped", file=sys.stderr)
    else:
        deck = [eval7.Card(n) for n in NAMES]
        e7 = [[deck[c] for c in h] for h in hands]
        kind = kind_of(eval7.evaluate, eval7)
        cases.append(
            Case("eval7 evaluate", eval7.evaluate, e7, star=False, kind=kind,
                 call="evaluate(cards)", higher_is_better=True, package="eval7")
        )  # fmt: skip
    return cases


def cpu_model() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return platform.processor() or "?"
    for line in out.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "?"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--hands", type=int, default=200_000, help="single-hand sample size")
    parser.add_argument("--batch", type=int, default=5_000_000, help="batch size")
    parser.add_argument("--repeats", type=int, default=5, help="timings per figure; best kept")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--quick", action="store_true", help="20k hands, 1M batch, 3 repeats")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON output file")
    args = parser.parse_args(argv)
    if args.quick:
        args.hands, args.batch, args.repeats = 20_000, 1_000_000, 3

    rng = np.random.default_rng(args.seed)
    hands = [tuple(h) for h in random_hands(rng, args.hands).tolist()]
    ours_values = [evaluate(h) for h in hands]

    single = []
    for case in single_hand_cases(hands):
        if case.checked and not order_agrees(ours_values, case.results(), case.higher_is_better):
            raise SystemExit(f"{case.name} orders the sample differently: bad conversion?")
        seconds = best_time(case.run, args.repeats)
        single.append(
            {
                "name": case.name,
                "call": case.call,
                "kind": case.kind,
                "version": version(case.package) if case.package else None,
                "rate": args.hands / seconds,
                "ns_per_call": seconds / args.hands * 1e9,
            }
        )
        print(f"  {case.name:<48} {args.hands / seconds / 1e6:7.3f} M/s", file=sys.stderr)

    batch = []
    big = random_hands(rng, args.batch)
    for dtype in ("int64", "int8"):
        arr = big.astype(dtype)
        for check in (False, True):
            seconds = best_time(partial(evaluate_batch, arr, check=check), args.repeats)
            batch.append(
                {
                    "name": f"ours evaluate_batch ({dtype}, check={check})",
                    "dtype": dtype,
                    "check": check,
                    "rate": args.batch / seconds,
                }
            )
            print(
                f"  {batch[-1]['name']:<48} {args.batch / seconds / 1e6:7.2f} M/s", file=sys.stderr
            )
    del big

    by_name = {r["name"]: r for r in single}
    refs = [r for r in single if not r["name"].startswith("ours")]
    public = [r for r in refs if "(private)" not in r["name"]]
    pure = [r for r in public if r["kind"] == PURE]
    best_pure = max(pure, key=lambda r: r["rate"]) if pure else None
    fastest_public = max(public, key=lambda r: r["rate"]) if public else None
    fastest_any = max(refs, key=lambda r: r["rate"]) if refs else None
    main_batch = batch[0]  # int64, check=False
    checked_batch = batch[1]

    def ratio(a: float, b: dict[str, Any] | None) -> float | None:
        return a / b["rate"] if b else None

    targets = {
        "single_vs_best_pure_python": {
            "ours": "evaluate",
            "reference": best_pure and best_pure["name"],
            "target": 1.0,
            "ratio": ratio(by_name["ours evaluate"]["rate"], best_pure),
        },
        "evaluate5_vs_best_pure_python": {
            "ours": "evaluate5",
            "reference": best_pure and best_pure["name"],
            "target": 1.0,
            "ratio": ratio(by_name["ours evaluate5"]["rate"], best_pure),
        },
        "batch_vs_fastest_public_call": {
            "ours": main_batch["name"],
            "reference": fastest_public and fastest_public["name"],
            "target": 5.0,
            "ratio": ratio(main_batch["rate"], fastest_public),
        },
        "checked_batch_vs_fastest_public_call": {
            "ours": checked_batch["name"],
            "reference": fastest_public and fastest_public["name"],
            "target": 5.0,
            "ratio": ratio(checked_batch["rate"], fastest_public),
        },
        "batch_vs_fastest_any_call": {
            "ours": main_batch["name"],
            "reference": fastest_any and fastest_any["name"],
            "target": 5.0,
            "ratio": ratio(main_batch["rate"], fastest_any),
        },
    }
    for t in targets.values():
        t["met"] = t["ratio"] is not None and t["ratio"] >= t["target"]

    result = {
        "benchmark": "evaluate",
        "command": " ".join(
            ["python bench/bench_evaluate.py", *(sys.argv[1:] if argv is None else argv)]
        ),
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": {
            "cpu": cpu_model(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "platform": platform.platform(),
            "load_average": os.getloadavg(),
        },
        "params": {
            "hands": args.hands,
            "batch": args.batch,
            "repeats": args.repeats,
            "seed": args.seed,
        },
        "note": "rates are calls (hands) per second, best of `repeats`; thread pools are "
        "irrelevant (evaluate_batch is pure numpy indexing on one core)",
        "single": single,
        "batch": batch,
        "targets": targets,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")

    print(markdown(result))
    print(f"\nJSON written to {args.out}", file=sys.stderr)
    unmeasured = [
        f"{key}: no reference installed to measure it against (pip install -e '.[bench]')"
        for key, t in targets.items()
        if t["ratio"] is None
    ]
    return verdict("bench_evaluate", unmeasured)


def markdown(result: dict[str, Any]) -> str:
    p, m = result["params"], result["machine"]
    lines = [
        f"Single hand ({p['hands']:,} random five-card hands, best of {p['repeats']}; "
        f"Python {m['python']}, numpy {m['numpy']}, {m['cpu']}):",
        "",
        "| Evaluator | Call | Kind | Hands/s | ns/hand |",
        "|---|---|---|---:|---:|",
    ]
    for r in result["single"]:
        name = r["name"] + (f" {r['version']}" if r["version"] else "")
        lines.append(
            f"| {name} | `{r['call']}` | {r['kind']} | {r['rate'] / 1e6:.2f} M "
            f"| {r['ns_per_call']:.0f} |"
        )
    lines += [
        "",
        f"Batch ({p['batch']:,} random hands, best of {p['repeats']}):",
        "",
        "| Call | Hands/s |",
        "|---|---:|",
    ]
    for r in result["batch"]:
        lines.append(
            f"| `evaluate_batch(hands.astype({r['dtype']}), check={r['check']})` "
            f"| {r['rate'] / 1e6:.1f} M |"
        )
    lines += ["", "| Target | Ours | Against | Ratio | Goal | Met |", "|---|---|---|---:|---:|---|"]
    for key, t in result["targets"].items():
        r = "n/a" if t["ratio"] is None else f"{t['ratio']:.2f}x"
        lines.append(
            f"| {key} | {t['ours']} | {t['reference']} | {r} | "
            f"{t['target']:g}x | {'yes' if t['met'] else '**no**'} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
