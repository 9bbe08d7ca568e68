"""Benchmark of cold starts: the first decision of each command with an empty numba cache
(a fresh install) and with a warm one, and how well ``mc`` keeps a time budget.

Each command runs as its own process, as a user runs it, with ``NUMBA_CACHE_DIR`` pointing
at a fresh empty directory (cold), then again on the cache that run wrote (warm), then
once more after ``python -m chinese_poker.ai.warm`` (what an install step or CI runs).
``bot --bot mc`` is timed to its ``ready`` answer and to its first action.

The budget check plays heads-up Pineapple and OFC hands with ``mc`` at a fixed budget
(after warming) and reports how far past the budget the decisions ended, in wall-clock
time and in the process's CPU time (the difference is the machine's other load).

``--first-run`` measures what a person meets on a fresh machine (issue 39): installing
the package into a fresh virtual environment; with an empty numba cache, each kernel
family's compilation (one process each, wall and CPU time) and all of them by
``python -m chinese_poker.ai.warm``; ``chinese-poker serve``'s address and first HTTP
answer, its first study-desk hint and Fantasyland solve, and how long until its bots
have their kernels; the first ``hint`` and ``solve`` commands; and a server bot's first
move. It exits 1, naming what, if any figure could not be measured as it is labelled
(a "cold" run that compiled nothing, a command that failed).

    .venv/bin/python bench/bench_cold.py            # ~2 minutes
    .venv/bin/python bench/bench_cold.py --quick    # budgets only
    .venv/bin/python bench/bench_cold.py --first-run [--no-install]   # ~5 minutes
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from shortfall import verdict

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "chinese_poker"]
SETTING = ["4d", "Td", "Qc", "3s", "Js", "8d", "2h", "7d", "9s", "6s", "5s", "Tc", "Jc"]
FANTASYLAND = ["As", "Ks", "Qh", "Jh", "Td", "9d", "8c", "7c", "6s", "5s", "4h", "3h", "2d", "2c"]
VIEW = str(ROOT / "examples" / "pineapple-view.json")

COMMANDS: dict[str, list[str]] = {
    "solve setting": ["solve", "setting", *SETTING],
    "solve fantasyland": ["solve", "fantasyland", *FANTASYLAND],
    "hint (level 3, Pineapple first street)": ["hint", VIEW],
    "hint --time-budget 1": ["hint", "--time-budget", "1", VIEW],
}


def _env(cache: str) -> dict[str, str]:
    return {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT / "src")}


def _timed(args: list[str], cache: str) -> tuple[float, str]:
    start = time.perf_counter()
    run = subprocess.run([*CLI, *args], env=_env(cache), capture_output=True, text=True,
                         check=True, cwd=ROOT)  # fmt: skip
    return time.perf_counter() - start, run.stderr.strip()


def _bot(cache: str) -> tuple[float, float, str]:
    """Seconds to ``ready`` and to the first action of ``chinese-poker bot --bot mc``."""
    from chinese_poker.ai.protocol import act_message
    from chinese_poker.engine import Table
    from chinese_poker.rules import rules_for

    table = Table(rules_for("pineapple"), 2, seed=5)
    view = table.view(table.to_act[0])
    start = time.perf_counter()
    proc = subprocess.Popen([*CLI, "bot", "--bot", "mc"], env=_env(cache), text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT)  # fmt: skip
    assert proc.stdin and proc.stdout and proc.stderr
    hello = {"type": "hello", "protocol": 1, "rules": view.rules.to_dict(), "seat": 0}
    proc.stdin.write(json.dumps(hello) + "\n")
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["type"] == "ready"
    ready = time.perf_counter() - start
    asked = time.perf_counter()
    proc.stdin.write(json.dumps(act_message(view, 1, 10.0)) + "\n")
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["type"] == "action"
    first = time.perf_counter() - asked
    proc.stdin.write('{"type": "quit"}\n')
    proc.stdin.close()
    proc.wait(timeout=30)
    return ready, first, proc.stderr.read().strip()


def cold_starts() -> list[str]:
    """Print the cold, warm and warmed-ahead table; return the runs that were not cold
    (compiled nothing, so their figure is not a cold start)."""
    problems = []
    print(
        "| command | cold cache (s) | warm cache (s) | after"
        " `.venv/bin/python -m chinese_poker.ai.warm` (s) | notice on the cold run |"
        "\n|---|---|---|---|---|"
    )
    for name, args in COMMANDS.items():
        with tempfile.TemporaryDirectory() as cold, tempfile.TemporaryDirectory() as ahead:
            c, note = _timed(args, cold)
            w, _ = _timed(args, cold)
            subprocess.run([*CLI[:1], "-m", "chinese_poker.ai.warm"], env=_env(ahead),
                           check=True, capture_output=True)  # fmt: skip
            a, _ = _timed(args, ahead)
        if not note:
            problems.append(f"`{name}`: the cold run compiled nothing (not cold)")
        print(f"| `{name}` | {c:.1f} | {w:.1f} | {a:.1f} | {'yes' if note else 'no'} |", flush=True)
    with tempfile.TemporaryDirectory() as cold, tempfile.TemporaryDirectory() as ahead:
        r0, f0, note = _bot(cold)
        r1, f1, _ = _bot(cold)
        subprocess.run([*CLI[:1], "-m", "chinese_poker.ai.warm"], env=_env(ahead),
                       check=True, capture_output=True)  # fmt: skip
        r2, f2, _ = _bot(ahead)
    said = "yes" if note else "no"
    if not note:
        problems.append("`bot --bot mc`: the cold run compiled nothing (not cold)")
    print(f"| `bot --bot mc`: to `ready` | {r0:.1f} | {r1:.1f} | {r2:.1f} | {said} |")
    print(f"| `bot --bot mc`: `ready` to first action | {f0:.2f} | {f1:.2f} | {f2:.2f} | |")
    return problems


#: Rollouts a decision is given in the budget check: far more than a budget of 100 ms
#: lets the top level run (it offers 470), so that every budget binds.
BOUND_ROLLOUTS = 3500


def budget_bound(bot: Any) -> Any:
    """``bot`` (an ``mc`` bot at its top level) with :data:`BOUND_ROLLOUTS` rollouts."""
    bot.params = dataclasses.replace(bot.params, rollouts=BOUND_ROLLOUTS)
    bot.throwing_params = dataclasses.replace(bot.throwing_params, rollouts=BOUND_ROLLOUTS)
    return bot


def budgets(hands: int) -> None:
    from chinese_poker.ai.mc import MonteCarloBot
    from chinese_poker.ai.warm import warm_kernels
    from chinese_poker.engine import Table
    from chinese_poker.rules import rules_for

    warm_kernels()
    print(
        "\n| preset | budget (ms) | decisions | median over (ms) | p99 over (ms) |"
        " max over (ms) | max over in CPU time (ms) |\n|---|---|---|---|---|---|---|"
    )
    for preset in ("pineapple", "ofc"):
        for budget in (0.1, 0.02):
            over: list[float] = []
            cpu_over: list[float] = []
            for seed in range(hands):
                table = Table(rules_for(preset), 2, seed=seed)
                made = [MonteCarloBot(seed=2 * seed + i, level=3, time_budget=budget)
                        for i in range(2)]  # fmt: skip
                bots = [budget_bound(bot) for bot in made]
                while not table.over:
                    seat = table.to_act[0]
                    view = table.view(seat)
                    start, cpu = time.monotonic(), time.process_time()
                    action = bots[seat].act(view)
                    over.append((time.monotonic() - start - budget) * 1000)
                    cpu_over.append((time.process_time() - cpu - budget) * 1000)
                    table.apply(action)
            over.sort()
            cpu_over.sort()
            p99 = over[min(len(over) - 1, int(0.99 * len(over)))]
            print(f"| {preset} | {budget * 1000:.0f} | {len(over)} | "
                  f"{statistics.median(over):+.1f} | {p99:+.1f} | {over[-1]:+.1f} | "
                  f"{cpu_over[-1]:+.1f} |",
                  flush=True)  # fmt: skip


# --------------------------------------------------------------------------- first run

PARTS = ("setting", "fantasyland", "open-face")
WARM_ONE = (
    "import json, sys; from chinese_poker.ai.warm import warm_kernels;"
    " r = warm_kernels((sys.argv[1],)); print(json.dumps({'compiled': r.compiled}))"
)
BOT_MOVE = """
import json, time
from chinese_poker.ai.warm import warm_in_background
from chinese_poker.engine import Table
from chinese_poker.rules import rules_for
from chinese_poker.server.tables import make_server_bot
table = Table(rules_for("pineapple"), 2, seed=5)
bot = make_server_bot("mc", 3, 1)
warm_in_background()  # as the server's bot thread warms while its tables play
start = time.perf_counter()
action = bot.act(table.view(table.to_act[0]))
print(json.dumps({"seconds": time.perf_counter() - start, "quick": bot.quick_decisions == 1,
                  "legal": action in table.legal_actions(table.to_act[0])}))
