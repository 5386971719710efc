"""Many per-trace stores shown as one database: the schema's tables with a `rank` column.

An in-memory DuckDB ATTACHes each trace's cache file read-only as `store<i>` (or, for a
Parquet store, makes a schema `store<i>` of views over its files) and defines the views
`trace_meta`, `devices`, `gpu_activities`, `host_activities` and `gpu_idle` as the
UNION ALL BY NAME of every store's table, each row tagged with the store's `rank`.
Nothing is copied: queries read the per-rank stores, in parallel.

A run of more than ATTACHED_AT_ONCE stores is combined in a DuckDB file of its own instead:
each attached database keeps about half a MiB of DuckDB's memory pinned (its metadata and
the blocks a query last read), so 1,024 stores attached at once took all of a 1GB budget's
share. There the stores are attached ATTACHED_AT_ONCE at a time, their tables copied into
one table per batch, and detached again; the views are the UNION ALL BY NAME of the
batches' tables, which DuckDB reads (and evicts, and spills) as its own. That database
gets less of the budget than DuckDB's usual share (run_memory_limit): the ranks' summaries
sit in this process's Python objects beside it, ~46 KB a DDP rank, 190 MB at 4,096 ranks,
which outgrew the share of the budget kept outside DuckDB. Such a run is copied as its
ranks are loaded (BatchCopy), while the load pool still works on the rest.
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path

import duckdb

from tui.core.budget import duckdb_threads, memory_budget_bytes
from tui.core.db import OUTSIDE_DUCKDB, connect, database_files, sql_string
from tui.core.load_progress import LoadStopped
from tui.core.queries import fill, load_query
from tui.loading.store import RANK_TABLES, RUN_TABLES, TraceStore
from tui.loading.trace import Trace
from tui.runs.load import SPLIT_QUERIES, StopFlag


@dataclass
class RankSet:
    """The combined database and the stores it reads, one per rank, by rank."""

    con: duckdb.DuckDBPyConnection
    stores: list[TraceStore]
    ranks: list[int]
    warnings: list[str] = field(default_factory=list)
    scratch: Path | None = None  # Parquet stores to remove on close

    def store(self, rank: int) -> TraceStore:
        return self.stores[self.ranks.index(rank)]

    def close(self) -> None:
        self.con.close()
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)

    def __enter__(self) -> RankSet:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


ATTACHED_AT_ONCE = 128  # stores attached at once; a larger run is copied (see above)
# Stores copied together while a pool still loads the run (BatchCopy.add): a batch's
# copy in a few pieces, so that little of it is left once the last rank is loaded.
COPY_CHUNK = 32
# ... under this share of the memory budget, each chunk checkpointed into the file: the
# pool's processes share the budget meanwhile. 256 DDP ranks' copy in one process: +38 MB
# of peak RSS and 3.3 CPU-s, against +200 MB and 2.8-2.9 CPU-s under DuckDB's usual part
# (+80-100 MB unchecked at this share: DuckDB spills the rows not yet in the file).
EARLY_COPY_SHARE = 0.1
# What each rank's store and summary take in this process's Python objects while its run
# is worked out (46 KB a DDP rank as a store, measured at 1,024 ranks; more once the run's
# summary has made its rows of them). Those of the first RANKS_PYTHON_ALLOWANCE bytes fit
# in the part of the budget kept outside DuckDB, beside the imports (~90 MB) and the
# run's own summary; past that a combined database's DuckDB gets as much less memory, down
# to RUN_MIN_DUCKDB_SHARE of its usual part (with 290 MB, a cross-rank query of 4,096
# ranks ran out of it).
RANK_PYTHON_BYTES = 60_000
RANKS_PYTHON_ALLOWANCE = 60_000_000
RUN_MIN_DUCKDB_SHARE = 0.6


def combine(stores: list[TraceStore], ranks: list[int], scratch: Path | None = None,
            at_once: int | None = None,
            stop: StopFlag | None = None) -> duckdb.DuckDBPyConnection:
    """A connection whose schema tables are views over every store: in memory, over the
    stores attached; or, for more than `at_once` stores and a `scratch` folder to write
    in, over their tables copied into a file there, `at_once` stores at a time
    (default ATTACHED_AT_ONCE; BatchCopy); once `stop` is set, before the next batch,
    LoadStopped is raised."""
    at_once = at_once or ATTACHED_AT_ONCE
    if scratch is not None and len(stores) > at_once:
        copy = BatchCopy(scratch, at_once)
        try:
            con = copy.finish(stores, ranks, stop)
            assert con is not None  # nothing was copied early, to be undone
            return con
        except BaseException:
            copy.close()
            raise
    con = connect(":memory:")
    try:
        for index, store in enumerate(stores):
            _mount(con, index, store)
        offsets = clock_offsets(stores)
        for table in RUN_TABLES:
            con.execute(f"CREATE VIEW {table} AS "
                        + _union(table, range(len(stores)), ranks, offsets))
    except BaseException:
        with contextlib.suppress(duckdb.Error):
            con.close()
        raise
    return con


class BatchCopy:
    """The tables of a run's stores copied into a DuckDB file of its own (`run.duckdb` in
    `scratch`), a table per batch of `at_once` stores, each row tagged with its rank.

    The stores may be given as they are loaded (`add`, in any order): each `chunk` of them
    next in the order given is copied as soon as all of it is there (attached, appended
    to its batch's tables, detached), each store's rank taken to be its place in that
    order. The copy of a run that a pool loads so runs beside the pool, not after it on
    one core while the other idles (256 DDP ranks: ~2.9 CPU-s of copying). `finish`
    copies the rest. What was copied early stands only where the run's ranks are the
    order given after all (the usual case: the traces name no rank, or name them in the
    order of their files); else `finish` returns None and the run is combined anew. A
    store whose trace may hold several ranks (split_processes) ends the early copy.
    """

    def __init__(self, scratch: Path, at_once: int | None = None,
                 chunk: int | None = None, total: int | None = None) -> None:
        self.at_once = at_once or ATTACHED_AT_ONCE
        self.chunk = min(chunk or COPY_CHUNK, self.at_once)
        self.total = total  # the run's stores, where known: its last ones go in smaller chunks
        self.path = scratch / "run.duckdb"
        self.con: duckdb.DuckDBPyConnection | None = connect(str(self.path))
        # an early copy keeps to one thread and EARLY_COPY_SHARE of the budget: the pool's
        # processes hold the cores and share the budget meanwhile (finish sets the usual)
        self.con.execute("SET threads = 1")
        early_limit = int(memory_budget_bytes() * EARLY_COPY_SHARE) // 1000
        self.con.execute(f"SET memory_limit = '{max(1, early_limit)}KB'")
        self.ready: dict[int, TraceStore] = {}  # given, by their place in the order given
        self.copied: list[TraceStore] = []  # the first len(copied) stores, copied
        self.early = True  # whether the stores given as they come may be copied
        self.spoiled = False  # an early copy failed part-way: finish starts anew
        self.batches: list[int] = []  # each batch's first place

    @classmethod
    def of_run(cls, scratch: Path, total: int) -> BatchCopy | None:
        """The copy of a run of `total` traces where it is copied (more than
        ATTACHED_AT_ONCE), else None."""
        return cls(scratch, total=total) if total > ATTACHED_AT_ONCE else None

    def add(self, index: int, store: TraceStore) -> None:
        """Store `index` of the order given is ready: copy the next chunk if it is whole.
        A copy that fails here is left to `finish`, which makes it anew."""
        if not self.early or self.con is None:
            return
        if store.format.split("-")[0] in SPLIT_QUERIES:
            self.early = False
            return
        self.ready[index] = store
        try:
            while True:
                first = len(self.copied)
                end = min(first + self._chunk_at(first), self._batch_end(first))
                if any(i not in self.ready for i in range(first, end)):
                    return
                self._copy([self.ready[i] for i in range(first, end)], first,
                           list(range(first, end)))
                self.con.execute("CHECKPOINT")  # the rows in the file: evicted, not spilled
        except duckdb.Error:
            self.early, self.spoiled = False, True

    def finish(self, stores: list[TraceStore], ranks: list[int],
               stop: StopFlag | None = None) -> duckdb.DuckDBPyConnection | None:
        """The run's connection over every store copied, `stores` by rank (`ranks`), or
        None where what was copied early does not match them (the caller combines the
        run anew; this copy's file is removed). Raises LoadStopped once `stop` is set,
        before the next batch."""
        con = self.con
        assert con is not None
        if not self._stands(stores, ranks):
            self.close()
            return None
        con.execute(f"SET threads = {duckdb_threads()}")
        # its tables are DuckDB's own to evict: it can make do with less of the budget
        con.execute(f"SET memory_limit = '{run_memory_limit(len(stores))}'")
        offsets = clock_offsets(stores)
        while len(self.copied) < len(stores):
            if stop is not None and stop.is_set():
                raise LoadStopped("loading stopped")
            first = len(self.copied)
            end = min(self._batch_end(first), len(stores))
            self._copy(stores[first:end], first, ranks[first:end], offsets[first:end])
        for table in RUN_TABLES:
            con.execute(f"CREATE VIEW {table} AS " + "\nUNION ALL BY NAME\n".join(
                f"FROM {_batch(table, first)}" for first in self.batches))
        self.con = None  # the caller's now
        return con

    def _stands(self, stores: list[TraceStore], ranks: list[int]) -> bool:
        """Whether what was copied early is the run's first stores, by rank."""
        early = self.copied
        if self.spoiled or (early and not self.early):
            return False
        return (ranks[:len(early)] == list(range(len(early)))
                and all(a is b for a, b in zip(early, stores, strict=False)))

    def close(self) -> None:
        """Drop the copy (its file too)."""
        if self.con is not None:
            with contextlib.suppress(duckdb.Error):
                self.con.close()
            self.con = None
        for leftover in database_files(self.path):
            with contextlib.suppress(OSError):
                leftover.unlink()

    def _chunk_at(self, first: int) -> int:
        """How many stores to copy at once from place `first` on: a quarter of a chunk
        among the run's last two chunks (what is left to copy once the last rank is
        loaded is the work after the pool waits for)."""
        if self.total is not None and self.total - first <= 2 * self.chunk:
            return max(1, self.chunk // 4)
        return self.chunk

    def _batch_end(self, first: int) -> int:
        return (first // self.at_once + 1) * self.at_once

    def _copy(self, stores: list[TraceStore], first: int, ranks: list[int],
              offsets: list[int] | None = None) -> None:
        """Copy `stores`, places first.. of the order, into their batch's tables, their
        times moved by `offsets` (the run's clock_offsets, one for each; none: as they
        are: an early copy's stores are no nsys reports, SPLIT_QUERIES)."""
        con = self.con
        assert con is not None
        indices = range(first, first + len(stores))
        for index, store in zip(indices, stores, strict=True):
            _mount(con, index, store)
        batch = first - first % self.at_once
        for table in RUN_TABLES:
            rows = _union(table, indices, ranks, offsets)
            if batch == first:
                con.execute(f"CREATE TABLE {_batch(table, batch)} AS " + rows)
            else:
                con.execute(f"INSERT INTO {_batch(table, batch)} BY NAME " + rows)
        if batch == first:
            self.batches.append(batch)
        for index, store in zip(indices, stores, strict=True):
            _unmount(con, index, store)
        self.copied += stores


def run_memory_limit(ranks: int) -> str:
    """DuckDB's memory_limit for a combined database of `ranks` ranks: its usual part of
    the budget less what the ranks take in Python past RANKS_PYTHON_ALLOWANCE, at least
    RUN_MIN_DUCKDB_SHARE of that part. Under a 1GB budget: 700 MB up to 1,000 ranks,
    514 MB at 4,096 (where the first open of 4,096 DDP ranks peaked at 877 MB of RSS,
    1,066 MB with 700: benchmarks/HISTORY.md)."""
    usual = memory_budget_bytes() * (1 - OUTSIDE_DUCKDB)
    beyond = max(0, ranks * RANK_PYTHON_BYTES - RANKS_PYTHON_ALLOWANCE)
    limit = max(usual * RUN_MIN_DUCKDB_SHARE, usual - beyond)
    return f"{max(1, int(limit) // 1000)}KB"


# The run's tables whose rows have times, and their time columns.
TIMED_TABLES = ("gpu_activities", "host_activities", "gpu_idle", "collectives")


def clock_offsets(stores: list[TraceStore]) -> list[int]:
    """What to add to each store's times to put them on one clock. An nsys export's times
    count from its own session's start: a run recorded as one report per rank (nsys
    under torchrun) has ranks whose clocks start tens of ms apart, each lined up here by
    its session's start (UTC) against the earliest one's; other stores' times are taken
    as they are (Kineto's and XLA's are the host's clock already, as is one report of
    several processes)."""
    starts = [int(s.meta["session_start_utc_ns"]) if str(
        s.meta.get("session_start_utc_ns", "")).isdigit() else None for s in stores]
    known = [t for t in starts if t is not None]
    if len(known) < 2:
        return [0] * len(stores)
    first = min(known)
    return [t - first if t is not None else 0 for t in starts]


def _union(table: str, indices: range, ranks: list[int],
           offsets: list[int] | None = None) -> str:
    """The `table` of the stores mounted as `indices`, each row tagged with its store's
    rank (`ranks`, one for each of `indices`), its times moved by its store's offset
    (`offsets`, one for each of `indices`: clock_offsets)."""
    offsets = offsets or [0] * len(indices)

    def moved(offset: int) -> str:
        if not offset or table not in TIMED_TABLES:
            return "*"
        return f"* REPLACE (start_ns + {offset} AS start_ns, end_ns + {offset} AS end_ns)"

    return "\nUNION ALL BY NAME\n".join(
        f"SELECT {rank}::INTEGER AS rank, {moved(offset)} FROM {_alias(i)}.{table}"
        for i, rank, offset in zip(indices, ranks, offsets, strict=True))


def _batch(table: str, first: int) -> str:
    return f"batch{first}_{table}"


def summarize_stores(con: duckdb.DuckDBPyConnection, stores: list[TraceStore],
                     min_gap_ns: int) -> None:
    """Fill in the summary of every store that came without one (from the cache, or a
    Parquet store), on `con`, an in-memory connection of its own: each store is mounted
    there in turn, `USE` points the summary's unqualified table names at it, and it is
    unmounted again. One at a time because an attached cache file holds 256 KiB of
    DuckDB's memory while attached: 1,024 of them took all of a 1GB budget's summary
    share."""
    from tui.analysis.summary import rank_summary

    for index, store in enumerate(stores):
        if store.summary is not None:
            continue
        _mount(con, index, store)
        try:
            whole_file = store.db_path is not None and store.part is None
            con.execute(f"USE {_alias(index) if whole_file else 'memory.' + _alias(index)}")
            # a part's figures are not kept beside the report's cache: it is one of several
            view = Trace(store.path, store.format, con, list(store.warnings),
                         from_cache=store.from_cache,
                         cache_path=store.db_path if store.part is None else None,
                         store_dir=store.parquet_dir)
            store.summary = rank_summary(view, min_gap_ns)
        finally:
            con.execute("USE memory.main")
            _unmount(con, index, store)
        _keep(store, min_gap_ns)


def _keep(store: TraceStore, min_gap_ns: int) -> None:
    """Keep a store's summary for the next open (tui.analysis.rank_memo)."""
    from tui.analysis.rank_memo import cache_stamp, rank_memo_file, write_rank_memo
    from tui.runs.load import store_memo

    assert store.summary is not None
    if store.db_path is not None:
        part_rank = store.meta.get("rank") if store.part is not None else None
        memo = rank_memo_file(store.db_path, min_gap_ns, part_rank)
        stamp = cache_stamp(store.db_path)
    elif store.parquet_dir is not None and store.from_cache:  # not a --no-cache scratch
        memo, stamp = store_memo(store, min_gap_ns)
    else:
        return
    write_rank_memo(memo, stamp, store.format, store.meta, store.warnings, store.summary)


def _alias(index: int) -> str:
    return f"store{index}"


def split_processes(stores: list[TraceStore]) -> list[TraceStore]:
    """Each store, or, for an nsys report of a multi-process job (each process on its own
    GPU, run_process_devices.sql), one store per process: its `part`, its rank in its meta
    (its GPU's number: the report names no framework rank). An XLA profile of one process
    driving several GPUs (a JAX mesh, run_mesh_devices.sql) is split the same way, one
    store per GPU, numbered as its device id; its pid is None: the host is shared. Only
    traces kept as a cache file are split (a Parquet store of one stays one rank)."""
    out: list[TraceStore] = []
    with contextlib.closing(connect(":memory:")) as con:
        for index, store in enumerate(stores):
            query = SPLIT_QUERIES.get(store.format.split("-")[0])
            if query is None or store.db_path is None:
                out.append(store)
                continue
            _mount(con, index, store)
            try:
                rows = con.execute(fill(query, store=_alias(index))).fetchall()
            finally:
                _unmount(con, index, store)
            if len(rows) < 2:
                out.append(store)
                continue
            out += [replace(store, part=(pid, device), summary=None,
                            meta={**store.meta, "rank": str(device)})
                    for pid, device in rows]
    return out


def _unmount(con: duckdb.DuckDBPyConnection, index: int, store: TraceStore) -> None:
    """Undo _mount."""
    alias = _alias(index)
    if store.part is not None:
        con.execute(f"DROP SCHEMA {alias} CASCADE")
    elif store.db_path is not None:
        con.execute(f"DETACH {alias}")
    else:
        con.execute(f"DROP SCHEMA {alias} CASCADE")


def _mount(con: duckdb.DuckDBPyConnection, index: int, store: TraceStore) -> None:
    """Make `store<index>.<table>` read `store`'s tables (of a Parquet store, those a rank's
    summary in a run reads, RANK_TABLES: it keeps its devices, gaps and warnings, not its
    code)."""
    alias = _alias(index)
    if store.part is not None and store.db_path is not None:
        # the report once (one file cannot be attached twice), a schema of views per part
        source = "report_" + hashlib.sha1(str(store.db_path).encode()).hexdigest()[:12]
        con.execute(f"ATTACH IF NOT EXISTS {sql_string(str(store.db_path))} AS {source} "
                    "(READ_ONLY)")
        con.execute(f"CREATE SCHEMA {alias}")
        pid, device = store.part
        con.execute(fill("run_part_table", schema=alias), {"pid": pid, "device": device})
        con.execute(fill("run_part_views", schema=alias, source=source))
        if con.execute(load_query("run_source_has_metrics"), {"source": source}).fetchone() \
                == (True,):  # its GPU's hardware counters, where the report has them
            con.execute(fill("run_part_metric_views", schema=alias, source=source))
        return
    if store.db_path is not None:
        con.execute(f"ATTACH {sql_string(str(store.db_path))} AS {alias} (READ_ONLY)")
        return
    folder = store.parquet_dir
    assert folder is not None
    con.execute(f"CREATE SCHEMA {alias}")
    for table in RANK_TABLES:
        source = sql_string(str(folder / f"{table}.parquet"))
        con.execute(f"CREATE VIEW {alias}.{table} AS FROM read_parquet({source})")
