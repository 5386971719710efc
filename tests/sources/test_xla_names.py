"""What JAX profiles' host side is called: Python frames without the tracer's `$`, in
both forms a run is written in, and host lanes named by thread name and a short id, the
full name in the details; checked against the files read with the json module."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import xla_oracle
from tests.helpers.paths import SAMPLES
from tui.loading.trace import open_trace
from tui.views.timeline import HostInfo, TimelineData
from tui.views.timeline.lanes import LABEL_CHARS, LANE_HOST
from tui.widgets.details import describe

TRAIN = next((SAMPLES / "jax_train" / "plugins" / "profile").iterdir())
STREAMS = next((SAMPLES / "jax_streams" / "plugins" / "profile").iterdir())


def python_names_in(events: list[dict]) -> set[str]:
    """The Python tracer's frames: the events of /host: threads named '$file.py:N func'."""
    return {e["name"] for *_, e in xla_oracle._host_spans(events) if e["name"].startswith("$")}


def host_names(path: Path, kind: str) -> set[str]:
    with open_trace(path) as trace:
        rows = trace.con.execute("SELECT DISTINCT name FROM host_activities WHERE kind = ?",
                                 [kind]).fetchall()
    return {name for (name,) in rows}


def test_python_frames_lose_the_tracers_dollar_in_json_and_xplane() -> None:
    marked = python_names_in(xla_oracle.read_events(TRAIN / "vm.trace.json.gz"))
    assert "$pxla.py:85 shard_args" in marked
    expected = {name[1:] for name in marked}
    assert "pxla.py:85 shard_args" in expected
    assert host_names(TRAIN / "perfetto_trace.json.gz", "python") == expected
    assert host_names(TRAIN / "vm.xplane.pb", "python") == expected


def test_host_lanes_carry_the_thread_name_and_a_short_id_details_the_full_name() -> None:
    events = xla_oracle.read_events(STREAMS / "vm.trace.json.gz")
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    pythons = sorted(tid for (_, tid), name in names.items() if name == "python3")
    pool = sorted(tid for (_, tid), name in names.items()
                  if name.startswith("pjrt_async_work_runner/"))
    assert len(pythons) == 2 and len(pool) == 4  # two threads of each name: told apart
    with open_trace(STREAMS / "vm.trace.json.gz") as trace:
        data = TimelineData(trace.con, 1_000_000)
        host = [e for e in xla_oracle._host_spans(events) if e[1] == pool[0]]
        pid, tid, start, end, event = host[0]
    labels = {lane.k2: lane.label for lane in data.lanes if lane.kind == LANE_HOST}
    for tid in pythons:
        assert labels[tid] == f"python3 {str(tid)[:4]}"
    assert {labels[tid] for tid in pool} == {f"pjrt_a… {str(tid)[:4]}" for tid in pool}
    assert all(len(labels[tid]) <= LABEL_CHARS for tid in pythons + pool)  # id shown whole
    info = HostInfo(1, "cpu_op", event["name"], pid, tid, start, end - start, 0, None, 0)
    where = describe(info, start, data.threads).plain
    assert f"{names[(pid, tid)]} (thread {tid}), pid {pid}" in where