"""


class Shortfall(Exception):
    """A figure that could not be measured as it is labelled."""


def _cpu_children() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(args: list[str], env: dict[str, str], what: str) -> tuple[float, float, str, str]:
    """Wall and CPU seconds, standard output and error of a command that must succeed."""
    cpu, start = _cpu_children(), time.perf_counter()
    run = subprocess.run(args, env=env, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - start
    if run.returncode != 0:
        raise Shortfall(f"{what} failed (exit {run.returncode}): {run.stderr.strip()[-300:]}")
    return wall, _cpu_children() - cpu, run.stdout, run.stderr


def _install() -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as venv:
        env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
        w1, c1, _, _ = _run([sys.executable, "-m", "venv", venv], env, "creating a venv")
        w2, c2, _, _ = _run([f"{venv}/bin/python", "-m", "pip", "install", "-q",
                             "--disable-pip-version-check", "-e", str(ROOT)], env,
                            "pip install -e .")  # fmt: skip
    return w1 + w2, c1 + c2


def _wait_gone(pid: int, limit: float) -> None:
    """Wait (up to ``limit`` s) for a process this benchmark started indirectly (the
    detached compiler a cold ``hint`` starts) to end; stop it if it does not."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.5)
    os.kill(pid, 15)


def _http(url: str, body: dict[str, object] | None = None) -> tuple[int, Any]:
    """Status and JSON answer (None for a page) of a GET, or of a POST of ``body``."""
    import urllib.error
    import urllib.request

    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=300) as reply:
            text = reply.read()
            kind = reply.headers.get("Content-Type", "")
            return reply.status, json.loads(text) if "json" in kind else None
    except urllib.error.HTTPError as exc:
        return exc.code, None


