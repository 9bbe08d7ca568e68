"""Fair shuffles (docs/fairness.md): the construction, players' contributions, the
verifier against forged histories, ``chinese-poker verify``, and an outside verifier
written from the document alone that must agree with ours."""

from __future__ import annotations

import copy
import hashlib
import json
import random
import re
import struct
from pathlib import Path
from typing import Any

import pytest

from chinese_poker.ai import make_bot
from chinese_poker.cli import main
from chinese_poker.engine import Session, Table, Tournament, action_from_dict, shuffled_deck
from chinese_poker.rules import rules_for
from chinese_poker.server.fairness import (
    LEGACY_SCHEME,
    SCHEME,
    Commitment,
    ContributionRefused,
    HandRandomness,
    new_commitment,
    rules_digest,
    shuffle,
    verify_record,
    verify_records,
)

Record = dict[str, Any]
DOC = Path(__file__).resolve().parent.parent / "docs" / "fairness.md"
BOTS = {"rules-1"}


def history(
    preset: str = "pineapple",
    players: tuple[str, ...] = ("Ann", "rules-1", "Bob"),
    seed: int = 0,
    absent: tuple[str, ...] = ("Bob",),
    tournament: bool = False,
    bots: bool = False,
) -> list[Record]:
    """A session dealt the way the server deals: commitment, contributions, deal."""
    rules = rules_for(preset)
    names = list(players)
    session: Session = (
        Tournament(rules, names, seed=1, stacks={n: 60 for n in names}, level_hands=2)
        if tournament
        else Session(rules, names, seed=1)
    )
    rng = random.Random(seed)
    players_of = {n: make_bot("rules", seed=seed) for n in names} if bots else None
    records = []
    digest = rules_digest(rules)
    while not session.over:  # seeded, so that every run checks the same hands
        secret = f"{rng.getrandbits(128):032x}", f"{rng.getrandbits(128):032x}"
        fair = HandRandomness(Commitment.make("t-test", session.hands_played + 1, digest, *secret))
        dealt = session.next_participants()
        for name in dealt:
            if name not in BOTS and name not in absent:
                fair.offer(name, f"{rng.getrandbits(256):064x}", dealt)
        table = session.start_hand(deck=fair.close(dealt, BOTS))
        while not table.over:
            seat = table.to_act[0]
            if players_of is None:
                table.apply(table.random_action(seat, rng))
            else:
                table.apply(players_of[table.players[seat]].act(table.view(seat)))
        record = dict(session.finish_hand().record)
        record["fairness"] = fair.reveal()
        records.append(json.loads(json.dumps(record)))
    return records


# --------------------------------------------------------------------------- an outside verifier

# Written from docs/fairness.md only: no import from chinese_poker.

_RANKS, _SUITS = "23456789TJQKA", "shdc"


