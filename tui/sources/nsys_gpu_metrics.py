"""The GPUs' hardware counters of an nsys export (`--gpu-metrics-devices`): GPU_METRICS
with the metric names of TARGET_INFO_GPU_METRICS, into gpu_metrics and gpu_metric_names;
only the metrics tui reads (tui/core/gpu_metric_names.py), filtered inside SQLite.

Each sampled GPU has a typeId of its own. The export does not name the GPU (typeName is
empty); on a two-GPU H200 report the typeIds were the event source's id plus 0 and 1, the
GPUs' PerfWorks ids (TARGET_INFO_GPU.pwGpuId): a typeId's low byte is read as that id.

The samples are millions of rows, and SQLite reads them on one core. The table is read
in parts (rowid ranges), each on a SQLite connection and a DuckDB connection of its own,
on a thread of its own: one part on a machine of 2 cores (the rest of the export loads on
the other), more where more cores are free. Each part's rows go straight from the
driver's Arrow stream into DuckDB, no Python between them: one busy thread a part. The
parts commit in their order, so gpu_metrics keeps the export's (time) order.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import adbc_driver_sqlite.dbapi as adbc_sqlite
import duckdb
import pyarrow as pa
from adbc_driver_sqlite import StatementOptions

from tui.core.budget import usable_cores
from tui.core.db import cursor, registered
from tui.core.errors import first_line
from tui.core.gpu_metric_names import is_kept
from tui.core.interrupt import is_interrupt
from tui.core.queries import Sql, fill, load_query
from tui.sources.sqlite_uri import read_only_uri

METRICS_TABLE = "GPU_METRICS"
NAMES_TABLE = "TARGET_INFO_GPU_METRICS"
ROWS_PER_BATCH = 65536
TIME_LIMIT_NS = 4611686018427387903  # as the other rows' (tui/sources/nsys_sqlite.py)
MAX_METRIC_ID = 255  # a metricId travels in the low byte of the value's column
# A part of the table is read on a connection of its own only if it has this many rows
# at least (by rowid): a connection and thread cost a few ms, a million rows ~0.25 CPU-s.
MIN_ROWS_PER_PART = 250_000
# Past four, more connections cost more than they hide: on a 16-core host the 2.5M-row copy
# loaded in 1.19-1.21x its time without the samples at 2 or 4 connections, 1.32x at 8.
MAX_CONNECTIONS = 4
# What a sample takes in the export's file: 33.1-33.6 bytes (SQLite's dbstat over three
# H100/H200 exports' GPU_METRICS, 0.7M-2.5M rows)
BYTES_PER_SAMPLE = 33


def load_nsys_gpu_metrics(path: Path, schema: dict[str, set[str]],
                          con: duckdb.DuckDBPyConnection,
                          connections: int | None = None) -> list[str]:
    """Fill gpu_metric_names and gpu_metrics from the export, reading the samples on up
    to `connections` connections at once (default: metric_connections()); warnings. An
    export without GPU metrics adds nothing."""
    if METRICS_TABLE not in schema or NAMES_TABLE not in schema:
        return []
    uri = read_only_uri(path)
    try:
        names, gpus = _read_names(uri, schema)
    except sqlite3.Error as exc:
        return [f"skipped {METRICS_TABLE} ({first_line(exc, 300)})"]
    ids = sorted(set(names.column("metric_id").to_pylist()))
    if not ids:
        return []
    if ids[-1] > MAX_METRIC_ID or ids[0] < 0:  # cannot travel packed with the value
        return [f"skipped {METRICS_TABLE} (metric ids beyond {MAX_METRIC_ID})"]
    devices = type_devices(names.column("type_id").to_pylist(), gpus)
    devices_table = pa.table({
        "type_id": pa.array(list(devices), pa.int64()),
        "device": pa.array(list(devices.values()), pa.int32())})
    one = next(iter(devices)) if len(devices) == 1 else None
    read = fill("nsys_sqlite_gpu_metrics",
                metric_ids=Sql(", ".join(str(int(i)) for i in ids)),
                type_id=Sql("" if one is not None else ", typeId AS type_id"))
    write = fill("nsys_gpu_metrics_write", device=_device_of(devices), kept=_kept(names, devices))
    try:
        with registered(con, "nsys_metric_names", names), \
                registered(con, "nsys_metric_devices", devices_table):
            con.execute(load_query("nsys_gpu_metric_names_write")).fetchall()
        parts = rowid_parts(uri, connections or metric_connections())
        _write_parts(uri, read, write, parts, con)
    except Exception as exc:  # the driver raises its own error family
        if isinstance(exc, duckdb.OutOfMemoryException) or is_interrupt(exc):
            raise
        con.execute("DELETE FROM gpu_metric_names").fetchall()
        con.execute("DELETE FROM gpu_metrics").fetchall()
        return [f"skipped {METRICS_TABLE} ({first_line(exc, 300)})"]
    return []


def metric_connections() -> int:
    """How many connections read the samples at once: a core each, less the one the rest
    of the export loads on (TUI_THREADS caps the cores), MAX_CONNECTIONS at most."""
    return max(1, min(usable_cores() - 1, MAX_CONNECTIONS))


def samples_bytes(path: Path) -> float:
    """About how many bytes of the export's file GPU_METRICS takes (its rowid span, two
    b-tree look-ups: SQLite's own count, dbstat, reads every page); 0 without the table."""
    try:
        parts = rowid_parts(read_only_uri(path), 1)
    except sqlite3.Error:  # no such table, or no SQLite file
        return 0
    return sum(last - first + 1 for first, last in parts) * BYTES_PER_SAMPLE


