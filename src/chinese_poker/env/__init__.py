"""Learning environments: a PettingZoo AEC environment and a Gymnasium wrapper.

Needs the ``env`` extra (``pip install ".[env]"`` in a checkout: pettingzoo, gymnasium).

* :func:`aec_env` / :class:`raw_env` -- every seat is an agent (PettingZoo AEC API);
* :func:`gym_env` / :class:`ChinesePokerEnv` -- one seat learns, the others are played by
  the project's bots (Gymnasium API; also ``gymnasium.make("ChinesePoker-v0", ...)``).

>>> env = aec_env("ofc", players=3)
>>> env.reset(seed=0)
>>> env.agent_selection in env.possible_agents
True

See docs/env.md for the encodings.
"""

from __future__ import annotations

from chinese_poker.env.aec import aec_env, env, raw_env
from chinese_poker.env.encoding import (
    DEFAULT_SET_MENU,
    N_STREET_CODES,
    ActionLayout,
    ObsLayout,
    SetMenu,
)
from chinese_poker.env.gym import GYM_ID, ChinesePokerEnv, gym_env, register

__all__ = [
    "DEFAULT_SET_MENU",
    "GYM_ID",
    "N_STREET_CODES",
    "ActionLayout",
    "ChinesePokerEnv",
    "ObsLayout",
    "SetMenu",
    "aec_env",
    "env",
    "gym_env",
    "raw_env",
    "register",
]

register()
