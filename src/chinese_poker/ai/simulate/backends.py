"""Where a simulation's chunks of units run (see :mod:`chinese_poker.ai.simulate`): local
worker processes or Ray tasks, behind one small interface.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, Protocol

from chinese_poker.ai.simulate.job import Job
from chinese_poker.ai.simulate.play import UnitRun, run_units, worker_init

__all__ = ["RAY_INSTALL", "Backend", "ProcessBackend", "RayBackend"]

# How to get the optional Ray extra from a checkout (the package is not on PyPI).
RAY_INSTALL = 'pip install ".[ray]"'


class Backend(Protocol):
    slots: int
    nodes: dict[str, int]  # Ray node id -> chunks that ran there (empty for processes)

    def submit(self, start: int, stop: int) -> object: ...

    def wait(self, handles: Sequence[object]) -> list[tuple[object, list[UnitRun]]]: ...

    def close(self) -> None: ...


class ProcessBackend:
    """Local worker processes (``spawn``: safe with threads, the same on every OS)."""

    def __init__(self, job: Job, workers: int) -> None:
        self.job = job
        self.slots = workers
        self.nodes: dict[str, int] = {}
        self.pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=worker_init,
        )
        self.futures: list[Future[list[UnitRun]]] = []

    def submit(self, start: int, stop: int) -> object:
        future = self.pool.submit(run_units, self.job, start, stop)
        self.futures.append(future)
        return future

    def wait(self, handles: Sequence[object]) -> list[tuple[object, list[UnitRun]]]:
        futures = [h for h in self.futures if h in handles]
        done: set[Future[list[UnitRun]]] = set()
        while not done:  # in slices, so that Ctrl-C is noticed at once
            done, _ = wait(futures, timeout=0.2, return_when=FIRST_COMPLETED)
        out: list[tuple[object, list[UnitRun]]] = []
        for future in done:
            self.futures.remove(future)
            out.append((future, future.result()))
        return out

    def close(self) -> None:
        busy = [f for f in self.futures if not f.done()]
        for future in self.futures:
            future.cancel()
        if not busy:
            self.pool.shutdown(wait=True, cancel_futures=True)
            return
        # Unneeded (speculative) or interrupted work: stop the workers now. SIGTERM makes
        # each stop its external bots and exit; whatever is still alive after a grace
        # period is killed.
        processes = list((getattr(self.pool, "_processes", None) or {}).values())
        for process in processes:
            with contextlib.suppress(Exception):
                process.terminate()
        self.pool.shutdown(wait=False, cancel_futures=True)
        end = time.monotonic() + 10.0
        for process in processes:
            with contextlib.suppress(Exception):
                process.join(timeout=max(0.0, end - time.monotonic()))
                if process.is_alive():
                    process.kill()
                    process.join(timeout=5.0)


def _ray_chunk(job: Job, start: int, stop: int) -> tuple[str, list[UnitRun]]:
    """A Ray task: :func:`run_units`, and the id of the node that ran it."""
    import ray

    node: str = ray.get_runtime_context().get_node_id()
    return node, run_units(job, start, stop)


# The Ray connection this module opened (a local instance it started, or a cluster it
# joined), kept until the program ends so that Ray's start-up (seconds) is paid once per
# run, not once per simulate() call. None: Ray was not initialised here.
_ray_opened: dict[str, str | None] = {}


def _ray_connect(ray: Any, address: str | None) -> None:
    """Initialise Ray for ``address`` (None: a local instance), reusing a live connection."""
    import logging

    if ray.is_initialized():
        if not _ray_opened or _ray_opened.get("address") == address:
            return  # ours for the same place, or the caller's own ray.init(): use it
        ray.shutdown()  # ours, for another cluster
        _ray_opened.clear()
    options: dict[str, Any] = {
        "include_dashboard": False,
        "logging_level": logging.WARNING,
        "log_to_driver": True,
    }
    try:
        if address:
            ray.init(address=address, **options)
        else:
            # Every CPU of the machine: a later call may ask for more workers than this
            # one and still use the same instance (each call runs at most its workers).
            ray.init(num_cpus=os.cpu_count() or 1, **options)
    except Exception as exc:
        where = f"at {address}" if address else "locally"
        raise ValueError(f"cannot start or reach Ray {where}: {exc}") from None
    _ray_opened["address"] = address


class RayBackend:
    """Ray tasks, on a local Ray instance or the cluster at ``address``."""

    def __init__(self, job: Job, workers: int, address: str | None) -> None:
        try:
            import ray
        except ImportError:
            raise ValueError(
                f"--engine ray needs Ray, which is not installed: {RAY_INSTALL}"
                " in the chinese-poker checkout"
            ) from None
        self.ray = ray
        _ray_connect(ray, address)
        resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
        cpus = int(resources.get("CPU", workers))
        self.slots = max(1, cpus if address else min(workers, cpus))
        self.job_ref = ray.put(job)
        self.task = ray.remote(num_cpus=1, max_retries=0)(_ray_chunk)
        self.pending: list[Any] = []
        self.nodes: dict[str, int] = {}

    def submit(self, start: int, stop: int) -> object:
        ref = self.task.remote(self.job_ref, start, stop)
        self.pending.append(ref)
        return ref

    def wait(self, handles: Sequence[object]) -> list[tuple[object, list[UnitRun]]]:
        ready: list[Any] = []
        while not ready:  # in slices, so that Ctrl-C is noticed at once
            ready, _ = self.ray.wait(list(handles), num_returns=1, timeout=0.2)
        out: list[tuple[object, list[UnitRun]]] = []
        for ref in ready:
            self.pending.remove(ref)
            node, runs = self.ray.get(ref)
            self.nodes[node] = self.nodes.get(node, 0) + 1
            out.append((ref, runs))
        return out

    def close(self) -> None:
        # Unneeded (speculative) or interrupted chunks are cancelled; Ray itself stays up
        # for the next call (see _ray_opened) and stops when the program ends.
        for ref in self.pending:
            with contextlib.suppress(Exception):
                self.ray.cancel(ref, force=True)
        self.pending = []
