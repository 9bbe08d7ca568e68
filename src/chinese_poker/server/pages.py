"""The browser's pages: every address the one-page UI answers at serves ``index.html``.

The lobby (``/``), an invite (``/join/{id}``), a table (``/table/{id}``), watching
(``/watch/{id}``), this player and the leaderboard (``/me``, ``/leaderboard``,
``/profile/{id}``) and a hand's review (``/review/{id}/{n}``) are one page; the study
desk has two of its own (``/score``, ``/study``) and its service worker is served from
the root so that its scope covers them. Without the UI's files a short page points to
the API's description at ``/docs``.
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse, Response

from chinese_poker.server.holdings import Holdings

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

_PLACEHOLDER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>chinese-poker</title></head>
<body><h1>chinese-poker server</h1>
<p>The browser UI is not installed. The API is described at <a href="/docs">/docs</a>.</p>
</body></html>
"""


def _page(holdings: Holdings, name: str = "index.html") -> Response:
    page = holdings.static / name
    if page.is_file():
        return FileResponse(page, media_type="text/html")
    return HTMLResponse(_PLACEHOLDER)


async def index_page(holdings: Holdings) -> Response:
    """The one page of the lobby, the tables, the players and the reviews."""
    return _page(holdings)


for _path in (
    "/",
    "/join/{table_id}",
    "/table/{table_id}",
    "/watch/{table_id}",
    "/me",
    "/leaderboard",
    "/profile/{player_id}",
):
    router.add_api_route(_path, index_page, methods=["GET"])


@router.get("/review/{table_id}/{hand}")
async def review_page(holdings: Holdings, table_id: str, hand: int) -> Response:
    # Apart: its hand is a number (422 otherwise), as the review's API has it.
    return _page(holdings)


@router.get("/score")
async def score_page(holdings: Holdings) -> Response:
    return _page(holdings, "score.html")


@router.get("/study")
async def study_page(holdings: Holdings) -> Response:
    return _page(holdings, "study.html")


@router.get("/sw.js")
async def service_worker(holdings: Holdings) -> Response:
    return FileResponse(holdings.static / "desk" / "sw.js", media_type="text/javascript")
