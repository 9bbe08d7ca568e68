"""Warming the kernels: after ``warm_kernels`` no decision of any bot, hint or solver in
any preset loads or compiles another kernel; the notice appears exactly when numba
compiles (a cold cache directory), not when it loads; bad part names are refused."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from chinese_poker.ai import fantasyland, setting, warm
from chinese_poker.ai.hints import hint
from chinese_poker.ai.mc import MonteCarloBot
from chinese_poker.ai.rollout import features, playout, policy, settlement
from chinese_poker.ai.simple import RuleBot
from chinese_poker.engine import Table
from chinese_poker.rules import preset_names, rules_for

# Slow (left out by `bash scripts/test --quick`): fresh processes that load or compile
# every kernel family (a cold cache compiles for minutes).
pytestmark = pytest.mark.slow

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _overloads() -> dict[str, int]:
    """Signatures each of our numba kernels holds (compiled or loaded) right now."""
    out: dict[str, int] = {}
    for module in (features, policy, settlement, playout, setting, fantasyland):
        for name, obj in vars(module).items():
            if hasattr(obj, "overloads") and hasattr(obj, "py_func"):
                out[f"{module.__name__}.{name}"] = len(obj.overloads)
    return out


def test_no_kernel_is_loaded_or_compiled_after_warming() -> None:
    warm.warm_kernels()
    before = _overloads()
    entry = ["rollout.playout.play_rollouts", "rollout.playout.static_values",
             "setting._ev_kernel", "fantasyland._search", "fantasyland._top_boards"]  # fmt: skip
    assert all(before[f"chinese_poker.ai.{k}"] >= 1 for k in entry), before
    for name in preset_names():
        rules = rules_for(name)
        low, _ = rules.spec.variant.player_counts
        deals: list[dict[int, int] | None] = [None]
        if rules.is_open_face and rules.fantasyland_enabled:
            deals.append({0: rules.spec.variant.fantasyland_sizes[0]})  # a hidden Fantasyland deal
        for fantasyland_seats in deals:
            table = Table(rules, low, seed=11, fantasyland=fantasyland_seats)
            bots = [MonteCarloBot(seed=i, level=1) for i in range(low)]
            while not table.over:
                seat = table.to_act[0]
                view = table.view(seat)
                if view.decisions[0].kind in ("street", "set"):
                    hint(view, level=1, seed=seat)
                    RuleBot(seed=1).act(view)
                table.apply(bots[seat].act(view))
    assert _overloads() == before


def test_warm_is_once_per_process_and_refuses_unknown_parts() -> None:
    warm.warm_kernels(("setting",))
    again = warm.warm_kernels(("setting",))
    assert again.parts == () and not again.compiled
    with pytest.raises(ValueError, match="unknown kernel family 'gpu'; families: setting"):
        warm.warm_kernels(("gpu",))


def test_background_warming_returns_at_once_and_finishes() -> None:
    said: list[str] = []
    thread = warm.warm_in_background(("fantasyland",), say=said.append)
    thread.join(timeout=120)
    assert not thread.is_alive()
    assert all(s == warm.NOTICE for s in said)


def test_background_failure_is_reported_not_raised() -> None:
    said: list[str] = []
    warm.warm_in_background(("no-such",), say=said.append).join(timeout=10)
    assert said == [
        "warming the bots' kernels failed (ValueError: unknown kernel family"
        " 'no-such'; families: setting, fantasyland, open-face)"
    ]


def test_notice_only_when_numba_really_compiles(tmp_path: Path) -> None:
    """A fresh cache directory: the first process compiles and says so on stderr once;
    the second loads from the cache and says nothing."""
    script = textwrap.dedent(
        """
        from chinese_poker.ai.warm import stderr_notice, warm_kernels
        r = warm_kernels(("setting",), say=stderr_notice)
        print(r.compiled)
        """
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": SRC}
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                           text=True, timeout=300, check=True) for _ in range(2)]  # fmt: skip
    assert runs[0].stdout.strip() == "True"
    assert runs[0].stderr.strip() == warm.NOTICE
    assert runs[1].stdout.strip() == "False"
    assert runs[1].stderr.strip() == ""
    assert any(tmp_path.rglob("*.nbi"))


def test_the_server_warms_its_hint_worker_then_a_bot_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Workers.warm (called 5 s after the server starts): the hint worker process warms
    every family in its initializer, and when it is up a bot thread of the server warms
    too (loading what the worker compiled)."""
    import threading

    from chinese_poker.server import scheduling

    done = threading.Event()
    monkeypatch.setattr(scheduling, "_warm_kernels", done.set)
    workers = scheduling.Workers(hint_processes=True)
    try:
        assert not workers.kernels_warm.is_set()  # what GET /api/metrics reports
        workers.warm()
        assert done.wait(timeout=240)
        assert workers.kernels_warm.wait(timeout=60)
    finally:
        workers.close()
