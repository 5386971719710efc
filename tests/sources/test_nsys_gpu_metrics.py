"""An nsys export's GPU metric samples read in parts (rowid ranges), each on connections
of its own at once (tui/sources/nsys_gpu_metrics.py): the same rows, in the export's
order, as sqlite3 reads them."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import duckdb
import pytest

from tests.helpers.paths import inflated
from tui.core import budget
from tui.core.db import connect
from tui.core.gpu_metric_names import is_kept
from tui.core.queries import load_query
from tui.sources import nsys_gpu_metrics
from tui.sources.nsys_gpu_metrics import load_nsys_gpu_metrics, metric_connections, rowid_parts
from tui.sources.nsys_sqlite import _probe_schema

EXPORT = "loops/loop_memory.sqlite"  # 308,000 samples of 22 metrics, one GPU


@pytest.fixture(scope="module")
def export() -> Path:
    return inflated(EXPORT)


@pytest.fixture(scope="module")
def sqlite_rows(export: Path) -> list[tuple[int, int, int, float]]:
    """sqlite3's own read: the kept metrics' samples in rowid order, as gpu_metrics holds
    them (device 0: the one GPU)."""
    db = sqlite3.connect(export)
    try:
        kept = [i for i, name in db.execute(
            "SELECT metricId, metricName FROM TARGET_INFO_GPU_METRICS") if is_kept(name)]
        return [(0, m, t, float(v)) for t, m, v in db.execute(
            f"SELECT timestamp, metricId, value FROM GPU_METRICS "
            f"WHERE metricId IN ({', '.join('?' * len(kept))}) ORDER BY rowid", kept)]
    finally:
        db.close()


@pytest.fixture
def small_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parts of 50,000 rows at least, so that the sample's 308,000 make several."""
    monkeypatch.setattr(nsys_gpu_metrics, "MIN_ROWS_PER_PART", 50_000)


@contextlib.contextmanager
def _loaded(export: Path, connections: int) -> Iterator[duckdb.DuckDBPyConnection]:
    con = connect()
    try:
        con.execute(load_query("schema"))
        assert load_nsys_gpu_metrics(export, _probe_schema(export), con, connections) == []
        yield con
    finally:
        con.close()


@pytest.mark.parametrize("connections", [1, 4])
def test_the_parts_hold_sqlites_rows_in_its_order(
        export: Path, sqlite_rows: list[tuple[int, int, int, float]], small_parts: None,
        connections: int) -> None:
    with _loaded(export, connections) as con:
        rows = con.execute(
            "SELECT device, metric_id, ts_ns, value FROM gpu_metrics ORDER BY rowid").fetchall()
        assert len(rows) == len(sqlite_rows) == 126_000
        assert rows == sqlite_rows  # the parts committed in their order: time order


def test_the_parts_cover_the_rowids_once(export: Path, small_parts: None) -> None:
    uri = f"file:{quote(str(export))}?mode=ro"
    parts = rowid_parts(uri, 4)
    assert len(parts) == 4
    assert parts[0][0] == 1 and parts[-1][1] == 308_000
    assert all(a[1] + 1 == b[0] for a, b in zip(parts, parts[1:], strict=False))
    # a part is never smaller than the minimum: 308,000 rows make 6 parts at most
    assert len(rowid_parts(uri, 64)) == 6
    assert rowid_parts(uri, 1) == [(1, 308_000)]


def test_one_core_is_left_to_the_rest_of_the_export(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "available_cores", lambda: 16)
    monkeypatch.delenv("TUI_THREADS", raising=False)
    assert metric_connections() == nsys_gpu_metrics.MAX_CONNECTIONS
    monkeypatch.setenv("TUI_THREADS", "3")
    assert metric_connections() == 2
    monkeypatch.setenv("TUI_THREADS", "1")
    assert metric_connections() == 1
