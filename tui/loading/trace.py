"""Open a trace: from the cache when it is there, else through its loader into DuckDB."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from tui.core import load_progress
from tui.core.budget import duckdb_threads, memory_budget_bytes, usable_cores
from tui.core.db import (
    DERIVE_SHARE,
    FINALIZE_SHARE,
    OUTSIDE_DUCKDB,
    SUMMARY_SHARE,
    Alongside,
    Cursors,
    beside,
    close_when_stopped,
    connect,
    database_files,
    duckdb_share_of,
    insert_rows,
    light_plans,
    one_row,
    sql_string,
    twice_the_budget_if_short,
)
from tui.core.errors import TraceError, first_line
from tui.core.formats import TIMELINE_FORMATS, TraceFormat
from tui.core.queries import fill, load_query
from tui.derived.flops import build_kernel_flops
from tui.derived.gpu_idle import build_gpu_idle
from tui.derived.host_depth import write_host_depths
from tui.derived.nesting import POOL_MIN_CORES
from tui.derived.stacks import (
    build_stacks,
    stage_points_beside_depths,
    stage_stacks_beside_write,
)
from tui.derived.xla_hlo_match import tie_gpu_work_to_hlo
from tui.loading import cache, cache_reason
from tui.sources.chrome_json import is_gzip
from tui.sources.detect import detect_format
from tui.sources.kineto import GZIP_RATIO
from tui.sources.kineto_memory import stage_kineto_memory

# Kineto's parsed events (tui/sources/kineto.py) take about this many bytes of memory a
# byte of JSON, and stay in memory while they take under this share of DuckDB's part of
# the budget. Bigger, they go to a database file, written compressed as it fills: in
# memory, a 3 GB trace's events took 1.3 GB and spilled half of it; for a small trace the
# file costs more (0.5 s more to write at 600 MB).
SCRATCH_BYTES_PER_BYTE = 0.45
SCRATCH_IN_MEMORY_SHARE = 0.5
# A trace whose events take under this share is built in memory and its cache file written
# once, whole, at the end (COPY FROM DATABASE), and its Trace reads the tables from memory:
# built in the file, every statement of the load is a commit to it (~37 fsyncs for a small
# DDP rank, ~80 ms of waiting) and the file is opened again to be read (~15 ms of CPU for
# a new DuckDB instance). A bigger trace is built in the file, which DuckDB can evict to.
BUILD_IN_MEMORY_SHARE = 0.25
# Nor is a trace of more than this many bytes (its file, inflated) built in memory, whatever
# the budget: the copy into the file at the end then costs more than the commits save. Built
# in the file instead (cold `--summary --json`, alternated): 140 MB 1.50-1.56 s against
# 1.67-1.90, 700 MB (a 4GB budget) 4.27-4.60 against 4.99-5.20 on 2 cores; 3 GB on 16
# cores (the 8GB default) 9.41-9.76 against 10.19-10.37; about even at 17 and 52 MB.
BUILD_IN_MEMORY_MAX_BYTES = 32 << 20
# A trace of at most this many bytes (its file, inflated) is loaded and read with one
# DuckDB thread: its tables take a row group or two (122,880 rows each), which DuckDB runs
# on one thread anyway, and another thread only adds its hand-offs to each of the ~200
# statements of a load and summary (the small samples on a quiet 2-core machine: 13% less
# CPU and 8% less wall time; benchmarks/HISTORY.md).
ONE_THREAD_BYTES = 16 << 20
# A trace of at most this many bytes (its file, inflated) is loaded and read with DuckDB's
# lighter plans (core/db.py light_plans): its tables of a few thousand rows cost less than
# their statements' plans. The bound is the one-thread trace's: a plan's passes matter
# more once a table takes several row groups.
LIGHT_PLANS_BYTES = ONE_THREAD_BYTES
# A trace built in memory over this many bytes (its file, inflated: one loaded without a
# cache; a cached one that big is built in its file) is checkpointed there once built: its
# tables are read from then on as they were written (the GPU rows' ids set by an UPDATE),
# and checkpointed are read as a cache file's are. The summary's statements then cost half
# the CPU (a 300 MB Kineto copy: 0.9 against 1.9 CPU-s, for 0.3 here; device_time_split.sql
# 0.09 against 0.27), about even at 35 MB; the small samples' summaries save less than the
# checkpoint costs (5-17% more CPU). A trace built in its cache file is checkpointed
# anyway, before it is read.
CHECKPOINT_MIN_BYTES = 32 << 20
# Such a trace whose events also take under this part of the summary's share of the budget
# keeps DuckDB's whole part while it is loaded and summed up (keeps_whole_share): the lower
# shares that leave room for a big trace's arrays and rows beside DuckDB (DERIVE_SHARE,
# FINALIZE_SHARE, SUMMARY_SHARE) only cost it CPU each time they are set (~4% of a DDP
# rank's cold load and summary). Under a small budget they are kept: a launch-bound
# sample's summary needs more than 30% of 50MB.
WHOLE_SHARE_OF_SUMMARY = 1 / 8
# Loaders that write host_activities themselves, numbered and with their depths
# (tui/derived/xla_depth.py, nsys_sqlite.py); the others stage every host row
HOST_ROWS_WRITTEN: tuple[TraceFormat, ...] = ("xla", "xplane", "nsys-sqlite", "nsys-rep")
# Work on a loader's parsed events (its scratch database) done while the host rows are
# written on a second connection, returning warnings: Kineto's memory events
EventsWork = Callable[[duckdb.DuckDBPyConnection], list[str]]
BESIDE_FINALIZE: dict[str, EventsWork] = {"kineto": stage_kineto_memory}
# Where a loader stages its GPU rows for another connection to read too (a view of the
# scratch database: kineto_gpu_activities.sql); its finalize sorts them there.
STAGED_GPU_ELSEWHERE = "scratch.staged_gpu"
# A cache file missing one of these is not trusted (see _open_cached).
CACHED_TABLES = {"trace_meta", "devices", "gpu_activities", "host_activities", "gpu_idle",
                 "python_frames", "launches", "memory_events", "collectives", "op_flops",
                 "kernel_flops"}


@dataclass
class Trace:
    """A loaded trace: a DuckDB connection holding the schema, and what loading said."""

    path: Path
    format: str  # 'kineto' | 'xla' | 'nsys'
    con: duckdb.DuckDBPyConnection
    warnings: list[str] = field(default_factory=list)
    from_cache: bool = False
    cache_path: Path | None = None
    store_dir: Path | None = None  # a store of it `tui convert` wrote (its figures kept there)
    cache_note: str = ""  # whether the cache was used, and if not why (tui.loading.cache_reason)
    # the memory budget the trace was loaded with, where the load needed more than the
    # one given (None: the one given); what is worked out from it later gets it too
    budget: str | None = None
    cursors: Cursors = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.cursors = Cursors(self.con)

    def meta(self, key: str) -> str | None:
        row = self.con.execute("SELECT value FROM trace_meta WHERE key = $key",
                               {"key": key}).fetchone()
        return row[0] if row else None

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A connection of its own for another thread (closing the trace stops its query)."""
        return self.cursors.cursor()

    def close(self) -> None:
        self.cursors.close()

    def __enter__(self) -> Trace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_trace(path: Path, use_cache: bool = True) -> Trace:
    """Load `path` (or reuse its cache). Raises TraceError with a user-facing message."""
    kind = detect_format(path)
    if kind not in TIMELINE_FORMATS:
        raise TraceError(f"{path}: is an Nsight Compute report, not a timeline trace")
    warnings: list[str] = []
    target = cache.cache_file(path) if use_cache else None
    note = cache_reason.NOT_CACHED_FLAG
    if target is not None and not cache.writable_dir(target.parent):
        warnings.append(f"cache dir {target.parent} is not writable: loading into memory")
        note = f"not cached: cache dir {target.parent} not writable"
        target = None
    if target is not None and target.is_file():
        cached = _open_cached(path, target)
        if isinstance(cached, Trace):
            return cached
        note = cached
        if note.startswith("not cached"):  # in use by another program: leave it be
            target = None
    elif target is not None:
        note = cache_reason.why_missing(path, target)
    if target is not None:
        try:
            built = _build_within_budget(path, kind, target, list(warnings))
            built.cache_note = note
            return built
        except _CacheWriteError as exc:  # e.g. a full disk or a read-only file system
            warnings.append(f"cannot write the cache in {target.parent} ({exc}): "
                            "loading into memory")
            note = f"not cached: cannot write the cache ({exc})"
    built = _build_within_budget(path, kind, None, warnings)
    built.cache_note = note
    return built


