"""The action message's quick check (messages.plain_action) against the full one: it
carries out only what pydantic's ActionMsg accepts, with the same id and action."""

from __future__ import annotations

import copy
import itertools
from typing import Any

import pytest
from pydantic import ValidationError

from chinese_poker.server.messages import ActionMsg, parse_client_message, plain_action

BASES: list[dict[str, Any]] = [
    {"type": "action", "id": 7, "action": {"type": "place", "seat": 1, "hand": 0, "version": 4,
     "top": [], "middle": ["9h"], "bottom": ["9c"], "discard": ["2d"]}},
    {"type": "action", "id": "a-1", "action": {"type": "place", "version": 0, "bottom": ["Ah"]}},
    {"type": "action", "action": {"type": "surrender", "seat": 0, "hand": 1, "version": 9,
     "surrender": True}},
    {"type": "action", "id": None, "action": {"type": "claim_natural", "version": 2,
     "claim": False}},
]  # fmt: skip

ODD_VALUES: list[object] = [
    None, True, False, 0, 1, 2, -1, 1.0, "1", "", [], ["Ah"], [1], ["Ah", None], ["x"] * 17,
    ["x"] * 18, {}, {"a": 1}, "timeout", "place", 2**70,
]  # fmt: skip


def full_way(data: dict[str, Any]) -> tuple[object, dict[str, Any]] | None:
    """What the dispatch carries out after the full validation (None: refused)."""
    try:
        msg = parse_client_message(copy.deepcopy(data))
    except ValidationError:
        return None
    if not isinstance(msg, ActionMsg):
        return None
    return msg.id, msg.action.model_dump(exclude_none=True)


def variants() -> list[dict[str, Any]]:
    """Each base, and each with one key set to each odd value, dropped, or added."""
    out: list[dict[str, Any]] = []
    for base in BASES:
        out.append(base)
        for key, value in itertools.product(["type", "id", "action", "extra"], ODD_VALUES):
            out.append({**base, key: value})
        out.append({k: v for k, v in base.items() if k != "id"})
        body_keys = [*base["action"], "seat", "hand", "top", "surrender", "claim", "discard", "x"]
        for key in body_keys:
            out.append({**base, "action": {k: v for k, v in base["action"].items() if k != key}})
            for value in ODD_VALUES:
                out.append({**base, "action": {**base["action"], key: value}})
    return out


@pytest.mark.parametrize("data", variants(), ids=lambda d: repr(d)[:60])
def test_the_quick_check_takes_only_what_the_full_one_takes(data: dict[str, Any]) -> None:
    quick = plain_action(copy.deepcopy(data))
    if quick is not None:
        full = full_way(data)
        assert full is not None, "accepted what pydantic refuses"
        assert quick == full
        # 1 == True in Python: the kinds must be the same as well.
        assert type(quick[0]) is type(full[0])
        assert [type(v) for v in quick[1].values()] == [type(v) for v in full[1].values()]
        assert list(quick[1]) == list(full[1])


def test_the_usual_moves_take_the_quick_way() -> None:
    for base in BASES:
        assert plain_action(copy.deepcopy(base)) == full_way(base)
    # What the page sends (staging.js) and what the bench's and the tests' clients send.
    move = {"type": "place", "seat": 0, "hand": 0, "version": 12, "top": ["Kd"], "middle": [],
            "bottom": ["Kc"], "discard": ["4s"]}  # fmt: skip
    page = {"type": "action", "id": 3, "action": move}
    assert plain_action(page) == full_way(page)


def test_the_quick_way_copies_the_lists() -> None:
    data = {"type": "action", "action": {"type": "place", "version": 1, "top": ["Ah"]}}
    quick = plain_action(data)
    assert quick is not None
    quick[1]["top"].append("Kd")
    assert data["action"]["top"] == ["Ah"]
