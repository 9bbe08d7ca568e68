"""The server's worker pools end cleanly (issue 39): stopped by a signal, ``serve`` leaves
no semaphore behind for the resource tracker to warn about, and a Ctrl-C that reaches
the workers (the terminal sends it to the whole process group) prints no traceback.

Each case runs in a process of its own that ends the way ``serve`` does after a SIGTERM:
uvicorn runs the application's shutdown (which closes the pools) and then re-raises the
signal, so no exit handler of the interpreter runs.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

# The hint worker and the study worker are started (they load the kernels first: busy)
# and stopped while they are busy, as a server stopped soon after it started.
STOP_BUSY = """
import signal, time
from chinese_poker.server.desk import StudyPool
from chinese_poker.server.scheduling import Workers

if __name__ == "__main__":
    workers = Workers(hint_processes=True)
    study = StudyPool()
    workers.warm()
    study._pool.submit(time.sleep, 0)
    time.sleep(2.0)
    workers.close()
    study.close()
    print("closed", flush=True)
    signal.raise_signal(signal.SIGTERM)
"""


def test_pools_stopped_by_a_signal_leak_no_semaphore() -> None:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(STOP_BUSY)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "closed" in done.stdout, done.stderr
    assert done.returncode == -15
    assert "leaked semaphore" not in done.stderr, done.stderr


# A started worker (its initializer calls leave_with first) and a Ctrl-C from the terminal.
CTRL_C_IN_A_WORKER = """
import os, signal, time
from chinese_poker.server.scheduling import leave_with

leave_with(os.getppid())
os.kill(os.getpid(), signal.SIGINT)
time.sleep(0.2)
print("still working", flush=True)
"""


def test_a_worker_leaves_ctrl_c_to_its_server() -> None:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CTRL_C_IN_A_WORKER)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "still working" in done.stdout
    assert "Traceback" not in done.stderr, done.stderr
