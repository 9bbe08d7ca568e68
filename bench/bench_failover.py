"""Failover: the time from ``kill -9`` of a table's owner to the table's next applied move.

Starts three ``chinese-poker serve`` processes on one temporary SQLite file (a lease of
``--lease`` seconds), opens a table of three bots playing hand after hand, then kills
the process that owns it (SIGKILL), ``--kills`` times; each killed process is started
again (on a new port) while the next kill is measured. The time runs from the kill to
the next action stored for the table (the database is polled every 5 ms), in two ways:

* ``reconnect``: a spectator reconnects at once to another live process, following
  ``moved``; the process it reaches takes the table over on that request (on one
  machine a dead owner's lease is takeable at once: its pid is gone);
* ``sweep``: nobody reconnects; another process takes the table over in its lease sweep
  once the dead owner's lease has run out (what a process on another machine waits for).

Prints p50, p99 and the largest of each, and exits 1 (``bench_failover: FAILED: ...``,
:mod:`shortfall`) if it measured fewer kills than asked (a table that was not taken
over, a move that never came within ``--timeout``). Run::

    .venv/bin/python bench/bench_failover.py                  # 20 kills each way
    .venv/bin/python bench/bench_failover.py --kills 5 --modes sweep
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx2
from websockets.sync.client import connect

from shortfall import short, verdict


class Serve:
    """``chinese-poker serve`` on a free port of 127.0.0.1, its log in ``log``."""

    def __init__(self, database: Path, lease: float, log: Path) -> None:
        command = [sys.executable, "-m", "chinese_poker.cli", "serve", "--port", "0"]
        command += ["--database-url", f"sqlite:///{database}", "--lease-seconds", str(lease)]
        with log.open("a") as errors:
            self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if "open http://" not in line:
            raise RuntimeError(f"serve did not start (see {log})")
        self.url = line.split("open ", 1)[1].strip().rstrip("/")

    def kill(self) -> None:
        """SIGKILL: nothing of the process runs after it (the bench throws them away)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)


def moves(database: Path, table_id: str) -> int:
    """How many actions are stored for the table."""
    with sqlite3.connect(database, timeout=10) as db:
        row = db.execute("SELECT COUNT(*) FROM actions WHERE table_id = ?", (table_id,))
        return int(row.fetchone()[0])


def owner_address(database: Path, table_id: str) -> str | None:
    with sqlite3.connect(database, timeout=10) as db:
        row = db.execute(
            "SELECT address FROM table_leases WHERE table_id = ? AND owner IS NOT NULL",
            (table_id,),
        ).fetchone()
    return None if row is None else str(row[0])


def watch(servers: list[Serve], table_id: str, rng: random.Random) -> None:
    """A spectator connects to a live process (following ``moved``) and reads its first
    state: the process it ends at plays the table."""
    url = rng.choice(servers).url
    for _ in range(5):
        with connect(f"ws{url[4:]}/ws/tables/{table_id}") as ws:
            first = json.loads(ws.recv(timeout=10))
            if first["type"] != "moved":
                return
            url = first["to"]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def run(mode: str, kills: int, lease: float, timeout: float, work: Path) -> list[float]:
    """The seconds from each kill to the next stored move (fewer if one never came)."""
    database = work / f"{mode}.db"
    started = 0

    def start() -> Serve:
        nonlocal started
        started += 1
        return Serve(database, lease, work / f"{mode}-{started}.log")

    servers = [start() for _ in range(3)]
    rng = random.Random(38)
    times: list[float] = []
    starting: threading.Thread | None = None
    try:
        made = httpx2.post(
            servers[0].url + "/api/tables",
            json={
                "preset": "pineapple",
                "hands": "continuous",
                "seats": [{"kind": "bot", "bot": "rules"}] * 3,
                "bot_delay": 0.05,
                "next_hand_delay": 0.2,
            },
        ).json()
        table_id = made["table"]["id"]
        for kill in range(kills):
            deadline = time.monotonic() + timeout
            owner = None
            while owner is None and time.monotonic() < deadline:
                address = owner_address(database, table_id)
                owner = next((s for s in servers if s.url == address), None)
                time.sleep(0.02)
            if owner is None:
                break
            before = moves(database, table_id)
            while moves(database, table_id) == before and time.monotonic() < deadline:
                time.sleep(0.02)  # kill it while it plays, mid-hand
            owner.kill()
            killed = time.monotonic()
            servers.remove(owner)
            at_kill = moves(database, table_id)
            if mode == "reconnect":
                watch(servers, table_id, rng)
            while moves(database, table_id) == at_kill:
                if time.monotonic() - killed > timeout:
                    break
                time.sleep(0.005)
            else:
                times.append(time.monotonic() - killed)
            if len(times) <= kill:
                break  # no move came: the rest would measure nothing
            if starting is not None:
                starting.join()
            starting = threading.Thread(target=lambda: servers.append(start()))
            starting.start()
    finally:
        if starting is not None:
            starting.join()
        for server in servers:
            server.kill()
    return times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=20, help="kills per mode (default 20)")
    ap.add_argument("--lease", type=float, default=2.0, help="serve --lease-seconds (2)")
    ap.add_argument("--modes", nargs="+", default=["reconnect", "sweep"],
                    choices=["reconnect", "sweep"])  # fmt: skip
    ap.add_argument("--timeout", type=float, default=15.0, help="seconds a kill may take")
    ap.add_argument(
        "--within", type=float, default=5.0, help="a takeover slower than this fails (5)"
    )
    args = ap.parse_args(argv)
    problems = []
    print(f"load average before: {os.getloadavg()[0]:.2f}; lease {args.lease} s")
    with tempfile.TemporaryDirectory(prefix="bench-failover-") as tmp:
        for mode in args.modes:
            times = run(mode, args.kills, args.lease, args.timeout, Path(tmp))
            problems.append(short(f"{mode}: kills", len(times), args.kills))
            if times and max(times) > args.within:
                slowest = f"{mode}: slowest takeover {max(times):.2f} s"
                problems.append(f"{slowest}, over {args.within} s")
            if times:
                print(
                    f"{mode:9}  kills {len(times):3}  p50 {percentile(times, 0.5) * 1000:7.0f} ms"
                    f"  p99 {percentile(times, 0.99) * 1000:7.0f} ms"
                    f"  max {max(times) * 1000:7.0f} ms",
                    flush=True,
                )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return verdict("bench_failover", problems)


if __name__ == "__main__":
    sys.exit(main())
