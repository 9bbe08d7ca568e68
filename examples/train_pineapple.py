"""Train an agent for heads-up Pineapple in plain numpy, from the environment's rewards.

The agent is an *afterstate value* learner: for every legal action of its observation's
mask it decodes the street code (docs/env.md), builds the board the action would leave
(its own lines from the observation's card planes plus the dealt cards sent to their
lines), describes that board by a few dozen numbers (cards per line, pairs, trips,
flush and straight draws, live outs among the unseen cards, how the lines compare),
and scores it with a small neural network (one hidden layer of 64 tanh units). It plays
the best-scored action (epsilon-greedy while training) and learns by regression of the
hand's final points onto the chosen afterstates (Monte Carlo targets, Adam, a replay
buffer of recent hands). Nothing about good play is built in: the network starts with a
zero output layer, so before training every action scores the same and the agent plays
uniformly at random among the legal actions.

It trains in ``chinese_poker.env.gym_env("pineapple", opponents=...)`` against the
``random`` bot and the rule-based bot, and reports its points per hand against both,
before and after training, with 95% intervals over the same deals (common random
numbers). The learning curve (points per hand against the random bot at checkpoints,
and the running mean of the training rewards) goes to ``docs/learning-curve.png``::

    .venv/bin/python examples/train_pineapple.py                 # a few minutes on one core
    .venv/bin/python examples/train_pineapple.py --hands 2000 --eval-hands 300   # a smoke run

Plots use matplotlib when it is installed and a tiny built-in PNG writer otherwise.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import struct
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from chinese_poker.env import gym_env
from chinese_poker.env.encoding import (
    N_STREET_CODES,
    OFF_DECISION,
    OFF_STREET,
    PLANE_BOARD,
    PLANE_DEALT,
    street_lines,
)

F = np.float64
CAP = np.array([3.0, 5.0, 5.0])
# Ten straight windows: A-5 (the wheel) up to T-A, as rank indices 0 (deuce) .. 12 (ace).
WINDOWS = np.zeros((13, 10))
WINDOWS[[12, 0, 1, 2, 3], 0] = 1.0
for _w in range(1, 10):
    WINDOWS[_w - 1 : _w + 4, _w] = 1.0
RANK1 = np.arange(1, 14, dtype=F)


# --------------------------------------------------------------------------- features


class Featurizer:
    """Legal actions -> afterstate features, read from the observation only."""

    def __init__(self) -> None:
        self._assign: dict[tuple[int, int], np.ndarray] = {}

    def assign(self, n: int, discard: int) -> np.ndarray:
        """(codes, n, 3) one-hot line of each dealt card for every street code."""
        key = (n, discard)
        if key not in self._assign:
            count = (n if discard else 1) * 3 ** (n - discard)
            a = np.zeros((count, n, 3))
            for code in range(count):
                for pos, line in enumerate(street_lines(n, discard, code)):
                    if line < 3:
                        a[code, pos, line] = 1.0
            self._assign[key] = a
        return self._assign[key]

    def __call__(self, obs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        vec = obs["observation"]
        codes = np.flatnonzero(obs["action_mask"][:N_STREET_CODES])
        planes = vec[: 20 * 52].reshape(20, 52).astype(F)
        own = planes[PLANE_BOARD : PLANE_BOARD + 3].reshape(3, 13, 4)
        dealt = planes[PLANE_DEALT : PLANE_DEALT + 5]
        n = int(dealt.any(axis=1).sum())
        cards = dealt[:n].argmax(axis=1)
        discard = round(float(vec[OFF_DECISION + 7]) * 4)
        seen = np.asarray(planes.any(axis=0), dtype=bool)
        seen[cards] = True
        live = (~seen).astype(F).reshape(13, 4)
        live_r, live_s = live.sum(axis=1), live.sum(axis=0)

        a = self.assign(n, discard)[codes]  # (C, n, 3)
        rank_oh = np.zeros((n, 13))
        rank_oh[np.arange(n), cards // 4] = 1.0
        suit_oh = np.zeros((n, 4))
        suit_oh[np.arange(n), cards % 4] = 1.0
        r = own.sum(axis=2)[None] + np.einsum("cpl,pr->clr", a, rank_oh)  # (C, 3, 13)
        s = own.sum(axis=1)[None] + np.einsum("cpl,ps->cls", a, suit_oh)  # (C, 3, 4)
        street = int(np.argmax(vec[OFF_STREET : OFF_STREET + 9]))
        return codes, board_features(r, s, live_r, live_s, street)


def board_features(
    r: np.ndarray, s: np.ndarray, live_r: np.ndarray, live_s: np.ndarray, street: int
) -> np.ndarray:
    """Features of partial boards: ``r`` (C, 3, 13) rank counts, ``s`` (C, 3, 4) suits."""
    n = r.sum(axis=2)  # (C, 3)
    room = CAP - n
    pairs = (r == 2).sum(axis=2)
    trips = (r == 3).sum(axis=2)
    quads = (r == 4).sum(axis=2)
    grouped = (r >= 2) * RANK1
    group_rank = grouped.max(axis=2)
    high = ((r >= 1) * RANK1).max(axis=2)
    smax = s.max(axis=2)
    window = ((r > 0) @ WINDOWS).max(axis=2)
    unpaired = (pairs + trips + quads) == 0
    flush_draw = (smax == n) & (n > 0)
    straight_draw = unpaired & (window == n) & (n > 0)
    made_flush = smax == 5
    made_straight = unpaired & (window == 5)
    cat = np.select(
        [made_flush & made_straight, quads > 0, (trips > 0) & (pairs > 0), made_flush,
         made_straight, trips > 0, pairs >= 2, pairs == 1],
        [8, 7, 6, 5, 4, 3, 2, 1], 0,
    )  # fmt: skip
    key = cat * 14.0 + np.where(cat > 0, group_rank, high)
    outs_pair = ((r > 0) * live_r).sum(axis=2) / 12.0 * (room > 0)
    outs_flush = live_s[s.argmax(axis=2)] / 13.0 * flush_draw
    lines = [
        n / CAP, room == 0, pairs / 2.0, trips, quads, group_rank / 13.0, high / 13.0,
        cat / 8.0, flush_draw * n / 5.0, straight_draw * n / 5.0, outs_pair, outs_flush,
        (cat >= 1) & (room == 0),
    ]  # fmt: skip
    per_line = np.concatenate([np.asarray(x, dtype=F) for x in lines], axis=1)  # (C, 39)
    d_tm = key[:, 0] - key[:, 1]
    d_mb = key[:, 1] - key[:, 2]
    full = (room == 0).all(axis=1)
    cross = np.stack(
        [np.maximum(d_tm, 0) / 30, np.maximum(d_mb, 0) / 30, d_tm > 0, d_mb > 0,
         (d_tm > 0) & full, (d_mb > 0) & full, n.sum(axis=1) / 13.0,
         np.full(len(n), street / 4.0), np.ones(len(n))],
        axis=1,
    ).astype(F)  # fmt: skip
    return np.concatenate([per_line, cross], axis=1)


N_FEATURES = 3 * 13 + 9


# --------------------------------------------------------------------------- the network


class ValueNet:
    """One hidden layer of tanh units, a linear output, trained by Adam on squared error."""

    def __init__(self, inputs: int, hidden: int, rng: np.random.Generator) -> None:
        self.params = {
            "w1": rng.normal(0.0, 1.0 / math.sqrt(inputs), (inputs, hidden)),
            "b1": np.zeros(hidden),
            "w2": np.zeros(hidden),  # zero output layer: every afterstate starts equal
            "b2": np.zeros(1),
        }
        self._m = {k: np.zeros_like(v) for k, v in self.params.items()}
        self._v = {k: np.zeros_like(v) for k, v in self.params.items()}
        self._t = 0

    def __call__(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        out: np.ndarray = np.tanh(x @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"][0]
        return out

    def train(self, x: np.ndarray, y: np.ndarray, lr: float) -> float:
        p = self.params
        h = np.tanh(x @ p["w1"] + p["b1"])
        err = h @ p["w2"] + p["b2"][0] - y
        g_out = 2.0 * err / len(y)
        grads = {"w2": h.T @ g_out, "b2": np.array([g_out.sum()])}
        g_h = np.outer(g_out, p["w2"]) * (1.0 - h * h)
        grads["w1"] = x.T @ g_h
        grads["b1"] = g_h.sum(axis=0)
        self._t += 1
        b1, b2 = 0.9, 0.999
        for k, g in grads.items():
            self._m[k] = b1 * self._m[k] + (1 - b1) * g
            self._v[k] = b2 * self._v[k] + (1 - b2) * g * g
            m_hat = self._m[k] / (1 - b1**self._t)
            v_hat = self._v[k] / (1 - b2**self._t)
            p[k] -= lr * m_hat / (np.sqrt(v_hat) + 1e-8)
        return float(np.mean(err * err))


class Agent:
    """Picks the action whose afterstate the network values most (ties at random)."""

    def __init__(self, net: ValueNet, rng: np.random.Generator) -> None:
        self.net = net
        self.features = Featurizer()
        self.rng = rng

    def act(self, obs: dict[str, np.ndarray], epsilon: float = 0.0) -> tuple[int, np.ndarray]:
        codes, feats = self.features(obs)
        if epsilon and self.rng.random() < epsilon:
            i = int(self.rng.integers(len(codes)))
        else:
            values = self.net(feats)
            best = np.flatnonzero(values >= values.max() - 1e-9)
            i = int(best[self.rng.integers(len(best))])
        return int(codes[i]), feats[i]


# --------------------------------------------------------------------------- evaluation


def play_hand(env: Any, agent: Agent, seed: int, epsilon: float = 0.0) -> tuple[float, list[Any]]:
    obs, _ = env.reset(seed=seed)
    total, chosen, done = 0.0, [], False
    while not done:
        code, feats = agent.act(obs, epsilon)
        chosen.append(feats)
        obs, reward, done, _, _ = env.step(code)
        total += reward
    return total, chosen


def evaluate(envs: dict[str, Any], agent: Agent, hands: int, base_seed: int) -> dict[str, Any]:
    """Points per hand (mean, 95% interval) against each opponent, over fixed deals."""
    out = {}
    for name, env in envs.items():
        points = np.array([play_hand(env, agent, base_seed + i)[0] for i in range(hands)])
        half = 1.96 * points.std(ddof=1) / math.sqrt(hands)
        out[name] = {"mean": float(points.mean()), "ci95": float(half), "n": hands}
    return out


def fmt(result: dict[str, Any]) -> str:
    return f"{result['mean']:+.2f} ± {result['ci95']:.2f}"


# --------------------------------------------------------------------------- plotting


def plot(curve: list[dict[str, Any]], running: list[tuple[int, float]], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        write_png_curve(path, [(c["hands"], c["mean"]) for c in curve], running)
        return
    fig, ax = plt.subplots(figsize=(7.5, 4.2), dpi=110)
    if running:
        xs, ys = zip(*running, strict=True)
        ax.plot(xs, ys, color="0.65", lw=1, label="training reward (ε-greedy, running mean)")
    ax.errorbar([c["hands"] for c in curve], [c["mean"] for c in curve],
                yerr=[c["ci95"] for c in curve], fmt="o-", color="tab:blue", capsize=3,
                label="greedy agent vs random bot (95% interval)")  # fmt: skip
    ax.axhline(0.0, color="k", lw=0.6)
    ax.set_xscale("symlog", linthresh=100)
    ax.set_xlim(0, max(c["hands"] for c in curve) * 1.05)
    ax.set_xlabel("training hands (linear to 100, then logarithmic)")
    ax.set_ylabel("points per hand")
    ax.set_title("Heads-up Pineapple: afterstate-value agent (numpy MLP)")
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def write_png_curve(
    path: Path, points: Sequence[tuple[float, float]], running: Sequence[tuple[float, float]]
) -> None:
    """A bare PNG (no text): the zero line, the running mean (grey), checkpoints (blue)."""
    w, h, pad = 640, 360, 20
    img = np.full((h, w, 3), 255, dtype=np.uint8)
    series = [list(points), list(running)]
    xs = [x for s in series for x, _ in s] or [0.0, 1.0]
    ys = [y for s in series for _, y in s] + [0.0]
    x0, x1, y0, y1 = min(xs), max(xs) or 1.0, min(ys), max(ys)
    y1 = y1 if y1 > y0 else y0 + 1.0

    def px(x: float, y: float) -> tuple[int, int]:
        return (int(pad + (x - x0) / max(x1 - x0, 1e-9) * (w - 2 * pad)),
                int(h - pad - (y - y0) / (y1 - y0) * (h - 2 * pad)))  # fmt: skip

    def line(a: tuple[int, int], b: tuple[int, int], color: tuple[int, int, int]) -> None:
        steps = max(abs(b[0] - a[0]), abs(b[1] - a[1]), 1)
        for t in range(steps + 1):
            x = a[0] + (b[0] - a[0]) * t // steps
            y = a[1] + (b[1] - a[1]) * t // steps
            img[max(0, y - 1) : y + 1, max(0, x - 1) : x + 1] = color

    line(px(x0, 0.0), px(x1, 0.0), (0, 0, 0))
    for pts, color in ((running, (170, 170, 170)), (points, (31, 119, 180))):
        for a, b in itertools.pairwise(pts):
            line(px(*a), px(*b), color)
    raw = b"".join(b"\x00" + img[y].tobytes() for y in range(h))

    def chunk(tag: bytes, data: bytes) -> bytes:
        body = tag + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9))
    path.write_bytes(png + chunk(b"IEND", b""))


# --------------------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--hands", type=int, default=25000, help="training hands")
    parser.add_argument("--minutes", type=float, default=None, help="stop training after this")
    parser.add_argument("--eval-hands", type=int, default=2000, help="hands per final evaluation")
    parser.add_argument("--curve-hands", type=int, default=400, help="hands per checkpoint")
    parser.add_argument("--checkpoints", type=int, default=12)
    parser.add_argument("--rules-share", type=float, default=0.25,
                        help="share of training hands against the rule-based bot")  # fmt: skip
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--plot", default="docs/learning-curve.png")
    parser.add_argument("--json", default=None, help="write the figures to this file")
    args = parser.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    net = ValueNet(N_FEATURES, 64, rng)
    agent = Agent(net, rng)
    envs = {name: gym_env("pineapple", 2, opponents=name, seat=0) for name in ("random", "rules")}
    log: Callable[[str], None] = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731

    t0 = time.perf_counter()
    log(f"evaluating the untrained agent over {args.eval_hands} hands per opponent ...")
    before = evaluate(envs, agent, args.eval_hands, base_seed=2_000_000)
    log(f"  before: vs random {fmt(before['random'])}, vs rules {fmt(before['rules'])}")

    buffer_x = np.zeros((60000, N_FEATURES))
    buffer_y = np.zeros(60000)
    size = pos = 0
    curve: list[dict[str, Any]] = []
    running: list[tuple[int, float]] = []
    recent: list[float] = []
    # Checkpoints spaced geometrically: the agent learns most in its first few hundred hands.
    marks = {int(x) for x in np.geomspace(100, args.hands, args.checkpoints)} | {args.hands}
    start = time.perf_counter()
    first = evaluate({"random": envs["random"]}, agent, args.curve_hands, 3_000_000)["random"]
    curve.append({"hands": 0, **first})
    trained = 0
    for hand in range(1, args.hands + 1):
        frac = hand / args.hands
        epsilon = 0.25 * (1 - frac) + 0.02 * frac
        opponent = "rules" if rng.random() < args.rules_share else "random"
        reward, chosen = play_hand(envs[opponent], agent, seed=10_000_000 + hand, epsilon=epsilon)
        for feats in chosen:
            buffer_x[pos], buffer_y[pos] = feats, reward / 10.0
            pos = (pos + 1) % len(buffer_y)
            size = min(size + 1, len(buffer_y))
        if opponent == "random":
            recent.append(reward)
        if hand % 8 == 0 and size >= 512:
            lr = 3e-3 * (1 - frac) + 3e-4 * frac
            for _ in range(2):
                idx = rng.integers(size, size=256)
                net.train(buffer_x[idx], buffer_y[idx], lr)
        if (hand % 250 == 0 or hand in marks) and recent:
            running.append((hand, float(np.mean(recent[-1000:]))))
        trained = hand
        out_of_time = args.minutes is not None and time.perf_counter() - start > 60 * args.minutes
        if hand in marks or out_of_time:
            point = evaluate({"random": envs["random"]}, agent, args.curve_hands, 3_000_000)
            curve.append({"hands": hand, **point["random"]})
            log(f"  {hand:6d} hands, {time.perf_counter() - start:6.0f} s: greedy vs random"
                f" {fmt(point['random'])} (epsilon {epsilon:.2f})")  # fmt: skip
        if out_of_time:
            break
    train_seconds = time.perf_counter() - start

    log(f"evaluating the trained agent over {args.eval_hands} hands per opponent ...")
    after = evaluate(envs, agent, args.eval_hands, base_seed=2_000_000)
    figures = {
        "training_hands": trained,
        "training_seconds": round(train_seconds, 1),
        "total_seconds": round(time.perf_counter() - t0, 1),
        "before": before,
        "after": after,
        "curve": curve,
        "running_training_reward_vs_random": running,
    }
    print("| opponent | before training | after training |")
    print("|---|---|---|")
    for name in ("random", "rules"):
        print(f"| {name} bot | {fmt(before[name])} | {fmt(after[name])} |")
    print(f"points per hand for the agent, 95% intervals, {args.eval_hands} hands per cell"
          f" (the same deals before and after); {trained} training hands in"
          f" {train_seconds:.0f} s")  # fmt: skip
    path = Path(args.plot)
    path.parent.mkdir(parents=True, exist_ok=True)
    plot(curve, running, path)
    print(f"learning curve: {path}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
