"""Distributed figures (tui/analysis/distributed/) against Holistic Trace Analysis 0.5.0's
answers on the same real traces (tests/data/distributed/make_reference.py wrote them):
every figure of every rank of the two-rank DDP run (rank 1 sleeps 10 ms a step)."""

from __future__ import annotations

import json

import duckdb
import pytest

from tests.helpers.paths import DATA, ROOT, sample
from tui.analysis.distributed import idle_categories, trace_figures
from tui.core.units import format_ns
from tui.loading.trace import open_trace

REFERENCE = DATA / "distributed"
DDP = {0: "ddp_rank0.pt.trace.json.gz", 1: "ddp_rank1.pt.trace.json.gz"}


@pytest.fixture(scope="module")
def ddp_figures() -> dict[int, dict]:
    out = {}
    for rank, name in DDP.items():
        with open_trace(sample(name)) as trace:
            out[rank] = trace_figures(trace.con)
    return out


@pytest.fixture(scope="module")
def hta() -> dict[int, dict]:
    data = json.loads((REFERENCE / "ddp_2rank.hta.json").read_text())
    return {int(rank): figures for rank, figures in data["exact"]["ranks"].items()}


def _ns(us: float) -> int:
    return round(us * 1000)


@pytest.mark.parametrize("rank", sorted(DDP))
def test_temporal_breakdown_equals_hta(ddp_figures, hta, rank: int) -> None:
    ours, theirs = ddp_figures[rank]["breakdown"], hta[rank]["breakdown"]
    for key in ("idle", "compute", "non_compute", "kernel"):
        assert ours[f"{key}_ns"] == pytest.approx(_ns(theirs[f"{key}_us"]), abs=2), key
    assert ours["idle_ns"] + ours["compute_ns"] + ours["non_compute_ns"] == ours["kernel_ns"]


@pytest.mark.parametrize("rank", sorted(DDP))
def test_overlap_equals_hta(ddp_figures, hta, rank: int) -> None:
    ours = ddp_figures[rank]
    assert ours["overlap_pct"] == hta[rank]["overlap_pct"]
    comm = ours["communication"]
    assert comm["exposed_ns"] == comm["comm_ns"] - comm["overlap_ns"] > 0
    assert comm["exposed_per_step_ns"] == round(comm["exposed_ns"] / 3)  # steps 3-5 of 3-6


@pytest.mark.parametrize("rank", sorted(DDP))
def test_launch_stats_equal_hta(ddp_figures, hta, rank: int) -> None:
    ours, theirs = ddp_figures[rank]["launch_stats"], hta[rank]["launch_stats"]
    n = theirs["launches"]
    assert ours["launches"] == n == 579
    for key in ("cpu", "gpu", "delay"):  # float sums in HTA: ~1 ns of error a launch
        assert ours[f"{key}_ns_sum"] == pytest.approx(_ns(theirs[f"{key}_us_sum"]), abs=n)
        assert ours[f"{key}_ns_max"] == pytest.approx(_ns(theirs[f"{key}_us_max"]), abs=2)
    assert ours["delay_ns_p50"] == pytest.approx(_ns(theirs["delay_us_median"]), abs=2)
    for key in ("short_kernels", "long_launch_calls", "long_delays"):
        assert ours[key] == theirs[key], key
    assert ours["delay_ns_p50"] <= ours["delay_ns_p90"] <= ours["delay_ns_p99"] \
        <= ours["delay_ns_max"]


@pytest.mark.parametrize("rank", sorted(DDP))
def test_idle_categories_equal_hta(ddp_figures, hta, rank: int) -> None:
    ours = {row["stream"]: row for row in ddp_figures[rank]["idle_breakdown"]}
    theirs = {row["stream"]: row for row in hta[rank]["idle_breakdown"]}
    assert set(ours) == set(theirs) == {7, 17}
    for stream, row in theirs.items():  # HTA rounds these to 0.01 us
        for key in ("host_wait", "kernel_wait", "other"):
            assert ours[stream][f"{key}_ns"] == pytest.approx(_ns(row[f"{key}_us"]), abs=6)
        assert ours[stream]["device"] == rank  # one GPU a rank: cuda:0 and cuda:1


