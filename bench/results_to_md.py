"""Write the figures of one run of bench/run_all.py into docs/benchmarks.md.

    .venv/bin/python bench/results_to_md.py [RESULTS.json]   # default bench/results/published.json

The section between ``<!-- run_all:begin -->`` and ``<!-- run_all:end -->`` is replaced by
what :func:`render` makes of the results file: the commit, the machine, and per bench its
command, date, time, load before and after, what fell short, and its report as it printed
it. Nothing else of the page is touched (the other sections are dated runs of their own).
Without a results file the section says so and names the command that writes one.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "benchmarks.md"
RESULTS = ROOT / "bench" / "results" / "published.json"
BEGIN = "<!-- run_all:begin -->"
END = "<!-- run_all:end -->"


def load(path: Path = RESULTS) -> dict[str, Any] | None:
    if not path.exists():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _loads(values: list[float]) -> str:
    return " / ".join(f"{v:.2f}" for v in values)


def as_markdown(report: str) -> str:
    """A bench's report as the page shows it: Markdown as printed; a report with no table
    (plain columns) in a text block, so that its lines stay lines."""
    if not report:
        return "(it printed nothing)"
    if any(line.startswith("|") for line in report.splitlines()):
        return report
    return f"```text\n{report}\n```"


def render(results: dict[str, Any] | None) -> str:
    """The section's Markdown (between the markers, without them)."""
    if results is None:
        return (
            "No run at one commit is recorded yet (`bench/results/published.json`). On a quiet\n"
            "machine, at a commit with nothing uncommitted: `.venv/bin/python bench/run_all.py`\n"
            "(`--list` gives the plan and its time), which writes the file and this section."
        )
    m = results["machine"]
    lines = [
        f"All the figures of this section are from one run of `.venv/bin/python bench/run_all.py`"
        f" at commit `{results['commit'][:12]}`"
        + (" **with uncommitted changes**" if results["dirty"] else "")
        + (" **at the smallest sizes (not figures to quote)**" if results["smallest"] else "")
        + f", {results['started']} to {results.get('ended', '?')}, on {m['cores']} cores of"
        f" {m['cpu'] or 'an unnamed CPU'} ({m['system']}; Python {m['python']}, numpy"
        f" {m['numpy']}, numba {m['numba']}); load average (1, 5, 15 min) "
        f"{_loads(results['load_before'])} before and {_loads(results.get('load_after', []))}"
        " after. The file `bench/results/published.json` holds them with each command.",
    ]
    for run in results["runs"]:
        lines += [
            "",
            f"### {run['name']} (`{run['script']}`)",
            "",
            f"`{run['command']}`: {run['started']}, {run['seconds']:.0f} s, load average"
            f" {_loads(run['load_before'])} before, {_loads(run['load_after'])} after, exit"
            f" status {run['exit_status']}.",
        ]
        for short in run["short"]:
            lines.append(f"**Fell short:** {short}")
        lines += ["", as_markdown(run["report"])]
    if results.get("separate"):
        lines += ["", "Not in this run (separate dated runs, below on this page):", ""]
        for sep in results["separate"]:
            lines.append(f"- {sep['name']}: `{sep['command']}` (about {sep['minutes']:g} min)")
    return "\n".join(lines)


def replace_section(page: str, section: str) -> str:
    if page.count(BEGIN) != 1 or page.count(END) != 1:
        raise SystemExit(f"{DOCS.name}: expected one {BEGIN} and one {END}")
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{section}\n{END}{tail}"


def section_of(page: str) -> str:
    """What the page holds between the markers (without the newlines next to them)."""
    return page.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n")


def write_docs(results: dict[str, Any] | None) -> None:
    page = DOCS.read_text(encoding="utf-8")
    DOCS.write_text(replace_section(page, render(results)), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    write_docs(load(Path(args[0]) if args else RESULTS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
