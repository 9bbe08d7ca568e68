"""Every area's routes can be found and called alone (issue 41 item 4): an application
made of one router, the holdings record and the start-up answers that router's routes,
and only them; the full application is exactly the union of the routers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi import APIRouter, FastAPI
from fastapi.testclient import TestClient
from starlette.routing import BaseRoute
from starlette.websockets import WebSocketDisconnect

import chinese_poker.server.accounts as accounts
import chinese_poker.server.desk as desk
import chinese_poker.server.lobby_routes as lobby_routes
import chinese_poker.server.meta_routes as meta_routes
import chinese_poker.server.pages as pages
import chinese_poker.server.play_socket as play_socket
import chinese_poker.server.profile_routes as profile_routes
import chinese_poker.server.results_routes as results_routes
import chinese_poker.server.reviews as reviews
from chinese_poker.rules import rules_for
from chinese_poker.server.app import ROUTERS, create_app, running
from chinese_poker.server.ratings import FAMILIES, FAMILY_PATTERN, Family, family_of

KEY = "k" * 30


@contextmanager
def alone(router: APIRouter, tmp_path: Path, **settings: Any) -> Iterator[TestClient]:
    """A client of an application with ``router``'s routes and nothing else (the
    record of what an application holds: the one ``create_app`` makes)."""
    app = FastAPI(lifespan=running)
    made = create_app(f"sqlite:///{tmp_path / 'alone.db'}", hint_processes=False, **settings)
    app.state.holdings = made.state.holdings
    app.router.routes.extend(router.routes)
    with TestClient(app) as client:
        yield client


def test_pages_alone(tmp_path: Path) -> None:
    (tmp_path / "score.html").write_text("<p>the score page</p>")
    with alone(pages.router, tmp_path, static_dir=tmp_path) as client:
        lobby = client.get("/")
        assert lobby.status_code == 200 and "browser UI is not installed" in lobby.text
        assert client.get("/score").text == "<p>the score page</p>"
        assert client.get("/api/health").status_code == 404  # another area's


def test_meta_routes_alone(tmp_path: Path) -> None:
    with alone(meta_routes.router, tmp_path) as client:
        health = client.get("/api/health").json()
        assert health["ok"] is True
        assert "pineapple" in {p["name"] for p in client.get("/api/presets").json()}
        assert client.get("/api/tables").status_code == 404


def test_lobby_routes_alone(tmp_path: Path) -> None:
    with alone(lobby_routes.router, tmp_path, public_url="https://cards.example") as client:
        made = client.post(
            "/api/tables",
            json={"preset": "pineapple", "seats": [{"kind": "human"}, {"kind": "human"}]},
        )
        assert made.status_code == 201
        table_id = made.json()["table"]["id"]
        assert made.json()["invite_url"].startswith(f"https://cards.example/join/{table_id}?")
        assert [t["id"] for t in client.get("/api/tables").json()] == [table_id]
        wrong = client.post(f"/api/tables/{table_id}/join", json={"code": "nope"})
        assert (wrong.status_code, wrong.json()) == (403, {"detail": "wrong join code"})


def test_results_routes_alone(tmp_path: Path) -> None:
    with alone(results_routes.router, tmp_path) as client:
        missing = client.get("/api/tables/nope/ledger")
        assert (missing.status_code, missing.json()) == (404, {"detail": "no table 'nope'"})


def test_play_socket_alone(tmp_path: Path) -> None:
    with alone(play_socket.router, tmp_path) as client:
        with (
            pytest.raises(WebSocketDisconnect) as closed,
            client.websocket_connect("/ws/tables/nope") as ws,
        ):
            ws.receive_text()
        assert (closed.value.code, closed.value.reason) == (4404, "no such table")


def test_accounts_alone(tmp_path: Path) -> None:
    with alone(accounts.router, tmp_path) as client:
        me = client.post("/api/me", headers={"X-Player-Key": KEY}).json()
        assert me["id"].startswith("p-") and me["signed_up"] is False
        assert client.post("/api/me").status_code == 401


def test_profile_routes_alone_and_the_families_are_the_ratings(tmp_path: Path) -> None:
    with alone(profile_routes.router, tmp_path) as client:
        board = client.get("/api/leaderboard").json()
        assert board == {"family": "open-face", "families": list(FAMILIES), "players": []}
        assert client.get("/api/leaderboard?family=classic").json()["family"] == "classic"
        assert client.get("/api/leaderboard?family=razz").status_code == 422
        assert client.get("/api/players/p-none").status_code == 404
    # One list: the query's pattern, the rules' family and the browser's tabs read it.
    assert FAMILIES == ("open-face", "classic") and FAMILY_PATTERN == "^(classic|open-face)$"
    assert family_of(rules_for("pineapple")) is Family.OPEN_FACE
    assert family_of(rules_for("classic")) is Family.CLASSIC
    browser = Path(profile_routes.__file__).parent / "static" / "js" / "profile.js"
    assert not re.search(r"""["'](classic|open-face)["']""", browser.read_text())


def test_reviews_alone(tmp_path: Path) -> None:
    with alone(reviews.router, tmp_path) as client:
        missing = client.get("/api/tables/nope/review")
        assert (missing.status_code, missing.json()) == (404, {"detail": "no table 'nope'"})


def test_desk_alone(tmp_path: Path) -> None:
    with alone(desk.router, tmp_path) as client:
        checked = client.post(
            "/api/board",
            json={"rules": "ofc", "board": "Ah Ad 2c | Kh Kd 3s 4s 5d | 6c 7c"},
        )
        assert checked.status_code == 200, checked.text
        bad = client.post("/api/board", json={"rules": "ofc", "board": "Zz"})
        assert bad.status_code == 400 and "detail" in bad.json()


def _key(route: BaseRoute) -> tuple[str, tuple[str, ...]]:
    return getattr(route, "path", ""), tuple(sorted(getattr(route, "methods", None) or ()))


def test_the_app_is_the_routers_and_nothing_else(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'all.db'}", hint_processes=False)
    ours = [_key(r) for r in app.routes if _key(r)[0] not in {"/static"}]
    ours = [k for k in ours if not k[0].startswith(("/openapi", "/docs", "/redoc"))]
    assert ours == [_key(r) for router in ROUTERS for r in router.routes]
    assert len(set(ours)) == len(ours)
