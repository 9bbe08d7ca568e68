"""The bot protocol: views over the wire, ExternalBot with good and bad bots, ``bot``."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from _helpers import wait_until
from chinese_poker.ai.protocol import (
    LEGAL_LIST_LIMIT,
    PROTOCOL_VERSION,
    ExternalBot,
    act_message,
    check_against_view,
    legal_for_view,
    view_from_dict,
)
from chinese_poker.ai.simulate import make_job, simulate
from chinese_poker.cli import main
from chinese_poker.engine import Place, Session, Surrender, Table, Timeout, action_from_dict
from chinese_poker.rules import rules_for

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "bots" / "random_bot.py"
PY = sys.executable
BOT_CMD = [PY, "-m", "chinese_poker.cli", "bot"]


def _cmd(*parts: str | Path) -> str:
    return " ".join(f'"{p}"' if " " in str(p) else str(p) for p in parts)


def _script(tmp_path: Path, name: str, body: str) -> str:
    """Write a bot script; return the command that runs it."""
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return _cmd(PY, path)


HANDSHAKE = """\
    import json, sys, time
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            print(json.dumps({"type": "ready", "protocol": 1}), flush=True)
        elif msg["type"] == "act":
            %s
"""


# --------------------------------------------------------------------------- views


def _tables() -> Iterator[Table]:
    rng = random.Random(1)
    yield Table(rules_for("ofc"), ["Ann", "Bob"], seed=1)
    yield Table(rules_for("pineapple"), 3, seed=2, fantasyland={0: 14})
    yield Table(rules_for("classic"), 4, seed=3)
    yield Table(rules_for("criss-cross"), 2, seed=4)
    done = Table(rules_for("turbo"), 2, seed=5)
    while not done.over:
        done.apply(done.random_action(done.to_act[0], rng))
    yield done


def test_views_survive_the_wire() -> None:
    for table in _tables():
        for seat in [*range(table.n_seats), None]:
            view = table.view(seat)
            wire = json.loads(json.dumps(view.to_dict()))
            assert view_from_dict(wire) == view


def test_legal_lists_and_huge_sets() -> None:
    table = Table(rules_for("ofc"), 2, seed=1)
    view = table.view(table.to_act[0])
    legal, count = legal_for_view(view)
    assert legal is not None and count == len(legal) == 232
    assert all(table.can(action_from_dict(a)) for a in legal)
    fl = Table(rules_for("pineapple"), 2, seed=2, fantasyland={0: 14})
    fl_view = fl.view(0)
    legal, count = legal_for_view(fl_view)
    assert legal is None and count > LEGAL_LIST_LIMIT
    message = act_message(fl_view, 3, 1.5)
    assert (message["type"], message["id"], message["deadline_ms"]) == ("act", 3, 1500)
    assert message["legal"] is None and message["view"]["decisions"][0]["kind"] == "set"


def test_check_against_view() -> None:
    table = Table(rules_for("classic"), 2, seed=3)
    view = table.view(0)
    cards = view.hand
    good = Place(0, cards[:3], cards[3:8], cards[8:], version=view.version)
    assert check_against_view(view, good) is None
    assert "seat 1" in str(check_against_view(view, Place(1, cards[:3], cards[3:8], cards[8:])))
    assert "timeout" in str(check_against_view(view, Timeout(0)))
    assert "surrender" in str(check_against_view(view, Surrender(0)))
    assert "version" in str(check_against_view(view, Place(0, version=99)))


# --------------------------------------------------------------------------- simulations


# Where a test compares how a program played (no errors, the same points), it gives the
# program far more time than it needs per decision: a decision late on a loaded machine
# would be a timeout (the engine's fallback move) and change the play.
ROOMY = 120.0


def test_example_bot_plays_a_simulation(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "simulate",
        "--bots",
        f"cmd:{_cmd(PY, EXAMPLE)},rules",
        "--hands",
        "8",
        "--seed",
        "2",
        "--json",
        "--quiet",
        "--deadline",
        str(ROOMY),
    ]
    assert main(argv) == 0
    out = capsys.readouterr()
    data = json.loads(out.out)
    assert data["hands"] == 8
    assert [b["errors"] for b in data["bot_results"]] == [0, 0]
    assert "warning" not in out.err


def test_example_bot_sets_classic_hands() -> None:
    job = make_job(
        "classic", f"cmd:{_cmd(PY, EXAMPLE)},random", players=2, hands=4, seed=1, deadline=ROOMY
    )
    result = simulate(job)
    assert result.hands == 4 and result.bots[0].errors == 0


def test_external_bots_with_workers_match_one_process() -> None:
    job = make_job("pineapple", f"cmd:{_cmd(PY, EXAMPLE)},random", hands=10, seed=4, deadline=ROOMY)
    one = simulate(job).to_dict(performance=False)
    two = simulate(job, workers=2).to_dict(performance=False)
    assert one == two and one["bot_results"][0]["errors"] == 0


def test_served_bot_plays_exactly_like_the_builtin() -> None:
    served = make_job(
        "pineapple",
        f"cmd:{_cmd(*BOT_CMD, '--bot', 'rules')},random",
        hands=6,
        seed=5,
        deadline=ROOMY,
    )
    builtin = make_job("pineapple", "rules,random", hands=6, seed=5)
    a = simulate(served).to_dict(performance=False)
    b = simulate(builtin).to_dict(performance=False)
    assert [s["points_per_hand"] for s in a["seat_results"]] == [
        s["points_per_hand"] for s in b["seat_results"]
    ]
    assert a["bot_results"][0]["errors"] == 0


@pytest.mark.parametrize(
    ("name", "body", "problem"),
    [
        ("garbage", HANDSHAKE % 'print("this is not JSON", flush=True)', "invalid JSON"),
        ("sleepy", HANDSHAKE % "time.sleep(3)", "no answer within 0.5 s"),
        (
            "illegal",
            HANDSHAKE % 'print(json.dumps({"id": msg["id"], "action": {"type": "place", "seat": '
            'msg["view"]["seat"], "top": ["As"]}}), flush=True)',
            "illegal action",
        ),
        ("quitter", "import sys\nsys.exit(3)\n", "exited (status 3)"),
        ("crasher", HANDSHAKE % "raise SystemExit(4)", "exited (status 4)"),
    ],
)
def test_misbehaving_bots_time_out_without_crashing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, body: str, problem: str
) -> None:
    command = _script(tmp_path, name, body)
    # Only the sleeper needs a short deadline; the others answer at once (or die), and a
    # slow start on a loaded machine must not turn their problem into a timeout.
    deadline = 0.5 if name == "sleepy" else ROOMY
    job = make_job("pineapple", f"cmd:{command},rules", hands=3, seed=1, deadline=deadline)
    result = simulate(job)
    bad, good = result.bots
    assert result.hands == 3
    assert bad.errors == 3 and bad.timeouts == 3
    assert good.errors == 0
    err = capsys.readouterr().err
    assert f"{name}.py" in err and problem in err


def test_external_bot_cleans_up(tmp_path: Path) -> None:
    stubborn = _script(
        tmp_path,
        "stubborn",
        """\
        import json, signal, sys, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for line in sys.stdin:
            msg = json.loads(line)
            if msg["type"] == "hello":
                print(json.dumps({"type": "ready", "protocol": 1}), flush=True)
            elif msg["type"] == "quit":
                time.sleep(60)
    """,
    )
    table = Table(rules_for("ofc"), 2, seed=1)
    bot = ExternalBot(stubborn, deadline=0.2)
    bot.new_session(table.rules, table.players, 0, seed=1)
    assert bot.running
    proc = bot._proc
    assert proc is not None
    bot.close()
    # Killed (it ignores SIGTERM and would sleep a minute after quit), not waited for.
    assert proc.poll() == -signal.SIGKILL
    assert not bot.running


def _ctrl_c_on() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_the_bots(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    acting = tmp_path / "acting"
    pids.mkdir()
    acting.mkdir()
    sleeper = _script(
        tmp_path,
        "sleeper",
        f"""\
        import json, os, sys, time
        open(os.path.join({str(pids)!r}, str(os.getpid())), "w").close()
        for line in sys.stdin:
            msg = json.loads(line)
            if msg["type"] == "hello":
                print(json.dumps({{"type": "ready", "protocol": 1}}), flush=True)
            elif msg["type"] == "act":
                open(os.path.join({str(acting)!r}, str(os.getpid())), "w").close()
                time.sleep(60)
    """,
    )
    proc = subprocess.Popen(
        [
            PY,
            "-m",
            "chinese_poker.cli",
            "simulate",
            "--quiet",
            "--workers",
            "2",
            "--bots",
            f"cmd:{sleeper}",
            "--hands",
            "20",
            "--deadline",
            "30",
        ],
        start_new_session=True,
        # A shell starts a background job with Ctrl-C ignored, and a child keeps that
        # (so does a test run started with `&`): start as a terminal's program would.
        preexec_fn=_ctrl_c_on,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    # Ctrl-C comes while both workers' bots are thinking about a move.
    wait_until(lambda: len(list(acting.iterdir())) >= 2, "two bots thinking", 120)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    started = [int(p.name) for p in pids.iterdir()]
    assert started

    def alive() -> list[int]:
        out = []
        for pid in started:
            try:
                os.kill(pid, 0)
                out.append(pid)
            except ProcessLookupError:
                pass
        return out

    wait_until(lambda: alive() == [], f"the end of the bots {alive()}", 30)


# --------------------------------------------------------------------------- chinese-poker bot


class _Served:
    """``chinese-poker bot`` as a subprocess, driven line by line."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [*BOT_CMD, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def send(self, message: dict[str, Any] | str) -> None:
        assert self.proc.stdin is not None
        line = message if isinstance(message, str) else json.dumps(message)
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def answer(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        data: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return data


def test_bot_command_answers_a_scripted_session() -> None:
    rules = rules_for("pineapple")
    served = _Served("--rules", "pineapple", "--bot", "random")
    try:
        served.send(
            {
                "type": "hello",
                "protocol": PROTOCOL_VERSION,
                "rules": rules.to_dict(),
                "players": ["A", "B"],
                "seat": 0,
                "player": "A",
                "deadline_ms": 5000,
            }
        )
        ready = served.answer()
        assert ready["type"] == "ready" and ready["protocol"] == PROTOCOL_VERSION
        session = Session(rules, ["A", "B"], seed=3)
        served.send(
            {
                "type": "new_session",
                "rules": rules.to_dict(),
                "players": ["A", "B"],
                "seat": 0,
                "player": "A",
                "seed": 11,
                "session": 0,
            }
        )
        served.send("this is not JSON")
        assert served.answer()["type"] == "error"
        served.send({"type": "something_newer"})  # ignored
        msg_id = 0
        while not session.over:
            table = session.start_hand()
            while not table.over:
                seat = table.to_act[0]
                msg_id += 1
                served.send(act_message(table.view(seat), msg_id, 5.0))
                answer = served.answer()
                assert answer["type"] == "action" and answer["id"] == msg_id
                action = action_from_dict(answer["action"])
                assert table.check(action) is None
                table.apply(action)
            session.finish_hand()
            served.send({"type": "result", "hand": 1, "view": table.view(0).to_dict()})
        assert msg_id >= 2 * 5 * len(session.results)
        served.send({"type": "quit"})
        assert served.proc.wait(timeout=10) == 0
    finally:
        if served.proc.poll() is None:
            served.proc.kill()
        served.proc.wait()


def test_bot_command_refuses_another_protocol_and_bad_bots() -> None:
    served = _Served("--bot", "rules")
    try:
        served.send({"type": "hello", "protocol": 99})
        assert served.answer()["type"] == "error"
    finally:
        served.proc.kill()
        served.proc.wait()
    done = subprocess.run(
        [*BOT_CMD, "--bot", "nobody"],
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "unknown bot 'nobody'" in lines[0]
