"""The Gymnasium single-agent wrapper: one seat learns, bots play the others.

>>> env = gym_env("pineapple", players=2, opponents="random", seat=0)
>>> obs, info = env.reset(seed=3)
>>> import numpy as np
>>> done = False
>>> while not done:
...     action = int(np.flatnonzero(obs["action_mask"])[0])
...     obs, reward, done, truncated, info = env.step(action)
>>> isinstance(reward, float)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from chinese_poker.ai import Bot, make_bot
from chinese_poker.env.aec import ILLEGAL_ACTION_MODES, Observation, raw_env
from chinese_poker.env.encoding import DEFAULT_SET_MENU

__all__ = ["GYM_ID", "ChinesePokerEnv", "gym_env", "register"]

#: The registered Gymnasium id: ``gymnasium.make("ChinesePoker-v0", preset="ofc")``.
GYM_ID = "ChinesePoker-v0"

Opponent = str | Bot


class ChinesePokerEnv(gymnasium.Env[Observation, np.int64]):
    """One seat of a Chinese poker table as a Gymnasium environment.

    The learning seat is ``seat``; every other seat is played by a bot: ``opponents``
    is a bot name for all of them (``"random"``, ``"rules"``, any name
    :func:`chinese_poker.ai.make_bot` knows), or one name or bot object per other seat,
    in seat order. Named bots are rebuilt at every reset with seeds drawn from the
    episode's generator, so ``reset(seed=s)`` fixes the whole trajectory. Observations,
    actions and the other options are those of :class:`~chinese_poker.env.raw_env`; the
    reward of a step is the learning seat's points settled during it (the hand's total
    at its end, 0 before). ``illegal_action`` defaults to ``"random"`` here: a masked
    action is replaced by a random legal one and reported in ``info["illegal_action"]``.
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        preset: str = "pineapple",
        players: int = 2,
        opponents: Opponent | Sequence[Opponent] = "rules",
        seat: int = 0,
        render_mode: str | None = None,
        *,
        session: bool = False,
        button: int | None = None,
        set_menu: int = DEFAULT_SET_MENU,
        illegal_action: str = "random",
        **options: Any,
    ) -> None:
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be 'raise' or 'random', not {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', not {render_mode!r}")
        self.aec = raw_env(
            preset,
            players,
            None,
            session=session,
            button=button,
            set_menu=set_menu,
            illegal_action="raise",
            **options,
        )
        n = self.aec.n_seats
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, not {seat!r}")
        self.seat = seat
        self.agent = self.aec.possible_agents[seat]
        others = [s for s in range(n) if s != seat]
        if isinstance(opponents, str) or not isinstance(opponents, Sequence):
            specs: list[Opponent] = [opponents] * len(others)
        else:
            specs = list(opponents)
            if len(specs) != len(others):
                raise ValueError(
                    f"give one opponent per other seat ({len(others)}), not {len(specs)}"
                )
        for spec in specs:
            if isinstance(spec, str):
                make_bot(spec)  # fail early on an unknown name
            elif not callable(getattr(spec, "act", None)):
                raise ValueError(f"an opponent must be a bot name or have act(view), not {spec!r}")
        self._specs: dict[int, Opponent] = dict(zip(others, specs, strict=True))
        self.bots: dict[int, Bot] = {}
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)
        self._done = True
        self._carry = 0.0  # the learner's points settled while the bots played

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Deal a new hand (or session) and play the bots up to the learner's turn."""
        super().reset(seed=seed)
        rng = self.np_random
        aec_seed = int(rng.integers(0, 2**63))
        self.bots = {
            s: make_bot(spec, seed=int(rng.integers(0, 2**63))) if isinstance(spec, str) else spec
            for s, spec in self._specs.items()
        }
        self.aec.reset(seed=aec_seed, options=options)
        self._done = False
        self._carry = self._play_bots()
        if self.render_mode == "human":
            self.render()
        return self.aec.observe(self.agent), {}

    def step(self, action: Any) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the bots until its next turn or the end."""
        if self._done:
            raise RuntimeError("the episode is over; call reset()")
        aec = self.aec
        info: dict[str, Any] = {}
        code = int(action)
        mask = aec._mask
        if not 0 <= code < mask.shape[0] or not mask[code]:
            if self.illegal_action == "raise":
                aec.step(code)  # raises with the reason
            info["illegal_action"] = code
            legal = np.flatnonzero(mask)
            code = int(legal[self.np_random.integers(len(legal))])
        aec.step(code)
        reward = self._carry + aec.rewards[self.agent]
        self._carry = 0.0
        reward += self._play_bots()
        terminated = aec.terminations[self.agent]
        self._done = terminated
        if self.render_mode == "human":
            self.render()
        return aec.observe(self.agent), float(reward), terminated, False, info

    def _play_bots(self) -> float:
        """Let the bots act until the learner must act or the episode ends."""
        aec = self.aec
        me = self.agent
        reward = 0.0
        table = aec.table
        while not aec.terminations[me] and aec.agent_selection != me:
            seat = aec._seat_of[aec.agent_selection]
            table = aec.table
            assert table is not None
            aec.step_action(self.bots[seat].act(table.view(seat)))
            reward += aec.rewards[me]
        return reward

    def action_masks(self) -> np.ndarray:
        """The legal actions now, as booleans (for maskable policies)."""
        return self.aec.observe(self.agent)["action_mask"].astype(bool)

    def render(self) -> str | None:
        """The table as a spectator sees it (``ansi`` returns it, ``human`` prints it)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        text = f"(learning seat: {self.agent})\n" + self.aec._text()
        if self.render_mode == "human":
            print(text)
            return None
        return text


def gym_env(
    preset: str = "pineapple",
    players: int = 2,
    opponents: Opponent | Sequence[Opponent] = "rules",
    seat: int = 0,
    **options: Any,
) -> ChinesePokerEnv:
    """A :class:`ChinesePokerEnv` (``options``: environment and rule options)."""
    return ChinesePokerEnv(preset, players, opponents, seat, **options)


def register() -> None:
    """Register :data:`GYM_ID` with Gymnasium (done on importing ``chinese_poker.env``)."""
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point="chinese_poker.env.gym:ChinesePokerEnv")
