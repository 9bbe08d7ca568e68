"""The learning environments: PettingZoo and Gymnasium conformance, determinism,
information hiding, masks and encodings (docs/env.md)."""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

import gymnasium
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from chinese_poker.engine import IllegalActionError, Place, Table
from chinese_poker.engine.actions import iter_placements
from chinese_poker.env import GYM_ID, aec_env, gym_env, raw_env
from chinese_poker.env.encoding import (
    N_PLANES,
    ActionLayout,
    ObsLayout,
    street_code,
    street_mask,
    street_place,
)
from chinese_poker.rules import preset_names, rules_for

PRESETS = preset_names()
ALIASES = ["capsa-susun", "pusoy"]
# Every preset at its smallest and largest table.
TABLES = sorted(
    {
        (p, n)
        for p in PRESETS
        for n in (min(rules_for(p).player_counts), max(rules_for(p).player_counts))
    }
)


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _random_code(obs: dict[str, np.ndarray], rng: random.Random) -> int:
    legal = np.flatnonzero(obs["action_mask"])
    return int(legal[rng.randrange(len(legal))])


def _play(env: Any, rng: random.Random, check: Any = None) -> list[tuple[str, int]]:
    """Play one episode with random legal actions; call check(env) before every step."""
    trail = []
    for agent in env.agent_iter():
        obs, _reward, terminated, truncated, _info = env.last()
        if check is not None:
            check(env)
        if terminated or truncated:
            env.step(None)
            continue
        code = _random_code(obs, rng)
        trail.append((agent, code))
        env.step(code)
    return trail


# --------------------------------------------------------------------------- conformance


@pytest.mark.parametrize(("preset", "players"), TABLES)
def test_pettingzoo_api(preset: str, players: int) -> None:
    api_test(raw_env(preset, players), num_cycles=30)


@pytest.mark.parametrize("preset", PRESETS)
def test_pettingzoo_seed(preset: str) -> None:
    seed_test(lambda: raw_env(preset, 2), num_cycles=30)


@pytest.mark.parametrize("preset", ["pineapple", "ofc", "turbo", "pineapple-progressive"])
def test_pettingzoo_api_session(preset: str) -> None:
    api_test(aec_env(preset, 2, session=True), num_cycles=60)
    seed_test(lambda: raw_env(preset, 2, session=True), num_cycles=60)


def test_pettingzoo_api_wrapped_and_aliases() -> None:
    api_test(aec_env("pineapple", 3), num_cycles=30)
    for alias in ALIASES:
        env = raw_env(alias, 2)
        assert env.preset == "classic"
        api_test(env, num_cycles=10)


@pytest.mark.parametrize(
    ("preset", "opponents"), [("pineapple", "rules"), ("ofc", "random"), ("classic", "rules")]
)
def test_gymnasium_check_env(preset: str, opponents: str) -> None:
    check_env(gym_env(preset, 2, opponents=opponents), skip_render_check=True)


def test_gymnasium_registered_and_render() -> None:
    env = gymnasium.make(
        GYM_ID, preset="turbo", players=3, opponents=["random", "rules"], seat=1, render_mode="ansi"
    )
    obs, _ = env.reset(seed=5)
    assert obs["observation"].shape == (ObsLayout().size,)
    text = env.render()
    assert isinstance(text, str) and "player_1" in text
    env.close()


# --------------------------------------------------------------------------- determinism


@pytest.mark.parametrize("preset", ["pineapple", "ofc", "criss-cross", "classic"])
def test_same_seed_same_trajectory(preset: str) -> None:
    def episode(seed: int) -> tuple[list[Any], list[float]]:
        env = raw_env(preset, 2)
        env.reset(seed=seed)
        rng = random.Random(7)
        seen: list[Any] = []
        for agent in env.agent_iter():
            obs, reward, terminated, _, _ = env.last()
            seen.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward))
            if terminated:
                env.step(None)
            else:
                env.step(_random_code(obs, rng))
        assert env.table is not None
        return seen, [float(v) for v in env.table.totals.values()]

    a, b, c = episode(11), episode(11), episode(12)
    assert a == b
    assert a != c


def test_gym_same_seed_same_rewards() -> None:
    def rewards(seed: int) -> list[float]:
        env = gym_env("pineapple", 2, opponents="rules")
        obs, _ = env.reset(seed=seed)
        out, done = [], False
        while not done:
            obs, reward, done, _, _ = env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
            out.append(reward)
        return out

    assert rewards(3) == rewards(3)


def test_reset_without_seed_continues_the_stream() -> None:
    env = raw_env("ofc", 2)
    env.reset(seed=1)
    first = env.table.deck if env.table else None
    env.reset()
    second = env.table.deck if env.table else None
    env.reset(seed=1)
    assert env.table is not None and env.table.deck == first != second


# --------------------------------------------------------------------------- information


