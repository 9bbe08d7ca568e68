"""Server load: many 2-player tables played by client-side bots over WebSockets.

Starts ``chinese-poker serve`` as a subprocess on 127.0.0.1 (a free port, a temporary
SQLite file, the one-process uvicorn server), opens N 2-player tables through the REST
lobby (both seats human, so every action comes over a socket), connects one WebSocket per
seat and lets client-side bots play: each acts at once on its turn with a random legal
action computed from its view. The round trip of an action is measured from sending it
to receiving the ``state`` that acknowledges it (``ack``), i.e. including validation, the
database commit and the broadcast. Reports tables, connections, actions per second and
the 50th/99th percentile round trip. Bounded: ``--hands`` per table and ``--timeout``
seconds overall; the server is stopped at the end. Run::

    .venv/bin/python bench/bench_server_load.py                     # 200 tables, 2 hands each
    .venv/bin/python bench/bench_server_load.py --tables 20 --hands 1  # quick look
    .venv/bin/python bench/bench_server_load.py --json   # + bench/results/server_load.json

Target on the 2-core reference machine: 200 concurrent tables, p99 < 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

TARGET_TABLES = 200
TARGET_P99_MS = 100.0
RESULTS = Path(__file__).resolve().parent / "results"


def random_action(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random legal action from the view's first decision (as a browser bot would)."""
    d = view["decisions"][0]
    if d["kind"] == "surrender":
        return {"type": "surrender", "hand": d["hand"], "surrender": False,
                "version": view["version"]}
    if d["kind"] == "natural":
        return {"type": "claim_natural", "hand": d["hand"], "claim": True,
                "version": view["version"]}
    cards = list(d["cards"])
    rng.shuffle(cards)
    discard, rest = cards[: d["discard"]], cards[d["discard"]:]
    free = list(d["free"])
    lines: list[list[str]] = [[], [], []]
    for card in rest:
        i = rng.choice([k for k in range(3) if free[k] > 0])
        free[i] -= 1
        lines[i].append(card)
    return {"type": "place", "hand": d["hand"], "top": lines[0], "middle": lines[1],
            "bottom": lines[2], "discard": discard, "version": view["version"]}


class Stats:
    def __init__(self) -> None:
        self.rtts: list[float] = []
        self.errors = 0
        self.hands = 0
        self.actions = 0


async def seat(url: str, hands: int, stats: Stats, rng: random.Random, ready: asyncio.Event,
               connected: list[int]) -> None:
    """One client-side bot: act on every turn until ``hands`` hands have ended."""
    async with connect(url, max_size=None, compression=None, open_timeout=60,
                       ping_interval=None) as ws:
        connected[0] += 1
        await ready.wait()
        pending: tuple[str, float] | None = None
        done = 0
        counter = 0
        async for raw in ws:
            m = json.loads(raw)
            kind = m["type"]
            if kind == "state":
                if pending is not None and m["ack"] == pending[0]:
                    stats.rtts.append(time.perf_counter() - pending[1])
                    stats.actions += 1
                    pending = None
                view = m["view"]
                if (
                    pending is None
                    and view["phase"] != "showdown"
                    and view["seat"] in view["to_act"]
                    and view["decisions"]
                ):
                    counter += 1
                    ref = f"{view['seat']}-{counter}"
                    text = json.dumps({"type": "action", "id": ref,
                                       "action": random_action(view, rng)})
                    pending = (ref, time.perf_counter())
                    await ws.send(text)
            elif kind == "hand_end":
                done += 1
                stats.hands += 1  # counted by both seats
                if done >= hands or m["session_over"]:
                    return
            elif kind == "error":
                stats.errors += 1
                pending = None


