"""GPU time by Python source line: per frame (bottom-up) and per call path (top-down)."""

from __future__ import annotations

import duckdb

from tui.analysis.code_hlo import hlo_frame_times, hlo_op_path_tree, hlo_unattributed
from tui.analysis.code_types import (
    FRAME_WORDS,
    WHY_NO_FRAME,
    CodeNode,
    FrameTime,
    Unattributed,
)
from tui.analysis.xla_ops import has_hlo_tables
from tui.core.db import gpu_id_parts
from tui.core.queries import load_query

__all__ = ["FRAME_WORDS", "WHY_NO_FRAME", "CodeNode", "FrameTime", "Unattributed",
           "code_source", "code_tree", "frame_times", "unattributed"]

# GPU activity ids a part of code_unattributed.sql joins at a time
UNATTRIBUTED_PART = 1 << 20


def frame_times(con: duckdb.DuckDBPyConnection) -> list[FrameTime]:
    """Every frame name that launched GPU work, by inclusive GPU time (tui/analysis/
    frame_walk.py), then by name. XLA traces with HLO ops: every line of code whose ops
    ran GPU work (tui/analysis/code_hlo.py)."""
    if code_source(con) == "hlo":
        return hlo_frame_times(con)
    # NumPy only here: a warm --summary reads the memo and never needs it
    import numpy as np

    from tui.analysis.frame_walk import name_times

    con.execute(load_query("code_origin"))
    links = con.execute(load_query("code_frame_links")).fetchnumpy()
    origins = con.execute("SELECT frame_id, gpu_ns, launches FROM code_origin").fetchnumpy()
    times = name_times(*(np.asarray(links[c]) for c in ("id", "parent_id", "top", "name_key")),
                       *(np.asarray(origins[c]) for c in ("frame_id", "gpu_ns", "launches")))
    del links
    names = {key: (name, user) for key, name, user
             in con.execute(load_query("code_frame_names")).fetchall()}
    frames = [FrameTime(*names[int(key)], int(gpu), int(own), int(launches), int(own_launches))
              for key, gpu, own, launches, own_launches
              in zip(times.name_key, times.gpu_ns, times.self_gpu_ns, times.launches,
                     times.self_launches, strict=True)]
    return sorted(frames, key=lambda f: (-f.gpu_ns, f.frame))


def code_tree(con: duckdb.DuckDBPyConnection) -> list[CodeNode]:
    """Every call path that led to GPU work, parents before children; for XLA traces
    with HLO ops, every framework op path."""
    if code_source(con) == "hlo":
        return hlo_op_path_tree(con)
    con.execute(load_query("code_origin"))
    con.execute(load_query("code_chain"))
    return [CodeNode(*row) for row in con.execute(load_query("code_tree")).fetchall()]


def code_source(con: duckdb.DuckDBPyConnection) -> str:
    """'python' (Python frames), 'cuda_backtrace' (an nsys report's native CUDA API
    backtraces), 'nvtx' (NVTX ranges stand in for frames), 'hlo' (an XLA trace's HLO op
    metadata: lines of code and op paths) or 'none'."""
    row = con.execute(load_query("code_source")).fetchone()
    source = row[0] if row else "none"
    if source == "hlo" and not has_hlo_tables(con):
        return "none"  # a store `tui convert` wrote keeps no HLO tables
    return source


def unattributed(con: duckdb.DuckDBPyConnection) -> Unattributed:
    if code_source(con) == "hlo":
        return hlo_unattributed(con)
    totals = [0, 0, 0]
    for since, until in gpu_id_parts(con, UNATTRIBUTED_PART):
        row = con.execute(load_query("code_unattributed"),
                          {"since": since, "until": until}).fetchone()
        totals = [total + value for total, value in zip(totals, row or (0, 0, 0), strict=True)]
    return Unattributed(*totals)