def _build_within_budget(path: Path, kind: TraceFormat, target: Path | None,
                         warnings: list[str]) -> Trace:
    """_build; a load that outgrew the memory budget is tried once more with twice the
    budget, with a warning, else it is a TraceError (db.twice_the_budget_if_short)."""
    built, larger = twice_the_budget_if_short(
        lambda: _build(path, kind, target, list(warnings)), warnings,
        "loading", "loaded", f"{path}: loading")
    built.budget = larger
    return built


def discard_damaged_cache(exc: BaseException) -> bool:
    """If `exc` is DuckDB finding a damaged file, remove the cache files this command opened.

    True when one was removed: the caller may run again, and the trace is loaded afresh.
    """
    text = str(exc)
    if not isinstance(exc, duckdb.Error) or not (
        "Corrupt database file" in text or "checksum" in text
    ):
        return False
    removed = False
    while cache.opened_caches:
        with contextlib.suppress(OSError):
            cache.opened_caches.pop().unlink()
            removed = True
    return removed


class _CacheWriteError(Exception):
    """The cache file could not be created or completed; the trace itself is fine."""


def _build(path: Path, kind: TraceFormat, target: Path | None,
           warnings: list[str]) -> Trace:
    """Load `path` into a new database: in memory, or built beside `target` and renamed
    (a small trace built in memory and written there whole: _builds_in_memory)."""
    in_memory = target is not None and _builds_in_memory(path)
    try:
        con, partial = _new_database(target, in_memory)
    except duckdb.InterruptException:
        raise  # Ctrl-C, not the cache dir
    except (duckdb.Error, OSError) as exc:
        raise _CacheWriteError(first_line(exc)) from None
    try:
        _one_thread_if_small(con, path, _gpu_metrics_bytes(path, kind))
        _light_plans_if_small(con, path)
        whole = keeps_whole_share(path)
        load_progress.stage(path, load_progress.READING, con)
        # work a loader leaves running (an nsys export's GPU metrics) goes on through the
        # derived tables' build, which does not read it, and is waited for before the
        # cache is written
        with Alongside(con) as alongside:
            # the loader's scratch files go in a folder of this load's own, always
            # removed: its name is known before it exists, so a Ctrl-C just after its
            # creation removes it too
            work = Path(target.parent if target is not None else tempfile.gettempdir(),
                        f"tui-load-{os.getpid()}-{secrets.token_hex(6)}")
            try:
                work.mkdir(mode=0o700)
                con.execute(f"ATTACH {sql_string(_scratch_database(path, work))} AS scratch")
                warnings += _load_into(path, kind, con, target.parent if target else None,
                                      work, alongside)
                load_progress.stage(path, load_progress.BUILDING, con)
                warnings += finalize_activities(con, host_written=kind in HOST_ROWS_WRITTEN,
                                                events_work=BESIDE_FINALIZE.get(kind),
                                                whole_share=whole,
                                                staged_done=lambda: _drop_scratch(con, work))
            finally:
                _drop_scratch(con, work)
            with _share_unless(whole, con, DERIVE_SHARE), \
                    _gpu_idle_beside_stacks(con) as gpu_idle_built:
                warnings += build_stacks(con)
                warnings += tie_gpu_work_to_hlo(con)
                build_kernel_flops(con)
                con.execute(load_query("devices_from_activities"))
                gpu_idle_built()
            warnings += alongside.finish()
        _set_meta(con, [
            ("source_path", str(path.resolve())),
            ("warnings", json.dumps(warnings)),
            ("tui_cache_version", cache.CACHE_VERSION),
            # what the cache was built from: a later miss can say what changed
            ("source_size", str(path.stat().st_size)),
            ("source_mtime_ns", str(path.stat().st_mtime_ns)),
        ])
        fmt = _format_of(con)
        if (partial is None or in_memory) and _inflated_bytes(path) > CHECKPOINT_MIN_BYTES:
            con.execute("CHECKPOINT")
        if target is None or partial is None:
            _threads_for_reading(con, path)
            return Trace(path, fmt, con, warnings)
        try:
            if in_memory:
                write_database_file(con, partial)
            else:
                con.execute("CHECKPOINT")
                con.close()
            os.replace(partial, target)  # only a complete cache file has the trusted name
        except duckdb.InterruptException:
            raise  # Ctrl-C during the checkpoint: not a cache that cannot be written
        except (duckdb.Error, OSError) as exc:
            raise _CacheWriteError(first_line(exc)) from None
    except BaseException:  # Ctrl-C included, at any point: no partial file is left
        _discard(con, partial)
        raise
    if in_memory:  # the same tables as the file's, read from memory
        _threads_for_reading(con, path)
        return Trace(path, fmt, con, warnings, cache_path=target)
    reading = connect(str(target), read_only=True)
    _light_plans_if_small(reading, path)
    return Trace(path, fmt, reading, warnings, cache_path=target)


