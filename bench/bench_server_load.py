"""Server load: many 2-player tables played by client-side bots over WebSockets.

Starts ``chinese-poker serve`` as a subprocess on 127.0.0.1 (a free port, a temporary
SQLite file, the one-process uvicorn server), opens N 2-player tables through the REST
lobby (both seats human, so every action comes over a socket), connects one WebSocket per
seat and lets client-side bots play with a random legal action computed from their view.
The round trip of an action is measured from sending it to receiving the ``state`` that
acknowledges it (``ack``), i.e. including validation, the database commit and the
broadcast. Reports tables, connections, actions per second, the 50th/99th percentile
round trip, the server's and the clients' CPU time per action and the load average.

Two kinds of run (``--think``; several values give one run each, on a fresh server):

* saturating, ``--think 0`` (the default): every bot acts the moment its turn comes, so
  the server always has one action of every table outstanding; all tables start
  together and stay in lock step, so their showdowns and deals coincide (the worst case);
* human-paced, ``--think S``: each bot waits a random time, uniform in 0..2*S seconds,
  before each action (the round trip is timed from the send, not the thinking).

The clients run in ``--clients`` separate processes (default 1) on a minimal WebSocket
client (orjson when installed), because they share the machine's cores with the server.
Bounded: ``--hands`` per table and ``--timeout`` seconds; the server is stopped at the
end. The server's CPU per action is its user and kernel time from /proc (the kernel's
part, socket reads and writes and the database file's, also on its own). The server it
starts lets one address hold every seat's WebSocket
(``serve --sockets-per-address``; the default of 64 would seat only 32 tables). A run
that measured less than it was asked (a table that did not play its hands, a seat left
unfinished, an error, an action sent and never acknowledged) prints its figures, then
one ``bench_server_load: FAILED: ...`` line per shortfall, and exits 1. Run::

    .venv/bin/python bench/bench_server_load.py                # 200 tables, 2 hands, think 0
    .venv/bin/python bench/bench_server_load.py --think 0 1    # saturating, then human-paced
    .venv/bin/python bench/bench_server_load.py --tables 20 --hands 1  # quick look
    .venv/bin/python bench/bench_server_load.py --json   # + bench/results/server_load.json
    .venv/bin/python bench/bench_server_load.py --target lockstep   # issue 9's targets:
    .venv/bin/python bench/bench_server_load.py --target human      #   lockstep, human,
    .venv/bin/python bench/bench_server_load.py --target memory     #   memory, flood
    .venv/bin/python bench/bench_server_load.py --target flood

More runs (issue 9):

* ``--runs N``: N consecutive runs against one server (fresh tables each run), with
  the server's resident memory (RSS) after each: memory and p99 must stay flat; the p99
  of every run's round trips together is printed too (``--target lockstep`` is five
  runs: a run's p99 is the tail of its one hand-end round, so one run measures it
  coarsely);
* ``--base COMMIT``: a second server runs COMMIT's code (``git archive`` of its
  ``src``, kept in the temporary folder with its compiled kernels: the first run waits
  minutes for their compilation) beside the current tree's, and the runs alternate
  between the two (base first, ``--runs`` each, same tables and load): the rows name
  their server and a last line gives both median server CPU per action and their
  ratio, e.g. ``--tables 100 --runs 3 --base HEAD~3``; each server's p99 is pooled
  apart, and only the current tree's runs are held to the targets;
* ``--tree DIR``: the current server runs the checkout DIR's package (a git worktree of
  the commit to measure, say) rather than this tree's, so that others' work in
  progress here stays out of the figures;
* ``--hint-flood``: one seat keeps 200 hints outstanding (it resends one per answer)
  while a 4-bot table plays and tables are created; reports the bot table's move rate
  with and without the flood and the creation times.

Targets on the 2-core reference machine: 200 tables in lock step p99 < 50 ms; 3,000
human-paced tables p99 < 50 ms with no errors; after ten 200-table runs RSS and p99
within 10% of the first run's; under the hint flood the bot table keeps >= 90% of its
move rate and creating a table takes < 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import importlib
import json
import multiprocessing as mp
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2

from base_commit import UnknownCommit, export_src, full_sha
from shortfall import short, verdict

TARGET_TABLES = 200
TARGET_P99_MS = 50.0
NO_LIMITS = "1000000/minute,1000000/minute,1000000/minute"
ORBIT_HANDS = 2  # a 2-player table's session: one button orbit (plus Fantasyland hands)
RESULTS = Path(__file__).resolve().parent / "results"

TARGETS: dict[str, dict[str, Any]] = {
    # 200 two-player tables in lock step: p99 < 50 ms
    # (five runs against one server: the p99 of all their round trips, and each run's)
    "lockstep": {"tables": 200, "hands": 2, "think": [0.0], "clients": 1, "runs": 5},
    # 3,000 human-paced tables (think 0-2 s), one server process: p99 < 50 ms, 0 errors
    "human": {"tables": 3000, "hands": 1, "think": [1.0], "clients": 2, "runs": 1},
    # ten consecutive 200-table runs: RSS and p99 within 10% of the first run's
    # (2 hands a table: asked for 3 before, the session ended after its orbit of 2)
    "memory": {"tables": 200, "hands": 2, "think": [0.0], "clients": 1, "runs": 10},
    # 200 pending hints from one seat: bots keep >= 90% of their moves, creation < 1 s
    "flood": {"hint_flood": True, "flood_seconds": 9.0},
}
"""``--target NAME``: issue 9's benchmarks, one command each."""


