"""Fixtures and hooks for every test: a private cache dir for each run, pipe-wide headless
output, cold caches for snapshots, the hypothesis profile and how many xdist workers."""

from __future__ import annotations

import gc
import inspect
import os
from collections.abc import Awaitable, Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
import textual.screen
from hypothesis import settings
from textual.pilot import Pilot

# What the tests share lives in tests/helpers/; these names are imported from here as well.
from tests.helpers.paths import (  # noqa: F401
    NSYS_REFERENCE,
    NSYS_TRACES,
    ROOT,
    SAMPLES,
    inflated,
    sample,
)
from tests.helpers.properties import IN_CI, examples  # noqa: F401

# The apps under test draw at most 10 frames a second, not 60: the frames between two
# checks are never looked at, and drawing them was a sixth of an app test's time (at 20
# rather than 10, tests/app took 118 CPU-s rather than 105). A check of the drawn screen
# waits for the frame (tests/helpers/screen.py: drawn_screen). The
# pytest-textual-snapshot plugin imports Textual before this file, so its setting
# (TEXTUAL_FPS, read at import) is set here for subprocesses and patched in for this one.
TEST_FPS = 10
os.environ["TEXTUAL_FPS"] = str(TEST_FPS)
textual.screen.UPDATE_PERIOD = 1 / TEST_FPS

# Python's garbage collector runs a young-generation pass every 20,000 allocations, not
# every 700, and leaves out what the collection made (frozen once it is done): the apps
# under test allocate fast, and at the defaults the collector took a fifth of the workers'
# CPU (tests/app and tests/analysis: 48 of 244 CPU-s; 14 of 208 at these settings).
gc.set_threshold(20_000, 20, 20)


def pytest_collection_finish(session: pytest.Session) -> None:
    gc.collect()
    gc.freeze()


# CI replays the same generated examples on every run, so a red build can be reproduced;
# a local run draws fresh ones and keeps looking for new failures. No deadline in either:
# a 2-core machine running other work can take a few hundred ms on one example.
settings.register_profile("ci", derandomize=True, deadline=None, max_examples=34)
settings.register_profile("local", deadline=None)
settings.load_profile("ci" if IN_CI else "local")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: half as many workers again as cores. A worker waits about a third of its
    time (the apps' timers, their workers' threads, subprocesses), and the extra ones fill
    it: 226-234 s for the suite with three on two cores, against 246 s with two."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)
    return cores + max(1, cores // 2)


@pytest.fixture(autouse=True)
def explicit_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Headless output (`--summary`, `tui query`) is as wide as a pipe's, whatever the
    terminal or test runner says: pytest-xdist's workers set COLUMNS=80."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


# A run's ranks are loaded in the test's own process unless a test asks for a pool
# (workers=, --workers): starting a pool's processes (a fresh interpreter each, ~0.7 CPU-s)
# for every run a test opens was a tenth of the suite's CPU on two cores. And DuckDB keeps
# to one thread (TUI_THREADS, as for tui processes that share the cores): the workers
# outnumber the cores, and the threads only added their hand-offs (the suite on two
# cores: 395 CPU-s and 211 s, against 410 CPU-s and 219 s).
POOL_OFF = {"TUI_WORKERS": "1", "TUI_THREADS": "1"}


def _run_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # base is .../pytest-N/popen-gwK
        base = base.parent
    return base / "tui-cache"


@pytest.fixture(scope="session", autouse=True)
def run_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Never touch the user's cache, not even from a module's or the session's fixtures
    (set up before any test's own): the run's cache dir is set for the whole session."""
    cache = _run_cache(tmp_path_factory)
    session_env = {**POOL_OFF, "TUI_CACHE_DIR": str(cache)}
    before = {key: os.environ.get(key) for key in session_env}
    os.environ.update(session_env)
    yield cache
    for key, value in before.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(autouse=True)
def shared_cache(tmp_path_factory: pytest.TempPathFactory,
                 monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test run's own cache, one for all its xdist workers, so each sample is loaded
    cold once a run rather than once a worker (a cache file is built under a private name
    and renamed, so workers building the same one at once each keep a whole one); set
    again for each test, which may change it (private_cache)."""
    cache = _run_cache(tmp_path_factory)
    monkeypatch.setenv("TUI_CACHE_DIR", str(cache))
    return cache


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache of the test's own, for a test that empties it or counts what is in it."""
    cache = tmp_path / "tui-cache"
    monkeypatch.setenv("TUI_CACHE_DIR", str(cache))
    return cache


@pytest.fixture
def snap_compare(snap_compare: Callable[..., bool]) -> Callable[..., bool]:
    """pytest-textual-snapshot's, the screenshot taken once the frame the keys asked for is
    drawn: the apps draw at TEST_FPS, and the plugin only lets the messages be handled."""

    def compare(app: object, press: Iterable[str] = (),
                run_before: Callable[[Pilot], Awaitable[None] | None] | None = None,
                **options: Any) -> bool:
        # imported here: the helpers import the apps, which a run of other tests never needs
        from tests.helpers.screen import frame_drawn

        async def then_drawn(pilot: Pilot) -> None:
            if run_before is not None:
                result = run_before(pilot)
                if inspect.isawaitable(result):
                    await result
            await pilot.press(*press)
            await frame_drawn(pilot)

        return snap_compare(app, run_before=then_drawn, **options)

    return compare


@pytest.fixture(autouse=True)
def cold_snapshots(request: pytest.FixtureRequest, shared_cache: Path,
                   tmp_path_factory: pytest.TempPathFactory,
                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot test opens its trace cold: the status line says whether the cache was
    used, and that must not depend on which test ran first."""
    if "snap_compare" in request.fixturenames:
        monkeypatch.setenv("TUI_CACHE_DIR", str(tmp_path_factory.mktemp("cold-cache")))