def _serve(cache: str, out: list[str]) -> None:
    """``serve`` on an empty cache: address, first page, first desk hint and solve, and
    the seconds until its bots have their kernels."""
    with tempfile.TemporaryDirectory() as data:
        env = _env(cache)
        start = time.perf_counter()
        proc = subprocess.Popen([*CLI, "serve", "--port", "0", "--database-url",
                                 f"sqlite:///{data}/bench.db"], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                cwd=ROOT)  # fmt: skip
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            if "open http://" not in line:
                raise Shortfall(f"serve printed {line!r}, not its address")
            shown = time.perf_counter() - start
            url = line.split("open ", 1)[1].strip().rstrip("/")
            status, _ = _http(url + "/")
            first = time.perf_counter() - start
            if status != 200:
                raise Shortfall(f"serve's first page answered {status}")
            out.append(f"| `serve`: address printed | {shown:.1f} | |")
            out.append(f"| `serve`: first HTTP answer (`GET /`) | {first:.1f} | |")
            asked = time.perf_counter()
            status, reply = _http(url + "/api/hint", {
                "position": (ROOT / "examples/positions/pineapple-street3.txt").read_text(),
                "level": 2, "time_budget": 2.0})  # fmt: skip
            took = time.perf_counter() - asked
            if status != 200:
                raise Shortfall(f"the desk's first hint answered {status}")
            quick = bool(reply["hints"][0].get("quick"))
            out.append(f"| `serve`: first desk hint (budget 2 s; starts the worker) | {took:.1f}"
                       f" | {'quick (rules bot)' if quick else 'full'} |")  # fmt: skip
            asked = time.perf_counter()
            status, _ = _http(url + "/api/solve/fantasyland", {"cards": " ".join(FANTASYLAND)})
            took = time.perf_counter() - asked
            if status != 200:
                raise Shortfall(f"the desk's first Fantasyland solve answered {status}")
            out.append(f"| `serve`: first desk Fantasyland solve | {took:.1f} | |")
            while True:
                _, metrics = _http(url + "/api/metrics")
                if metrics.get("kernels_warm"):
                    break
                if time.perf_counter() - start > 900:
                    raise Shortfall("the server's bots had no kernels after 15 minutes")
                time.sleep(1.0)
            out.append(f"| `serve`: its bots play with their kernels (mc, not the rules bot)"
                       f" | {time.perf_counter() - start:.1f} | from start |")  # fmt: skip
        finally:
            proc.terminate()
            proc.wait(timeout=60)


