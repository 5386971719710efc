"""Multi-rank runs: the real two-rank NCCL DDP traces (rank 1 sleeps 10 ms a step, so
rank 0 waits in all-reduce), checked against plain-Python oracles over the JSON."""

from __future__ import annotations

import json
import shutil
import sqlite3
import statistics
from pathlib import Path

import pytest

from tests.helpers import oracle
from tests.helpers.caches import copy_cache_files
from tests.helpers.paths import SAMPLES, sample
from tui.analysis.ranks import collective_instances, rank_analysis, rank_rows
from tui.analysis.tensor_cores import cores_of
from tui.cli.main import main
from tui.runs.run import open_run

DDP = ("ddp_rank0.pt.trace.json.gz", "ddp_rank1.pt.trace.json.gz")


def _ddp() -> list[Path]:
    return [sample(name) for name in DDP]


def _events_by_rank() -> dict[int, list[dict]]:
    out = {}
    for path in _ddp():
        data = json.loads(oracle.gzip.open(path).read())
        out[data["distributedInfo"]["rank"]] = oracle.chrome_events(path)
    return out


def _nccl_kernels(events: list[dict]) -> list[tuple[int, int]]:
    """(start_ns, duration_ns) of each NCCL kernel, by start."""
    return sorted((oracle.ns(e["ts"]), oracle.ns(e["dur"])) for e in events
                  if e.get("cat") == "kernel" and "nccl" in e["name"].lower())


