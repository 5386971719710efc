"""GPU time by Python source line: per frame (bottom-up) and per call path (top-down)."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from tui.queries import load_query

# What a frame is, by code source: for titles and captions.
FRAME_WORDS = {"python": "Python frame", "cuda_backtrace": "native frame (CUDA backtrace)",
               "nvtx": "NVTX range"}
# Why a launch may have none, by code source.
WHY_NO_FRAME = {"python": "another thread, e.g. autograd's backward",
                "nvtx": "another thread, e.g. autograd's backward",
                "cuda_backtrace": "nsys took no backtrace of its call"}
# GPU activity ids a part of code_unattributed.sql joins at a time
UNATTRIBUTED_PART = 1 << 20


@dataclass
class FrameTime:
    frame: str  # as the trace names it: 'file.py(123): func'
    user_code: bool
    gpu_ns: int  # GPU work launched while the frame was on the stack
    self_gpu_ns: int  # launched with the frame innermost
    launches: int
    self_launches: int

    def as_dict(self) -> dict:
        """The `--summary --json` record of a frame."""
        return {"frame": self.frame, "gpu_ns": self.gpu_ns, "self_gpu_ns": self.self_gpu_ns,
                "launches": self.launches}


@dataclass
class CodeNode:
    node: int  # a hash of the call path
    parent: int | None
    depth: int
    frame: str
    user_code: bool
    gpu_ns: int
    self_gpu_ns: int
    launches: int
    frame_ids: list[int]  # the python_frames of this path


@dataclass
class Unattributed:
    gpu_ns: int  # GPU work with no Python frame around its launch
    launches: int
    linked: int  # GPU activities linked to a launching call at all


def frame_times(con: duckdb.DuckDBPyConnection) -> list[FrameTime]:
    """Every frame name that launched GPU work, by inclusive GPU time (tui/analysis/
    frame_walk.py), then by name."""
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
    """Every call path that led to GPU work, parents before children."""
    con.execute(load_query("code_origin"))
    con.execute(load_query("code_chain"))
    return [CodeNode(*row) for row in con.execute(load_query("code_tree")).fetchall()]


def code_source(con: duckdb.DuckDBPyConnection) -> str:
    """'python' (Python frames), 'cuda_backtrace' (an nsys report's native CUDA API
    backtraces), 'nvtx' (NVTX ranges stand in for frames) or 'none'."""
    row = con.execute(load_query("code_source")).fetchone()
    return row[0] if row else "none"


def unattributed(con: duckdb.DuckDBPyConnection) -> Unattributed:
    span = con.execute(load_query("gpu_id_span")).fetchone()
    totals = [0, 0, 0]
    for since in range(0, span[0] if span else 0, UNATTRIBUTED_PART):
        row = con.execute(load_query("code_unattributed"),
                          {"since": since, "until": since + UNATTRIBUTED_PART}).fetchone()
        totals = [total + value for total, value in zip(totals, row or (0, 0, 0), strict=True)]
    return Unattributed(*totals)
