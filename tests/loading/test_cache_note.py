"""Whether a run used the cache, and if not why: `source.cache_note` and the summary header.

Traces are real samples copied into the test's own directory; stale, damaged and locked
cache files are GENERATED from a real cache file (another version, a dropped table, bytes
overwritten, a lock held by a second process).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from tests.helpers.paths import copied_sample, sample
from tests.helpers.pilot import settle, sync
from tui.apps.trace_app import TraceApp
from tui.cli.main import main
from tui.loading import cache
from tui.loading.trace import open_trace

TRACE = "multistream.pt.trace.json.gz"


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    return copied_sample(TRACE, tmp_path / "traces")



def _source(capsys, path: Path, *flags: str) -> dict:
    assert main(["--summary", "--json", *flags, str(path)]) == 0
    return json.loads(capsys.readouterr().out)["source"]


def _note(path: Path, use_cache: bool = True) -> tuple[bool, str]:
    with open_trace(path, use_cache=use_cache) as opened:
        return opened.from_cache, opened.cache_note


def test_cold_then_warm(trace: Path, private_cache: Path, capsys) -> None:
    cold = _source(capsys, trace)
    assert (cold["from_cache"], cold["cache_note"]) == (False, "built now: no cache yet")
    warm = _source(capsys, trace)
    assert (warm["from_cache"], warm["cache_note"]) == (True, "from cache (summary stored)")
    assert _note(trace) == (True, "from cache")


def test_text_header_says_it(trace: Path, private_cache: Path, capsys) -> None:
    assert main(["--summary", str(trace)]) == 0
    assert "— built now: no cache yet" in capsys.readouterr().out
    assert main(["--summary", str(trace)]) == 0
    assert "— from cache" in capsys.readouterr().out


def test_no_cache_flag(trace: Path, private_cache: Path, capsys) -> None:
    source = _source(capsys, trace, "--no-cache")
    assert (source["from_cache"], source["cache_note"]) == (False, "not cached: --no-cache")
    assert not private_cache.exists()


def test_cache_dir_not_writable(trace: Path, tmp_path: Path, monkeypatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("TUI_CACHE_DIR", str(blocker / "tui"))  # under a file: no dir there
    assert _note(trace) == (False, f"not cached: cache dir {blocker / 'tui'} not writable")


def test_trace_touched_since(trace: Path, private_cache: Path) -> None:
    _note(trace)
    stat = trace.stat()
    os.utime(trace, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert _note(trace) == (False, "rebuilt: the trace changed since (modified since)")
    assert len(list(private_cache.glob("*.duckdb"))) == 1  # the superseded cache is gone
    assert _note(trace) == (True, "from cache")


def test_trace_replaced_by_another(trace: Path, private_cache: Path) -> None:
    _note(trace)
    size = trace.stat().st_size
    shutil.copy(sample("ddp_rank0.pt.trace.json.gz"), trace)  # same path, other content
    from_cache, note = _note(trace)
    assert not from_cache
    assert note.startswith(f"rebuilt: the trace changed since (size {size:,} → "
                           f"{trace.stat().st_size:,} bytes")


def test_cache_from_older_tui(trace: Path, private_cache: Path, monkeypatch) -> None:
    monkeypatch.setattr(cache, "CACHE_VERSION", "2")
    _note(trace)
    monkeypatch.undo()
    monkeypatch.setenv("TUI_CACHE_DIR", str(private_cache))
    assert _note(trace) == (False, "rebuilt: cache from an older tui "
                                   f"(cache version 2, now {cache.CACHE_VERSION})")


def test_incomplete_cache(trace: Path, private_cache: Path) -> None:
    _note(trace)
    with duckdb.connect(str(cache.cache_file(trace))) as con:
        con.execute("DROP TABLE gpu_idle")
    assert _note(trace) == (False, "rebuilt: the cache was incomplete")
    assert _note(trace) == (True, "from cache")


@pytest.mark.slow
def test_damaged_cache(trace: Path, private_cache: Path) -> None:
    _note(trace)
    cache.cache_file(trace).write_bytes(b"not a database" * 100)
    from_cache, note = _note(trace)
    assert not from_cache and note.startswith("rebuilt: the cache was unreadable (")


@pytest.mark.slow
def test_locked_cache_is_left_alone(trace: Path, private_cache: Path) -> None:
    _note(trace)
    target = cache.cache_file(trace)
    holder = subprocess.Popen(  # another program holds it open for writing
        [sys.executable, "-c", "import duckdb, sys; c = duckdb.connect(sys.argv[1]); "
         "print('held', flush=True); sys.stdin.read()", str(target)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        from_cache, note = _note(trace)
        assert not from_cache and note.startswith("not cached: the cache file is locked (")
        assert target.is_file()
    finally:
        holder.communicate("")
    assert _note(trace) == (True, "from cache")


def test_another_tui_building(trace: Path, private_cache: Path) -> None:
    other = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)
    try:
        target = cache.cache_file(trace)
        private_cache.mkdir()
        target.with_name(f"{target.name}.partial-{other.pid}").write_bytes(b"")
        assert _note(trace) == (False, f"built now: another tui (pid {other.pid}) is "
                                       "building this cache too; the first to finish is kept")
    finally:
        other.communicate(b"")


@pytest.mark.slow
def test_ranks_say_it(tmp_path: Path, private_cache: Path, capsys) -> None:
    run = tmp_path / "run"
    run.mkdir()
    for rank in (0, 1):
        shutil.copy(sample(f"ddp_rank{rank}.pt.trace.json.gz"), run)
    assert main(["--summary", str(run)]) == 0
    assert "— built now: no cache yet (×2)" in capsys.readouterr().out
    assert main(["--summary", "--json", str(run)]) == 0  # the run's summary kept: read back
    source = json.loads(capsys.readouterr().out)["source"]
    assert source["from_cache"]
    assert source["cache_notes"] == ["from cache (run summary stored)"] * 2
    for memo in private_cache.glob("run-*.json"):  # each rank's summary read back
        memo.unlink()
    assert main(["--summary", "--json", str(run)]) == 0
    source = json.loads(capsys.readouterr().out)["source"]
    assert source["cache_notes"] == ["from cache (summary stored)"] * 2
    for memo in [*private_cache.glob("*.rank-*.json"), *private_cache.glob("run-*.json")]:
        memo.unlink()  # each rank summed up from its cache
    assert main(["--summary", "--json", str(run)]) == 0
    source = json.loads(capsys.readouterr().out)["source"]
    assert source["from_cache"] and source["cache_notes"] == ["from cache"] * 2


@sync
async def _open_in_app(path: Path, seen: list[tuple[str, str]]) -> None:
    app = TraceApp(path)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        seen.append((str(app.status.render()), app.sub_title))


@pytest.mark.slow
def test_app_status_line_says_it(trace: Path, private_cache: Path) -> None:
    seen: list[tuple[str, str]] = []
    _open_in_app(trace, seen)
    _open_in_app(trace, seen)
    (cold_line, cold_title), (warm_line, warm_title) = seen
    assert cold_line.endswith("kineto · built now") and cold_title == "built now: no cache yet"
    assert warm_line.endswith("kineto · from cache") and warm_title == "from cache"
