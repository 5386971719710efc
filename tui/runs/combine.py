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
which outgrew the share of the budget kept outside DuckDB.
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path

import duckdb

from tui.core.db import OUTSIDE_DUCKDB, connect, memory_budget_bytes, sql_string
from tui.core.load_progress import LoadStopped
from tui.core.queries import fill, load_query
from tui.loading.store import RUN_TABLES, TraceStore
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
    (default ATTACHED_AT_ONCE); once `stop` is set, before the next batch, LoadStopped is
    raised."""
    at_once = at_once or ATTACHED_AT_ONCE
    batched = scratch is not None and len(stores) > at_once
    con = connect(str(scratch / "run.duckdb") if batched and scratch else ":memory:")
    try:
        if not batched:
            for index, store in enumerate(stores):
                _mount(con, index, store)
            for table in RUN_TABLES:
                con.execute(f"CREATE VIEW {table} AS "
                            + _union(table, range(len(stores)), ranks))
            return con
        # its tables are DuckDB's own to evict: it can make do with less of the budget
        con.execute(f"SET memory_limit = '{run_memory_limit(len(stores))}'")
        batches = range(0, len(stores), at_once)
        for first in batches:
            if stop is not None and stop.is_set():
                raise LoadStopped("loading stopped")
            indices = range(first, min(first + at_once, len(stores)))
            for index in indices:
                _mount(con, index, stores[index])
            for table in RUN_TABLES:
                con.execute(f"CREATE TABLE {_batch(table, first)} AS "
                            + _union(table, indices, ranks))
            for index in indices:
                _unmount(con, index, stores[index])
        for table in RUN_TABLES:
            con.execute(f"CREATE VIEW {table} AS " + "\nUNION ALL BY NAME\n".join(
                f"FROM {_batch(table, first)}" for first in batches))
    except BaseException:
        with contextlib.suppress(duckdb.Error):
            con.close()
        raise
    return con


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


def _union(table: str, indices: range, ranks: list[int]) -> str:
    """The stores' `table`, each row tagged with its store's rank."""
    return "\nUNION ALL BY NAME\n".join(
        f"SELECT {ranks[i]}::INTEGER AS rank, * FROM {_alias(i)}.{table}" for i in indices)


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
    """Make `store<index>.<table>` read `store`'s tables (of a Parquet store, those the run
    reads: a rank's summary in a run keeps its devices, gaps and warnings, not its code)."""
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
    for table in RUN_TABLES:
        source = sql_string(str(folder / f"{table}.parquet"))
        con.execute(f"CREATE VIEW {alias}.{table} AS FROM read_parquet({source})")
