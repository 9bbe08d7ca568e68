"""``mc-v1`` is the frozen baseline: its play on fixed deals never changes.

The placements of a few whole hands (heads-up Pineapple and OFC, level 1, fixed seeds)
are pinned as text. If this fails after a change to the shared kernels or to ``mc``,
``mc-v1`` must get its own copy of what changed (docs/bots.md), not a new pin.
"""

from __future__ import annotations

import pytest

from chinese_poker.ai import make_bot
from chinese_poker.ai.mc import V1_LEVELS, MonteCarloBotV1
from chinese_poker.engine import Place, Table
from chinese_poker.rules import rules_for

PINNED = {
    ("pineapple", 3): (
        "1: seat 1 places top 6c, middle 5h, bottom 9s 2c 9h\n"
        "0: seat 0 places top Js, middle Ac, bottom 8d 7d 4d\n"
        "1: seat 1 places top Ts, middle 4c, discards 3d\n"
        "0: seat 0 places middle Th As, discards 6h\n"
        "1: seat 1 places bottom 9c 2h, discards 8s\n"
        "0: seat 0 places bottom 6d 2d, discards 3h\n"
        "1: seat 1 places middle Ks Kc, discards 7h\n"
        "0: seat 0 places top Qc Qh, discards 8c\n"
        "1: seat 1 places top 7s, middle 3c, discards Qd\n"
        "0: seat 0 places middle 8h Ah, discards 4h"
    ),
    ("ofc", 4): (
        "1: seat 1 places top 6s, middle 7d 7h, bottom Jh Jc\n"
        "0: seat 0 places top 9s, middle Qd Qc, bottom Ac Ad\n"
        "1: seat 1 places bottom 3c\n"
        "0: seat 0 places bottom 5h\n"
        "1: seat 1 places bottom Js\n"
        "0: seat 0 places middle Jd\n"
        "1: seat 1 places top Qs\n"
        "0: seat 0 places bottom 5s\n"
        "1: seat 1 places middle 4d\n"
        "0: seat 0 places middle 2d\n"
        "1: seat 1 places middle Ts\n"
        "0: seat 0 places top 8c\n"
        "1: seat 1 places top Kh\n"
        "0: seat 0 places middle Ks\n"
        "1: seat 1 places bottom 9h\n"
        "0: seat 0 places top 8s\n"
        "1: seat 1 places middle As\n"
        "0: seat 0 places bottom Qh"
    ),
}


def _record(preset: str, seed: int) -> str:
    table = Table(rules_for(preset), 2, seed=seed)
    bots = [MonteCarloBotV1(seed=seed, level=1), MonteCarloBotV1(seed=seed + 1, level=1)]
    out = []
    while not table.over:
        seat = table.to_act[0]
        action = bots[seat].act(table.view(seat))
        if isinstance(action, Place):
            out.append(f"{seat}: {action}")
        table.apply(action)
    return "\n".join(out)


@pytest.mark.parametrize(("preset", "seed"), list(PINNED))
def test_mc_v1_plays_as_pinned(preset: str, seed: int) -> None:
    assert _record(preset, seed) == PINNED[preset, seed]


def test_mc_v1_is_registered_with_its_own_levels() -> None:
    bot = make_bot("mc-v1", seed=1, level=2)
    assert isinstance(bot, MonteCarloBotV1) and bot.name == "mc-v1"
    assert bot.params == V1_LEVELS[2]
    with pytest.raises(ValueError, match="mc-v1 level must be 1 to 3"):
        MonteCarloBotV1(level=4)
