"""Helpers shared by the tests (not a test module)."""

from __future__ import annotations

import importlib.util
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from chinese_poker.ai import hints, mc, rollout
from chinese_poker.ai.rollout import api, features

Msg = dict[str, Any]


@dataclass
class FakeClock:
    """A clock that moves only when the test moves it (``clock.now += seconds``), or by
    ``tick`` each time it is read, to put in place of ``time.perf_counter``,
    ``time.monotonic`` or a loop's ``time``: what the code under test measures is then
    what the test says, however busy the machine."""

    now: float = 1000.0
    tick: float = 0.0

    def __call__(self) -> float:
        now = self.now
        self.now += self.tick
        return now


def fake_search_clock(monkeypatch: pytest.MonkeyPatch, tick: float = 0.0) -> FakeClock:
    """The clock the bots' and hints' searches (``mc``, ``rollout``, ``hints``) read their
    time budget from."""
    clock = FakeClock(tick=tick)
    for module in (mc, api, hints):
        monkeypatch.setattr(module, "time", SimpleNamespace(monotonic=clock))
    return clock


def wait_until(done: Callable[[], bool], what: str, seconds: float = 60.0) -> None:
    """Poll ``done`` until it is true; fail naming ``what`` after ``seconds`` (a generous
    bound on waiting for something that must happen, never a measure of speed)."""
    end = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < end, f"{what} never happened"
        time.sleep(0.01)


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


def bench_module(name: str) -> Any:
    """The benchmark script ``bench/<name>.py`` as a module, loaded once. The bench folder
    goes on the path, as when a script is run, since one bench imports another."""
    bench_dir = Path(__file__).resolve().parents[1] / "bench"
    if str(bench_dir) not in sys.path:
        sys.path.insert(0, str(bench_dir))
    module = sys.modules.get(name)
    if module is None:  # registered first: its dataclasses look their module up
        spec = importlib.util.spec_from_file_location(name, bench_dir / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return module


def table_values(t: rollout.Tables, code: Any, cnt: Any) -> list[float]:
    """The kernels' value of each board (line code sums ``code``, card counts ``cnt``, a
    row each) in the narrow table of ``t`` (a correction or a learned value without the
    live cards, which read no live counts)."""
    assert t.residual.shape[1] == rollout.RES_FEATURES
    no_live = np.zeros(rollout.LIVE_COUNTS, dtype=np.int64)
    out = []
    for c, k in zip(code, cnt, strict=True):
        lines = (*(int(x) for x in c), *(int(x) for x in k))
        out.append(features.learned_estimate(*lines, t.t5, t.fo, t.vf, no_live, t.codes))
    return out
