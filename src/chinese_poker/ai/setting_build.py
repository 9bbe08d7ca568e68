"""Build the classic setting solver's opponent tables by simulation (the shipped
``chinese_poker/data/setting_<mode>.npz``):

    python -m chinese_poker.ai.setting_build --hands 50000 --seed 1 --iterations 2

Its own module because building needs the solver (:mod:`chinese_poker.ai.setting`),
which reads the tables (:mod:`chinese_poker.ai.setting_tables`): neither of those imports
the other back.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from chinese_poker.ai.setting import TABLE_SETTERS
from chinese_poker.ai.setting_tables import DEFAULT_STRATA, MODES, SHIPPED, build_table, table_path

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m chinese_poker.ai.setting_build``: build and write the tables."""
    parser = argparse.ArgumentParser(
        prog="python -m chinese_poker.ai.setting_build",
        description="Simulate opponents and write the setting solver's tables.",
    )
    parser.add_argument("--hands", type=int, default=50000, help="hands per stage")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=2, help="solver stages after stage 0")
    parser.add_argument("--strata", type=int, default=DEFAULT_STRATA)
    parser.add_argument(
        "--mode", action="append", choices=MODES, help="mode to build (repeatable; default: "
        + ", ".join(SHIPPED) + ")",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=None, help="directory (default: package)")
    args = parser.parse_args(argv)
    for mode in args.mode or SHIPPED:
        started = time.perf_counter()
        table = build_table(
            mode, setters=TABLE_SETTERS, hands=args.hands, seed=args.seed,
            iterations=args.iterations, strata=args.strata,
            log=lambda text: print(text, file=sys.stderr, flush=True),
        )  # fmt: skip
        table.meta["command"] = (
            f"python -m chinese_poker.ai.setting_build --hands {args.hands} --seed {args.seed}"
            f" --iterations {args.iterations} --strata {args.strata} --mode {mode}"
        )
        path = (args.out / f"setting_{mode}.npz") if args.out else table_path(mode)
        table.save(path)
        size = path.stat().st_size
        print(
            f"{mode}: {table.hands} hands/stage, {table.played} kept, naturals {table.naturals},"
            f" fouls {table.fouls}, {time.perf_counter() - started:.0f} s -> {path}"
            f" ({size / 1024:.0f} KiB)",
            flush=True,
        )
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
