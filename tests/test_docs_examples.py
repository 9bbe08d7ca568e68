"""Every code example in README.md and docs/*.md runs, as a reader would run it.

* ``>>>`` examples (```` ```pycon ```` or ```` ```python ```` blocks) are doctests, one
  namespace per page, outputs compared.
* Other ```` ```python ```` blocks are pasted into a script of their own and run with
  ``python`` from the repository root (so a missing ``if __name__ == "__main__":`` shows).
* Shell examples (```` ```bash ````/```` ```sh ```` lines, ```` ```console ```` ``$ `` lines,
  and ``chinese-poker ...`` lines of unlabelled blocks) run with bash from the repository
  root against the files in ``examples/``; a ``console`` block's output is compared.

What cannot run here is in ``SKIP`` below with the reason; every other example runs.
"""

from __future__ import annotations

import doctest
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

# Slow (left out by `bash scripts/test --quick`): every example of the README and docs/
# run as a reader would, most as a new process.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
SHELL = ("bash", "sh", "shell", "console")
# Languages of blocks that are shown, never run (data formats, screens, protocol sketches).
SHOWN = ("json", "toml", "text", "", "nginx", "ini")

# (page, the start of the example's first line) -> why it is not run here.
SKIP: dict[tuple[str, str], str] = {
    ("README.md", "bash scripts/serve"): "runs until stopped: tests/test_readme.py follows it",
    ("README.md", "bash scripts/test"): "this is the test run itself",
    ("docs/index.md", "bash scripts/serve"): "runs until stopped: tests/test_readme.py follows it",
    ("docs/getting-started/player.md", "bash scripts/serve"): (
        "runs until stopped: tests/test_readme.py follows it"
    ),
    ("docs/getting-started/player.md", "bash scripts/serve --port 8080"): "a server",
    ("docs/getting-started/player.md", "bash scripts/serve --host 0.0.0.0"): "a server",
    (
        "docs/getting-started/player.md",
        ".venv/bin/chinese-poker play --rules pineapple --players 3 --bots random,rules --seed 7",
    ): "interactive: tests/test_terminal.py plays it",
    ("docs/getting-started/researcher.md", "python3 -m venv .venv && . .venv/bin/activate"): (
        "makes a venv: tests/test_readme.py installs into a fresh one"
    ),
    ("docs/getting-started/researcher.md", "pip install ."): "installs from the network",
    ("docs/getting-started/researcher.md", 'pip install ".[env]"'): "installs from the network",
    ("docs/getting-started/researcher.md", 'pip install ".[ray]"'): "installs from the network",
    ("docs/benchmarks.md", "bash scripts/bench"): "about 13 minutes of benchmarks, run by hand",
    ("docs/benchmarks.md", ".venv/bin/python bench/bench_evaluate.py --quick"): "a benchmark",
    ("docs/benchmarks.md", ".venv/bin/python bench/bench_server_load.py"): (
        "server load benchmarks: minutes each, on a quiet machine, run by hand"
    ),
    ("docs/server.md", ".venv/bin/python bench/bench_server_load.py --think 0 1"): "a benchmark",
    ("docs/benchmarks.md", ".venv/bin/python bench/bench_failover.py"): (
        "20 kills of server processes: minutes, run by hand (tests/test_server_failover.py)"
    ),
    ("docs/env.md", ".venv/bin/python examples/train_pineapple.py"): "trains for minutes",
    ("docs/browser.md", "chinese-poker serve"): "a server that runs until stopped",
    ("docs/server.md", "chinese-poker serve"): "a server that runs until stopped",
    ("docs/server.md", "chinese-poker serve --host 0.0.0.0 --port 8080"): "a server",
    ("docs/server.md", "chinese-poker serve --database-url postgresql+psycopg://poker@db/poker"): (
        "a server, and no host named db here"
    ),
    ("docs/server.md", "chinese-poker serve --port 0"): "a server that runs until stopped",
    (
        "docs/terminal.md",
        "chinese-poker play --rules pineapple --players 3 --bots random,rules --seed 7",
    ): "interactive: tests/test_terminal.py plays it",
    ("docs/terminal.md", "chinese-poker play --rules classic --players 4 --four-color"): (
        "interactive: tests/test_terminal.py plays it"
    ),
    ("docs/terminal.md", "chinese-poker play --rules criss-cross --set unit_value=10"): (
        "interactive: tests/test_terminal.py plays it"
    ),
    ("docs/engine.md", "Table(rules, players=2, *,"): "a signature, not an example",
    ("docs/engine.md", "Session(rules, players, *,"): "a signature, not an example",
    ("docs/engine.md", 'session = Session(rules, ["Ann", "Bob", "Cy"], seed=7)'): (
        "an outline with `...` for the actions (the quick start above runs a whole table)"
    ),
}
# Python blocks that quote a file of the repository: checked to be in it, word for word.
EXCERPTS: dict[tuple[str, str], str] = {
    ("docs/bot-protocol.md", "def main():"): "examples/bots/random_bot.py",
}


