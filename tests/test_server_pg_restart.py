"""PostgreSQL restarted mid-play (issue 38, hostile tests).

A throwaway PostgreSQL cluster of this test's own (Debian's, started as
scripts/start-postgres starts one; needs root, else skipped), two ``chinese-poker serve``
processes on it with a lease of 2 s, and two people and a bot at a table. The cluster is
stopped (``pg_ctl -m immediate``: as a crash) right after an action was sent, and started
again on the same port 3 s later (past the lease):

* meanwhile an action is answered with an error, or not at all (never acknowledged
  without being stored), a REST read that needs the database is answered 503 (it was a
  500 with a traceback), and no process dies;
* once the database is back, the table plays on (its lease renewed, or taken over),
  within the time measured and printed, and every acknowledged action is stored once.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from glob import glob
from pathlib import Path

import httpx2
import pytest
from websockets.exceptions import ConnectionClosed

from test_server_failover import (
    People,
    check_nothing_lost_or_doubled,
    open_table,
    stored_people_actions,
)
from test_server_leases import Server

BACK_WITHIN = 20.0
"""Seconds, from the database's start, within which the table must have moved again."""


@dataclass
class Cluster:
    """One PostgreSQL cluster in ``folder`` on ``port``, run as the user postgres."""

    folder: Path
    port: int
    bin: str

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/chinese_poker_test"

    def _ctl(self, *args: str) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", f"{self.bin}/pg_ctl",
                        "-D", str(self.folder / "data"), *args],
                       check=True, capture_output=True, timeout=60)  # fmt: skip

    def start(self) -> None:
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder} -c fsync=off"
        self._ctl("-l", str(self.folder / "log"), "-w", "-o", options, "start")

    def crash(self) -> None:
        self._ctl("-m", "immediate", "stop")


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    bins = sorted(glob("/usr/lib/postgresql/*/bin"))
    if os.geteuid() != 0 or not bins or shutil.which("runuser") is None:
        pytest.skip("needs root and Debian's postgresql (as scripts/start-postgres)")
    done = subprocess.run(["bash", "scripts/start-postgres"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "CP_PG_DIRFILE": "/dev/stdout"},
                          cwd=Path(__file__).resolve().parents[1])  # fmt: skip
    assert done.returncode == 0, done.stderr
    folder, url = done.stdout.strip().splitlines()[-2:]
    if not folder.startswith("/"):
        url, folder = folder, url
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    made = Cluster(Path(folder), port, bins[-1])
    try:
        yield made
    finally:
        subprocess.run(["bash", "scripts/start-postgres", "--stop", folder],
                       capture_output=True, timeout=120,
                       cwd=Path(__file__).resolve().parents[1])  # fmt: skip


def moves_again(
    people: People, servers: list[Server], table_id: str, moves: int, within: float
) -> float:
    """Play ``moves`` moves, the people reconnecting anywhere (following ``moved``)
    whenever a socket closes (a process stepping down from a table another took over);
    the seconds until the first."""
    start = time.monotonic()
    first: float | None = None
    done = 0
    while done < moves:
        try:
            with ExitStack() as stack:
                people.sit(stack, servers, table_id)
                while done < moves:
                    people.progress(max(1.0, start + within - time.monotonic()))
                    done += 1
                    first = first if first is not None else time.monotonic() - start
        except (AssertionError, OSError, TimeoutError, ConnectionClosed):
            assert time.monotonic() < start + within, "the table did not move again"
            time.sleep(0.5)
    assert first is not None
    return first


def read_codes(servers: list[Server], table_id: str) -> list[int]:
    codes = []
    for server in servers:
        try:
            codes.append(httpx2.get(f"{server.url}/api/tables/{table_id}", timeout=30).status_code)
        except httpx2.HTTPError:
            codes.append(0)
    return codes


@pytest.mark.slow
def test_postgresql_restarted_mid_play(cluster: Cluster, tmp_path: Path) -> None:
    rng = random.Random(5)
    servers = [Server(cluster.url, tmp_path / f"serve{i}.log", 2.0) for i in range(2)]
    try:
        table_id, people = open_table(servers[0], rng)
        with ExitStack() as stack:
            people.sit(stack, servers, table_id)
            for _ in range(4):
                people.progress()
            chair = people.to_act()
            assert chair is not None or people.to_act() is None
            sent = people.send(chair) if chair is not None else None
            cluster.crash()
            down = time.monotonic()
            answers: list[dict[str, object]] = []
            if sent is not None:  # answered with an error, or not at all
                ws = people.socks[chair]  # type: ignore[index]
                deadline = time.monotonic() + 2.5
                while time.monotonic() < deadline:
                    try:
                        message = json.loads(ws.recv(timeout=0.2))
                    except TimeoutError:
                        continue
                    except Exception:
                        break  # the socket closed
                    if message.get("ref") == sent or message.get("ack") == sent:
                        answers.append(message)
                kinds = {m.get("type") for m in answers}
                # Refused while the database was away, or stored just before it went
                # (the crash can come after the group commit): never both, never else.
                assert kinds <= {"error"} or kinds == {"state"}, answers
                if kinds == {"error"}:
                    people.unsure.pop()  # refused: nothing stored
                elif kinds == {"state"}:
                    people.acked.append(people.unsure.pop())  # stored before the crash
            codes = read_codes(servers, table_id)
            # 200: the owner's copy in memory (stored state); 503: the database is away.
            assert set(codes) <= {200, 409, 503}, codes
            time.sleep(max(0.0, 3.0 - (time.monotonic() - down)))
            cluster.start()
        for server in servers:
            assert server.proc.poll() is None, "a process died with its database"
        back = moves_again(people, servers, table_id, 1, BACK_WITHIN)
        moves_again(people, servers, table_id, 4, BACK_WITHIN)
    finally:
        for server in servers:
            server.stop()
    stored = stored_people_actions(cluster.url, table_id, people.seats)
    check_nothing_lost_or_doubled(people, stored)
    print(f"postgresql restart: the table moved again {back:.1f} s after the database was up")
