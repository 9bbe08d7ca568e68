"""Which server process plays a table: its owner record and the table's lease as stored.

A process takes a table's lease (:meth:`~.db.Store.acquire`), renews it every few
seconds and writes the table only while the lease carries its fencing number; a lease
that runs out, or whose process on this machine is gone, can be taken by another process
(docs/server.md "Processes").
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["HANDED_OVER", "LEASE_SECONDS", "Lease", "LeaseLost", "Owner", "handed_over"]

LEASE_SECONDS = 5.0
"""How long a table's lease lasts unless renewed (the server renews it well before)."""

HANDED_OVER = 0.0
"""The expiry a lease handed over at shutdown is given: long past, and never the expiry
of a lease that ran out (those are a renewal's time plus the lease time)."""


def _node() -> str:
    """This machine and pid namespace: two processes with the same node see each other's
    pids (a boot id and a namespace inode where Linux gives them, else the host name)."""
    parts = [socket.gethostname()]
    try:
        parts.append(Path("/proc/sys/kernel/random/boot_id").read_text().strip())
        parts.append(str(os.stat("/proc/self/ns/pid").st_ino))
    except OSError:
        pass
    return ":".join(parts)[:200]


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # somebody else's process (EPERM): alive
        return True
    return True


@dataclass(frozen=True, slots=True)
class Owner:
    """A server process as its leases name it: a random id (new at every start), its
    machine, its pid and the address its clients reach it at ("" if not known)."""

    id: str
    node: str
    pid: int
    address: str

    @classmethod
    def here(cls, address: str = "") -> Owner:
        return cls(secrets.token_hex(8), _node(), os.getpid(), address)


@dataclass(frozen=True, slots=True)
class Lease:
    """A table's lease as stored (``owner`` None: free), read at the database's ``now``."""

    table_id: str
    owner: str | None
    node: str | None
    pid: int | None
    address: str | None
    fence: int
    expires_at: float
    now: float
    previous: Lease | None = None
    """The lease as it was when this process took it just now (None: it was not taken
    from anybody just now), so a takeover is counted without reading the lease again."""

    def takeable(self, me: Owner) -> bool:
        """Free, run out, mine, or held by a process of this machine that is gone (a
        server restarted after a crash need not wait for its own old leases)."""
        return (
            self.owner is None
            or self.expires_at <= self.now
            or self.owner == me.id
            or (
                self.node == me.node
                and self.pid is not None
                and self.pid != me.pid
                and not _pid_alive(self.pid)
            )
        )


class LeaseLost(RuntimeError):
    """The database refused a write: this process no longer holds these tables' leases
    (another process took them over). Nothing of the transaction was stored."""

    def __init__(self, table_ids: Sequence[str]) -> None:
        self.table_ids = tuple(table_ids)
        super().__init__(f"this process no longer holds table(s) {', '.join(self.table_ids)}")


def handed_over(lease: Lease) -> bool:
    """The lease was handed over by a process that shut down (not run out)."""
    return lease.owner is not None and lease.expires_at == HANDED_OVER
