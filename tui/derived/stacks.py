"""Launch stacks and memory context, built from the schema once a loader has filled it:
Python frames with their parents, each GPU activity's launching call, CPU op and
innermost Python frame, and each memory event's op and frame (queries/derived/stacks_*.sql)."""

from __future__ import annotations

import contextlib
import queue
import sys
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial

import duckdb
import numpy as np
import pyarrow as pa

from tui.core.budget import memory_budget_bytes, usable_cores
from tui.core.db import (
    DERIVE_SHARE,
    beside,
    cursor,
    gpu_id_parts,
    has_temp_table,
    joins_as_written,
    registered,
)
from tui.core.queries import fill, load_query
from tui.derived.backtrace_frames import build_backtrace_frames, has_backtraces
from tui.derived.nesting import (
    POOL_MIN_CORES,
    HostNesting,
    read_parts,
    read_ranges,
    rows_per_window,
    time_window_parts,
)

# Top-level packages that are libraries, not the user's own code. A trace names a frame
# by its path below the sys.path entry it came from ('torch/nn/modules/module.py'), so
# the first part of the path says whose code it is.
LIBRARIES = (
    "torch", "torchvision", "torchaudio", "torchtext", "functorch", "triton", "transformers",
    "accelerate", "datasets", "tokenizers", "safetensors", "huggingface_hub", "peft", "trl",
    "diffusers", "timm", "numpy", "scipy", "pandas", "sklearn", "jax", "jaxlib", "flax",
    "optax", "apex", "deepspeed", "megatron", "lightning", "pytorch_lightning",
    "lightning_fabric", "torchmetrics", "xformers", "flash_attn", "vllm", "bitsandbytes",
    "einops", "tqdm", "typing_extensions", "sympy", "packaging", "wandb", "tensorboard",
    "google", "absl", "hydra", "omegaconf", "yaml", "regex", "filelock", "fsspec",
    "requests", "urllib3", "jinja2", "importlib_metadata", "setuptools", "pkg_resources",
    "nvidia", "_pytest", "pytest", "pluggy",
)
# What the nesting's NumPy arrays cost for a range or a point looked up among them,
# measured: 1.34M ranges and 384k points took 150 MB more at their peak (87 bytes each).
NESTING_BYTES_PER_ROW = 110
# What the join of a part of the GPU activities with their launching calls holds for each
# activity (its hash table, the sort; the grouping, where two calls share a correlation
# id): 4M a part at a 600 MB share took 1.4 s each with the grouping, nothing spilled.
POINTS_JOIN_BYTES = 150
# Threads the nesting's windows are worked out on, side by side, from POOL_MIN_CORES cores
# (a core in four, this many at most).
NESTING_WORKERS = 3


