"""``--engine ray``: the same job on a local Ray instance gives the local result."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip(
    "ray", reason='Ray is not installed (pip install ".[ray]")'
)

from chinese_poker.ai.simulate import make_job, simulate  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "bots" / "random_bot.py"


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A small local Ray instance for this module (an existing one is reused)."""
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield
    if started:
        ray.shutdown()


def _summary(job: Any, **kwargs: Any) -> dict[str, Any]:
    result: dict[str, Any] = simulate(job, **kwargs).to_dict(performance=False)
    return result


@pytest.mark.usefixtures("local_ray")
def test_ray_matches_local_processes() -> None:
    job = make_job("pineapple", "random,rules", hands=30, seed=21)
    local = _summary(job)
    assert _summary(job, engine="ray", workers=2) == local
    assert _summary(job, workers=2) == local


@pytest.mark.usefixtures("local_ray")
def test_ray_duplicate_with_an_external_bot() -> None:
    bot = "cmd:" + shlex.join([sys.executable, str(EXAMPLE)])
    job = make_job("ofc", f"{bot},random,rules", hands=12, seed=8, duplicate=True)
    local = _summary(job)
    assert _summary(job, engine="ray", workers=2) == local
    assert local["bot_results"][0]["errors"] == 0
