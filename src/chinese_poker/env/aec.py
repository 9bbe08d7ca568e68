"""The PettingZoo AEC environment: one hand (or one session) of any preset.

>>> env = raw_env("pineapple", players=2)
>>> env.reset(seed=1)
>>> obs, reward, terminated, truncated, info = env.last()
>>> obs["observation"].shape, int(obs["action_mask"].sum())
((1421,), 232)
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> for agent in env.agent_iter():
...     obs, reward, terminated, truncated, info = env.last()
...     action = None if terminated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
...     env.step(action)
>>> sum(env.table.totals.values())
0

See docs/env.md for the observation, the action space and the options.
"""

from __future__ import annotations

import warnings
from typing import Any, cast

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from chinese_poker.ai.fantasyland import solve_fantasyland
from chinese_poker.engine.actions import (
    Action,
    ClaimNatural,
    Decision,
    IllegalActionError,
    Place,
    Surrender,
    Timeout,
)
from chinese_poker.engine.session import Session
from chinese_poker.engine.table import Table
from chinese_poker.env.encoding import (
    DEFAULT_SET_MENU,
    F32,
    I8,
    ActionLayout,
    ObsLayout,
    OpenFaceObservations,
    SetMenu,
    build_set_menu,
    encode_view,
    set_opponents,
    static_row,
    street_code,
    street_mask,
    street_place,
)
from chinese_poker.rules import Rules, resolve_preset, rules_for

__all__ = ["ILLEGAL_ACTION_MODES", "Observation", "aec_env", "env", "raw_env"]

Observation = dict[str, np.ndarray]
ILLEGAL_ACTION_MODES = ("raise", "random")


