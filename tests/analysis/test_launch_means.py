"""How a trace's kernels were made and launched (tui/analysis/launch_means.py): torch.compile's
Inductor kernels counted, and the GPU time CUDA graphs' replays ran, each against the
source read on its own (sqlite3 over the nsys export, the Kineto JSON); and the launch-bound
advice that follows (tui/analysis/remedies.py: LAUNCH_REMEDY)."""

from __future__ import annotations

import gzip
import json
import re
import sqlite3
from dataclasses import replace
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

from tests.helpers.paths import inflated, sample
from tui.analysis.diagnosis import DeviceTime, decide, diagnose
from tui.analysis.findings import _FUSE_ADVICE_BY_HOW, _graph_replayed
from tui.analysis.idle_causes import CAUSES, IdleByCause
from tui.analysis.launch_means import GraphReplays, graph_replays, launch_figures, launched_as
from tui.analysis.remedies import GRAPHS, INDUCTOR, LAUNCH_REMEDY, REMEDY, REMEDY_XLA, remedy
from tui.analysis.summary import trace_summary
from tui.loading.trace import open_trace

INDUCTOR_NAME = re.compile(r"^triton_(poi|per|red|tem|for)_")


def nsys_means(path: Path) -> tuple[int, int, int, int]:
    """(kernels, their ns, Inductor's kernels, ns of graphs' replays) as the export holds
    them: kernels (and graphs traced whole) by the runtime call their correlation id names."""
    db = sqlite3.connect(path)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    rows = [(name, end - start, None) for name, start, end in db.execute(
        "SELECT n.value, k.start, k.end FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
        "JOIN StringIds AS n ON n.id = k.demangledName")]
    graphs = ("SELECT g.end - g.start FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE AS g"
              if "CUPTI_ACTIVITY_KIND_GRAPH_TRACE" in tables else "SELECT 0 WHERE false")
    rows += [("CUDA graph", ns, None) for ns, in db.execute(graphs)]
    (replayed,), = db.execute(
        "SELECT coalesce(sum(k.end - k.start), 0) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
        "JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r USING (correlationId) "
        "JOIN StringIds AS n ON n.id = r.nameId WHERE n.value LIKE 'cu%GraphLaunch%'")
    whole = sum(ns for name, ns, _ in rows if name == "CUDA graph")
    return (len(rows), sum(ns for _, ns, _ in rows),
            sum(1 for name, _, _ in rows if INDUCTOR_NAME.match(name)), replayed + whole)


def means(path: Path) -> tuple:
    with open_trace(path) as trace:
        return launch_figures(trace.con), launched_as(trace.con)


@pytest.mark.parametrize("name, expected", [
    # a torch.compile'd GPT-2 trained: a third of its launches Inductor's, no graphs
    ("compiled_lm/compiled_lm_lean.sqlite", INDUCTOR),
    # an MLP's forward captured as a CUDA graph and replayed: traced whole, and by node
    ("cuda_graph/cuda_graph_graph.sqlite", GRAPHS),
    ("cuda_graph/cuda_graph_node.sqlite", GRAPHS),
])
def test_an_nsys_reports_kernels_are_counted_as_the_export_holds_them(name: str,
                                                                    expected: str) -> None:
    path = inflated(name)
    figures, how = means(path)
    assert figures == nsys_means(path)
    assert how == expected


def kineto_means(path: Path) -> tuple[int, int, int, int]:
    """nsys_means from the JSON: kernels by the runtime call their correlation id names."""
    with gzip.open(path) as f:
        events = json.load(f, parse_float=Decimal)["traceEvents"]
    kernels = [e for e in events if e.get("cat") == "kernel" and e.get("ph") == "X"]
    graph_calls = {e["args"]["correlation"] for e in events
                   if e.get("cat") == "cuda_runtime" and "GraphLaunch" in e.get("name", "")}

    def ns(e: dict) -> int:
        return int((e["dur"] * 1000).quantize(Decimal(1), ROUND_HALF_UP))

    return (len(kernels), sum(ns(e) for e in kernels),
            sum(1 for e in kernels if INDUCTOR_NAME.match(e["name"])),
            sum(ns(e) for e in kernels if e["args"].get("correlation") in graph_calls))


