"""Computer players. A bot acts from a seat's view only: ``bot.act(view) -> Action``.

>>> from chinese_poker.rules import rules_for
>>> from chinese_poker.engine import Table, play_hand
>>> table = Table(rules_for("classic"), 4, seed=2)
>>> play_hand(table, [make_bot("rules", seed=i) for i in range(4)])
>>> sum(table.totals.values())
0
"""

from __future__ import annotations

from typing import Protocol

from chinese_poker.ai.simple import RandomBot, RuleBot
from chinese_poker.engine.actions import Action
from chinese_poker.engine.views import View

__all__ = ["BOTS", "Bot", "RandomBot", "RuleBot", "make_bot"]


class Bot(Protocol):
    """A computer player: it has a ``name`` and picks an action from a view."""

    name: str

    def act(self, view: View) -> Action: ...


BOTS: dict[str, type[RandomBot] | type[RuleBot]] = {"random": RandomBot, "rules": RuleBot}
"""The built-in bots by name."""


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A built-in bot by name (``random`` or ``rules``), seeded for reproducible play.

    >>> make_bot("random", seed=1).name
    'random'
    """
    cls = BOTS.get(name.strip().lower())
    if cls is None:
        raise ValueError(f"unknown bot {name!r}; bots: {', '.join(BOTS)}")
    return cls(seed=seed)
