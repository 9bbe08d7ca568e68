"""Another commit's package beside this checkout, for the benchmarks that measure it
against the working tree in one run (``bench_scoring.py``, ``bench_server_load.py
--base``): its ``src`` taken out of git with ``git archive`` (the working tree and the
repository are left alone)."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class UnknownCommit(ValueError):
    """git does not know the commit (the message is git's own)."""


def full_sha(commit: str) -> str:
    """The commit's full hash; :class:`UnknownCommit` if git does not know it."""
    done = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise UnknownCommit(done.stderr.strip() or f"unknown commit {commit!r}")
    return done.stdout.strip()


def export_src(commit: str, into: Path) -> Path:
    """Write ``commit``'s ``src`` under the folder ``into``; return that ``src``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", full_sha(commit), "src"],
        capture_output=True,
        check=True,
    )
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into / "src"