def rowid_parts(uri: str, count: int) -> list[tuple[int, int]]:
    """GPU_METRICS' rowids in up to `count` ranges [first, last] of equal span, each of
    MIN_ROWS_PER_PART at least; none for an empty table."""
    db = sqlite3.connect(uri, uri=True)
    try:  # apart: SQLite finds min() and max() at the ends of its b-tree only alone
        (first,), = db.execute(f"SELECT min(rowid) FROM {METRICS_TABLE}").fetchall()
        (last,), = db.execute(f"SELECT max(rowid) FROM {METRICS_TABLE}").fetchall()
    finally:
        db.close()
    if first is None or last is None:
        return []
    span = last - first + 1
    count = max(1, min(count, span // MIN_ROWS_PER_PART))
    size = -(-span // count)
    return [(since, min(since + size - 1, last)) for since in range(first, last + 1, size)]


def _write_parts(uri: str, read: str, write: str, parts: list[tuple[int, int]],
                 con: duckdb.DuckDBPyConnection) -> None:
    """Each part's samples into gpu_metrics: the first on `con`, the others each on a
    connection and thread of their own at the same time; each commits after the part
    before it did, so the rows keep the parts' order. A failed part stops the others."""
    committed = [threading.Event() for _ in parts]
    others = [cursor(con) for _ in parts[1:]]
    try:
        with ThreadPoolExecutor(max(1, len(others))) as pool:
            running: list[Future[None]] = [
                pool.submit(_write_part, uri, read, write, parts[i], other,
                            committed[i - 1], committed[i])
                for i, other in enumerate(others, start=1)]
            try:
                if parts:
                    _write_part(uri, read, write, parts[0], con, None, committed[0])
            except BaseException:
                for other in others:
                    other.interrupt()
                raise
            finally:
                committed[0].set()
            for done in running:
                done.result()
    finally:
        for other in others:
            other.close()


def _write_part(uri: str, read: str, write: str, part: tuple[int, int],
                con: duckdb.DuckDBPyConnection, after: threading.Event | None,
                committed: threading.Event) -> None:
    """One part's samples into gpu_metrics in a transaction of `con`'s, committed once
    `after` is set (the part before has committed, or failed)."""
    source = adbc_sqlite.connect(uri)
    try:
        cur = source.cursor()
        cur.adbc_statement.set_options(**{StatementOptions.BATCH_ROWS.value: str(ROWS_PER_BATCH)})
        try:
            cur.execute(read, part)
            con.execute("BEGIN TRANSACTION")
            try:
                with registered(con, "nsys_metric_batches", cur.fetch_record_batch()):
                    con.execute(write, {"time_limit": TIME_LIMIT_NS}).fetchall()
                if after is not None:
                    after.wait()
                con.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(duckdb.Error):  # an interrupted one is over
                    con.execute("ROLLBACK")
                raise
        finally:
            cur.close()
    finally:
        source.close()
        committed.set()


def _device_of(devices: dict[int, int]) -> Sql:
    """The samples' device: the one there is, else their type_id's (NULL: unknown)."""
    if len(devices) == 1:
        return Sql(str(int(next(iter(devices.values())))))
    cases = " ".join(f"WHEN {int(t)} THEN {int(d)}" for t, d in devices.items())
    return Sql(f"CASE m.type_id {cases} END")


def _kept(names: pa.Table, devices: dict[int, int]) -> Sql:
    """The filter of the samples to each device's kept metrics, where the devices keep
    different ones (the export's query already keeps every id some device keeps)."""
    kept: dict[int, set[int]] = {}
    for type_id, metric_id in zip(names.column("type_id").to_pylist(),
                                  names.column("metric_id").to_pylist(), strict=True):
        kept.setdefault(devices[type_id], set()).add(metric_id)
    if len({frozenset(ids) for ids in kept.values()}) <= 1:
        return Sql("")
    keys = sorted(d * 256 + i for d, ids in kept.items() for i in ids)
    return Sql(f" AND device * 256 + metric_id IN ({', '.join(map(str, keys))})")


def type_devices(type_ids: list[int], gpus: dict[int, int]) -> dict[int, int]:
    """{typeId: CUDA device}: a typeId's low byte is the GPU's PerfWorks id, looked up in
    `gpus` ({pwGpuId: device}); without it, the low byte is taken as the device. One
    typeId and one GPU: that GPU, whatever the ids say."""
    distinct = sorted(set(type_ids))
    if len(distinct) == 1 and len(set(gpus.values())) == 1:
        return {distinct[0]: next(iter(gpus.values()))}
    return {t: gpus.get(t & 0xFF, t & 0xFF) for t in distinct}


def _read_names(uri: str, schema: dict[str, set[str]]) -> tuple[pa.Table, dict[int, int]]:
    """The kept metrics' names (type_id, metric_id, name) and the GPUs ({pwGpuId: id})."""
    db = sqlite3.connect(uri, uri=True)
    try:
        rows = [r for r in db.execute(load_query("nsys_sqlite_gpu_metric_names"))
                if is_kept(r[2])]
        gpu_cols = schema.get("TARGET_INFO_GPU", set())
        gpus: dict[int, int] = {}
        if {"id", "pwGpuId"} <= gpu_cols:
            gpus = {pw: dev for dev, pw in db.execute(
                "SELECT id, pwGpuId FROM TARGET_INFO_GPU WHERE pwGpuId IS NOT NULL")}
        elif "id" in gpu_cols:
            gpus = {dev: dev for (dev,) in db.execute("SELECT id FROM TARGET_INFO_GPU")}
    finally:
        db.close()
    names = pa.table({
        "type_id": pa.array([r[0] for r in rows], pa.int64()),
        "metric_id": pa.array([r[1] for r in rows], pa.int32()),
        "name": pa.array([r[2] for r in rows], pa.string()),
    })
    return names, gpus
