"""A run's summaries kept for the next open (tui.analysis.rank_memo, tui.runs.run_memo),
on the real four-rank DDP and FSDP runs: read back, they equal the summaries worked out
again; a rank that changed is worked out alone, the others read back."""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from tests.helpers.caches import copy_cache_files
from tests.helpers.pilot import SIZE, cells, static_text, sync, until
from tui.analysis.rank_memo import RANK_MEMO_VERSION
from tui.apps.run_app import RunApp
from tui.cli.main import main
from tui.loading.paths import expand_paths
from tui.runs.run import open_run
from tui.widgets.run_tables import CollectiveTable, RankTable

MIN_GAP_NS = 1_000_000
STORED_RANK = "from cache (summary stored)"
STORED_RUN = "from cache (run summary stored)"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("TUI_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def loaded_before(cache: Path, run_cache: Path) -> Path:
    """`cache` holding the cache files of ddp4's and fsdp4's ranks, as a first open of each
    run leaves them, and no summary kept: a test about the summaries kept beside them
    starts there rather than loading the eight ranks cold (about 0.7 CPU-s a run)."""
    ranks = expand_paths([SAMPLES / "ddp4", SAMPLES / "fsdp4"])
    copy_cache_files(ranks, run_cache, cache)
    return cache


def _summary(capsys: pytest.CaptureFixture, *args: str) -> dict:
    assert main(["--summary", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def _figures(summary: dict) -> dict:
    """The summary less what says how this open read it."""
    source = dict(summary["source"])
    for key in ("from_cache", "cache_notes", "load_s"):
        del source[key]
    return {**summary, "source": source}


def _run_memos(cache: Path) -> list[Path]:
    return sorted(cache.glob("run-*.json"))


@pytest.mark.parametrize("run", ["ddp4", "fsdp4"])
def test_a_run_read_back_equals_the_run_worked_out(run: str, cache: Path, capsys) -> None:
    folder = str(SAMPLES / run)
    cold = _summary(capsys, folder)
    assert not cold["source"]["from_cache"]
    # each rank's, kept
    assert len(list(cache.glob(f"*.rank-1000000.{RANK_MEMO_VERSION}.json"))) == 4
    assert len(_run_memos(cache)) == 1
    for memo in _run_memos(cache):
        memo.unlink()
    from_ranks = _summary(capsys, folder)  # each rank's summary read back, the run worked out
    assert from_ranks["source"]["cache_notes"] == [STORED_RANK] * 4
    assert main(["--summary", folder]) == 0
    text_from_ranks = capsys.readouterr().out
    from_run = _summary(capsys, folder)  # the run's summary read back
    assert from_run["source"]["cache_notes"] == [STORED_RUN] * 4
    assert main(["--summary", folder]) == 0
    text_from_run = capsys.readouterr().out
    no_cache = _summary(capsys, "--no-cache", folder)
    assert _figures(cold) == _figures(from_ranks) == _figures(from_run) == _figures(no_cache)
    assert text_from_ranks == text_from_run
    assert "straggler" in text_from_run or "balanced" in text_from_run


def _copy_run(tmp_path: Path, run: str = "ddp4") -> Path:
    folder = tmp_path / run
    shutil.copytree(SAMPLES / run, folder)
    return folder


def _notes(folder: Path) -> dict[str, str]:
    with open_run([folder], min_gap_ns=MIN_GAP_NS, workers=1) as opened:
        return {store.path.name: store.cache_note for store in opened.stores}


def test_a_changed_rank_is_worked_out_alone(tmp_path: Path, cache: Path, capsys) -> None:
    folder = _copy_run(tmp_path)
    first = _summary(capsys, str(folder))
    changed = folder / "ddp_rank2.pt.trace.json.gz"
    stat = changed.stat()
    os.utime(changed, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # a new recording
    again = _summary(capsys, str(folder))
    notes = dict(zip((Path(p).name for p in again["source"]["paths"]),
                     again["source"]["cache_notes"], strict=True))
    assert notes.pop(changed.name) != STORED_RANK  # loaded, not read back
    assert set(notes.values()) == {STORED_RANK}
    assert _figures(again) == _figures(first)
    assert _summary(capsys, str(folder))["source"]["cache_notes"] == [STORED_RUN] * 4


def test_an_added_rank_is_worked_out_alone(tmp_path: Path, cache: Path, capsys) -> None:
    folder = _copy_run(tmp_path)
    _summary(capsys, str(folder))
    shutil.copyfile(folder / "ddp_rank0.pt.trace.json.gz", folder / "ddp_rank4.pt.trace.json.gz")
    notes = _notes(folder)
    assert notes.pop("ddp_rank4.pt.trace.json.gz") != STORED_RANK
    assert set(notes.values()) == {STORED_RANK}
    five = _summary(capsys, str(folder))
    assert five["source"]["ranks"] == 5 and len(five["ranks"]) == 5


def test_a_rank_summary_kept_for_another_cache_file_is_not_trusted(
        tmp_path: Path, cache: Path, capsys) -> None:
    """The cache file rebuilt (another size or modification time): its rank's summary is
    worked out again, and the run's too."""
    folder = _copy_run(tmp_path)
    first = _summary(capsys, str(folder))
    (cache_file,) = cache.glob("ddp_rank1.pt.trace.json.gz-*.duckdb")
    stat = cache_file.stat()
    os.utime(cache_file, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    again = _summary(capsys, str(folder))
    notes = dict(zip((Path(p).name for p in again["source"]["paths"]),
                     again["source"]["cache_notes"], strict=True))
    assert notes.pop("ddp_rank1.pt.trace.json.gz") == "from cache"  # summed up again
    assert set(notes.values()) == {STORED_RANK}
    assert _figures(again) == _figures(first)


def test_a_damaged_run_memo_is_worked_out_again(loaded_before: Path, capsys) -> None:
    folder = SAMPLES / "ddp4"
    first = _summary(capsys, str(folder))
    (memo,) = _run_memos(loaded_before)
    memo.write_bytes(memo.read_bytes()[:-100])  # cut short
    again = _summary(capsys, str(folder))
    assert again["source"]["cache_notes"] == [STORED_RANK] * 4
    assert _figures(again) == _figures(first)


def test_converted_stores_keep_their_summaries_in_the_cache(
        tmp_path: Path, cache: Path, capsys) -> None:
    out = tmp_path / "stores"
    assert main(["convert", str(SAMPLES / "ddp4"), "--out", str(out), "--no-cache"]) == 0
    capsys.readouterr()
    before = {p.name: p.stat().st_mtime_ns for p in out.rglob("*")}
    first = _summary(capsys, str(out))
    assert len(list(cache.glob(f"*.tui-store-*.rank-1000000.{RANK_MEMO_VERSION}.json"))) == 4
    for memo in _run_memos(cache):
        memo.unlink()
    from_ranks = _summary(capsys, str(out))
    from_run = _summary(capsys, str(out))
    assert from_run["source"]["cache_notes"] == [STORED_RUN] * 4
    assert _figures(first) == _figures(from_ranks) == _figures(from_run)
    assert {p.name: p.stat().st_mtime_ns for p in out.rglob("*")
            if p.name in before} == before  # the stores are read, never written


@sync
async def test_the_ranks_app_shows_a_run_kept_without_opening_it(
        cache: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """Opened once, the run is kept; the next RunApp shows the same header, ranks,
    findings and waits per collective from what was kept, no store opened."""
    import tui.runs.run

    shown = []
    for _ in range(2):
        app = RunApp([SAMPLES / "ddp4"])
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda app=app: app.run_data is not None)
            await pilot.pause()
            # the rank under the cursor: its own summary, read from what its load kept
            await until(pilot, lambda app=app: static_text(app, "#rank-details") != "")
            shown.append((static_text(app, "#run-header"), cells(app.query_one(RankTable)),
                          static_text(app, "#run-findings"),
                          cells(app.query_one(CollectiveTable)),
                          static_text(app, "#rank-breakdown"),
                          static_text(app, "#rank-details"), app.ranks.rank_at_cursor()))
            await pilot.press("q")

        def opened(*_args, **_kwargs):
            raise AssertionError("the run was opened again")

        monkeypatch.setattr(tui.runs.run, "open_run", opened)
    first, again = shown
    assert "from cache" not in first[0] and "from cache" in again[0]
    assert first[1:] == again[1:]
    assert len(first[1]) == 4 and first[3]
    rank = first[6]
    row = next(r for r in app.run_data.summary["ranks"] if r["rank"] == rank)
    gaps = [g for g in app.run_data.summary["gaps"] if g["rank"] == rank]
    assert f"longest gaps ({len(gaps)})" in first[5]
    # the rank's diagnosis alone: what `tui --summary` says of its trace by itself
    assert main(["--summary", "--json", row["path"]]) == 0
    alone = json.loads(capsys.readouterr().out)["diagnosis"]["text"]
    assert " ".join(first[5].split()).startswith(f"rank {rank} alone: {alone}")


def test_a_run_summed_up_on_a_dask_cluster_equals_the_local_pool(
        tmp_path: Path, cache: Path, run_cache: Path, capsys,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`tui --summary RUN --scheduler local`: each rank loaded and summed up by a task of
    a local Dask cluster, into the cache; the same figures as the local pool's."""
    pytest.importorskip("dask.distributed")
    folder = str(SAMPLES / "fsdp4")
    on_cluster = _summary(capsys, folder, "--scheduler", "local", "--workers", "2")
    # kept by the tasks
    assert len(list(cache.glob(f"*.rank-1000000.{RANK_MEMO_VERSION}.json"))) == 4
    # the local pool's: the ranks as this process loads them (the run's cache files, loaded
    # once a run), summed up here; not the four loaded cold again
    local_cache = tmp_path / "local-cache"
    copy_cache_files(expand_paths([SAMPLES / "fsdp4"]), run_cache, local_cache)
    monkeypatch.setenv("TUI_CACHE_DIR", str(local_cache))
    local = _summary(capsys, folder)
    assert local["source"]["cache_notes"] == ["from cache"] * 4  # summed up, not read back
    assert _figures(on_cluster) == _figures(local)


def test_a_scheduler_goes_with_a_run_summary(capsys) -> None:
    assert main(["--summary", str(SAMPLES / "ddp_rank0.pt.trace.json.gz"),
                 "--scheduler", "local"]) == 2
    assert "go with a run" in capsys.readouterr().err
    assert main(["--summary", "--no-cache", str(SAMPLES / "ddp4"), "--scheduler",
                 "local"]) == 2
    assert "--scheduler goes with --summary, and the cache" in capsys.readouterr().err


@pytest.mark.parametrize("name, form", [("ddp4", "--json"), ("ddp4", "text"),
                                        ("stacks_training.pt.trace.json.gz", "text"),
                                        ("stacks_training.pt.trace.json.gz", "--memory")])
def test_a_kept_summary_read_back_imports_neither_duckdb_nor_pyarrow(
        name: str, form: str, loaded_before: Path, capsys) -> None:
    """What makes a kept run or trace open in a fraction of a second: reading its summary
    back, as JSON or as text, imports neither DuckDB nor pyarrow nor NumPy (together ~0.4 s
    of CPU and 80 MB), nor does a budget given with --memory."""
    import subprocess
    import sys

    folder = str(SAMPLES / name)
    first = _summary(capsys, folder)
    flags = {"--json": ["--json"], "text": [], "--memory": ["--memory", "2GB"]}[form]
    script = ("import runpy, sys\n"
              f"sys.argv = ['tui', '--summary', *{flags!r}, {folder!r}]\n"
              "try:\n    runpy.run_module('tui', run_name='__main__')\n"
              "except SystemExit as done:\n    assert not done.code, done.code\n"
              "heavy = sorted({'duckdb', 'pyarrow', 'numpy'} & set(sys.modules))\n"
              "print(heavy, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "TUI_CACHE_DIR": str(loaded_before)},
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "[]"
    if form != "--json":
        assert "from cache" in done.stdout.splitlines()[1], done.stdout[:300]
        return
    warm = json.loads(done.stdout)
    assert warm["source"]["cache_notes"] == [STORED_RUN] * 4
    assert _figures(warm) == _figures(first)


@pytest.mark.parametrize("run", ["ddp4", "fsdp4"])
def test_a_run_combined_in_batches_equals_the_run_attached_whole(
        run: str, loaded_before: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run of more stores than are attached at once is copied into a file of its own,
    three stores at a time here: the same summary as over the four stores attached."""
    folder = str(SAMPLES / run)
    whole = _summary(capsys, folder)
    for memo in _run_memos(loaded_before):
        memo.unlink()
    monkeypatch.setattr("tui.runs.combine.ATTACHED_AT_ONCE", 3)
    batched = _summary(capsys, folder)
    assert batched["source"]["cache_notes"] == [STORED_RANK] * 4  # the run worked out again
    assert _figures(batched) == _figures(whole)
    assert whole["ranks"] and whole["kernels"]


def test_a_run_combined_in_batches_stops_between_batches(tmp_path: Path,
                                                          loaded_before: Path) -> None:
    from tui.core.load_progress import LoadStopped
    from tui.runs.combine import combine

    with open_run([SAMPLES / "ddp4"], workers=1) as opened:
        stop = threading.Event()
        stop.set()
        with pytest.raises(LoadStopped):
            combine(opened.stores, opened.ranks, tmp_path, at_once=3, stop=stop)
        (tmp_path / "again").mkdir()
        batched = combine(opened.stores, opened.ranks, tmp_path / "again", at_once=3)
        counts = "SELECT rank, count(*) FROM host_activities GROUP BY rank ORDER BY rank"
        assert (batched.execute(counts).fetchall()
                == opened.con.execute(counts).fetchall())
        assert (tmp_path / "again" / "run.duckdb").is_file()
        batched.close()


def test_a_combined_run_gives_duckdb_less_memory_past_what_its_ranks_hold(
        tmp_path: Path, loaded_before: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ranks' summaries sit in Python beside a combined database: past
    RANKS_PYTHON_ALLOWANCE its DuckDB gets as much less of the budget, down to
    RUN_MIN_DUCKDB_SHARE of its usual part, and the run's figures stay the same."""
    from tui.core.budget import memory_budget_bytes
    from tui.core.db import OUTSIDE_DUCKDB
    from tui.runs import combine as combining

    usual = memory_budget_bytes() * (1 - OUTSIDE_DUCKDB)
    assert combining.run_memory_limit(1_000) == f"{int(usual) // 1000}KB"
    beyond = 4_096 * combining.RANK_PYTHON_BYTES - combining.RANKS_PYTHON_ALLOWANCE
    assert combining.run_memory_limit(4_096) == f"{int(usual - beyond) // 1000}KB"
    assert combining.run_memory_limit(100_000) == (
        f"{int(usual * combining.RUN_MIN_DUCKDB_SHARE) // 1000}KB")
    monkeypatch.setattr(combining, "RANKS_PYTHON_ALLOWANCE", 0)
    monkeypatch.setattr(combining, "RANK_PYTHON_BYTES", int(usual) // 10)  # 4 ranks: 40%
    counts = "SELECT rank, count(*), sum(end_ns - start_ns) FROM gpu_activities GROUP BY rank"
    with open_run([SAMPLES / "ddp4"], workers=1) as opened:
        batched = combining.combine(opened.stores, opened.ranks, tmp_path, at_once=3)
        value, unit = batched.execute(
            "SELECT current_setting('memory_limit')").fetchone()[0].split()
        assert unit == "MiB"
        assert float(value) * 2**20 == pytest.approx(usual * 0.6, rel=0.01)
        assert sorted(batched.execute(counts).fetchall()) == sorted(
            opened.con.execute(counts).fetchall())
        batched.close()


@pytest.mark.slow
def test_a_run_copied_while_its_ranks_load_equals_the_run_attached_whole(
        tmp_path: Path, loaded_before: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run of more stores than are attached at once is copied as the pool loads its ranks
    (BatchCopy.add), a store at a time here, those found in the cache first as the pool
    starts: every store is copied before the run is finished, and the run's summary is
    the one over the four stores attached. Without a pool nothing is copied early."""
    from tui.loading.cache import cache_file
    from tui.runs import combine as combining

    folder, cache = SAMPLES / "ddp4", loaded_before
    whole = _summary(capsys, str(folder))
    events: list[str] = []
    copy_stores, finish = combining.BatchCopy._copy, combining.BatchCopy.finish

    def recorded_copy(self, stores, first, ranks, offsets=None) -> None:  # noqa: ANN001
        events.append(f"copy {first}")
        copy_stores(self, stores, first, ranks, offsets)

    def recorded_finish(self, *args, **kwargs):  # noqa: ANN001, ANN202
        events.append("finish")
        return finish(self, *args, **kwargs)

    monkeypatch.setattr(combining.BatchCopy, "_copy", recorded_copy)
    monkeypatch.setattr(combining.BatchCopy, "finish", recorded_finish)
    monkeypatch.setattr(combining, "ATTACHED_AT_ONCE", 3)
    monkeypatch.setattr(combining, "COPY_CHUNK", 1)
    # ranks 0 and 1 from the cache with their summaries, 2 and 3 loaded by the pool
    for rank in (2, 3):
        target = cache_file(folder / f"ddp_rank{rank}.pt.trace.json.gz")
        for kept in cache.glob(f"{target.name}*"):
            kept.unlink()
    for memo in _run_memos(cache):
        memo.unlink()
    early = _summary(capsys, "--workers", "2", str(folder))
    assert early["source"]["cache_notes"][:2] == [STORED_RANK] * 2
    assert events == ["copy 0", "copy 1", "copy 2", "copy 3", "finish"]
    assert _figures(early) == _figures(whole)
    for memo in _run_memos(cache):  # every rank from the cache: no pool, a batch at a time
        memo.unlink()
    events.clear()
    again = _summary(capsys, "--workers", "2", str(folder))
    assert again["source"]["cache_notes"] == [STORED_RANK] * 4
    assert events == ["finish", "copy 0", "copy 3"]
    assert _figures(again) == _figures(whole)


def test_a_run_copied_early_in_an_order_its_ranks_undo_is_combined_anew(
        tmp_path: Path, loaded_before: Path) -> None:
    """Stores copied early take their place in the order given as their rank; where the
    ranks the traces name undo that order, the early copy is dropped and the run copied
    anew, by rank: the same rows as the stores attached."""
    from tui.runs.combine import BatchCopy

    with open_run([SAMPLES / "ddp4"], workers=1) as opened:
        assert opened.ranks == [0, 1, 2, 3]
        counts = "SELECT rank, count(*), sum(end_ns) FROM gpu_activities GROUP BY rank ORDER BY 1"
        attached = opened.con.execute(counts).fetchall()
        in_order = BatchCopy(tmp_path, at_once=2, chunk=1)
        for place in (1, 3, 0):  # 0 and 1 copied once 0 has come; 3 waits for 2
            in_order.add(place, opened.stores[place])
        assert in_order.copied == opened.stores[:2]
        con = in_order.finish(opened.stores, opened.ranks)
        assert con is not None and con.execute(counts).fetchall() == attached
        con.close()
        (tmp_path / "reversed").mkdir()
        reversed_copy = BatchCopy(tmp_path / "reversed", at_once=2, chunk=1)
        for place, store in enumerate(reversed(opened.stores)):
            reversed_copy.add(place, store)
        assert reversed_copy.finish(opened.stores, opened.ranks) is None
        assert not (tmp_path / "reversed" / "run.duckdb").exists()
        # the run's last two chunks go a quarter of a chunk at a time: here one store
        (tmp_path / "last").mkdir()
        last = BatchCopy(tmp_path / "last", at_once=4, chunk=4, total=4)
        copied = []
        for place, store in enumerate(opened.stores):
            last.add(place, store)
            copied.append(len(last.copied))
        assert copied == [1, 2, 3, 4]
        con = last.finish(opened.stores, opened.ranks)
        assert con is not None and con.execute(counts).fetchall() == attached
        con.close()
