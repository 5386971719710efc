"""Code view from an nsys report's CUDA API backtraces (--cudabacktrace): frames, GPU time
by frame, launch and allocation stacks, checked against a reading of the export with
sqlite3 (tests/helpers/stacks_oracle.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.helpers.paths import sample
from tests.helpers.stacks_oracle import nsys_backtrace_stacks, nsys_gpu_time_by_backtrace_frame
from tui.analysis.code import code_tree, frame_times, unattributed
from tui.derived.backtrace_frames import DROPPED_MODULES, LIBRARY_MODULES, path_nodes
from tui.loading.trace import open_trace
from tui.views.timeline.lookup import frames_at, launch_stack

BACKTRACES = "backtraces_training.sqlite"


@pytest.fixture(scope="module")
def trace():
    with open_trace(sample(BACKTRACES)) as loaded:
        yield loaded


def test_gpu_time_by_native_frame_matches_the_export(trace) -> None:
    assert trace.meta("code_source") == "cuda_backtrace"
    expected = nsys_gpu_time_by_backtrace_frame(sample(BACKTRACES), DROPPED_MODULES,
                                                LIBRARY_MODULES)
    got = {f.frame: (f.gpu_ns, f.self_gpu_ns, f.launches) for f in frame_times(trace.con)}
    assert got == expected
    # every kernel launch goes through cudaLaunchKernel but for cuBLAS' (cuLaunchKernel,
    # the driver's: its frames are left out) and cudaLaunchKernelExC (no backtrace taken)
    launch = next(v for k, v in got.items() if k.startswith("cudaLaunchKernel (libcudart"))
    assert launch[2] == 484 and launch[0] == launch[1]
    assert not any(k.endswith("(libcupti.so.13.0)") or "(libcuda.so" in k or
                   k.startswith("_PyEval_EvalFrameDefault") for k in got)
    assert not any(f.user_code for f in frame_times(trace.con))  # all library frames
    rest = unattributed(trace.con)
    assert (rest.launches, rest.linked) == (96, 724)


def test_tree_roots_add_up_to_the_attributed_gpu_time(trace) -> None:
    nodes = code_tree(trace.con)
    attributed = sum(v[1] for v in nsys_gpu_time_by_backtrace_frame(
        sample(BACKTRACES), DROPPED_MODULES, LIBRARY_MODULES).values())
    assert sum(n.gpu_ns for n in nodes if n.parent is None) == attributed
    roots = {n.frame for n in nodes if n.parent is None}
    assert any(r.startswith("torch::autograd::python::PythonEngine::thread_init") for r in roots)


def test_launch_stack_is_the_calls_backtrace(trace) -> None:
    stacks = nsys_backtrace_stacks(sample(BACKTRACES), DROPPED_MODULES, LIBRARY_MODULES)
    rows = trace.con.execute(
        "SELECT g.id, g.correlation FROM gpu_activities AS g JOIN launches AS l "
        "ON l.gpu_id = g.id WHERE l.frame_id IS NOT NULL ORDER BY g.id").fetchall()
    assert len(rows) == 628
    for gpu_id, correlation in rows[::50]:
        # the low 32 bits are nsys's CorrId (the high ones its process: one process here)
        corr_id = correlation & 0xFFFFFFFF
        assert [f.name for f in launch_stack(trace.con, gpu_id)] == stacks[corr_id]


def test_allocation_stack_starts_at_cuda_malloc(trace) -> None:
    events = trace.con.execute(
        "SELECT pid, tid, ts_ns, frame_id FROM memory_events WHERE frame_id IS NOT NULL"
    ).fetchall()
    assert len(events) == 34  # the cudaMalloc and cudaHostAlloc calls' events
    pid, tid, ts, frame_id = events[0]
    stack = frames_at(trace.con, pid, tid, ts, frame_id)
    assert stack[0].name.startswith("cudaMalloc (libcudart")
    assert any("CUDACachingAllocator" in frame.name for frame in stack)


def test_summary_json_and_text(capsys) -> None:
    from tui.cli.main import main

    assert main(["--summary", "--json", str(sample(BACKTRACES))]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["code_source"] == "cuda_backtrace"
    assert summary["code"][0]["gpu_ns"] == max(c["gpu_ns"] for c in summary["code"])
    assert "cuda_backtraces" not in summary
    assert main(["--summary", str(sample(BACKTRACES))]) == 0
    text = capsys.readouterr().out
    assert "GPU time by native frame (CUDA API backtraces" in text
    assert "had no native frame (CUDA backtrace) around its launch" in text


def test_path_nodes_share_common_prefixes() -> None:
    """A generated case: chains [a b c], [a b d], [a e], [f] (levels from the outermost)
    give the paths a, f; a/b, a/e; a/b/c, a/b/d."""
    a, b, c, d, e, f = range(6)
    level = np.array([0, 1, 2, 0, 1, 2, 0, 1, 0])
    key = np.array([a, b, c, a, b, d, a, e, f])
    row_node, nodes = path_nodes(level, key)
    assert nodes.num_rows == 6
    assert row_node[0] == row_node[3] == row_node[6]  # a
    assert row_node[1] == row_node[4] != row_node[7]  # a/b twice, a/e
    assert row_node[2] != row_node[5]
    parent = dict(zip(nodes.column("node").to_pylist(), nodes.column("parent").to_pylist(),
                      strict=True))
    assert parent[row_node[2]] == row_node[1] and parent[row_node[0]] is None
    assert all(p is None or p < n for n, p in parent.items())


def test_unreadable_call_chains_leave_nvtx_ranges_with_a_warning(tmp_path) -> None:
    """An export whose CUDA_CALLCHAINS has columns tui does not know (here renamed in a
    copy of the sample): loaded, NVTX ranges stand in, and a warning says why."""
    import shutil
    import sqlite3

    copy = tmp_path / "renamed.sqlite"
    shutil.copy(sample(BACKTRACES), copy)
    db = sqlite3.connect(copy)
    db.execute("ALTER TABLE CUDA_CALLCHAINS RENAME COLUMN stackDepth TO frameDepth")
    db.commit()
    db.close()
    with open_trace(copy, use_cache=False) as t:
        assert t.meta("code_source") == "nvtx"
        assert any(w.startswith("skipped CUDA_CALLCHAINS") and "NVTX ranges stand in" in w
                   for w in t.warnings)
        kernels, = t.con.execute("SELECT count(*) FROM gpu_activities").fetchone()
    assert kernels == 724