def random_action(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random legal action from the view's first decision (as a browser bot would)."""
    d = view["decisions"][0]
    if d["kind"] == "surrender":
        return {
            "type": "surrender",
            "hand": d["hand"],
            "surrender": False,
            "version": view["version"],
        }
    if d["kind"] == "natural":
        return {
            "type": "claim_natural",
            "hand": d["hand"],
            "claim": True,
            "version": view["version"],
        }
    cards = list(d["cards"])
    rng.shuffle(cards)
    discard, rest = cards[: d["discard"]], cards[d["discard"] :]
    free = list(d["free"])
    lines: list[list[str]] = [[], [], []]
    for card in rest:
        i = rng.choice([k for k in range(3) if free[k] > 0])
        free[i] -= 1
        lines[i].append(card)
    return {
        "type": "place",
        "hand": d["hand"],
        "top": lines[0],
        "middle": lines[1],
        "bottom": lines[2],
        "discard": discard,
        "version": view["version"],
    }


_json_loads: Any = json.loads
try:  # the client parses ~2 messages per action: orjson when installed
    _orjson: Any = importlib.import_module("orjson")
    CLIENT_JSON = "orjson"
except ImportError:  # pragma: no cover - depends on the installation
    _orjson = None
    CLIENT_JSON = "json"


def _loads(raw: str | bytes) -> Any:
    return _orjson.loads(raw) if _orjson is not None else _json_loads(raw)


def _dumps(data: Any) -> str:
    if _orjson is not None:
        text: str = _orjson.dumps(data).decode()
        return text
    return json.dumps(data, separators=(",", ":"))


class Stats:
    def __init__(self) -> None:
        self.rtts: list[float] = []
        self.errors = 0
        self.hands = 0
        self.actions = 0  # acknowledged, with their round trip in ``rtts``
        self.sent = 0
        # Why sockets ended early: the server's close code and reason (4429: the
        # per-address limit), and the codes of its error messages, each with its count.
        self.closes: dict[str, int] = {}
        self.error_codes: dict[str, int] = {}


class Seat(asyncio.Protocol):
    """One client-side bot on a minimal WebSocket client (RFC 6455, text frames, no
    extensions), so that the client, which shares the machine with the server, costs
    little: frames are parsed and the bot acts inside ``data_received``.

    The bot acts on every turn until ``hands`` hands have ended; ``think`` > 0 waits a
    random time, uniform in 0..2*think seconds, before each action (human-paced play),
    0 acts at once (saturating). A round trip is timed from writing the action to
    receiving the ``state`` that acknowledges it.
    """

    def __init__(
        self, hands: int, think: float, stats: Stats, rng: random.Random, stagger: float = 0.0
    ) -> None:
        self.hands, self.think, self.stats, self.rng = hands, think, stats, rng
        # A staggered start: the first action waits uniform 0..stagger seconds, so the
        # tables do not all reach their showdowns in the same instant.
        self.first_wait = rng.uniform(0.0, stagger) if stagger > 0 else 0.0
        loop = asyncio.get_running_loop()
        self.loop = loop
        self.opened: asyncio.Future[None] = loop.create_future()
        self.finished: asyncio.Future[bool] = loop.create_future()
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.handshake = True
        self.started = False
        self.backlog: list[bytes] = []
        self.fragments: list[bytes] = []
        self.pending: tuple[str, float] | None = None
        self.done = 0
        self.counter = 0

    # -- the WebSocket layer
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(ConnectionError(f"connection lost: {exc}"))
        if not self.finished.done():
            self.finished.set_result(False)

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        if self.handshake:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if not buf.startswith(b"HTTP/1.1 101"):
                self.opened.set_exception(ConnectionError(bytes(buf[:200]).decode("latin-1")))
                return
            del buf[: end + 4]
            self.handshake = False
            self.opened.set_result(None)
        while len(buf) >= 2:
            b0, n = buf[0], buf[1] & 0x7F
            i = 2
            if n == 126:
                if len(buf) < 4:
                    return
                n, i = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                if len(buf) < 10:
                    return
                n, i = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < i + n:
                return
            payload = bytes(buf[i : i + n])
            del buf[: i + n]
            opcode = b0 & 0x0F
            if opcode in (0x1, 0x0):  # text, continuation
                self.fragments.append(payload)
                if b0 & 0x80:
                    text = b"".join(self.fragments)
                    self.fragments.clear()
                    if self.started:
                        self.on_message(text)
                    else:
                        self.backlog.append(text)
            elif opcode == 0x9:  # ping
                self.write(payload, 0xA)
            elif opcode == 0x8:  # close
                if not self.finished.done():  # closed before its hands were played
                    code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
                    why = f"{code} {payload[2:].decode('utf-8', 'replace')}".strip()
                    self.stats.closes[why] = self.stats.closes.get(why, 0) + 1
                self.write(payload[:2], 0x8)
                self.close()

    def write(self, payload: bytes, opcode: int = 0x1) -> None:
        n = len(payload)
        if n < 126:
            head = bytes((0x80 | opcode, 0x80 | n))
        elif n < 65536:
            head = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
        else:
            head = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
        # A client must mask its frames; the all-zero mask leaves the payload unchanged.
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(head + b"\x00\x00\x00\x00" + payload)

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.write(b"\x03\xe8", 0x8)
            self.transport.close()

    # -- the bot
    def start(self) -> None:
        self.started = True
        backlog, self.backlog = self.backlog, []
        for text in backlog:
            self.on_message(text)

    def on_message(self, raw: bytes) -> None:
        m = _loads(raw)
        kind = m["type"]
        stats = self.stats
        if kind == "state":
            pending = self.pending
            if pending is not None and m["ack"] == pending[0]:
                stats.rtts.append(time.perf_counter() - pending[1])
                stats.actions += 1
                self.pending = pending = None
            view = m["view"]
            if (
                pending is None
                and not self.finished.done()  # its hands played: the next deal is not ours
                and view["phase"] != "showdown"
                and view["seat"] in view["to_act"]
                and view["decisions"]
            ):
                self.counter += 1
                ref = f"{view['seat']}-{self.counter}"
                text = _dumps(
                    {"type": "action", "id": ref, "action": random_action(view, self.rng)}
                ).encode()
                wait = self.rng.uniform(0.0, 2.0 * self.think) if self.think > 0 else 0.0
                wait, self.first_wait = wait + self.first_wait, 0.0
                if wait > 0:
                    # Thinking: the round trip is timed from the send, not from here.
                    self.pending = (ref, 0.0)
                    self.loop.call_later(wait, self.send_action, ref, text)
                else:
                    self.send_action(ref, text)
        elif kind == "hand_end":
            self.done += 1
            stats.hands += 1  # counted by both seats
            if self.done >= self.hands or m["session_over"]:
                if not self.finished.done():
                    self.finished.set_result(True)
                self.close()
        elif kind == "error":
            stats.errors += 1
            code = str(m.get("code"))
            stats.error_codes[code] = stats.error_codes.get(code, 0) + 1
            self.pending = None

    def send_action(self, ref: str, text: bytes) -> None:
        if self.finished.done():  # the seat finished (or lost its socket) while thinking
            return
        self.pending = (ref, time.perf_counter())
        self.stats.sent += 1
        self.write(text)


async def open_seat(
    url: str, hands: int, think: float, stats: Stats, rng: random.Random, stagger: float = 0.0
) -> Seat:
    """Connect one seat (``ws://host:port/path?query``) and finish the handshake."""
    rest, _, token = url.split("://", 1)[1].partition("#")  # the token: first message
    hostport, path = rest.split("/", 1)
    host, port = hostport.rsplit(":", 1)
    loop = asyncio.get_running_loop()
    _transport, proto = await loop.create_connection(
        lambda: Seat(hands, think, stats, rng, stagger), host, int(port)
    )
    key = base64.b64encode(os.urandom(16)).decode()
    assert proto.transport is not None
    proto.transport.write(
        (
            f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    await asyncio.wait_for(proto.opened, 60)
    if token:
        proto.write(_dumps({"type": "auth", "token": token}).encode())
    return proto


def start_server(
    db: Path | str,
    log: Path,
    ws: str = "auto",
    sockets: int | None = None,
    source: Path | None = None,
    options: tuple[str, ...] = (),
) -> tuple[subprocess.Popen[str], str]:
    """Start ``chinese-poker serve`` on a free loopback port; ``db``: a SQLite file, or
    a database URL; ``sockets``: the WebSockets one address may hold (every seat of a
    run comes from 127.0.0.1; None: the default); ``source``: a folder holding the
    package to serve (``chinese_poker``; None: the installed one), e.g. another commit's
    ``src``; ``options``: more of serve's options (``--redis URL``)."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(source), *filter(None, [env.get("PYTHONPATH")])])
    more = [] if sockets is None else ["--sockets-per-address", str(sockets)]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "chinese_poker.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--database-url",
            db if isinstance(db, str) else f"sqlite:///{db}",
            "--ws",
            ws,
            "--rate-limits",
            NO_LIMITS,
            *more,
            *options,
        ],
        stdout=subprocess.PIPE,
        stderr=log.open("w"),
        text=True,
        env=env,
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
            if httpx2.get(url + "/api/health", timeout=2).status_code == 200:
                return proc, url
        except httpx2.HTTPError:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            raise SystemExit(f"the server did not start; see {log}")
        time.sleep(0.05)


def commit_source(commit: str, into: Path | None = None) -> tuple[Path, str]:
    """The package of ``commit`` of this repository (:func:`base_commit.export_src`)
    extracted into ``into`` (default: the temporary folder) and kept there, with the
    kernels its server compiles beside it, for the next run: its ``src`` folder and the
    commit's short hash."""
    try:
        full = full_sha(commit)
    except UnknownCommit as exc:
        raise SystemExit(f"bench_server_load: --base {commit}: {exc}") from None
    home = Path(into or tempfile.gettempdir()) / f"chinese-poker-bench-base-{full}"
    if not (home / "src").is_dir():
        part = Path(tempfile.mkdtemp(prefix=home.name + "-", dir=home.parent))
        export_src(full, part)
        part.rename(home)  # whole or not at all: another run may be extracting it too
    return home / "src", full[:7]


def by_server(results: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The runs of each server ("current", "base", or "" without ``--base``), in order."""
    out: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        out.setdefault(r.get("server", "").split(" ")[0], []).append(r)
    return out


def compare_cpu(results: list[dict[str, Any]], base: str) -> str:
    """One line: the median server CPU per action of the current tree's runs and of the
    base commit's, and their ratio."""

    def median(server: str) -> float | None:
        got = [
            r["server_cpu_us_per_action"]
            for r in results
            if r.get("server") == server and r["server_cpu_us_per_action"] is not None
        ]
        return statistics.median(got) if got else None

    now, then = median("current"), median(f"base {base}")
    if now is None or then is None:
        return "server CPU per action: not measured"
    n = sum(1 for r in results if r.get("server") == "current")
    return (
        f"server CPU per action (median of {n} interleaved runs each): current {now:.1f} us,"
        f" base {base} {then:.1f} us: {now / then:.2f}x the base's"
    )


def wait_until_warm(url: str, limit: float = 300.0) -> None:
    """Wait until the server has loaded its kernels (it starts that 5 s after start-up):
    the one-time load (numba and the compiled kernels, about 70-90 MiB in the server's
    bot threads, and a second of their time) is not what a run should measure."""
    started = time.monotonic()
    while not server_timings(url).get("kernels_warm"):
        if time.monotonic() - started > limit:
            raise SystemExit(f"the server did not load its kernels within {limit:.0f} s")
        time.sleep(0.5)
    print(f"the server's kernels are loaded ({time.monotonic() - started:.1f} s)", file=sys.stderr)


def stop_server(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


def process_times(pid: int | None) -> tuple[float, float]:
    """CPU seconds in user space and in the kernel used so far by process ``pid``."""
    if pid is None:
        return float("nan"), float("nan")
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan"), float("nan")
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def answer(got: httpx2.Response, what: str) -> Any:
    """The JSON of a lobby answer; a refusal ends the run in one line (no traceback)."""
    if got.status_code >= 400:
        text = " ".join(got.text.split())[:200]
        raise SystemExit(f"bench_server_load: {what}: HTTP {got.status_code} {text}")
    return got.json()


async def make_tables(url: str, n: int, preset: str) -> list[str]:
    """Open ``n`` two-player tables through the REST lobby; the WebSocket URL per seat."""
    ws_base = "ws" + url[4:]
    urls: list[str] = []
    async with httpx2.AsyncClient(base_url=url, timeout=60) as http:
        for i in range(n):
            made = answer(
                await http.post(
                    "/api/tables",
                    json={
                        "preset": preset,
                        "next_hand_delay": 0,
                        "seats": [{"kind": "human", "name": "A"}, {"kind": "human"}],
                    },
                ),
                f"creating table {i + 1} of {n}",
            )
            tid = made["table"]["id"]
            joined = answer(
                await http.post(
                    f"/api/tables/{tid}/join", json={"code": made["join_code"], "name": "B"}
                ),
                f"joining table {i + 1} of {n}",
            )
            urls += [
                f"{ws_base}/ws/tables/{tid}?role=seat#{made['token']}",
                f"{ws_base}/ws/tables/{tid}?role=seat#{joined['token']}",
            ]
    return urls


async def play(
    urls: list[str],
    hands: int,
    think: float,
    seed: float,
    timeout: float,
    on_connected: Any,
    wait_go: Any,
    stagger: float = 0.0,
) -> dict[str, Any]:
    """Connect every seat of ``urls``, wait for the go, play; this client's figures."""
    stats = Stats()
    rng = random.Random(seed)
    t0 = time.perf_counter()
    seats: list[Seat] = []
    for i in range(0, len(urls), 50):  # connect in slices (bounded handshake bursts)
        seats += await asyncio.gather(
            *(
                open_seat(u, hands, think, stats, random.Random(rng.random()), stagger)
                for u in urls[i : i + 50]
            )
        )
    connect_s = time.perf_counter() - t0
    on_connected()
    await wait_go()
    cpu0 = os.times()
    lags: list[float] = []

    async def ticker() -> None:  # this client's own lag: how late its event loop runs
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + 0.01
            await asyncio.sleep(0.01)
            lags.append(max(0.0, loop.time() - due))

    ticking = asyncio.create_task(ticker())
    for s in seats:
        s.start()
    done, pending = await asyncio.wait([s.finished for s in seats], timeout=timeout)
    ticking.cancel()
    cpu1 = os.times()
    for s in seats:
        s.close()
    unfinished = len(pending) + sum(1 for f in done if not f.result())
    # Both seats of a table are neighbours in ``urls``: a table played the hands both
    # of its seats saw end.
    played = [min(a.done, b.done, hands) for a, b in zip(seats[::2], seats[1::2], strict=True)]
    return {
        "rtts": stats.rtts,
        "errors": stats.errors,
        "error_codes": stats.error_codes,
        "closes": stats.closes,
        "hands": stats.hands,
        "hands_played": sum(played),
        "tables_played": sum(1 for n in played if n >= hands),
        "actions": stats.actions,
        "sent": stats.sent,
        "unfinished": unfinished,
        "connect_s": connect_s,
        "lags": lags,
        "cpu": (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system),
    }


def _client_process(
    urls: list[str],
    hands: int,
    think: float,
    seed: float,
    timeout: float,
    ready_q: Any,
    go: Any,
    result_q: Any,
    stagger: float = 0.0,
) -> None:
    """A client process: its share of the seats, on its own event loop."""

    async def wait_go() -> None:
        await asyncio.get_running_loop().run_in_executor(None, go.wait)

    try:
        result = _run_loop(
            play(
                urls, hands, think, seed, timeout, lambda: ready_q.put(len(urls)), wait_go, stagger
            )
        )
    except BaseException as exc:  # report, so that the parent does not wait forever
        ready_q.put(-1)
        result = {
            "rtts": [],
            "errors": len(urls),
            "error_codes": {},
            "closes": {},
            "hands": 0,
            "hands_played": 0,
            "tables_played": 0,
            "actions": 0,
            "sent": 0,
            "unfinished": len(urls),
            "connect_s": 0.0,
            "cpu": 0.0,
            "failed": repr(exc),
        }
    result_q.put(result)


def run(
    args: argparse.Namespace,
    url: str | list[str],
    think: float,
    pid: int | list[int | None] | None = None,
) -> dict[str, Any]:
    """Open the tables, play them from ``args.clients`` client processes, measure.
    Several servers (``url`` and ``pid`` lists, processes of one site): the tables are
    opened on each in turn, every seat connects to its table's server, and the CPU
    and the servers' own timings are those of all of them."""
    urls_of = [url] if isinstance(url, str) else url
    pids = pid if isinstance(pid, list) else [pid] * len(urls_of)
    shares_of = [
        (args.tables // len(urls_of)) + (i < args.tables % len(urls_of))
        for i in range(len(urls_of))
    ]
    urls = [
        seat
        for server, n in zip(urls_of, shares_of, strict=True)
        if n
        for seat in _run_loop(make_tables(server, n, args.preset))
    ]
    ctx = mp.get_context("spawn")
    ready_q, result_q, go = ctx.Queue(), ctx.Queue(), ctx.Event()
    k = max(1, min(args.clients, len(urls)))
    # Both seats of a table in the same client process (they alternate turns).
    shares = [urls[2 * i : 2 * i + 2] for i in range(len(urls) // 2)]
    parts = [[u for share in shares[j::k] for u in share] for j in range(k)]
    procs = [
        ctx.Process(
            target=_client_process,
            args=(
                part,
                args.hands,
                think,
                args.seed * 1000 + j,
                args.timeout,
                ready_q,
                go,
                result_q,
                args.stagger,
            ),
            daemon=True,
        )
        for j, part in enumerate(parts)
    ]
    t0 = time.perf_counter()
    for p in procs:
        p.start()
    for _ in procs:
        if ready_q.get(timeout=args.timeout) < 0:
            go.set()
            raise SystemExit("a client process could not connect its seats")
    connect_s = time.perf_counter() - t0
    load0 = os.getloadavg()[0]
    for server in urls_of:
        server_timings(server, reset=True)
    server0 = [process_times(p) for p in pids]
    start = time.perf_counter()
    go.set()
    results = [result_q.get(timeout=args.timeout + 60) for _ in procs]
    elapsed = time.perf_counter() - start
    server1 = [process_times(p) for p in pids]
    server_cpu = sum(sum(b) - sum(a) for a, b in zip(server0, server1, strict=True))
    server_sys = sum(b[1] - a[1] for a, b in zip(server0, server1, strict=True))
    own = slowest([server_timings(server) for server in urls_of])
    load1 = os.getloadavg()[0]
    for p in procs:
        p.join(10)
    rtts = sorted(r for res in results for r in res["rtts"])
    actions = sum(res["actions"] for res in results)
    client_cpu = sum(res["cpu"] for res in results)
    lags = sorted(x for res in results for x in res.get("lags", []))
    client_lag_p99 = round(lags[int(0.99 * (len(lags) - 1))] * 1000, 2) if lags else None

    def pct(p: float) -> float:
        return rtts[min(len(rtts) - 1, int(p * len(rtts)))] * 1000 if rtts else float("nan")

    def per_action(cpu: float) -> float | None:
        return round(cpu / actions * 1e6, 1) if actions and cpu == cpu else None

    def merged(key: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for res in results:
            for why, n in res[key].items():
                out[why] = out.get(why, 0) + n
        return out

    return {
        "mode": "saturating" if think == 0 else "human-paced",
        "think_seconds": think,
        "stagger_seconds": args.stagger,
        "hands_per_table_requested": args.hands,
        "tables": args.tables,
        "connections": len(urls),
        "client_processes": k,
        "preset": args.preset,
        "hands_per_table": args.hands,
        "hands_completed": sum(res["hands"] for res in results) // 2,
        "tables_played": sum(res["tables_played"] for res in results),
        "hands_played": sum(res["hands_played"] for res in results),
        "actions": actions,
        "actions_sent": sum(res["sent"] for res in results),
        "errors": sum(res["errors"] for res in results),
        "error_codes": merged("error_codes"),
        "closed_by_server": merged("closes"),
        "unfinished_clients": sum(res["unfinished"] for res in results),
        "seconds": round(elapsed, 3),
        "connect_seconds": round(connect_s, 3),
        "actions_per_second": round(actions / elapsed, 1) if elapsed else 0.0,
        "_rtts": rtts,  # every round trip (s), pooled over runs; not printed
        "rtt_ms_p50": round(pct(0.50), 2),
        "rtt_ms_p99": round(pct(0.99), 2),
        "rtt_ms_max": round(rtts[-1] * 1000, 2) if rtts else None,
        "rtt_ms_mean": round(statistics.fmean(rtts) * 1000, 2) if rtts else None,
        "client_cpu_seconds": round(client_cpu, 2),
        "server_cpu_seconds": round(server_cpu, 2),
        "server_cpu_us_per_action": per_action(server_cpu),
        # The kernel's part (socket reads and writes, the database file's writes).
        "server_sys_us_per_action": per_action(server_sys),
        "client_cpu_us_per_action": per_action(client_cpu),
        "server_cpu_share_of_a_core": (
            round(server_cpu / elapsed, 2) if elapsed and server_cpu == server_cpu else None
        ),
        "load_average_before": round(load0, 2),
        "load_average_after": round(load1, 2),
        "cpus": os.cpu_count(),
        "client_json": CLIENT_JSON,
        "server_json": _server_json(),
        "ws": args.ws,
        "failures": [res["failed"] for res in results if "failed" in res],
        "servers": len(urls_of),
        "server_rss_mib": rounded(sum_or_none([server_rss_mib(p) for p in pids])),
        # Python's own count of live memory blocks and of objects the GC pacer froze:
        # flat blocks with a growing RSS is the allocator keeping a high-water mark.
        "server_allocated_blocks": own.get("allocated_blocks"),
        "server_gc_frozen": own.get("gc_frozen"),
        # The server's own timings (GET /api/metrics): read -> acknowledgement queued,
        # the event loop's lag and the GC's pauses, free of the clients' own delays.
        "server_action_ms_p50": own["actions"]["p50_ms"],
        "server_action_ms_p99": own["actions"]["p99_ms"],
        "server_action_ms_max": own["actions"]["max_ms"],
        "server_loop_lag_ms_p99": own["loop_lag"]["p99_ms"],
        "server_loop_lag_ms_max": own["loop_lag"]["max_ms"],
        "server_gc_pause_ms_max": own["gc_pauses"]["max_ms"],
        "server_gc_pause_ms_total": own["gc_pauses"]["total_ms"],
        # The clients' own event-loop lag: part of every round trip they measure.
        "client_loop_lag_ms_p99": client_lag_p99,
        "client_loop_lag_ms_max": round(lags[-1] * 1000, 2) if lags else None,
    }


def slowest(timings: list[dict[str, Any]]) -> dict[str, Any]:
    """Several servers' timings as one: the slowest server's figure for each (their
    live-block and frozen counts added up)."""
    if len(timings) == 1:
        return timings[0]
    out: dict[str, Any] = {}
    for key in ("actions", "loop_lag", "gc_pauses"):
        out[key] = {
            part: max((t[key][part] for t in timings if t[key][part] is not None), default=None)
            for part in timings[0][key]
        }
    for key in ("allocated_blocks", "gc_frozen"):
        out[key] = sum_or_none([t.get(key) for t in timings])
    return out


def sum_or_none(values: list[Any]) -> Any:
    """The sum, or None if any value is unknown."""
    return None if any(v is None for v in values) else sum(values)


def rounded(mib: float | None) -> float | None:
    return round(mib, 1) if mib is not None else None


def server_timings(url: str, reset: bool = False) -> dict[str, Any]:
    """The server's own timings (``GET /api/metrics``; ``reset``: start afresh)."""
    got = httpx2.get(f"{url}/api/metrics", params={"reset": reset}, timeout=30)
    got.raise_for_status()
    data: dict[str, Any] = got.json()
    return data


def server_rss_mib(pid: int | None) -> float | None:
    """The resident memory of process ``pid`` in MiB (Linux /proc)."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


async def hint_flood(url: str, seconds: float, hints: int = 200) -> dict[str, Any]:
    """A 4-bot table's move rate with and without one seat keeping ``hints`` hints
    outstanding, in alternating windows (so that the rest of the machine's load weighs
    on both alike), and table creation times during the flood."""
    from websockets.asyncio.client import connect

    ws_base = "ws" + url[4:]
    # Named seats: a tournament's stacks name its players.
    bots = [{"kind": "bot", "bot": "rules", "name": f"Bot {i}"} for i in range(4)]
    stamps: list[float] = []  # when each bot move was seen (read continuously)

    async def watch(ws: Any) -> None:
        async for raw in ws:
            m = _loads(raw)
            if m["type"] == "state" and m.get("last") and not m["last"].get("auto"):
                stamps.append(time.monotonic())

    async def moves_in(span: float) -> int:
        start = time.monotonic()
        await asyncio.sleep(span)
        return sum(1 for t in stamps if start <= t < start + span)

    sent = answered = busy = 0
    flooding = False
    creations: list[float] = []
    async with httpx2.AsyncClient(base_url=url, timeout=60) as http:
        created = await http.post(
            "/api/tables",
            json={  # a long tournament: never over
                "preset": "ofc",
                "seats": bots,
                "bot_delay": 0,
                "next_hand_delay": 0,
                "mode": "tournament",
                "tournament": {"stacks": {seat["name"]: 10**9 for seat in bots}},
            },
        )
        if created.status_code != 201:
            raise SystemExit(f"hint flood: the bot table was refused: {created.text[:300]}")
        table = created.json()
        spectator = await connect(f"{ws_base}/ws/tables/{table['table']['id']}")
        watcher = asyncio.create_task(watch(spectator))
        made = (
            await http.post(
                "/api/tables",
                json={
                    "preset": "pineapple",
                    "bot_delay": 10,
                    "button": 1,
                    "seats": [{"kind": "human"}, {"kind": "bot", "bot": "rules"}],
                },
            )
        ).json()
        async with connect(f"{ws_base}/ws/tables/{made['table']['id']}?role=seat") as ws:
            await ws.send(_dumps({"type": "auth", "token": made["token"]}))

            async def burst() -> None:
                nonlocal sent
                for _ in range(hints):
                    await ws.send(_dumps({"type": "hint", "id": sent}))
                    sent += 1

            async def answers() -> None:
                nonlocal sent, answered, busy
                async for raw in ws:
                    m = _loads(raw)
                    if m["type"] in ("hint", "error"):
                        answered += m["type"] == "hint"
                        busy += m["type"] == "error" and m.get("code") == "busy"
                        if flooding:  # keep the flood outstanding
                            await ws.send(_dumps({"type": "hint", "id": sent}))
                            sent += 1

            reader = asyncio.create_task(answers())
            flooding = True  # a first hint, to start the worker and its kernels
            await burst()
            warm = time.monotonic() + 60
            while answered == 0 and time.monotonic() < warm:
                await asyncio.sleep(0.1)
            flooding = False
            await asyncio.sleep(3.5)  # the last hint finishes
            window = seconds / 3
            alone = during = 0

            async def creating(span: float) -> None:
                t0 = time.perf_counter()
                await http.post(
                    "/api/tables",
                    json={
                        "preset": "pineapple",
                        "seats": [{"kind": "human"}, {"kind": "bot", "bot": "rules"}],
                    },
                )
                creations.append(time.perf_counter() - t0)
                await asyncio.sleep(max(0.0, span - (time.perf_counter() - t0)))

            for _ in range(3):
                alone += await moves_in(window)
                flooding = True
                await burst()
                got, _none = await asyncio.gather(moves_in(window), creating(window / 2))
                during += got
                flooding = False
            reader.cancel()
        watcher.cancel()
        await spectator.close()
    return {
        "flood_hints_outstanding": hints,
        "hint_requests_sent": sent,
        "hints_answered": answered,
        "busy_answers": busy,
        "bot_moves_alone": alone,
        "bot_moves_during_flood": during,
        "seconds_each": seconds,
        "move_rate_kept": round(during / alone, 3) if alone else None,
        "create_seconds_max": round(max(creations), 3),
        "create_seconds": [round(c, 3) for c in creations],
    }


def _server_json() -> str:
    """What the server will serialise with (it runs in this interpreter's environment)."""
    return CLIENT_JSON


def _run_loop(coro: Any) -> Any:
    """Run the client on uvloop when it is installed (as uvicorn[standard] does)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coro)
    return uvloop.run(coro)


def run_shortfall(r: dict[str, Any], label: str) -> str | None:
    """What run ``r`` measured less than it was asked, in one line (None: nothing)."""
    asked = r["hands_per_table"]
    parts = [
        short(f"tables that played their {asked} hand(s)", r["tables_played"], r["tables"]),
        short("hands", r["hands_played"], r["tables"] * asked),
        short("actions acknowledged (of those sent)", r["actions"], r["actions_sent"]),
    ]
    if r["unfinished_clients"]:
        parts.append(f"{r['unfinished_clients']} of {r['connections']} seats unfinished")
    if r["errors"]:
        codes = ", ".join(f"{n} {code}" for code, n in r["error_codes"].items())
        parts.append(f"{r['errors']} error(s) from the server ({codes or 'no code'})")
    parts += [f"a client process failed: {failed}" for failed in r["failures"]]
    if r["closed_by_server"]:
        closes = ", ".join(f"{n} x '{why}'" for why, n in r["closed_by_server"].items())
        parts.append(f"sockets closed early by the server: {closes}")
    found = [part for part in parts if part]
    return f"{label}: {'; '.join(found)}" if found else None


def flood_shortfall(flood: dict[str, Any]) -> str | None:
    """What the hint flood measured less than it says, in one line (None: nothing)."""
    parts = []
    if not flood["hints_answered"]:
        parts.append("no hint was answered (the flood measured nothing)")
    if not flood["bot_moves_alone"]:
        parts.append("the bot table made no move without the flood (no rate to compare)")
    return f"hint flood: {'; '.join(parts)}" if parts else None


def argument_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the arguments, in one line (None: nothing)."""
    if args.tables < 1:
        return f"--tables must be at least 1, not {args.tables}"
    if not 1 <= args.hands <= ORBIT_HANDS:
        return (
            f"--hands must be 1 to {ORBIT_HANDS}, not {args.hands}: a 2-player table's"
            f" session is one button orbit ({ORBIT_HANDS} hands)"
        )
    if args.clients < 1 or args.runs < 1:
        return "--clients and --runs must be at least 1"
    if args.timeout <= 0:
        return f"--timeout must be above 0, not {args.timeout:g}"
    if args.sockets_per_address is not None and args.sockets_per_address < 1:
        return f"--sockets-per-address must be at least 1, not {args.sockets_per_address}"
    if (args.base or args.tree) and (args.url or args.hint_flood):
        which = "--base" if args.base else "--tree"
        return f"{which} starts its own servers: not with --url or --hint-flood"
    return None


def print_table(results: list[dict[str, Any]]) -> None:
    print(
        "| run | tables | connections | actions | actions/s | p50 ms | p99 ms | max ms | errors"
        " | server CPU/action | client CPU/action | load avg | server RSS"
        " | server's own p50 / p99 ms | server loop lag p99 ms | longest GC ms"
        " | client loop lag p99 ms |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        label = (
            "saturating (think 0)"
            if r["think_seconds"] == 0
            else f"human-paced (think {r['think_seconds']:g} s)"
        )
        if r.get("stagger_seconds"):
            label += f", staggered start {r['stagger_seconds']:g} s"
        else:
            label += ", all tables start together"
        if r.get("server"):
            label += f" ({r['server']}, run {r['run']})"
        print(
            f"| {label} | {r['tables']} | {r['connections']} | {r['actions']} |"
            f" {r['actions_per_second']} | {r['rtt_ms_p50']} | {r['rtt_ms_p99']} |"
            f" {r['rtt_ms_max']} | {r['errors']} |"
            f" {r['server_cpu_us_per_action']} us | {r['client_cpu_us_per_action']} us |"
            f" {r['load_average_before']} | {r.get('server_rss_mib')} MiB |"
            f" {r['server_action_ms_p50']} / {r['server_action_ms_p99']} |"
            f" {r['server_loop_lag_ms_p99']} | {r['server_gc_pause_ms_max']} |"
            f" {r['client_loop_lag_ms_p99']} |"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=TARGET_TABLES)
    parser.add_argument("--hands", type=int, default=2, help="hands per table (default 2)")
    parser.add_argument("--preset", default="pineapple")
    parser.add_argument(
        "--think",
        type=float,
        nargs="+",
        default=[0.0],
        metavar="SECONDS",
        help="client think time: each action waits uniform 0..2*SECONDS"
        " (default 0: act at once, saturating); several values: one run each"
        " (a fresh server per run), e.g. --think 0 1",
    )
    parser.add_argument(
        "--stagger",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="start each table after a random 0..SECONDS wait, so hands do"
        " not all end at once (default 0: every table starts together)",
    )
    parser.add_argument(
        "--clients", type=int, default=1, help="client processes sharing the seats (default 1)"
    )
    parser.add_argument(
        "--ws",
        default="auto",
        choices=["auto", "websockets", "websockets-sansio", "wsproto"],
        help="the server's WebSocket implementation (serve --ws)",
    )
    parser.add_argument("--timeout", type=float, default=180.0, help="overall bound, seconds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="write bench/results/server_load.json")
    parser.add_argument("--url", help="use a server already running at this URL (loopback)")
    parser.add_argument(
        "--runs",
        type=int,
        default=1,
        help="consecutive runs against one server (memory stays flat?)",
    )
    parser.add_argument(
        "--hint-flood",
        action="store_true",
        help="the hint-flood run instead (see the module docstring)",
    )
    parser.add_argument("--flood-seconds", type=float, default=10.0)
    parser.add_argument("--db-dir", help="folder for the temporary SQLite file (default: tmp)")
    parser.add_argument(
        "--cold",
        action="store_true",
        help="measure at once, without waiting for the started server to load its"
        " kernels (a quick check: the figures then include that load)",
    )
    parser.add_argument(
        "--sockets-per-address",
        type=int,
        metavar="N",
        help="WebSockets the started server lets one address hold (default: four per"
        " table, every seat twice over, as a run's sockets may still be closing when the"
        " next run connects); a lower N makes the run fall short",
    )
    parser.add_argument(
        "--base",
        metavar="COMMIT",
        help="also serve COMMIT's code (a second server, started beside the first) and"
        " alternate the runs between the two, base first: each row names its server, and"
        " a last line compares their median server CPU per action (not with --url)",
    )
    parser.add_argument(
        "--tree",
        metavar="DIR",
        help="serve the package of the checkout DIR (DIR/src, e.g. a git worktree) as the"
        " current server instead of this one's: other work in progress in this tree is"
        " left out, and its kernels compile once for the runs that follow",
    )
    parser.add_argument(
        "--target",
        choices=sorted(TARGETS),
        help="one of issue 9's benchmarks with its own settings (overrides"
        " --tables, --hands, --think, --clients, --runs, --hint-flood)",
    )
    args = parser.parse_args(argv)
    if args.target:
        for key, value in TARGETS[args.target].items():
            setattr(args, key, value)
    problem = argument_problem(args)
    if problem is not None:
        print(f"bench_server_load: {problem}", file=sys.stderr)
        return 2
    if args.hint_flood:
        with tempfile.TemporaryDirectory(dir=args.db_dir) as tmp:
            proc, url = start_server(Path(tmp) / "bench.db", Path(tmp) / "server.log", args.ws)
            try:
                flood = _run_loop(hint_flood(url, args.flood_seconds))
            finally:
                stop_server(proc)
        flood["load_average"] = round(os.getloadavg()[0], 2)
        print(json.dumps(flood, indent=2))
        if args.json:
            RESULTS.mkdir(exist_ok=True)
            (RESULTS / "server_hint_flood.json").write_text(json.dumps(flood, indent=2) + "\n")
        return verdict("bench_server_load", [flood_shortfall(flood)])
    sockets = args.sockets_per_address or 4 * args.tables
    results = []
    for think in args.think:
        if args.url:
            print(
                f"the server at {args.url} must let one address hold {2 * args.tables}"
                f" WebSockets (serve --sockets-per-address {sockets})",
                file=sys.stderr,
            )
            results.append(run(args, args.url.rstrip("/"), think))
            continue
        with tempfile.TemporaryDirectory(dir=args.db_dir) as tmp:
            servers: list[tuple[str, subprocess.Popen[str], str]] = []
            try:
                sources: list[tuple[str, Path | None]] = [
                    ("current", Path(args.tree) / "src" if args.tree else None)
                ]
                if args.base:
                    src, base_sha = commit_source(args.base)
                    sources.insert(0, (f"base {base_sha}", src))
                for name, source in sources:
                    db = Path(tmp) / f"bench-{len(servers)}.db"
                    log = Path(tmp) / f"server-{len(servers)}.log"
                    print(f"starting the server ({name}, database {db})", file=sys.stderr)
                    proc, url = start_server(db, log, args.ws, sockets, source)
                    servers.append((name, proc, url))
                if not args.cold:
                    for _name, _proc, url in servers:
                        wait_until_warm(url)
                print(
                    f"{args.tables} tables, {2 * args.tables} connections, {args.hands}"
                    f" hand(s) each, think {think:g} s, {args.clients} client process(es)"
                    " ...",
                    file=sys.stderr,
                )
                for i in range(args.runs):
                    for name, proc, url in servers:
                        result = run(args, url, think, proc.pid) | {"run": i + 1}
                        if args.base:
                            result["server"] = name
                        results.append(result)
                        print(
                            f"run {i + 1}{f' ({name})' if args.base else ''}:"
                            f" p99 {result['rtt_ms_p99']} ms,"
                            f" RSS {result['server_rss_mib']} MiB, Python blocks"
                            f" {result['server_allocated_blocks']}, frozen"
                            f" {result['server_gc_frozen']}",
                            file=sys.stderr,
                        )
            finally:
                for _name, proc, _url in servers:
                    stop_server(proc)
    # Each server's round trips apart: a base commit's runs are no part of the current
    # tree's p99, nor of its targets.
    rtts = {id(r): r.pop("_rtts", []) for r in results}
    print_table(results)
    for name, runs in by_server(results).items():
        pooled = sorted(x for r in runs for x in rtts[id(r)])
        if len(runs) > 1 and pooled:
            p99 = pooled[min(len(pooled) - 1, int(0.99 * len(pooled)))] * 1000
            met = "met" if p99 < TARGET_P99_MS else "NOT met"
            print(
                f"\n{name or 'all'} {len(runs)} runs: p99 {p99:.2f} ms over {len(pooled)} round"
                f" trips{f' (target < {TARGET_P99_MS:.0f} ms: {met})' if name != 'base' else ''};"
                f" each run's p99: {', '.join(str(r['rtt_ms_p99']) for r in runs)}",
                file=sys.stderr,
            )
    if args.base and results:
        print(compare_cpu(results, results[0]["server"].removeprefix("base ")))
    for r in results:
        if r.get("server", "current") != "current":
            continue  # the base's runs are measured for the comparison, not the targets
        # The target's own table count: 200 in lock step, 3,000 human-paced.
        want = max(TARGET_TABLES, r["tables"]) if r["think_seconds"] else TARGET_TABLES
        ok = (
            r["rtt_ms_p99"] < TARGET_P99_MS
            and r["tables"] >= want
            and r["errors"] == 0
            and r["unfinished_clients"] == 0
        )
        print(
            f"\n{r['mode']} (think {r['think_seconds']:g} s): target {want} tables"
            f" with p99 < {TARGET_P99_MS:.0f} ms: {'met' if ok else 'NOT met'}",
            file=sys.stderr,
        )
    for r in results:
        print(json.dumps(r), file=sys.stderr)
    if args.json:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "server_load.json").write_text(json.dumps(results, indent=2) + "\n")
    return verdict(
        "bench_server_load",
        [
            run_shortfall(r, f"run {i + 1} ({r['mode']}, think {r['think_seconds']:g} s)")
            for i, r in enumerate(results)
        ],
    )


if __name__ == "__main__":
    sys.exit(main())