@pytest.mark.parametrize("name, expected", [
    # compiled_lm under torch.profiler: a torch.compile'd GPT-2's Triton kernels
    ("compiled_lm/compiled_lm.pt.trace.json.gz", INDUCTOR),
    # a model's step replayed as a CUDA graph: its kernels linked to cudaGraphLaunch
    ("cuda_graphs.pt.trace.json.gz", GRAPHS),
])
def test_a_kineto_traces_kernels_are_counted_as_the_json_holds_them(name: str,
                                                                   expected: str) -> None:
    path = sample(name)
    figures, how = means(path)
    assert figures == kineto_means(path) and figures[0] > 1000
    assert how == expected


def test_eager_kernels_are_neither() -> None:
    figures, how = means(sample("launch_bound_inference.pt.trace.json.gz"))
    assert figures[0] > 9000 and figures[2] == figures[3] == 0 and how is None


def launch_bound(launched: str | None) -> DeviceTime:
    """The figures of a launch-bound GPU: idle 70% of its span between back-to-back launches."""
    idle = IdleByCause(0, 700, dict.fromkeys(CAUSES, 0) | {"launch": 700})
    return DeviceTime(0, 1000, 300, 300, 0, 0, 5000, 1500.0, 0, 0, 0, idle,
                      launched_as=launched)


@pytest.mark.parametrize("launched", [None, INDUCTOR, GRAPHS])
def test_the_launch_bound_advice_follows_what_the_work_does_already(launched) -> None:
    t = launch_bound(launched)
    assert decide(t) == "launch"
    text = diagnose([t], "nsys").text
    advice = LAUNCH_REMEDY[launched] if launched else REMEDY["launch"]
    assert text.endswith(f"; {advice}.")
    # XLA's words stand for an XLA program, and a bound other than launch keeps its own
    assert diagnose([t], "xla").text.endswith(f"; {REMEDY_XLA['launch']}.")
    assert remedy("sync", None, "nsys", launched) == REMEDY["sync"]


def test_the_json_carries_how_and_a_rank_decided_again_keeps_it() -> None:
    t = launch_bound(INDUCTOR)
    again = DeviceTime.from_json(diagnose([t], "nsys").to_json())
    assert again.launched_as == INDUCTOR
    assert diagnose([again], "nsys").text.endswith(f"; {LAUNCH_REMEDY[INDUCTOR]}.")


def test_kernels_replayed_by_graphs_are_left_out_of_the_launches() -> None:
    """The launch_overhead finding counts the kernels a host call launched on its own:
    those a CUDA graph's replay ran (by node: each of its kernels; whole: the graph) are
    counted apart, as the export links them to their cudaGraphLaunch. On `decode` (graphs
    traced whole) that leaves every kernel row of the export, the graphs said beside."""
    node = inflated("cuda_graph/cuda_graph_node.sqlite")
    db = sqlite3.connect(node)
    expected = dict(db.execute(
        "SELECT n.value, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
        "JOIN StringIds AS n ON n.id = k.demangledName "
        "JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r USING (correlationId) "
        "JOIN StringIds AS c ON c.id = r.nameId "
        "WHERE c.value LIKE 'cu%GraphLaunch%' GROUP BY 1").fetchall())
    with open_trace(node) as trace:
        assert _graph_replayed(trace.con) == expected and sum(expected.values()) == 3200
    path = inflated("unannotated/decode.sqlite")
    db = sqlite3.connect(path)
    (kernels,), = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchall()
    (graphs,), = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE").fetchall()
    with open_trace(path) as trace:
        found = trace_summary(trace, 1_000_000)["findings"]
    overhead = next(f for f in found if f["rule"] == "launch_overhead")
    assert f" of the {kernels:,} kernel launches (besides {graphs:,} run by CUDA graphs' " \
           "replays) are kernels" in overhead["text"]
    assert overhead["text"].endswith(f"; {_FUSE_ADVICE_BY_HOW[GRAPHS]}.")


