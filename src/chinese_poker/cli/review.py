"""``chinese-poker review FILE [--seat NAME]``: every decision next to the best one.

Replays each hand of a hand-history file and asks the hint engine, at the review's fixed
strength, what each decision cost (see :mod:`chinese_poker.ai.review` and
docs/review.md); prints the marked decisions, each player's accuracy and a plot of the
expected points lost per street (``--svg FILE``: the same plot as an SVG picture).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from chinese_poker.cli import UsageError, plural, read_history_input
from chinese_poker.language import t

BAR_WIDTH = 40
"""Characters of the longest bar of the terminal plot."""

_EIGHTHS = " ▏▎▍▌▋▊▉"
_PLURALS = {"inaccuracy": "inaccuracies"}


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "review",
        help="review a hand-history file: each decision next to the best one",
        description=(
            "Replay every hand of a hand-history file (JSON lines, docs/hand-history.md)"
            " and show each decision next to the hint engine's best one with the expected"
            " points lost, marked inaccuracy / mistake / blunder (docs/review.md); then"
            " each player's accuracy and a plot of the expected points lost per street."
        ),
    )
    p.add_argument("file", help="the hand-history file, - for standard input")
    p.add_argument(
        "--seat", metavar="NAME", help="review only this player's decisions (default: everybody)"
    )
    p.add_argument("--svg", metavar="FILE", help="also write the plot as an SVG picture")
    p.add_argument("--all", action="store_true", help="list every decision, not only the marked")
    p.add_argument("--json", action="store_true", help="print the review as JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from chinese_poker.ai.review import review_history, summarise
    from chinese_poker.engine.history import replay_history

    records = read_history_input(args.file)
    # A history that does not replay exactly as recorded is refused before any review.
    replay_history(records, partial_sessions=True)
    names = _players(records)
    if args.seat is not None and args.seat not in names:
        raise UsageError(
            f"no player named {args.seat!r} in {args.file} (players: {', '.join(names)})"
        )
    wanted = [args.seat] if args.seat is not None else names
    svg_path = _svg_path(args.svg)
    progress = None if args.json or not sys.stderr.isatty() else _progress
    hands = review_history(records, players=set(wanted), progress=progress)
    summaries = [summarise(hands, name) for name in wanted]
    if svg_path is not None:
        try:
            svg_path.write_text(svg_plot(summaries), encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {args.svg}: {exc.strerror or exc}") from None
    if args.json:
        print(json.dumps({
            "file": args.file,
            "hands": [h.to_dict() for h in hands],
            "players": [s.to_dict() for s in summaries],
        }))  # fmt: skip
        return 0
    _print_hands(hands, every=args.all)
    print()
    _print_players(summaries)
    print()
    print(text_plot(summaries))
    if svg_path is not None:
        print(f"plot written to {args.svg}")
    return 0


def _svg_path(given: str | None) -> Path | None:
    """Where ``--svg`` writes, checked before the review runs."""
    if not given:
        return None
    path = Path(given)
    if path.is_dir() or not path.parent.is_dir():
        raise UsageError(f"cannot write {given}: no such folder, or it is a folder")
    return path


def _print_hands(hands: Sequence[Any], *, every: bool) -> None:
    """Each hand's marked decisions (``every``: all of them) next to the best ones."""
    for h in hands:
        shown = [d for d in h.decisions if every or d.mark]
        label = f"hand {h.index}" + (f" (session hand {h.session_hand})" if h.session_hand else "")
        print(f"{label}: {plural(len(shown), 'marked decision') if not every else ''}".rstrip())
        for d in shown:
            mark = d.mark or ("best" if d.rank == 1 else "ok")
            lost = f"{d.loss:.2f}" if d.exact else f"at least {d.loss:.2f}"
            print(f"  {d.box:>10} {decision_label(d.label):<9} {mark:<10} played {d.played}")
            print(f"  {'':>10} {'':<9} {'':<10} best   {d.best}  ({lost} expected points lost)")


def _print_players(summaries: Sequence[Any]) -> None:
    """Each player's accuracy, expected points lost and marks, one line each."""
    for s in summaries:
        accuracy = "-" if s.accuracy is None else f"{s.accuracy:.0f}%"
        marks = ", ".join(plural(n, m, _PLURALS.get(m)) for m, n in s.marks.items())
        print(
            f"{s.player}: accuracy {accuracy} over {plural(s.decisions, 'decision')} in"
            f" {plural(s.hands, 'hand')}; {s.loss_per_hand:.2f} expected points lost per"
            f" hand; {marks}"
        )


