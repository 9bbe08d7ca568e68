"""The study desk's refusals, each with a code its pages put in the player's words.

An API user reads the English ``detail`` as before; the desk's pages (static/desk) show
the words of ``desk.refusal.<code>`` from the catalogues, filled with ``params``, as the
table shows its socket's error codes. Every answer the desk refuses carries one:

``{"detail": "<one line>", "code": "<one of DESK_REFUSALS>", "params": {...}}``

Refusals raised as a :class:`DeskRefusal` carry their own code; the rest are named by
kind (:func:`refusal_of`): the rate limit, the request's shape, cards, rules, tables and
positions. A position whose card counts do not fit its street, the mistake a player
makes on the desk's position editor, is named count by count
(:func:`position_refusal`).

>>> refusal_of(HTTPException(429, "too many requests from your address"))
('rate_limited', {})
>>> from chinese_poker.cards import CardError
>>> refusal_of(CardError("bad card 'Xx'"))
('bad_cards', {})
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from fastapi import HTTPException, Request, Response
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute

from chinese_poker.cards import CardError, parse_board
from chinese_poker.engine.position import PositionError, placed_before
from chinese_poker.rules import RulesError, rules_from_document

__all__ = [
    "DESK_REFUSALS",
    "DeskRefusal",
    "DeskRoute",
    "position_refusal",
    "refusal_answer",
    "refusal_of",
]

DESK_REFUSALS = (
    "rate_limited",
    "busy",
    "over_budget",
    "preparing",
    "failed",
    "no_position_found",
    "bad_request",
    "bad_cards",
    "bad_rules",
    "bad_table",
    "bad_position",
    "my_board_size",
    "street_cards",
    "opponent_board_size",
    "no_cards_left",
)
"""Every code a study desk refusal carries; each has words in every catalogue
(``desk.refusal.<code>``, checked by tests/test_desk_refusals.py)."""


class DeskRefusal(HTTPException):
    """A refusal of the study desk: its status, the English detail for API users, and
    its code with the values its words take (``params``)."""

    def __init__(self, status: int, code: str, detail: str, **params: Any) -> None:
        if code not in DESK_REFUSALS:
            raise ValueError(f"unknown study desk refusal {code!r}")
        super().__init__(status, detail)
        self.code = code
        self.params = params


def refusal_of(exc: Exception) -> tuple[str, dict[str, Any]]:
    """The code and values of a refusal, by its kind when it has no code of its own."""
    if isinstance(exc, DeskRefusal):
        return exc.code, exc.params
    if isinstance(exc, HTTPException):
        if exc.status_code == 429:
            return "rate_limited", {}
        return ("bad_request" if exc.status_code < 500 else "failed"), {}
    from chinese_poker.cli.score import TableError

    kinds: tuple[tuple[type[Exception], str], ...] = (
        (PositionError, "bad_position"),
        (CardError, "bad_cards"),
        (RulesError, "bad_rules"),
        (TableError, "bad_table"),
    )
    return next((code for kind, code in kinds if isinstance(exc, kind)), "bad_request"), {}


def position_refusal(given: object) -> DeskRefusal | None:
    """The refusal of a position (its JSON form) whose card counts do not fit its street:
    my board, my cards, an opponent's board; None when its counts fit (or it is wrong in
    another way, which the position's parser names)."""
    if not isinstance(given, Mapping):
        return None
    try:
        rules = rules_from_document(given["rules"], given.get("options"))
        street = int(given["street"])
        me = _cards_on(str(given.get("me", "")))
        cards = len(str(given.get("cards", "")).split())
        opponents = [str(o) for o in given.get("opponents", [])]
    except (KeyError, TypeError, ValueError):
        return None
    if not rules.is_open_face or not 1 <= street <= len(rules.streets):
        return None
    dealt, place = rules.streets[street - 1]
    before = placed_before(rules, street)
    game = rules.variant
    if me != before:
        return DeskRefusal(
            400, "my_board_size",
            f"my board has {me} cards; before street {street} of {game} it has {before}",
            n=me, need=before, street=street, game=game,
        )  # fmt: skip
    if cards != dealt:
        return DeskRefusal(
            400, "street_cards",
            f"street {street} of {game} deals {dealt} cards, 'cards' has {cards}",
            n=cards, need=dealt, street=street, game=game,
        )  # fmt: skip
    for number, board in enumerate(opponents, 1):
        if board.strip().lower() == "fantasyland":
            continue
        try:
            n = _cards_on(board)
        except ValueError:
            return None
        if n not in (before, before + place):
            return DeskRefusal(
                400, "opponent_board_size",
                f"opponent {number}'s board has {n} cards; on street {street} of {game} it "
                f"has {before} (still to act) or {before + place} (has placed)",
                opponent=number, n=n, before=before, after=before + place, street=street,
                game=game,
            )  # fmt: skip
    return None


def _cards_on(board: str) -> int:
    """The cards of a board's text; a blank one is empty (as the position's parser reads
    it)."""
    return 0 if "|" not in board and not board.strip() else len(parse_board(board, complete=False))


def refusal_answer(exc: HTTPException) -> JSONResponse:
    """The JSON answer of a refusal: the detail, its code and the code's values."""
    code, params = refusal_of(exc)
    return JSONResponse(
        {"detail": exc.detail, "code": code, "params": params},
        status_code=exc.status_code,
        headers=exc.headers,
    )


class DeskRoute(APIRoute):
    """A study desk route: every refusal it answers carries its code (the usual answer of
    an HTTPException has the detail only)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def answer(request: Request) -> Response:
            try:
                return await handler(request)
            except HTTPException as exc:
                return refusal_answer(exc)

        return answer
