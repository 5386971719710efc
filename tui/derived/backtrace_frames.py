"""The Code view's frames from an nsys report's CUDA API backtraces (staged by
tui/sources/nsys_backtraces.py: native frames, Python's outside them where nsys took
those too): one frame per distinct path of frames from the outermost, as the top-down
tree shows them, so that thousands of calls through the same path share their frames.
Each launch's frame is the innermost of its call's chain."""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa

from tui.core.db import has_temp_table, registered, sql_string
from tui.core.library_paths import LIBRARY_MODULES
from tui.core.queries import Sql, fill, load_query

# Modules whose frames are left out: the profiler's own, the CUDA driver's internals, the
# Python interpreter's and the C library's (they say nothing of which code launched the
# work).
DROPPED_MODULES = (r"libcupti|libToolsInjection|/nsight-(systems|compute)[^/]*/|libcuda\.so|"
                   r"/python[0-9.]*$|libpython[0-9.]*\.so|/libc\.so|/ld-linux|libpthread")


def has_backtraces(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the loader staged CUDA backtraces (nsys, --cudabacktrace)."""
    return has_temp_table(con, "stacks_input_backtrace_calls")


def build_backtrace_frames(con: duckdb.DuckDBPyConnection) -> bool:
    """Replace python_frames and the launches' and memory events' frames with the
    backtraces' frames; False (nothing changed) when no backtrace has a frame to show."""
    con.execute(load_query("backtrace_keys"), {"dropped": DROPPED_MODULES,
                                               "libraries": LIBRARY_MODULES})
    con.execute(load_query("backtrace_kept"))
    kept = con.execute("SELECT chain, level, frame_key FROM backtrace_kept "
                       "ORDER BY chain, level").fetchnumpy()
    chain = np.asarray(kept["chain"], dtype=np.int64)
    if len(chain) == 0:
        _drop_staged(con)
        return False
    level = np.asarray(kept["level"], dtype=np.int64)
    key = np.asarray(kept["frame_key"], dtype=np.int64)
    row_node, nodes = path_nodes(level, key)
    last = np.append(chain[1:] != chain[:-1], True)  # each chain's innermost row
    define_python_frame_macros(con)
    with registered(con, "backtrace_nodes", nodes), \
            registered(con, "backtrace_rows", {"chain": chain, "node": row_node}), \
            registered(con, "backtrace_inner", {"chain": chain[last], "node": row_node[last]}):
        con.execute("DELETE FROM python_frames")
        con.execute(load_query("backtrace_frames_write"), {"libraries": LIBRARY_MODULES})
        con.execute(load_query("backtrace_links_write"))
    _drop_staged(con)
    return True


def define_python_frame_macros(con: duckdb.DuckDBPyConnection) -> None:
    """python_frame_name and python_user_code on `con` (python_frame_macros.sql): one
    naming of Python frames for the backtraces' and the samples'."""
    con.execute(fill("python_frame_macros",  # our own constant, quoted as a literal
                     libraries=Sql(sql_string(LIBRARY_MODULES))))


def path_nodes(level: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, pa.Table]:
    """Number the distinct paths of frames. Rows are the frames of chains, each chain's
    rows consecutive from level 0 (outermost) up; `key` names a row's frame. Returns each
    row's node and the nodes (node, parent: -1 at the top, level, frame_key), numbered
    level by level so that a parent comes before its children."""
    row_node = np.empty(len(level), dtype=np.int64)
    keys = int(key.max()) + 1
    order = np.argsort(level, kind="stable")
    bounds = np.searchsorted(level[order], np.arange(int(level.max()) + 2))
    parts: list[tuple[np.ndarray, np.ndarray, int]] = []
    numbered = 0
    for depth in range(len(bounds) - 1):
        rows = order[bounds[depth]:bounds[depth + 1]]
        parent = row_node[rows - 1] if depth > 0 else np.full(len(rows), -1, np.int64)
        # a path is its parent path and its own frame: one number for the pair
        pair = (parent + 1) * keys + key[rows]
        unique, inverse = np.unique(pair, return_inverse=True)
        row_node[rows] = numbered + inverse
        parts.append((unique // keys - 1, unique % keys, depth))
        numbered += len(unique)
    nodes = pa.table({
        "node": np.arange(numbered, dtype=np.int64),
        "parent": pa.array(np.concatenate([p for p, _, _ in parts]),
                           mask=np.concatenate([p < 0 for p, _, _ in parts])),
        "level": np.concatenate([np.full(len(p), d, np.int32) for p, _, d in parts]),
        "frame_key": np.concatenate([k for _, k, _ in parts]),
    })
    return row_node, nodes


def _drop_staged(con: duckdb.DuckDBPyConnection) -> None:
    for table in ("backtrace_kept", "backtrace_keys", "stacks_input_backtrace_frames",
                  "stacks_input_backtrace_calls"):
        con.execute(f"DROP TABLE IF EXISTS {table}")