def _drop_scratch(con: duckdb.DuckDBPyConnection, work: Path) -> None:
    """Let go of the loader's scratch database and files (the parsed events, the parts of
    the trace's file: a 3 GB trace's parse leaves 3 GB of parts); once done, doing it again
    does nothing."""
    with contextlib.suppress(duckdb.Error):
        con.execute("DETACH DATABASE IF EXISTS scratch")
    shutil.rmtree(work, ignore_errors=True)


def _set_meta(con: duckdb.DuckDBPyConnection, rows: list[tuple[str, str]]) -> None:
    """Set these trace_meta keys: their rows deleted, then inserted. An INSERT OR REPLACE
    of the same rows at the end of a load took ~11 ms of CPU on a DDP rank (DuckDB 2.0;
    why not found), these two statements ~1 ms."""
    con.execute("DELETE FROM trace_meta WHERE list_contains($keys, key)",
                {"keys": [key for key, _ in rows]})
    insert_rows(con, "INSERT INTO trace_meta", rows)


def _builds_in_memory(path: Path) -> bool:
    """Whether a cached trace is built in memory, its cache file written at the end: it is
    at most BUILD_IN_MEMORY_MAX_BYTES, and its events take under BUILD_IN_MEMORY_SHARE of
    DuckDB's part of the budget."""
    return (_inflated_bytes(path) <= BUILD_IN_MEMORY_MAX_BYTES
            and _events_bytes(path) < (memory_budget_bytes() * (1 - OUTSIDE_DUCKDB)
                                       * BUILD_IN_MEMORY_SHARE))


