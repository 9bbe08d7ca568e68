"""The bot side of the protocol answers every malformed message with an error that names
the missing or wrong field, and reads on (issue 39: an ``act`` without ``view`` was
answered ``KeyError: 'view'``); a line too long to be a message is skipped unread."""

from __future__ import annotations

import io
import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from chinese_poker.ai import protocol
from chinese_poker.ai.protocol import ExternalBot, act_message, serve
from chinese_poker.engine import Table, action_from_dict
from chinese_poker.rules import rules_for

TABLE = Table(rules_for("pineapple"), ["A", "B"], seed=1)
SEAT = TABLE.to_act[0]
VIEW = TABLE.view(SEAT).to_dict()
GOOD_ACT = act_message(TABLE.view(SEAT), 99, 5.0)


def _served(*lines: str | dict[str, Any]) -> list[dict[str, Any]]:
    """The bot's answers to ``lines`` (then a good act, to show it reads on)."""
    text = "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines)
    out = io.StringIO()
    serve("random", seed=1, stdin=io.StringIO(text + json.dumps(GOOD_ACT) + "\n"), stdout=out)
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    last = answers.pop()
    assert last["type"] == "action" and last["id"] == 99, last
    assert TABLE.check(action_from_dict(last["action"])) is None
    return answers


def _view(**changes: Any) -> dict[str, Any]:
    view: dict[str, Any] = json.loads(json.dumps(VIEW))
    for key, value in changes.items():
        if value is None:
            del view[key]
        else:
            view[key] = value
    return view


BAD_DECISION = [{k: v for k, v in VIEW["decisions"][0].items() if k != "kind"}]

MALFORMED: list[tuple[str | dict[str, Any], str]] = [
    ("this is not JSON", "invalid JSON from the engine"),
    ("[1, 2]", "a message must be a JSON object, not [1, 2]"),
    ({"id": 3}, "the message has no 'type'; the types are hello, new_session, act"),
    ({"type": 5}, "a 'type' that is not a string (5)"),
    ({"type": "hello"}, "hello has no 'protocol' (this bot speaks 1)"),
    ({"type": "hello", "protocol": 2}, "unsupported protocol 2; this bot speaks 1"),
    ({"type": "hello", "protocol": 1, "rules": "ofc"}, "hello: 'rules' must be an object"),
    ({"type": "hello", "protocol": 1, "rules": {"variant": "chess"}}, "hello: 'rules' are not"),
    ({"type": "new_session", "seed": "x"}, "new_session: 'seed' must be a whole number or null"),
    ({"type": "new_session", "seed": True}, "'seed' must be a whole number or null, not true"),
    ({"type": "act", "id": 1}, "act has no 'view'"),
    ({"type": "act", "view": VIEW}, "act has no 'id'"),
    ({"type": "act", "id": "1", "view": VIEW}, "act: 'id' must be a whole number, not \"1\""),
    ({"type": "act", "id": 1, "view": [1]}, "act: 'view' must be an object"),
    ({"type": "act", "id": 1, "view": _view(players=None)}, "act: the view has no 'players'"),
    ({"type": "act", "id": 1, "view": _view(rules=None)}, "act: the view has no 'rules'"),
    ({"type": "act", "id": 1, "view": _view(version="7")}, "the view's 'version' must be a whole"),
    ({"type": "act", "id": 1, "view": _view(hand="Ah")}, "the view's 'hand' must be a list of"),
    ({"type": "act", "id": 1, "view": _view(decisions=BAD_DECISION)}, "decisions[0] has no 'kind'"),
    ({"type": "act", "id": 1, "view": _view(hand=["Zz"])}, "act: the view is not valid: bad card"),
]


@pytest.mark.parametrize(("line", "expected"), MALFORMED, ids=[m for _, m in MALFORMED])
def test_a_malformed_message_gets_an_error_naming_the_field(
    line: str | dict[str, Any], expected: str
) -> None:
    [answer] = _served(line)
    assert answer["type"] == "error"
    assert expected in answer["message"], answer["message"]
    assert "Error:" not in answer["message"]  # no bare exception names (KeyError: 'view')
    if isinstance(line, dict) and line.get("type") == "act" and isinstance(line.get("id"), int):
        assert answer["id"] == line["id"]


def test_unknown_types_and_results_need_no_answer() -> None:
    assert _served({"type": "something_newer"}, {"type": "result", "view": "anything"}) == []


def test_a_line_too_long_is_skipped_with_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(protocol, "MAX_LINE", 100_000)
    [answer] = _served(json.dumps({"type": "act", "id": 5, "view": "x" * 300_000}))
    assert answer == {
        "type": "error",
        "id": None,
        "message": "a message may have at most 100000 characters; this one was skipped",
    }


def test_the_engine_skips_an_answer_too_long(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(protocol, "MAX_LINE", 100_000)
    script = tmp_path / "long_bot.py"
    script.write_text(
        textwrap.dedent(
            """
            import json, sys
            for line in sys.stdin:
                msg = json.loads(line)
                if msg["type"] == "hello":
                    print(json.dumps({"type": "ready", "protocol": 1}), flush=True)
                elif msg["type"] == "act":
                    print("x" * 300_000, flush=True)
            """
        ),
        encoding="utf-8",
    )
    warnings: list[str] = []
    with ExternalBot([sys.executable, str(script)], deadline=20, warn=warnings.append) as bot:
        action = bot.act(TABLE.view(SEAT))
    assert action.to_dict()["type"] == "timeout"
    assert any("an answer longer than 100000 characters" in w for w in warnings), warnings