def start_server(db: Path, log: Path) -> tuple[subprocess.Popen[str], str]:
    env = dict(os.environ)
    proc = subprocess.Popen(
        [sys.executable, "-m", "chinese_poker.cli", "serve", "--host", "127.0.0.1",
         "--port", "0", "--database-url", f"sqlite:///{db}"],
        stdout=subprocess.PIPE, stderr=log.open("w"), text=True, env=env,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "open http://" not in line:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}; see {log}")
    url = line.split("open ", 1)[1].strip().rstrip("/")
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(url + "/api/health", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            raise SystemExit(f"the server did not start; see {log}")
        time.sleep(0.05)


def process_cpu(pid: int | None) -> float:
    """CPU seconds (user + system) used so far by process ``pid`` (Linux /proc)."""
    if pid is None:
        return float("nan")
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def run(args: argparse.Namespace, url: str, pid: int | None = None) -> dict[str, Any]:
    ws_base = "ws" + url[4:]
    urls: list[str] = []
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        for _ in range(args.tables):
            made = (await http.post("/api/tables", json={
                "preset": args.preset, "next_hand_delay": 0,
                "seats": [{"kind": "human", "name": "A"}, {"kind": "human"}]})).json()
            tid = made["table"]["id"]
            joined = (await http.post(f"/api/tables/{tid}/join",
                                      json={"code": made["join_code"], "name": "B"})).json()
            urls += [f"{ws_base}/ws/tables/{tid}?token={made['token']}",
                     f"{ws_base}/ws/tables/{tid}?token={joined['token']}"]
    stats = Stats()
    ready = asyncio.Event()
    connected = [0]
    rng = random.Random(args.seed)
    tasks = [asyncio.create_task(seat(u, args.hands, stats, random.Random(rng.random()),
                                      ready, connected)) for u in urls]
    t0 = time.perf_counter()
    while connected[0] < len(urls):
        if time.perf_counter() - t0 > args.timeout:
            raise SystemExit(f"only {connected[0]} of {len(urls)} connections opened")
        await asyncio.sleep(0.05)
    connect_s = time.perf_counter() - t0
    start = time.perf_counter()
    cpu0 = os.times()
    server0 = process_cpu(pid)
    ready.set()
    done, pending = await asyncio.wait(tasks, timeout=args.timeout)
    elapsed = time.perf_counter() - start
    for t in pending:
        t.cancel()
    for t in done:
        if t.exception() is not None:
            stats.errors += 1
    cpu1 = os.times()
    server_cpu = process_cpu(pid) - server0
    rtts = sorted(stats.rtts)

    def pct(p: float) -> float:
        return rtts[min(len(rtts) - 1, int(p * len(rtts)))] * 1000 if rtts else float("nan")

    return {
        "tables": args.tables,
        "connections": len(urls),
        "preset": args.preset,
        "hands_per_table": args.hands,
        "hands_completed": stats.hands // 2,
        "actions": stats.actions,
        "errors": stats.errors,
        "unfinished_clients": len(pending),
        "seconds": round(elapsed, 3),
        "connect_seconds": round(connect_s, 3),
        "actions_per_second": round(stats.actions / elapsed, 1) if elapsed else 0.0,
        "rtt_ms_p50": round(pct(0.50), 2),
        "rtt_ms_p99": round(pct(0.99), 2),
        "rtt_ms_max": round(rtts[-1] * 1000, 2) if rtts else None,
        "rtt_ms_mean": round(statistics.fmean(rtts) * 1000, 2) if rtts else None,
        "client_cpu_seconds": round((cpu1.user - cpu0.user) + (cpu1.system - cpu0.system), 2),
        "server_cpu_seconds": round(server_cpu, 2),
        "server_cpu_us_per_action": (
            round(server_cpu / stats.actions * 1e6, 1) if stats.actions else None
        ),
        "load_average": os.getloadavg()[0],
    }


def _run_loop(coro: Any) -> Any:
    """Run the client on uvloop when it is installed (as uvicorn[standard] does)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coro)
    return uvloop.run(coro)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=TARGET_TABLES)
    parser.add_argument("--hands", type=int, default=2, help="hands per table (default 2)")
    parser.add_argument("--preset", default="pineapple")
    parser.add_argument("--timeout", type=float, default=180.0, help="overall bound, seconds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="write bench/results/server_load.json")
    parser.add_argument("--url", help="use a server already running at this URL (loopback)")
    parser.add_argument("--db-dir", help="folder for the temporary SQLite file (default: tmp)")
    args = parser.parse_args()
    if args.url:
        result = _run_loop(run(args, args.url.rstrip("/")))
        print(json.dumps(result))
        return
    with tempfile.TemporaryDirectory(dir=args.db_dir) as tmp:
        db, log = Path(tmp) / "bench.db", Path(tmp) / "server.log"
        print(f"starting the server (database {db})", file=sys.stderr)
        proc, url = start_server(db, log)
        try:
            print(f"{args.tables} tables, {2 * args.tables} connections, {args.hands} hand(s)"
                  " each ...", file=sys.stderr)
            result = _run_loop(run(args, url, proc.pid))
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
    ok = result["rtt_ms_p99"] < TARGET_P99_MS and result["tables"] >= TARGET_TABLES
    print("| tables | connections | actions | actions/s | p50 ms | p99 ms | max ms | errors"
          " | server CPU/action |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {result['tables']} | {result['connections']} | {result['actions']} |"
          f" {result['actions_per_second']} | {result['rtt_ms_p50']} | {result['rtt_ms_p99']} |"
          f" {result['rtt_ms_max']} | {result['errors']} |"
          f" {result['server_cpu_us_per_action']} us |")
    print(f"\ntarget: {TARGET_TABLES} tables with p99 < {TARGET_P99_MS:.0f} ms:"
          f" {'met' if ok else 'NOT met'}", file=sys.stderr)
    print(json.dumps(result), file=sys.stderr)
    if args.json:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "server_load.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
