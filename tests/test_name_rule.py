"""Issue 40 item 5: a player's name over the limit, or empty where one is required, is
answered with the name rule's own 400 and words at every entry (a table's seat, a join,
the profile), not with the request model's 422; a table's own name keeps its limit."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from chinese_poker.engine import TableError, validate_player_name
from chinese_poker.engine.table import NAME_LIMIT
from test_names import ENTRIES
from test_server import client

__all__ = ["client"]  # the fixture, shared with test_server

LANGS = ("en", "bg", "hr", "ru", "lv")


def _rule_words(name: str) -> str:
    with pytest.raises(TableError) as refused:
        validate_player_name(name)
    return str(refused.value)


@pytest.mark.parametrize("entry", sorted(ENTRIES))
@pytest.mark.parametrize("length", [NAME_LIMIT + 1, 500])
def test_a_long_name_gets_the_rules_words(client: TestClient, entry: str, length: int) -> None:
    name = "x" * length
    reply = ENTRIES[entry](client, name)
    assert reply.status_code == 400, reply.text
    assert reply.json() == {"detail": _rule_words(name)}
    assert f"at most {NAME_LIMIT} characters, not {length}" in reply.json()["detail"]


def test_an_empty_profile_name_gets_the_rules_words(client: TestClient) -> None:
    reply = ENTRIES["profile"](client, "")
    assert reply.status_code == 400
    assert reply.json() == {"detail": _rule_words("")}


def test_the_limit_itself_is_a_name(client: TestClient) -> None:
    for entry in ENTRIES.values():
        assert entry(client, "y" * NAME_LIMIT).status_code in (200, 201)


def test_a_long_table_name_is_not_a_players(client: TestClient) -> None:
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "human"}]
    reply = client.post("/api/tables", json={"name": "t" * 201, "seats": seats})
    assert reply.status_code == 422
    assert "player name" not in reply.text


def test_the_schema_still_says_the_limit(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    assert schema["JoinRequest"]["properties"]["name"]["maxLength"] == NAME_LIMIT
    assert schema["NameBody"]["properties"]["name"]["maxLength"] == NAME_LIMIT


NODE = shutil.which("node")
STATIC = Path(__file__).resolve().parent.parent / "src/chinese_poker/server/static"
#: One name for each of the rule's refusals.
REFUSED = ["x" * (NAME_LIMIT + 1), "\u200b", "Ann\nBob", "\u202eabc", "AC/DC"]


@pytest.mark.skipif(NODE is None, reason="needs node")
def test_the_browser_says_each_refusal_of_the_rule_in_the_players_language() -> None:
    # The browser shows a refused name's 400 (join, lobby, profile) by plainDetail.
    details = [_rule_words(name) for name in REFUSED]
    catalogues = {lang: json.loads((STATIC / f"i18n/{lang}.json").read_text()) for lang in LANGS}
    script = f"""
      import {{ useCatalogues }} from "{STATIC.as_uri()}/js/i18n.js";
      import {{ plainDetail }} from "{STATIC.as_uri()}/js/words.js";
      const out = {{}};
      import {{ readFileSync }} from "node:fs";
      const read = (lang) => JSON.parse(readFileSync(`{STATIC}/i18n/${{lang}}.json`, "utf8"));
      const all = Object.fromEntries({json.dumps(LANGS)}.map((lang) => [lang, read(lang)]));
      for (const lang of {json.dumps(LANGS)}) {{
        useCatalogues(all, lang);
        out[lang] = {json.dumps(details)}.map((d) => plainDetail(400, {{ detail: d }}));
      }}
      console.log(JSON.stringify(out));
    """
    done = subprocess.run(
        [str(NODE), "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    )
    said = json.loads(done.stdout)
    keys = ["name.too_long", "name.invisible", "name.control", "name.direction", "name.separator"]
    for lang in LANGS:
        assert len(set(said[lang])) == len(REFUSED), said[lang]  # one sentence per refusal
        for words, key in zip(said[lang], keys, strict=True):
            first = re.split(r"\{\w+\}", catalogues[lang][key])[0]
            assert words.startswith(first), (lang, key, words)
            assert "{" not in words, words
    assert "40" in said["ru"][0] and "41" in said["ru"][0]
    assert "/" in said["lv"][-1]
