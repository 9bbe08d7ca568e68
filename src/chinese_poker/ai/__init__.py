"""Computer players. A bot acts from a seat's view only: ``bot.act(view) -> Action``.

>>> from chinese_poker.rules import rules_for
>>> from chinese_poker.engine import Table, play_hand
>>> table = Table(rules_for("classic"), 4, seed=2)
>>> play_hand(table, [make_bot("rules", seed=i) for i in range(4)])
>>> sum(table.totals.values())
0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from chinese_poker.ai.simple import RandomBot, RuleBot
from chinese_poker.engine.actions import Action
from chinese_poker.engine.views import View

__all__ = ["BOTS", "Bot", "RandomBot", "RuleBot", "make_bot"]


class Bot(Protocol):
    """A computer player: it has a ``name`` and picks an action from a view."""

    name: str

    def act(self, view: View) -> Action: ...


def _mc(seed: int | None = None, level: int | None = None, time_budget: float | None = None) -> Bot:
    """The Monte Carlo bot, imported on first use (it compiles numba kernels)."""
    from chinese_poker.ai.mc import MonteCarloBot

    return MonteCarloBot(seed=seed, level=level, time_budget=time_budget)


def _mc_v1(
    seed: int | None = None, level: int | None = None, time_budget: float | None = None
) -> Bot:
    """``mc-v1``, the frozen baseline of the Monte Carlo bot (imported on first use)."""
    from chinese_poker.ai.mc import MonteCarloBotV1

    return MonteCarloBotV1(seed=seed, level=level, time_budget=time_budget)


BOTS: dict[str, Callable[..., Bot]] = {
    "random": RandomBot,
    "rules": RuleBot,
    "mc": _mc,
    "mc-v1": _mc_v1,
}
"""The built-in bots by name."""


def make_bot(name: str, seed: int | None = None, **options: Any) -> Bot:
    """A built-in bot by name (``random``, ``rules``, ``mc``, ``mc-v1``), seeded for
    reproducible play.

    ``options`` go to bots that take them (``mc``: ``level``, ``time_budget``); options
    left at None are not passed.

    >>> make_bot("random", seed=1).name
    'random'
    """
    cls = BOTS.get(name.strip().lower())
    if cls is None:
        raise ValueError(f"unknown bot {name!r}; bots: {', '.join(BOTS)}")
    given = {key: value for key, value in options.items() if value is not None}
    if given:
        import inspect

        accepted = inspect.signature(cls).parameters
        unknown = [key for key in given if key not in accepted]
        if unknown:
            raise ValueError(f"bot {name.strip().lower()!r} takes no option {unknown[0]!r}")
    return cls(seed=seed, **given)