def _allowed_cards(table: Table, seat: int) -> set[int]:
    """The cards ``seat`` may know, from the engine's true state (RULES §6)."""
    hands = 2 if table.rules.variant == "criss_cross" else 1
    allowed: set[int] = set()
    for h in range(hands):
        allowed.update(table.dealt(seat, h))
    for other in range(table.n_seats):
        face_up = table.rules.is_open_face and other not in table.fantasyland
        if other == seat or not (face_up or table.over):
            continue
        for h in range(hands):
            allowed.update(table.board(other, h).cards)
    return allowed


def _check_information(env: Any) -> None:
    table = env.table
    for agent in env.agents:
        seat = env._seat_of[agent]
        row = env.observe(agent)["observation"]
        planes = row[: N_PLANES * 52].reshape(N_PLANES, 52)
        shown = set(np.flatnonzero(planes.any(axis=0)).tolist())
        allowed = _allowed_cards(table, seat)
        assert shown <= allowed, (agent, sorted(shown - allowed))
        # Explicitly: the others' unplaced cards and discards, hidden boards, the deck.
        hands = 2 if table.rules.variant == "criss_cross" else 1
        for other in range(table.n_seats):
            if other == seat:
                continue
            for h in range(hands):
                board = set(table.board(other, h).cards)
                secret = set(table.dealt(other, h)) - board
                assert not (shown & secret)
                assert not (shown & set(table.discards(other, h)))
                hidden = other in table.fantasyland or not table.rules.is_open_face
                if hidden and not table.over:
                    assert not (shown & board)
        dealt = {c for s in range(table.n_seats) for h in range(hands) for c in table.dealt(s, h)}
        assert not (shown & (set(range(52)) - dealt))
        # The incremental encoding equals the one rebuilt from the seat's view alone.
        assert np.array_equal(row, env.reference_observation(agent))


@pytest.mark.parametrize(("preset", "players"), TABLES)
def test_observation_holds_only_what_the_seat_may_see(preset: str, players: int) -> None:
    env = raw_env(preset, players)
    rng = random.Random(players)
    for seed in range(3):
        env.reset(seed=seed)
        _play(env, rng, _check_information)


@pytest.mark.parametrize(
    ("preset", "fl"),
    [
        ("pineapple", {1: 14}),
        ("pineapple-progressive", {0: 17, 2: 15}),
        ("ofc", {0: 13}),
        ("turbo", {1: 13, 2: 13}),
    ],
)
def test_fantasyland_boards_stay_hidden(preset: str, fl: dict[int, int]) -> None:
    env = raw_env(preset, 3)
    rng = random.Random(1)
    for seed in range(3):
        env.reset(seed=seed, options={"fantasyland": fl, "button": 0})
        table = env.table
        assert table is not None
        for seat in fl:  # set by the solver, before anyone acts
            assert len(table.board(seat).cards) == 13
            assert len(table.discards(seat)) == fl[seat] - 13
        acted = {a for a, _ in _play(env, rng, _check_information)}
        assert not acted & {f"player_{s}" for s in fl}
        assert sum(table.totals.values()) == 0


