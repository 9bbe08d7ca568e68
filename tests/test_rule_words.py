"""The one table of rule words (rules.words): complete, and what the server serves."""

from __future__ import annotations

import typing
from enum import StrEnum

from chinese_poker.cards import parse_cards
from chinese_poker.evaluate import evaluate3
from chinese_poker.rules import OPTION_NAMES, PRESETS, Rules, RulesError, rules_for
from chinese_poker.rules.words import (
    OPTION_WORDS,
    PRESET_WORDS,
    option_catalogue,
    preset_catalogue,
)


def test_every_option_and_every_preset_has_words() -> None:
    assert set(OPTION_WORDS) == set(OPTION_NAMES)
    assert set(PRESET_WORDS) == set(PRESETS)
    for key, words in OPTION_WORDS.items():
        assert words.label and words.help.endswith("."), key
        assert len(words.help) <= 100, key  # one line
    for name, words in PRESET_WORDS.items():
        assert words.label and words.help.endswith("."), name


def test_every_value_of_every_closed_option_has_words() -> None:
    hints = typing.get_type_hints(Rules)
    checked = 0
    for key in OPTION_NAMES:
        for tp in typing.get_args(hints[key]) or (hints[key],):
            if isinstance(tp, type) and issubclass(tp, StrEnum):
                assert set(OPTION_WORDS[key].choices) == {v.value for v in tp}, key
                checked += 1
    assert checked >= 20


def test_the_catalogue_renders_kinds_a_client_can_use() -> None:
    by_key = {c["key"]: c for c in option_catalogue()}
    assert list(by_key) == list(OPTION_NAMES)
    assert by_key["royalty_award"]["kind"] == "choice"
    assert by_key["finnish_deuce"]["kind"] == "yes_no"
    assert by_key["finnish_deuce"]["choices"] == [
        {"value": "true", "label": "Yes"},
        {"value": "false", "label": "No"},
    ]
    assert by_key["foul_penalty"]["kind"] == "value"  # scoop_value or a number
    assert by_key["unit_value"]["choices"] == []
    # Every choice a client offers is a value the rules accept (the oracle: Rules).
    for c in option_catalogue():
        for choice in c["choices"]:
            try:
                rules_for("classic", **{c["key"]: choice["value"]})
            except RulesError as exc:
                # Some need other options with them (a custom table, Pineapple, ...).
                bad = f"invalid value {choice['value']!r} for option {c['key']!r}"
                assert bad not in str(exc), exc


def test_presets_carry_their_words_and_variant_facts() -> None:
    cat = {p["name"]: p for p in preset_catalogue()}
    assert list(cat) == list(PRESETS)
    assert cat["pineapple"]["label"] == "Pineapple" and cat["pineapple"]["open_face"] is True
    assert cat["classic"]["open_face"] is False
    assert cat["criss-cross"]["hands_per_seat"] == 2 and cat["classic"]["hands_per_seat"] == 1
    assert cat["criss-cross"]["players"] == list(rules_for("criss-cross").player_counts)
    assert cat["ofc-finnish"]["rules"] == rules_for("ofc-finnish").to_dict()
    # The Fantasyland entry, as the scorer reads it (a pair of queens enters, jacks not).
    for name, preset in cat.items():
        rules = rules_for(name)
        entry = preset["fantasyland_entry"]
        if not (rules.is_open_face and rules.fantasyland_enabled):
            assert entry is None, name
            continue
        rank = "23456789TJQKA".index(entry[0])
        fl = rules.spec.scoring.fantasyland

        def top(r: int) -> int:
            pair = "23456789TJQKA"[r]
            return evaluate3(*parse_cards(f"{pair}h {pair}d {'3' if r == 0 else '2'}c"))

        assert fl.entry_cards(top(rank)) is not None, name
        assert fl.entry_cards(top(rank - 1)) is None, name
