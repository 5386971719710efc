"""What the host did while the GPU waited (tui/analysis/host_samples.py), checked against
independent computations over the raw sources: sqlite3 over an nsys export recorded with
CPU sampling and OS runtime tracing (the gaps from NVIDIA's own `nsys analyze -r gpu_gaps`),
NVIDIA's `nsys stats -r osrt_sum`, and the Kineto twin's JSON read directly."""

from __future__ import annotations

import csv
import gzip
import json
import sqlite3
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from tests.conftest import inflated, sample
from tests.helpers.paths import DATA as DATA_ROOT
from tests.helpers.stacks_oracle import frame_name
from tui.analysis.host_samples import (
    gaps_host_activity,
    range_host_activity,
    ranges_of,
    ranges_of_gaps,
    sample_tree,
)
from tui.core.queries import load_query
from tui.loading.trace import open_trace

DATA = DATA_ROOT / "loops"
MIN_GAP_NS = 1_000_000
GPU_TABLES = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
              "CUPTI_ACTIVITY_KIND_MEMSET")


@pytest.fixture(scope="module")
def export() -> Path:
    return inflated("loops/loop_host.sqlite")


@pytest.fixture(scope="module")
def trace(export: Path):
    with open_trace(export) as loaded:
        yield loaded


def nvidia_gaps(name: str) -> list[tuple[int, int]]:
    """(start, end) of every gap `nsys analyze -r gpu_gaps:gap=1` lists."""
    with open(DATA / f"{name}_gpu_gaps_gap=1_rows=-1.csv") as f:
        return [(int(r["Start (ns)"]), int(r["Start (ns)"]) + int(r["Duration (ns)"]))
                for r in csv.DictReader(f)]


