"""Open the traces of one distributed run as a RankSet: load in parallel, rank, combine."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb

from tui.core.db import connect
from tui.core.load_progress import LoadStopped
from tui.loading.paths import expand_paths
from tui.loading.store import TraceStore
from tui.runs.combine import (
    BatchCopy,
    RankSet,
    combine,
    split_processes,
    summarize_stores,
)
from tui.runs.load import STOP_POLL_S, LoadElsewhere, LoadJob, StopFlag, load_stores


def open_run(paths: list[Path], use_cache: bool = True, workers: int | None = None,
             min_gap_ns: int | None = None, by_order: bool = False,
             stop: StopFlag | None = None,
             on_done: Callable[[TraceStore], None] | None = None,
             scheduler: str | None = None) -> RankSet:
    """The traces in `paths` (files, or directories of them) as one RankSet, by rank.

    With `min_gap_ns`, each store also carries what a run keeps of its trace's own summary
    (rank_summary: devices, gaps, warnings): kept from an earlier open of its cache file
    or store (tui.analysis.rank_memo), else built where it is loaded (a trace from its
    cache is loaded again, in the pool with the others), or here for a Parquet store; and
    kept for the next open. The pool's processes share the memory budget. `by_order`:
    rank i is the i-th trace, whatever the traces say (a before/after pair). Once `stop`
    is set (from another thread), the loads stop and LoadStopped is raised. on_done(store)
    is called as each trace's store is ready (load_stores). `scheduler`: the traces to
    load (or to sum up again) are loaded as tasks of that Dask cluster (tui.runs.cluster;
    `workers`: of a local one), into the cache.
    """
    files = expand_paths(paths)
    scratch = Path(tempfile.mkdtemp(prefix="tui-ranks-"))
    con = None
    # a run to copy into a file of its own is copied as its ranks are loaded
    copy = BatchCopy.of_run(scratch, len(files))
    try:
        stores = load_stores([LoadJob(p, use_cache, scratch, min_gap_ns) for p in files],
                             workers, on_done, stop, share_budget=True,
                             elsewhere=_on_cluster(scheduler, workers),
                             on_ready=copy.add if copy is not None else None)
        if stop is not None and stop.is_set():  # asked while the last store was finished
            raise LoadStopped("loading stopped")
        stores = split_processes(stores)  # a multi-process report: a rank per process
        ranks, warnings = (list(range(len(stores))), []) if by_order else assign_ranks(stores)
        order = sorted(range(len(stores)), key=lambda i: ranks[i])
        stores = [stores[i] for i in order]
        ranks = [ranks[i] for i in order]
        if min_gap_ns is not None and any(store.summary is None for store in stores):
            with contextlib.closing(connect(":memory:")) as alone, stopped_by(alone, stop):
                summarize_stores(alone, stores, min_gap_ns)  # Parquet stores, one at a time
        if copy is not None:
            con = copy.finish(stores, ranks, stop)
        if con is None:  # not copied yet, or copied in an order that the ranks undo
            con = combine(stores, ranks, scratch, stop=stop)
    except BaseException:
        if con is not None:
            con.close()
        if copy is not None:
            copy.close()
        with contextlib.suppress(OSError):
            shutil.rmtree(scratch)
        raise
    if not by_order:
        warnings += _world_size_warnings(stores)
    return RankSet(con, stores, ranks, warnings, scratch)


@contextlib.contextmanager
def stopped_by(con: duckdb.DuckDBPyConnection, stop: StopFlag | None) -> Iterator[None]:
    """Run the block's queries on `con` until `stop` is set (from another thread): from
    then on each is interrupted, and the block raises LoadStopped (also where the block
    caught an interrupted query and went on: its result would be partial)."""
    if stop is None:
        yield
        return
    done = threading.Event()

    def interrupt_once_stopped() -> None:
        while not done.is_set():
            if stop.wait(STOP_POLL_S):
                while not done.is_set():  # a query started after the last one is stopped too
                    with contextlib.suppress(duckdb.Error):
                        con.interrupt()
                    done.wait(0.02)

    watcher = threading.Thread(target=interrupt_once_stopped, name="tui-stop-run",
                               daemon=True)
    watcher.start()
    try:
        yield
    except duckdb.Error:
        if stop.is_set():
            raise LoadStopped("loading stopped") from None
        raise
    finally:
        done.set()
        watcher.join()
    if stop.is_set():
        raise LoadStopped("loading stopped")


def assign_ranks(stores: list[TraceStore]) -> tuple[list[int], list[str]]:
    """Each store's rank: Kineto's distributedInfo rank, else its place in the order given.

    The order given is used for every store as soon as one lacks a rank or two share one
    (e.g. the same trace given twice, or nsys reports, which record no rank).
    """
    found = [_int(store.meta.get("rank")) for store in stores]
    if all(r is not None for r in found) and len(set(found)) == len(found):
        return [r for r in found if r is not None], []
    order = list(range(len(stores)))
    if any(r is not None for r in found):
        why = "some traces name no rank" if None in found else "two traces name the same rank"
        return order, [f"ranks taken from the order of the files given: {why}"]
    return order, []


def _world_size_warnings(stores: list[TraceStore]) -> list[str]:
    sizes = sorted({size for store in stores
                    if (size := _int(store.meta.get("world_size"))) is not None})
    if len(sizes) > 1:
        return [f"the traces disagree on the world size ({sizes}): are they one run?"]
    if sizes and (size := sizes[0]) > len(stores):
        return [f"world size {size} but {len(stores)} traces given: the other ranks' "
                "waits and the straggler are judged from these only"]
    return []


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _on_cluster(scheduler: str | None, workers: int | None) -> LoadElsewhere | None:
    """The loads as tasks of the Dask cluster `scheduler` (None: this machine's pool)."""
    if scheduler is None:
        return None
    from tui.runs.cluster import load_stores_on_cluster

    return lambda jobs, on_done: load_stores_on_cluster(jobs, scheduler, workers,
                                                        on_done=on_done)
