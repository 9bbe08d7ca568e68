"""The name rule's words for a player's name that the request's model refuses first.

A request body's player name is declared with the rule's length (at most
:data:`~chinese_poker.engine.table.NAME_LIMIT` characters, so the API's schema says
so), and FastAPI checks that before the route runs: a 41-character name was answered
``422`` with Pydantic's words ("String should have at most 40 characters") instead of
the rule's ``400`` that every other bad name gets. Routes of :class:`PlayerNameRoute`
answer such a name with the rule's own ``400`` (the one line of
:func:`~chinese_poker.engine.table.validate_player_name`, which the browser puts into
the player's language), and any other invalid request as before.

>>> from fastapi import APIRouter, FastAPI
>>> from fastapi.testclient import TestClient
>>> from pydantic import BaseModel, Field
>>> class Body(BaseModel):
...     name: str = Field(min_length=1, max_length=40)
...     table: str = Field(default="", max_length=5)
>>> router = APIRouter(route_class=PlayerNameRoute)
>>> @router.post("/name")
... def named(body: Body) -> str:
...     return body.name
>>> app = FastAPI()
>>> app.include_router(router)
>>> client = TestClient(app)
>>> reply = client.post("/name", json={"name": "x" * 41})
>>> reply.status_code, reply.json()
(400, {'detail': 'a player name has at most 40 characters, not 41'})
>>> client.post("/name", json={"name": ""}).json()["detail"]
"a player name must be a non-empty string of visible characters, not ''"
>>> client.post("/name", json={"name": "Ann", "table": "too long"}).status_code
422
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from fastapi import HTTPException, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute

from chinese_poker.engine.table import NAME_LIMIT, TableError, validate_player_name

__all__ = ["PlayerNameRoute", "name_rule_words"]

#: Pydantic's refusals of a string's length: a player name's field refuses with these
#: before the rule sees the name.
_LENGTH_ERRORS = frozenset({"string_too_long", "string_too_short"})


def name_rule_words(error: Mapping[str, Any]) -> str | None:
    """The rule's one line for a validation ``error`` of a player's name field (a field
    called ``name`` whose limit is the rule's), else None."""
    loc = error.get("loc", ())
    limits = error.get("ctx") or {}
    if error.get("type") not in _LENGTH_ERRORS or not loc or loc[-1] != "name":
        return None
    # A table's name is also called "name", with a longer limit: not a player's.
    if limits.get("max_length", NAME_LIMIT) != NAME_LIMIT:
        return None
    try:
        validate_player_name(error.get("input"))
    except TableError as exc:
        return str(exc)
    return None


class PlayerNameRoute(APIRoute):
    """A route whose refused player name is answered with the name rule's ``400``."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def with_name_rule(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestValidationError as exc:
                for error in exc.errors():
                    words = name_rule_words(error)
                    if words is not None:
                        raise HTTPException(400, words) from None
                raise

        return with_name_rule