def write_database_file(con: duckdb.DuckDBPyConnection, partial: Path) -> None:
    """Write the database `con` built in memory into the file `partial`, whole: its tables
    with their keys, and their rows in the same order (the cache file; also a run's trace
    of several ranks loaded without a cache, tui.runs.load)."""
    source = one_row(con, "SELECT current_database()")[0]
    con.execute(f"ATTACH {sql_string(str(partial))} AS cache_out")
    try:
        con.execute(f'COPY FROM DATABASE "{source}" TO cache_out')
        con.execute("CHECKPOINT cache_out")
    finally:
        con.execute("DETACH cache_out")


def _scratch_database(path: Path, work: Path) -> str:
    """Where a loader's scratch tables go (the database attached as `scratch`): in memory
    while they are small (SCRATCH_IN_MEMORY_SHARE), else a database file in the load's
    work folder."""
    duckdb_share = memory_budget_bytes() * (1 - OUTSIDE_DUCKDB)
    if _events_bytes(path) < duckdb_share * SCRATCH_IN_MEMORY_SHARE:
        return ":memory:"
    return str(work / "scratch.duckdb")


def _one_thread_if_small(con: duckdb.DuckDBPyConnection, path: Path,
                         apart: float = 0) -> None:
    """One DuckDB thread for a small trace (ONE_THREAD_BYTES), less `apart` bytes of it
    that load on connections of their own."""
    if _inflated_bytes(path) - apart <= ONE_THREAD_BYTES:
        con.execute("SET threads = 1")


