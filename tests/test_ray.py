"""``--engine ray``: a local Ray instance and a real two-node cluster give the local result.

The cluster is Ray's own ``ray.cluster_utils.Cluster``: a head node and a second node,
each a separate raylet with one CPU, on 127.0.0.1, with Ray's token authentication on
(``RAY_AUTH_MODE=token``, the token in ``RAY_AUTH_TOKEN``, never in the home directory).
The command line is run against it in a subprocess, as a researcher would.
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray", reason='Ray is not installed (pip install ".[ray]")')

from chinese_poker.ai.simulate import make_job, simulate  # noqa: E402

# Slow (left out by `bash scripts/test --quick`): a local Ray instance and a two-node Ray
# cluster.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "bots" / "random_bot.py"


# Ray turns 127.0.0.1 in an address into the machine's own IP, where a node bound to
# loopback does not listen; this (Ray's switch for single-machine clusters) keeps it.
LOOPBACK = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


@pytest.fixture(scope="module", autouse=True)
def ray_token() -> Iterator[str]:
    """Token authentication for every Ray process of this module (a fresh token)."""
    from ray._raylet import Config

    saved = {k: os.environ.get(k) for k in (*LOOPBACK, "RAY_AUTH_MODE", "RAY_AUTH_TOKEN")}
    token = secrets.token_hex(16)
    os.environ.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=token, **LOOPBACK)
    Config.initialize("")  # this process reads the mode again, as Ray itself does
    yield token
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    Config.initialize("")


@pytest.fixture(scope="module")
def local_ray(ray_token: str) -> Iterator[None]:
    """A small local Ray instance for this module (an existing one is reused)."""
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield
    if started:
        ray.shutdown()


@pytest.fixture(scope="module")
def cluster(ray_token: str) -> Iterator[Any]:
    """Two Ray nodes (one CPU each) on loopback; stopped at the end of the module."""
    from ray.cluster_utils import Cluster

    where = {"node_ip_address": "127.0.0.1", "num_cpus": 1}
    nodes = Cluster(initialize_head=True, head_node_args={**where, "include_dashboard": False})
    try:
        nodes.add_node(**where)
        nodes.wait_for_nodes()
        yield nodes
    finally:
        nodes.shutdown()


def _summary(job: Any, **kwargs: Any) -> dict[str, Any]:
    result: dict[str, Any] = simulate(job, **kwargs).to_dict(performance=False)
    return result


def _env(**changes: str | None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chinese_poker", *args],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip


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


CLUSTER_JOB = ["--rules", "pineapple", "--bots", "random,rules", "--hands", "60", "--seed", "5"]


def test_the_command_on_a_two_node_cluster(cluster: Any) -> None:
    node_ids = {node.node_id for node in cluster.list_all_nodes()}
    assert len(node_ids) == 2
    proc = _cli("simulate", *CLUSTER_JOB, "--engine", "ray", "--address", cluster.address,
                "--json", "--quiet", env=_env())  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    performance = summary.pop("performance")
    # Chunks ran on both nodes, and the result is the one of a local run.
    assert set(performance["nodes"]) == node_ids, performance
    assert sum(performance["nodes"].values()) >= 2
    assert performance["workers"] == 2  # the cluster's CPUs
    job = make_job("pineapple", "random,rules", hands=60, seed=5)
    assert summary == _summary(job)


def test_ray_starts_once_per_program(cluster: Any, tmp_path: Path) -> None:
    """Two simulate() calls in one program: one ray.init, the same results."""
    script = tmp_path / "twice.py"
    script.write_text(
        "import json, sys, ray\n"
        "from chinese_poker.ai.simulate import make_job, simulate\n"
        "calls = []\n"
        "init = ray.init\n"
        "ray.init = lambda *a, **k: calls.append(k.get('address')) or init(*a, **k)\n"
        "job = make_job('pineapple', 'random', hands=20, seed=3)\n"
        "runs = [simulate(job, engine='ray', address=sys.argv[1]) for _ in range(2)]\n"
        "print(json.dumps({'calls': calls, 'same': runs[0].to_dict(performance=False)\n"
        "                  == runs[1].to_dict(performance=False),\n"
        "                  'nodes': [len(r.nodes) for r in runs]}))\n",
        encoding="utf-8",
    )
    proc = subprocess.run([sys.executable, str(script), cluster.address], capture_output=True,
                          text=True, env=_env(), timeout=120, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["calls"] == [cluster.address] and out["same"] is True
    assert all(n >= 1 for n in out["nodes"])


def test_a_client_without_the_token_is_refused_in_one_line(cluster: Any, tmp_path: Path) -> None:
    # No token anywhere: not in the environment, and a home without ~/.ray/auth_token.
    env = _env(RAY_AUTH_TOKEN=None, RAY_AUTH_TOKEN_PATH=None, HOME=str(tmp_path))
    proc = _cli("simulate", *CLUSTER_JOB, "--engine", "ray", "--address", cluster.address,
                "--quiet", env=env)  # fmt: skip
    assert proc.returncode == 2
    errors = [line for line in proc.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and "authentication token" in errors[0]
    assert errors[0].startswith("chinese-poker simulate: error: cannot start or reach Ray at ")
    assert "Traceback" not in proc.stderr