class raw_env(AECEnv):  # type: ignore[misc]
    """One hand of Chinese poker (or a whole session) as a PettingZoo AEC environment.

    ``preset`` is a RULES §14 preset name or alias; ``options`` override single rule
    options (``rules_for(preset, **options)``); ``players`` is the seat count. Agents
    are ``player_0`` .. ``player_{n-1}`` (agent i sits in seat i).

    Environment options:

    * ``session``: one episode is a whole :class:`~chinese_poker.engine.Session`
      (Fantasyland carry-over, button moves) instead of one hand;
    * ``button``: the dealer seat of each hand; None (default) draws it from the
      episode's random generator, so every seat plays every position;
    * ``set_menu``: the number K of candidate settings offered for a classic set;
    * ``illegal_action``: ``"raise"`` (default) raises
      :class:`~chinese_poker.engine.IllegalActionError` for a masked action;
      ``"random"`` plays a random legal action instead and reports
      ``infos[agent]["illegal_action"]``.

    ``reset(seed=..., options=...)`` accepts the options ``button`` and
    ``fantasyland`` (``{seat: cards}``: seats that play this hand in Fantasyland).
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo's convention
        "render_modes": ["human", "ansi"],
        "name": "chinese_poker_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        preset: str = "pineapple",
        players: int = 2,
        render_mode: str | None = None,
        *,
        session: bool = False,
        button: int | None = None,
        set_menu: int = DEFAULT_SET_MENU,
        illegal_action: str = "raise",
        **options: Any,
    ) -> None:
        super().__init__()
        self.preset = resolve_preset(preset)
        self.rules: Rules = rules_for(self.preset, **options)
        n = int(players)
        if n not in self.rules.player_counts:
            counts = self.rules.player_counts
            raise ValueError(
                f"{self.rules.variant} is played by {counts.start} to {counts.stop - 1}"
                f" players, not {players!r}"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', not {render_mode!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be 'raise' or 'random', not {illegal_action!r}")
        if button is not None and not (isinstance(button, int) and 0 <= button < n):
            raise ValueError(f"button must be a seat 0..{n - 1} or None, not {button!r}")
        if not 1 <= set_menu <= 512:
            raise ValueError(f"set_menu must be 1..512, not {set_menu!r}")
        self.render_mode = render_mode
        self.n_seats = n
        self.session_mode = bool(session)
        self.button = button
        self.illegal_action = illegal_action
        self.actions = ActionLayout(set_menu)
        self.layout = ObsLayout(set_menu)
        self.possible_agents: list[str] = [f"player_{i}" for i in range(n)]
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (self.layout.size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (self.actions.size,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.actions.size) for a in self.possible_agents}
        self._open_face = self.rules.is_open_face
        self._opponents = set_opponents(self.rules, n)
        self._obs = OpenFaceObservations(self.rules, n, self.layout, self.session_mode)
        self._template = static_row(self.rules, n, self.layout, self.session_mode)
        self._zero_mask: I8 = np.zeros(self.actions.size, dtype=np.int8)
        self._decl_masks = self._declaration_masks()
        self._np_random: np.random.Generator | None = None
        self._np_random_seed: int | None = None
        self.table: Table | None = None
        self.session: Session | None = None
        self.hands_played = 0
        self._menus: dict[tuple[int, int], SetMenu] = {}
        self._acting = -1
        self._dec: Decision | None = None
        self._mask: I8 = self._zero_mask
        self._menu: SetMenu | None = None
        self.agents: list[str] = []
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection: str = self.possible_agents[0]

    # ------------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    @property
    def np_random(self) -> np.random.Generator:
        """The episode's random generator (the deal seeds, the button, random fixes)."""
        if self._np_random is None:
            self._np_random, self._np_random_seed = seeding.np_random()
        return self._np_random

    # ------------------------------------------------------------------ reset

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode: deal a hand (or start a session) from the seeded generator."""
        if seed is not None:
            self._np_random, self._np_random_seed = seeding.np_random(seed)
        rng = self.np_random
        opts = dict(options or {})
        button = opts.get("button", self.button)
        n = self.n_seats
        if button is None:
            button = int(rng.integers(n))
        elif not (isinstance(button, int | np.integer) and 0 <= int(button) < n):
            raise ValueError(f"button must be a seat 0..{n - 1}, not {button!r}")
        fantasyland = opts.get("fantasyland")
        table_seed = int(rng.integers(0, 2**63))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.hands_played = 0
        if self.session_mode:
            if fantasyland:
                raise ValueError("the fantasyland reset option is for single hands")
            self.session = Session(
                self.rules, self.possible_agents, seed=table_seed, button=int(button)
            )
            self._begin(self.session.start_hand())
        else:
            self.session = None
            fl = {int(k): int(v) for k, v in fantasyland.items()} if fantasyland else None
            self._begin(
                Table(
                    self.rules,
                    self.possible_agents,
                    button=int(button),
                    seed=table_seed,
                    fantasyland=fl,
                )
            )
        self._after_change()
        if self.render_mode == "human":
            self.render()

    def _begin(self, table: Table) -> None:
        """Start a hand: reset the observations, set the Fantasyland deals."""
        self.table = table
        self._menus = {}
        self._acting = -1
        self._dec = None
        if self._open_face:
            self._obs.begin_hand(
                table.button, table.play_order, table.fantasyland, self.hands_played
            )
            for seat in table.fantasyland:
                dec = table.decisions(seat)[0]
                sol = solve_fantasyland(dec.cards, self.rules)
                board = sol.board
                place = Place(
                    seat, board.top, board.middle, board.bottom, sol.discards, version=table.version
                )
                table.apply(place)
                self._obs.place(seat, place)

    # ------------------------------------------------------------------ observing

    def observe(self, agent: str) -> Observation:
        """The observation of ``agent``: its view's encoding and its action mask."""
        seat = self._seat_of[agent]
        mask = self._mask if seat == self._acting else self._zero_mask
        return {"observation": self._obs.rows[seat].copy(), "action_mask": mask.copy()}

    def decision(self, agent: str) -> Decision | None:
        """The decision ``agent`` must take now (None if it is not to act)."""
        return self._dec if self._seat_of[agent] == self._acting else None

    def menu(self, agent: str) -> SetMenu | None:
        """The set menu offered to ``agent`` now (classic sets only)."""
        return self._menu if self._seat_of[agent] == self._acting else None

    def reference_observation(self, agent: str) -> F32:
        """The observation rebuilt from scratch from the seat's view (slow; for tests)."""
        table = self._require_table()
        seat = self._seat_of[agent]
        row = np.zeros(self.layout.size, dtype=np.float32)
        decs = table.decisions(seat)
        dec = decs[0] if decs else None
        menu = self._menus.get((seat, dec.hand)) if dec and dec.kind == "set" else None
        encode_view(
            table.view(seat),
            row,
            self._template,
            decision=dec,
            menu=menu,
            hands_played=self.hands_played,
        )
        return row

    # ------------------------------------------------------------------ acting

    def step(self, action: Any) -> None:
        """Take the agent's action (an index into the action space, see docs/env.md)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act; None is only for terminated agents")
        code = int(action)
        self._cumulative_rewards[agent] = 0.0
        mask = self._mask
        if not 0 <= code < mask.shape[0] or not mask[code]:
            if self.illegal_action == "raise":
                raise IllegalActionError(self._illegal_message(agent, code))
            self.infos[agent] = {"illegal_action": code}
            legal = np.flatnonzero(mask)
            code = int(legal[self.np_random.integers(len(legal))])
        elif self.infos[agent]:
            self.infos[agent] = {}
        self._apply(self._action_for(code))

    def step_action(self, action: Action) -> None:
        """Apply an engine action (``Place``, ``Surrender``, ``ClaimNatural``) for the
        agent to act, bypassing the discrete encoding (hosts, bots, imitation).

        The engine checks it: any legal action of the acting seat is accepted, even a
        classic set that is not on the menu.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            raise ValueError(f"{agent} is done; step(None) it instead")
        seat = self._seat_of[agent]
        dec = self._dec
        if isinstance(action, Timeout):
            raise IllegalActionError("timeouts are for hosts; the environment never times out")
        if action.seat != seat or dec is None or action.hand != dec.hand:
            raise IllegalActionError(
                f"{agent} (seat {seat}) is to act on hand {dec.hand if dec else 0};"
                f" got an action of seat {action.seat} hand {action.hand}"
            )
        self._cumulative_rewards[agent] = 0.0
        if self.infos[agent]:
            self.infos[agent] = {}
        self._apply(action)

    def action_code(self, action: Action) -> int | None:
        """The action index of an engine action for the current decision (None when the
        action has no index: a set that is not on the menu, or not the current decision)."""
        dec = self._dec
        if isinstance(action, Timeout) or dec is None:
            return None
        if action.seat != dec.seat or action.hand != dec.hand:
            return None
        lay = self.actions
        if isinstance(action, Place):
            if dec.kind == "street":
                if self.table is None or self.table.check(action) is not None:
                    return None
                return street_code(dec, action)
            if dec.kind == "set" and self._menu is not None:
                key = (frozenset(action.top), frozenset(action.middle), frozenset(action.bottom))
                for k, b in enumerate(self._menu.boards):
                    if (frozenset(b.top), frozenset(b.middle), frozenset(b.bottom)) == key:
                        return lay.menu_start + k
            return None
        if isinstance(action, Surrender) and dec.kind == "surrender":
            return lay.surrender if action.surrender else lay.play
        if isinstance(action, ClaimNatural) and dec.kind == "natural":
            return lay.claim if action.claim else lay.decline
        return None

    def _action_for(self, code: int) -> Action:
        dec = self._dec
        assert dec is not None and self.table is not None
        version = self.table.version
        kind = dec.kind
        if kind == "street":
            return street_place(dec, code, version)
        lay = self.actions
        if kind == "set":
            assert self._menu is not None
            board = self._menu.boards[code - lay.menu_start]
            return Place(dec.seat, board.top, board.middle, board.bottom, (), dec.hand, version)
        if kind == "surrender":
            return Surrender(dec.seat, code == lay.surrender, dec.hand, version)
        return ClaimNatural(dec.seat, code == lay.claim, dec.hand, version)

    def _apply(self, action: Action) -> None:
        table = self._require_table()
        table.apply(action)
        if self._open_face:
            self._obs.hide(action.seat)
            assert isinstance(action, Place)
            self._obs.place(action.seat, action)
        for a in self.rewards:
            self.rewards[a] = 0.0
        self._after_change()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _after_change(self) -> None:
        """Find who acts next, or settle the hand (and start the next one in a session)."""
        table = self._require_table()
        if table.over:
            self._hand_over(table)
            return
        seat = table.to_act[0]
        dec = table.decisions(seat)[0]
        self._acting = seat
        self._dec = dec
        self.agent_selection = self.possible_agents[seat]
        if self._open_face:
            self._obs.street(table.street)
            if self._obs.shown[seat] is not dec:
                self._obs.show(seat, dec)
            self._menu = None
            self._mask = street_mask(len(dec.cards), dec.discard, dec.free, self.actions.size)
            return
        self._refresh_closed(table)
        self._menu = self._menus.get((seat, dec.hand)) if dec.kind == "set" else None
        self._mask = self._closed_mask(dec)

    def _hand_over(self, table: Table) -> None:
        totals = table.totals
        for agent in self.possible_agents:
            self.rewards[agent] = float(totals.get(agent, 0))
        self._acting = -1
        self._dec = None
        self._menu = None
        self._mask = self._zero_mask
        session = self.session
        if session is not None:
            session.finish_hand()
            if not session.over:
                self.hands_played += 1
                self._begin(session.start_hand())
                self._after_change()
                return
        if self._open_face:
            self._obs.showdown()
        else:
            self._refresh_closed(table)
        for agent in self.agents:
            self.terminations[agent] = True

    # ------------------------------------------------------------------ classic

    def _refresh_closed(self, table: Table) -> None:
        """Classic and Criss Cross: rebuild every seat's observation from its view."""
        rows = self._obs.rows
        for seat in range(self.n_seats):
            decs = table.decisions(seat)
            dec = decs[0] if decs else None
            menu = None
            if dec is not None and dec.kind == "set":
                key = (seat, dec.hand)
                menu = self._menus.get(key)
                if menu is None:
                    menu = build_set_menu(
                        dec.cards, self.rules, self._opponents, self.actions.set_menu
                    )
                    self._menus[key] = menu
            encode_view(
                table.view(seat),
                rows[seat],
                self._template,
                decision=dec,
                menu=menu,
                hands_played=self.hands_played,
            )

    def _closed_mask(self, dec: Decision) -> I8:
        if dec.kind == "set":
            menu = self._menus[(dec.seat, dec.hand)]
            mask = self._zero_mask.copy()
            start = self.actions.menu_start
            mask[start : start + len(menu)] = 1
            return mask
        return self._decl_masks[dec.kind]

    def _declaration_masks(self) -> dict[str, I8]:
        lay = self.actions
        out: dict[str, I8] = {}
        for kind, codes in (
            ("surrender", (lay.play, lay.surrender)),
            ("natural", (lay.claim, lay.decline)),
        ):
            mask = self._zero_mask.copy()
            mask[list(codes)] = 1
            mask.flags.writeable = False
            out[kind] = mask
        return out

    # ------------------------------------------------------------------ helpers

    def _require_table(self) -> Table:
        if self.table is None:
            raise RuntimeError("call reset() first")
        return self.table

    def _illegal_message(self, agent: str, code: int) -> str:
        legal = np.flatnonzero(self._mask)
        shown = ", ".join(str(int(c)) for c in legal[:12]) + (" ..." if len(legal) > 12 else "")
        what = self._dec.kind if self._dec is not None else "nothing"
        return f"action {code} is not legal for {agent} now ({what}); legal: {shown}"

    def render(self) -> str | None:
        """The table as a spectator sees it (``ansi`` returns it, ``human`` prints it)."""
        if self.render_mode is None:
            warnings.warn("render() called without a render_mode", stacklevel=2)
            return None
        text = self._text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _text(self) -> str:
        table = self.table
        if table is None:
            return "(no hand yet: call reset())"
        view = table.view(None)
        lines = [
            f"{self.preset}  phase {view.phase}  street {view.street}  button "
            f"player_{view.button}  to act: "
            + (", ".join(f"player_{s}" for s in view.to_act) or "nobody")
        ]
        for b in view.boards:
            name = f"player_{b.seat}" + (
                f"/{b.hand + 1}" if self.rules.spec.variant.criss_cross else ""
            )
            tag = " (Fantasyland)" if b.in_fantasyland else ""
            board = "(face down)" if b.hidden else str(b.board)
            lines.append(f"  {name}{tag}: {board}  [{b.placed}/13 placed]")
        if view.totals is not None:
            lines.append("  points: " + ", ".join(f"{k} {v:+d}" for k, v in view.totals.items()))
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release."""

    def __str__(self) -> str:
        return str(self.metadata["name"])


def aec_env(
    preset: str = "pineapple", players: int = 2, render_mode: str | None = None, **options: Any
) -> AECEnv:
    """The AEC environment wrapped in PettingZoo's order-enforcing wrapper.

    ``options`` are the environment options of :class:`raw_env` (``session``,
    ``button``, ``set_menu``, ``illegal_action``) and rule options for ``rules_for``.
    """
    from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

    return cast(
        AECEnv, wrappers.OrderEnforcingWrapper(raw_env(preset, players, render_mode, **options))
    )


#: PettingZoo's conventional name for the wrapped constructor.
env = aec_env
