"""Launch stacks, GPU time by Python frame and memory peaks, checked against an
independent reading of the trace's events with the json module
(tests/helpers/stacks_oracle.py)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tests.helpers.oracle import chrome_events, ns
from tests.helpers.paths import sample
from tests.helpers.stacks_oracle import (
    gpu_time_by_frame,
    memory_peaks,
    nsys_gpu_time_by_range,
    nsys_memory_peaks,
)
from tui.analysis.code import code_tree, frame_times, unattributed
from tui.analysis.memory import largest_allocations
from tui.analysis.memory import memory_peaks as tui_memory_peaks
from tui.loading.trace import open_trace

STACKS = "stacks_training.pt.trace.json.gz"


@pytest.fixture(scope="module")
def trace():
    with open_trace(sample(STACKS)) as loaded:
        yield loaded


@pytest.mark.slow
def test_gpu_time_of_frames_matches_the_events(trace) -> None:
    expected = gpu_time_by_frame(sample(STACKS))
    got = {f.frame: (f.gpu_ns, f.self_gpu_ns, f.launches) for f in frame_times(trace.con)}
    assert got == expected
    top = sorted(expected.items(), key=lambda kv: -kv[1][0])[:5]
    assert top[0][1][0] > 10_000_000  # the step's frames: 14 ms of GPU work
    users = [f.frame for f in frame_times(trace.con) if f.user_code]
    assert users and all(name.startswith("gen_stacks.py(") for name in users)


@pytest.mark.parametrize("part", [1 << 20, 7])
def test_launches_without_a_frame_are_counted(trace, part: int, monkeypatch) -> None:
    """In parts of the ids too: a part of 7 activities at a time adds up the same."""
    import tui.analysis.code

    monkeypatch.setattr(tui.analysis.code, "UNATTRIBUTED_PART", part)
    rest = unattributed(trace.con)
    gpu_ns = trace.con.execute(
        "SELECT sum(g.duration_ns) FROM launches JOIN gpu_activities AS g ON g.id = gpu_id "
        "WHERE frame_id IS NULL").fetchone()[0]
    assert rest.gpu_ns == gpu_ns > 0
    kernels = trace.con.execute("SELECT count(*) FROM gpu_activities").fetchone()[0]
    assert rest.linked == kernels == 604  # every kernel, copy and set has its launch
    framed = trace.con.execute(
        "SELECT count(*) FROM launches WHERE frame_id IS NOT NULL").fetchone()[0]
    assert rest.launches == rest.linked - framed == 408  # the autograd thread's


def test_code_tree_sums_to_its_roots(trace) -> None:
    nodes = code_tree(trace.con)
    by_id = {n.node: n for n in nodes}
    for node in nodes:
        children = [c for c in nodes if c.parent == node.node]
        assert node.gpu_ns == node.self_gpu_ns + sum(c.gpu_ns for c in children)
        assert node.parent is None or node.parent in by_id
    roots = [n for n in nodes if n.parent is None]
    assert sum(r.gpu_ns for r in roots) == 13_972_389
    assert [r.frame for r in roots] == ["gen_stacks.py(95): <module>"]


def test_memory_peaks_match_the_events(trace) -> None:
    expected = memory_peaks(sample(STACKS))
    got = {("gpu" if p.device_type == "gpu" else "host", p.device):
           (p.peak_allocated_bytes, p.peak_ns, p.peak_reserved_bytes)
           for p in tui_memory_peaks(trace.con)}
    assert got == {("gpu" if t == 1 else "host", d): v for (t, d), v in expected.items()}
    assert got[("gpu", 0)][0] == 739_915_264


def test_largest_allocations_have_lifetime_and_op(trace) -> None:
    rows = largest_allocations(trace.con, limit=5)
    assert rows[0][4] == 64 << 20 and rows[0][7] == "aten::sum"
    assert all(r[6] is None or r[6] == r[5] - r[3] >= 0 for r in rows)


def _generated_trace(path: Path) -> Path:
    """A generated edge case, not a recording: Python frames whose parent ids are missing
    or form a cycle, and memory events with an absurd total and an unknown device type."""
    def frame(pid_, name, ts, dur, pyid, parent):
        return {"ph": "X", "cat": "python_function", "name": name, "pid": 1, "tid": 1,
                "ts": ts, "dur": dur, "args": {"Python id": pyid, "Python parent id": parent}}

    def mem(ts, total, dtype=1):
        return {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1,
                "ts": ts, "s": "t", "args": {"Total Allocated": total, "Total Reserved": total,
                                             "Bytes": 0, "Device Type": dtype, "Device Id": 0,
                                             "Addr": 1}}
    events = [
        frame(0, "a.py(1): outer", 0, 100, 1, 3),  # its parent is its own grandchild: a cycle
        frame(0, "a.py(2): mid", 10, 80, 2, 1),
        frame(0, "a.py(3): inner", 20, 10, 3, 99),  # no frame has id 99
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
         "ts": 22, "dur": 2, "args": {"correlation": 7}},
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 30, "dur": 5,
         "args": {"device": 0, "stream": 7, "correlation": 7}},
        mem(21, 100), mem(23, -5), mem(24, 1 << 62), mem(25, 300, dtype=13),
    ]
    path.write_bytes(gzip.compress(json.dumps({"traceEvents": events}).encode()))
    return path


def test_bad_parents_and_sizes_load_with_warnings(tmp_path: Path) -> None:
    with open_trace(_generated_trace(tmp_path / "edge.pt.trace.json.gz"),
                    use_cache=False) as t:
        text = " | ".join(t.warnings)
        assert "1 Python frames name a parent id no frame has" in text
        assert "1 Python frames name a parent id other than the frame enclosing" in text
        assert "2 [memory] events with no usable" in text
        assert "1 [memory] events name a device type" in text
        frames = {f.frame: f.gpu_ns for f in frame_times(t.con)}
        assert frames == {"a.py(1): outer": 5000, "a.py(2): mid": 5000,
                          "a.py(3): inner": 5000}
        kinds = t.con.execute("SELECT device_type, count(*) FROM memory_events GROUP BY 1 "
                              "ORDER BY 1").fetchall()
        assert kinds == [("gpu", 1), ("other", 1)]


NSYS_STACKS = Path("/work/main/.realtraces/rec/stacks/nsys/stacks_training.sqlite")


@pytest.mark.slow
def test_nsys_code_by_nvtx_range_matches_sqlite() -> None:
    """An nsys report has no Python frames: its NVTX ranges stand in, and say so."""
    path = sample("gappy_training.sqlite")
    with open_trace(path) as t:
        assert t.meta("code_source") == "nvtx"
        got = {f.frame: (f.gpu_ns, f.self_gpu_ns, f.launches) for f in frame_times(t.con)}
    assert got == nsys_gpu_time_by_range(path)
    assert got["gappy_training"][2] == 784


@pytest.mark.skipif(not NSYS_STACKS.is_file(), reason="the nsys recording with "
                    "--cuda-memory-usage is kept outside sample_traces (5.9 MB)")
def test_nsys_memory_peak_matches_sqlite() -> None:
    with open_trace(NSYS_STACKS) as t:
        peaks = {p.device: (p.peak_allocated_bytes, p.peak_ns)
                 for p in tui_memory_peaks(t.con) if p.device_type == "gpu"}
        assert t.meta("code_source") == "cuda_backtrace"
    assert peaks == nsys_memory_peaks(NSYS_STACKS)
    assert peaks[0][0] == 1_001_273_051


@pytest.mark.slow
def test_summary_json_and_export_code(tmp_path: Path, capsys) -> None:
    """`--summary --json` carries code and memory; `tui export TRACE code` the same rows."""
    import pyarrow.csv as pa_csv

    from tui.cli.main import main

    assert main(["--summary", "--json", str(sample(STACKS))]) == 0
    summary = json.loads(capsys.readouterr().out)
    expected = gpu_time_by_frame(sample(STACKS))
    assert summary["code_source"] == "python"
    assert {c["frame"]: (c["gpu_ns"], c["self_gpu_ns"], c["launches"])
            for c in summary["code"]} == expected
    gpu_ns = [c["gpu_ns"] for c in summary["code"]]
    assert gpu_ns == sorted(gpu_ns, reverse=True)
    (peak, peak_ns, reserved), = [v for k, v in memory_peaks(sample(STACKS)).items()
                                  if k[0] == 1]
    assert summary["memory"] == [{"device": 0, "peak_allocated_bytes": peak,
                                  "peak_ns": peak_ns, "peak_reserved_bytes": reserved}]
    assert summary["host_memory"][0]["device"] == -1
    assert main(["--summary", str(sample(STACKS))]) == 0
    text = capsys.readouterr().out
    assert "gen_stacks.py(31): forward" in text and "Memory peaks" in text
    target = tmp_path / "code.csv"
    assert main(["export", str(sample(STACKS)), "code", "--output", str(target)]) == 0
    table = pa_csv.read_csv(target)
    assert dict(zip(table.column("frame").to_pylist(), table.column("gpu_ns").to_pylist(),
                    strict=True)) == {k: v[0] for k, v in expected.items()}


def test_joins_as_written_build_on_the_right_hand_side_in_the_block_only() -> None:
    """stacks_python_frames.sql relies on it: outside the block DuckDB builds the hash
    table from the side it estimates smaller (here the left: a RIGHT join), in it from
    the right as written (a LEFT join); the setting is as before after the block."""
    from tui.core.db import connect, joins_as_written

    con = connect()
    con.execute("CREATE TABLE frames AS SELECT range AS id, repeat('x', 50) AS name "
                "FROM range(1000)")
    con.execute("CREATE TABLE ids AS SELECT range AS id, range * 2 AS parent FROM range(100000)")

    def join_type() -> str:
        plan = con.execute("EXPLAIN SELECT * FROM frames LEFT JOIN ids USING (id)").fetchall()
        return next(line.strip("│ ") for line in plan[0][1].splitlines() if "Join Type" in line)

    assert join_type() == "Join Type: RIGHT"
    with joins_as_written(con):
        assert join_type() == "Join Type: LEFT"
    assert join_type() == "Join Type: RIGHT"
    assert con.execute("SELECT current_setting('disabled_optimizers')").fetchone()[0] == ""


@pytest.mark.slow
@pytest.mark.parametrize("trace", ["stacks_training.pt.trace.json.gz",
                                   "backtraces_training.sqlite"])
def test_launch_points_in_many_parts_give_the_same_stacks(trace: str, monkeypatch) -> None:
    """The launching calls are joined a part of the GPU activities at a time (a 3 GB trace's
    would not fit DuckDB's memory at once): in parts of 7 activities, every launch,
    frame and memory event's context is the same as in one part."""
    import tui.derived.stacks
    from tui.loading.trace import open_trace

    tables = ("SELECT * FROM launches ORDER BY gpu_id",
              "SELECT * FROM memory_events ORDER BY id",
              "SELECT * FROM python_frames ORDER BY id")

    def stacks(built: bool = True) -> list[list[tuple]]:
        # in one part: the run's cache file of the trace, as any open reads it
        with open_trace(sample(trace), use_cache=not built) as opened:
            return [opened.con.execute(query).fetchall() for query in tables]

    whole = stacks(built=False)
    monkeypatch.setattr(tui.derived.stacks, "points_per_part", lambda: 7)
    assert stacks() == whole
    launches = whole[0]
    assert len(launches) > 7 * 20 and sum(1 for row in launches if row[1] is not None) > 100


@pytest.mark.slow
def test_a_correlation_id_two_calls_share_names_the_first_call(monkeypatch) -> None:
    """Two processes' correlation ids can meet in one report: an activity whose id two
    runtime calls share gets the first call (the lower id), once, in whichever part it
    falls, as the grouped query over all activities gives it."""
    import tui.derived.stacks as stacks
    from tui.core.queries import fill, load_query

    with open_trace(sample(STACKS), use_cache=False) as opened:
        con = opened.con
        gpu_id, runtime_id = con.execute(
            "SELECT gpu_id, runtime_id FROM launches WHERE runtime_id IS NOT NULL "
            "ORDER BY gpu_id LIMIT 1 OFFSET 30").fetchone()
        # a call of another thread, later in id, earlier in time, with the same id
        con.execute("INSERT INTO host_activities (id, kind, pid, tid, start_ns, end_ns, "
                    "duration_ns, name, correlation, depth) "
                    "SELECT (SELECT max(id) + 1 FROM host_activities), kind, pid, tid + 1, "
                    "start_ns - 5, end_ns, duration_ns, name, correlation, depth "
                    "FROM host_activities WHERE id = ?", [runtime_id])
        query = "SELECT * FROM stacks_points WHERE NOT is_memory ORDER BY point_id"
        monkeypatch.setattr(stacks, "points_per_part", lambda: 7)
        stacks._stage_points(con, "host_activities")
        in_parts = con.execute(query).fetchall()
        con.execute(load_query("stacks_points"))
        con.execute(fill("stacks_points_launches_first", host="host_activities"),
                    {"since": 0, "until": 1 << 62})
        grouped = con.execute(query).fetchall()
    assert in_parts == grouped
    assert [row[2] for row in in_parts if row[1] == gpu_id] == [runtime_id]
    assert len(in_parts) > 500


@pytest.mark.parametrize("trace", ["stacks_training.pt.trace.json.gz",
                                   "ddp4/ddp_rank0.pt.trace.json.gz"])
def test_the_memory_events_context_is_asked_only_where_there_are_some(
        trace: str, monkeypatch) -> None:
    """The memory events' context queries run only where the trace has memory events
    (stacks_training's profile_memory run has; a DDP rank has none): without them the
    launches, frames and memory events are what asking them anyway gives."""
    import tui.derived.stacks

    tables = ("SELECT * FROM launches ORDER BY gpu_id",
              "SELECT * FROM memory_events ORDER BY id",
              "SELECT * FROM python_frames ORDER BY id")
    asked: list[bool] = []
    has = tui.derived.stacks._has_memory_events

    def recorded(con) -> bool:
        asked.append(has(con))
        return asked[-1]

    def stacks() -> list[list[tuple]]:
        with open_trace(sample(trace), use_cache=False) as opened:
            return [opened.con.execute(query).fetchall() for query in tables]

    monkeypatch.setattr(tui.derived.stacks, "_has_memory_events", recorded)
    found = stacks()
    monkeypatch.setattr(tui.derived.stacks, "_has_memory_events", lambda con: True)
    assert stacks() == found
    with_memory = trace.startswith("stacks_training")
    assert asked == [with_memory, with_memory] and (len(found[1]) > 100) == with_memory
    assert len(found[0]) > 100 and len(found[2]) > 10


def _left_open(path: Path) -> dict[int, int]:
    """From the JSON: the Python frames (by "Python id") Kineto's tracer left open, with
    the end each gets: a frame ending at its thread's last frame end whose caller (its
    "Python parent id") returned earlier ends where that caller did, and the frames still
    open inside it end there too."""
    frames = [e for e in chrome_events(path)
              if e.get("ph") == "X" and e.get("cat") == "python_function"]
    end = {e["args"]["Python id"]: ns(e["ts"]) + ns(e["dur"]) for e in frames}
    last: dict[tuple, int] = {}
    for e in frames:
        key = (e["pid"], e["tid"])
        last[key] = max(last.get(key, 0), end[e["args"]["Python id"]])
    open_ = {e["args"]["Python id"]: e["args"].get("Python parent id") for e in frames
             if end[e["args"]["Python id"]] == last[(e["pid"], e["tid"])]}
    bound: dict[int, int] = {}
    changed = True
    while changed:
        changed = False
        for frame, parent in open_.items():
            cap = (bound.get(parent) if parent in open_ else
                   end[parent] if parent in end and end[parent] < end[frame] else None)
            if cap is not None and bound.get(frame, end[frame]) > cap:
                bound[frame] = cap
                changed = True
    return bound


def test_frames_the_profiler_left_open_end_where_their_caller_returned() -> None:
    """compiled_lm's trace (torch.compile's autograd `apply` and pybind11 `__exit__`
    calls whose return Kineto's tracer missed) leaves 36 frames open to its stop: closed
    where their callers returned, no frame open to the stop outlives its caller, and the
    training step's frame sits at one depth in every step instead of four levels deeper
    each step."""
    path = sample("compiled_lm/compiled_lm.pt.trace.json.gz")
    expected = _left_open(path)
    assert len(expected) == 36
    with open_trace(path) as loaded:
        assert any(w.startswith("36 Python frames were left open by the profiler")
                   for w in loaded.warnings)
        ends = dict(loaded.con.execute(
            "SELECT python_id, end_ns FROM python_frames WHERE python_id IN "
            "(SELECT unnest($ids))", {"ids": list(expected)}).fetchall())
        # (a few `__exit__` calls outlive their caller by at most ~1 ms, closed well
        # before the stop: left as the trace has them)
        outliving = loaded.con.execute(
            "SELECT count(*) FROM python_frames AS f JOIN python_frames AS p "
            "ON p.python_id = f.python_parent_id AND p.pid = f.pid AND p.tid = f.tid "
            "WHERE f.end_ns > p.end_ns AND f.end_ns = (SELECT max(end_ns) FROM "
            "python_frames AS t WHERE t.pid = f.pid AND t.tid = f.tid)").fetchone()[0]
        depths = loaded.con.execute(
            "SELECT DISTINCT depth FROM python_frames WHERE func = 'train_step'").fetchall()
    assert ends == expected
    assert outliving == 0
    assert depths == [(2,)]


def test_the_gpu_memory_peak_is_torchs_own() -> None:
    """ckpt_memory.pt.trace.json.gz: gen_unannotated.py's `ckpt` (a GPT-style decoder under
    activation checkpointing) with its steps 10-14 under torch.profiler(profile_memory),
    whose program reset PyTorch's peak at step 10 and printed
    torch.cuda.max_memory_allocated() after step 14: 13,597,266,432 bytes (its log line is
    in recordings/README.md). The trace's peak of allocated GPU memory is that figure,
    byte for byte, and the peak the raw events give."""
    path = sample("ckpt_memory.pt.trace.json.gz")
    expected = memory_peaks(path)
    with open_trace(path) as t:
        peaks = {p.device: p for p in tui_memory_peaks(t.con) if p.device_type == "gpu"}
    assert peaks[0].peak_allocated_bytes == 13_597_266_432
    assert (peaks[0].peak_allocated_bytes, peaks[0].peak_ns,
            peaks[0].peak_reserved_bytes) == expected[(1, 0)]