@dataclass(frozen=True)
class Example:
    page: str  # relative to the repository root
    line: int  # 1-based line of the example in the page
    kind: str  # "python", "shell"
    code: str
    output: str | None = None  # a console block's expected output

    @property
    def key(self) -> tuple[str, str]:
        return self.page, self.code.splitlines()[0].strip()

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def strip_comment(command: str) -> str:
    """``cmd   # what it shows`` -> ``cmd`` (the docs align such comments after commands)."""
    return re.sub(r"\s+#\s.*$", "", command).strip()


def examples_of(path: Path) -> list[Example]:
    page = path.relative_to(ROOT).as_posix()
    found: list[Example] = []
    for token in MarkdownIt("commonmark").parse(path.read_text(encoding="utf-8")):
        if token.type != "fence" or token.map is None:
            continue
        lang = token.info.split()[0] if token.info.split() else ""
        first = token.map[0] + 2  # the line after the opening fence
        lines = token.content.splitlines()
        if lang in ("python", "py", "pycon"):
            if not any(line.lstrip().startswith(">>>") for line in lines):
                found.append(Example(page, first, "python", token.content))
            continue  # >>> examples: test_page_doctests
        if lang == "console":
            for i, line in enumerate(lines):
                if line.startswith("$ "):
                    rest = lines[i + 1 :]
                    end = next((j for j, x in enumerate(rest) if x.startswith("$ ")), len(rest))
                    output = "\n".join(rest[:end])
                    found.append(Example(page, first + i, "shell", line[2:].strip(), output))
            continue
        for i, line in enumerate(lines):
            command = strip_comment(line.removeprefix("$ "))
            if not command or command.startswith("#"):
                continue
            if lang in SHELL or (lang == "" and re.match(r"(chinese-poker|pip|bash) ", command)):
                found.append(Example(page, first + i, "shell", command))
        assert lang in SHELL or lang in SHOWN, f"{page}:{first - 1}: unknown block `{lang}`"
    return found


EXAMPLES = [example for path in PAGES for example in examples_of(path)]


def environment() -> dict[str, str]:
    """The commands of this checkout first on PATH (`chinese-poker`, `python`)."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    env["COLUMNS"] = "100"
    return env


@pytest.mark.parametrize("page", [p.relative_to(ROOT).as_posix() for p in PAGES])
def test_page_doctests(page: str) -> None:
    result = doctest.testfile(
        str(ROOT / page),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        encoding="utf-8",
    )
    assert result.failed == 0, f"{result.failed} failing >>> example(s) in {page}"


def skipped(example: Example) -> str | None:
    page, first = example.key
    return next(
        (why for (p, start), why in SKIP.items() if p == page and first.startswith(start)), None
    )


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_example_runs(example: Example, tmp_path: Path) -> None:
    if why := skipped(example):
        pytest.skip(why)
    if example.key in EXCERPTS:
        quoted = (ROOT / EXCERPTS[example.key]).read_text(encoding="utf-8")
        assert example.code in quoted, f"{example.id} is not word for word in the file it quotes"
        return
    if example.kind == "python":
        script = tmp_path / "example.py"
        script.write_text(example.code, encoding="utf-8")
        argv = [sys.executable, str(script)]
    else:
        assert re.match(r"(cat \S+ \| )?chinese-poker ", example.code), (
            f"{example.id}: `{example.code}` is neither run here nor in SKIP"
        )
        argv = ["bash", "-o", "pipefail", "-c", example.code]
    done = subprocess.run(
        argv, cwd=ROOT, env=environment(), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, (
        f"{example.id}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    if example.output is not None:
        assert done.stdout.rstrip().splitlines() == example.output.rstrip().splitlines()


def test_skip_list_names_existing_examples() -> None:
    keys = {example.key for example in EXAMPLES}
    stale = [key for key in EXCERPTS if key not in keys] + [
        (page, start)
        for page, start in SKIP
        if not any(p == page and first.startswith(start) for p, first in keys)
    ]
    assert not stale, f"SKIP/EXCERPTS entries that match no example: {stale}"


def test_scorekeeper_page_shows_the_example_file_as_it_is() -> None:
    page = ROOT / "docs" / "getting-started" / "scorekeeper.md"
    fences = [
        t for t in MarkdownIt("commonmark").parse(page.read_text(encoding="utf-8"))
        if t.type == "fence" and t.info.strip() == "json"
    ]  # fmt: skip
    shown = json.loads(fences[0].content)
    assert shown == json.loads((ROOT / "examples" / "pineapple-heads-up.json").read_text())
