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


def _rules(name: str) -> Any:
    from chinese_poker.rules import rules_for

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


def fixtures() -> dict[str, Any]:
    from chinese_poker.cards import card_name, parse_board
    from chinese_poker.evaluate import describe, evaluate, evaluate3
    from chinese_poker.scoring import is_fouled, royalties

    rng = random.Random(12)
    specs = {name: _rules(name).spec.to_dict() for name in RULESETS}
    cases = []
    for i in range(560):
        deck = list(range(52))
        rng.shuffle(deck)
        if i % 3 == 0:  # sorted cards make many pairs, straights and flushes
            deck = sorted(deck[:20]) + deck[20:]
        preset = RULESETS[i % len(RULESETS)]
        if preset == LOW_DP or (preset == LOW_Q and rng.random() < 0.5):
            deck = _low_middle_first(rng, deck)
        names = [card_name(c) for c in deck[:13]]
        rules = _rules(preset)
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