def build_stacks(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Fill python_frames, launches and the memory events' context (unless
    stage_stacks_beside_write did); returns warnings.

    A trace without Python frames has, in their place, the frames of an nsys report's CUDA
    API backtraces (--cudabacktrace: native, and Python's where --python-backtrace=cuda
    took them too), else its NVTX / user annotation
    ranges; trace_meta's `code_source` says which ('python' | 'cuda_backtrace' | 'nvtx' |
    'none')."""
    kind = _kind_written(con)
    if kind is None:
        kind = _frame_kind(con, "host_activities")
        _write_stack_rows(con, kind, "host_activities")
    has_frames = con.execute("SELECT 1 FROM python_frames LIMIT 1").fetchone() is not None
    source = "none" if not has_frames else "python" if kind == "python" else "nvtx"
    if kind != "python" and has_backtraces(con) and build_backtrace_frames(con):
        source = "cuda_backtrace"
    # deleted and inserted: no upsert (its first use in a database costs a few ms)
    con.execute("DELETE FROM trace_meta WHERE key = 'code_source'")
    con.execute("INSERT INTO trace_meta VALUES ('code_source', $source)", {"source": source})
    return _frame_warnings(con)


def _write_stack_rows(con: duckdb.DuckDBPyConnection, kind: str, host: str) -> None:
    """python_frames (from the host rows of `kind`), launches and the memory events'
    context, from the host rows of `host`: host_activities, or a view with its columns
    and ids (stacks_nesting_host.sql)."""
    con.execute(load_query("stacks_staged_python"))  # a loader without Python ids stages none
    con.execute("ATTACH ':memory:' AS stacks_work")
    # the frames' own ids are paired up on a second connection while this one finds the
    # nesting (NumPy, mostly one core)
    with beside(con, lambda other: other.execute(fill("stacks_python_ids", host=host),
                                                 {"kind": kind})):
        if not _points_staged(con):
            _stage_points(con, host)
        _stage_nesting(con, ["cpu_op", kind], host)
    with joins_as_written(con):  # 1.2M frames: 0.87 -> 0.47 s
        con.execute(fill("stacks_python_frames", host=host),
                    {"libraries": list(LIBRARIES), "stdlib": sorted(sys.stdlib_module_names),
                     "kind": kind})
    con.execute("DROP TABLE stacks_staged_python")
    con.execute("DETACH stacks_work")
    con.execute("DROP TABLE stacks_nesting_parents")
    con.execute(load_query("stacks_launches"))
    if _has_memory_events(con):  # ~2 ms of plans that find nothing without them
        con.execute(load_query("stacks_memory_context"))
        con.execute(load_query("stacks_memory_write"))
    con.execute("DROP TABLE stacks_points")
    con.execute("DROP TABLE stacks_found")


def stage_stacks_beside_write(con: duckdb.DuckDBPyConnection) -> None:
    """Write the launch stacks' rows (as build_stacks does) from the host rows' copy once
    their depths are set, while a second connection writes them into host_activities
    (finalize.host_rows: the same ids, depths and names): the stacks wait on that write
    otherwise. build_stacks then does the rest (the frames' source, warnings). Needs
    stacks_points staged (stage_points_beside_depths)."""
    con.execute(load_query("stacks_nesting_host"))
    host = "finalize.stacks_nesting_host"
    try:
        kind = _frame_kind(con, host)
        _write_stack_rows(con, kind, host)
    finally:
        con.execute("DROP VIEW IF EXISTS finalize.stacks_nesting_host")
    con.execute(load_query("stacks_rows_written"), {"kind": kind})


def _kind_written(con: duckdb.DuckDBPyConnection) -> str | None:
    """The frames' kind where stage_stacks_beside_write wrote the rows (its note dropped),
    else None."""
    if not has_temp_table(con, "stacks_rows_written"):
        return None
    row = con.execute("SELECT kind FROM stacks_rows_written").fetchone()
    con.execute("DROP TABLE stacks_rows_written")
    assert row is not None
    return str(row[0])


def stage_points_beside_depths(con: duckdb.DuckDBPyConnection) -> None:
    """Stage the points build_stacks looks up (the temp table stacks_points) before the
    host rows are written into host_activities, from their copy whose depths are worked
    out meanwhile on a second connection (finalize.host_rows: the same ids): the loading
    connection waits on the depths otherwise. Needs gpu_activities and memory_events
    written."""
    con.execute(load_query("stacks_points_host_rows"))
    try:
        _stage_points(con, "stacks_points_host")
    finally:
        con.execute("DROP VIEW IF EXISTS stacks_points_host")


def _points_staged(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether stacks_points was staged already (stage_points_beside_depths)."""
    return has_temp_table(con, "stacks_points")


def _stage_points(con: duckdb.DuckDBPyConnection, host: str) -> None:
    """The temp table stacks_points: the GPU activities' launching calls among the host
    rows of `host` (host_activities, or the view stacks_points_host), a part of the
    activities at a time (each part's join within DuckDB's memory), and the memory events."""
    con.execute(load_query("stacks_points"))
    for since, until in gpu_id_parts(con, points_per_part()):
        part = {"since": since, "until": until}
        con.execute(fill("stacks_points_launches", host=host), part)
        if _came_twice(con, part):  # a correlation id two calls share
            con.execute(load_query("stacks_points_part_delete"), part)
            con.execute(fill("stacks_points_launches_first", host=host), part)
    if _has_memory_events(con):
        con.execute(load_query("stacks_points_memory"))


def _has_memory_events(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the trace has memory events (most have none: the queries that give each
    its context, which planned in ~2 ms on a DDP rank, are left out then)."""
    return con.execute("SELECT 1 FROM memory_events LIMIT 1").fetchone() is not None


def _came_twice(con: duckdb.DuckDBPyConnection, part: dict[str, int]) -> bool:
    """Whether an activity of the part's ids [since, until) is in stacks_points twice."""
    ids = con.execute(load_query("stacks_points_part_ids"), part).fetchnumpy()["point_id"]
    return len(ids) > 0 and int(np.bincount(np.asarray(ids) - part["since"]).max()) > 1


def points_per_part() -> int:
    """GPU activities a part of stacks_points_launches.sql takes: DuckDB's share of the
    budget while the stacks are built, at POINTS_JOIN_BYTES each (3.3M at the 1GB default)."""
    return max(int(memory_budget_bytes() * DERIVE_SHARE) // POINTS_JOIN_BYTES, 1 << 16)


def _stage_nesting(con: duckdb.DuckDBPyConnection, kinds: list[str], host: str) -> None:
    """Into temp tables, from the nesting of the host ranges of `kinds` (cpu ops, then the
    frames' kind) in `host` (host_activities, or a view with its columns):
    stacks_nesting_parents (id, parent_id: the enclosing frame of each frame, NULL at the
    top) and stacks_found (each point's innermost range of each kind).

    The ranges that start in a window of time and the points in it are taken a window at
    a time, with the ranges from before the window still open as it begins, so the arrays
    stay within the budget's share for arrays (a 10 GB trace has 19M cpu ops). A window
    needs nothing from the one before it: on POOL_MIN_CORES cores or more its ranges are
    read and its NumPy work done on a pool (nesting_workers), each window on a cursor of
    its own, while this connection reads the next windows' points and writes, in window
    order, what those before found (nesting_window_rows shares the arrays' budget among
    the windows on the pool)."""
    con.execute(load_query("stacks_nesting_tables"))
    windows = _nesting_windows(con, kinds, host)
    workers = nesting_workers() if len(windows) > 1 else 0
    if not workers:
        for parts in windows:  # each kind's points read as the nesting needs them
            window = (parts[0][0], parts[-1][1])
            ranges = read_ranges(con, kinds, window, parts, host)
            _write_found(con, _nest_window(len(kinds), window, ranges,
                                           partial(_points, con, window)))
        return
    with contextlib.ExitStack() as stack:
        # a cursor for each window on the pool, handed from task to task: the loading
        # connection is this thread's
        cursors: queue.SimpleQueue[duckdb.DuckDBPyConnection] = queue.SimpleQueue()
        for _ in range(workers):
            cursors.put(stack.enter_context(contextlib.closing(cursor(con))))
        pool = stack.enter_context(ThreadPoolExecutor(workers))
        working: deque[Future[_Found]] = deque()
        for parts in windows:
            window = (parts[0][0], parts[-1][1])
            # the points are a temp table's, which only this connection sees
            points = {k: _points(con, window, k) for k in range(1, len(kinds) + 1)}
            if len(working) == workers:
                _write_found(con, working.popleft().result())
            working.append(pool.submit(_read_and_nest, cursors, kinds, window, parts, host,
                                       points))
            del points
        while working:
            _write_found(con, working.popleft().result())


def _read_and_nest(cursors: queue.SimpleQueue[duckdb.DuckDBPyConnection], kinds: list[str],
                   window: tuple[int, int], parts: list[tuple[int, int]], host: str,
                   points: dict[int, dict[str, np.ndarray]]) -> _Found:
    """A window's ranges read on a cursor of `cursors`, and what its nesting finds."""
    con = cursors.get()
    try:
        ranges = read_ranges(con, kinds, window, parts, host)
    finally:
        cursors.put(con)
    return _nest_window(len(kinds), window, ranges, points.__getitem__)


def nesting_workers() -> int:
    """Threads the nesting's windows are worked out on beside the reads (0: none, on fewer
    than POOL_MIN_CORES cores)."""
    if usable_cores() < POOL_MIN_CORES:
        return 0
    return max(1, min(usable_cores() // 4, NESTING_WORKERS))


# What a window of the nesting found: its frames' parents (id, parent_id), and for each
# kind with ranges, its points' innermost range of that kind (is_memory, point_id, k,
# host_id).
_Found = tuple[pa.Table, list[pa.Table]]


def _points(con: duckdb.DuckDBPyConnection, window: tuple[int, int],
            k: int) -> dict[str, np.ndarray]:
    """The points (launches, memory events) of `window` to look up among the ranges of
    kind number `k` (stacks_nesting_points.sql)."""
    points = con.execute(load_query("stacks_nesting_points"),
                         {"k": k, "since": window[0], "until": window[1]}).fetchnumpy()
    return {name: np.asarray(column) for name, column in points.items()}


def _nest_window(n_kinds: int, window: tuple[int, int], ranges: dict[str, np.ndarray],
                 points_of: Callable[[int], dict[str, np.ndarray]]) -> _Found:
    """What one window's nesting finds, from its ranges (nesting.read_ranges) and each
    kind's points (NumPy only, but for what `points_of` reads)."""
    nesting = HostNesting.of_columns(ranges)
    del ranges
    # the frames read for this window (those carried in start before it): their parents
    frames = np.flatnonzero((nesting.kind == n_kinds) & (nesting.start >= window[0]))
    parents = nesting.parents()[frames]
    parent_ids = pa.array(nesting.ids[np.maximum(parents, 0)], mask=parents < 0)
    frame_parents = pa.table({"id": nesting.ids[frames], "parent_id": parent_ids})
    del frames, parents, parent_ids
    found = []
    for k in range(1, n_kinds + 1):
        if not np.any(nesting.kind == k):  # no range of this kind can hold a point
            continue
        points = points_of(k)
        innermost = nesting.innermost(nesting.groups_of(points["group_key"]),
                                      points["t"].astype(np.int64, copy=False))
        hit = innermost >= 0
        found.append(pa.table({"is_memory": points["is_memory"][hit],
                               "point_id": points["point_id"][hit],
                               "k": np.full(int(hit.sum()), k, dtype=np.int32),
                               "host_id": nesting.ids[innermost[hit]]}))
        del points, innermost, hit
    return frame_parents, found


def _write_found(con: duckdb.DuckDBPyConnection, found: _Found) -> None:
    """Add what a window's nesting found to stacks_nesting_parents and stacks_found."""
    frame_parents, points_found = found
    with registered(con, "stacks_nesting_parents_arrow", frame_parents):
        con.execute("INSERT INTO stacks_nesting_parents "
                    "SELECT * FROM stacks_nesting_parents_arrow")
    for table in points_found:
        with registered(con, "stacks_nesting_found", table):
            con.execute(load_query("stacks_found_write"))


def _nesting_windows(con: duckdb.DuckDBPyConnection, kinds: list[str],
                     host: str) -> list[list[tuple[int, int]]]:
    """Windows of time of about `nesting_window_rows()` ranges (by their start) and points
    each, each in parts whose ranges are read side by side (nesting.time_window_parts)."""
    row = con.execute(fill("stacks_nesting_count", host=host), {"kinds": kinds}).fetchone()
    assert row is not None
    return time_window_parts(con, row[0], nesting_window_rows(row[0]), "stacks_nesting_cuts",
                             {"kinds": kinds}, read_parts(), {"host": host})


def nesting_window_rows(rows: int | None = None) -> int:
    """How many ranges and points a window of the nesting takes: the arrays cost about
    NESTING_BYTES_PER_ROW each, shared by the windows worked out side by side."""
    return rows_per_window(NESTING_BYTES_PER_ROW, rows, max(nesting_workers(), 1))


def _frame_kind(con: duckdb.DuckDBPyConnection, host: str) -> str:
    """'python' when the host rows of `host` hold Python frames, else 'annotation' (NVTX
    ranges)."""
    row = con.execute(fill("stacks_frame_kind", host=host)).fetchone()
    return "python" if row is not None else "annotation"


def _frame_warnings(con: duckdb.DuckDBPyConnection) -> list[str]:
    row = con.execute(load_query("stacks_frame_checks")).fetchone()
    assert row is not None
    _, missing, other = row
    warnings = []
    if missing:
        warnings.append(f"{missing:,} Python frames name a parent id no frame has: each is "
                        "placed under the frame that encloses it in time")
    if other:
        warnings.append(f"{other:,} Python frames name a parent id other than the frame "
                        "enclosing them (a cycle, or clocks out of step): the enclosing "
                        "frame is used")
    return warnings
