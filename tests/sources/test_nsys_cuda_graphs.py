"""CUDA graphs in nsys exports (recordings/gen_cuda_graph.py: an MLP's forward captured
once, replayed 200 times inside NVTX `replay`). With nsys' default graph tracing a replay
is one row of CUPTI_ACTIVITY_KIND_GRAPH_TRACE and its kernels are not recorded: tui loads
each as a kernel named `CUDA graph N`, so the GPU is busy while a graph runs. NVIDIA's
gpu_gaps rule unions kernels, copies and sets only, and counts a replayed graph's time as
idle: its rows are checked here against that union, ours against the union with the
graphs. Every expected figure is read from the export with sqlite3."""

from __future__ import annotations

import csv
import sqlite3

import pytest

from tests.helpers.paths import DATA, inflated
from tests.helpers.window_oracle import (
    ACTIVITY_TABLES,
    GRAPH_TABLE,
    gaps_over,
    nsys_intervals,
    union_within,
)
from tui.analysis.summary import trace_summary
from tui.loading.trace import open_trace

GRAPHS = "cuda_graph/cuda_graph_graph.sqlite"  # --cuda-graph-trace=graph (the default)
NODES = "cuda_graph/cuda_graph_node.sqlite"  # --cuda-graph-trace=node
@pytest.fixture(scope="module")
def graphs() -> dict:
    with open_trace(inflated(GRAPHS)) as trace:
        kernels = trace.con.execute(
            "SELECT count(*), sum(duration_ns) FROM gpu_activities "
            "WHERE name = 'CUDA graph 1'").fetchone()
        return {"summary": trace_summary(trace, min_gap_ns=1_000_000),
                "graph_kernels": kernels, "warnings": list(trace.warnings)}


def test_each_graph_launch_is_a_kernel(graphs: dict) -> None:
    db = sqlite3.connect(inflated(GRAPHS))
    count, total = db.execute(f'SELECT count(*), sum("end" - start) FROM {GRAPH_TABLE}'
                              ).fetchone()
    assert count == 200 and graphs["graph_kernels"] == (count, total)
    assert any("traced whole" in w and "--cuda-graph-trace=node" in w
               for w in graphs["warnings"])
    busy = graphs["summary"]["devices"][0]["busy_ns"]
    whole = nsys_intervals(inflated(GRAPHS), (*ACTIVITY_TABLES, GRAPH_TABLE))
    assert busy == union_within(whole, min(s for s, _ in whole), max(e for _, e in whole))


def test_gaps_count_graphs_as_busy_where_nvidias_rule_does_not(graphs: dict) -> None:
    path = inflated(GRAPHS)
    with open(DATA / "cuda_graph" / "cuda_graph_graph.gpu_gaps.csv", newline="") as f:
        nvidia = [(int(r["Start (ns)"]), int(r["Duration (ns)"])) for r in csv.DictReader(f)]
    assert sorted(nvidia) == sorted(gaps_over(nsys_intervals(path, ACTIVITY_TABLES),
                                               1_000_000))
    ours = [(g["start_ns"], g["duration_ns"]) for g in graphs["summary"]["gaps"]]
    assert ours == gaps_over(nsys_intervals(path, (*ACTIVITY_TABLES, GRAPH_TABLE)), 1_000_000)
    assert len(nvidia) == 15 and len(ours) == 6  # the replays NVIDIA counts as idle


@pytest.mark.parametrize("name", [GRAPHS, NODES])
def test_the_replay_is_compute_bound_either_way(name: str) -> None:
    with open_trace(inflated(name)) as trace:
        diagnosis = trace_summary(trace, min_gap_ns=1_000_000)["diagnosis"]
    assert diagnosis["window"]["name"] == "replay" and diagnosis["bound"] == "compute"
    figures = diagnosis["figures"]
    assert figures["compute_ns"] >= 0.9 * figures["span_ns"]
