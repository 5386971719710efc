"""The DuckDB threads of a load: an nsys export's GPU metric samples load on connections
of their own, so they do not count toward the size that gets one thread
(loading/trace.py ONE_THREAD_BYTES); the built trace is read with the threads its cache
file would be opened with."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

import tui.loading.trace as trace_module
from tests.helpers.paths import inflated
from tui.cli.main import main
from tui.core.budget import duckdb_threads
from tui.core.gpu_metric_names import REPORTED
from tui.loading.trace import ONE_THREAD_BYTES, open_trace
from tui.sources import nsys_gpu_metrics
from tui.sources.nsys_gpu_metrics import samples_bytes


def test_the_samples_do_not_count_toward_a_load_s_threads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TUI_THREADS", raising=False)
    if duckdb_threads() < 2:
        pytest.skip("one core: every load runs one DuckDB thread")
    export = inflated("loops/loop_host.sqlite")  # 35 MB, of which 733,392 samples take 24 MB
    size = export.stat().st_size
    assert size - samples_bytes(export) <= ONE_THREAD_BYTES < size
    seen: list[str] = []
    finalize = trace_module.finalize_activities

    def watched(con, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(con.execute("SELECT current_setting('threads')").fetchone()[0])
        return finalize(con, *args, **kwargs)

    monkeypatch.setattr(trace_module, "finalize_activities", watched)
    with open_trace(export, use_cache=False) as trace:
        reading = trace.con.execute("SELECT current_setting('threads')").fetchone()[0]
        samples = trace.con.execute("SELECT count(*) FROM gpu_metrics").fetchone()[0]
    assert seen == [1]  # loaded as the 11 MB without the samples would be
    assert reading == duckdb_threads()  # read as the 35 MB file is
    db = sqlite3.connect(export)
    (kept,), = db.execute(
        "SELECT count(*) FROM GPU_METRICS JOIN TARGET_INFO_GPU_METRICS USING (typeId, metricId) "
        f"WHERE metricName IN ({', '.join('?' * len(REPORTED))})", REPORTED).fetchall()
    db.close()
    assert samples == kept > 300_000  # every kept sample, loaded on their own connections


@pytest.mark.parametrize("fault", [RuntimeError("injected"), KeyboardInterrupt()],
                         ids=["exception", "ctrl-c"])
def test_a_load_that_fails_while_the_samples_load_stops_them_and_leaves_no_cache(
        fault: BaseException, private_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the build fails as it builds the launch stacks, the samples' first part still writing
    failed = threading.Event()
    write_part = nsys_gpu_metrics._write_part

    def held(*args, **kwargs):  # type: ignore[no-untyped-def]
        failed.wait(10)
        return write_part(*args, **kwargs)

    def failing(con):  # type: ignore[no-untyped-def]
        failed.set()
        raise fault

    monkeypatch.setattr(nsys_gpu_metrics, "_write_part", held)
    monkeypatch.setattr(trace_module, "build_stacks", failing)
    started = time.monotonic()
    rc = main(["--summary", "--json", str(inflated("loops/loop_memory.sqlite"))])
    assert rc == (130 if isinstance(fault, KeyboardInterrupt) else 2)
    assert time.monotonic() - started < 8  # the samples' thread did not hold the exit
    assert list(private_cache.iterdir()) == []  # neither a cache file nor a partial one
