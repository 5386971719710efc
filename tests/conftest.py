"""Shared fixtures: the real sample traces, and a private cache dir for every test run."""

from __future__ import annotations

import lzma
import os
import tempfile
from pathlib import Path

import pytest
import textual.screen
from hypothesis import settings

# The apps under test draw at most 20 frames a second, not 60: the frames between two
# checks are never looked at, and drawing them was a sixth of an app test's time. The
# pytest-textual-snapshot plugin imports Textual before this file, so its setting
# (TEXTUAL_FPS, read at import) is set here for subprocesses and patched in for this one.
TEST_FPS = 20
os.environ["TEXTUAL_FPS"] = str(TEST_FPS)
textual.screen.UPDATE_PERIOD = 1 / TEST_FPS

# CI replays the same generated examples on every run, so a red build can be reproduced;
# a local run draws fresh ones and keeps looking for new failures. No deadline in either:
# a 2-core machine running other work can take a few hundred ms on one example.
IN_CI = bool(os.environ.get("CI"))
settings.register_profile("ci", derandomize=True, deadline=None, max_examples=34)
settings.register_profile("local", deadline=None)
settings.load_profile("ci" if IN_CI else "local")


def examples(local: int) -> int:
    """max_examples for a property test that loads a trace per example: a local run draws
    `local` fresh examples; CI replays a fixed quarter of that (at least 15), which keeps
    the whole suite within a few minutes on two cores."""
    return max(15, local // 4) if IN_CI else local


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: half as many workers again as cores. A worker waits about a third of its
    time (the apps' timers, their workers' threads, subprocesses), and the extra ones fill
    it: 226-234 s for the suite with three on two cores, against 246 s with two."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)
    return cores + max(1, cores // 2)


ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_traces"
NSYS_REFERENCE = Path(__file__).parent / "data" / "nsys_reference"
NSYS_TRACES = ("gappy_training", "multistream", "gappy_then_tuned")


@pytest.fixture(autouse=True)
def explicit_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Headless output (`--summary`, `tui query`) is as wide as a pipe's, whatever the
    terminal or test runner says: pytest-xdist's workers set COLUMNS=80."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Never touch the user's cache: each test session gets its own."""
    cache = tmp_path_factory.getbasetemp() / "tui-cache"
    monkeypatch.setenv("TUI_CACHE_DIR", str(cache))
    return cache


@pytest.fixture(autouse=True)
def cold_snapshots(request: pytest.FixtureRequest, private_cache: Path,
                   tmp_path_factory: pytest.TempPathFactory,
                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot test opens its trace cold: the status line says whether the cache was
    used, and that must not depend on which test ran first."""
    if "snap_compare" in request.fixturenames:
        monkeypatch.setenv("TUI_CACHE_DIR", str(tmp_path_factory.mktemp("cold-cache")))


def sample(name: str) -> Path:
    path = SAMPLES / name
    assert path.is_file(), f"missing sample trace {path}"
    return path


def inflated(name: str) -> Path:
    """A sample kept xz-compressed (`NAME.xz` in sample_traces/, a bare name in loops/: the
    whole-program nsys exports there are 12-35 MB as SQLite), inflated once into the
    temporary folder, shared by every test process: named by the compressed file's size
    and time, written under a private name and renamed, so a reader never sees half."""
    import os

    packed = sample(name + ".xz" if "/" in name else f"loops/{name}.xz")
    stat = packed.stat()
    folder = Path(tempfile.gettempdir()) / f"tui-samples-{stat.st_size}-{stat.st_mtime_ns}"
    path = folder / Path(name).name
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f".{path.name}.{os.getpid()}"
        with lzma.open(packed) as source, open(partial, "wb") as target:
            while chunk := source.read(1 << 20):
                target.write(chunk)
        os.replace(partial, path)
    return path

