"""Code view from an nsys report's CUDA API backtraces (--cudabacktrace): frames, GPU time
by frame, launch and allocation stacks, checked against a reading of the export with
sqlite3 (tests/helpers/stacks_oracle.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.helpers.paths import inflated, sample
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
    assert "GPU time by frame (nsys' CUDA API backtraces, inclusive; none in your own" in text
    assert "had no frame (CUDA backtrace) around its launch" in text


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


# A report recorded with Python's stacks at the CUDA calls (--python-backtrace=cuda) and
# exported with --include-json=true (sample_traces/unannotated/README.md)
PYTHON_BACKTRACES = "unannotated/churn_py.sqlite"


@pytest.fixture(scope="module")
def python_trace():
    with open_trace(inflated(PYTHON_BACKTRACES)) as loaded:
        yield loaded


def test_python_backtraces_are_the_frames_outside_the_native_ones(python_trace) -> None:
    """GPU time by frame, the Python lines included, equals the export read with sqlite3
    and json; the program's own lines are its code, torch's are not."""
    path = inflated(PYTHON_BACKTRACES)
    expected = nsys_gpu_time_by_backtrace_frame(path, DROPPED_MODULES, LIBRARY_MODULES)
    times = frame_times(python_trace.con)
    assert {f.frame: (f.gpu_ns, f.self_gpu_ns, f.launches) for f in times} == expected
    user = {f.frame: f for f in times if f.user_code}
    # gen_unannotated.py's churn(): line 190 the forward pass, 193 opt.step() (AdamW,
    # fused: a multi-tensor kernel a step), 181 .cuda() (the weights' copies)
    assert {"gen_unannotated.py(190): churn", "gen_unannotated.py(193): churn",
            "gen_unannotated.py(181): churn"} <= set(user)
    assert user["gen_unannotated.py(193): churn"].launches >= 300
    assert all(not name.startswith(("torch/", "<frozen")) for name in user)
    assert "torch/optim/optimizer.py(533): wrapper" in {f.frame for f in times}


def test_a_launch_stack_runs_from_the_python_line_into_the_library(python_trace) -> None:
    stacks = nsys_backtrace_stacks(inflated(PYTHON_BACKTRACES), DROPPED_MODULES,
                                   LIBRARY_MODULES)
    rows = python_trace.con.execute(
        "SELECT g.id, g.correlation FROM gpu_activities AS g JOIN launches AS l "
        "ON l.gpu_id = g.id WHERE l.frame_id IS NOT NULL ORDER BY g.id").fetchall()
    with_python = [(gpu_id, corr & 0xFFFFFFFF) for gpu_id, corr in rows
                   if any("(" in f and f.endswith("): churn")
                          for f in stacks[corr & 0xFFFFFFFF])]
    assert len(with_python) > 1000
    for gpu_id, corr_id in with_python[::200]:
        stack = [f.name for f in launch_stack(python_trace.con, gpu_id)]
        assert stack == stacks[corr_id]
        assert " (lib" in stack[0]  # innermost a native frame: the CUDA runtime, cuBLAS
        assert stack[-1] == "gen_unannotated.py(244): <module>"


def test_python_backtraces_exported_without_their_frames_say_how_to_get_them(tmp_path) -> None:
    """The same export as written without --include-json (the frames' JSON text NULL, in
    a copy): the native frames stand, and a warning says how to export the Python ones."""
    import shutil
    import sqlite3

    copy = tmp_path / "no_json.sqlite"
    shutil.copy(inflated(PYTHON_BACKTRACES), copy)
    db = sqlite3.connect(copy)
    db.execute("UPDATE NVTX_EVENTS SET jsonText = NULL")
    db.commit()
    db.close()
    with open_trace(copy, use_cache=False) as t:
        assert t.meta("code_source") == "cuda_backtrace"
        assert any("3,667 Python backtraces have no frames" in w and "--include-json=true" in w
                   for w in t.warnings), t.warnings
        lines, = t.con.execute(
            "SELECT count(*) FROM python_frames WHERE line IS NOT NULL").fetchone()
    assert lines == 0