def nsys_replays(path: Path) -> dict[int, GraphReplays]:
    """Per device, the kernels and copies (by node) or graphs (whole) whose correlation id
    names a cu*GraphLaunch* call, and those calls, as the export holds them."""
    db = sqlite3.connect(path)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    kinds = [("CUPTI_ACTIVITY_KIND_KERNEL", 1), ("CUPTI_ACTIVITY_KIND_MEMCPY", 0),
             ("CUPTI_ACTIVITY_KIND_GRAPH_TRACE", 1)]  # a graph traced whole is a kernel
    rows = [row for table, kernel in kinds if table in tables for row in db.execute(
        f"SELECT a.deviceId, {kernel}, a.correlationId FROM {table} AS a "
        "JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r USING (correlationId) "
        "JOIN StringIds AS n ON n.id = r.nameId WHERE n.value LIKE 'cu%GraphLaunch%'")]
    return {device: GraphReplays(sum(k for d, k, _ in rows if d == device),
                                 sum(1 for d, _, _ in rows if d == device),
                                 len({c for d, _, c in rows if d == device}))
            for device in sorted({d for d, _, _ in rows})}


@pytest.mark.parametrize("name, kernels, launches", [
    # the MLP's graph of 16 kernels replayed 200 times: by node each kernel a row, whole
    # each replay one
    ("cuda_graph/cuda_graph_node.sqlite", 3200, 200),
    ("cuda_graph/cuda_graph_graph.sqlite", 200, 200),
    # an eager program launches no graph
    ("compiled_lm/compiled_lm_lean.sqlite", 0, 0),
])
def test_what_graphs_replays_ran_is_counted_as_the_export_holds_it(
        name: str, kernels: int, launches: int) -> None:
    path = inflated(name)
    with open_trace(path) as trace:
        found = graph_replays(trace.con)
    assert found == nsys_replays(path)
    assert sum(r.kernels for r in found.values()) == kernels
    assert sum(r.launches for r in found.values()) == launches


def test_a_kineto_traces_graph_replays_are_its_kernels_linked_to_the_graph_launch() -> None:
    path = sample("cuda_graphs.pt.trace.json.gz")
    with gzip.open(path) as f:
        events = json.load(f)["traceEvents"]
    graph_calls = {e["args"]["correlation"] for e in events
                   if e.get("cat") == "cuda_runtime" and "GraphLaunch" in e.get("name", "")}
    replayed = [e for e in events if e.get("cat") in ("kernel", "gpu_memcpy")
                and e.get("ph") == "X" and e["args"].get("correlation") in graph_calls]
    kernels = sum(1 for e in replayed if e["cat"] == "kernel")
    with open_trace(path) as trace:
        found = graph_replays(trace.con)
    assert list(found.values()) == [GraphReplays(
        kernels, len(replayed), len({e["args"]["correlation"] for e in replayed}))]
    assert kernels >= 1000


def test_the_issue_rate_counts_a_graphs_replay_once() -> None:
    """Kernels of graphs traced by node are activities of their own, launched by no call
    of their own: the host's issue rate counts the replay's one launch. 5,000 kernels in
    a second, 3,000 of them run by 30 replays: 2,030 launches, 2k/s."""
    second = 10**9
    idle = IdleByCause(0, 7 * second // 10, dict.fromkeys(CAUSES, 0) | {"launch": 7 * second // 10})
    plain = replace(launch_bound(GRAPHS), span_ns=second, busy_ns=3 * second // 10,
                    compute_ns=3 * second // 10, idle=idle)
    assert "launches of 5,000 kernels of 1.5 µs median (issue rate 5k/s on the host)" \
        in diagnose([plain], "nsys").text
    t = replace(plain, graph_kernels=3000, host_launches=2030)
    text = diagnose([t], "nsys").text
    assert ("launches of 5,000 kernels of 1.5 µs median (3,000 of them run by CUDA graphs' "
            "replays; issue rate 2k/s on the host)") in text
    again = DeviceTime.from_json(diagnose([t], "nsys").to_json())
    assert (again.graph_kernels, again.host_launches) == (3000, 2030)
    assert diagnose([again], "nsys").text == text