@pytest.mark.parametrize("rank", sorted(DDP))
def test_queue_length_equals_hta(ddp_figures, hta, rank: int) -> None:
    ours = {row["stream"]: row for row in ddp_figures[rank]["queue_length"]}
    theirs = {row["stream"]: row for row in hta[rank]["queue_length"]}
    assert set(ours) == set(theirs) == {7}  # NCCL's stream: launched by cuLaunchKernelEx
    for stream, row in theirs.items():
        assert ours[stream]["changes"] == row["count"]
        assert ours[stream]["max"] == row["max"]
        assert ours[stream]["median"] == row["median"]
        assert ours[stream]["mean"] == pytest.approx(row["mean"], abs=0.001)
        assert 0 < ours[stream]["time_mean"] <= ours[stream]["max"]


def test_window_leaves_the_last_profiler_step_out(ddp_figures) -> None:
    for figures in ddp_figures.values():
        assert figures["window"]["steps"] == 3 and figures["window"]["last_step_left_out"]
        assert "per_device" not in figures  # one GPU a rank


def test_idle_categories_kernel_wait_threshold_moves_gaps() -> None:
    with open_trace(sample(DDP[0])) as trace:
        default = {(c.device, c.stream): c for c in idle_categories(trace.con)}
        none = {(c.device, c.stream): c for c in idle_categories(trace.con, kernel_wait_ns=0)}
    for key, c in default.items():
        assert none[key].kernel_wait_ns == 0
        assert none[key].idle_ns == c.idle_ns  # the same gaps, in other categories
        assert none[key].other_ns == c.other_ns + c.kernel_wait_ns


