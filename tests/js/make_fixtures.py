"""Write tests/js/eval-fixtures.json: boards scored by the Python side (the oracle of the
browser's eval.js). Run ``python tests/js/make_fixtures.py``; tests/test_js.py checks
that the committed file is what this script writes, and runs ``node --test tests/js/``.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

OUT = Path(__file__).with_name("eval-fixtures.json")
PRESETS = ["ofc", "ofc-western", "pineapple", "classic", "classic-low-middle", "classic-wheel"]
# A ruleset beyond the presets: the low middle with the [DP] royalty table, its middles
# dealt low (five ranks from deuce to nine) so that the table is exercised.
LOW_DP = "classic-low-middle+dp_table"
# The low middle with [DP]'s qualifier (ten-high, no pair, straight or flush): half the
# middles dealt low, half at random (pairs, jack-high and worse foul).
LOW_Q = "classic-low-middle+ten_high_no_pair"
RULESETS = [*PRESETS, LOW_DP, LOW_Q]
# Random rulesets (a seeded draw over every option that changes one board's royalties,
# foul or Fantasyland entry), "random-0" .. : their boards come after the fixed ones.
RANDOM_RULESETS = 48
RANDOM_BOARDS = 8  # per random ruleset


def _random_options(rng: random.Random) -> dict[str, Any]:
    """One draw of options, like the kernel property test's ``open_face_rules`` strategy
    but seeded (the file must come out the same each time) and with the classic ones."""
    from chinese_poker.rules.options import FIVE_CARD_ROYALTY_KEYS as keys

    variant = rng.choice(["ofc", "pineapple", "turbo", "classic", "criss_cross"])
    options: dict[str, Any] = {
        "variant": variant,
        "royalty_table": rng.choice(
            ["american", "western", "classic_standard", "classic_flat", "none", "custom"]
        ),
        "middle_trips_royalty": rng.choice([2, 0]),
        "classic_royal_flush": rng.choice(["20/10", "14/7"]),
        "max_royalties_per_hand": rng.choice([None, 1]),
        "finnish_deuce": rng.random() < 0.5,
        "wheel_rank": rng.choice(["lowest", "second_highest"]),
    }
    if options["royalty_table"] == "custom":
        tops = ["66", "99", "QQ", "KK", "AA", "222", "777", "AAA"]
        options["custom_royalties"] = {
            "top": {k: rng.randint(0, 30) for k in rng.sample(tops, rng.randint(0, 5))},
            **{
                line: {k: rng.randint(0, 30) for k in rng.sample(keys, rng.randint(0, len(keys)))}
                for line in ("middle", "bottom")
            },
        }
    if variant in ("classic", "criss_cross"):
        if rng.random() < 0.5:
            options["middle_mode"] = "lowball_2_7"
            options["low_middle_qualifier"] = rng.choice(["none", "ten_high_no_pair"])
            options["low_middle_royalties"] = rng.choice(["none", "dp_table"])
    else:
        options["fantasyland_enabled"] = rng.random() < 0.8
        options["fl_entry_min"] = rng.choice(["QQ", "KK"])
    return options


# Named rulesets the Node tests pick by name (no boards of their own): one royalty a hand,
# and an option eval.js refuses.
EXTRA = {
    "ofc+max_royalties_per_hand=1": {"variant": "ofc", "max_royalties_per_hand": 1},
    "ofc+royalty_for_dealt_combination": {"variant": "ofc", "royalty_for_dealt_combination": True},
}


def _random_rulesets() -> dict[str, dict[str, Any]]:
    rng = random.Random(2026)
    return {f"random-{k}": _random_options(rng) for k in range(RANDOM_RULESETS)}


def _rules(name: str) -> Any:
    from chinese_poker.rules import Rules, rules_for

    if name.startswith("random-") or name in EXTRA:
        options = dict(EXTRA.get(name) or _random_rulesets()[name])
        return Rules.for_variant(options.pop("variant"), **options)
    if name == LOW_DP:
        return rules_for("classic-low-middle", low_middle_royalties="dp_table")
    if name == LOW_Q:
        return rules_for("classic-low-middle", low_middle_qualifier="ten_high_no_pair")
    return rules_for(name)


def _low_middle_first(rng: random.Random, deck: list[int]) -> list[int]:
    """The deck with five cards of different ranks deuce..nine in places 3..7."""
    ranks = rng.sample(range(8), 5) if rng.random() < 0.8 else [5, 3, 2, 1, 0]  # 75432
    middle = [next(c for c in deck if c >> 2 == r) for r in ranks]
    rest = [c for c in deck if c not in middle]
    return rest[:3] + middle + rest[3:]


def _fantasyland_top_first(rng: random.Random, rules: Any, deck: list[int]) -> list[int]:
    """The deck with a top of queens or kings (and a deuce or trey) and, where a few tries
    find them, a middle and bottom that keep the board valid: the entry threshold decides."""
    from chinese_poker.cards import Board
    from chinese_poker.scoring import is_fouled

    rank = rng.choice([10, 11])
    top = [*[c for c in deck if c >> 2 == rank][:2], next(c for c in deck if c >> 2 <= 1)]
    rest = [c for c in deck if c not in top]
    for _ in range(60):
        rng.shuffle(rest)
        board = Board(tuple(top), tuple(rest[:5]), tuple(rest[5:10]))
        if not is_fouled(rules, board):
            break
    return top + rest


def fixtures() -> dict[str, Any]:
    from chinese_poker.cards import card_name, parse_board
    from chinese_poker.evaluate import describe, evaluate, evaluate3
    from chinese_poker.scoring import is_fouled, royalties

    rng = random.Random(12)
    randoms = list(_random_rulesets())
    names_of = [*RULESETS, *randoms, *EXTRA]
    rulesets = {name: _rules(name) for name in names_of}
    specs = {name: rules.spec.to_dict() for name, rules in rulesets.items()}
    # Every preset's spec too (no boards): eval.js must model each one (eval.test.mjs).
    from chinese_poker.rules import PRESETS as ALL_PRESETS
    from chinese_poker.rules import rules_for

    specs.update({name: rules_for(name).spec.to_dict() for name in ALL_PRESETS})
    order = [RULESETS[i % len(RULESETS)] for i in range(560)]
    order += [name for name in randoms for _ in range(RANDOM_BOARDS)]
    cases = []
    for i, preset in enumerate(order):
        deck = list(range(52))
        rng.shuffle(deck)
        if i % 3 == 0:  # sorted cards make many pairs, straights and flushes
            deck = sorted(deck[:20]) + deck[20:]
        rules = rulesets[preset]
        low = rules.spec.scoring.lowball_middle
        if preset == LOW_DP or ((preset == LOW_Q or low) and rng.random() < 0.5):
            deck = _low_middle_first(rng, deck)
        if preset in randoms and rules.spec.scoring.fantasyland.enabled and i % 2:
            deck = _fantasyland_top_first(rng, rules, deck)
        names = [card_name(c) for c in deck[:13]]
        lines = (" ".join(names[:3]), " ".join(names[3:8]), " ".join(names[8:]))
        board = parse_board(" | ".join(lines))
        top = evaluate3(*board.top)
        mid = evaluate(board.middle, wheel=rules.wheel_rank)
        fouled = is_fouled(rules, board)
        fl = rules.spec.scoring.fantasyland
        cases.append(
            {
                "preset": preset,
                "top": names[:3],
                "middle": names[3:8],
                "bottom": names[8:],
                "values": [top, mid, evaluate(board.bottom, wheel=rules.wheel_rank)],
                "names": [describe(top), describe(mid)],
                "royalties": list(royalties(rules, board)),
                "fouled": fouled,
                "fantasyland": not fouled and fl.entry_cards(top) is not None,
            }
        )
    return {"specs": specs, "cases": cases}


def text() -> str:
    return json.dumps(fixtures(), separators=(",", ":"), sort_keys=True) + "\n"


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
    OUT.write_text(text())
    print(f"wrote {OUT}")
