"""Lanes are named by the trace's process and thread names (Kineto metadata events, nsys'
ThreadNames / PROCESSES), checked against the files read with json and sqlite3."""

from __future__ import annotations

import gzip
import json
import re
import sqlite3

from tests.helpers.oracle import chrome_events
from tests.helpers.paths import sample
from tests.helpers.pilot import settle, sync
from tests.helpers.screen import drawn_screen
from tui.apps.trace_app import TraceApp
from tui.loading.trace import open_trace
from tui.views.timeline import HostInfo, TimelineData
from tui.views.timeline.lanes import LABEL_CHARS, LANE_GPU, LANE_HOST, LANE_NVTX, thread_labels
from tui.widgets.details import describe


def host_labels(name: str) -> dict[tuple[int, int], str]:
    with open_trace(sample(name)) as trace:
        lanes = TimelineData(trace.con, 1_000_000).lanes
    return {(lane.k1, lane.k2): lane.label for lane in lanes if lane.kind == LANE_HOST}


def test_kineto_host_lanes_carry_thread_names() -> None:
    names = {(int(e["pid"]), int(e["tid"])): e["args"]["name"]
             for e in chrome_events(sample("gappy_training.pt.trace.json.gz"))
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    labels = host_labels("gappy_training.pt.trace.json.gz")
    assert labels  # two host threads
    for key, label in labels.items():  # 'thread 474 (pt_autograd_0)' -> pt_autograd_0
        assert label == re.match(r"thread \d+ \((.*)\)", names[key]).group(1)
    assert sorted(labels.values()) == ["pt_autograd_0", "python3"]


def test_nsys_host_lanes_carry_thread_names() -> None:
    path = sample("gappy_training.sqlite")
    with sqlite3.connect(path) as db:
        names = dict(db.execute(
            "SELECT t.globalTid & 16777215, s.value FROM ThreadNames t "
            "JOIN StringIds s ON s.id = t.nameId").fetchall())
    labels = host_labels("gappy_training.sqlite")
    assert labels and all(label == names[tid] for (_, tid), label in labels.items())
    assert "pt_autograd_0" in labels.values()


def test_unnamed_and_shared_names() -> None:
    names = {(7, 1): ("python3", "python3"), (7, 2): ("python3", "python3"),
             (9, 3): ("trainer", "")}
    labels = thread_labels({(7, 1), (7, 2), (9, 3), (9, 4)}, names, many_pids=True)
    assert labels == {(7, 1): "python3 1", (7, 2): "python3 2", (9, 3): "trainer",
                      (9, 4): "9:4"}  # pid:tid only when the trace names neither


@sync
async def test_a_ranks_trace_says_its_rank_on_the_status_line() -> None:
    path = sample("ddp_rank1.pt.trace.json.gz")
    with gzip.open(path, "rt") as f:
        rank = json.load(f)["distributedInfo"]["rank"]
    app = TraceApp(path)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        assert f"kineto · rank {rank}" in (await drawn_screen(pilot))[0]


def test_details_name_the_thread_as_its_lane_does() -> None:
    info = HostInfo(1, "cpu_op", "aten::mm", 449, 474, 2_000, 500, 0, None, 0)
    text = describe(info, 1_000, {(449, 474): "pt_autograd_0", (449, 449): "python3"}).plain
    assert "pt_autograd_0 (thread 474), pid 449 · at +1.000 µs" in text
    assert "thread 474, pid 449" in describe(info, 1_000, {}).plain  # unnamed: the tid


def test_lanes_of_four_ranks_threads_are_told_apart() -> None:
    """nsys over a 4-GPU DDP job: four python3 processes, each with pt_autograd_N and NVTX
    lanes. Every lane label is different within the label column, names cut where the
    thread's id or number is."""
    path = sample("ddp4_nsys.sqlite")
    with sqlite3.connect(path) as db:
        autograd = [name for (name,) in db.execute(
            "SELECT DISTINCT s.value FROM ThreadNames t JOIN StringIds s ON s.id = t.nameId "
            "WHERE s.value LIKE 'pt_autograd_%' ORDER BY 1")]
    assert autograd == [f"pt_autograd_{n}" for n in range(4)]
    with open_trace(path) as trace:
        lanes = TimelineData(trace.con, 1_000_000).lanes
    labels = [lane.label for lane in lanes if lane.kind != LANE_GPU]
    assert len(labels) == len({label[:LABEL_CHARS] for label in labels}) > 20
    assert all(len(label) <= LABEL_CHARS for label in labels)
    host = {lane.label for lane in lanes if lane.kind == LANE_HOST}
    assert {f"pt_aut…rad_{n}" for n in range(4)} <= host
    nvtx = [lane.label for lane in lanes if lane.kind == LANE_NVTX]
    assert "pyt… 2165 ·1" in nvtx and "pt_a…ad_3 ·0" in nvtx
