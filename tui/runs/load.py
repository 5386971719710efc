"""Load many traces at once, each into its own store, in parallel processes.

A store is the trace's DuckDB cache file (`tui.loading.trace.open_trace` builds it), or, when
there is no cache (`--no-cache`, or a cache dir that cannot be written), one Parquet file
per table in a scratch folder. A trace whose cache file is already built is only checked
here (attached for a moment: about a millisecond); the others are loaded by a pool of
processes, one trace a task, when there are enough of them to pay for starting the pool
(about half a second), else one after another in this process.

A load of many traces can be stopped from another thread (the ranks app quitting) or by
Ctrl-C: each trace being loaded stops as one trace's load does when its app quits
(tui.core.load_progress.LoadMeter.stop: it removes what it built), in this process or in the
pool's; the traces not begun are not begun.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import duckdb

from tui.analysis.distributed.memo import cached_figures
from tui.analysis.rank_memo import (
    cache_stamp,
    rank_memo_file,
    read_rank_memo,
    store_memo_file,
    store_stamp,
    write_rank_memo,
)
from tui.core.budget import (
    available_cores,
    cap_threads,
    memory_budget_bytes,
    set_memory_budget,
    worker_setting,
)
from tui.core.db import connect, sql_string
from tui.core.errors import TraceError
from tui.core.load_progress import LoadMeter, LoadStopped, start_watching, stop_watching
from tui.loading import cache
from tui.loading.locations import fetch, is_remote
from tui.loading.parquet_store import export_parquet, is_parquet_store, parquet_store
from tui.loading.store import TraceStore
from tui.loading.trace import CACHED_TABLES, open_trace, write_database_file

# Below this many traces to load (and this much input), one process loads them faster
# than a pool of fresh ones, whose start costs ~0.5 s each.
POOL_MIN_TRACES = 4
POOL_MIN_BYTES = 32 * 1024 * 1024
# ... and below this many cached traces to sum up again (~80 ms each on a small rank)
POOL_MIN_SUMMARIES = 16
# A process of a pool that shares the memory budget gets this much of it at least.
MIN_PROCESS_BUDGET = 250_000_000
STOP_POLL_S = 0.05  # how often a load that can be stopped looks whether it is asked to


class StopFlag(Protocol):
    """A threading.Event, or a multiprocessing one (a pool's processes share it)."""

    def is_set(self) -> bool: ...

    def wait(self, timeout: float | None = None) -> bool: ...


# Loads the jobs somewhere other than this machine's pool (tui.runs.cluster: a Dask
# cluster's tasks), calling on_done with each store as it is ready.
LoadElsewhere = Callable[[list["LoadJob"], Callable[[TraceStore], None] | None],
                         list[TraceStore]]


@dataclass(frozen=True)
class LoadJob:
    path: Path  # a trace file, or a Parquet store folder
    use_cache: bool = True
    scratch: Path | None = None  # where to write Parquet when the trace gets no cache file
    min_gap_ns: int | None = None  # set: also build the trace's own summary (gaps, kernels)
    export_to: Path | None = None  # set: always write the tables as Parquet into this folder


def load_stores(jobs: list[LoadJob], workers: int | None = None,
                on_done: Callable[[TraceStore], None] | None = None,
                stop: StopFlag | None = None, share_budget: bool = False,
                elsewhere: LoadElsewhere | None = None,
                on_ready: Callable[[int, TraceStore], None] | None = None) -> list[TraceStore]:
    """Every job's store, in the order given. Raises the TraceError of the first job to
    fail, or LoadStopped once `stop` is set (from another thread). on_done(store) is called
    as each job's store is ready, those found in the cache first (a progress line counts
    them). `share_budget`: the pool's processes share the memory budget (each gets its
    part, none less than MIN_PROCESS_BUDGET), as one command opening a run does; else each
    load has the whole budget (`tui convert --memory`: the budget of each load).
    `elsewhere(jobs, on_done)`: the traces to load are loaded by it (a Dask cluster's tasks:
    tui.runs.cluster), not by a local pool. Where a local pool loads some of the jobs,
    on_ready(i, store) is called too, in this thread, with each job's place in `jobs`:
    for those found first once the pool has its tasks, then for each as the pool loads it
    (the run's copy keeps pace with the pool: tui.runs.combine.BatchCopy); elsewhere
    never (there is nothing to keep pace with).

    A job with min_gap_ns comes back with its summary: kept from an earlier open
    (tui.analysis.rank_memo), else worked out where it is loaded (a trace from its cache
    too) and kept. A Parquet store without one kept is summed up by
    combine.summarize_stores.
    """
    if workers is None:
        workers = worker_setting()
    results: dict[int, TraceStore] = {}

    def ready(i: int, store: TraceStore) -> None:
        results[i] = store
        if on_done is not None:
            on_done(store)

    summary_only: set[int] = set()  # cached, their summary to work out again
    probe = connect(":memory:")
    try:
        for i, job in enumerate(jobs):
            if stop is not None and stop.is_set():  # stores at a URL take their fetch
                raise LoadStopped("loading stopped")
            if job.export_to is not None:
                continue
            store: TraceStore | None
            if is_parquet_store(job.path):
                store = _parquet_store(job, probe)
                if job.min_gap_ns is not None:
                    with_store_memo(store, job.min_gap_ns)
            elif job.min_gap_ns is not None and job.use_cache:
                # its summary kept from an earlier open, else loaded from its cache again
                # and summed up with the traces to load (in the pool, where there is one)
                store = _memo_store(job, job.min_gap_ns)
                if store is None and _cached_store(job, probe) is not None:
                    summary_only.add(i)
            else:
                store = _cached_store(job, probe)
            if store is not None:
                ready(i, store)
    finally:
        probe.close()
    pending = [i for i in range(len(jobs)) if i not in results]
    if elsewhere is not None and pending:
        loaded = elsewhere([jobs[i] for i in pending], on_done)
        results.update(zip(pending, loaded, strict=True))
        pending = []
    count = min(len(pending), workers or available_cores())
    if share_budget:
        count = min(count, max(1, memory_budget_bytes() // MIN_PROCESS_BUDGET))
    # workers=None: a pool only where it pays; a number given: that many processes.
    if count > 1 and (workers is not None or _worth_a_pool(
            [jobs[i] for i in pending if i not in summary_only],
            sum(i in summary_only for i in pending))):
        budget = (f"{memory_budget_bytes() // count // 1_000_000}MB" if share_budget
                  else None)
        found = sorted(results)

        def from_pool(i: int, store: TraceStore) -> None:
            ready(i, store)
            if on_ready is not None:
                on_ready(i, store)

        def started() -> None:  # the stores found first, while the processes start
            for i in found:
                if on_ready is not None:
                    on_ready(i, results[i])

        _load_in_pool(jobs, pending, count, from_pool, stop, budget, started)
    for i in pending:
        if i not in results:
            ready(i, _load_stoppable(jobs[i], stop))
    return [results[i] for i in range(len(jobs))]


def _load_in_pool(jobs: list[LoadJob], pending: list[int], count: int,
                  ready: Callable[[int, TraceStore], None],
                  stop: StopFlag | None, budget: str | None = None,
                  started: Callable[[], None] | None = None) -> None:
    """Load jobs[i] for each i in `pending`, in `count` processes, each under `budget`
    (None: the budget of this process); ready(i, store) as each is loaded; started()
    once the processes have their tasks."""
    # spawn: a fresh interpreter per worker, never a fork of a process holding DuckDB
    # connections and threads.
    context = multiprocessing.get_context("spawn")
    _start_resource_tracker()
    stop_workers = context.Event()
    # the processes share the cores: each one's DuckDB keeps to its share of them
    threads = max(1, available_cores() // count)
    with ProcessPoolExecutor(max_workers=count, mp_context=context, initializer=_worker_start,
                             initargs=(stop_workers, threads, budget)) as pool:
        futures = {pool.submit(_load_in_worker, jobs[i]): i for i in pending}
        try:
            if started is not None:
                started()
            for future in _as_done(list(futures), stop):
                ready(futures[future], future.result())
        except BaseException:  # a bad trace, Ctrl-C, or `stop`: stop loading the rest
            stop_workers.set()
            pool.shutdown(cancel_futures=True)  # the loads under way stop, then clean up
            raise


def _as_done(futures: list[Future], stop: StopFlag | None) -> Iterator[Future]:
    """The futures as they complete (in the order given, of those done together); raises
    LoadStopped once `stop` is set."""
    waiting = set(futures)
    while waiting:
        done, waiting = wait(waiting, timeout=None if stop is None else STOP_POLL_S,
                             return_when=FIRST_COMPLETED)
        if stop is not None and stop.is_set():
            raise LoadStopped("loading stopped")
        yield from (future for future in futures if future in done)


def _start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (its helper process, started once) on the
    process's own stderr: inside a Textual app sys.stderr is a capture whose fileno() is
    -1, and the tracker's start then fails ("bad value(s) in fds_to_keep")."""
    from multiprocessing import resource_tracker

    with contextlib.redirect_stderr(sys.__stderr__):
        resource_tracker.ensure_running()


_worker_stop: StopFlag | None = None  # in a pool's process: set when loads must stop


def _worker_start(stop: StopFlag, threads: int, budget: str | None = None) -> None:
    """A pool process's start. Ctrl-C in the terminal reaches it too, but it is the parent
    that stops the loads (through `stop`): an idle process would die of the signal.
    `threads`: its share of the cores, DuckDB's threads at most (TUI_THREADS; a lower one
    the user set stays); `budget`: its share of the memory budget, where given."""
    global _worker_stop
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker_stop = stop
    if budget is not None:
        set_memory_budget(budget)
    cap_threads(threads)


def _load_in_worker(job: LoadJob) -> TraceStore:
    return _load_stoppable(job, _worker_stop)


def _load_stoppable(job: LoadJob, stop: StopFlag | None) -> TraceStore:
    """load_store(job), stopped (LoadStopped) when `stop` is set before or while it runs."""
    if stop is None:
        return load_store(job)
    if stop.is_set():
        raise LoadStopped(f"{job.path}: loading stopped")
    meter = start_watching(job.path)
    threading.Thread(target=_stop_when_set, args=(stop, meter), name="tui-stop-rank",
                     daemon=True).start()
    try:
        return load_store(job)
    finally:
        stop_watching(meter)


def _stop_when_set(stop: StopFlag, meter: LoadMeter) -> None:
    while not meter.ended:
        if stop.wait(STOP_POLL_S):
            meter.stop()
            return


# The query that finds the ranks of one store, by its format's family: each a (pid, GPU)
# (tui.runs.combine.split_processes). A trace of such a format is kept as a database file
# even without a cache (in the scratch folder), where its ranks are found and read.
SPLIT_QUERIES = {"nsys": "run_process_devices", "xla": "run_mesh_devices",
                 "xplane": "run_mesh_devices"}


def load_store(job: LoadJob) -> TraceStore:
    """Load one trace (or open its cache), note where its tables are, close it."""
    started, cpu = time.perf_counter(), time.process_time()
    with open_trace(job.path, use_cache=job.use_cache) as trace:
        meta = dict(trace.con.execute("SELECT key, value FROM trace_meta").fetchall())
        store = TraceStore(job.path, trace.format, meta, from_cache=trace.from_cache,
                           cache_note=trace.cache_note, warnings=list(trace.warnings))
        if job.export_to is not None:
            store.parquet_dir = export_parquet(  # a cached trace's figures are kept
                trace, job.export_to,
                also=lambda folder: cached_figures(trace.con, trace.cache_path, folder))
            if not is_remote(store.parquet_dir):  # its summary reads the figures kept there
                trace.store_dir = store.parquet_dir
        elif trace.cache_path is not None:
            store.db_path = trace.cache_path
        else:
            if job.scratch is None:
                raise ValueError("a trace without a cache file needs a scratch folder")
            name = f"store-{os.getpid()}-{time.monotonic_ns()}"
            if trace.format.split("-")[0] in SPLIT_QUERIES:  # perhaps several ranks
                store.db_path = job.scratch / f"{name}.duckdb"
                write_database_file(trace.con, store.db_path)
            else:
                store.parquet_dir = export_parquet(trace, job.scratch / name)
        store.load_s = time.perf_counter() - started
        store.load_cpu_s = time.process_time() - cpu
        if job.min_gap_ns is not None:
            from tui.analysis.summary import rank_summary

            store.summary = rank_summary(trace, job.min_gap_ns)
    if store.summary is not None and job.min_gap_ns is not None:  # kept for the next open
        if store.db_path is not None and job.use_cache:  # stamped once the file is closed
            write_rank_memo(rank_memo_file(store.db_path, job.min_gap_ns),
                            cache_stamp(store.db_path), store.format, store.meta,
                            store.warnings, store.summary)
    return store


def _memo_store(job: LoadJob, min_gap_ns: int) -> TraceStore | None:
    """The trace as a store from its cache file, with the summary kept for that very file
    (tui.analysis.rank_memo): neither attached nor summed up again. None where either is
    missing or stale."""
    started = time.perf_counter()
    try:
        target = cache.cache_file(job.path)
    except OSError:
        return None
    kept = read_rank_memo(rank_memo_file(target, min_gap_ns), cache_stamp(target))
    if kept is None:
        return None
    return TraceStore(job.path, kept["format"], kept["meta"], db_path=target,
                      from_cache=True, cache_note="from cache (summary stored)",
                      warnings=kept["warnings"], summary=kept["summary"],
                      load_s=time.perf_counter() - started)


def with_store_memo(store: TraceStore, min_gap_ns: int) -> None:
    """Give a Parquet store its summary where one is kept for it (rank_memo)."""
    memo, stamp = store_memo(store, min_gap_ns)
    kept = read_rank_memo(memo, stamp)
    if kept is not None:
        store.summary = kept["summary"]


def store_memo(store: TraceStore, min_gap_ns: int) -> tuple[Path, list[int] | None]:
    """Where a Parquet store's summary is kept, and its stamp: the sizes of its files
    (fetched from an object store, a fresh copy each time), and their modification times
    where it is a local folder."""
    assert store.parquet_dir is not None
    if store.location is not None and is_remote(store.location):
        return (store_memo_file(store.location, min_gap_ns),
                store_stamp(store.parquet_dir, mtime=False))
    return (store_memo_file(store.parquet_dir.resolve(), min_gap_ns),
            store_stamp(store.parquet_dir))


def _parquet_store(job: LoadJob, probe: duckdb.DuckDBPyConnection) -> TraceStore:
    """The store at job.path; one at an object-store prefix is fetched into the run's
    scratch folder first (tui.loading.locations)."""
    if not is_remote(job.path):
        return parquet_store(job.path, probe)
    if job.scratch is None:
        raise ValueError("a store at a URL needs a scratch folder to be fetched into")
    local = fetch(job.path, job.scratch)
    try:
        store = parquet_store(local, probe)
    except TraceError as exc:  # e.g. an incomplete store: name it as the user did
        raise TraceError(str(exc).replace(str(local), str(job.path))) from None
    store.cache_note = f"from the converted store {job.path}"
    store.location = job.path
    return store


def _worth_a_pool(jobs: list[LoadJob], summaries: int = 0) -> bool:
    """Whether a pool pays for loading `jobs` and summing up `summaries` cached traces
    (~80 ms each on a DDP rank)."""
    if len(jobs) >= POOL_MIN_TRACES or summaries >= POOL_MIN_SUMMARIES:
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
