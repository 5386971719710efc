"""The GPUs' hardware counters of an nsys export (`--gpu-metrics-devices`): GPU_METRICS
with the metric names of TARGET_INFO_GPU_METRICS, into gpu_metrics and gpu_metric_names;
only the metrics tui reads (tui/core/gpu_metric_names.py), filtered inside SQLite.

Each sampled GPU has a typeId of its own. The export does not name the GPU (typeName is
empty); on a two-GPU H200 report the typeIds were the event source's id plus 0 and 1, the
GPUs' PerfWorks ids (TARGET_INFO_GPU.pwGpuId): a typeId's low byte is read as that id.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from urllib.parse import quote

import adbc_driver_sqlite.dbapi as adbc_sqlite
import duckdb
import pyarrow as pa
from adbc_driver_sqlite import StatementOptions

from tui.core.errors import first_line
from tui.core.gpu_metric_names import is_kept
from tui.core.interrupt import is_interrupt
from tui.core.queries import Sql, fill, load_query
from tui.sources.read_ahead import ReadAhead

METRICS_TABLE = "GPU_METRICS"
NAMES_TABLE = "TARGET_INFO_GPU_METRICS"
ROWS_PER_BATCH = 65536
TIME_LIMIT_NS = 4611686018427387903  # as the other rows' (tui/sources/nsys_sqlite.py)
MAX_METRIC_ID = 255  # a metricId travels in the low byte of the value's column


def load_nsys_gpu_metrics(path: Path, schema: dict[str, set[str]],
                          con: duckdb.DuckDBPyConnection) -> list[str]:
    """Fill gpu_metric_names and gpu_metrics from the export; warnings. An export
    without GPU metrics adds nothing."""
    if METRICS_TABLE not in schema or NAMES_TABLE not in schema:
        return []
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
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
    con.register("nsys_metric_names", names)
    con.register("nsys_metric_devices", pa.table({
        "type_id": pa.array(list(devices), pa.int64()),
        "device": pa.array(list(devices.values()), pa.int32())}))
    source = adbc_sqlite.connect(uri)
    try:
        con.execute(load_query("nsys_gpu_metric_names_write")).fetchall()
        cursor = source.cursor()
        cursor.adbc_statement.set_options(
            **{StatementOptions.BATCH_ROWS.value: str(ROWS_PER_BATCH)})
        try:
            one = next(iter(devices)) if len(devices) == 1 else None
            cursor.execute(fill("nsys_sqlite_gpu_metrics",
                                metric_ids=Sql(", ".join(str(int(i)) for i in ids)),
                                type_id=Sql("" if one is not None else ", typeId AS type_id")))
            with ReadAhead(cursor.fetch_record_batch()) as batches:
                con.register("nsys_metric_batches", batches)
                try:
                    con.execute(fill("nsys_gpu_metrics_write", type_id=Sql(
                        str(int(one)) if one is not None else "m.type_id")),
                                {"time_limit": TIME_LIMIT_NS}).fetchall()
                finally:
                    con.unregister("nsys_metric_batches")
        finally:
            cursor.close()
    except Exception as exc:  # the driver raises its own error family
        if isinstance(exc, duckdb.OutOfMemoryException) or is_interrupt(exc):
            raise
        con.execute("DELETE FROM gpu_metric_names").fetchall()
        con.execute("DELETE FROM gpu_metrics").fetchall()
        return [f"skipped {METRICS_TABLE} ({first_line(exc, 300)})"]
    finally:
        source.close()
        con.unregister("nsys_metric_names")
        con.unregister("nsys_metric_devices")
    return []


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
