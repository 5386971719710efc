"""What a loader stages (temp views, tables and types: its parsed events and the rows it
writes from) is dropped once the rows are written (tui.loading.trace._drop_staging): only
the schema's tables go on to the derived tables, the summary and the cache file."""

from __future__ import annotations

import threading
from pathlib import Path

import duckdb
import pytest

from tests.helpers.paths import sample
from tui.core.queries import load_query
from tui.loading import trace as trace_module
from tui.loading.trace import open_trace


def _training_tables(monkeypatch: pytest.MonkeyPatch, cores: int,
                     queries: tuple[str, ...]) -> list[list[tuple]]:
    """Each query's rows over stacks_training.pt.trace.json.gz loaded as on `cores` cores."""
    monkeypatch.setattr(trace_module, "usable_cores", lambda: cores)
    with open_trace(sample("stacks_training.pt.trace.json.gz"), use_cache=False) as opened:
        return [opened.con.execute(query).fetchall() for query in queries]


@pytest.mark.parametrize(("name", "staged"), [
    ("multistream.pt.trace.json.gz",
     {("VIEW", "staged_gpu"), ("VIEW", "staged_host"), ("TYPE", "kineto_event_args")}),
    ("jax_train/plugins/profile/2026_11_24_13_14_53/vm.trace.json.gz",
     {("TABLE", "staged_gpu"), ("TABLE", "staged_host"), ("TYPE", "xla_event_args")}),
])
def test_what_a_loader_staged_is_dropped(name: str, staged: set[tuple[str, str]],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    found: list[set[tuple[str, str]]] = []
    drop = trace_module._drop_staging

    def listed_around(con: duckdb.DuckDBPyConnection) -> None:
        found.append(set(con.execute(load_query("staging_objects")).fetchall()))
        drop(con)
        found.append(set(con.execute(load_query("staging_objects")).fetchall()))

    monkeypatch.setattr(trace_module, "_drop_staging", listed_around)
    with open_trace(sample(name), use_cache=False) as trace:
        (temporary,), = trace.con.execute(
            "SELECT count(*) FROM duckdb_views() WHERE temporary AND NOT internal").fetchall()
    assert staged <= found[0]
    assert found[1] == set() and temporary == 0


def test_the_scratch_is_let_go_of_while_the_depths_are_worked_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The loader's scratch database and files go once the staged rows are written, beside
    the host depths (still running then), not after them; and they are gone at the end."""
    dropped = threading.Event()
    seen: dict[str, object] = {}
    drop, depths = trace_module._drop_scratch, trace_module.write_host_depths

    def drop_scratch(con: duckdb.DuckDBPyConnection, work: Path) -> None:
        seen["work"] = work
        drop(con, work)
        dropped.set()

    def write_host_depths(con: duckdb.DuckDBPyConnection, *rest: object) -> None:
        seen["during"] = dropped.wait(timeout=10)  # the loading thread let go meanwhile
        depths(con, *rest)

    monkeypatch.setattr(trace_module, "_drop_scratch", drop_scratch)
    monkeypatch.setattr(trace_module, "write_host_depths", write_host_depths)
    with open_trace(sample("multistream.pt.trace.json.gz"), use_cache=False) as trace:
        attached = {name for name, in trace.con.execute(
            "SELECT database_name FROM duckdb_databases()").fetchall()}
    assert seen["during"] is True
    assert "scratch" not in attached and not Path(str(seen["work"])).exists()


def test_launch_points_staged_beside_the_depths_give_the_same_stacks(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A Kineto trace's launch points are staged from the host rows' copy while their
    depths are worked out (stage_points_beside_depths), before host_activities is written:
    every launch, Python frame and memory event's context is as staged from
    host_activities afterwards (build_stacks, when nothing staged them)."""
    tables = ("SELECT * FROM launches ORDER BY gpu_id",
              "SELECT * FROM memory_events ORDER BY id",
              "SELECT * FROM python_frames ORDER BY id")
    staged: list[bool] = []
    stage = trace_module.stage_points_beside_depths

    def recorded(con: duckdb.DuckDBPyConnection) -> None:
        staged.append(True)
        stage(con)

    def stacks() -> list[list[tuple]]:
        with open_trace(sample("stacks_training.pt.trace.json.gz"), use_cache=False) as opened:
            return [opened.con.execute(query).fetchall() for query in tables]

    monkeypatch.setattr(trace_module, "stage_points_beside_depths", recorded)
    early = stacks()
    monkeypatch.setattr(trace_module, "stage_points_beside_depths", lambda con: None)
    assert staged == [True] and stacks() == early
    launches, memory, _ = early
    assert sum(1 for row in launches if row[2] is not None) > 100
    assert sum(1 for row in memory if row[-2] is not None) > 10


def test_gpu_rows_sorted_beside_the_host_rows_copy_are_the_rows_sorted_after_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """From POOL_MIN_CORES cores a Kineto trace's GPU rows are sorted and written on a
    second connection (from the scratch database's view) while the host rows are copied
    out: gpu_activities, host_activities and the launches are the same as written after
    the copy on the loading connection (as on 2 cores)."""
    tables = ("SELECT * FROM gpu_activities ORDER BY id",
              "SELECT * FROM host_activities ORDER BY id",
              "SELECT * FROM launches ORDER BY gpu_id")
    written_from: list[tuple[str, bool]] = []
    write = trace_module._write_gpu_rows

    def recorded(con: duckdb.DuckDBPyConnection, staged: str = "staged_gpu",
                 small: bool = False) -> None:
        written_from.append((staged, threading.current_thread() is threading.main_thread()))
        write(con, staged, small)

    monkeypatch.setattr(trace_module, "_write_gpu_rows", recorded)
    after = _training_tables(monkeypatch, 2, tables)
    beside = _training_tables(monkeypatch, trace_module.POOL_MIN_CORES, tables)
    assert written_from == [("staged_gpu", True), (trace_module.STAGED_GPU_ELSEWHERE, False)]
    assert beside == after
    assert len(after[0]) > 100 and sum(1 for row in after[2] if row[1] is not None) > 100


def test_stacks_written_beside_the_host_rows_write_are_the_stacks_written_after_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """From POOL_MIN_CORES cores a Kineto trace's launch stacks are written from the host
    rows' copy once every depth is set, while a second connection writes the rows into
    host_activities (stage_stacks_beside_write): every Python frame (parents, own ids),
    launch and memory event's context, and the frames' source, is as written from
    host_activities after it (as on 2 cores)."""
    tables = ("SELECT * FROM launches ORDER BY gpu_id",
              "SELECT * FROM memory_events ORDER BY id",
              "SELECT * FROM python_frames ORDER BY id",
              "SELECT value FROM trace_meta WHERE key = 'code_source'")
    seen: list[tuple[int, int]] = []  # (depths not set, frames written) around the staging
    stage = trace_module.stage_stacks_beside_write

    def recorded(con: duckdb.DuckDBPyConnection) -> None:
        (unset,), = con.execute(
            "SELECT count(*) FROM finalize.host_rows WHERE depth IS NULL").fetchall()
        stage(con)
        (frames,), = con.execute("SELECT count(*) FROM python_frames").fetchall()
        seen.append((unset, frames))

    monkeypatch.setattr(trace_module, "stage_stacks_beside_write", recorded)
    after = _training_tables(monkeypatch, 2, tables)
    assert seen == []
    beside = _training_tables(monkeypatch, trace_module.POOL_MIN_CORES, tables)
    assert seen == [(0, len(after[2]))]
    assert beside == after
    launches, memory, frames, source = after
    assert source == [("python",)]
    assert sum(1 for row in launches if row[2] is not None and row[3] is not None) > 100
    assert sum(1 for row in memory if row[-2] is not None) > 10
    assert sum(1 for row in frames if row[1] is not None) > 100
    assert sum(1 for row in frames if row[-1] is not None) > 100  # the trace's own ids


def test_a_depths_error_before_they_are_set_ends_the_load_not_the_wait(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """From POOL_MIN_CORES cores the loading connection waits for the host depths to be set
    before the launch stacks: where their work fails first, the load ends with its error
    (and writes no stacks) rather than waiting on."""
    staged: list[bool] = []

    def failing(con: duckdb.DuckDBPyConnection, *rest: object) -> None:
        raise RuntimeError("the depths failed")

    monkeypatch.setattr(trace_module, "usable_cores", lambda: trace_module.POOL_MIN_CORES)
    monkeypatch.setattr(trace_module, "write_host_depths", failing)
    monkeypatch.setattr(trace_module, "stage_stacks_beside_write",
                        lambda con: staged.append(True))
    raised: list[BaseException] = []

    def load() -> None:
        try:
            open_trace(sample("multistream.pt.trace.json.gz"), use_cache=False).close()
        except BaseException as exc:  # noqa: BLE001 - what the load ended with
            raised.append(exc)

    loading = threading.Thread(target=load, daemon=True)
    loading.start()
    loading.join(timeout=60)
    assert not loading.is_alive()
    assert [str(exc) for exc in raised] == ["the depths failed"] and staged == []


@pytest.mark.parametrize("name", ["ddp4/ddp_rank0.pt.trace.json.gz", "multistream.sqlite"])
def test_a_small_traces_gpu_rows_sorted_by_their_names_are_the_rows_sorted_by_enum(
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """A small trace's GPU rows (keeps_whole_share) are sorted by their names' text, not
    through the ENUM of the names a big trace's sort carries: the same rows, ids and order
    (a Kineto rank, whose loader stages them, and an nsys export, whose writes its host
    rows itself)."""
    write = trace_module._write_gpu_rows
    asked: list[bool] = []
    by_enum: list[bool] = []

    def recorded(con: duckdb.DuckDBPyConnection, staged: str = "staged_gpu",
                 small: bool = False) -> None:
        asked.append(small)
        write(con, staged, small and not by_enum[-1])

    monkeypatch.setattr(trace_module, "_write_gpu_rows", recorded)
    rows = []
    for enum in (False, True):
        by_enum.append(enum)
        with open_trace(sample(name), use_cache=False) as opened:
            rows.append(opened.con.execute("SELECT * FROM gpu_activities ORDER BY id").fetchall())
    assert asked == [True, True]
    assert rows[0] == rows[1]
    assert len(rows[0]) > 100 and [r[0] for r in rows[0]] == list(range(len(rows[0])))