def _summary_json(capsys: pytest.CaptureFixture, *args: str) -> dict:
    assert main(["--summary", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_ddp_straggler_is_rank_1_and_rank_0_waits_in_all_reduce(capsys) -> None:
    summary = _summary_json(capsys, *map(str, _ddp()))
    assert summary["straggler"] == 1
    ranks = {r["rank"]: r for r in summary["ranks"]}
    assert set(ranks) == {0, 1}
    for row in ranks.values():  # the contract's keys and types
        assert isinstance(row["rank"], int) and isinstance(row["busy_pct"], float)
        assert all(isinstance(row[k], int) for k in ("comm_ns", "compute_ns", "wait_ns"))
    assert ranks[0]["wait_ns"] > 50_000_000 and ranks[1]["wait_ns"] == 0
    assert "AllReduce" in ranks[0]["waits_in"]
    assert ranks[1]["caused_ns"] == ranks[0]["wait_ns"]
    straggler = summary["findings"][0]
    assert straggler["rule"] == "straggler" and straggler["severity"] == "warning"
    assert straggler["text"].startswith("Rank 1 is the straggler: it holds the others up in "
                                        "NCCL kernels by 14.8 ms per step, 74.9% of the "
                                        "19.7 ms median GPU step (a straggler is named "
                                        "from 5%, 985 µs): rank 0 waits 14.8 ms per step "
                                        "for it, it waits 0 ns for rank 0.")
    # its rows: every rank-0 NCCL kernel that waited for rank 1, summing to the cost
    assert straggler["cost_ns"] == ranks[1]["caused_ns"]
    assert len(straggler["rows"]) == 18
    assert sum(r["wait_ns"] for r in straggler["rows"]) == straggler["cost_ns"]
    assert {(r["rank"], r["device"], r["waited_for"]) for r in straggler["rows"]} == {(0, 0, 1)}
    verdict = summary["balance"]
    assert verdict["measure"] == "per step" and verdict["threshold_pct"] == 5.0
    assert verdict["reference_ns"] == ranks[0]["step_gpu_ns"]  # the slowest rank's GPU step
    assert verdict["net_hold_ns"] == ranks[1]["caused_per_step_ns"] >= verdict["threshold_ns"]
    assert [f["rule"] for f in summary["findings"]] == [
        "straggler", "straggler_idle", "collective_wait", "comm_share", "step_times",
        "exposed_communication", "deep_launch_queue", "idle_by_category", "parallelism"]
    # the usual summary keys, over both ranks
    assert {"source", "devices", "kernels", "gaps", "findings", "warnings"} <= set(summary)
    assert summary["source"]["ranks"] == 2 and summary["source"]["world_size"] == "2"
    assert sum(k["count"] for k in summary["kernels"]) == 723 + 707
    assert {d["rank"] for d in summary["devices"]} == {0, 1}
    # what bounds each rank (docs/diagnosis.md): rank 0's NCCL kernels wait for rank 1 over
    # half its span (61.7 of 89.3 ms), rank 1, the straggler, sleeps on the host; the run
    # is bound by what bounds its straggler
    diagnoses = {rank: row["diagnosis"] for rank, row in ranks.items()}
    assert [diagnoses[rank]["bound"] for rank in (0, 1)] == ["communication", "host"]
    assert diagnoses[0]["figures"]["comm_wait_ns"] == ranks[0]["wait_ns"]
    assert ranks[0]["wait_ns"] >= 0.5 * diagnoses[0]["figures"]["span_ns"]
    assert all(sum(d["idle_by_cause"].values()) == d["idle_ns"] for d in diagnoses.values())
    assert summary["diagnosis"]["bound"] == "host"
    assert summary["diagnosis"]["text"].startswith(
        "The run waits for its straggler, rank 1: the other ranks' NCCL kernels waited "
        "61.7 ms for it. Host-bound in 4 profiler steps (ProfilerStep#3 … ProfilerStep#6), "
        "80.2 ms: rank 1's GPU idled 46%")
    assert summary["diagnosis"]["text"].endswith(
        "By rank: 0 communication; 1 host. Parallelism: data over ranks 0, 1, from all-reduces "
        "in the backward (gradients): overlap the gradient all-reduce with the backward (DDP's "
        "gradient buckets, bucket_cap_mb) and even out the ranks' work.")


def test_comm_compute_and_matrix_time_equal_the_json(capsys) -> None:
    summary = _summary_json(capsys, *map(str, _ddp()))
    by_cores = {"tensor": 0, "cuda": 0, "unknown": 0}
    for rank, events in _events_by_rank().items():
        row = next(r for r in summary["ranks"] if r["rank"] == rank)
        kernels = [e for e in events if e.get("cat") == "kernel"]
        comm = sum(oracle.ns(e["dur"]) for e in kernels if "nccl" in e["name"].lower())
        compute = sum(oracle.ns(e["dur"]) for e in kernels if "nccl" not in e["name"].lower())
        assert (row["comm_ns"], row["compute_ns"]) == (comm, compute)
        assert row["comm_kernels"] == len(_nccl_kernels(events))
        for e in kernels:
            if (cores := cores_of(e["name"])) is not None:
                by_cores[cores] += oracle.ns(e["dur"])
    # the matrix kernels' time by where they computed, summed over both ranks
    gemm = summary["gemm_tensor_cores"]
    assert (gemm["tensor_core_ns"], gemm["cuda_core_ns"], gemm["unknown_ns"]) == (
        by_cores["tensor"], by_cores["cuda"], by_cores["unknown"])
    assert gemm["gemm_ns"] == sum(by_cores.values()) > 0


def test_busy_and_steps_equal_the_json() -> None:
    with open_run(_ddp()) as run:
        rows = {r["rank"]: r for r in rank_rows(run.con)}
    for rank, events in _events_by_rank().items():
        intervals = oracle.gpu_intervals(events)
        first = min(i[1] for i in intervals)
        last = max(i[2] for i in intervals)
        idle = sum(g[2] for g in oracle.idle_gaps(intervals, 0))
        assert rows[rank]["span_ns"] == last - first
        assert rows[rank]["busy_pct"] == pytest.approx(100 * (last - first - idle)
                                                       / (last - first), abs=1e-3)
        steps = [oracle.ns(e["dur"]) for e in events
                 if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")]
        assert rows[rank]["steps"] == len(steps) == 4
        assert rows[rank]["step_host_ns"] == int(statistics.median(steps))


def _step_work(events: list[dict]) -> list[tuple[int, int]]:
    """Oracle, per ProfilerStep: (first start to last end of the GPU work it launched,
    its NCCL kernels' summed duration). A step launched the GPU events whose correlation
    lies between the first and last correlation of the runtime/driver calls that began in
    its host range."""
    steps = sorted((oracle.ns(e["ts"]), oracle.ns(e["ts"]) + oracle.ns(e["dur"]))
                   for e in events if e.get("cat") == "user_annotation"
                   and e["name"].startswith("ProfilerStep#"))
    calls = [(oracle.ns(e["ts"]), e["args"]["correlation"]) for e in events
             if e.get("cat") in ("cuda_runtime", "cuda_driver")]
    gpu = [e for e in events if e.get("ph") == "X" and e.get("cat") in oracle.GPU_CATS]
    out = []
    for start, end in steps:
        ids = [c for t, c in calls if start <= t < end]
        mine = [e for e in gpu if min(ids) <= e["args"]["correlation"] <= max(ids)]
        first = min(oracle.ns(e["ts"]) for e in mine)
        last = max(oracle.ns(e["ts"]) + oracle.ns(e["dur"]) for e in mine)
        out.append((last - first, [e["args"]["correlation"] for e in mine]))
    return out


def test_gpu_step_time_and_waits_per_step_equal_the_json() -> None:
    """GPU step time against the oracle above; rank 0's wait per step: its waiting
    kernels (the overlap oracle below) that each step launched, summed, over 4 steps."""
    waits = _overlap_waits()
    with open_run(_ddp()) as run:
        rows = {r["rank"]: r for r in rank_rows(run.con)}
    for rank, events in _events_by_rank().items():
        work = _step_work(events)
        assert rows[rank]["gpu_steps"] == len(work) == 4
        # DuckDB's median of an even count, cast to BIGINT, rounds half to even, as round()
        assert rows[rank]["step_gpu_ns"] == round(statistics.median(w[0] for w in work))
        correlation_wait = {c: w for c, w in waits[rank]}
        in_steps = sum(correlation_wait.get(c, 0) for _, ids in work for c in ids)
        assert rows[rank]["wait_per_step_ns"] == round(in_steps / 4)
    # rank 1 sleeps 10 ms a step before launching: its GPU work takes about half a step,
    # rank 0's whole step, three quarters of it waiting for rank 1
    assert rows[1]["step_gpu_ns"] < 0.6 * rows[0]["step_gpu_ns"]
    assert rows[1]["caused_per_step_ns"] == rows[0]["wait_per_step_ns"] > 14_000_000


def _overlap_waits() -> dict[int, list[tuple[int, int]]]:
    """Oracle: pair each rank-0 NCCL kernel with the overlapping rank-1 kernel whose end is
    nearest its own (a collective's kernels end together); the longer one waited (its
    duration minus the shorter one's). Per rank: (correlation, wait) of each paired kernel."""
    by_rank = {rank: [(oracle.ns(e["ts"]), oracle.ns(e["dur"]), e["args"]["correlation"])
                      for e in events
                      if e.get("cat") == "kernel" and "nccl" in e["name"].lower()]
               for rank, events in _events_by_rank().items()}
    out: dict[int, list[tuple[int, int]]] = {0: [], 1: []}
    for s0, d0, c0 in by_rank[0]:
        partner = [k for k in by_rank[1] if k[0] < s0 + d0 and s0 < k[0] + k[1]]
        if partner:
            _, d1, c1 = min(partner, key=lambda k: abs(k[0] + k[1] - s0 - d0))
            out[0].append((c0, d0 - min(d0, d1)))
            out[1].append((c1, d1 - min(d0, d1)))
    return out


def test_waits_equal_an_overlap_oracle() -> None:
    paired = _overlap_waits()
    pairs = len(paired[0])
    waits = {rank: sum(w for _, w in kernels) for rank, kernels in paired.items()}
    with open_run(_ddp()) as run:
        rows = {r["rank"]: r for r in rank_rows(run.con)}
        instances = collective_instances(run.con)
    assert pairs == 18  # rank 0 has one all-reduce more: rank 1's window began later
    assert {rank: rows[rank]["wait_ns"] for rank in (0, 1)} == waits
    assert rows[0]["collectives"] == 18 and rows[0]["unmatched_collectives"] == 1
    assert instances.num_rows == 19 + 18
    assert set(instances.column_names) >= {"rank", "name", "instance", "wait_ns", "waited_for"}


def test_ranks_come_from_distributed_info_not_the_order_given(capsys) -> None:
    summary = _summary_json(capsys, *map(str, reversed(_ddp())))
    assert [r["rank"] for r in summary["ranks"]] == [0, 1]
    assert summary["ranks"][1]["path"].endswith("ddp_rank1.pt.trace.json.gz")
    assert summary["straggler"] == 1


@pytest.mark.slow
def test_a_directory_is_a_run(tmp_path: Path, capsys) -> None:
    for name in DDP:
        shutil.copy(sample(name), tmp_path / name)
    (tmp_path / "notes.txt").write_text("not a trace")
    shutil.copy(sample("small_kernels.ncu-rep"), tmp_path / "kernels.ncu-rep")
    summary = _summary_json(capsys, str(tmp_path))
    assert summary["source"]["path"] == str(tmp_path)
    assert [Path(p).name for p in summary["source"]["paths"]] == list(DDP)
    assert summary["straggler"] == 1


def test_text_output_has_a_rank_table_and_names_the_straggler(capsys) -> None:
    assert main(["--summary", *map(str, _ddp())]) == 0
    out = capsys.readouterr().out
    assert "Ranks" in out and "◀ straggler" in out
    assert "Rank 1 is the straggler" in out and "AllReduce_Sum_f32_RING_LL" in out
    assert "host step" in out and "GPU step" in out
    assert "from the host ranges 19.1 ms (rank 0) to 20.1 ms (rank 1); on the GPU" in out


@pytest.mark.slow
def test_parallel_serial_and_no_cache_loads_agree(private_cache: Path) -> None:
    shutil.rmtree(private_cache, ignore_errors=True)
    with open_run(_ddp(), workers=2) as run:  # cold: two processes
        parallel = rank_analysis(run.con)
        assert all(store.db_path is not None for store in run.stores)
    with open_run(_ddp(), workers=1) as run:  # warm: from the cache files
        assert all(store.from_cache for store in run.stores)
        serial = rank_analysis(run.con)
    cached = sorted(private_cache.iterdir())
    with open_run(_ddp(), use_cache=False, workers=2) as run:  # Parquet stores
        assert all(store.parquet_dir is not None for store in run.stores)
        scratch = run.scratch
        no_cache = rank_analysis(run.con)
    assert parallel == serial == no_cache
    assert sorted(private_cache.iterdir()) == cached  # --no-cache wrote no cache file
    assert scratch is not None and not scratch.exists()  # its Parquet went away on close


@pytest.mark.slow
def test_each_rank_s_own_summary_is_what_the_run_keeps(private_cache: Path) -> None:
    """Cold (each rank summed up where it loaded) and warm (from the cache): of each
    trace's own summary a run keeps its devices, gaps, diagnosis (decided again over the
    run, in its advice's words), warnings, distributed figures and GPU counters (none in
    Kineto traces); its
    kernels and findings are not worked out (the run's are, over every rank)."""
    shutil.rmtree(private_cache, ignore_errors=True)
    bounds = []
    for workers in (2, 1):
        with open_run(_ddp(), workers=workers, min_gap_ns=1_000_000) as run:
            for store in run.stores:
                assert store.summary is not None
                assert set(store.summary) == {"devices", "gaps", "diagnosis", "warnings",
                                              "distributed", "gpu_metrics", "advice_format"}
                assert store.summary["gpu_metrics"] is None
                assert store.summary["advice_format"] == "kineto"
                assert store.summary["devices"] and list(store.summary["gaps"])
            bounds.append([store.summary["diagnosis"]["bound"] for store in run.stores])
    # alone, rank 0 computes 57% of its steps and runs NCCL kernels with nothing beside
    # them 39%: under COMPUTE_MOST, its largest loss, communication, leads
    assert bounds == [["communication", "host"]] * 2


@pytest.mark.slow
@pytest.mark.parametrize("name", DDP)
def test_one_rank_given_as_both_ranks_is_balanced(capsys, name: str) -> None:
    """No real balanced two-rank recording is at hand: the same rank's trace given as both
    ranks is the one real run whose ranks are balanced by construction."""
    path = str(sample(name))
    summary = _summary_json(capsys, path, path)
    assert summary["straggler"] is None
    assert [r["wait_ns"] for r in summary["ranks"]] == [0, 0]
    assert any("order of the files given" in w for w in summary["warnings"])
    balanced = summary["findings"][0]
    assert balanced["rule"] == "ranks_balanced" and balanced["severity"] == "info"
    kernels, step, threshold = {DDP[0]: (19, "19.7 ms", "985 µs"),
                                DDP[1]: (18, "10.2 ms", "509 µs")}[name]
    assert balanced["text"] == (
        f"Ranks are balanced: no rank waits for another in the {kernels} NCCL kernels that "
        f"the traces share (a straggler is named from 5% of the {step} median GPU step, "
        f"{threshold}).")
    steps = {r["rank"]: (r["step_host_ns"], r["step_gpu_ns"]) for r in summary["ranks"]}
    assert steps[0] == steps[1]


@pytest.mark.slow
def test_nsys_exports_are_one_rank_each_in_the_order_given(capsys) -> None:
    summary = _summary_json(capsys, str(sample("gappy_training.sqlite")),
                            str(sample("multistream.sqlite")))
    assert [r["rank"] for r in summary["ranks"]] == [0, 1]
    assert summary["ranks"][0]["path"].endswith("gappy_training.sqlite")
    assert summary["straggler"] is None
    assert all(r["comm_ns"] == 0 and r["steps"] == 8 for r in summary["ranks"])
    assert summary["findings"][0]["rule"] == "no_collectives"
    assert summary["findings"][0]["text"].startswith("No NCCL kernels")
    # the GPU step time from NVTX step ranges and the runtime calls' correlation ids
    assert all(r["gpu_steps"] == 8 and r["step_gpu_ns"] > 0 for r in summary["ranks"])


def test_several_traces_take_no_ncu_report(capsys) -> None:
    assert main([*map(str, _ddp()), "--ncu", str(_ddp()[0])]) == 2
    assert "--ncu goes with one trace" in capsys.readouterr().err


def test_a_folder_without_traces_fails_before_the_app(tmp_path: Path, capsys) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    assert main([str(tmp_path)]) == 2  # no --summary: RunApp would open, but never starts
    assert "is a directory with no trace files" in capsys.readouterr().err


def test_a_directory_without_traces_is_bad_input(tmp_path: Path, capsys) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    assert main(["--summary", str(tmp_path)]) == 2
    assert "is a directory with no trace files" in capsys.readouterr().err


@pytest.mark.slow
def test_a_warm_summary_equals_the_cold_one(private_cache: Path, capsys) -> None:
    """Cold: each rank summarised in the process that loaded it; warm: the cache files
    attached and summarised in this process. Same result."""
    shutil.rmtree(private_cache, ignore_errors=True)
    cold = _summary_json(capsys, *map(str, _ddp()))
    warm = _summary_json(capsys, *map(str, _ddp()))
    assert not cold["source"]["from_cache"] and warm["source"]["from_cache"]
    for summary in (cold, warm):
        del summary["source"]["from_cache"], summary["source"]["load_s"]
        del summary["source"]["cache_notes"]
    assert cold == warm


@pytest.mark.slow
def test_converted_parquet_stores_read_back_as_the_same_run(tmp_path: Path, capsys) -> None:
    """`tui convert` per rank (as separate machines would), then the folder of stores."""
    out = tmp_path / "run"
    assert main(["convert", str(_ddp()[0]), "--out", str(out)]) == 0
    assert main(["convert", str(_ddp()[1]), "--out", str(out), "--no-cache"]) == 0
    printed = capsys.readouterr().out
    assert "rank 0" in printed and "rank 1" in printed
    stores = sorted(p.name for p in out.iterdir())
    assert stores == ["ddp_rank0.pt.trace.tui-store", "ddp_rank1.pt.trace.tui-store"]
    from_stores = _summary_json(capsys, str(out))
    from_traces = _summary_json(capsys, *map(str, _ddp()))
    for key in ("ranks", "straggler", "kernels", "gaps", "devices", "findings"):
        assert from_stores[key] == from_traces[key], key


def test_an_incomplete_store_is_bad_input(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    assert main(["convert", str(_ddp()[0]), "--out", str(out)]) == 0
    store = out / "ddp_rank0.pt.trace.tui-store"
    (store / "gpu_idle.parquet").unlink()
    capsys.readouterr()
    assert main(["--summary", str(out)]) == 2
    assert "incomplete store, gpu_idle missing" in capsys.readouterr().err


def test_rank_functions_can_be_called_again_on_one_connection() -> None:
    from tui.analysis.ranks import rank_table

    with open_run(_ddp()) as run:
        first = rank_analysis(run.con)
        assert rank_analysis(run.con) == first
        table = rank_table(run.con)
        assert table.num_rows == 2 and table.column("rank").to_pylist() == [0, 1]


@pytest.mark.slow
def test_of_equal_ranks_the_lowest_is_waited_for(tmp_path: Path) -> None:
    """Two copies of each real rank (ranks by the files' order: 1 and 3 are the sleeping
    rank 1): every collective instance waited for rank 1, the lower of two equals, not
    whichever came first in a window (which changed from run to run: 16 copies named
    rank 3 or 11 the straggler)."""
    paths = []
    for copy in (0, 1):
        for rank, path in enumerate(_ddp()):
            paths.append(tmp_path / f"copy{copy}_rank{rank}.pt.trace.json.gz")
            paths[-1].symlink_to(path)
    with open_run(paths) as run:
        instances = collective_instances(run.con)
        waited = set(instances.filter(instances["wait_ns"].to_numpy() > 0)
                     .column("waited_for").to_pylist())
        assert waited == {1}
        assert rank_analysis(run.con)["straggler"] == 1


def test_a_run_s_queries_stop_when_asked() -> None:
    """The ranks app quitting while the run's summaries are worked out (after the loads:
    ~50 s for 1,024 ranks from the cache): the running query is interrupted, LoadStopped."""
    import threading
    import time

    import duckdb

    from tui.core.load_progress import LoadStopped
    from tui.runs.run import stopped_by

    con = duckdb.connect()
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    started = time.monotonic()
    with pytest.raises(LoadStopped), stopped_by(con, stop):
        con.execute("SELECT count(*) FROM range(100000000000) WHERE hash(range) = 1").fetchall()
    assert time.monotonic() - started < 5
    with stopped_by(con, threading.Event()):  # not asked: the queries run
        assert con.execute("SELECT 42").fetchone() == (42,)


@pytest.mark.slow
def test_a_multi_process_report_is_a_run_of_its_processes_also_without_a_cache(
        private_cache: Path) -> None:
    """--no-cache splits an nsys report of several processes into its ranks as a cached
    open does (before, it was read as one rank), with the same figures, and keeps nothing."""
    report = sample("tp2_nsys.sqlite")
    with open_run([report]) as run:
        cached = rank_analysis(run.con)
        assert len(run.stores) == 2
    kept = sorted(private_cache.iterdir())
    with open_run([report], use_cache=False) as run:
        assert [store.part is not None for store in run.stores] == [True, True]
        scratch = run.scratch
        no_cache = rank_analysis(run.con)
    assert no_cache == cached
    assert sorted(private_cache.iterdir()) == kept
    assert scratch is not None and not scratch.exists()


@pytest.mark.parametrize(("setting", "pool"), [("1", False), ("2", True), ("", True),
                                               ("none", True)])
def test_tui_workers_sets_the_processes_that_load_a_run(
        setting: str, pool: bool, private_cache: Path, run_cache: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """TUI_WORKERS=N loads a run's ranks as --workers N does (1: in this process); unset, or
    not a positive number, a pool where it pays (four traces: it does)."""
    from tui.runs import load

    monkeypatch.setenv("TUI_WORKERS", setting)
    pools: list[int] = []

    def no_pool(jobs: list[load.LoadJob], pending: list[int], count: int, *args: object,
                **kwargs: object) -> None:
        pools.append(count)
        # what a pool's processes leave in the cache dir: each trace's cache file (the
        # run's, built once a run), which the loads after this read, not four cold loads
        copy_cache_files([jobs[i].path for i in pending], run_cache, private_cache)

    monkeypatch.setattr(load, "_load_in_pool", no_pool)
    traces = [sample(f"ddp4/ddp_rank{rank}.pt.trace.json.gz") for rank in range(4)]
    stores = load.load_stores([load.LoadJob(p) for p in traces])
    assert bool(pools) == pool
    assert len(stores) == 4 and all(s.db_path is not None for s in stores)
    assert all(s.from_cache for s in stores) is pool  # after the pool: what it left


def test_a_run_without_steps_is_judged_over_its_collectives_not_its_set_up(capsys) -> None:
    """unannotated/ep_json.sqlite: an expert-parallel program recorded whole under nsys, no
    step range: 7 s of imports and set-up before its first collective, then 30 steps in
    about half a second. Without steps a rank's hold-up is weighed against the span of
    the ranks' NCCL kernels, first to last, as sqlite3 reads it from the export (not the
    GPU span, set-up included, which called the run balanced); the straggler is the one
    the same program's torch.profiler run (ep2/, per step) names. The sentence's wait for
    it is the other rank's (the ranks table's), not every rank's (the straggler waits for
    the other too)."""
    import sqlite3

    from tests.helpers.paths import inflated
    from tui.core.units import format_ns

    path = inflated("unannotated/ep_json.sqlite")
    spans = sqlite3.connect(path).execute(
        "SELECT max(k.end) - min(k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
        "JOIN StringIds AS s ON s.id = k.shortName WHERE s.value LIKE '%nccl%' "
        "GROUP BY k.globalPid").fetchall()
    with open_run([path]) as run:
        verdict = rank_analysis(run.con)["balance"]
        rows = {r["rank"]: r for r in rank_rows(run.con)}
        gpu_span = max(r["span_ns"] for r in rows.values())
    assert verdict["measure"] == "whole trace"
    assert verdict["reference_ns"] == max(span for (span,) in spans) < gpu_span / 5
    with open_run([SAMPLES / "ep2"]) as run:
        per_step = rank_analysis(run.con)["balance"]
    assert per_step["measure"] == "per step"
    assert verdict["straggler"] == per_step["straggler"] == 1
    assert rows[1]["wait_ns"] > 0 and rows[1]["caused_ns"] == rows[0]["wait_ns"]
    text = _summary_json(capsys, str(path))["diagnosis"]["text"]
    assert text.startswith("The run waits for its straggler, rank 1: the other ranks' NCCL "
                           f"kernels waited {format_ns(rows[0]['wait_ns'])} for it.")


def test_a_report_a_rank_is_put_on_one_clock_by_each_sessions_start() -> None:
    """unannotated/ddp_ranks_0.sqlite and _1: `ddp` (its last rank sleeping 20 ms before
    each of 20 steps) under torchrun with nsys inside it, a report a rank, as multi-GPU
    jobs are often recorded. Each export's times count from its own session's start, and
    the two sessions started 51.5 ms apart. On the run's clock each all-reduce ends at the
    same time on both ranks (a collective ends together), as sqlite3 finds after adding
    each session's start (UTC); the rank that sleeps is the straggler, the other waiting
    for it about the 20 ms a step it slept."""
    import statistics

    from tests.helpers.paths import inflated

    paths = [inflated(f"unannotated/ddp_ranks_{rank}.sqlite") for rank in (0, 1)]
    ends, origins = [], []
    for path in paths:
        db = sqlite3.connect(path)
        (origin,) = db.execute("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME"
                               ).fetchone()
        origins.append(origin)
        ends.append([end + origin for (end,) in db.execute(
            "SELECT k.end FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS s "
            "ON s.id = k.demangledName WHERE s.value LIKE 'ncclDevKernel%' ORDER BY k.start")])
    assert len(ends[0]) == len(ends[1]) == 179
    oracle = statistics.median(b - a for a, b in zip(*ends, strict=True))
    assert abs(oracle) < 100_000 and origins[1] - origins[0] > 50_000_000
    with open_run(paths, min_gap_ns=1_000_000) as run:
        got = [[end for (end,) in run.con.execute(
            "SELECT end_ns FROM gpu_activities WHERE rank = $rank AND kind = 'kernel' "
            "AND name LIKE 'ncclDevKernel%' ORDER BY start_ns", {"rank": rank}).fetchall()]
            for rank in (0, 1)]
        analysis = rank_analysis(run.con)
    # the run's clock is the first session's: rank 1's times moved by the sessions' gap
    assert got == [[e - origins[0] for e in rank_ends] for rank_ends in ends]
    assert statistics.median(b - a for a, b in zip(*got, strict=True)) == oracle
    assert analysis["straggler"] == 1
    waits = {r["rank"]: r["wait_ns"] for r in analysis["ranks"]}
    assert waits[0] > 0.9 * 20 * 20_000_000 and waits[1] < 0.1 * waits[0]


def test_a_rank_that_sleeps_unrecorded_is_not_said_busy_in_its_forward(
        capsys: pytest.CaptureFixture[str]) -> None:
    """ddp_whole/: `ddp`'s 20 steps over two H200s, the whole loop under torch.profiler with
    no step marked, its last rank sleeping 20 ms before each step (time.sleep: no op in the
    trace). Most of rank 1's host-wait is in gaps where the host ran nothing recorded; one
    longer gap saw DistributedDataParallel.forward, which was said as where the host was
    busy most, and as "data preparation" (its name holds "Data"). The rank is the
    straggler, host-bound, with neither."""
    import gzip

    from tui.analysis.remedies import host_work

    for rank in (0, 1):
        data = json.load(gzip.open(SAMPLES / "ddp_whole" / f"ddp_rank{rank}.pt.trace.json.gz"))
        assert not any(e.get("name", "").startswith("ProfilerStep#")
                       for e in data["traceEvents"])
    assert host_work("DistributedDataParallel.forward") is None
    assert main(["--summary", "--json", str(SAMPLES / "ddp_whole")]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["straggler"] == 1
    (rank1,) = [r for r in summary["ranks"] if r["rank"] == 1]
    assert rank1["diagnosis"]["bound"] == "host"
    assert "busy most in" not in rank1["diagnosis"]["text"]
