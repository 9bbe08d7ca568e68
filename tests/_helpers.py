"""Helpers shared by the server tests (not a test module)."""

from __future__ import annotations

import random
from typing import Any

Msg = dict[str, Any]


def random_action(view: Msg, rng: random.Random, *, seat: bool = False) -> Msg:
    """A legal random answer to the first decision of a seat's view (wire form): claim
    a natural and play on (no surrender) when asked, else place the cards at random on
    the lines with room. ``seat``: name the view's engine seat, as a careful client does."""
    action = _random_action(view, rng)
    return action | {"seat": view["seat"]} if seat else action


def _random_action(view: Msg, rng: random.Random) -> Msg:
    d = view["decisions"][0]
    if d["kind"] == "surrender":
        return {"type": "surrender", "hand": d["hand"], "surrender": False,
                "version": view["version"]}  # fmt: skip
    if d["kind"] == "natural":
        return {"type": "claim_natural", "hand": d["hand"], "claim": True,
                "version": view["version"]}  # fmt: skip
    cards = list(d["cards"])
    rng.shuffle(cards)
    discard, rest = cards[: d["discard"]], cards[d["discard"] :]
    free = list(d["free"])
    lines: list[list[str]] = [[], [], []]
    for card in rest:
        i = rng.choice([k for k in range(3) if free[k] > 0])
        free[i] -= 1
        lines[i].append(card)
    return {"type": "place", "hand": d["hand"], "top": lines[0], "middle": lines[1],
            "bottom": lines[2], "discard": discard, "version": view["version"]}  # fmt: skip
