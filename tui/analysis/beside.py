"""Work that needs nothing from the statements around it, run beside them on a cursor of
its own (a connection to the same database: its temp tables its own) on a thread of its
own, from POOL_MIN_CORES cores. A summary's statements each use DuckDB's threads only part
of their time (a window function, a sort's merge, Python between them): side by side they
fill each other's idle cores. Below POOL_MIN_CORES the work runs on the caller's
connection when its result is first asked for, as it would without this. A cursor reads
the database's default schema: not for a connection that `USE` points elsewhere (a run's
stores)."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from types import TracebackType
from typing import TypeVar

import duckdb

from tui.core.budget import usable_cores
from tui.derived.nesting import POOL_MIN_CORES

T = TypeVar("T")
Work = Callable[[duckdb.DuckDBPyConnection], T]


def side_by_side() -> bool:
    """Whether this machine has the cores for work beside the caller's."""
    return usable_cores() >= POOL_MIN_CORES


class Beside:
    """`with Beside(con, side_by_side()) as beside: got = beside.start(work); ...`:
    work(cursor) started on a thread of its own, its result (or error) given by got().
    Leaving the block waits for every work started (a connection cannot close while a
    cursor of it runs a query), interrupting them first where the block left with an error."""

    def __init__(self, con: duckdb.DuckDBPyConnection, on: bool) -> None:
        self._con = con
        self._on = on
        self._pool: ThreadPoolExecutor | None = None
        self._started: list[tuple[duckdb.DuckDBPyConnection, Future]] = []

    def start(self, work: Work[T]) -> Callable[[], T]:
        if not self._on:  # on the caller's connection, when its result is asked for
            return functools.cache(lambda: work(self._con))
        if self._pool is None:
            self._pool = ThreadPoolExecutor(thread_name_prefix="tui-beside")
        cur = self._con.cursor()
        future = self._pool.submit(_on_cursor, cur, work)
        self._started.append((cur, future))
        return future.result

    def __enter__(self) -> Beside:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if kind is not None:  # nobody will ask for their results
            for cur, future in self._started:
                while not future.done():  # again, if its query had not begun yet
                    with contextlib.suppress(duckdb.Error):
                        cur.interrupt()
                    wait([future], timeout=0.05)
        if self._pool is not None:
            self._pool.shutdown(wait=True)


def _on_cursor(cur: duckdb.DuckDBPyConnection, work: Work[T]) -> T:
    try:
        return work(cur)
    finally:
        cur.close()  # its temp tables go with it
