"""DuckDB connections opened the one way tui needs them."""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any, Protocol, TypeVar

import duckdb
import numpy as np
import pyarrow as pa

from tui.core.budget import budget_of, duckdb_threads, memory_budget, memory_budget_bytes
from tui.core.errors import TraceError
from tui.core.queries import load_query

# DuckDB's memory_limit is the memory budget (tui/core/budget.py) less a share kept outside
# it: the process itself (Python with DuckDB, NumPy, Arrow and Textual loaded: 0.15 GB) and
# the loaders' NumPy arrays, which take ARRAYS_SHARE of the budget at most (a big trace's
# are worked through in parts that fit). Above its limit, sorts, joins and aggregates
# spill to disk.
OUTSIDE_DUCKDB = 0.3
ARRAYS_SHARE = 0.1
# While the loaded rows are written into the schema with the host rows' depths worked out
# in NumPy windows (ARRAYS_SHARE) on a second connection beside the GPU rows' sort, DuckDB
# gets this share (a loader that wrote its host rows itself keeps the loading share). The
# 3 GB Kineto trace peaked in that phase at 868-871 MiB with 70%, 774-780 MiB with 60%
# (whole cold runs 28.0-30.0 s before, 29.4-31.5 s after); a 10 GB one at 983 MiB with 70%
# on a 16-core host. From 4 cores a Kineto trace's launch stacks are written in this phase
# too, beside the host rows' final write, once the depths' windows are done: the nesting's
# windows (ARRAYS_SHARE) take theirs' place.
FINALIZE_SHARE = 0.6
# While the launch stacks and idle intervals are derived from the loaded tables, DuckDB
# gets this share: its temp tables and the nesting's NumPy windows (ARRAYS_SHARE) sit
# side by side there. A 3 GB nsys export peaked in that phase at 1,030 MiB with 70%,
# 903-916 MiB with 60%, 807-818 MiB with 50%, in the same time (stacks 8.4-10.8 s).
DERIVE_SHARE = 0.5
# While a summary is computed from a built trace, DuckDB gets this share of the budget
# instead: the summary holds what it found (every gap, every rule row) in Python beside
# DuckDB. A 3 GB nsys export's summary peaked at 1,065 MiB with 70%, 779 MiB with 40%,
# 693 MiB with 30% in the same time; its kernels' medians (13.6M durations held whole)
# need 300 MB at 4 threads, 180 MB at 2 (250 and 150 MB ran out).
SUMMARY_SHARE = 0.3
# DuckDB's allocator keeps up to this much freed memory after a task (default 128 MiB),
# memory its limit does not count: a 10 GB load peaked 0.13 GB higher with the default.
ALLOCATOR_FLUSH = "8MB"


def duckdb_memory_limit() -> str:
    """DuckDB's memory_limit: the budget less the share kept outside DuckDB."""
    return _memory_limit(1 - OUTSIDE_DUCKDB)


def _memory_limit(share: float) -> str:
    """`share` of the budget as a memory_limit setting."""
    return f"{max(1, int(memory_budget_bytes() * share) // 1000)}KB"


@contextlib.contextmanager
def setting_in_block(con: duckdb.DuckDBPyConnection, name: str, value: str) -> Iterator[None]:
    """DuckDB's setting `name` is `value` in the block, as it was after."""
    before = str(one_row(con, "SELECT current_setting(?)", [name])[0])
    con.execute(f"SET {name} = {sql_string(value)}")
    try:
        yield
    finally:
        con.execute(f"SET {name} = {sql_string(before)}")


def duckdb_share_of(con: duckdb.DuckDBPyConnection,
                    share: float) -> contextlib.AbstractContextManager[None]:
    """DuckDB's memory_limit is `share` of the budget in the block (for every connection
    of `con`'s database), as it was after."""
    return setting_in_block(con, "memory_limit", _memory_limit(share))


def joins_as_written(con: duckdb.DuckDBPyConnection) -> contextlib.AbstractContextManager[None]:
    """In the block, each hash join builds its table from the right-hand side as the query
    is written, instead of the side DuckDB estimates smaller (a setting of the whole
    database, as it was after; the passes already left out stay out: light_plans). For a
    join of two inputs of equal length whose left side is wide (text columns) and right
    side a few numbers: DuckDB would build on the wide one."""
    left_out = _left_out(con)
    if "build_side_probe_side" in left_out:  # light_plans: the joins are as written already
        return contextlib.nullcontext()
    return setting_in_block(con, "disabled_optimizers",
                            ",".join(sorted(left_out | {"build_side_probe_side"})))