def first_run(install: bool) -> None:
    """The first-run figures as a table; Shortfall if one could not be measured."""
    out = ["| step | wall (s) | notes |", "|---|---|---|"]
    if install:
        wall, cpu = _install()
        out.append(f"| fresh venv + `pip install -e .` | {wall:.1f} | {cpu:.1f} s CPU |")
    for part in PARTS:
        with tempfile.TemporaryDirectory() as cold:
            wall, cpu, text, _ = _run([sys.executable, "-c", WARM_ONE, part], _env(cold),
                                      f"warming {part}")  # fmt: skip
            if not json.loads(text)["compiled"]:
                raise Shortfall(f"the cold {part} run compiled nothing (not cold)")
        out.append(f"| compile `{part}` (own process, empty cache) | {wall:.1f} |"
                   f" {cpu:.1f} s CPU |")  # fmt: skip
        print(out[-1], flush=True)
    with tempfile.TemporaryDirectory() as cold:
        wall, cpu, text, _ = _run([sys.executable, "-m", "chinese_poker.ai.warm"], _env(cold),
                                  "python -m chinese_poker.ai.warm")  # fmt: skip
        if text.count(": compiled in") != len(PARTS):
            raise Shortfall(f"the cold warm did not compile every family: {text!r}")
        out.append("| `.venv/bin/python -m chinese_poker.ai.warm` (families in parallel) |"
                   f" {wall:.1f} | {cpu:.1f} s CPU |")  # fmt: skip
    with tempfile.TemporaryDirectory() as cold:
        _serve(cold, out)
    for name, args in (("solve setting", ["solve", "setting", *SETTING]),
                       ("solve fantasyland", ["solve", "fantasyland", *FANTASYLAND])):  # fmt: skip
        with tempfile.TemporaryDirectory() as cold:
            wall, _, _, err = _run([*CLI, *args], _env(cold), name)
            if "compiling" not in err:
                raise Shortfall(f"the cold `{name}` compiled nothing (not cold)")
        out.append(f"| first `{name}` | {wall:.1f} | compiles its kernels |")
    with tempfile.TemporaryDirectory() as cold:
        wall, _, text, err = _run([*CLI, "hint", "--time-budget", "1", VIEW], _env(cold),
                                  "hint")  # fmt: skip
        if "quick suggestion" not in err:
            raise Shortfall("the cold `hint` did not answer by the quick method")
        pid = int(err.split("in process ", 1)[1].split(")", 1)[0])
        _wait_gone(pid, 900)  # the detached compiler, writing into this cache
        out.append(f"| first `hint --time-budget 1` | {wall:.1f} | quick (rules bot); starts"
                   " the compiler |")  # fmt: skip
        wall, _, _, err = _run([*CLI, "hint", "--time-budget", "1", VIEW], _env(cold), "hint")
        if "quick" in err or "compiling" in err:
            raise Shortfall("the second `hint` was not warm")
        out.append(f"| next `hint --time-budget 1` (the compiler done) | {wall:.1f} | full |")
    with tempfile.TemporaryDirectory() as cold:
        wall, _, text, _ = _run([sys.executable, "-c", BOT_MOVE], _env(cold), "bot move")
        move = json.loads(text)
        if not move["legal"]:
            raise Shortfall("the server bot's first move was not legal")
        how = "the rules bot (kernels compiling)" if move["quick"] else "mc"
        out.append(f"| a server `mc` bot's first move | {move['seconds']:.2f} | {how} |")
    print("\n".join(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="only the budget check")
    ap.add_argument("--hands", type=int, default=10, help="hands per budget check")
    ap.add_argument("--first-run", action="store_true", help="only the fresh-machine figures")
    ap.add_argument("--no-install", action="store_true",
                    help="--first-run without the fresh venv install")  # fmt: skip
    args = ap.parse_args()
    if args.first_run:
        print(f"load average at start: {os.getloadavg()[0]:.1f}", flush=True)
        try:
            first_run(install=not args.no_install)
        except Shortfall as exc:
            raise SystemExit(verdict("bench_cold", [str(exc)])) from None
        print(f"load average at end: {os.getloadavg()[0]:.1f}")
        return
    problems = [] if args.quick else cold_starts()
    budgets(args.hands)
    raise SystemExit(verdict("bench_cold", problems))


if __name__ == "__main__":
    main()
