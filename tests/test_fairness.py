"""Commit-reveal shuffles: the construction, the verifier and ``chinese-poker verify``."""

from __future__ import annotations

import copy
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from chinese_poker.cli import main
from chinese_poker.engine import Session, shuffled_deck
from chinese_poker.rules import rules_for
from chinese_poker.server.fairness import (
    SCHEME,
    commitment,
    deck_for,
    new_commitment,
    verify_record,
    verify_records,
)

Record = dict[str, Any]


def history(preset: str = "pineapple", players: int = 2, seed: int = 0) -> list[Record]:
    """A session dealt the way the server deals: a committed secret seed per hand."""
    session = Session(rules_for(preset), players, seed=1)
    rng = random.Random(seed)
    records = []
    while not session.over:
        c = new_commitment("t-test", session.hands_played + 1)
        table = session.start_hand(deck=deck_for(c.seed))
        while not table.over:
            table.apply(table.random_action(table.to_act[0], rng))
        record = dict(session.finish_hand().record)
        record["fairness"] = c.reveal()
        records.append(json.loads(json.dumps(record)))
    return records


def test_the_construction_is_the_documented_one() -> None:
    seed, salt = "0" * 31 + "1", "ab" * 16
    text = f"chinese-poker/v1|t-1|3|{seed}|{salt}"
    assert SCHEME == "chinese-poker/v1"
    assert commitment("t-1", 3, seed, salt) == hashlib.sha256(text.encode()).hexdigest()
    assert deck_for(seed) == shuffled_deck(1)


def test_new_commitments_are_fresh_and_consistent() -> None:
    a, b = new_commitment("t-1", 1), new_commitment("t-1", 1)
    assert a.seed != b.seed and a.salt != b.salt
    for c in (a, b):
        assert len(c.seed) == len(c.salt) == 32 and int(c.seed, 16) >= 0
        assert c.commitment == commitment("t-1", 1, c.seed, c.salt)
        assert c.reveal() == {"scheme": SCHEME, "table": "t-1", "hand": 1, "seed": c.seed,
                              "salt": c.salt, "commitment": c.commitment}


@pytest.mark.parametrize(("preset", "players"),
                         [("pineapple", 3), ("ofc", 2), ("classic", 4), ("criss-cross", 2)])
def test_honest_histories_verify(preset: str, players: int) -> None:
    checks = verify_records(history(preset, players))
    assert checks and all(c.ok for c in checks), [c.problem for c in checks]
    assert [c.hand for c in checks] == list(range(1, len(checks) + 1))


def _tamper(record: Record, what: str) -> Record:
    r = copy.deepcopy(record)
    f = r["fairness"]
    if what == "seed":
        f["seed"] = f"{(int(f['seed'], 16) ^ 1):032x}"
    elif what == "salt":
        f["salt"] = f"{(int(f['salt'], 16) ^ 1):032x}"
    elif what == "commitment":
        f["commitment"] = "0" * 64
    elif what == "recommitted seed":  # a new seed with a matching (but new) commitment
        f["seed"] = f"{(int(f['seed'], 16) ^ 1):032x}"
        f["commitment"] = commitment(f["table"], f["hand"], f["seed"], f["salt"])
    elif what == "deck":
        r["deck"][0], r["deck"][1] = r["deck"][1], r["deck"][0]
    elif what == "board card":
        name = r["players"][0]
        board = r["boards"][name].split()
        cards = [c for c in board if c != "|"]
        unused = next(c for c in r["deck"][::-1] if c not in " ".join(r["boards"].values())
                      and all(c not in d for d in r["discards"].values()))
        r["boards"][name] = r["boards"][name].replace(cards[0], unused, 1)
    elif what == "action card":
        act = next(a for a in r["actions"] if a["type"] == "place" and a["bottom"])
        act["bottom"][0] = next(c for c in r["deck"][::-1] if c not in act["bottom"])
    elif what == "table":
        f["table"] = "t-other"
    elif what == "missing":
        del r["fairness"]
    return r


@pytest.mark.parametrize(
    ("what", "words"),
    [
        ("seed", "commitment mismatch"),
        ("salt", "commitment mismatch"),
        ("commitment", "commitment mismatch"),
        ("table", "commitment mismatch"),
        ("recommitted seed", "not the shuffle"),
        ("deck", "not the shuffle"),
        ("board card", "board differs"),
        ("action card", "committed deck"),
        ("missing", "no fairness block"),
    ],
)
def test_tampering_is_caught(what: str, words: str) -> None:
    record = history()[0]
    assert verify_record(record).ok
    check = verify_record(_tamper(record, what))
    assert not check.ok and check.problem is not None and words in check.problem, check.problem


def _write(path: Path, records: list[Record]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_verify_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = history()
    good = _write(tmp_path / "good.jsonl", records)
    assert main(["verify", str(good)]) == 0
    out = capsys.readouterr().out
    assert out.count(": OK") == len(records) and "verified" in out

    bad = _write(tmp_path / "bad.jsonl", [records[0], _tamper(records[1], "seed")])
    assert main(["verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "line 1 (table t-test, hand 1): OK" in out
    assert "line 2 (table t-test, hand 2): FAILED: commitment mismatch" in out

    assert main(["verify", "--json", str(bad)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is False and [h["ok"] for h in data["hands"]] == [True, False]

    assert main(["verify", str(tmp_path / "missing.jsonl")]) == 2
    assert "verify: error" in capsys.readouterr().err