def export_db(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db.execute("CREATE TEMP TABLE gaps (gs INTEGER, ge INTEGER)")
    return db


def oracle_launching_tid(db: sqlite3.Connection) -> int:
    """The thread whose runtime calls launched the work that ends the most gap time: the
    work starting where each gap ends, tied to its call by correlation id."""
    work = " UNION ALL ".join(f"SELECT start, correlationId FROM {t}" for t in GPU_TABLES)
    (tid,) = db.execute(f"""
        SELECT r.globalTid & 16777215
        FROM temp.gaps AS g JOIN ({work}) AS w ON w.start = g.ge
        JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.correlationId = w.correlationId
        GROUP BY 1 ORDER BY sum(g.ge - g.gs) DESC LIMIT 1""").fetchone()
    return tid


def oracle_leaf_modules(db: sqlite3.Connection, tid: int | None) -> Counter:
    """Samples taken inside a gap (start <= t < end), by the file name of the module of
    their innermost frame (stackDepth 0)."""
    rows = db.execute("""
        SELECT m.value, count(*)
        FROM COMPOSITE_EVENTS AS e
        JOIN SAMPLING_CALLCHAINS AS c ON c.id = e.id AND c.stackDepth = 0
        JOIN StringIds AS m ON m.id = c.module
        WHERE (? IS NULL OR (e.globalTid & 16777215) = ?)
          AND EXISTS (SELECT 1 FROM temp.gaps AS g WHERE e.start >= g.gs AND e.start < g.ge)
        GROUP BY m.value""", (tid, tid)).fetchall()
    counts: Counter = Counter()
    for module, n in rows:
        counts[module.rsplit("/", 1)[-1]] += n
    return counts


def test_samples_in_gaps_by_module_equal_sqlite_over_the_export(trace, export) -> None:
    gaps = nvidia_gaps("loop_host")
    db = export_db(export)
    db.executemany("INSERT INTO temp.gaps VALUES (?, ?)", gaps)
    tid = oracle_launching_tid(db)
    host = gaps_host_activity(trace.con, MIN_GAP_NS)
    assert host is not None and host.unit == "samples"
    assert host.range_ns == sum(e - s for s, e in gaps)  # the same gaps as NVIDIA's
    assert host.thread is not None and host.thread[1] == tid
    for view, thread in ((host.launching, tid), (host.all_threads, None)):
        expected = oracle_leaf_modules(db, thread)
        assert {s.name: s.value for s in view.by_module} == dict(expected)
        assert view.total == sum(expected.values())
        assert sum(s.value for s in view.by_function) == view.total
    # the loop's design: the launching thread runs the tokenizer in the interpreter and
    # calls into OpenBLAS, whose worker threads do most of the sampled work
    shares = {s.name: s.pct for s in host.launching.by_module}
    assert shares["python3.12"] > 50
    blas = next(s for s in host.all_threads.by_module if "openblas" in s.name)
    assert blas.pct > 80 and blas is host.all_threads.by_module[0]


def test_leaf_functions_equal_sqlite_over_the_export(trace, export) -> None:
    db = export_db(export)
    db.executemany("INSERT INTO temp.gaps VALUES (?, ?)", nvidia_gaps("loop_host"))
    host = gaps_host_activity(trace.con, MIN_GAP_NS)
    assert host is not None and host.thread is not None
    rows = db.execute("""
        SELECT s.value, m.value, count(*)
        FROM COMPOSITE_EVENTS AS e
        JOIN SAMPLING_CALLCHAINS AS c ON c.id = e.id AND c.stackDepth = 0
        JOIN StringIds AS s ON s.id = c.symbol JOIN StringIds AS m ON m.id = c.module
        WHERE (e.globalTid & 16777215) = ?
          AND EXISTS (SELECT 1 FROM temp.gaps AS g WHERE e.start >= g.gs AND e.start < g.ge)
        GROUP BY 1, 2""", (host.thread[1],)).fetchall()
    expected = {(f, m.rsplit("/", 1)[-1]): n for f, m, n in rows}
    assert {(s.name, s.module): s.value for s in host.launching.by_function} == expected


def osrt_sum(name: str) -> dict[str, tuple[int, int, int, int]]:
    with open(DATA / f"{name}_osrt_sum.csv") as f:
        return {r["Name"]: (int(r["Num Calls"]), int(r["Total Time (ns)"]),
                            int(r["Min (ns)"]), int(r["Max (ns)"]))
                for r in csv.DictReader(f)}


def os_call_totals(con) -> dict[str, tuple[int, ...]]:
    rows = con.execute("SELECT name, count(*), sum(duration_ns), min(duration_ns), "
                       "max(duration_ns) FROM os_calls GROUP BY name").fetchall()
    return {name: tuple(int(v) for v in rest) for name, *rest in rows}


def test_os_calls_equal_nvidia_osrt_sum(trace) -> None:
    """Every OS runtime call of the capture, by name: count, total, min and max equal
    `nsys stats -r osrt_sum` (which leaves out the markers of tracing's start and end)."""
    assert os_call_totals(trace.con) == osrt_sum("loop_host")


def test_os_calls_of_another_loop_equal_nvidia_osrt_sum() -> None:
    with open_trace(inflated("loops/loop_sync.sqlite")) as t:
        assert os_call_totals(t.con) == osrt_sum("loop_sync")
        (samples,), = t.con.execute("SELECT count(*) FROM host_samples").fetchall()
    db = sqlite3.connect(f"file:{inflated('loops/loop_sync.sqlite')}?mode=ro", uri=True)
    assert samples == db.execute("SELECT count(*) FROM COMPOSITE_EVENTS").fetchone()[0] > 0


def test_os_calls_in_gaps_equal_sqlite_over_the_export(trace, export) -> None:
    gaps = nvidia_gaps("loop_host")
    host = gaps_host_activity(trace.con, MIN_GAP_NS)
    assert host is not None and host.thread is not None
    db = export_db(export)
    held: dict[str, int] = defaultdict(int)
    calls: dict[str, set] = defaultdict(set)
    for name, start, end in db.execute(
            "SELECT s.value, o.start, o.\"end\" FROM OSRT_API AS o JOIN StringIds AS s "
            "ON s.id = o.nameId WHERE (o.globalTid & 16777215) = ?", (host.thread[1],)):
        for gs, ge in gaps:
            if start < ge and end > gs:
                held[name] += min(end, ge) - max(start, gs)
                calls[name].add(start)
    assert {o.name: (o.calls, o.ns) for o in host.launching.osrt} == {
        name: (len(calls[name]), ns) for name, ns in held.items()}
    assert host.launching.osrt[0].ns == max(held.values())


def test_call_tree_adds_up(trace) -> None:
    """Top-down, a node's samples are its own plus its children's; the roots hold every
    sample of the thread; bottom-up, the first level is the leaf functions."""
    gaps = nvidia_gaps("loop_host")
    host = range_host_activity(trace.con, gaps)
    assert host is not None and host.thread is not None
    tree = sample_tree(trace.con, gaps, host.thread)
    by_path = {n.path: n for n in tree}
    assert sum(n.samples for n in tree if n.depth == 0) == host.launching.total
    children_of = defaultdict(list)  # each node's children, found once (11,599 nodes)
    for node in tree:
        if node.depth:
            children_of[node.path[:-1]].append(node)
    for node in tree:
        children = children_of[node.path] if node.depth < 3 else []
        if children:
            assert node.samples == node.self_samples + sum(c.samples for c in children)
        if node.depth:
            assert by_path[node.path[:-1]].samples >= node.samples
    bottom = sample_tree(trace.con, gaps, host.thread, bottom_up=True)
    leaves = {n.frame: n.samples for n in bottom if n.depth == 0}
    assert leaves == {f"{s.name} ({s.module})": s.value for s in host.launching.by_function}


def test_an_export_without_samples_loads_as_before() -> None:
    with open_trace(sample("gappy_training.sqlite")) as t:
        assert t.con.execute("SELECT (SELECT count(*) FROM host_samples) + "
                             "(SELECT count(*) FROM os_calls)").fetchone() == (0,)
        assert gaps_host_activity(t.con, MIN_GAP_NS) is None


def kineto_oracle(path: Path) -> tuple[int, list[tuple[float, float]], dict[str, float]]:
    """From the Kineto JSON itself: the gaps (no kernel, copy or set on any stream of the
    device for over 1 ms), the thread whose runtime call launched the work ending the most
    gap time, and each Python frame's own time (µs) inside the gaps on it."""
    events = json.load(gzip.open(path))["traceEvents"]
    work = sorted((e["ts"], e["ts"] + e["dur"], e["args"].get("correlation"))
                  for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"))
    gaps, reach = [], work[0][1]
    enders: dict[int, float] = defaultdict(float)
    calls = {e["args"]["correlation"]: e["tid"] for e in events
             if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e["args"]}
    for start, end, correlation in work[1:]:
        if start - reach > 1000.0:
            gaps.append((reach, start))
            enders[calls.get(correlation, -1)] += start - reach
        reach = max(reach, end)
    tid = max(enders, key=enders.__getitem__)
    frames = [e for e in events if e.get("cat") == "python_function" and e["tid"] == tid]

    def inside(e: dict) -> float:
        return sum(max(0.0, min(e["ts"] + e["dur"], ge) - max(e["ts"], gs)) for gs, ge in gaps)

    clipped = {e["args"]["Python id"]: inside(e) for e in frames}
    own = dict(clipped)
    for e in frames:
        parent = e["args"].get("Python parent id")
        if parent in own:
            own[parent] -= clipped[e["args"]["Python id"]]
    by_name: dict[str, float] = defaultdict(float)
    for e in frames:
        by_name[frame_name(e["name"])] += own[e["args"]["Python id"]]
    return tid, gaps, by_name


def kineto_op_oracle(path: Path, tid: int, gaps_us: list[tuple[float, float]]) -> dict[str, float]:
    """Each CPU op's own time (µs) inside the gaps on thread `tid`, from the JSON: ops
    nest on a thread, so a stack walk in start order finds each op's parent."""
    events = json.load(gzip.open(path))["traceEvents"]
    ops = sorted(((e["ts"], e["ts"] + e["dur"], e["name"]) for e in events
                  if e.get("cat") == "cpu_op" and e["tid"] == tid),
                 key=lambda o: (o[0], -o[1]))

    def inside(start: float, end: float) -> float:
        return sum(max(0.0, min(end, ge) - max(start, gs)) for gs, ge in gaps_us)

    own: dict[str, float] = defaultdict(float)
    stack: list[tuple[float, float, str]] = []
    for start, end, name in ops:
        while stack and stack[-1][1] < end:
            stack.pop()
        here = inside(start, end)
        own[name] += here
        if stack and start >= stack[-1][0]:
            own[stack[-1][2]] -= here
        stack.append((start, end, name))
    return own


def test_kineto_python_frames_in_gaps_equal_the_json() -> None:
    path = sample("loops/loop_host.pt.trace.json.gz")
    tid, gaps, expected = kineto_oracle(path)
    with open_trace(path) as t:
        host = gaps_host_activity(t.con, MIN_GAP_NS)
    assert host is not None and host.unit == "ns" and host.thread is not None
    assert host.thread[1] == tid
    assert host.range_ns == pytest.approx(sum(ge - gs for gs, ge in gaps) * 1000, abs=1000)
    ops = kineto_op_oracle(path, tid, gaps)
    assert host.launching.by_op
    for share in host.launching.by_op[:5]:
        assert share.value == pytest.approx(ops[share.name] * 1000, abs=2000), share.name
    top = [s for s in host.launching.by_function[:8]]
    for share in top:
        assert share.value == pytest.approx(expected[share.name] * 1000, abs=2000), share.name
    assert top[0].name == max(expected, key=expected.__getitem__)
    # the tokenizer and the linear algebra the loop was written to spend its time in
    names = {s.name.split(": ")[-1] for s in top[:4]}
    assert {"tokenize", "svd", "qr"} <= names
    assert host.untraced_ns is not None and 0 <= host.untraced_ns < host.range_ns


def test_ops_that_span_several_stretches_count_in_each_as_the_json_says() -> None:
    """Stretches cut short and close together, so that the longer ops each overlap several
    (those the as-of join alone would miss): each op's own time inside them as the JSON's
    ops give it."""
    path = sample("loops/loop_host.pt.trace.json.gz")
    events = json.load(gzip.open(path))["traceEvents"]
    ops = [e for e in events if e.get("cat") == "cpu_op"]
    first = min(e["ts"] for e in ops)
    last = max(e["ts"] + e["dur"] for e in ops)
    # µs: 60 long every 200, so an op longer than 140 (a few dozen) overlaps two or more
    stretches_us = [(first + i, first + i + 60) for i in range(0, round(last - first), 200)]
    with open_trace(path) as t:
        host = range_host_activity(t.con, [(round(s * 1000), round(e * 1000))
                                           for s, e in stretches_us])
    assert host is not None and host.thread is not None
    tid = host.thread[1]
    spanning = [e for e in ops if e["tid"] == tid and sum(
        1 for s, end in stretches_us if e["ts"] < end and e["ts"] + e["dur"] > s) > 1]
    assert len(spanning) >= 5, len(spanning)
    expected = {name: us * 1000 for name, us in kineto_op_oracle(path, tid, stretches_us).items()
                if us > 2}
    got = {share.name: share.value for share in host.launching.by_op}
    assert len(expected) >= 10
    for name, ns in expected.items():
        assert got.get(name) == pytest.approx(ns, abs=2000), name
    # the time the thread shows no op, frame or call: its outer frames, longer than the
    # stretches' buckets (a millisecond), cover most of it
    traced_us = traced_oracle(events, tid, stretches_us)
    assert host.untraced_ns == pytest.approx(host.range_ns - traced_us * 1000, abs=20_000)
    assert host.untraced_ns < 0.5 * host.range_ns


def test_the_work_inside_the_stretches_is_every_pair_that_overlaps() -> None:
    """host_range_activities.sql (buckets of time; the activities longer than a bucket
    apart) pairs each traced activity with every stretch it overlaps, as the plain interval
    join does: over the gaps, and over short stretches that the outer frames span many of."""
    path = sample("loops/loop_host.pt.trace.json.gz")
    pairs = """SELECT h.id, r.start_ns, r.end_ns FROM host_activities AS h
               JOIN host_ranges AS r ON h.start_ns < r.end_ns AND h.end_ns > r.start_ns
               WHERE h.kind IN ('cpu_op', 'python', 'runtime') ORDER BY ALL"""
    found = "SELECT id, range_start, range_end FROM host_range_activities ORDER BY ALL"
    longer = """SELECT count(*) FROM host_range_activities
                WHERE end_ns - start_ns > 1000000"""  # a bucket: the ranges are short
    with open_trace(path) as t:
        con = t.con
        (first, last), = con.execute("SELECT min(start_ns), max(end_ns) FROM host_activities "
                                     "WHERE kind = 'cpu_op'").fetchall()
        stretches = [(s, s + 60_000) for s in range(first, last, 200_000)]
        for ranges in (ranges_of_gaps(con, MIN_GAP_NS), ranges_of(con, stretches)):
            with ranges:
                con.execute(load_query("host_range_activities"))
                expected = con.execute(pairs).fetchall()
                assert con.execute(found).fetchall() == expected
                assert len(expected) > 1000
                assert con.execute(longer).fetchone()[0] > 40
                # the small trace's join: the same rows, every column
                every = "SELECT * FROM host_range_activities ORDER BY ALL"
                buckets = con.execute(every).fetchall()
                con.execute(load_query("host_range_activities_small"))
                assert con.execute(every).fetchall() == buckets


@pytest.mark.parametrize("name", ["gappy_training.pt.trace.json.gz",
                                  "loops/loop_host.pt.trace.json.gz"])
def test_the_host_view_is_the_same_by_either_join(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A trace of few host activities meets the gaps in one interval join, a bigger one
    on buckets of time (PLAIN_JOIN_ROWS): the same view of the host either way."""
    from tui.analysis import host_samples

    with open_trace(sample(name)) as t:
        (activities,), = t.con.execute("SELECT count(*) FROM host_activities").fetchall()
        assert activities <= host_samples.PLAIN_JOIN_ROWS  # the interval join, by default
        plain = gaps_host_activity(t.con, MIN_GAP_NS)
        monkeypatch.setattr(host_samples, "PLAIN_JOIN_ROWS", 0)
        assert gaps_host_activity(t.con, MIN_GAP_NS) == plain
    assert plain is not None and plain.all_threads.by_op


def traced_oracle(events: list[dict], tid: int, stretches_us: list[tuple[float, float]]) -> float:
    """How long (µs) thread `tid` ran some CPU op, Python frame or runtime call inside the
    stretches (disjoint, in time order), from the JSON: the union of its events, then
    clipped to each stretch."""
    spans = sorted((e["ts"], e["ts"] + e["dur"]) for e in events if e.get("tid") == tid
                   and e.get("cat") in ("cpu_op", "python_function", "cuda_runtime",
                                        "cuda_driver"))
    union: list[list[float]] = []
    for start, end in spans:
        if union and start <= union[-1][1]:
            union[-1][1] = max(union[-1][1], end)
        else:
            union.append([start, end])
    total, i = 0.0, 0
    for start, end in stretches_us:
        while i < len(union) and union[i][1] <= start:
            i += 1
        j = i
        while j < len(union) and union[j][0] < end:
            total += max(0.0, min(end, union[j][1]) - max(start, union[j][0]))
            j += 1
    return total


def test_a_gaps_details_in_the_app_say_where_the_host_was(export) -> None:
    """At 80×24, the largest gap's details name the launching thread's samples in it (as
    many as sqlite3 counts there) and the modules they were taken in."""
    import asyncio

    from tests.helpers.pilot import details_text, settle
    from tui.apps.trace_app import TraceApp
    from tui.views.timeline import GapInfo

    start, end = max(nvidia_gaps("loop_host"), key=lambda g: g[1] - g[0])
    db = export_db(export)
    db.execute("INSERT INTO temp.gaps VALUES (?, ?)", (start, end))
    tid = oracle_launching_tid(db)
    expected = oracle_leaf_modules(db, tid)

    async def run() -> None:
        app = TraceApp(export)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("b")
            timeline = await settle(pilot)
            assert isinstance(timeline.info, GapInfo) and timeline.info.start_ns == start
            text = " ".join(details_text(pilot).split())
            assert f"({tid}/{tid}) in " in text
            assert f"of this gap (on a CPU 95% of it): {sum(expected.values()):,}" in text
            top = expected.most_common(1)[0][0]
            assert f"modules: {top[:39]}" in text

    asyncio.run(run())


def test_a_host_waits_cause_says_where_its_thread_was_sampled(trace, export) -> None:
    """The longest gap's cause names the modules the thread that ended it was sampled in,
    with as many samples as sqlite3 counts there; the summary's sentence names the
    interpreter and OpenBLAS, the loop's two kinds of host work."""
    from tui.analysis.gaps import explained_gaps

    gap = explained_gaps(trace.con, MIN_GAP_NS, limit=1)[0]
    db = export_db(export)
    db.execute("INSERT INTO temp.gaps VALUES (?, ?)",
               (gap.start_ns, gap.start_ns + gap.duration_ns))
    counts = oracle_leaf_modules(db, oracle_launching_tid(db))
    (top, n), = counts.most_common(1)
    assert top == "python3.12"
    share = round(100 * n / sum(counts.values()))
    assert gap.kind == "host-wait"
    assert f"its thread's {sum(counts.values()):,} samples: the Python interpreter {share}%" \
        in gap.cause
    where = gaps_host_activity(trace.con, MIN_GAP_NS).where()
    assert where.startswith("the launching thread was in the Python interpreter (")
    assert "and OpenBLAS (" in where


def test_tui_host_on_one_gap_as_json_and_a_tree(export, capsys) -> None:
    """`tui host --gap 1 --json --tree`: the longest gap's samples on the thread that ended
    it equal sqlite3's count; the call tree's roots hold them all; bad input: one line, 2."""
    from tui.cli.main import main

    start, end = max(nvidia_gaps("loop_host"), key=lambda g: g[1] - g[0])
    db = export_db(export)
    db.execute("INSERT INTO temp.gaps VALUES (?, ?)", (start, end))
    tid = oracle_launching_tid(db)
    expected = oracle_leaf_modules(db, tid)
    assert main(["host", str(export), "--gap", "1", "--tree", "--min-pct", "0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["thread"]["tid"] == tid and out["range_ns"] == end - start
    assert {m["module"]: m["samples"] for m in out["by_module"]} == dict(expected)
    assert sum(n["samples"] for n in out["tree"] if len(n["path"]) == 1) == out["in_idle"]
    assert main(["host", str(export), "--gap", "999"]) == 2
    assert "no gap #999" in capsys.readouterr().err


def test_time_on_a_cpu_in_gaps_equals_the_context_switches(trace, export) -> None:
    """The launching thread's time on a CPU in the gaps: each switch in to its thread's next
    switch out, read from SCHED_EVENTS and clipped to NVIDIA's gaps here in Python."""
    gaps = nvidia_gaps("loop_host")
    host = gaps_host_activity(trace.con, MIN_GAP_NS)
    assert host is not None and host.thread is not None
    db = export_db(export)
    switches = db.execute("SELECT start, isSchedIn FROM SCHED_EVENTS "
                          "WHERE (globalTid & 16777215) = ? ORDER BY start, isSchedIn",
                          (host.thread[1],)).fetchall()
    on_cpu = 0
    for (start, into), (end, nxt) in zip(switches, switches[1:], strict=False):
        if into and not nxt:
            on_cpu += sum(max(0, min(end, ge) - max(start, gs)) for gs, ge in gaps)
    assert host.on_cpu_ns == on_cpu
    assert 0.5 * host.range_ns < on_cpu <= host.range_ns  # the loop keeps its thread busy


def test_w_on_the_gaps_tab_shows_the_gaps_host_call_tree(export) -> None:
    """At 80×24, `w` on the longest gap of the Gaps tab: its launching thread's samples (as
    many as sqlite3 counts), then their call tree; `v` turns it bottom-up; Esc closes."""
    import asyncio

    from tests.helpers.pilot import settle
    from tests.helpers.tables import ready
    from tui.apps.trace_app import TraceApp
    from tui.widgets.host_screen import HostScreen

    start, end = max(nvidia_gaps("loop_host"), key=lambda g: g[1] - g[0])
    db = export_db(export)
    db.execute("INSERT INTO temp.gaps VALUES (?, ?)", (start, end))
    counts = oracle_leaf_modules(db, oracle_launching_tid(db))

    async def shown(pilot) -> str:
        for _ in range(500):
            await pilot.pause()
            text = str(pilot.app.screen.query_one("#host-text").render())
            if "call tree" in text or "bottom-up" in text:
                return text
            await asyncio.sleep(0.01)
        return text

    async def run() -> None:
        app = TraceApp(export)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("3")
            table = await ready(pilot, "gap-table")
            assert table.row_at(table.cursor)["start_ns"] == start
            await pilot.press("w")
            assert isinstance(app.screen, HostScreen)
            text = await shown(pilot)
            words = " ".join(text.split())
            assert "of this gap (6.18 s on GPU 0) (on a CPU" in words
            assert f"of it): {sum(counts.values()):,}" in words
            assert "call tree, top-down" in text
            await pilot.press("v")
            for _ in range(100):
                text = await shown(pilot)
                if "bottom-up" in text:
                    break
            assert "bottom-up: leaf functions" in text
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, HostScreen)

    asyncio.run(run())


def test_summary_json_and_text_say_where_the_host_was(export, capsys) -> None:
    """`--summary --json`: host_samples over the gaps (as gaps_host_activity), and the
    host-bound diagnosis says where the launching thread was in the gaps inside its
    window (the loop: NumPy's linear algebra in OpenBLAS; over every gap, the start-up's
    imports put the Python interpreter first); the text says it too."""
    from tui.cli.main import main

    assert main(["--summary", "--json", str(export)]) == 0
    summary = json.loads(capsys.readouterr().out)
    host = summary["host_samples"]
    assert host["source"] == "cpu_samples" and host["thread"]["name"] == "python3"
    assert host["in_idle"] == sum(m["samples"] for m in host["by_module"])
    assert host["where"].startswith("the launching thread was in the Python interpreter (")
    assert summary["diagnosis"]["bound"] == "host"
    window = summary["diagnosis"]["window"]
    inside = [(max(g["start_ns"], window["start_ns"]),
               min(g["start_ns"] + g["duration_ns"], window["end_ns"]))
              for g in summary["gaps"]]
    with open_trace(export) as trace:
        expected = range_host_activity(trace.con, [(s, e) for s, e in inside if e > s])
    assert expected is not None
    where = summary["diagnosis"]["host_where"]
    assert where == expected.where() and where.startswith("the launching thread was in OpenBLAS (")
    assert main(["--summary", str(export)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert f"while the GPU idled, {where}" in text
    assert "While the GPU waited" in text and "OS calls it waited in: read" in text


def test_every_samples_whole_call_chain_equals_the_export(trace, export) -> None:
    """Each sample's chain, stored once per distinct chain, read back frame by frame equals
    its SAMPLING_CALLCHAINS rows (function and module file name, innermost first)."""
    mine = Counter(trace.con.execute("""
        SELECT s.ts_ns, s.tid, string_agg(c.function || '@' || c.module, '|' ORDER BY c.depth)
        FROM host_samples AS s JOIN host_callchains AS c USING (chain)
        GROUP BY s.ts_ns, s.tid, s.chain""").fetchall())
    db = export_db(export)
    frames: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for event, depth, function, module in db.execute("""
            SELECT c.id, c.stackDepth, s.value, m.value FROM SAMPLING_CALLCHAINS AS c
            JOIN StringIds AS s ON s.id = c.symbol JOIN StringIds AS m ON m.id = c.module"""):
        frames[event].append((depth, f"{function}@{module.rsplit('/', 1)[-1]}"))
    expected = Counter(
        (start, tid & 16777215, "|".join(f for _, f in sorted(frames[event])))
        for event, start, tid in db.execute("SELECT id, start, globalTid FROM COMPOSITE_EVENTS"))
    assert mine == expected
    (chains,), = trace.con.execute("SELECT count(DISTINCT chain) FROM host_callchains").fetchall()
    assert chains < len(expected) / 5  # stored once per distinct chain


def test_the_palettes_host_command_on_a_gap_and_a_marked_stretch(export) -> None:
    """The command palette's "What the host was doing": on the gap under the cursor, that
    gap; with a stretch marked (v), the stretch."""
    import asyncio

    from tests.helpers.pilot import settle
    from tui.apps.trace_app import TraceApp
    from tui.widgets.host_screen import HostScreen

    async def shown(pilot) -> str:
        for _ in range(500):
            await pilot.pause()
            text = str(pilot.app.screen.query_one("#host-text").render())
            if "working out" not in text:
                return " ".join(text.split())
            await asyncio.sleep(0.01)
        return text

    async def run() -> None:
        app = TraceApp(export)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            await pilot.press("b")
            await settle(pilot)
            assert any(c.title == "What the host was doing"
                       for c in app.get_system_commands(app.screen))
            app.action_host()
            await pilot.pause()
            assert isinstance(app.screen, HostScreen)
            assert "of this gap (6.18 s on GPU 0)" in await shown(pilot)
            await pilot.press("escape")
            await pilot.press("v", "right", "right", "right")
            await settle(pilot)
            app.action_host()
            await pilot.pause()
            assert "of the marked stretch" in await shown(pilot)

    asyncio.run(run())


def test_the_host_screen_lists_a_kineto_gaps_python_frames() -> None:
    """Without samples (Kineto with_stack), the host screen of the gap under the cursor
    lists the launching thread's Python frames by own time, the linear algebra first."""
    import asyncio

    from tests.helpers.pilot import settle
    from tui.apps.trace_app import TraceApp

    async def run() -> None:
        app = TraceApp(sample("loops/loop_host.pt.trace.json.gz"))
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            await pilot.press("b")
            await settle(pilot)
            app.action_host()
            for _ in range(500):
                await pilot.pause()
                text = str(app.screen.query_one("#host-text").render())
                if "working out" not in text:
                    break
                await asyncio.sleep(0.01)
            listed = text.split("own time by Python frame")[1].splitlines()
            assert listed[1].endswith("numpy/linalg/_linalg.py(1666): svd")

    asyncio.run(run())
