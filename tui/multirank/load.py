"""Load many traces at once, each into its own store, in parallel processes.

A store is the trace's DuckDB cache file (`tui.trace.open_trace` builds it), or, when
there is no cache (`--no-cache`, or a cache dir that cannot be written), one Parquet file
per table in a scratch folder. A trace whose cache file is already built is only checked
here (attached for a moment: about a millisecond); the others are loaded by a pool of
processes, one trace a task, when there are enough of them to pay for starting the pool
(about half a second), else one after another in this process.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import duckdb

from tui import cache
from tui.db import connect, sql_string
from tui.multirank.parquet_store import export_parquet, is_parquet_store, parquet_store
from tui.multirank.store import TraceStore
from tui.trace import CACHED_TABLES, open_trace

# Below this many traces to load (and this much input), one process loads them faster
# than a pool of fresh ones, whose start costs ~0.5 s each.
POOL_MIN_TRACES = 4
POOL_MIN_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class LoadJob:
    path: Path  # a trace file, or a Parquet store folder
    use_cache: bool = True
    scratch: Path | None = None  # where to write Parquet when the trace gets no cache file
    min_gap_ns: int | None = None  # set: also build the trace's own summary (gaps, kernels)
    export_to: Path | None = None  # set: always write the tables as Parquet into this folder


def load_stores(jobs: list[LoadJob], workers: int | None = None,
                on_done: Callable[[LoadJob], None] | None = None) -> list[TraceStore]:
    """Every job's store, in the order given. Raises the first failing job's TraceError.
    on_done(job) is called as each job's store is ready (a progress line counts them).

    Stores found in the cache come back without a summary (see combine.summarize_stores).
    """
    results: dict[int, TraceStore] = {}
    probe = connect(":memory:")
    try:
        for i, job in enumerate(jobs):
            if job.export_to is not None:
                continue
            store = (parquet_store(job.path, probe) if is_parquet_store(job.path)
                     else _cached_store(job, probe))
            if store is not None:
                results[i] = store
    finally:
        probe.close()
    pending = [i for i in range(len(jobs)) if i not in results]
    count = min(len(pending), workers or os.cpu_count() or 1)
    # workers=None: a pool only where it pays; a number given: that many processes.
    if count > 1 and (workers is not None or _worth_a_pool([jobs[i] for i in pending])):
        # spawn: a fresh interpreter per worker, never a fork of a process holding DuckDB
        # connections and threads.
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=count, mp_context=context) as pool:
            futures = {i: pool.submit(load_store, jobs[i]) for i in pending}
            try:
                for i, future in futures.items():
                    results[i] = future.result()
                    if on_done is not None:
                        on_done(jobs[i])
            except BaseException:
                pool.shutdown(cancel_futures=True)  # one bad trace: stop loading the rest
                raise
    for i in pending:
        if i not in results:
            results[i] = load_store(jobs[i])
            if on_done is not None:
                on_done(jobs[i])
    return [results[i] for i in range(len(jobs))]


def load_store(job: LoadJob) -> TraceStore:
    """Load one trace (or open its cache), note where its tables are, close it."""
    started, cpu = time.perf_counter(), time.process_time()
    with open_trace(job.path, use_cache=job.use_cache) as trace:
        meta = dict(trace.con.execute("SELECT key, value FROM trace_meta").fetchall())
        store = TraceStore(job.path, trace.format, meta, from_cache=trace.from_cache,
                           cache_note=trace.cache_note, warnings=list(trace.warnings))
        if job.export_to is not None:
            store.parquet_dir = export_parquet(trace, job.export_to)
        elif trace.cache_path is not None:
            store.db_path = trace.cache_path
        else:
            if job.scratch is None:
                raise ValueError("a trace without a cache file needs a scratch folder")
            store.parquet_dir = export_parquet(
                trace, job.scratch / f"store-{os.getpid()}-{time.monotonic_ns()}")
        store.load_s = time.perf_counter() - started
        store.load_cpu_s = time.process_time() - cpu
        if job.min_gap_ns is not None:
            from tui.analysis.summary import trace_summary

            store.summary = trace_summary(trace, job.min_gap_ns)
    return store


def _worth_a_pool(jobs: list[LoadJob]) -> bool:
    if len(jobs) >= POOL_MIN_TRACES:
        return True
    try:
        return sum(job.path.stat().st_size for job in jobs) >= POOL_MIN_BYTES
    except OSError:
        return False  # a missing file: load_store says so


def _cached_store(job: LoadJob, probe: duckdb.DuckDBPyConnection) -> TraceStore | None:
    """The trace's cache file as a store, if it is there and complete; else None (then
    open_trace rebuilds it, as it would for one trace)."""
    if not job.use_cache:
        return None
    started = time.perf_counter()
    try:
        target = cache.cache_file(job.path)
        if not target.is_file():
            return None
        probe.execute(f"ATTACH {sql_string(str(target))} AS probe (READ_ONLY)")
    except (OSError, duckdb.Error):
        return None
    try:
        meta = dict(probe.execute("SELECT key, value FROM probe.main.trace_meta").fetchall())
        tables = {r[0] for r in probe.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = 'probe'").fetchall()}
        warnings = json.loads(meta.get("warnings") or "[]")
    except (duckdb.Error, ValueError):
        return None
    finally:
        probe.execute("DETACH probe")
    if (meta.get("tui_cache_version") != cache.CACHE_VERSION or not CACHED_TABLES <= tables
            or not isinstance(warnings, list)):
        return None
    return TraceStore(job.path, meta.get("format", "?"), meta, db_path=target,
                      from_cache=True, cache_note="from cache", warnings=warnings,
                      load_s=time.perf_counter() - started)
