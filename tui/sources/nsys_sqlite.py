"""Nsight Systems SQLite exports (`nsys export --type sqlite`) into the schema.

The export is read through ADBC's SQLite driver, which hands result sets over as Arrow
record batches: no Python loop touches a row. Tables and columns differ between nsys
versions and empty tables are left out of the export, so each query is built after
probing which tables and columns exist.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import adbc_driver_sqlite.dbapi as adbc_sqlite
import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from adbc_driver_sqlite import StatementOptions

from tui.core.db import Alongside, insert_rows
from tui.core.errors import TraceError, first_line
from tui.core.interrupt import is_interrupt
from tui.core.queries import Sql, fill, fragment, load_query
from tui.sources.nsys_backtraces import CALLCHAINS_TABLE, stage_backtraces
from tui.sources.nsys_collectives import load_nsys_collectives
from tui.sources.nsys_diagnostics import import_errors
from tui.sources.nsys_gpu_metrics import load_nsys_gpu_metrics
from tui.sources.nsys_host import load_nsys_host
from tui.sources.nsys_memory import load_nsys_memory
from tui.sources.nsys_nesting import Nesting
from tui.sources.nsys_python import BACKTRACES as PYTHON_BACKTRACES
from tui.sources.nsys_python import SAMPLES as PYTHON_SAMPLES
from tui.sources.nsys_python import load_python_samples, python_domains
from tui.sources.read_ahead import ReadAhead
from tui.sources.sqlite_uri import read_only_uri

SQLITE_MAGIC = b"SQLite format 3\x00"
KERNEL_TABLE = "CUPTI_ACTIVITY_KIND_KERNEL"
CUDA_DEVICE_TABLE = "TARGET_INFO_CUDA_DEVICE"  # each process's CUDA device numbers, their GPUs' ids
# Tables that only an Nsight Systems export has; one of them must be present.
NSYS_MARKERS = ("StringIds", "META_DATA_EXPORT", "TARGET_INFO_SESSION_START_TIME", KERNEL_TABLE)
BATCH_ROWS = StatementOptions.BATCH_ROWS.value
ROWS_PER_BATCH = 65536
# Times beyond this are refused (as for GPU rows): durations and sums must not overflow.
TIME_LIMIT_NS = 4611686018427387903


def load_nsys_sqlite(path: Path, con: duckdb.DuckDBPyConnection,
                     alongside: Alongside | None = None) -> list[str]:
    """Load an nsys SQLite export; returns warnings. Raises TraceError if unusable.

    Unlike other loaders it writes gpu_activities and host_activities itself, numbered,
    sorted and with host depths as finalize_activities.sql would, and leaves the staging
    tables empty: over 10M+ rows its own passes cost a fraction of the generic ones.

    The GPU metrics (millions of samples) load beside the rest, on connections of their
    own: both reads are single-threaded SQLite, so two cores take turns less. Given
    `alongside`, they are started there and may still be loading when this returns (the
    caller finishes them, and takes their warnings, before it needs gpu_metrics); else
    they are waited for here.
    """
    schema = _probe_schema(path)
    if not any(t in schema for t in NSYS_MARKERS):
        raise TraceError(
            f"{path}: this SQLite database is not an Nsight Systems export "
            "(no StringIds / CUPTI_ACTIVITY_KIND_* tables); export one with "
            "`nsys export --type sqlite REPORT.nsys-rep`"
        )

    def metrics(other: duckdb.DuckDBPyConnection) -> list[str]:
        return load_nsys_gpu_metrics(path, schema, other)

    if alongside is not None:
        alongside.start(metrics)
        return _load_rest(path, schema, con)
    with Alongside(con) as here:
        here.start(metrics)
        warnings = _load_rest(path, schema, con)
        return warnings + here.finish()


def _load_rest(path: Path, schema: dict[str, set[str]],
               con: duckdb.DuckDBPyConnection) -> list[str]:
    """Everything of the export but its GPU metrics; warnings."""
    warnings: list[str] = []
    # One table that cannot be read (a column an older or newer nsys names differently, a
    # damaged page) skips that table with a warning; the others still load.
    failed: list[str] = []
    gpu_jobs = _gpu_queries(schema, warnings)
    host_jobs = _host_queries(schema)
    source = adbc_sqlite.connect(read_only_uri(path))
    try:
        con.register("nsys_strings", _read_strings(source, schema, warnings))
        devices = cuda_devices(source, schema)
        _load_gpu(source, con, gpu_jobs, failed, devices)
        calls = _load_host(source, con, host_jobs, failed)
        python = python_domains(source, schema)  # Python's stacks, where recorded
        if calls.num_rows:
            warnings += stage_backtraces(source, con, calls, python.get(PYTHON_BACKTRACES, []))
        warnings += load_nsys_host(source, con, schema)  # CPU samples, OS runtime calls
        if PYTHON_SAMPLES in python:
            warnings += load_python_samples(source, con, python[PYTHON_SAMPLES])
    finally:
        source.close()
        con.unregister("nsys_strings")
    jobs = len(gpu_jobs) + len(host_jobs)
    if jobs and len(failed) == jobs:
        raise TraceError(f"{path}: cannot read the nsys export: {failed[0]}; re-export it "
                         "with `nsys export --type sqlite` from a current Nsight Systems")
    warnings += [f"skipped {f}: this export's schema is not one tui knows" for f in failed]
    try:
        _load_devices(path, schema, con)
    except (sqlite3.Error, duckdb.Error) as exc:
        warnings.append(f"could not read the GPUs' names ({first_line(exc, 300)})")
    _load_meta(path, schema, con)
    warnings += import_errors(path, schema)
    _load_threads(path, schema, con)
    warnings += load_nsys_memory(path, schema, con, _process(schema, "m.globalPid"), devices)
    warnings += load_nsys_collectives(path, schema, con)  # NCCL's calls, where kept
    gpu_rows, host_rows = con.execute(
        "SELECT (SELECT count(*) FROM gpu_activities), (SELECT count(*) FROM host_activities)"
    ).fetchone() or (0, 0)
    if gpu_rows == 0 and host_rows == 0:
        raise TraceError(
            f"{path}: the export holds no CUDA kernels, copies, API calls or NVTX ranges; "
            "record with `nsys profile -t cuda,nvtx`"
        )
    if KERNEL_TABLE not in schema:
        warnings.append(_no_kernel_table(con))
    elif gpu_rows == 0:
        warnings.append(
            "no GPU kernels, copies or memsets were read from this export: record with "
            "`nsys profile -t cuda,nvtx`"
        )
    return warnings


def _load_gpu(source: adbc_sqlite.Connection, con: duckdb.DuckDBPyConnection,
              jobs: list[tuple[str, str]], failed: list[str], devices: pa.Table) -> None:
    """Kernels, copies and sets into gpu_activities, on the GPUs' ids (`devices`:
    cuda_devices), sorted and numbered. The GPU rows go first: their sort needs the most
    memory, best while the buffer pool is empty."""
    _run(con, "nsys_gpu_staging")
    for query, kind in jobs:
        def copy(q: str, k: str = kind) -> None:
            _copy(source, q, con, k)

        _run_job(query, failed, copy)
    if devices.num_rows:
        con.register("nsys_cuda_devices", devices)
        try:
            _run(con, "nsys_gpu_devices")
        finally:
            con.unregister("nsys_cuda_devices")
    _run(con, "nsys_gpu_write")


def cuda_devices(source: adbc_sqlite.Connection, schema: dict[str, set[str]]) -> pa.Table:
    """(pid, cuda_id, gpu_id) of the processes whose CUDA device numbers are not the GPUs'
    ids (nsys_sqlite_cuda_devices.sql); empty where every process sees every GPU in order,
    or the export does not say (no TARGET_INFO_CUDA_DEVICE, or no pid in the GPU tables)."""
    if CUDA_DEVICE_TABLE in schema and _per_process(schema) and {
            "pid", "cudaId", "gpuId"} <= schema[CUDA_DEVICE_TABLE]:
        try:
            return _arrow(source, "nsys_sqlite_cuda_devices")
        except Exception:  # the driver raises its own error family: the ids as recorded
            pass
    return pa.table({"pid": pa.array([], pa.int64()), "cuda_id": pa.array([], pa.int64()),
                     "gpu_id": pa.array([], pa.int64())})


def _load_host(source: adbc_sqlite.Connection, con: duckdb.DuckDBPyConnection,
               jobs: list[tuple[str, str]], failed: list[str]) -> pa.Table:
    """API calls and NVTX ranges into host_activities, numbered, with their depths.
    Returns (call_id, chain): the API calls that have a CUDA backtrace."""
    api_names = con.sql(load_query("nsys_api_names")).to_arrow_table()
    nested: list[Nesting] = []
    calls: list[pa.Table] = []
    for query, kind in jobs:
        def copy(q: str, k: str = kind) -> None:
            nested.append(_copy_numbered(source, q, con, k, api_names, calls))

        _run_job(query, failed, copy)
    _host_depth(con, nested)
    return pa.concat_tables(calls) if calls else pa.table(
        {"call_id": pa.array([], pa.int64()), "chain": pa.array([], pa.int64())})


def _run(con: duckdb.DuckDBPyConnection, query: str, params: dict | None = None) -> None:
    """Run a named query to its end: DuckDB refuses to register a table on a connection
    whose last result (an INSERT's row count) was not fetched."""
    con.execute(load_query(query), params).fetchall()


def _host_depth(con: duckdb.DuckDBPyConnection, nested: list[Nesting]) -> None:
    """Fill in host depths: over the ranges the loading found touching a neighbour, or,
    when some thread's rows came out of order, over the ranges a sort finds."""
    found = [n.touching() for n in nested]
    if any(ids is None for ids in found):
        _run(con, "nsys_host_touching")
    else:
        ids = np.concatenate([ids for ids in found if ids is not None] or [np.array([], np.int64)])
        if len(ids) == 0:
            return  # every range starts after the ones before it ended: all at depth 0
        con.register("nsys_touching", pa.table({"id": ids}))
    try:
        _run(con, "nsys_host_depth")
    finally:
        if all(ids is not None for ids in found):
            con.unregister("nsys_touching")


def _run_job(query: str, failed: list[str], copy: Callable[[str], None]) -> None:
    """Run one table's copy; a failure is recorded in `failed`, not raised."""
    try:
        copy(query)
    except Exception as exc:  # the driver raises its own error family
        if isinstance(exc, duckdb.OutOfMemoryException) or is_interrupt(exc):
            raise  # the budget or Ctrl-C, not the table (loading/trace.py tries a larger budget)
        failed.append(f"{_table_of(query)} ({first_line(exc, 300)})")


def _no_kernel_table(con: duckdb.DuckDBPyConnection) -> str:
    """The warning for an export without a kernel table: beside recorded CUDA API calls,
    its kernels were dropped or not traced (for an XLA program, with what kept
    unannotated/jax_no_cb.sqlite's kernels against jax_dp.sqlite's: XLA's command buffers
    off, their graphs traced by node); else the CUDA API was not recorded either. With
    calls, trace_meta's `kernels_unrecorded` says so: the diagnosis is then not made from
    what else the GPU did (a program's few copies and memsets)."""
    calls, xla = con.execute(
        "SELECT count(*) FILTER (WHERE kind = 'runtime'), count(*) FILTER (WHERE kind = "
        "'annotation' AND name LIKE 'XlaModule:%') > 0 FROM host_activities"
    ).fetchone() or (0, False)
    if not calls:
        return "the export has no CUDA kernel table: record with `nsys profile -t cuda,nvtx`"
    con.execute("INSERT OR REPLACE INTO trace_meta VALUES ('kernels_unrecorded', $calls)",
                {"calls": str(calls)})
    return (f"the export has no CUDA kernel table though it holds {calls:,} CUDA API calls: "
            "its kernels were not recorded, or nsys' import dropped them"
            + ("; for an XLA program, record with its command buffers off "
               "(XLA_FLAGS=--xla_gpu_enable_command_buffer=) and "
               "`--cuda-graph-trace=node`, or with jax.profiler, whose trace tui reads"
               if xla else ""))


def _table_of(query: str) -> str:
    """The nsys table a generated query reads (for messages)."""
    found = re.search(r"FROM\s+(CUPTI_ACTIVITY_KIND_\w+|NVTX_EVENTS)", query)
    return found.group(1) if found else "a table"


def _probe_schema(path: Path) -> dict[str, set[str]]:
    """{table: {columns}} of the SQLite file; TraceError when it is no SQLite database."""
    try:
        db = sqlite3.connect(read_only_uri(path), uri=True)
        try:
            tables = [r[0] for r in db.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")]
            return {
                t: {r[1] for r in db.execute("SELECT * FROM pragma_table_info(?)", (t,))}
                for t in tables
            }
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        raise TraceError(f"{path}: not a readable SQLite database ({exc}); it is damaged or "
                         "cut off: export it again with `nsys export --type sqlite`") from None


def _column(schema: dict[str, set[str]], table: str, column: str, default: str = "NULL") -> str:
    return column if column in schema.get(table, set()) else default


GRAPH_TABLE = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"  # CUDA graphs traced whole
GPU_TABLES = (KERNEL_TABLE, "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
              GRAPH_TABLE)


def _per_process(schema: dict[str, set[str]]) -> bool:
    """Do the GPU tables say which process launched each row (globalPid)? Then every
    correlation id is made its process's own: pid * 2^32 + nsys's CorrId."""
    present = [t for t in GPU_TABLES if t in schema]
    return bool(present) and all("globalPid" in schema[t] for t in present)


def _process(schema: dict[str, set[str]], column: str) -> Sql:
    """The pid out of `column` (a globalPid or globalTid), the high half of a correlation
    id; 0 where the GPU tables do not say their process."""
    return Sql(f"(({column} >> 24) & 16777215)" if _per_process(schema) else "0")


def _gpu_queries(schema: dict[str, set[str]], warnings: list[str]) -> list[tuple[str, str]]:
    """(query, kind of its rows) for the GPU tables present."""
    queries = []
    if KERNEL_TABLE in schema:
        cols = schema[KERNEL_TABLE]
        name_col = next((c for c in ("demangledName", "shortName", "name") if c in cols), None)
        if name_col is None:
            warnings.append("kernel names are missing from this export")
            name = "'(unnamed kernel)' AS name"
        elif "StringIds" in schema:
            name = f"CAST(k.{name_col} AS INTEGER) AS name_id"
        else:
            name = f"CAST(k.{name_col} AS TEXT) AS name"
        static = _column(schema, KERNEL_TABLE, "staticSharedMemory", "0")
        dynamic = _column(schema, KERNEL_TABLE, "dynamicSharedMemory", "0")
        queries.append((fill(
            "nsys_sqlite_kernels", name=Sql(name), process=_process(schema, "k.globalPid"),
            grid_x=_column(schema, KERNEL_TABLE, "gridX"),
            grid_y=_column(schema, KERNEL_TABLE, "gridY"),
            grid_z=_column(schema, KERNEL_TABLE, "gridZ"),
            block_x=_column(schema, KERNEL_TABLE, "blockX"),
            block_y=_column(schema, KERNEL_TABLE, "blockY"),
            block_z=_column(schema, KERNEL_TABLE, "blockZ"),
            registers=_column(schema, KERNEL_TABLE, "registersPerThread"),
            shared_memory=Sql(f"({static} + {dynamic})"),
        ), "kernel"))
    if "CUPTI_ACTIVITY_KIND_MEMCPY" in schema:
        table = "CUPTI_ACTIVITY_KIND_MEMCPY"
        queries.append((fill(
            "nsys_sqlite_memcpy", process=_process(schema, "globalPid"),
            src_kind=_column(schema, table, "srcKind"),
            dst_kind=_column(schema, table, "dstKind"),
            src_device=_column(schema, table, "srcDeviceId"),
            dst_device=_column(schema, table, "dstDeviceId"),
        ), "memcpy"))
    if "CUPTI_ACTIVITY_KIND_MEMSET" in schema:
        queries.append((fill(
            "nsys_sqlite_memset", process=_process(schema, "globalPid"),
            mem_kind=_column(schema, "CUPTI_ACTIVITY_KIND_MEMSET", "memKind"),
        ), "memset"))
    if GRAPH_TABLE in schema:
        warnings.append(
            "CUDA graphs were traced whole (nsys' default, --cuda-graph-trace=graph): each "
            "launch of one is a kernel named `CUDA graph N`, busy from its start to its end, "
            "its own kernels unseen; record with --cuda-graph-trace=node to see them")
        queries.append((fill("nsys_sqlite_graphs", process=_process(schema, "globalPid")),
                        "kernel"))
    return queries


def _host_queries(schema: dict[str, set[str]]) -> list[tuple[str, str]]:
    """(query, kind of its rows) for the host tables present. API calls come with a
    name_id into StringIds, NVTX ranges with their name."""
    queries = []
    if "CUPTI_ACTIVITY_KIND_RUNTIME" in schema and "StringIds" in schema:
        chains = (CALLCHAINS_TABLE in schema
                  and "callchainId" in schema["CUPTI_ACTIVITY_KIND_RUNTIME"])
        callchain = ",\n    CAST(r.callchainId AS INTEGER) AS callchain" if chains else ""
        queries.append((fill("nsys_sqlite_runtime", callchain=Sql(callchain),
                             process=_process(schema, "r.globalTid")),
                        "runtime"))
    if "NVTX_EVENTS" in schema:
        text_id = "n.textId" if "textId" in schema["NVTX_EVENTS"] else "NULL"
        queries.append((fill("nsys_sqlite_nvtx", text_id=text_id), "annotation"))
        # PyTorch's emit_nvtx() ranges: its ops, as Kineto's cpu_op events are
        queries.append((fill("nsys_sqlite_nvtx_ops", text_id=text_id), "cpu_op"))
    return queries


def _cursor(source: adbc_sqlite.Connection, query: str) -> adbc_sqlite.Cursor:
    cursor = source.cursor()
    # The driver's default of 1,024 rows a batch makes DuckDB's import of 10M rows a third
    # slower; a batch of this size holds about 10 MB.
    cursor.adbc_statement.set_options(**{BATCH_ROWS: str(ROWS_PER_BATCH)})
    cursor.execute(query)
    return cursor


def _arrow(source: adbc_sqlite.Connection, query: str) -> pa.Table:
    """The rows of the named query run inside the export, whole, as an Arrow table."""
    cursor = _cursor(source, load_query(query))
    try:
        return cursor.fetch_arrow_table()
    finally:
        cursor.close()


def _read_strings(source: adbc_sqlite.Connection, schema: dict[str, set[str]],
                  warnings: list[str]) -> pa.Table:
    """StringIds (id, value), or an empty table when the export has none or it is unreadable."""
    if "StringIds" in schema:
        try:
            return _arrow(source, "nsys_sqlite_strings")
        except Exception as exc:  # the driver raises its own error family
            warnings.append(f"could not read the names in StringIds ({first_line(exc, 300)})")
    return pa.table({"id": pa.array([], pa.int64()), "value": pa.array([], pa.string())})


def _copy(source: adbc_sqlite.Connection, query: str, con: duckdb.DuckDBPyConnection,
          kind: str) -> None:
    """Stream one SQLite result set of GPU rows of `kind` into nsys_gpu as Arrow batches."""
    cursor = _cursor(source, query)
    try:
        with ReadAhead(cursor.fetch_record_batch()) as batches:
            con.register("nsys_batch", batches)
            try:
                _run(con, "nsys_insert_gpu", {"kind": kind})
            finally:
                con.unregister("nsys_batch")
    finally:
        cursor.close()


def _copy_numbered(source: adbc_sqlite.Connection, query: str, con: duckdb.DuckDBPyConnection,
                   kind: str, names: pa.Table, calls: list[pa.Table]) -> Nesting:
    """Stream one SQLite result set of host rows of `kind` into host_activities, numbering
    its valid rows in the export's order after the rows already there (the ids
    finalize_activities.sql would give them). `names` (id, name) resolves a name_id column;
    the rows with a callchain are added to `calls` (call_id, chain).
    Returns what was seen of the rows' nesting."""
    (next_id,), = con.execute("SELECT count(*) FROM host_activities").fetchall()
    nesting = Nesting()
    cursor = _cursor(source, query)
    try:
        with ReadAhead(cursor.fetch_record_batch()) as batches:
            con.register("nsys_batch", _numbered(batches, next_id, names, nesting, calls))
            try:
                _run(con, "nsys_insert_host", {"kind": kind})
            finally:
                con.unregister("nsys_batch")
    finally:
        cursor.close()
    return nesting


def _numbered(batches: pa.RecordBatchReader, first_id: int, names: pa.Table,
              nesting: Nesting, calls: list[pa.Table]) -> pa.RecordBatchReader:
    """The rows of `batches` with a time range tui can hold, each given an id; a name_id
    column is replaced by the name `names` gives it. Done here, batch by batch, rather
    than by a join in DuckDB, which may not keep the rows in order: host rows are stored
    in id order so that time-range scans skip most row groups."""
    by_id = "name_id" in batches.schema.names
    with_chains = "callchain" in batches.schema.names
    fields = [f for f in batches.schema if f.name not in ("name", "name_id")]
    fields.append(pa.field("id", pa.int64()))
    name_type = pa.dictionary(pa.int32(), pa.string()) if by_id else None
    schema = pa.schema([*fields, pa.field("name", name_type or batches.schema.field("name").type)])
    name_ids = names.column("id").combine_chunks()
    name_values = names.column("name").combine_chunks().cast(pa.string())

    def numbered() -> Iterator[pa.RecordBatch]:
        next_id = first_id
        for batch in batches:
            batch = batch.filter(_valid_times(batch))
            numbers = np.arange(next_id, next_id + batch.num_rows, dtype=np.int64)
            next_id += batch.num_rows
            nesting.add(batch.column("global_tid"), batch.column("start_ns"),
                        batch.column("end_ns"), numbers)
            ids = pa.array(numbers)
            if with_chains:
                chain = batch.column("callchain")
                calls.append(pa.table({"call_id": ids, "chain": chain.cast(pa.int64())})
                             .filter(pc.is_valid(chain)))
            if by_id:
                index = pc.index_in(batch.column("name_id"), value_set=name_ids)
                name = pa.DictionaryArray.from_arrays(index, name_values)
            else:
                name = batch.column("name")
            columns = [batch.column(f.name) for f in fields[:-1]]
            yield pa.RecordBatch.from_arrays([*columns, ids, name], schema=schema)

    return pa.RecordBatchReader.from_batches(schema, numbered())


def _valid_times(batch: pa.RecordBatch) -> pa.ChunkedArray:
    """start_ns IS NOT NULL AND end_ns >= start_ns, both within ±2^62 (as the GPU rows'
    insert filters them; NULL comparisons drop the row)."""
    start, end = batch.column("start_ns"), batch.column("end_ns")
    return pc.and_(
        pc.and_(pc.is_valid(start), pc.greater_equal(end, start)),
        pc.and_(pc.greater_equal(start, -TIME_LIMIT_NS), pc.less_equal(end, TIME_LIMIT_NS)),
    )


def _load_devices(path: Path, schema: dict[str, set[str]], con: duckdb.DuckDBPyConnection) -> None:
    table = "TARGET_INFO_GPU"
    if table not in schema or "id" not in schema[table]:
        return
    cols = {
        "name": _column(schema, table, "name"),
        "sm": _column(schema, table, "smCount"),
        "mem": _column(schema, table, "totalMemory"),
        "major": _column(schema, table, "computeMajor"),
        "minor": _column(schema, table, "computeMinor"),
    }
    db = sqlite3.connect(read_only_uri(path), uri=True)
    try:
        rows = db.execute(
            f"SELECT id, {cols['name']}, {cols['sm']}, {cols['mem']}, {cols['major']}, "
            f"{cols['minor']} FROM {table}"
        ).fetchall()
    finally:
        db.close()
    insert_rows(con, "INSERT OR IGNORE INTO devices",
        [
            (dev, name or f"GPU {dev}", sm, mem,
             f"{major}.{minor}" if major is not None and minor is not None else None)
            for dev, name, sm, mem, major, minor in rows
        ],
    )


def _load_meta(path: Path, schema: dict[str, set[str]], con: duckdb.DuckDBPyConnection) -> None:
    """The export's versions (only shown), the host the report was taken on (it names
    the host a group of straggling ranks share) and its session's start (UTC ns); a
    damaged table leaves its part out."""
    meta = {"format": "nsys"}
    reads = []
    if "META_DATA_EXPORT" in schema:
        reads.append(("SELECT lower(name), value FROM META_DATA_EXPORT WHERE name IN "
                      "('EXPORT_PRODUCT_VERSION', 'EXPORT_SCHEMA_VERSION')"))
    if "utcEpochNs" in schema.get("TARGET_INFO_SESSION_START_TIME", set()):
        # the clock's origin: an export's times count from its session's start, and a run
        # of one report per rank lines its ranks up by it (tui/runs/combine.py)
        reads.append("SELECT 'session_start_utc_ns', utcEpochNs "
                     "FROM TARGET_INFO_SESSION_START_TIME LIMIT 1")
    if {"name", "value"} <= schema.get("TARGET_INFO_SYSTEM_ENV", set()):
        reads.append("SELECT 'hostname', value FROM TARGET_INFO_SYSTEM_ENV "
                     "WHERE name = 'Hostname' AND value <> '' LIMIT 1")
    if reads:
        db = sqlite3.connect(read_only_uri(path), uri=True)
        try:
            for query in reads:
                try:
                    meta.update((key, str(value)) for key, value in db.execute(query))
                except sqlite3.Error:
                    pass
        finally:
            db.close()
    insert_rows(con, "INSERT OR REPLACE INTO trace_meta", list(meta.items()))


def gpu_processes(path: Path) -> int:
    """How many processes of the Nsight Systems SQLite export at `path` ran kernels
    (0 where it cannot be read): several make it a run, a rank each."""
    try:
        db = sqlite3.connect(read_only_uri(path), uri=True)
    except sqlite3.Error:
        return 0
    try:
        mapped = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                            (CUDA_DEVICE_TABLE,)).fetchone()
        device = fragment("nsys_sqlite_mapped_device") if mapped else Sql("p.deviceId")
        row = db.execute(fill("nsys_sqlite_gpu_processes", device=device)).fetchone()
    except sqlite3.Error:
        return 0
    finally:
        db.close()
    return int(row[0]) if row else 0


def _load_threads(path: Path, schema: dict[str, set[str]],
                  con: duckdb.DuckDBPyConnection) -> None:
    """Thread and process names, for the lanes' labels; an export without them (or one
    whose tables differ) just leaves the lanes named by pid and tid."""
    if not {"ThreadNames", "StringIds", "PROCESSES"} <= set(schema):
        return
    db = sqlite3.connect(read_only_uri(path), uri=True)
    try:
        rows = db.execute(load_query("nsys_sqlite_threads")).fetchall()
    except sqlite3.Error:
        return
    finally:
        db.close()
    insert_rows(con, "INSERT INTO threads", rows)