def _left_out(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The optimizer passes DuckDB leaves out on `con`'s database."""
    setting = str(one_row(con, "SELECT current_setting('disabled_optimizers')")[0])
    return {name.strip() for name in setting.split(",") if name.strip()}


# DuckDB's optimizer passes a small trace's database leaves out (light_plans). A load and
# summary run ~135 statements over tables of a few thousand rows, where a statement's plan
# costs more than its rows: on a DDP rank (sample_traces/ddp4) DuckDB's profile gives its
# optimizers ~27 ms a rank, join_order 5.4 and expression_rewriter 4.9 the largest; without
# the eleven below, ~13 against ~21 (the operators as before), and a rank in a load pool's
# process costs 5-7% less CPU. Kept: the passes whose absence slows the
# operators of a bigger small trace (bound_launch, 13 MB: statistics_propagation,
# common_subplan and common_subexpressions, a CTE read twice computed twice; unused_columns
# and column_lifetime, whole rows carried through a window's sort), and filter_pushdown
# (the filters into the scans, a filtered cross product into a join). Figures in
# benchmarks/HISTORY.md, "A run's cold open: the optimizer passes a small trace leaves out".
LIGHT_PLAN_PASSES_LEFT_OUT = (
    "join_order", "expression_rewriter", "projection_placement", "join_filter_pushdown",
    "projection_pullup", "duplicate_groups", "cte_filter_pusher", "build_side_probe_side",
    "outer_join_simplification", "join_elimination", "aggregate_reuse",
)


def light_plans(con: duckdb.DuckDBPyConnection) -> None:
    """`con`'s database (every connection of it) plans its statements without the passes
    of LIGHT_PLAN_PASSES_LEFT_OUT: for a small trace's tables, whose plans cost more than
    their rows. The same results; a query without ORDER BY may give its rows in another
    order."""
    con.execute(f"SET disabled_optimizers = {sql_string(','.join(LIGHT_PLAN_PASSES_LEFT_OUT))}")


T = TypeVar("T")


def twice_the_budget_if_short(work: Callable[[], T], warnings: list[str], doing: str,
                              done: str, failing: str) -> tuple[T, str | None]:
    """work(); where DuckDB ran out of memory, once more with twice the budget (work that
    fails helps no one), after a warning in `warnings` ("{doing} needed more memory than
    the budget (1GB): {done} with 2000MB; ..."); past that a TraceError ("{failing} needs
    more memory than 2000MB; ..."). Returns work's result and the larger budget it took
    (None: the budget as given)."""
    try:
        return work(), None
    except duckdb.OutOfMemoryException:
        budget = memory_budget()
    larger = f"{2 * memory_budget_bytes() // 1_000_000}MB"
    warnings.append(f"{doing} needed more memory than the budget ({budget}): {done} with "
                    f"{larger}; give it with --memory {larger} next time")
    with budget_of(larger):
        try:
            return work(), larger
        except duckdb.OutOfMemoryException:
            raise TraceError(f"{failing} needs more memory than {larger}; give a larger "
                             "budget with --memory (e.g. --memory 8GB) or TUI_MEMORY") from None


_spill_root: str | None = None
_spill_ids = itertools.count()


def connect(database: str = ":memory:", read_only: bool = False) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(database, read_only=read_only)
    # DuckDB draws a progress bar on stdout for queries over ~2 s: that would corrupt
    # `--json` output and the TUI's screen.
    con.execute("SET enable_progress_bar = false")
    # Queries over a multi-GB trace must not take the machine's memory (DuckDB's default
    # is 80% of RAM): above the budget, sorts, joins and aggregates spill to disk.
    con.execute(f"SET memory_limit = '{duckdb_memory_limit()}'")
    con.execute(f"SET allocator_flush_threshold = '{ALLOCATOR_FLUSH}'")
    con.execute(f"SET threads = {duckdb_threads()}")
    if database == ":memory:":
        # An in-memory database spills to `./.tmp` by default: the current directory,
        # perhaps the user's trace folder. Spill into a private temporary one instead.
        spill = os.path.join(_spill_dir(), f"db-{next(_spill_ids)}")
        con.execute(f"SET temp_directory = {sql_string(spill)}")
    return con


def sql_string(text: str) -> str:
    """`text` as a SQL string literal (for statements that take no parameters: ATTACH,
    SET, COPY ... TO)."""
    return "'" + text.replace("'", "''") + "'"


def cursor(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """Another connection to `con`'s database (for a second thread), set up as connect()
    sets one up: the memory limit and spill directory are the database's, the progress
    bar each connection's own."""
    other = con.cursor()
    other.execute("SET enable_progress_bar = false")
    return other


def database_files(path: Path) -> tuple[Path, Path]:
    """The files a DuckDB database at `path` may leave: the database and its WAL."""
    return path, path.with_name(f"{path.name}.wal")


def fetch_parts(con: duckdb.DuckDBPyConnection, query: str,
                parts: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """The columns of `query`, run once for each of `parts` (its parameters), as NumPy
    arrays: the parts' rows one after another, in the parts' order. DuckDB converts a
    result to NumPy on the thread that fetches it, so with several parts each is run and
    fetched on a cursor and a thread of its own, the conversion spread over as many cores
    (1.3M host ranges in two parts: the busiest thread did 37% of the fetch's CPU, against
    80% in one). NULLs are not masked: they hold what fetchnumpy leaves under its mask."""
    if len(parts) == 1:
        return {name: np.asarray(column)
                for name, column in con.execute(query, parts[0]).fetchnumpy().items()}

    def fetch(params: dict[str, Any]) -> dict[str, Any]:
        other = cursor(con)
        try:
            return other.execute(query, params).fetchnumpy()
        finally:
            other.close()

    with ThreadPoolExecutor(len(parts)) as pool:
        results = list(pool.map(fetch, parts))
    return {name: np.concatenate([np.asarray(result[name]) for result in results])
            for name in results[0]}


class CursorSource(Protocol):
    """What hands out connections for other threads: a DuckDB connection, or Cursors."""

    def cursor(self) -> duckdb.DuckDBPyConnection: ...


class Cursors:
    """Cursors of one connection, remembered so that closing it can stop their queries
    first: DuckDB refuses to close a connection while a cursor of it runs a query, and a
    thread still in one (an app's worker) would hold the process's exit until it ended."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con
        self._lock = threading.Lock()
        self._handed_out: weakref.WeakSet[duckdb.DuckDBPyConnection] = weakref.WeakSet()

    def cursor(self) -> duckdb.DuckDBPyConnection:
        cur = self._con.cursor()
        with self._lock:
            self._handed_out.add(cur)
        return cur

    def interrupt(self) -> None:
        """Stop the query each cursor handed out is running (if any)."""
        with self._lock:
            cursors = list(self._handed_out)
        for cur in cursors:
            with contextlib.suppress(duckdb.Error):  # closed already
                cur.interrupt()

    def close(self, wait_s: float = 2.0) -> None:
        """Interrupt every cursor's query, then close the connection."""
        close_when_stopped(self._con, self.interrupt, wait_s)


def close_when_stopped(con: duckdb.DuckDBPyConnection, stop: Callable[[], None],
                       wait_s: float) -> None:
    """Close `con`, calling stop() (interrupting what runs on it) before each try: DuckDB
    refuses to close a connection while a query of it or of a cursor of it runs, and an
    interrupted query takes a moment to end. One that outlasts `wait_s` is left open, to
    the process's exit."""
    deadline = time.monotonic() + wait_s
    while True:
        with contextlib.suppress(duckdb.Error):
            stop()
        try:
            con.close()
            return
        except duckdb.Error:  # a query is winding down
            if time.monotonic() > deadline:
                return
            time.sleep(0.02)


@contextlib.contextmanager
def beside(con: duckdb.DuckDBPyConnection,
           work: Callable[[duckdb.DuckDBPyConnection], object]) -> Iterator[Future]:
    """Run work(a second connection to `con`'s database) on a thread while the block runs
    on `con`: on two cores a step that leaves one idle (a single-threaded query, NumPy)
    overlaps another. The block ends once the work has; the work's error is raised then.
    If the block fails, the work is stopped (interrupted) first."""
    other = cursor(con)
    try:
        with ThreadPoolExecutor(1) as pool:  # on the way out, waits for the work
            done = pool.submit(work, other)
            try:
                yield done
            except BaseException:
                while not done.done():  # an interrupt lands only on a running query
                    other.interrupt()
                    wait([done], timeout=0.02)
                raise
            done.result()
    finally:
        other.close()


class Alongside:
    """Work on second connections (each as `beside` runs it) that goes on past the code
    that started it, to where its results are needed: a loader's last single-threaded read
    overlaps the build of the derived tables after it. `finish()` waits for each and
    returns their warnings (the work's error is raised there); leaving the `with` block on
    an error stops them first."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con
        self._stack = contextlib.ExitStack()
        self._running: list[Future[list[str]]] = []

    def start(self, work: Callable[[duckdb.DuckDBPyConnection], list[str]]) -> None:
        """Run work(a second connection) on a thread of its own from now on."""
        self._running.append(self._stack.enter_context(beside(self._con, work)))

    def finish(self) -> list[str]:
        """Wait for the work started; its warnings, in the order it was started."""
        self._stack.close()
        running, self._running = self._running, []
        return [w for done in running for w in done.result()]

    def __enter__(self) -> Alongside:
        return self

    def __exit__(self, *exc: Any) -> bool | None:
        return self._stack.__exit__(*exc)


def _spill_dir() -> str:
    """This process's private directory (mode 0700) under the system temp dir."""
    global _spill_root
    if _spill_root is None:
        _spill_root = tempfile.mkdtemp(prefix="tui-spill-")
        atexit.register(shutil.rmtree, _spill_root, True)
    return _spill_root


def one_row(con: duckdb.DuckDBPyConnection, sql: str,
            params: object = None) -> tuple[Any, ...]:
    """The row of a query that always returns one (an aggregate, a setting)."""
    row = con.execute(sql, params).fetchone()
    if row is None:
        raise TypeError(f"no row from a query that returns one: {sql[:60]!r}")
    return row


def gpu_id_parts(con: duckdb.DuckDBPyConnection, per_part: int) -> list[tuple[int, int]]:
    """The GPU activities' ids (0, 1, ...) in parts [since, until) of `per_part`, for the
    queries that take a part of them at a time (gpu_id_span.sql); none for a trace
    without GPU work."""
    row = con.execute(load_query("gpu_id_span")).fetchone()
    return id_parts(row[0] if row else 0, per_part)


def has_temp_table(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether `con` has the temp table `name` (one a loader or an earlier step staged)."""
    return con.execute(load_query("temp_table_exists"), {"name": name}).fetchone() is not None


def id_parts(span: int, per_part: int) -> list[tuple[int, int]]:
    """The ids 0 .. span - 1 in parts [since, until) of `per_part` (gpu_id_parts)."""
    return [(since, since + per_part) for since in range(0, span, per_part)]


def insert_rows(con: duckdb.DuckDBPyConnection, insert: str, rows: list[tuple]) -> None:
    """`insert` ("INSERT INTO threads", "INSERT OR REPLACE INTO trace_meta") of Python rows
    in one statement: executemany runs a statement a row, 0.3-2 ms each. A few rows go as
    parameters of one VALUES list, more as an Arrow table (faster past a few dozen)."""
    if not rows:
        return
    if len(rows) <= 32:
        values = ", ".join("(" + ", ".join(f"$v{i}_{j}" for j in range(len(row))) + ")"
                           for i, row in enumerate(rows))
        con.execute(f"{insert} VALUES {values}",
                    {f"v{i}_{j}": value for i, row in enumerate(rows)
                     for j, value in enumerate(row)})
        return
    columns = {f"c{i}": list(values) for i, values in enumerate(zip(*rows, strict=True))}
    with registered(con, "_python_rows", pa.table(columns)):
        con.execute(f"{insert} SELECT * FROM _python_rows")


@contextlib.contextmanager
def registered(con: duckdb.DuckDBPyConnection, name: str, data: object) -> Iterator[None]:
    """`data` (an Arrow table, batch reader or dict of arrays) readable as `name` while the
    block runs. DuckDB (2.0) refuses to register or unregister while an execute()'s result
    on the connection is unread, so any such result is run to its end first."""
    con.complete()
    con.register(name, data)
    try:
        yield
    finally:
        con.complete()
        con.unregister(name)