def _light_plans_if_small(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """DuckDB's lighter plans for a small trace's database (LIGHT_PLANS_BYTES)."""
    if _inflated_bytes(path) <= LIGHT_PLANS_BYTES:
        light_plans(con)


def _threads_for_reading(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """A built trace is read with the threads its cache file is opened with: its GPU metric
    samples count again (their means in the summary run on DuckDB's threads)."""
    con.execute(f"SET threads = {duckdb_threads()}")
    _one_thread_if_small(con, path)


def _gpu_metrics_bytes(path: Path, kind: TraceFormat) -> float:
    """The bytes of an nsys export's GPU metric samples, which load on connections of their
    own whatever DuckDB's threads (an export with 2.5M samples and 10 MB of the rest took
    0.79 CPU-s to load with two threads, 0.65 with one); 0 for other traces."""
    if kind != "nsys-sqlite":
        return 0
    from tui.sources.nsys_gpu_metrics import samples_bytes

    return samples_bytes(path)


def keeps_whole_share(path: Path) -> bool:
    """Whether DuckDB keeps its whole part of the budget (the current one) while the trace
    at `path` is loaded and summed up: a small trace (ONE_THREAD_BYTES) whose events take
    under WHOLE_SHARE_OF_SUMMARY of the summary's share. Not for a file that is not there
    (a store's trace read from elsewhere)."""
    if not path.is_file():
        return False
    return (_inflated_bytes(path) <= ONE_THREAD_BYTES and _events_bytes(path)
            < memory_budget_bytes() * SUMMARY_SHARE * WHOLE_SHARE_OF_SUMMARY)


def _share_unless(whole: bool, con: duckdb.DuckDBPyConnection,
                  share: float) -> contextlib.AbstractContextManager[None]:
    """DuckDB at `share` of the budget in the block (duckdb_share_of), unless it keeps
    its whole part (keeps_whole_share)."""
    return contextlib.nullcontext() if whole else duckdb_share_of(con, share)


def _inflated_bytes(path: Path) -> float:
    """About how many bytes the trace's file holds, inflated (0 when it cannot be read)."""
    try:
        return path.stat().st_size * (GZIP_RATIO if is_gzip(path) else 1)
    except OSError:
        return 0


def _events_bytes(path: Path) -> float:
    """About how much memory the trace's parsed events take (SCRATCH_BYTES_PER_BYTE)."""
    return _inflated_bytes(path) * SCRATCH_BYTES_PER_BYTE


def _discard(con: duckdb.DuckDBPyConnection | None, partial: Path | None) -> None:
    """Close a database whose load stopped, and remove its file. A loader's thread may
    still be running a query on it (Ctrl-C reaches only the main thread): stop that
    first; the connection refuses to close until the query has returned."""
    if con is not None:
        close_when_stopped(con, con.interrupt, 30)
    if partial is not None:
        for leftover in database_files(partial):
            leftover.unlink(missing_ok=True)


def finalize_activities(con: duckdb.DuckDBPyConnection, host_written: bool = False,
                        events_work: EventsWork | None = None,
                        whole_share: bool = False,
                        staged_done: Callable[[], None] | None = None) -> list[str]:
    """Write the rows a loader staged into gpu_activities / host_activities, numbered;
    run `events_work` on the loader's parsed events meanwhile and return its warnings.

    The host rows are copied out first; then a second connection computes their depths
    (tui/derived/host_depth.py: NumPy, a window at a time, set on the copied rows) and
    writes them while this one sorts and writes the GPU rows, the Python frames' own ids
    and `events_work`. A loader that wrote host_activities itself (`host_written`) has only
    its GPU rows written here. DuckDB is held to FINALIZE_SHARE of the budget meanwhile,
    unless it keeps its whole part (`whole_share`: keeps_whole_share). Once what the
    loader staged is dropped, `staged_done` runs (the loader's scratch let go of): while
    the depths are still worked out, where they are. On POOL_MIN_CORES cores or more, once
    the depths are set this connection writes the launch stacks' rows from the rows' copy
    while the second one writes them into host_activities (a 3 GB trace's write: several
    cores' work that the stacks, at 2.5 of 16 cores, waited on).
    """
    if host_written:
        _write_gpu_rows(con, small=whole_share)
        warnings = events_work(con) if events_work else []
        _drop_staging(con)
    else:
        # the depths' arrays sit beside DuckDB
        with _share_unless(whole_share, con, FINALIZE_SHARE), \
                _gpu_rows_beside_copy(con, whole_share) as gpu_rows_written:
            con.execute(load_query("finalize_host_rows"))
            closed = one_row(con, load_query("finalize_python_returns"))[0]
            depths_set: Future[None] = Future()
            with beside(con, lambda other: write_host_depths(
                    other, lambda: depths_set.set_result(None))) as depths_written:
                gpu_rows_written()
                con.execute(load_query("finalize_python_ids"))
                warnings = events_work(con) if events_work else []
                if closed:
                    warnings.append(
                        f"{closed:,} Python frames were left open by the profiler (their "
                        "return not recorded) past the frame that called them: each is "
                        "closed where its caller returned")
                # nothing reads the staged rows now: let go of them beside the depths (on
                # a 3 GB trace, 0.3 s of the loading thread between the stages otherwise)
                _drop_staging(con)
                if staged_done is not None:
                    staged_done()
                    staged_done = None
                stage_points_beside_depths(con)
                if usable_cores() >= POOL_MIN_CORES and _set_first(depths_set, depths_written):
                    # the launch stacks from the rows' copy while they are written
                    stage_stacks_beside_write(con)
            con.execute("DETACH finalize")
    if staged_done is not None:
        staged_done()
    return warnings


def _set_first(depths_set: Future[None], depths_written: Future) -> bool:
    """Wait until the host rows' depths are set (True), or their work ended without (False:
    its error is raised where the block that runs it ends)."""
    wait([depths_set, depths_written], return_when=FIRST_COMPLETED)
    return depths_set.done()


def _write_gpu_rows(con: duckdb.DuckDBPyConnection, staged: str = "staged_gpu",
                    small: bool = False) -> None:
    """`small`: a trace that keeps DuckDB's whole part (keeps_whole_share), its rows
    sorted by their names' text instead of through an ENUM of them (the same order)."""
    query = "finalize_activities_small" if small else "finalize_activities"
    con.execute(fill(query, staged_gpu=staged))


@contextlib.contextmanager
def _gpu_rows_beside_copy(con: duckdb.DuckDBPyConnection,
                          small: bool = False) -> Iterator[Callable[[], None]]:
    """gpu_rows_written(): the GPU rows written once called. On POOL_MIN_CORES cores or
    more, where the loader staged them where another connection reads them
    (STAGED_GPU_ELSEWHERE: a Kineto trace's), they are sorted and written on a second
    connection from the block's start, beside the host rows' copy (which ran alone: on a
    3 GB trace on 16 cores ~1 s); otherwise on `con` when called, as before."""
    if usable_cores() < POOL_MIN_CORES or not _staged_elsewhere(con):
        yield lambda: _write_gpu_rows(con, small=small)
        return
    with beside(con, lambda other: _write_gpu_rows(other, STAGED_GPU_ELSEWHERE,
                                                   small)) as done:
        yield done.result


@contextlib.contextmanager
def _gpu_idle_beside_stacks(con: duckdb.DuckDBPyConnection) -> Iterator[Callable[[], None]]:
    """gpu_idle_built(): the GPU-idle intervals built once called. They need only
    gpu_activities, written by now: on POOL_MIN_CORES cores or more they are built on a
    second connection from the block's start, beside build_stacks and the steps after it
    (the launch stacks left most cores idle: a 3 GB trace's took 1.2 s at 2.5 of 16),
    where they came after them; otherwise on `con` when called, as before."""
    if usable_cores() < POOL_MIN_CORES:
        yield lambda: build_gpu_idle(con)
        return
    with beside(con, build_gpu_idle) as done:
        yield done.result


def _staged_elsewhere(con: duckdb.DuckDBPyConnection) -> bool:
    database, view = STAGED_GPU_ELSEWHERE.split(".")
    return con.execute(load_query("staged_view_exists"),
                       {"database": database, "view": view}).fetchone() is not None


def _drop_staging(con: duckdb.DuckDBPyConnection) -> None:
    """Drop what the loader staged (temp tables and views): only the schema is kept."""
    for kind, name in con.execute(load_query("staging_objects")).fetchall():
        con.execute(f'DROP {kind} "{name}"')


def _open_cached(path: Path, target: Path) -> Trace | str:
    """The cached database, or why it cannot be used (a note for Trace.cache_note).

    An unreadable file, or one from another tui version (always one of ours, in the cache
    dir), is removed so it is built again; one another program holds locked is left be.
    """
    con = None
    why = ""
    try:
        con = connect(str(target), read_only=True)
        rows = dict(con.execute("SELECT key, value FROM trace_meta").fetchall())
        tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        warnings = json.loads(rows.get("warnings") or "[]")
    except (duckdb.Error, ValueError) as exc:  # not DuckDB, damaged, or half-written meta
        if isinstance(exc, duckdb.IOException) and "lock" in str(exc):
            # another program has it open for writing: not ours to remove
            return f"not cached: the cache file is locked ({first_line(exc)})"
        rows, tables, warnings = {}, set(), []
        why = f"rebuilt: the cache was unreadable ({first_line(exc)})"
    if not why and rows.get("tui_cache_version") != cache.CACHE_VERSION:
        why = "rebuilt: cache from an older tui"
    elif not why and not (CACHED_TABLES <= tables and isinstance(warnings, list)):
        why = "rebuilt: the cache was incomplete"
    if why:
        if con is not None:
            con.close()
        with contextlib.suppress(OSError):
            target.unlink(missing_ok=True)
        return why
    assert con is not None
    _one_thread_if_small(con, path)
    _light_plans_if_small(con, path)
    cache.opened_caches.add(target)
    return Trace(path, rows.get("format", "?"), con, warnings, from_cache=True,
                 cache_path=target, cache_note=cache_reason.FROM_CACHE)


def _new_database(target: Path | None, in_memory: bool = False,
                  ) -> tuple[duckdb.DuckDBPyConnection, Path | None]:
    """A database with the schema, and the partial file the cache is written to (None
    without a cache): the database itself, unless built `in_memory`."""
    partial = None
    if target is not None:
        partial = target.with_name(f"{target.name}.partial-{os.getpid()}")
        _remove_stale_partials(target)
        partial.unlink(missing_ok=True)
    con = None
    try:
        con = connect(str(partial) if partial is not None and not in_memory else ":memory:")
        con.execute(load_query("schema"))
        con.execute(load_query("staging_tables"))
    except BaseException:  # Ctrl-C this early too leaves no partial file
        _discard(con, partial)
        raise
    return con, partial


def _remove_stale_partials(target: Path) -> None:
    """Partial files of loads whose process died (killed mid-load): never trusted, only litter."""
    prefix = f"{target.name}.partial-"
    for stale in target.parent.iterdir():
        pid = stale.name[len(prefix):].split(".")[0] if stale.name.startswith(prefix) else ""
        if pid.isdigit() and not cache_reason.alive(int(pid)) and stale.is_file():
            stale.unlink(missing_ok=True)




def _load_into(path: Path, kind: TraceFormat, con: duckdb.DuckDBPyConnection,
               cache_dir: Path | None, scratch: Path, alongside: Alongside) -> list[str]:
    """Run the loader of `kind`; its warnings. An nsys export's loader may leave work
    running in `alongside`."""
    if kind == "kineto":
        from tui.sources.kineto import load_kineto

        return load_kineto(path, con, scratch)
    if kind == "xla":
        from tui.sources.xla import load_xla_json

        return load_xla_json(path, con, scratch)
    if kind == "xplane":
        from tui.sources.xla import load_xplane

        return load_xplane(path, con)
    from tui.sources.nsys_sqlite import load_nsys_sqlite

    if kind == "nsys-rep":
        from tui.sources.nsys_rep import export_to_sqlite

        if cache_dir is not None:
            return load_nsys_sqlite(export_to_sqlite(path, cache_dir), con, alongside)
        # No cache: export into a private directory that goes away after loading (a fixed
        # name in the shared temp dir could be planted by another user, or pile up). Its
        # GPU metrics are waited for here, not alongside: the export goes with the folder.
        with tempfile.TemporaryDirectory(prefix="tui-nsys-") as tmp:
            return load_nsys_sqlite(export_to_sqlite(path, Path(tmp)), con)
    return load_nsys_sqlite(path, con, alongside)


def _format_of(con: duckdb.DuckDBPyConnection) -> str:
    row = con.execute("SELECT value FROM trace_meta WHERE key = 'format'").fetchone()
    if row is None:
        raise TraceError("internal: the loader recorded no format")
    return row[0]
