"""The study desk's HTTP API (server/desk.py): every endpoint with good and bad input.

Good answers are checked against the command line on the same input (``score --json``,
``solve ... --json``, ``hint --json``), bad ones against the command line's own one-line
error text: the API must say exactly what the terminal says.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient

from _helpers import fake_search_clock
from chinese_poker.cli import main
from chinese_poker.engine.position import PositionError, parse_position
from chinese_poker.server import desk
from chinese_poker.server.app import create_app
from chinese_poker.server.desk import StudyPool
from chinese_poker.server.guard import RateSpec

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
POSITION = (EXAMPLES / "positions" / "pineapple-street3.txt").read_text()
FL16 = "As Ah Ad Kc Kd Qh Qs Js Ts 9s 8s 7s 2d 3c 4h 5h"
HAND = "Ah Kd Qs Jc Ts 8h 8d 7s 7h 7c 5s 5c 2d"


@pytest.fixture(scope="module", autouse=True)
def compiled() -> None:
    """Compile the solvers' and playouts' kernels once (numba, cached on disk) before the
    requests run: a cold compile takes longer than a request's time budget. Warmed in
    this process (``warm_kernels``), where the desk's threads answer: a hint then never
    falls back to the quick answer given while kernels compile."""
    from chinese_poker.ai.hints import hint
    from chinese_poker.ai.warm import warm_kernels

    warm_kernels()
    from chinese_poker.server.desk import FantasylandRequest, solve_fantasyland_deal

    hint(parse_position(POSITION).view(), level=1)
    solve_fantasyland_deal(
        FantasylandRequest.model_validate({"cards": FL16, "rules": "pineapple-progressive"})
    )


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """The desk with its work in threads of this process, on a clock only the test moves:
    a hint's or a trainer's time budget never runs out, so what they answer is what their
    seeds give (as the CLI's hint without a budget), however busy the machine; and a
    request waits for its answer as long as it takes (a 503 for a request over its 5 s
    on a loaded machine was not what these tests check: test_study_pool_queue_limit_and_
    budget is). The worker process: test_the_worker_loads_every_kernel_before_its_first_
    request."""
    clock = fake_search_clock(monkeypatch)
    monkeypatch.setattr(desk, "time", SimpleNamespace(monotonic=clock))
    monkeypatch.setattr(desk, "STUDY_SECONDS", 600.0)  # read when the app's routes are made
    app = create_app(f"sqlite:///{tmp_path / 'desk.db'}", hint_processes=False)
    with TestClient(app) as c:
        yield c


def cli_json(capsys: pytest.CaptureFixture[str], *args: str, stdin: str | None = None) -> Any:
    if stdin is not None:
        import io
        import sys

        old = sys.stdin
        sys.stdin = io.StringIO(stdin)
    try:
        assert main(list(args)) == 0
    finally:
        if stdin is not None:
            sys.stdin = old
    return json.loads(capsys.readouterr().out)


def cli_error(capsys: pytest.CaptureFixture[str], *args: str, stdin: str | None = None) -> str:
    """The one line the command prints on standard error, without its prefix."""
    import io
    import sys

    old = sys.stdin
    sys.stdin = io.StringIO(stdin or "")
    try:
        assert main(list(args)) == 2
    finally:
        sys.stdin = old
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    return err.split(": error: ", 1)[1]


# --------------------------------------------------------------------------- /api/score


@pytest.mark.parametrize("name", ["ofc-finnish", "ofc-three-players", "criss-cross",
                                  "classic-surrender", "classic-naturals"])  # fmt: skip
def test_score_is_score_json(
    client: TestClient, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    text = (EXAMPLES / f"{name}.json").read_text()
    res = client.post("/api/score", content=text)
    assert res.status_code == 200
    assert res.json() == cli_json(capsys, "score", "--json", str(EXAMPLES / f"{name}.json"))


@pytest.mark.parametrize(
    "table",
    [
        "{not json",
        "",
        json.dumps({"rules": "ofc", "players": [{"name": "A", "board": "Ah Ah 2c | x"}]}),
        json.dumps(
            {
                "rules": "ofc",
                "players": [
                    {"name": "A", "board": "Kc 8d 3h | Qh Qd 7c 7d 4c | As Js 9s 5s 2s"},
                    {"name": "B", "board": "Kc Td 2h | 9h 9d 6c 5h 3c | Ks Kh Kd 8c 6h"},
                ],
            }
        ),
        json.dumps(
            {
                "rules": "ofc",
                "players": [
                    {"name": "A", "board": "Kc 8d 3h 4h | Qh Qd 7c 7d | As Js 9s 5s 2s"},
                    {"name": "B", "board": "Jc Td 2h | 9h 9d 6c 5h 3c | Ks Kh Kd 8c 6h"},
                ],
            }
        ),
        json.dumps({"rules": "ofc", "options": {"no_such_rule": 1}, "players": []}),
        json.dumps({"rules": "no-such-preset", "players": []}),
        json.dumps(
            {
                "rules": "pineapple",
                "players": [
                    {"name": n, "board": "Kc 8d 3h | Qh Qd 7c 7d 4c | As Js 9s 5s 2s"}
                    for n in "ABCD"
                ],
            }
        ),
    ],
    ids=[
        "bad-json",
        "empty",
        "bad-card",
        "duplicate",
        "wrong-size",
        "unknown-option",
        "unknown-preset",
        "too-many-players",
    ],
)
def test_score_errors_are_the_cli_lines(
    client: TestClient, capsys: pytest.CaptureFixture[str], table: str
) -> None:
    res = client.post("/api/score", content=table)
    assert res.status_code == 400
    want = cli_error(capsys, "score", "-", stdin=table).replace("standard input", "the table")
    assert res.json()["detail"] == want  # and its code: tests/test_desk_refusals.py


# --------------------------------------------------------------------------- /api/board


def test_board_flags_a_foul_and_royalties_and_refuses_a_fourth_top_card(
    client: TestClient,
) -> None:
    res = client.post(
        "/api/board", json={"rules": "ofc", "board": "Ah Ad 3s | Qs Jh 8s 6s 4h | Ts Th Tc 7s 7h"}
    )
    body = res.json()
    assert res.status_code == 200
    assert body["foul"] and "top" in body["foul"] and body["royalties"]["total"] == 0
    assert body["rules"]["players"] == [2, 3, 4]
    ok = client.post(
        "/api/board",
        json={
            "rules": "pineapple-progressive",
            "board": "Qh Qd 2c | 9h 9d 9s 4s 5d | 6c 7c 8c Tc Jc",
        },
    )
    assert ok.json()["foul"] is None and ok.json()["fantasyland_next"] == 14
    assert ok.json()["rules"]["fantasyland_sizes"] == [14, 15, 16, 17]
    four = client.post("/api/board", json={"rules": "ofc", "board": "Ah Ad 2c 3c | | "})
    assert four.status_code == 400
    assert "the top line has 4 cards" in four.json()["detail"]
    nat = client.post(
        "/api/board",
        json={"rules": "classic", "board": "2c 3d 4h | 5s 6c 7d 8h 9s | Tc Jd Qh Ks Ac"},
    )
    assert nat.json()["natural"] == "dragon"
    # A low middle is named as its low, as `score` names it.
    low_board = "Ah Ad 3s | 7c 5d 4h 3c 2c | Ts Th Tc 9s 9h"
    low = client.post("/api/board", json={"rules": "classic-low-middle", "board": low_board})
    other = "Kh Kd 4s | 8c 6d 5h 4c 2d | Js Jh Jc 8s 8h"
    players = [{"name": "A", "board": low_board}, {"name": "B", "board": other}]
    table = {"rules": "classic-low-middle", "players": players}
    scored = client.post("/api/score", json=table).json()
    middle = next(i["a_hand"] for i in scored["pairs"][0]["items"] if i["line"] == "middle")
    assert low.json()["lines"]["middle"] == middle == "7-low: 7 5 4 3 2"
    bad = client.post("/api/board", json={"rules": "ofc", "board": "| |", "colour": "red"})
    assert bad.status_code == 400 and bad.json()["detail"] == "unknown key 'colour' in the request"


# --------------------------------------------------------------------------- solvers


def test_fantasyland_is_solve_json_plus_runner_ups(
    client: TestClient, capsys: pytest.CaptureFixture[str]
) -> None:
    res = client.post("/api/solve/fantasyland",
                      json={"rules": "pineapple-progressive", "cards": FL16})  # fmt: skip
    assert res.status_code == 200
    body = res.json()
    want = cli_json(capsys, "solve", "fantasyland", *FL16.split(), "--rules",
                    "pineapple-progressive", "--json")  # fmt: skip
    assert {k: body[k] for k in want} == want
    assert body["runner_up"] and all(r["value"] <= body["value"] for r in body["runner_up"])
    assert len({r["board"] for r in body["runner_up"]} | {body["board"]}) == 1 + len(
        body["runner_up"]
    )


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({"rules": "pineapple", "cards": FL16}, "pineapple deals 14 Fantasyland cards, not 16"),
        ({"rules": "ofc", "cards": FL16[:-3]}, "ofc deals 13 Fantasyland cards, not 15"),
        (
            {"rules": "ofc", "options": {"fantasyland_enabled": False}, "cards": FL16[:-3]},
            "ofc with these options has no Fantasyland",
        ),
        (
            {"rules": "classic", "cards": FL16[:-9]},
            "Fantasyland needs open-face rules, not 'classic'",
        ),
        ({"cards": "As As Ad Kc Kd Qh Qs Js Ts 9s 8s 7s 2d 3c"}, "duplicate card As ('As')"),
        ({"cards": "As Zz"}, None),
        ({"cards": "As Ah", "stay": 3}, "unknown key 'stay' in the request"),
    ],
)
def test_fantasyland_refusals(client: TestClient, body: dict[str, Any], detail: str | None) -> None:
    res = client.post("/api/solve/fantasyland", json=body)
    assert res.status_code == 400
    if detail is not None:
        assert res.json()["detail"] == detail
    else:
        assert "Zz" in res.json()["detail"]


def test_setting_is_solve_json(client: TestClient, capsys: pytest.CaptureFixture[str]) -> None:
    res = client.post("/api/solve/setting", json={"cards": HAND, "opponents": 2})
    assert res.status_code == 200
    want = cli_json(capsys, "solve", "setting", *HAND.split(), "--opponents", "2", "--json")
    body = res.json()
    assert {k: body[k] for k in want} == want
    assert body["advice"].startswith("play the best setting")


def test_setting_errors_are_the_cli_lines(
    client: TestClient, capsys: pytest.CaptureFixture[str]
) -> None:
    for cards, extra in [(HAND[:-3], []), (HAND.replace("2d", "Ah"), []),
                         (HAND, ["--rules", "ofc"]), (HAND, ["--set", "bogus=1"])]:  # fmt: skip
        body: dict[str, Any] = {"cards": cards}
        if extra[:1] == ["--rules"]:
            body["rules"] = extra[1]
        if extra[:1] == ["--set"]:
            body["options"] = {"bogus": 1}
        res = client.post("/api/solve/setting", json=body)
        assert res.status_code == 400
        assert res.json()["detail"] == cli_error(capsys, "solve", "setting", *cards.split(), *extra)


# --------------------------------------------------------------------------- /api/hint


def test_hint_lists_every_action_like_the_cli(
    client: TestClient, capsys: pytest.CaptureFixture[str]
) -> None:
    res = client.post("/api/hint", json={"position": POSITION, "level": 1, "time_budget": 3})
    assert res.status_code == 200
    body = res.json()
    want = cli_json(
        capsys,
        "hint",
        "--json",
        "--level",
        "1",
        str(EXAMPLES / "positions" / "pineapple-street3.txt"),
    )
    assert body["options"] == want["options"] == len(body["hints"]) == 24
    assert [h["action"] for h in body["hints"]] == [h["action"] for h in want["hints"]]
    for h in body["hints"]:
        lo, hi = h["interval"]
        assert lo <= h["value"] <= hi and 0 <= h["foul_probability"] <= 1
    # The same position as a JSON object.
    obj = parse_position(POSITION).to_dict()
    again = client.post("/api/hint", json={"position": obj, "level": 1})
    assert again.json()["hints"][0]["action"] == body["hints"][0]["action"]


@pytest.mark.slow
def test_the_worker_loads_every_kernel_before_its_first_request() -> None:
    """The desk's worker process is fresh after every start (and every runaway): it
    loads every kernel family in its start (the pool's grace for a new worker), as the
    hint worker does, so that no request's budget goes on numba. (Loaded within the
    budget, a busy machine spent a first hint's 2 s on the load, and its 24 options came
    back ranked without a rollout.)"""
    from chinese_poker.ai.warm import PARTS

    pool = StudyPool()  # the desk's own: one worker process
    try:
        # What the worker had warmed when its first request ran (eval: a picklable
        # function, run in the worker, that reads the worker's own state).
        asked = "sorted(__import__('chinese_poker.ai.warm').ai.warm._done)"
        warmed = asyncio.run(pool.run(eval, asked))
    finally:
        pool.close()
    assert warmed == sorted(PARTS)


@pytest.mark.parametrize(
    ("position", "detail"),
    [
        (
            POSITION.replace("me: Kh Kd", "me: Kh Kd Ks"),
            "my board has 8 cards; before street 3 of pineapple it has 7",
        ),
        (
            POSITION.replace("cards: Qc 8c 2s", "cards: Qc 8c"),
            "street 3 of pineapple deals 3 cards, 'cards' has 2",
        ),
        (
            POSITION.replace("dead: 4c", "dead: Qs"),
            "card Qs appears in both the dead cards and opponent 1's board",
        ),
        (
            POSITION.replace("street: 3", "street: 9"),
            "street 9 does not exist: this variant has streets 1 to 5",
        ),
        (
            POSITION + "\nopponent: 2c | 3c | 4d\nopponent: 5c | 6c | 7c",
            "pineapple is played by 2 to 3 players; this position has 4 (me and 3 opponent(s))",
        ),
        (POSITION.replace("rules: pineapple", "rules: classic"), None),
        (POSITION + "\ncolour: red", None),
        (POSITION.replace("Ac 7d", "Ac 7d 6d 5d"), None),
    ],
    ids=[
        "board-size",
        "street-cards",
        "duplicate",
        "no-street",
        "players",
        "classic",
        "unknown-key",
        "fourth-top-card",
    ],
)
def test_hint_refusals_match_the_cli(
    client: TestClient, capsys: pytest.CaptureFixture[str], position: str, detail: str | None
) -> None:
    res = client.post("/api/hint", json={"position": position, "level": 1})
    assert res.status_code == 400
    line = res.json()["detail"]
    if detail is not None:
        assert line == detail
    assert line == cli_error(capsys, "hint", "-", stdin=position)


def test_position_parser_refuses_what_cannot_be() -> None:
    with pytest.raises(PositionError, match="line 1: expected 'key: value'"):
        parse_position("pineapple street 3")
    with pytest.raises(PositionError, match="'street' is given twice"):
        parse_position("rules: ofc\nstreet: 1\nstreet: 2")
    view = parse_position(POSITION.replace("opponent: Ac 7d | Qs Qd | Ks Kc 3d",
                                           "opponent: fantasyland")).view()  # fmt: skip
    assert view.fantasyland == (1,) and view.board_of(1).hidden
    assert view.board_of(1).fantasyland_stays_left == 1  # the default limit: one stay
    no_fantasyland = POSITION.replace(
        "opponent: Ac 7d | Qs Qd | Ks Kc 3d", "opponent: fantasyland"
    ).replace("rules: pineapple", "rules: pineapple\noptions: fantasyland_enabled=no")
    with pytest.raises(PositionError, match="these rules have no Fantasyland"):
        parse_position(no_fantasyland)


# --------------------------------------------------------------------------- trainer


@pytest.mark.parametrize("kind", ["setting", "fantasyland", "street"])
def test_trainer_positions_are_where_the_choice_matters(client: TestClient, kind: str) -> None:
    res = client.get("/api/trainer/next", params={"kind": kind, "seed": 11})
    assert res.status_code == 200
    body = res.json()
    assert body["kind"] == kind and body["gap"] >= body["threshold"] > 0
    again = client.get("/api/trainer/next", params={"kind": kind, "seed": 11}).json()
    if kind != "street":  # the exact solvers: the same seed gives the same position
        assert again["cards"] == body["cards"]
    else:
        assert again["position"] == body["position"]
        values = [h["value"] for h in body["hints"]]
        assert values == sorted(values, reverse=True) and values[0] - values[1] >= 0.5


def test_trainer_grades_an_answer(client: TestClient, capsys: pytest.CaptureFixture[str]) -> None:
    want = cli_json(capsys, "solve", "setting", *HAND.split(), "--json")
    worse = want["alternatives"][2]
    res = client.post(
        "/api/trainer/grade",
        json={"kind": "setting", "rules": "classic", "cards": HAND, "answer": worse["board"]},
    )
    body = res.json()
    assert body["exact"] and body["best"] == want["board"]
    assert body["lost"] == pytest.approx(want["expected"] - worse["expected"], abs=1e-3)
    best = client.post(
        "/api/trainer/grade",
        json={"kind": "setting", "rules": "classic", "cards": HAND, "answer": want["board"]},
    )
    assert best.json()["lost"] == 0
    fl = client.post("/api/trainer/grade", json={
        "kind": "fantasyland", "rules": "pineapple-progressive", "cards": FL16,
        "answer": "As Ah Ad | Kc Kd Qh Qs Js | Ts 9s 8s 7s 2d"})  # fmt: skip
    assert fl.status_code == 200 and fl.json()["answer"]["foul"] and fl.json()["lost"] > 50
    wrong = client.post(
        "/api/trainer/grade",
        json={
            "kind": "setting",
            "rules": "classic",
            "cards": HAND,
            "answer": "2c 3c 4c | " + HAND[9:],
        },
    )
    assert wrong.status_code == 400


def test_trainer_refuses_an_unknown_kind_and_preset(client: TestClient) -> None:
    assert client.get("/api/trainer/next", params={"kind": "chess"}).status_code == 422
    res = client.get("/api/trainer/next", params={"kind": "setting", "preset": "ofc"})
    assert res.json()["detail"] == "a 13-card setting needs classic rules, not 'ofc'"
    res = client.get("/api/trainer/next", params={"kind": "street", "preset": "nope"})
    assert res.status_code == 400 and "unknown preset 'nope'" in res.json()["detail"]


# --------------------------------------------------------------------------- bounds


def test_rate_limit_per_client(tmp_path: Path) -> None:
    # The study work in threads: the limit is what is tested here, not a worker process.
    url = f"sqlite:///{tmp_path / 'r.db'}"
    app = create_app(url, rate_limits=RateSpec(study="3/minute"), hint_processes=False)
    with TestClient(app) as c:
        codes = [c.post("/api/board", json={"board": "| |"}).status_code for _ in range(5)]
    assert codes == [200, 200, 200, 429, 429]


def test_study_pool_queue_limit_and_budget() -> None:
    pool = StudyPool(threads=1, queue=1)
    gate = threading.Event()

    async def scenario() -> list[int]:
        from fastapi import HTTPException

        first = asyncio.ensure_future(pool.run(lambda: gate.wait(5), budget=5))
        await asyncio.sleep(0.05)
        codes = []
        try:
            await pool.run(lambda: 1)
        except HTTPException as exc:
            codes.append(exc.status_code)
        gate.set()
        await first
        try:
            await pool.run(lambda: time.sleep(1.5), budget=0.1)
        except HTTPException as exc:
            codes.append(exc.status_code)
        return codes

    try:
        assert asyncio.run(scenario()) == [503, 503]
    finally:
        pool.close()


def test_every_desk_endpoint_is_documented_with_examples(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/score", "/api/board", "/api/solve/fantasyland", "/api/solve/setting",
                 "/api/hint", "/api/trainer/grade"):  # fmt: skip
        body = paths[path]["post"]["requestBody"]["content"]["application/json"]
        assert body["examples"], path
        for example in body["examples"].values():  # every example is accepted
            res = client.post(path, json=example["value"])
            assert res.status_code == 200, (path, res.json())
    assert "kind" in json.dumps(paths["/api/trainer/next"]["get"]["parameters"])


def test_pages_and_worker_are_served(client: TestClient) -> None:
    for path in ("/score", "/study"):
        res = client.get(path)
        assert res.status_code == 200 and "manifest.webmanifest" in res.text
    sw = client.get("/sw.js")
    assert sw.status_code == 200 and "javascript" in sw.headers["content-type"]
    assert client.get("/static/desk/manifest.webmanifest").json()["start_url"] == "/score"


def test_the_worker_can_start_before_the_first_request() -> None:
    """The server starts the desk's worker with its hint worker (``StudyPool.start``), so
    that it has its kernels before the first person asks: started by the first request,
    that request waited for a new process to import and load everything."""
    import multiprocessing

    before = {p.pid for p in multiprocessing.active_children()}
    pool = StudyPool()
    try:
        pool.start()
        deadline = time.monotonic() + 60
        while not {p.pid for p in multiprocessing.active_children()} - before:
            assert time.monotonic() < deadline, "no worker process was started"
            time.sleep(0.05)
        # The started worker is the one the first request runs in.
        started = {p.pid for p in multiprocessing.active_children()} - before
        assert asyncio.run(pool.run(os.getpid)) in started
    finally:
        pool.close()
    StudyPool(threads=1).start()  # threads: nothing to start, and no error