def _h(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _outside_shuffle(deal: str) -> list[str]:
    key = bytes.fromhex(deal)
    words: list[int] = []
    block = 0
    deck = list(range(52))
    for i in range(51, 0, -1):
        n = i + 1
        limit = 2**32 - 2**32 % n
        while True:
            if not words:
                digest = hashlib.sha256(key + struct.pack(">I", block)).digest()
                words = list(struct.unpack(">8I", digest))
                block += 1
            w = words.pop(0)
            if w < limit:
                break
        j = w % n
        deck[i], deck[j] = deck[j], deck[i]
    return [_RANKS[c // 4] + _SUITS[c % 4] for c in deck]


def _outside_runs(rec: Record) -> dict[tuple[int, int], list[int]]:
    """(seat, hand) -> deck positions, by the documented deal order."""
    n = len(rec["players"])
    order = [(rec["button"] + 1 + i) % n for i in range(n)]
    variant = rec["rules"]["variant"]
    out: dict[tuple[int, int], list[int]] = {}
    if variant in ("classic", "criss_cross"):
        for h in range(2 if variant == "criss_cross" else 1):
            for i in range(13 * n):
                out.setdefault((order[i % n], h), []).append(h * 13 * n + i)
        return out
    streets = {"ofc": [5] + [1] * 8, "pineapple": [5] + [3] * 4, "turbo": [5, 4, 4]}[variant]
    fl = {rec["players"].index(p): c for p, c in rec["fantasyland"].items()}
    pos = 0
    for seat in order:
        if seat in fl:
            out[(seat, 0)] = list(range(pos, pos + fl[seat]))
            pos += fl[seat]
    for dealt in streets:
        for seat in order:
            if seat not in fl:
                out.setdefault((seat, 0), []).extend(range(pos, pos + dealt))
                pos += dealt
    return out


def outside_verify(rec: Record, seen: str | None = None) -> str | None:
    """None if the line checks out by docs/fairness.md, else what is wrong."""
    f = rec["fairness"]
    t, k, seed, salt = f["table"], f["hand"], f["seed"], f["salt"]
    rules = _h(json.dumps(rec["rules"], sort_keys=True, separators=(",", ":"), ensure_ascii=True))
    if rules != f["rules_digest"]:
        return "rules"
    commitment = _h(f"chinese-poker/v2|commit|{t}|{k}|{rules}|{seed}|{salt}")
    if commitment != f["commitment"] or (seen is not None and seen != commitment):
        return "commitment"
    if [c["player"] for c in f["contributions"]] != rec["players"]:
        return "contributions"
    values = []
    for c in f["contributions"]:
        if c["source"] == "bot" and c["value"] != _h(
            f"chinese-poker/v2|bot|{t}|{k}|{c['player']}|{seed}|{salt}"
        ):
            return "bot value"
        if c["source"] != "absent":
            values.append(c["value"])
    tail = "".join("|" + v for v in sorted(values))
    deal = _h(f"chinese-poker/v2|deal|{t}|{k}|{seed}|{salt}{tail}")
    if deal != f["deal_seed"]:
        return "deal seed"
    deck = _outside_shuffle(deal)
    if rec["deck"] != deck[: len(rec["deck"])]:
        return "deck"
    for (seat, hand), positions in _outside_runs(rec).items():
        name = rec["players"][seat]
        box = f"{name}/{hand + 1}" if rec["rules"]["variant"] == "criss_cross" else name
        held = [c for c in rec["boards"][box].split() if c != "|"] + rec["discards"][box]
        if sorted(held) != sorted(deck[p] for p in positions):
            return f"{box}'s cards"
    return None


# --------------------------------------------------------------------------- the construction


def _example() -> dict[str, str]:
    text = DOC.read_text()
    block = text[text.index("## Worked example") :]
    names = r"COMMITMENT|BOT\(rules-1\)|DEAL"
    values = dict(re.findall(rf"^\s+({names})\s+= ([0-9a-f]{{64}})$", block, re.M))
    deck = re.search(r"deck\s+= ((?:[2-9TJQKA][shdc]\s+)+)", block)
    assert deck is not None and len(values) == 3
    values["deck"] = " ".join(deck.group(1).split())
    values["rules"] = re.search(r"`= ([0-9a-f]{64})`", block).group(1)  # type: ignore[union-attr]
    return values


def test_the_worked_example_of_the_document() -> None:
    ex = _example()
    assert ex["rules"] == hashlib.sha256(b"rules").hexdigest()
    seed, salt = "00112233445566778899aabbccddeeff", "ffeeddccbbaa99887766554433221100"
    c = Commitment.make("t-0123456789ab", 1, ex["rules"], seed, salt)
    assert c.commitment == ex["COMMITMENT"] and c.scheme == SCHEME
    assert c.bot_value("rules-1") == ex["BOT(rules-1)"]
    contributions = c.contributions(["Ann", "rules-1", "Bob"], {"rules-1"}, {"Ann": "a5" * 32})
    assert [x.source for x in contributions] == ["player", "bot", "absent"]
    deal = c.deal(contributions)
    assert deal.seed == ex["DEAL"]
    names = _outside_shuffle(ex["DEAL"])
    assert " ".join(names) == ex["deck"]
    assert [_RANKS[x // 4] + _SUITS[x % 4] for x in deal.deck] == names


def test_the_shuffle_is_uniform_enough_and_a_permutation() -> None:
    counts = [[0] * 52 for _ in range(52)]
    for i in range(400):
        deck = shuffle(hashlib.sha256(str(i).encode()).hexdigest())
        assert sorted(deck) == list(range(52))
        for pos, card in enumerate(deck):
            counts[card][pos] += 1
    # 400 shuffles: each card lands in each position ~7.7 times; none is stuck
    assert max(max(row) for row in counts) < 30 and sum(row[0] for row in counts) == 400


def test_rules_digest_is_the_canonical_json() -> None:
    rules = rules_for("ofc", finnish_deuce=True)
    text = json.dumps(rules.to_dict(), sort_keys=True, separators=(",", ":"))
    assert rules_digest(rules) == hashlib.sha256(text.encode()).hexdigest()
    assert rules_digest(rules) == rules_digest(json.loads(json.dumps(rules.to_dict())))
    assert rules_digest(rules) != rules_digest(rules_for("ofc"))


def test_rules_digests_are_kept_by_the_ruleset_itself() -> None:
    """The cache is keyed by the ruleset's value, not its id(): rulesets made and dropped
    one after another (their ids recycled) each get their own digest, and an equal
    ruleset built apart gets the same one."""
    for value in (1.0, 2.0, 1.0, 3.0):
        rules = rules_for("pineapple", unit_value=value)
        assert rules_digest(rules) == rules_digest(rules.to_dict())
        del rules
    assert rules_digest(rules_for("ofc")) == rules_digest(rules_for("ofc"))


def test_commitments_are_fresh_and_bind_table_hand_and_rules() -> None:
    rules = rules_for("pineapple")
    a, b = new_commitment("t-1", 1, rules), new_commitment("t-1", 1, rules)
    assert a.seed != b.seed and a.salt != b.salt and a.commitment != b.commitment
    ofc = rules_digest(rules_for("ofc"))
    for other in (("t-2", 1, a.rules), ("t-1", 2, a.rules), ("t-1", 1, ofc)):
        assert Commitment.make(*other, a.seed, a.salt).commitment != a.commitment
    with pytest.raises(ValueError, match=r"\|"):
        new_commitment("t|1", 1, rules)


def test_every_contribution_changes_the_deal_and_bots_cannot_be_picked() -> None:
    c = new_commitment("t-1", 1, rules_for("pineapple"))
    base = c.deal(c.contributions(["A", "B"], {"B"}, {"A": "00" * 32})).deck
    other = c.deal(c.contributions(["A", "B"], {"B"}, {"A": "00" * 31 + "01"})).deck
    absent = c.deal(c.contributions(["A", "B"], {"B"}, {})).deck
    assert len({base, other, absent}) == 3
    # the bot's value is a function of the committed secret: same commitment, same value
    assert c.bot_value("B") == c.bot_value("B") != c.bot_value("A")
    # sorted: who sent which value does not matter, only the set
    two = c.contributions(["A", "C"], set(), {"A": "11" * 32, "C": "22" * 32})
    swapped = c.contributions(["A", "C"], set(), {"A": "22" * 32, "C": "11" * 32})
    assert c.deal(two) == c.deal(swapped)


def test_the_server_side_refuses_late_duplicate_and_foreign_values() -> None:
    fair = HandRandomness(new_commitment("t-1", 3, rules_for("pineapple")))
    fair.offer("Ann", "ab" * 32, ["Ann", "Bob"])
    for player, value, code in [
        ("Ann", "cd" * 32, "duplicate"),
        ("Eve", "cd" * 32, "not_playing"),
        ("Bob", "xyz", "bad_message"),
        ("Bob", "AB" * 32, "bad_message"),
    ]:
        with pytest.raises(ContributionRefused) as err:
            fair.offer(player, value, ["Ann", "Bob"])
        assert err.value.code == code and str(err.value)
    deck = fair.close(["Ann", "Bob"], set())
    assert fair.close(["Ann", "Bob"], set()) == deck  # fixed once
    with pytest.raises(ContributionRefused) as err:
        fair.offer("Bob", "cd" * 32, ["Ann", "Bob"])
    assert err.value.code == "too_late" and "hand 3 is already dealt" in str(err.value)
    block = fair.reveal()
    assert [c["source"] for c in block["contributions"]] == ["player", "absent"]


# --------------------------------------------------------------------------- honest histories


@pytest.mark.parametrize(
    ("preset", "players"),
    [
        ("pineapple", ("Ann", "rules-1", "Bob")),
        ("ofc", ("Ann", "Bob")),
        ("classic", ("Ann", "rules-1", "Bob", "Cy")),
        ("criss-cross", ("Ann", "rules-1")),
        ("turbo", ("rules-1", "Ann", "Bob")),
    ],
)
def test_honest_histories_verify_and_the_outside_verifier_agrees(
    preset: str, players: tuple[str, ...]
) -> None:
    records = history(preset, players)
    checks = verify_records(records)
    assert checks and all(c.ok for c in checks), [c.problem for c in checks]
    assert [c.hand for c in checks] == list(range(1, len(checks) + 1))
    assert all(c.scheme == SCHEME and "Ann" in c.contributed for c in checks)
    assert all("Bob" not in c.contributed for c in checks)
    for rec in records:
        assert outside_verify(rec) is None


def test_a_tournament_with_an_elimination_verifies() -> None:
    records = history("pineapple", ("Ann", "rules-1", "Bob"), 1, (), True)
    assert [len(r["players"]) for r in records] == [3, 2, 2]  # somebody is out after hand 1
    assert all(c.ok for c in verify_records(records))
    assert all(outside_verify(r) is None for r in records)


@pytest.mark.parametrize("preset", ["pineapple", "pineapple-progressive"])
def test_fantasyland_deals_verify(preset: str) -> None:
    """A Fantasyland deal comes first in the deck (docs/fairness.md, deal order)."""
    for seed in range(8, 60):  # the rule bot reaches Fantasyland in some sessions
        records = history(preset, ("Ann", "rules-1"), seed=seed, absent=(), bots=True)
        if any(r["fantasyland"] for r in records):
            break
    assert any(r["fantasyland"] for r in records)
    assert all(c.ok for c in verify_records(records))
    for rec in records:
        assert outside_verify(rec) is None
        assert outside_verify(forge(rec, "deck")) is not None


def test_legacy_v1_hands_still_verify() -> None:
    session = Session(rules_for("pineapple"), 2, seed=1)
    seed, salt = "0" * 31 + "7", "ab" * 16
    commit = _h(f"{LEGACY_SCHEME}|t-old|1|{seed}|{salt}")
    table = session.start_hand(deck=shuffled_deck(7))
    rng = random.Random(1)
    while not table.over:
        table.apply(table.random_action(table.to_act[0], rng))
    record = json.loads(json.dumps(session.finish_hand().record))
    record["fairness"] = {
        "scheme": LEGACY_SCHEME,
        "table": "t-old",
        "hand": 1,
        "seed": seed,
        "salt": salt,
        "commitment": commit,
    }
    check = verify_record(record)
    assert check.ok and check.scheme == LEGACY_SCHEME and check.contributed == ()
    record["fairness"]["salt"] = "cd" * 16
    assert "commitment mismatch" in (verify_record(record).problem or "")


# --------------------------------------------------------------------------- forgeries


def _replayed(rec: Record) -> Table:
    """The hand of ``rec`` replayed from its own actions (what a forger would do)."""
    from chinese_poker.cards import parse_card
    from chinese_poker.rules import Rules

    players = rec["players"]
    table = Table(
        Rules.from_dict(rec["rules"]),
        players,
        button=rec["button"],
        deck=[parse_card(c) for c in rec["deck"]],
        fantasyland={players.index(n): c for n, c in rec["fantasyland"].items()},
        auto_play=[players.index(n) for n in rec["auto_play"]],
    )
    for data in rec["actions"]:
        if not data.get("auto"):
            table.apply(action_from_dict(data))
    return table


def _swap_placements(rec: Record) -> None:
    """Swap the middle and bottom placements of the first player, as a forger would."""
    seat = 0
    for a in rec["actions"]:
        if a["type"] == "place" and a["seat"] == seat:
            a["middle"], a["bottom"] = a["bottom"], a["middle"]
    name = rec["players"][seat]
    top, middle, bottom = (p.strip() for p in rec["boards"][name].split("|"))
    rec["boards"][name] = f"{top} | {bottom} | {middle}"


def forge(rec: Record, what: str) -> Record:
    r = copy.deepcopy(rec)
    f = r["fairness"]
    if what == "server seed":
        f["seed"] = f"{int(f['seed'], 16) ^ 1:032x}"
    elif what == "recommitted seed":  # a new seed with a matching (but new) commitment
        f["seed"] = f"{int(f['seed'], 16) ^ 1:032x}"
        f["commitment"] = Commitment.make(
            f["table"], f["hand"], f["rules_digest"], f["seed"], f["salt"]
        ).commitment
    elif what == "salt":
        f["salt"] = f"{int(f['salt'], 16) ^ 1:032x}"
    elif what == "table":
        f["table"] = "t-other"
    elif what == "commitment":
        f["commitment"] = "0" * 64
    elif what == "removed contribution":
        f["contributions"] = [c for c in f["contributions"] if c["player"] != "Ann"]
    elif what == "dropped contribution":  # Ann's value pretended absent, deal recomputed
        for c in f["contributions"]:
            if c["player"] == "Ann":
                c["source"], c["value"] = "absent", None
    elif what == "changed contribution":
        for c in f["contributions"]:
            if c["player"] == "Ann":
                c["value"] = "0" * 64
    elif what == "bot value":
        for c in f["contributions"]:
            if c["source"] == "bot":
                c["value"] = "1" * 64
    elif what == "deal seed":
        f["deal_seed"] = "2" * 64
    elif what == "deck":
        r["deck"][0], r["deck"][1] = r["deck"][1], r["deck"][0]
    elif what.startswith("changed rules"):
        method = r["rules"]["scoring_method"]
        r["rules"]["scoring_method"] = "one_four" if method != "one_four" else "one_six"
        if what == "changed rules, digest updated":
            f["rules_digest"] = rules_digest(r["rules"])
    elif what == "edited money":
        name = r["players"][0]
        r["settlement"]["money"][name] += 1.0
    elif what == "edited totals":
        a, b = r["players"][0], r["players"][-1]
        r["totals"][a] += 1
        r["totals"][b] -= 1
    elif what == "swapped placements":
        _swap_placements(r)
    elif what == "swapped placements, totals re-derived":
        _swap_placements(r)
        r["totals"] = dict(_replayed(r).totals)
    elif what == "swapped placements, hand re-derived":
        _swap_placements(r)
        table = _replayed(r)
        assert table.settlement is not None
        r["totals"] = dict(table.totals)
        r["settlement"] = json.loads(json.dumps(table.settlement.to_dict()))
        r["fantasyland_qualified"] = {r["players"][s]: c for s, c in table.fantasyland_next.items()}
    elif what == "board card":
        name = r["players"][0]
        used = " ".join(r["boards"].values()) + str(r["discards"])
        unused = next(c for c in r["deck"][::-1] if c not in used)
        card = r["boards"][name].split()[0]
        r["boards"][name] = r["boards"][name].replace(card, unused, 1)
    elif what == "action card":
        act = next(a for a in r["actions"] if a["type"] == "place" and a["bottom"])
        act["bottom"][0] = next(c for c in r["deck"][::-1] if c not in act["bottom"])
    elif what == "edited ledger":
        name = r["players"][0]
        r["session"]["ledger"]["points"][name] += 3
    elif what == "missing":
        del r["fairness"]
    elif what == "removed session":
        r["session"] = None
    elif what == "session hand":
        r["session"]["hand"] = 2
    else:
        raise AssertionError(what)
    return r


FORGERIES = [
    ("server seed", "commitment mismatch"),
    ("recommitted seed", "bot value is not the one the commitment fixes"),
    ("salt", "commitment mismatch"),
    ("table", "commitment mismatch"),
    ("commitment", "commitment mismatch"),
    ("removed contribution", "contributions are from rules-1, Bob; the hand's players are Ann"),
    ("dropped contribution", "deal seed"),
    ("changed contribution", "deal seed"),
    ("bot value", "bot value is not the one the commitment fixes"),
    ("deal seed", "deal seed"),
    ("deck", "not the shuffle"),
    ("changed rules", "rules differ from the committed ones"),
    ("changed rules, digest updated", "commitment mismatch"),
    ("edited money", "settlement.money.Ann differs"),
    ("edited totals", "totals.Ann differs"),
    ("swapped placements", "differs"),
    ("swapped placements, totals re-derived", "settlement"),
    ("swapped placements, hand re-derived", "session.ledger"),
    ("board card", "boards.Ann differs"),
    ("action card", "illegal on replay"),
    ("edited ledger", "session.ledger.points.Ann differs"),
    ("missing", "no fairness block"),
    ("removed session", "no session block"),
    ("session hand", "the record is session hand 2"),
]


@pytest.mark.parametrize(("what", "words"), FORGERIES)
def test_every_forgery_is_caught_and_named(what: str, words: str) -> None:
    records = history()
    assert all(c.ok for c in verify_records(records))
    index = 0
    if what in ("swapped placements, hand re-derived", "edited ledger"):
        # a later hand, whose outcome the swap changes
        index = next(
            i
            for i, r in enumerate(records)
            if i > 0 and _replayed(forge(r, "swapped placements")).totals != r["totals"]
        )
    forged = list(records)
    forged[index] = forge(records[index], what)
    checks = verify_records(forged)
    bad = [c for c in checks if not c.ok]
    assert bad and bad[0].index == index + 1, [c.problem for c in checks]
    assert bad[0].problem is not None and words in bad[0].problem, bad[0].problem
    if what in ("swapped placements, hand re-derived", "edited ledger"):
        # the line alone is consistent: only the session's replay shows the difference
        assert verify_record(forged[index]).ok
    elif what != "missing":
        assert not verify_record(forged[index]).ok


@pytest.mark.parametrize(
    "what",
    [
        "server seed",
        "removed contribution",
        "changed contribution",
        "bot value",
        "deck",
        "changed rules",
        "board card",
    ],
)
def test_the_outside_verifier_catches_the_deal_forgeries_too(what: str) -> None:
    rec = history()[0]
    assert outside_verify(rec) is None
    assert outside_verify(forge(rec, what)) is not None


def test_a_commitment_seen_before_the_deal_must_be_the_revealed_one() -> None:
    rec = history()[0]
    assert outside_verify(rec, seen=rec["fairness"]["commitment"]) is None
    assert outside_verify(rec, seen="f" * 64) == "commitment"


# --------------------------------------------------------------------------- the command


def _write(path: Path, records: list[Record]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_verify_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = history()
    good = _write(tmp_path / "good.jsonl", records)
    assert main(["verify", str(good)]) == 0
    out = capsys.readouterr().out
    assert out.count(": OK") == len(records) and "verified" in out

    bad = _write(tmp_path / "bad.jsonl", [records[0], forge(records[1], "edited money")])
    assert main(["verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "line 1 (table t-test, hand 1): OK" in out
    assert "line 2 (table t-test, hand 2): FAILED: the replay differs: settlement.money" in out

    assert main(["verify", "--json", str(bad)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is False and [h["ok"] for h in data["hands"]] == [True, False]
    assert data["hands"][0]["contributed"] == ["Ann"]

    # one hand downloaded on its own: verified, but its ledger cannot be
    part = _write(tmp_path / "part.jsonl", records[1:2])
    assert main(["verify", str(part)]) == 0
    out = capsys.readouterr().out
    assert "hand 2): OK (its session's earlier hands are not in the file" in out
    assert [c.ledger_checked for c in verify_records(records)] == [True] * len(records)
    assert [c.ledger_checked for c in verify_records(records[1:])] == [False] * (len(records) - 1)

    assert main(["verify", str(tmp_path / "missing.jsonl")]) == 2
    assert "verify: error" in capsys.readouterr().err


def test_replay_command_reads_a_server_history_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = history()
    path = _write(tmp_path / "server.jsonl", records)
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{len(records)} hands replayed: boards, scores and ledger match" in out
    forged = _write(tmp_path / "forged.jsonl", [forge(records[0], "edited totals")])
    assert main(["replay", str(forged)]) == 2
    assert "totals.Ann differs" in capsys.readouterr().err
