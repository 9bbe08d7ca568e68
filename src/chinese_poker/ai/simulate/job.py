"""What a simulation plays (see :mod:`chinese_poker.ai.simulate`): a :class:`Job`, checked
and built by :func:`make_job`, its bots' specs and the seeds derived from its master seed.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from chinese_poker.ai.protocol import command_problem
from chinese_poker.rules import Rules, rules_for

__all__ = [
    "EXTERNAL_PREFIX",
    "Job",
    "check_bot",
    "derive_seed",
    "is_external",
    "make_job",
    "split_bots",
]

EXTERNAL_PREFIX = "cmd:"


# =========================================================================== jobs


def derive_seed(master: int, *parts: object) -> int:
    """A 63-bit seed from the master seed and a path of parts (BLAKE2b).

    >>> derive_seed(1, "session", 0) == derive_seed(1, "session", 0) != derive_seed(1, "session", 1)
    True
    """
    text = "/".join(["chinese-poker", "simulate", str(master), *(str(p) for p in parts)])
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def _registered() -> Mapping[str, object]:
    from chinese_poker import ai

    return ai.BOTS


def is_external(spec: str) -> bool:
    """True for ``cmd:COMMAND`` bot specs."""
    return spec.startswith(EXTERNAL_PREFIX)


def split_bots(text: str) -> list[str]:
    """Split a ``--bots`` list on commas (a ``cmd:`` command may itself hold commas).

    A part joins the ``cmd:`` spec before it unless it is a registered bot name or starts
    a new ``cmd:``.

    >>> split_bots("random, rules")
    ['random', 'rules']
    >>> split_bots("cmd:python3 bot.py --x 1,2,rules")
    ['cmd:python3 bot.py --x 1,2', 'rules']
    """
    names = {name.lower() for name in _registered()}
    out: list[str] = []
    for raw in text.split(","):
        part = raw.strip()
        if out and is_external(out[-1]) and not is_external(part) and part.lower() not in names:
            out[-1] += "," + raw
            continue
        out.append(part)
    return out


def check_bot(spec: str) -> str:
    """The normalised bot spec, or ``ValueError`` saying what is wrong with it."""
    spec = spec.strip()
    if is_external(spec):
        command = spec[len(EXTERNAL_PREFIX) :].strip()
        problem = command_problem(command)
        if problem is not None:
            raise ValueError(f"cannot start bot {spec!r}: {problem}")
        return EXTERNAL_PREFIX + command
    key = spec.lower()
    bots = _registered()
    if key not in bots:
        known = ", ".join(sorted(bots))
        raise ValueError(f"unknown bot {spec!r}; bots: {known}, or cmd:COMMAND")
    return key


@dataclass(frozen=True)
class Job:
    """What to simulate (see the module docstring); build it with :func:`make_job`.

    ``bots`` holds one spec per seat (the bot instances, numbered from 0). ``deadline``
    is the seconds an external bot has per decision (None: ``rules.time_limit`` or 10 s).
    ``history`` makes workers return the hand-history records.
    """

    rules: Rules
    bots: tuple[str, ...]
    hands: int
    seed: int
    duplicate: bool = False
    deadline: float | None = None
    history: bool = False

    @property
    def players(self) -> int:
        return len(self.bots)

    @property
    def names(self) -> tuple[str, ...]:
        """The player name of each bot instance: ``random#1``, ``rules#2``, ``cmd#3``."""
        return tuple(
            f"{'cmd' if is_external(spec) else spec}#{i + 1}" for i, spec in enumerate(self.bots)
        )

    @property
    def labels(self) -> tuple[str, ...]:
        """The distinct bot specs, in seat order (the per-bot lines of the summary)."""
        return tuple(dict.fromkeys(self.bots))

    def instances(self, rotation: int) -> tuple[int, ...]:
        """The bot instance at each seat in a rotation (instance j sits at seat j + r)."""
        n = self.players
        return tuple((seat - rotation) % n for seat in range(n))

    @property
    def rotations(self) -> int:
        return self.players if self.duplicate else 1


def _seat_bots(rules: Rules, bots: str | Sequence[str], players: int | None) -> list[str]:
    """The bot spec of every seat, checked, for :func:`make_job`."""
    specs = split_bots(bots) if isinstance(bots, str) else [str(b) for b in bots]
    if not specs or any(not s.strip() for s in specs):
        raise ValueError(f"bad bot list {bots!r}: a bot name is empty")
    specs = [check_bot(s) for s in specs]
    if players is None:
        players = len(specs) if len(specs) > 1 else 2
    if isinstance(players, bool) or not isinstance(players, int):
        raise ValueError(f"the player count must be an integer, not {players!r}")
    counts = rules.player_counts
    if players not in counts:
        raise ValueError(
            f"{rules.variant} is played by {counts.start} to {counts.stop - 1} players,"
            f" not {players}"
        )
    if len(specs) == 1:
        return specs * players
    if len(specs) != players:
        raise ValueError(
            f"{len(specs)} bots for {players} players: give one bot for every seat, or one for all"
        )
    return specs


def make_job(
    rules: Rules | str,
    bots: str | Sequence[str],
    *,
    players: int | None = None,
    hands: int = 1000,
    seed: int | None = None,
    duplicate: bool = False,
    deadline: float | None = None,
) -> Job:
    """Check the arguments and build a :class:`Job`; problems raise ``ValueError``.

    ``rules`` is a :class:`Rules` or a preset name; ``bots`` one spec for every seat or
    one per seat (a list or a comma-separated string). ``players`` defaults to the number
    of bots listed, or 2 for a single bot. Without ``seed`` one is drawn at random (it is
    in the summary, so the run can be repeated).

    >>> make_job("ofc", "rules", players=3, hands=10, seed=2).bots
    ('rules', 'rules', 'rules')
    >>> make_job("ofc", "random,rules", players=3)
    Traceback (most recent call last):
    ...
    ValueError: 2 bots for 3 players: give one bot for every seat, or one for all
    """
    the_rules = rules_for(rules) if isinstance(rules, str) else rules
    if not isinstance(the_rules, Rules):
        raise ValueError(f"rules must be a Rules or a preset name, not {rules!r}")
    specs = _seat_bots(the_rules, bots, players)
    if isinstance(hands, bool) or not isinstance(hands, int) or hands < 1:
        raise ValueError(f"the number of hands must be an integer >= 1, not {hands!r}")
    if seed is None:
        seed = secrets.randbits(63)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"the seed must be an integer >= 0, not {seed!r}")
    if deadline is not None and not (isinstance(deadline, int | float) and deadline > 0):
        raise ValueError(f"the deadline must be a positive number of seconds, not {deadline!r}")
    return Job(
        rules=the_rules,
        bots=tuple(specs),
        hands=hands,
        seed=seed,
        duplicate=duplicate,
        deadline=None if deadline is None else float(deadline),
    )