def test_session_carries_fantasyland_and_sums_rewards() -> None:
    from chinese_poker.ai import make_bot

    env = raw_env("pineapple", 2, session=True)
    bots = [make_bot("rules", seed=s) for s in range(2)]  # they chase Fantasyland
    fl_hands = 0
    for seed in range(60):
        env.reset(seed=seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            _, reward, terminated, _, _ = env.last()
            totals[agent] += reward
            _check_information(env)
            table = env.table
            assert table is not None
            if terminated:
                env.step(None)
                continue
            if table.fantasyland:
                fl_hands += 1
            seat = env._seat_of[agent]
            env.step_action(bots[seat].act(table.view(seat)))
        assert env.session is not None and env.session.over
        ledger = env.session.ledger.points
        assert totals == {a: float(ledger[a]) for a in env.possible_agents}
        if fl_hands:
            break
    assert fl_hands, "no Fantasyland hand in 60 sessions of the rules bot"


# --------------------------------------------------------------------------- actions


def test_action_and_observation_layouts() -> None:
    lay = ActionLayout()
    assert (lay.size, lay.menu_start, lay.play, lay.surrender, lay.claim, lay.decline) == (
        279,
        243,
        275,
        276,
        277,
        278,
    )
    assert ActionLayout(8).size == 255 and ObsLayout(8).size == 1133 + 72
    env = raw_env("classic", 4, set_menu=8)
    assert env.action_space("player_0").n == 255


@pytest.mark.parametrize(
    ("n", "discard", "free"),
    [
        (5, 0, (3, 5, 5)),
        (3, 1, (1, 2, 0)),
        (3, 1, (0, 0, 2)),
        (4, 0, (2, 0, 3)),
        (1, 0, (0, 1, 0)),
        (5, 0, (3, 5, 5)),
        (2, 0, (1, 1, 0)),
    ],
)
def test_street_codes_match_the_engine(n: int, discard: int, free: tuple[int, int, int]) -> None:
    from chinese_poker.engine import Decision

    cards = tuple(random.Random(n).sample(range(52), n))
    dec = Decision(0, "street", 0, cards, n - discard, discard, free, 2)
    mask = street_mask(n, discard, free, ActionLayout().size)
    legal = list(iter_placements(dec))
    codes = {street_code(dec, p) for p in legal}
    assert codes == set(np.flatnonzero(mask).tolist())
    assert len(codes) == len(legal)
    for code in codes:
        place = street_place(dec, code)
        assert place in legal and street_code(dec, place) == code


@pytest.mark.parametrize("preset", PRESETS)
def test_every_masked_action_is_legal(preset: str) -> None:
    env = raw_env(preset, 2)
    rng = random.Random(3)
    env.reset(seed=4)
    for agent in env.agent_iter():
        obs, _, terminated, _, _ = env.last()
        if terminated:
            env.step(None)
            continue
        dec = env.decision(agent)
        assert dec is not None and env.table is not None
        mask = obs["action_mask"]
        legal = np.flatnonzero(mask)
        assert len(legal) >= 1
        for code in legal[:: max(1, len(legal) // 20)]:
            assert env.table.check(env._action_for(int(code))) is None
        if dec.kind == "street":
            assert len(legal) == len(env.table.legal_actions(dec.seat))
        elif dec.kind == "set":
            menu = env.menu(agent)
            assert menu is not None and len(legal) == len(menu) >= 1
            assert legal[0] == env.actions.menu_start
        else:
            assert len(legal) == 2
        code = int(legal[rng.randrange(len(legal))])
        assert env.action_code(env._action_for(code)) == code
        env.step(code)


def test_classic_declarations_and_menu() -> None:
    env = raw_env("classic", 2, natural_claim="optional", button=0)
    kinds: set[str] = set()
    for seed in range(60):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, terminated, _, _ = env.last()
            if terminated:
                env.step(None)
                continue
            dec = env.decision(agent)
            assert dec is not None
            kinds.add(dec.kind)
            legal = np.flatnonzero(obs["action_mask"])
            if dec.kind == "surrender":
                assert legal.tolist() == [env.actions.play, env.actions.surrender]
            if dec.kind == "natural":
                assert legal.tolist() == [env.actions.claim, env.actions.decline]
            env.step(int(legal[0]))  # the solver's best set; play; claim
        if {"set", "surrender", "natural"} <= kinds:
            break
    assert {"set", "surrender", "natural"} <= kinds


def test_illegal_actions() -> None:
    env = raw_env("pineapple", 2)
    env.reset(seed=0)
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match="not legal"):
        env.step(illegal)
    with pytest.raises(IllegalActionError):
        env.step(10_000)
    lenient = raw_env("pineapple", 2, illegal_action="random")
    lenient.reset(seed=0)
    agent = lenient.agent_selection
    lenient.step(illegal)
    assert lenient.infos[agent] == {"illegal_action": illegal}
    assert lenient.table is not None and lenient.table.version == 1
    with pytest.raises(ValueError):
        raw_env("pineapple", 4)
    with pytest.raises(ValueError):
        raw_env("nonsense", 2)


def test_step_action_accepts_any_legal_engine_action() -> None:
    env = raw_env("classic", 2)
    env.reset(seed=2)
    seat = env._seat_of[env.agent_selection]
    dec = env.decision(env.agent_selection)
    assert dec is not None
    c = dec.cards
    place = Place(seat, c[:3], c[3:8], c[8:], (), dec.hand)  # probably not on the menu
    env.step_action(place)
    assert env.table is not None and env.table.board(seat).cards == c[:3] + c[3:8] + c[8:]


def test_gym_rewards_are_the_hand_points() -> None:
    env = gym_env("ofc", 3, opponents=["random", "rules"], seat=2)
    rng = random.Random(0)
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            obs, reward, done, truncated, _ = env.step(_random_code(obs, rng))
            assert not truncated
            total += reward
        table = env.aec.table
        assert table is not None and total == table.totals["player_2"]
        assert env.action_masks().sum() == 0


@pytest.mark.slow
def test_training_example_runs(tmp_path: Any) -> None:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "examples" / "train_pineapple.py"
    spec = importlib.util.spec_from_file_location("train_pineapple", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    plot, out = tmp_path / "curve.png", tmp_path / "figures.json"
    args = ["--hands", "300", "--eval-hands", "20", "--curve-hands", "20", "--checkpoints", "2"]
    assert module.main([*args, "--plot", str(plot), "--json", str(out)]) == 0
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    module.write_png_curve(tmp_path / "bare.png", [(0, 0.0), (300, 2.0)], [(100, 1.0)])
    assert (tmp_path / "bare.png").read_bytes()[:4] == b"\x89PNG"
