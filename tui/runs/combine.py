"""Many per-trace stores shown as one database: the schema's tables with a `rank` column.

An in-memory DuckDB ATTACHes each trace's cache file read-only as `store<i>` (or, for a
Parquet store, makes a schema `store<i>` of views over its files) and defines the views
`trace_meta`, `devices`, `gpu_activities`, `host_activities` and `gpu_idle` as the
UNION ALL BY NAME of every store's table, each row tagged with the store's `rank`.
Nothing is copied: queries read the per-rank stores, in parallel.
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path

import duckdb

from tui.core.db import connect, sql_string
from tui.core.queries import fill
from tui.loading.store import RUN_TABLES, TraceStore
from tui.loading.trace import Trace


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


def combine(stores: list[TraceStore], ranks: list[int]) -> duckdb.DuckDBPyConnection:
    """An in-memory connection whose schema tables are views over every store."""
    con = connect(":memory:")
    try:
        for index, store in enumerate(stores):
            _mount(con, index, store)
        for table in RUN_TABLES:
            selects = [f"SELECT {rank}::INTEGER AS rank, * FROM {_alias(i)}.{table}"
                       for i, rank in enumerate(ranks)]
            con.execute(f"CREATE VIEW {table} AS " + "\nUNION ALL BY NAME\n".join(selects))
    except BaseException:
        with contextlib.suppress(duckdb.Error):
            con.close()
        raise
    return con


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
        memo, stamp = rank_memo_file(store.db_path, min_gap_ns), cache_stamp(store.db_path)
    elif store.parquet_dir is not None and store.from_cache:  # not a --no-cache scratch
        memo, stamp = store_memo(store, min_gap_ns)
    else:
        return
    write_rank_memo(memo, stamp, store.format, store.meta, store.warnings, store.summary)


def _alias(index: int) -> str:
    return f"store{index}"


# The query that finds the ranks of one store, by its format's family: each a (pid, GPU).
SPLIT_QUERIES = {"nsys": "run_process_devices", "xla": "run_mesh_devices",
                 "xplane": "run_mesh_devices"}


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