def _progress(done: int, total: int) -> None:
    end = "\n" if done == total else ""
    print(f"\rreviewing hand {done} of {total}", end=end, file=sys.stderr, flush=True)


def _players(records: Sequence[dict[str, Any]]) -> list[str]:
    names: list[str] = []
    for rec in records:
        for name in rec.get("players") or []:
            if isinstance(name, str) and name not in names:
                names.append(name)
    return names


_KINDS = ("set", "surrender", "natural")


def decision_label(label: str) -> str:
    """A decision's label (``street 2``, ``set``, ``surrender``, ``natural``) in the
    language of the run, in the words the desk's review uses."""
    kind, _, street = label.partition(" ")
    if kind == "street" and street.isdigit():
        return t("review.street", n=int(street))
    return t(f"review.kind.{label}") if label in _KINDS else label


def text_plot(summaries: Sequence[Any]) -> str:
    """Expected points lost per hand, by street, as bars of block characters."""
    rows = [(s.player, label, loss) for s in summaries for label, loss, _ in s.per_street]
    if not rows:
        return "no decisions to plot"
    top = max(loss for _, _, loss in rows) or 1.0
    lines = ["expected points lost per hand, by street"]
    for s in summaries:
        lines.append(f"{s.player}")
        for label, loss, _ in s.per_street:
            bar = _bar(loss / top * BAR_WIDTH)
            lines.append(f"  {decision_label(label):<10} {bar:<{BAR_WIDTH}} {loss:5.2f}")
    return "\n".join(lines)


def _bar(width: float) -> str:
    eighths = round(width * 8)
    return "█" * (eighths // 8) + (_EIGHTHS[eighths % 8] if eighths % 8 else "")


_COLOURS = ("#2b6cb0", "#c05621", "#2f855a", "#6b46c1", "#b83280", "#4a5568")


def svg_plot(summaries: Sequence[Any]) -> str:
    """The per-street plot as an SVG bar chart (one colour per player)."""
    labels: list[str] = []
    for s in summaries:
        for label, _, _ in s.per_street:
            if label not in labels:
                labels.append(label)
    values = {(s.player, label): loss for s in summaries for label, loss, _ in s.per_street}
    top = max(values.values(), default=0.0) or 1.0
    n = max(len(summaries), 1)
    group, bar, left, height, base = 90, 70 / n, 60, 220, 250
    width = left + group * max(len(labels), 1) + 20
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{base + 60}"'
        f' viewBox="0 0 {width} {base + 60}" font-family="sans-serif" font-size="12">',
        '<rect width="100%" height="100%" fill="#fff"/>',
        f'<text x="{left}" y="16" font-size="14">expected points lost per hand, by street</text>',
        f'<line x1="{left}" y1="{base}" x2="{width - 10}" y2="{base}" stroke="#333"/>',
        f'<text x="{left - 6}" y="{base - height}" text-anchor="end">{top:.2f}</text>',
        f'<text x="{left - 6}" y="{base}" text-anchor="end">0</text>',
    ]
    for g, label in enumerate(labels):
        x0 = left + g * group + 10
        for k, s in enumerate(summaries):
            loss = values.get((s.player, label))
            if loss is None:
                continue
            h = loss / top * height
            out.append(
                f'<rect x="{x0 + k * bar:.1f}" y="{base - h:.1f}" width="{bar - 2:.1f}"'
                f' height="{h:.1f}" fill="{_COLOURS[k % len(_COLOURS)]}">'
                f"<title>{escape(s.player)}, {escape(label)}: {loss:.2f}</title></rect>"
            )
        out.append(
            f'<text x="{x0 + 35}" y="{base + 16}" text-anchor="middle">{escape(label)}</text>'
        )
    for k, s in enumerate(summaries):
        x = left + k * 120
        out.append(
            f'<rect x="{x}" y="{base + 30}" width="12" height="12"'
            f' fill="{_COLOURS[k % len(_COLOURS)]}"/>'
            f'<text x="{x + 16}" y="{base + 41}">{escape(s.player)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"
