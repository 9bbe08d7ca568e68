"""bench/run_all.py runs every bench the docs show at one commit into one results file, and
docs/benchmarks.md shows exactly that file's figures (bench/results_to_md.py)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from _helpers import bench_module

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", ROOT / "bench" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def fake_bench(tmp_path: Path, body: str) -> Any:
    """A Bench whose script is ``body`` (Python), written under ``tmp_path``."""
    run_all = bench_module("run_all")
    script = tmp_path / "bench_fake.py"
    script.write_text(body, encoding="utf-8")
    relative = os.path.relpath(script, ROOT / "bench")
    return run_all.Bench("fake", relative, "", "", 0.1)


def test_the_docs_section_is_the_published_run() -> None:
    to_md = bench_module("results_to_md")
    page = to_md.DOCS.read_text(encoding="utf-8")
    assert to_md.section_of(page) == to_md.render(to_md.load()), (
        "docs/benchmarks.md's run_all section is not bench/results/published.json: "
        "run .venv/bin/python bench/results_to_md.py"
    )


def test_every_bench_the_docs_cite_exists_and_has_a_command() -> None:
    run_all = bench_module("run_all")
    commanded = {b.script for b in run_all.BENCHES} | set(run_all.RESEARCH)
    cited = {
        name: page.name
        for page in DOCS
        for name in re.findall(r"\bbench_\w+\.py\b", page.read_text(encoding="utf-8"))
    }
    assert cited, "no bench cited at all: the pattern is wrong"
    missing = {n: p for n, p in cited.items() if not (ROOT / "bench" / n).exists()}
    assert not missing, f"cited benches that do not exist: {missing}"
    uncommanded = {n: p for n, p in cited.items() if n not in commanded}
    assert not uncommanded, f"cited benches with no command in bench/run_all.py: {uncommanded}"


def test_every_command_names_a_script_and_options_it_has() -> None:
    run_all = bench_module("run_all")
    for bench in run_all.BENCHES:
        source = (ROOT / "bench" / bench.script).read_text(encoding="utf-8")
        words = [*bench.command(), *bench.command(smallest=True)]
        for option in (a for a in words if a.startswith("--")):
            assert f'"{option}"' in source, f"{bench.name}: {bench.script} has no {option}"
    for script in run_all.RESEARCH:
        assert (ROOT / "bench" / script).exists()


def test_the_budget_keeps_the_plan_within_it_and_hours_long_runs_apart() -> None:
    run_all = bench_module("run_all")
    full = run_all.plan(None, None)
    assert all(b.short_run for b in full) and len(full) < len(run_all.BENCHES)
    assert sum(b.minutes for b in full) <= 40  # the lead's quiet half hour or so
    small = run_all.plan(5, None)
    assert small and sum(b.minutes for b in small) <= 5
    assert [b.name for b in run_all.plan(None, ["levels"])] == ["levels"]
    with pytest.raises(SystemExit, match="no bench named nonesuch"):
        run_all.plan(None, ["nonesuch"])


def test_a_bench_that_fell_short_or_failed_is_kept_as_short(tmp_path: Path) -> None:
    run_all = bench_module("run_all")
    short = fake_bench(tmp_path, (
        "import sys\n"
        "print('| Step | Hands |\\n|---|---:|\\n| one | 1 |')\n"
        "print('bench_fake: FAILED: hands: measured 1 of 2 asked', file=sys.stderr)\n"
        "sys.exit(1)\n"
    ))  # fmt: skip
    got = run_all.run_one(short)
    assert got["short"] == ["bench_fake: FAILED: hands: measured 1 of 2 asked"]
    assert got["exit_status"] == 1
    assert got["figures"] == [{"table": "Step", "row": "one", "column": "Hands", "value": "1"}]
    assert got["command"].endswith("bench_fake.py")
    assert len(got["load_before"]) == 3 and len(got["load_after"]) == 3
    crashed = run_all.run_one(fake_bench(tmp_path, "raise ValueError('no deal')\n"))
    assert len(crashed["short"]) == 1 and "ValueError: no deal" in crashed["short"][0]
    slow = fake_bench(tmp_path, "import sys\nprint('bench_fake: SLOW: x', file=sys.stderr)\n"
                                "sys.exit(1)\n")  # fmt: skip
    assert run_all.run_one(slow)["short"] == []  # a missed target is a figure


def test_the_runner_writes_one_file_that_renders_as_the_docs_section(tmp_path: Path) -> None:
    run_all = bench_module("run_all")
    to_md = bench_module("results_to_md")
    out = tmp_path / "results.json"
    status = run_all.main(["--smallest", "--allow-dirty", "--only", "engine", "--out", str(out)])
    assert status == 0
    results = json.loads(out.read_text(encoding="utf-8"))
    assert re.fullmatch(r"[0-9a-f]{40}", results["commit"])
    assert results["smallest"] and results["machine"]["cores"] >= 1
    (engine,) = results["runs"]
    assert engine["command"] == ".venv/bin/python bench/bench_engine.py --hands 20"
    assert {f["row"] for f in engine["figures"]} == {"pineapple", "ofc"}
    text = to_md.render(results)
    assert "at the smallest sizes (not figures to quote)" in text
    assert engine["report"] in text and engine["command"] in text
    assert to_md.as_markdown("reconnect  kills 1") == "```text\nreconnect  kills 1\n```"
    page = f"# Page\n\nbefore\n{to_md.BEGIN}\nold\n{to_md.END}\nafter\n"
    written = to_md.replace_section(page, text)
    assert to_md.section_of(written) == text
    assert written.startswith("# Page\n\nbefore\n") and written.endswith("\nafter\n")


def test_a_trial_on_uncommitted_code_is_refused_without_allow_dirty(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    run_all = bench_module("run_all")
    monkeypatch.setattr(run_all, "git", lambda *a: " M src/x.py" if a[0] == "status" else "")
    assert run_all.main(["--only", "engine"]) == 2
    assert "uncommitted changes" in capsys.readouterr().err


def test_only_the_whole_short_run_is_published_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    run_all = bench_module("run_all")
    written: list[Path] = []

    def record(benches: Any, smallest: bool, out: Path, dirty: bool) -> dict[str, Any]:
        written.append(out)
        return {"runs": []}

    monkeypatch.setattr(run_all, "run", record)
    monkeypatch.setattr(run_all, "git", lambda *a: "")
    monkeypatch.setattr(bench_module("results_to_md"), "write_docs", lambda results: None)
    for argv in ([], ["--only", "engine"], ["--budget", "5"], ["--smallest"]):
        assert run_all.main(argv) == 0
    assert written == [run_all.PUBLISHED, run_all.PARTIAL, run_all.PARTIAL, run_all.SMALLEST]
