"""The package builds as an sdist and a wheel (the wheel from the sdist, as `python -m
build` does), both pass `twine check`, both carry what the package needs at run time, and
the version has one source."""

from __future__ import annotations

import email.parser
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import chinese_poker

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "chinese_poker"


def needed_files() -> set[str]:
    """What the package loads besides its modules, relative to the package directory."""
    data = {p.relative_to(PACKAGE).as_posix() for p in (PACKAGE / "data").glob("*.npz")}
    static = {
        p.relative_to(PACKAGE).as_posix()
        for p in (PACKAGE / "server/static").rglob("*")
        if p.is_file()
    }
    migrations = {
        p.relative_to(PACKAGE).as_posix()
        for p in (PACKAGE / "server/migrations").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert len(data) >= 3 and "index.html" in {Path(s).name for s in static}
    assert "server/migrations/script.py.mako" in migrations
    return data | static | migrations | {"py.typed"}


# What a fresh clone would not have (and what other tests may be writing meanwhile).
NOT_IN_A_CLONE = shutil.ignore_patterns(
    ".git", ".venv", "site", "build", "dist", "*.egg-info", "__pycache__", ".*_cache",
    ".hypothesis", "results",
)  # fmt: skip


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Built from a copy: building writes *.egg-info into the source tree, which the
    # README test's editable install may be doing in the checkout at the same time.
    tree = tmp_path_factory.mktemp("tree") / "chinese-poker"
    shutil.copytree(ROOT, tree, ignore=NOT_IN_A_CLONE)
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(tree)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


@pytest.mark.slow
def test_twine_check_passes(dist: Path) -> None:
    files = sorted(dist.iterdir())
    assert sorted(f.suffix for f in files) == [".gz", ".whl"]
    done = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2


@pytest.mark.slow
def test_wheel_has_data_files_entry_point_and_version(dist: Path) -> None:
    (wheel,) = dist.glob("*.whl")
    assert wheel.name == f"chinese_poker-{chinese_poker.__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        info = f"chinese_poker-{chinese_poker.__version__}.dist-info"
        metadata = email.parser.Parser().parsestr(z.read(f"{info}/METADATA").decode())
        entry_points = z.read(f"{info}/entry_points.txt").decode()
    missing = {f"chinese_poker/{name}" for name in needed_files()} - names
    assert not missing, f"not in the wheel: {sorted(missing)}"
    assert metadata["Version"] == chinese_poker.__version__
    assert metadata["Name"] == "chinese-poker"
    assert "chinese-poker = chinese_poker.cli:entry" in entry_points
    assert not any(name.startswith("tests/") for name in names)


@pytest.mark.slow
def test_sdist_has_sources_data_and_docs(dist: Path) -> None:
    (sdist,) = dist.glob("*.tar.gz")
    top = f"chinese_poker-{chinese_poker.__version__}"
    with tarfile.open(sdist) as tar:
        names = {name.removeprefix(top + "/") for name in tar.getnames()}
    missing = {f"src/chinese_poker/{name}" for name in needed_files()} - names
    assert not missing, f"not in the sdist: {sorted(missing)}"
    assert {"pyproject.toml", "README.md", "CHANGELOG.md", "PKG-INFO"} <= names


def test_version_has_one_source() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in pyproject
    assert 'version = {attr = "chinese_poker.__version__"}' in pyproject
    done = subprocess.run(
        [str(Path(sys.executable).parent / "chinese-poker"), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0
    assert done.stdout.strip() == f"chinese-poker {chinese_poker.__version__}"


def test_changelog_follows_keep_a_changelog() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n") and "keepachangelog.com" in text
    releases = [line for line in text.splitlines() if line.startswith("## [")]
    assert releases[0] == "## [Unreleased]"
    # The current version is either released (a dated heading) or still unreleased.
    dated = [r for r in releases[1:] if r.startswith(f"## [{chinese_poker.__version__}] - ")]
    assert dated, f"CHANGELOG.md has no heading for {chinese_poker.__version__}"
