"""Computer players. A bot acts from a seat's view only: ``bot.act(view) -> Action``.

The built-in bots are declared in :data:`REGISTRY`, each with its factory, the options
it takes, the levels a player may choose and its name in players' words; every consumer
(``make_bot``, the bot protocol, the server's lobby) reads it. Importing this package
builds no bot and loads no solver: each factory imports its bot's module when first
called (``mc`` compiles numba kernels; the server answers sooner without them).

>>> from chinese_poker.rules import rules_for
>>> from chinese_poker.engine import Table, play_hand
>>> table = Table(rules_for("classic"), 4, seed=2)
>>> play_hand(table, [make_bot("rules", seed=i) for i in range(4)])
>>> sum(table.totals.values())
0
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from chinese_poker.engine.actions import Action
from chinese_poker.engine.views import View

if TYPE_CHECKING:
    from chinese_poker.ai.simple import RandomBot, RuleBot

__all__ = ["BOTS", "REGISTRY", "Bot", "BotKind", "RandomBot", "RuleBot", "make_bot"]


class Bot(Protocol):
    """A computer player: it has a ``name`` and picks an action from a view."""

    name: str

    def act(self, view: View) -> Action: ...


@dataclass(frozen=True)
class BotKind:
    """One built-in bot as a player chooses it.

    ``build(seed=..., **options)`` makes one (importing its module on first use);
    ``options`` are the keyword options it takes besides ``seed``; ``levels`` the levels
    a player may choose (empty: it has none); ``display_name`` its name in players'
    words."""

    name: str
    display_name: str
    build: Callable[..., Bot]
    options: tuple[str, ...] = ()
    levels: tuple[int, ...] = ()

    @property
    def takes_level(self) -> bool:
        return "level" in self.options


def _random(seed: int | None = None) -> Bot:
    from chinese_poker.ai.simple import RandomBot

    return RandomBot(seed=seed)


def _rules(seed: int | None = None, samples: int = 24) -> Bot:
    from chinese_poker.ai.simple import RuleBot

    return RuleBot(seed=seed, samples=samples)


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


# mc.OFFERED_LEVELS, declared here so that reading the registry loads no kernel (a test
# holds the two equal).
_MC_LEVELS = (1, 2, 3)

REGISTRY: dict[str, BotKind] = {
    kind.name: kind
    for kind in (
        BotKind("random", "Random", _random),
        BotKind("rules", "Rules", _rules, options=("samples",)),
        BotKind("mc", "Monte Carlo", _mc, ("level", "time_budget"), _MC_LEVELS),
        BotKind("mc-v1", "Monte Carlo v1", _mc_v1, ("level", "time_budget"), _MC_LEVELS),
    )
}
"""The built-in bots by name, in the order they are listed."""


class _Factories(Mapping[str, Callable[..., Bot]]):
    """:data:`REGISTRY`'s factories by name, read through (never a copy that drifts)."""

    def __getitem__(self, name: str) -> Callable[..., Bot]:
        return REGISTRY[name].build

    def __iter__(self) -> Iterator[str]:
        return iter(REGISTRY)

    def __len__(self) -> int:
        return len(REGISTRY)


BOTS: Mapping[str, Callable[..., Bot]] = _Factories()
"""The built-in bots' factories by name (:data:`REGISTRY` has the rest of each)."""


def make_bot(name: str, seed: int | None = None, **options: Any) -> Bot:
    """A built-in bot by name (``random``, ``rules``, ``mc``, ``mc-v1``), seeded for
    reproducible play.

    ``options`` go to bots that take them (``mc``: ``level``, ``time_budget``); options
    left at None are not passed.

    >>> make_bot("random", seed=1).name
    'random'
    """
    kind = REGISTRY.get(name.strip().lower())
    if kind is None:
        raise ValueError(f"unknown bot {name!r}; bots: {', '.join(REGISTRY)}")
    given = {key: value for key, value in options.items() if value is not None}
    unknown = [key for key in given if key not in kind.options]
    if unknown:
        raise ValueError(f"bot {kind.name!r} takes no option {unknown[0]!r}")
    return kind.build(seed=seed, **given)


def __getattr__(name: str) -> Any:
    """``RandomBot`` and ``RuleBot``, imported when first asked for (a quick start)."""
    if name in ("RandomBot", "RuleBot"):
        from chinese_poker.ai import simple

        return getattr(simple, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