def test_single_trace_summary_has_one_rank_with_the_figures(capsys, ddp_figures) -> None:
    from tui.cli.main import main

    assert main(["--summary", "--json", str(sample(DDP[1]))]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [r["rank"] for r in summary["ranks"]] == [1]  # distributedInfo's rank
    rank = summary["ranks"][0]
    assert rank["breakdown"] == ddp_figures[1]["breakdown"]
    assert rank["overlap_pct"] == 73.93
    assert {"launches", "cpu_ns_sum", "cpu_ns_max", "gpu_ns_sum", "gpu_ns_max",
            "delay_ns_sum", "delay_ns_max"} <= set(rank["launch_stats"])
    assert {(c["device"], c["stream"]) for c in rank["idle_breakdown"]} == {(1, 7), (1, 17)}
    assert main(["--summary", str(sample(DDP[1]))]) == 0
    text = capsys.readouterr().out
    assert "Time breakdown, HTA's definitions (launched in the first 3 profiler steps" in text
    assert "73.9%" in text and "124 µs/step" in text
    assert "Idle time per stream (HTA's categories)" in text
    assert "Beside them, tui's GPU-idle gaps" in text and "host-wait" in text


@pytest.fixture(scope="module")
def ddp_run():
    from tui.runs.run import open_run

    with open_run([sample(name) for name in DDP.values()]) as run:
        yield run


@pytest.fixture(scope="module")
def ddp_rows(ddp_run) -> dict[int, dict]:
    """The real two-rank run's rank rows: rank 0 waits for rank 1, the slow one."""
    from tui.analysis.ranks import rank_rows

    return {row["rank"]: row for row in rank_rows(ddp_run.con)}


def _copies(ddp_rows: dict[int, dict], slow: set[int], count: int) -> list[dict]:
    """`count` ranks, each a copy of the real fast rank's row, or the slow one's (a generator
    of a bigger run from the real two, for the group's rule: no new trace)."""
    return [{**ddp_rows[1 if i in slow else 0], "rank": i} for i in range(count)]


def test_every_fourth_rank_slow_names_the_group(ddp_rows) -> None:
    from tui.analysis.distributed.stragglers import shared_traits, straggler_group
    from tui.analysis.ranks import balance

    slow = set(range(3, 64, 4))
    rows = _copies(ddp_rows, slow, 64)
    verdict = balance(rows)
    assert verdict["straggler"] == 3  # the one ranks.py names: the first of equals
    group = straggler_group(rows, verdict)
    assert group == sorted(slow)
    hosts = {i: f"node{i // 4}" for i in range(64)}  # four GPUs a host: one slow on each
    devices = {i: [i % 4] for i in range(64)}
    assert shared_traits(group, list(range(64)), hosts, devices) == [
        "GPU 3 of each host", "rank % 4 == 3"]


def test_a_slow_node_is_named_by_its_host(ddp_rows) -> None:
    from tui.analysis.distributed.stragglers import shared_traits, straggler_group
    from tui.analysis.ranks import balance

    slow = {8, 9, 10, 11}
    rows = _copies(ddp_rows, slow, 16)
    group = straggler_group(rows, balance(rows))
    assert group == [8, 9, 10, 11]
    hosts = {i: f"node{i // 4}" for i in range(16)}
    devices = {i: [i % 4] for i in range(16)}
    assert shared_traits(group, list(range(16)), hosts, devices) == ["host node2"]


def test_one_straggler_is_a_group_of_one(ddp_rows) -> None:
    from tui.analysis.distributed.stragglers import straggler_group
    from tui.analysis.ranks import balance

    rows = _copies(ddp_rows, {5}, 8)
    assert straggler_group(rows, balance(rows)) == [5]
    two = [ddp_rows[0], ddp_rows[1]]
    assert straggler_group(two, balance(two)) == [1]


def test_rank_host_from_metadata_or_the_handler_file_name() -> None:
    from tui.analysis.distributed.stragglers import rank_host

    assert rank_host({"distributedInfo": '{"rank": 3, "hostname": "node7"}'}, "x.json") \
        == "node7"
    assert rank_host({}, "node7.cluster_4242.1732256000123.pt.trace.json.gz") \
        == "node7.cluster"
    assert rank_host({"distributedInfo": '{"rank": 3}'}, "ddp_rank3.pt.trace.json") is None


def test_the_group_finding_names_every_straggler(ddp_run, ddp_rows) -> None:
    from tui.analysis.distributed.stragglers import straggler_group
    from tui.analysis.rank_findings import rank_findings
    from tui.analysis.ranks import balance

    rows = _copies(ddp_rows, set(range(3, 64, 4)), 64)
    verdict = balance(rows)
    analysis = {"ranks": rows, "balance": verdict, "straggler": verdict["straggler"],
                "straggler_group": {"ranks": straggler_group(rows, verdict), "hosts": [],
                                    "shared": ["rank % 4 == 3"]}}
    text = rank_findings(ddp_run.con, analysis, {})[0].text
    wait = ddp_rows[0]["wait_per_step_ns"] / 1e6
    assert text.startswith("Ranks 3, 7, 11, 15, 19, …, 63 (16 of 64) are the stragglers: "
                           "they arrive last at the NCCL collectives, each waiting at most "
                           "0 ns per step, while the other 48 ranks wait "
                           f"{wait:.1f} ms per step on average for them; they share "
                           "rank % 4 == 3. Rank 3 holds the others up most")
    assert "the other 63 ranks" not in text


def test_run_summary_json_has_the_group_and_every_rank_figure(capsys, hta) -> None:
    from tui.cli.main import main

    assert main(["--summary", "--json", *(str(sample(n)) for n in DDP.values())]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["straggler"] == 1 and summary["stragglers"] == [1]
    assert summary["straggler_group"] == {"ranks": [1], "hosts": [None], "shared": []}
    for row in summary["ranks"]:
        assert row["overlap_pct"] == hta[row["rank"]]["overlap_pct"]
        assert row["launch_stats"]["launches"] == hta[row["rank"]]["launch_stats"]["launches"]
    # the findings state the figures as they are
    ranks = {r["rank"]: r for r in summary["ranks"]}
    found = {f["rule"]: f for f in summary["findings"]}
    comm = ranks[0]["communication"]
    assert found["exposed_communication"]["text"].startswith(
        f"Rank 0: communication {100 * comm['exposed_ns'] / comm['comm_ns']:.0f}% exposed: "
        f"{format_ns(comm['exposed_per_step_ns'])} a step not hidden behind compute "
        f"({format_ns(comm['comm_ns'])} of communication kernels, 50.8% of it overlapped")
    assert found["exposed_communication"]["cost_ns"] == comm["exposed_ns"]
    stats = ranks[0]["launch_stats"]
    assert found["deep_launch_queue"]["text"].startswith(
        f"Rank 0: launches wait {format_ns(stats['delay_ns_sum'] / stats['launches'])} on "
        "average before their work starts (p90 10.1 ms, max 13.5 ms, 579 launches): the GPU "
        "queue is deep, up to 99 launches outstanding on stream 7; the host runs ahead, and "
        "the stream is held by NCCL kernels waiting")
    assert found["idle_by_category"]["text"].startswith(
        "Rank 1: the GPU idles 22.8 ms, 46% of its 49.5 ms of kernel time (HTA's name for "
        "the span from its first GPU work to its last); per stream, 87% "
        "of the gaps between its work is host wait")
    idle = ranks[1]["idle_breakdown"]
    host = sum(c["host_wait_ns"] for c in idle)
    assert round(100 * host / sum(c["host_wait_ns"] + c["kernel_wait_ns"] + c["other_ns"]
                                  for c in idle)) == 87


def test_no_deep_queue_finding_where_the_gpu_idles(capsys) -> None:
    """gappy_then_tuned: launches wait 1.7 ms on average, in bursts after the host's long
    pauses, while the GPU idles 97% of the time: not a deep queue."""
    from tui.cli.main import main

    assert main(["--summary", "--json", str(sample("gappy_then_tuned.sqlite"))]) == 0
    summary = json.loads(capsys.readouterr().out)
    rank = summary["ranks"][0]
    assert rank["launch_stats"]["delay_ns_sum"] / rank["launch_stats"]["launches"] > 1e6
    assert rank["breakdown"]["idle_ns"] > 0.9 * rank["breakdown"]["kernel_ns"]
    rules = {f["rule"] for f in summary["findings"]}
    assert not rules & {"deep_launch_queue", "idle_by_category", "exposed_communication"}


@pytest.fixture(scope="module")
def ddp_paths() -> dict[int, tuple[list, list]]:
    """Each rank's critical paths, following other streams (ours) and not (HTA's walk)."""
    from tui.analysis.distributed import critical_paths

    out = {}
    for rank, name in DDP.items():
        with open_trace(sample(name)) as trace:
            out[rank] = (critical_paths(trace.con),
                         critical_paths(trace.con, False, peers=False))
    return out


@pytest.mark.parametrize("rank", sorted(DDP))
def test_critical_path_tiles_each_step_with_real_work(ddp_paths, rank: int) -> None:
    """The segments tile the step, and each GPU segment is a real activity of the trace
    (read from the JSON here, independently of the loader)."""
    from tests.helpers import oracle

    gpu = {}
    for e in oracle.chrome_events(sample(DDP[rank])):
        if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
            start = oracle.ns(e["ts"])
            gpu.setdefault(e["args"]["stream"], []).append((start, start + oracle.ns(e["dur"])))
    for path in ddp_paths[rank][0]:
        assert [p.step for p in ddp_paths[rank][0]] == [
            "ProfilerStep#3", "ProfilerStep#4", "ProfilerStep#5"]
        t = path.start_ns
        for seg in path.segments:
            assert seg.start_ns == t and seg.end_ns > seg.start_ns
            t = seg.end_ns
            if seg.kind in ("kernel", "communication"):
                assert any(s <= seg.start_ns and seg.end_ns <= e for s, e in gpu[seg.stream])
        assert t == path.end_ns
        assert sum(path.by_kind().values()) == path.length_ns


@pytest.mark.parametrize("rank", sorted(DDP))
def test_critical_path_kernels_equal_hta_s(ddp_paths, rank: int) -> None:
    """HTA 0.5.0's critical path of each step, in traces without CUDA sync events, stays on
    the compute stream: its compute kernels on the path are ours when we do not follow a
    wait to another stream, to the nanosecond."""
    data = json.loads((REFERENCE / "ddp_2rank.hta.json").read_text())
    theirs = data["exact"]["ranks"][str(rank)]["critical_path"]
    ours = ddp_paths[rank][1]
    assert len(ours) == len(theirs) == 3
    for path, hta_path in zip(ours, theirs, strict=True):
        compute = hta_path["by_bound"]["gpu_compute_bound"]
        assert path.by_kind()["kernel"] == pytest.approx(_ns(compute), abs=2)


def test_critical_path_names_the_bound_of_each_rank(ddp_paths) -> None:
    """Rank 0 waits for rank 1 in the all-reduce: collectives bound its steps; rank 1's
    slow data loader (a 10 ms sleep) is on its path, less the part that overlaps what the
    GPU still ran of the step before (up to 2.6 ms), and no collective is."""
    for path in ddp_paths[0][0]:
        kinds = path.by_kind()
        assert kinds["communication"] > 0.4 * path.length_ns
        assert kinds["communication"] == max(v for k, v in kinds.items() if k != "cpu")
    for path in ddp_paths[1][0]:
        kinds = path.by_kind()
        assert kinds["cpu"] > 0.4 * path.length_ns and kinds["communication"] == 0


@pytest.mark.slow
def test_p_shows_the_critical_path_and_queue_lanes() -> None:
    """p on the timeline: a lane with each step's critical path (its segments named by
    kind) at the top, and each stream's queue length at the bottom."""
    import asyncio

    from tests.helpers.pilot import lane_text, settle
    from tui.apps.trace_app import TraceApp

    async def run() -> None:
        app = TraceApp(sample(DDP[0]))
        async with app.run_test(size=(120, 40)) as pilot:
            timeline = await settle(pilot)
            labels = [lane.label for lane in timeline.lanes]
            assert "crit. path" not in labels and "q GPU0 s7" not in labels
            await pilot.press("p")
            timeline = await settle(pilot)
            labels = [lane.label for lane in timeline.lanes]
            assert labels[0] == "crit. path" and labels[-1] == "q GPU0 s7"
            assert lane_text(timeline, 0).startswith("crit. path")
            cells = timeline.frame.cells(timeline.lanes[0].key)
            names = {c.top_name for c in cells if c is not None}
            assert {"CPU", "communication"} <= names  # rank 0 waits in the all-reduce
            queue = timeline.frame.cells(timeline.lanes[-1].key)
            deepest = max(int(c.top_name.split()[1]) for c in queue if c is not None)
            assert deepest == 99  # the stream's deepest queue, as HTA's max
            await pilot.press("p")
            timeline = await settle(pilot)
            assert "crit. path" not in [lane.label for lane in timeline.lanes]

    asyncio.run(run())


def test_the_commands_docs_distributed_shows_run(capsys, monkeypatch) -> None:
    import shlex

    from tui.cli.main import main

    monkeypatch.chdir(ROOT)
    page = (ROOT / "docs" / "distributed.md").read_text()
    block = page.split("```\n", 2)[1]
    commands = [line for line in block.splitlines() if line.startswith("tui ")]
    assert len(commands) == 2
    for command in commands:
        assert main(shlex.split(command)[1:]) == 0
        out = capsys.readouterr().out
        expected = '"overlap_pct"' if "--json" in command else "HTA's definitions"
        assert expected in out


def test_the_ranks_app_header_names_the_group(ddp_run) -> None:
    from tui.apps.run_app import header_text
    from tui.runs.summary import run_summary

    summary = run_summary(ddp_run, 1_000_000, "run")
    assert "stragglers:" not in header_text(summary).plain  # one straggler: named alone
    summary["source"]["ranks"] = 12  # as if the run had twelve, three of them slow
    summary["straggler_group"] = {"ranks": [1, 5, 9], "hosts": ["n1", "n1", "n1"],
                                  "shared": ["host n1"]}
    line = header_text(summary).plain.splitlines()[2]  # after the run and the caches
    assert line.startswith("stragglers: ranks 1, 5, 9 (3 of 12); they share host n1 — rank 1 "
                           "— holds the others up")


@pytest.mark.slow
def test_a_run_reads_each_rank_s_figures_back_from_beside_its_cache(tmp_path,
                                                                     monkeypatch) -> None:
    """Once worked out (cold, in the worker that loaded the rank), a rank's figures are
    kept beside its cache file; the next open of the run reads them back, and works them
    out again where the file is stale (here: damaged)."""
    from tui.analysis.distributed import memo
    from tui.runs.run import open_run

    monkeypatch.setenv("TUI_CACHE_DIR", str(tmp_path))
    paths = [sample(name) for name in DDP.values()]
    with open_run(paths, min_gap_ns=1_000_000, workers=1) as run:
        first = {r: s.summary["distributed"] for r, s in zip(run.ranks, run.stores,
                                                              strict=True)}
        kept = [memo.figures_file(s.db_path) for s in run.stores]
    assert all(path.is_file() for path in kept)
    calls = []
    worked_out = memo.trace_figures
    monkeypatch.setattr(memo, "trace_figures", lambda con: calls.append(1) or worked_out(con))
    kept[1].write_text("{not json")
    for summary in tmp_path.glob("*.rank-*.json"):  # each rank summed up again, not read
        summary.unlink()  # back whole (tui.analysis.rank_memo)
    with open_run(paths, min_gap_ns=1_000_000, workers=1) as run:
        again = {r: s.summary["distributed"] for r, s in zip(run.ranks, run.stores,
                                                              strict=True)}
    assert calls == [1]  # rank 0's read back, rank 1's worked out again
    assert json.loads(json.dumps(again)) == json.loads(json.dumps(first))
    assert first[1]["overlap_pct"] == 73.93


@pytest.mark.slow
def test_a_run_of_converted_stores_reads_the_figures_convert_kept(tmp_path, monkeypatch) -> None:
    """`tui convert` keeps each rank's figures in its store: a run over the stores reads
    them back (the same as worked out from the traces), and works them out again for a
    store whose tables changed since (here: its trace_meta rewritten)."""
    from tui.analysis.distributed import memo
    from tui.cli.main import main
    from tui.runs.run import open_run

    monkeypatch.setenv("TUI_CACHE_DIR", str(tmp_path / "cache"))
    paths = [sample(name) for name in DDP.values()]
    with open_run(paths, min_gap_ns=1_000_000, workers=1) as run:
        from_traces = {r: s.summary["distributed"] for r, s in zip(run.ranks, run.stores,
                                                                   strict=True)}
    out = tmp_path / "stores"
    assert main(["convert", "--no-cache", "--workers", "1", "--out", str(out),
                 *map(str, paths)]) == 0
    stores = sorted(out.iterdir())
    assert all(memo.store_figures_file(store).is_file() for store in stores)
    calls = []
    worked_out = memo.trace_figures
    monkeypatch.setattr(memo, "trace_figures", lambda con: calls.append(1) or worked_out(con))
    with open_run(stores, min_gap_ns=1_000_000, workers=1) as run:
        from_stores = {r: s.summary["distributed"] for r, s in zip(run.ranks, run.stores,
                                                                   strict=True)}
    assert calls == []
    assert json.loads(json.dumps(from_stores)) == json.loads(json.dumps(from_traces))
    meta = stores[0] / "trace_meta.parquet"  # rewritten with a row more: a changed store
    rows = duckdb.execute(f"SELECT * FROM read_parquet('{meta}')").fetchall()
    duckdb.execute(f"COPY (SELECT * FROM (VALUES {', '.join(['(?, ?)'] * (len(rows) + 1))}) "
                   f"AS t(key, value)) TO '{meta}' (FORMAT parquet)",
                   [v for row in [*rows, ("note", "rewritten")] for v in row])
    with open_run(stores, min_gap_ns=1_000_000, workers=1):
        pass
    assert calls == [1]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ddp_rank0.pt.trace.json.gz", "ddp4_nsys.sqlite"])
def test_the_work_read_in_parts_gives_the_same_figures(monkeypatch, name: str) -> None:
    """dist_work is filled a part of the GPU ids at a time (a big trace's join within the
    summary's memory): five parts give every figure one part gives, for one process's
    trace (Kineto: in one part, dist_work_whole.sql's one statement, not the table
    macros) and for four processes' (nsys: each device's owner counted by parts)."""
    from tui.analysis.distributed import window

    def figures() -> dict:
        with open_trace(sample(name)) as trace:
            return trace_figures(trace.con)

    def five_parts(span: int) -> list[tuple[int, int]]:
        size = span // 5 + 1
        return [(since, since + size) for since in range(0, span, size)]

    whole = figures()
    monkeypatch.setattr(window, "_id_parts", five_parts)
    parted = figures()
    assert whole["launch_stats"] and whole["queue_length"]
    assert parted == whole
    # a Kineto trace's calls come from its launches table where it has one, else (a
    # rank's store written before launches were kept) by correlation id: the same figures
    with open_trace(sample(name)) as trace:
        assert window.has_launches(trace.con)
    monkeypatch.setattr(window, "has_launches", lambda con: False)
    assert figures() == whole


@pytest.mark.parametrize("name", ["ddp_rank0.pt.trace.json.gz", "ddp4_nsys.sqlite",
                                  "pp_1f1b_nsys.sqlite"])
def test_the_launch_stats_held_or_counted_are_the_same(monkeypatch, name: str) -> None:
    """A small trace's launch statistics hold every delay (dist_launch_stats.sql, $held), a
    big one's count the distinct delays (dist_launch_delay_quantiles.sql): the same figures, per
    device and over the trace, quantiles and all, on one process's trace (Kineto) and on
    several processes' (nsys: DDP, and a pipeline whose stages launch unlike work)."""
    from tui.analysis.distributed import figures as figures_module
    from tui.analysis.distributed.window import prepare

    with open_trace(sample(name)) as trace:
        window = prepare(trace.con, fresh=True, remember=False)
        assert window.work_rows == trace.con.execute(
            "SELECT count(*) FROM dist_work").fetchone()[0] > 0
        held = trace_figures(trace.con)
        monkeypatch.setattr(figures_module, "HELD_DELAYS_MAX", 0)
        counted = trace_figures(trace.con)
    whole = held["launch_stats"]
    assert whole["launches"] > 0 and whole["delay_ns_p50"] is not None
    assert whole["delay_ns_p50"] <= whole["delay_ns_p90"] <= whole["delay_ns_p99"]
    assert held == counted
