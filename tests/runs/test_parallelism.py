"""The kind of parallelism of each process group, on the real runs of sample_traces/,
checked against the raw Kineto files read here (record_param_comms, distributedInfo)."""

from __future__ import annotations

import gzip
import json
import sqlite3
import statistics
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import ROOT, SAMPLES
from tests.helpers import step_oracle
from tui.analysis.collective_bandwidth import collective_bandwidth
from tui.analysis.distributed.critical_path import critical_paths
from tui.analysis.parallelism import ADVICE, WHY, parallelism
from tui.analysis.pipeline import pipeline, pipeline_text
from tui.analysis.ranks import rank_analysis
from tui.cli.main import main
from tui.loading.trace import open_trace
from tui.runs.run import open_run
from tui.runs.summary import run_summary

RUNS = {"pp_1f1b": "pipeline", "pp_gpipe": "pipeline", "tp2": "tensor", "ddp4": "data",
        "fsdp4": "fsdp"}


def _raw(path: Path) -> dict:
    with gzip.open(path) as f:
        return json.load(f)


def _calls(data: dict) -> list[dict]:
    """The raw record_param_comms ops but c10d's waits, each with whether an
    autograd evaluate_function op on its thread encloses it."""
    ops = [e for e in data["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
    backward = [e for e in ops if e["name"].startswith("autograd::engine::evaluate_function")]
    out = []
    for e in ops:
        if e["name"] != "record_param_comms" or e["args"].get("Collective name") == "wait":
            continue
        inside = any(b["tid"] == e["tid"] and b["ts"] <= e["ts"]
                     and b["ts"] + b["dur"] >= e["ts"] + e["dur"] for b in backward)
        out.append({**e["args"], "backward": inside})
    return out


@pytest.mark.parametrize("run", sorted(RUNS))
def test_each_run_is_named_its_kind_over_its_process_group(run: str) -> None:
    files = sorted((SAMPLES / run).glob("*.pt.trace.json.gz"))
    info = _raw(files[0])["distributedInfo"]
    with open_run([SAMPLES / run]) as ranks:
        groups = parallelism(ranks.con)
    assert [(g["process_group"], g["ranks"], g["kind"]) for g in groups] == [
        (pg["pg_name"], pg["ranks"], RUNS[run]) for pg in info["pg_config"]]


@pytest.mark.parametrize("trace", ["tp2/tp_rank1.pt.trace.json.gz",
                                   "pp_1f1b/pp-1f1b_rank0.pt.trace.json.gz",
                                   "fsdp4/fsdp_rank2.pt.trace.json.gz"])
def test_the_collectives_table_holds_every_c10d_call(trace: str) -> None:
    path = SAMPLES / trace
    raw = _calls(_raw(path))
    assert raw
    expected = Counter((c["Collective name"], c["Process Group Name"], c["In msg nelems"],
                        c["Out msg nelems"], c.get("Dst Rank", c.get("Src Rank")),
                        c["dtype"], c["backward"]) for c in raw)
    with open_trace(path) as t:
        rows = t.con.execute(
            "SELECT collective, process_group, in_nelems, out_nelems, peer, dtype, backward, "
            "correlation FROM collectives").fetchall()
        kernels = t.con.execute(
            "SELECT count(DISTINCT c.correlation) FROM collectives AS c JOIN gpu_activities "
            "AS g USING (correlation) WHERE g.name ILIKE '%nccl%'").fetchone()[0]
    assert Counter(r[:7] for r in rows) == expected
    # each call is tied to the NCCL kernel it launched (send and recv may share one)
    assert all(r[7] is not None for r in rows) and kernels > 0


def _summary(capsys: pytest.CaptureFixture, run: str) -> dict:
    assert main(["--summary", "--json", str(SAMPLES / run)]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_pipeline_gets_a_pipelines_advice_not_a_data_parallel_one(capsys) -> None:
    summary = _summary(capsys, "pp_1f1b")
    assert summary["parallelism"] == [{"process_group": "0", "ranks": [0, 1],
                                       "kind": "pipeline", "why": "send/recv between ranks",
                                       "advice": ADVICE["pipeline"]}]
    texts = [summary["diagnosis"]["text"]] + [r["diagnosis"]["text"]
                                              for r in summary["ranks"]]
    assert all("bucket" not in t for t in texts)
    assert "micro-batches" in summary["diagnosis"]["text"]
    rules = [f["rule"] for f in summary["findings"]]
    assert rules.count("parallelism") == 1 and rules.count("pipeline_bubble") == 1
    assert summary["pipeline"]["order"] == [0, 1] and summary["pipeline"]["schedule"] == "1F1B"
    assert "Pipeline: ranks 0 → 1, 8 micro-batches a step, 1F1B" in summary["diagnosis"]["text"]


def test_tensor_parallelism_is_named_with_its_advice(capsys) -> None:
    summary = _summary(capsys, "tp2")
    assert [g["kind"] for g in summary["parallelism"]] == ["tensor"]
    texts = [summary["diagnosis"]["text"]] + [r["diagnosis"]["text"]
                                              for r in summary["ranks"]]
    assert all("bucket" not in t for t in texts)
    # the communication-bound rank is told what tensor parallelism needs
    comm = [r for r in summary["ranks"] if r["diagnosis"]["bound"] == "communication"]
    assert comm and all("tensor-parallel" in r["diagnosis"]["text"] for r in comm)
    finding = next(f for f in summary["findings"] if f["rule"] == "parallelism")
    group = summary["parallelism"][0]
    assert finding["text"].startswith(
        f"Process group {group['process_group']} (ranks 0, 1) carries tensor parallelism")


_ELEMENT_BYTES = {"Float": 4, "BFloat16": 2, "Half": 2, "Double": 8}


def _bandwidth_oracle(run: str) -> dict[tuple[str, int], dict]:
    """nccl-tests' figures read straight from the raw files: each rank's NCCL kernels (their
    own args name the collective, elements, dtype and group size); an instance is a kernel
    of the lowest rank with, on every other rank, the kernel of its name that ends nearest
    (the kernels of one collective end together: within 100 µs here); transfer = last end -
    latest start."""
    by_rank = {}
    for path in sorted((SAMPLES / run).glob("*.pt.trace.json.gz")):
        data = _raw(path)
        by_rank[data["distributedInfo"]["rank"]] = [
            e for e in data["traceEvents"]
            if e.get("cat") == "kernel" and "nccl" in e["name"].lower()]
    first, *others = sorted(by_rank)
    rows: dict[tuple[str, int], list[tuple[float, float, float]]] = {}
    for kernel in by_rank[first]:
        end = kernel["ts"] + kernel["dur"]
        kernels = [kernel]
        for rank in others:
            same = [e for e in by_rank[rank] if e["name"] == kernel["name"]]
            kernels.append(min(same, key=lambda e: abs(e["ts"] + e["dur"] - end)))
        if max(abs(e["ts"] + e["dur"] - end) for e in kernels) > 100:
            continue  # outside another rank's window
        args = kernel["args"]
        n = args["Group size"]
        size = max(args["In msg nelems"], args["Out msg nelems"]) * _ELEMENT_BYTES[args["dtype"]]
        latest = max(e["ts"] for e in kernels)
        transfer_us = max(e["ts"] + e["dur"] for e in kernels) - latest
        name = args["Collective name"]
        factor = (2 * (n - 1) / n if "allreduce" in name
                  else (n - 1) / n if "gather" in name or "scatter" in name else 1)
        algbw = size / (transfer_us * 1e3)
        rows.setdefault((name, size), []).append((transfer_us * 1e3, algbw, algbw * factor))
    return {key: {"instances": len(v),
                  "transfer_ns_median": statistics.median(t for t, _, _ in v),
                  "algbw_gbps_median": statistics.median(a for _, a, _ in v),
                  "busbw_gbps_median": statistics.median(b for _, _, b in v)}
            for key, v in rows.items()}


@pytest.mark.parametrize("run", ["ddp4", "fsdp4", "tp2"])
def test_collective_bandwidth_equals_an_independent_reading(run: str) -> None:
    expected = _bandwidth_oracle(run)
    with open_run([SAMPLES / run]) as ranks:
        rows = collective_bandwidth(ranks.con)
    assert {(r["name"], r["bytes"]) for r in rows} == set(expected)
    for row in rows:
        want = expected[(row["name"], row["bytes"])]
        assert row["instances"] == want["instances"]
        for key in ("transfer_ns_median", "algbw_gbps_median", "busbw_gbps_median"):
            assert row[key] == pytest.approx(want[key], rel=0.02), (row, key)
        assert row["link_peak_gbps"] == 450.0  # H100 and H200 SXM: NVLink 4
        assert 0 < row["busbw_gbps_median"] < row["link_peak_gbps"]


def test_an_nsys_report_of_four_processes_is_a_run_naming_the_kineto_straggler(
        capsys) -> None:
    """ddp4_nsys.sqlite holds the 4 processes of a DDP job (rank 3 slow) under one nsys:
    each process with its GPU is a rank, as the job's Kineto traces (ddp4/) are."""
    report = SAMPLES / "ddp4_nsys.sqlite"
    with sqlite3.connect(f"file:{report}?mode=ro", uri=True) as db:
        kernels = dict(db.execute("SELECT deviceId, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL "
                                  "GROUP BY deviceId").fetchall())
        nccl = dict(db.execute(
            "SELECT k.deviceId, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds "
            "AS s ON s.id = k.demangledName WHERE s.value LIKE '%nccl%' "
            "GROUP BY k.deviceId").fetchall())
    summary = _summary(capsys, "ddp4_nsys.sqlite")
    assert summary["source"]["ranks"] == 4
    rows = {r["rank"]: r for r in summary["ranks"]}
    assert sorted(rows) == sorted(kernels) == [0, 1, 2, 3]  # numbered as their GPUs
    for rank, row in rows.items():
        assert row["devices"] == 1
        assert row["comm_kernels"] == nccl[rank]
        assert row["comm_kernels"] + row["compute_kernels"] == kernels[rank]
    with open_run([SAMPLES / "ddp4"]) as kineto:
        assert rank_analysis(kineto.con)["straggler"] == 3
    assert summary["straggler"] == 3
    assert [g["kind"] for g in summary["parallelism"]] == ["data"]
    # nsys records no process group: the finding names the ranks whose kernels tell it
    finding = next(f for f in summary["findings"] if f["rule"] == "parallelism")
    assert finding["text"].startswith("Ranks 0, 1, 2, 3 carry data parallelism, from ")


def test_an_nsys_report_of_a_pipeline_gets_the_pipeline_its_kineto_traces_get() -> None:
    """pp_1f1b_nsys.sqlite: the 1F1B job of pp_1f1b/ recorded under nsys. Without c10d's
    calls, NCCL's ncclSend/ncclRecv NVTX ranges give the transfers: the same order,
    micro-batches and schedule as the Kineto traces, each stage's bubble as read from the
    export with sqlite3 (tests/helpers/step_oracle.py)."""
    order, micro_batches = _raw_pipeline("pp_1f1b")
    with open_run([SAMPLES / "pp_1f1b_nsys.sqlite"]) as ranks:
        found = pipeline(ranks.con)
    assert found is not None
    assert (found["order"], found["micro_batches"], found["schedule"]) == (
        order, micro_batches, "1F1B")
    expected = step_oracle.nsys_bubble_pct(SAMPLES / "pp_1f1b_nsys.sqlite")
    assert set(found["bubble_pct"]) == {str(r) for r in expected} == {"0", "1"}
    for rank, pct in expected.items():
        assert found["bubble_pct"][str(rank)] == pytest.approx(pct, abs=1.0), rank


@pytest.mark.parametrize(("report", "kind"), [("pp_1f1b_nsys.sqlite", "pipeline"),
                                              ("tp2_nsys.sqlite", "tensor")])
def test_an_nsys_report_names_its_parallelism_from_the_kernels(report: str, kind: str) -> None:
    with open_run([SAMPLES / report]) as run:
        assert run.ranks == [0, 1]
        assert [(g["process_group"], g["ranks"], g["kind"]) for g in parallelism(run.con)] == [
            ("?", [0, 1], kind)]


def _raw_pipeline(run: str) -> tuple[list[int], int]:
    """The stage order (the rank whose first p2p call is a send, then its first send's
    destination) and the sends per ProfilerStep of that first stage, from the raw files."""
    first_calls, sends_per_step = {}, {}
    for path in sorted((SAMPLES / run).glob("*.pt.trace.json.gz")):
        data = _raw(path)
        rank = data["distributedInfo"]["rank"]
        events = [e for e in data["traceEvents"] if e.get("ph") == "X"]
        calls = sorted((e for e in events if e["name"] == "record_param_comms"
                        and e["args"].get("Collective name") in ("send", "recv")),
                       key=lambda e: e["ts"])
        first_calls[rank] = (calls[0]["args"]["Collective name"],
                             next(c["args"]["Dst Rank"] for c in calls
                                  if c["args"]["Collective name"] == "send"))
        steps = [e for e in events if e["name"].startswith("ProfilerStep#")
                 and e.get("cat") == "user_annotation"]  # the host ranges
        sends_per_step[rank] = [
            sum(1 for c in calls if c["args"]["Collective name"] == "send"
                and s["ts"] <= c["ts"] < s["ts"] + s["dur"]) for s in steps]
    first = next(r for r, (call, _) in first_calls.items() if call == "send")
    order = [first, first_calls[first][1]]
    return order, statistics.median(sends_per_step[first])


@pytest.mark.parametrize(("run", "schedule"), [("pp_1f1b", "1F1B"), ("pp_gpipe", "GPipe")])
def test_a_pipelines_order_micro_batches_schedule_and_bubble(run: str, schedule: str) -> None:
    order, micro_batches = _raw_pipeline(run)
    assert micro_batches == 8  # as recorded (recordings/parallel_train.py)
    with open_run([SAMPLES / run]) as ranks:
        found = pipeline(ranks.con)
    assert found is not None
    assert found["order"] == order == [0, 1]
    assert found["micro_batches"] == micro_batches
    assert found["schedule"] == schedule
    p = len(order)
    assert found["expected_bubble_pct"] == round(100 * (p - 1) / (micro_batches + p - 1), 1)
    # measured: each stage's steps' GPU time without compute, above the schedule's bubble
    assert set(found["bubble_pct"]) == {"0", "1"}
    assert all(found["expected_bubble_pct"] < v < 100 for v in found["bubble_pct"].values())


@pytest.mark.parametrize("run", ["pp_1f1b", "pp_gpipe"])
def test_each_stage_s_bubble_equals_one_read_from_its_raw_trace(run: str) -> None:
    """Each stage's measured bubble, against its steps' GPU time without compute kernels
    worked out from the raw Kineto JSON (tests/helpers/step_oracle.py), within a point."""
    with open_run([SAMPLES / run]) as ranks:
        found = pipeline(ranks.con)
    assert found is not None
    expected = {str(_raw(path)["distributedInfo"]["rank"]): step_oracle.kineto_bubble_pct(path)
                for path in sorted((SAMPLES / run).glob("*.pt.trace.json.gz"))}
    assert set(found["bubble_pct"]) == set(expected) == {"0", "1"}
    for rank, pct in expected.items():
        assert found["bubble_pct"][rank] == pytest.approx(pct, abs=1.0), rank


def test_a_looped_pipeline_has_its_stages_a_rank_and_their_bubble() -> None:
    """pp_interleaved: parallel_train.py's pp-interleaved, two stages a rank over two
    H200s (rank r runs stages r and r + 2) under ScheduleInterleaved1F1B, 8 micro-batches
    a step. Its sends go both ways between the two ranks (activations from the last rank
    back to the first between a rank's stages): counted as sends to the next stage, they
    made 24 micro-batches of a 1F1B. The schedule marks each forward `PP:<stage>F<micro>`;
    read from the raw trace, those give the stages each rank runs and the micro-batches,
    and the bubble is (p-1)/(v·m+p-1)."""
    import re

    from tui.analysis.parallelism import LOOPED_PIPELINE_ADVICE

    stages, micros = {}, set()
    for path in sorted((SAMPLES / "pp_interleaved").glob("*.pt.trace.json.gz")):
        data = _raw(path)
        marks = [re.fullmatch(r"PP:(\d+)F(\d+)", e["name"]) for e in data["traceEvents"]
                 if e.get("cat") == "user_annotation"]
        stages[data["distributedInfo"]["rank"]] = {int(m[1]) for m in marks if m}
        micros |= {int(m[2]) for m in marks if m}
    assert stages == {0: {0, 2}, 1: {1, 3}} and micros == set(range(8))
    with open_run([SAMPLES / "pp_interleaved"], min_gap_ns=1_000_000) as ranks:
        found = pipeline(ranks.con)
        summary = run_summary(ranks, 1_000_000, "pp_interleaved")
    # interleaved already: told the rest of the pipeline's advice, not to interleave
    assert LOOPED_PIPELINE_ADVICE in summary["diagnosis"]["text"]
    assert "an interleaved schedule" not in summary["diagnosis"]["text"]
    assert found is not None
    assert (found["order"], found["stages_per_rank"], found["micro_batches"],
            found["schedule"]) == ([0, 1], 2, 8, "interleaved 1F1B")
    assert found["expected_bubble_pct"] == round(100 * 1 / (2 * 8 + 1), 1)
    assert pipeline_text(found).startswith(
        "Pipeline: ranks 0 → 1, 2 stages a rank (looped), 8 micro-batches a step, "
        "interleaved 1F1B: a bubble of 5.9% expected")


def test_no_pipeline_without_send_recv() -> None:
    with open_run([SAMPLES / "tp2"]) as ranks:
        assert pipeline(ranks.con) is None


def test_a_pipeline_stages_critical_path_waits_for_the_other_rank_not_its_launches() -> None:
    """pp_gpipe's last stage queues its backward behind recvs that wait for the first
    stage: that wait is communication on its path, not launch delay (it read 39 of 77.7
    ms as launch delay when a late start after an idle stream's launch counted as one)."""
    with open_trace(SAMPLES / "pp_gpipe" / "pp-gpipe_rank1.pt.trace.json.gz") as t:
        paths = critical_paths(t.con)
    assert paths
    for path in paths:
        parts = path.by_kind()
        assert sum(parts.values()) == path.length_ns  # the segments tile it
        assert parts["launch_delay"] < 0.05 * path.length_ns
        assert parts["communication"] > 0.5 * path.length_ns


def _nccl_calls(db: sqlite3.Connection) -> list[tuple]:
    """(pid, name, bytes, kernel start, kernel end) of each NCCL call an nsys export keeps
    with its payload, in call order per process: its kernel the first NCCL kernel launched
    by a runtime call of its thread inside it."""
    calls = db.execute(
        "SELECT n.globalTid, n.start, n.\"end\", s.value, n.jsonText FROM NVTX_EVENTS AS n "
        "JOIN StringIds AS s ON s.id = n.textId WHERE n.jsonText IS NOT NULL "
        "AND s.value LIKE 'nccl%' ORDER BY n.start").fetchall()
    launches = db.execute(
        "SELECT r.globalTid, r.start, k.start, k.\"end\" FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r "
        "JOIN CUPTI_ACTIVITY_KIND_KERNEL AS k ON k.correlationId = r.correlationId "
        "AND k.globalPid >> 24 = r.globalTid >> 24 JOIN StringIds AS s ON s.id = k.shortName "
        "WHERE s.value LIKE 'nccl%' ORDER BY r.start").fetchall()
    out = []
    for tid, start, end, name, payload in calls:
        size = json.loads(payload).get("Message size [bytes]")
        inside = [(k0, k1) for t, at, k0, k1 in launches if t == tid and start <= at <= end]
        if size is not None and inside:
            out.append((tid >> 24 & 0xFFFFFF, name, size, *inside[0]))
    return out


def test_an_nsys_report_with_nccls_payloads_gets_its_collective_bandwidth() -> None:
    """unannotated/ddp_json.sqlite: `ddp`'s 10 steps over two GPUs under nsys, exported with
    --include-json=true, which keeps NCCL's NVTX payloads (each call's communicator and
    message size, each communicator's ranks). Its NCCL calls become collectives, sized as
    NCCL defines its payload (an all-gather's is one rank's share), so the report gets the
    collective bandwidth Kineto's runs get, equal to a reading of the export done here:
    the k-th call of a name and size on each rank is one instance, its transfer from the
    later kernel start to the later end. The kind of parallelism is still read from the
    kernels (NCCL's payloads say nothing of the backward)."""
    from tests.helpers.paths import inflated

    report = inflated("unannotated/ddp_json.sqlite")
    with open_run([report]) as run:
        rows = collective_bandwidth(run.con)
        kinds = [g["kind"] for g in parallelism(run.con)]
    _equal_to_the_payloads(report, rows)
    assert max(r["bytes"] for r in rows) == 537_001_984  # the model's gradients at once
    assert kinds == ["data"]


def _equal_to_the_payloads(report: Path, rows: list) -> None:
    """The collective bandwidth rows of a two-rank nsys report equal a reading of its NCCL
    payloads and kernels done here (_nccl_calls): the k-th call of a name and size on each
    rank one instance, its transfer from the later kernel start to the later end, sized as
    nccl-tests sizes it, the medians within 2%."""
    db = sqlite3.connect(f"file:{report}?mode=ro", uri=True)
    calls = _nccl_calls(db)
    (ranks,), = db.execute("SELECT count(DISTINCT globalPid) FROM CUPTI_ACTIVITY_KIND_KERNEL")
    assert ranks == 2
    names = {"ncclAllReduce": ("allreduce", 1, 1.0), "ncclBroadcast": ("broadcast", 1, 1.0),
             "ncclAllGather": ("allgather", ranks, (ranks - 1) / ranks)}
    instances: dict[tuple, list] = {}
    seen: Counter = Counter()
    for pid, name, size, start, end in calls:
        seen[(pid, name, size)] += 1
        instances.setdefault((name, size, seen[(pid, name, size)]), []).append((start, end))
    expected: dict[tuple, list] = {}
    for (name, size, _k), kernels in instances.items():
        collective, times, factor = names[name]
        transfer = max(e for _, e in kernels) - max(s for s, _ in kernels)
        if len(kernels) == ranks and transfer > 0:
            rate = size * times / transfer
            expected.setdefault((collective, size * times), []).append(
                (transfer, rate, rate * (2 * (ranks - 1) / ranks if collective == "allreduce"
                                         else factor)))
    assert {(r["name"], r["bytes"]) for r in rows} == set(expected)
    for row in rows:
        want = expected[(row["name"], row["bytes"])]
        assert row["instances"] == len(want) and row["group_size"] == ranks
        for key, index in (("transfer_ns_median", 0), ("algbw_gbps_median", 1),
                           ("busbw_gbps_median", 2)):
            # rates are kept to 3 decimals (GB/s)
            assert row[key] == pytest.approx(statistics.median(w[index] for w in want),
                                             rel=0.02, abs=1e-3), (row, key)


def test_nccls_payload_sizes_are_c10ds_on_the_same_program() -> None:
    """unannotated/fsdp_json.sqlite and fsdp2/: dist_train.py's FSDP2 ViT over the same two
    H200s, once under nsys exported with --include-json=true, once under torch.profiler.
    NCCL's payload sizes an all-gather and a reduce-scatter by one rank's share; times the
    group's size they are the sizes c10d's calls give (the all-gather's whole output, the
    reduce-scatter's whole input): the same sizes as the Kineto run's, and bus bandwidths
    within 10% of its (two runs of one program on one machine)."""
    from tests.helpers.paths import inflated

    kinds = {"_allgather_base": "allgather", "_reduce_scatter_base": "reduce_scatter"}
    with open_run([SAMPLES / "fsdp2"]) as run:
        kineto = {(kinds[r["name"]], r["bytes"]): r for r in collective_bandwidth(run.con)}
    with open_run([inflated("unannotated/fsdp_json.sqlite")]) as run:
        nsys = {(r["name"], r["bytes"]): r for r in collective_bandwidth(run.con)
                if r["name"] in kinds.values()}
    assert set(nsys) == set(kineto)
    assert {size for _, size in kineto} == {1_534_864, 7_097_856}
    for key, row in nsys.items():
        assert row["group_size"] == kineto[key]["group_size"] == 2
        assert row["busbw_gbps_median"] == pytest.approx(kineto[key]["busbw_gbps_median"],
                                                         rel=0.1), key


@pytest.mark.parametrize(("report", "kind"), [("tp2_nsys.sqlite", "tensor"),
                                               ("ddp4_nsys.sqlite", "data")])
def test_an_nsys_report_without_step_ranges_tells_the_forward_by_its_thread(
        tmp_path: Path, report: str, kind: str) -> None:
    """The tensor-parallel and DDP reports with their `step N` NVTX ranges taken out (a
    generated variant, named so: a program that marks nothing). NCCL's kernels are all
    tui has of their calls, and no step range says which all-reduces the forward made: the
    main thread's (the one that launched each rank's first kernel) are the forward's, the
    autograd threads' the backward's, as the export's thread names say. Tensor parallelism
    all-reduces inside the forward; DDP in the backward."""
    path = tmp_path / report.replace(".sqlite", "_unmarked.sqlite")
    path.write_bytes((SAMPLES / report).read_bytes())
    db = sqlite3.connect(path)
    launched = Counter(thread.startswith("pt_autograd") for (thread,) in db.execute(
        "SELECT t.value FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
        "JOIN StringIds AS n ON n.id = k.shortName "
        "JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.correlationId = k.correlationId "
        "AND r.globalTid >> 24 = k.globalPid >> 24 "
        "JOIN ThreadNames AS h ON h.globalTid = r.globalTid "
        "JOIN StringIds AS t ON t.id = h.nameId WHERE n.value LIKE '%AllReduce%'"))
    forward, backward = launched[False], launched[True]
    assert (2 * forward >= backward) == (kind == "tensor") and backward > 0
    (steps,), = db.execute(
        "SELECT count(*) FROM NVTX_EVENTS AS e LEFT JOIN StringIds AS s ON s.id = e.textId "
        "WHERE coalesce(e.text, s.value) LIKE 'step %'")
    assert steps > 0
    db.execute("DELETE FROM NVTX_EVENTS WHERE coalesce(text, "
               "(SELECT value FROM StringIds WHERE id = textId)) LIKE 'step %'")
    db.commit()
    db.close()
    with open_run([path], use_cache=False) as run:
        assert [g["kind"] for g in parallelism(run.con)] == [kind]


def test_an_unannotated_tensor_parallel_nsys_report_reads_as_tensor_parallel() -> None:
    """unannotated/tp_json.sqlite: parallel_train.py's Megatron-style tensor parallelism over
    two H200s under nsys with no NVTX range of its own (MARKS=0), exported with
    --include-json=true. Its all-reduces inside the forward are launched by each rank's
    main thread, those of the backward by autograd's: tensor parallelism, not data; and
    its all-reduces' bandwidth equals a reading of NCCL's payloads and kernels."""
    from tests.helpers.paths import inflated

    report = inflated("unannotated/tp_json.sqlite")
    db = sqlite3.connect(f"file:{report}?mode=ro", uri=True)
    (marked,), = db.execute(
        "SELECT count(*) FROM NVTX_EVENTS AS e LEFT JOIN StringIds AS s ON s.id = e.textId "
        "WHERE coalesce(e.text, s.value) NOT LIKE 'nccl%'")
    assert marked == 0  # nothing but NCCL's own ranges
    with open_run([report]) as run:
        rows = collective_bandwidth(run.con)
        kinds = [g["kind"] for g in parallelism(run.con)]
    assert kinds == ["tensor"]
    _equal_to_the_payloads(report, rows)
    assert {r["bytes"] for r in rows if r["instances"] > 1} == {4_194_304}


def test_a_pipelines_sends_and_receives_get_their_bandwidth_from_nccls_payloads() -> None:
    """unannotated/pp_json.sqlite: parallel_train.py pp-1f1b (two stages, 8 micro-batches)
    under nsys with no range of its own, exported with --include-json=true: NCCL's payloads
    size each send and receive and name its peer. A pipeline stage's send and receive are
    grouped (batch_isend_irecv), and NCCL launches their one SendRecv kernel at the group's
    end, after both calls: each call is tied to that kernel, so the pair is one instance
    (`recv+send`), as c10d's calls make it in the same program under torch.profiler
    (sample_traces/pp_1f1b): 524,288 bytes, bus bandwidths within 10%. The kind is still
    read from the kernels: pipeline."""
    from tests.helpers.paths import inflated

    report = inflated("unannotated/pp_json.sqlite")
    db = sqlite3.connect(f"file:{report}?mode=ro", uri=True)
    sizes = Counter(json.loads(payload)["Message size [bytes]"] for (payload,) in db.execute(
        "SELECT e.jsonText FROM NVTX_EVENTS AS e JOIN StringIds AS s ON s.id = e.textId "
        "WHERE s.value IN ('ncclSend', 'ncclRecv') AND e.jsonText IS NOT NULL"))
    assert sizes.most_common(1)[0][0] == 524_288
    with open_run([SAMPLES / "pp_1f1b"]) as run:
        kineto = {(r["name"], r["bytes"]): r for r in collective_bandwidth(run.con)}
    with open_run([report]) as run:
        nsys = {(r["name"], r["bytes"]): r for r in collective_bandwidth(run.con)}
        kinds = [g["kind"] for g in parallelism(run.con)]
    key = ("recv+send", 524_288)
    assert set(kineto) == {key} and key in nsys
    assert nsys[key]["group_size"] == 2 and nsys[key]["instances"] > kineto[key]["instances"]
    assert nsys[key]["busbw_gbps_median"] == pytest.approx(kineto[key]["busbw_gbps_median"],
                                                           rel=0.1)
    assert kinds == ["pipeline"]


def test_an_expert_parallel_all_to_all_is_told_from_sends_and_sized_as_c10d_sizes_it() -> None:
    """unannotated/ep_json.sqlite and ep2/: gen_unannotated.py's `ep` (a mixture-of-experts
    layer, 4 experts a rank, each token routed to any rank's expert) over the same two H200s,
    once under nsys exported with --include-json=true, once under torch.profiler. PyTorch
    runs all_to_all_single with split sizes as one NCCL group of a send and a receive to
    each rank, the rank's own included: NCCL's payloads show them as sends, and its
    kernels are SendRecv ones, as a pipeline's are. The group is one all-to-all: the run
    reads as expert-parallel, not as a pipeline, and each size's bandwidth is within 10%
    of the torch.profiler run's, whose c10d calls (all_to_allv) give the same sizes."""
    from tests.helpers.paths import inflated

    path = inflated("unannotated/ep_json.sqlite")
    db = sqlite3.connect(path)
    # the export's payloads: each group's sends go to both ranks, the caller's own included
    sends = Counter(
        (pid, json.loads(text)["Peer rank"]) for pid, text in db.execute(
            "SELECT (n.globalTid >> 24) & 16777215, n.jsonText FROM NVTX_EVENTS AS n "
            "LEFT JOIN StringIds AS s ON s.id = n.textId "
            "WHERE coalesce(n.text, s.value) = 'ncclSend'"))
    assert len(sends) == 4 and len(set(sends.values())) == 1  # each rank to each, as often
    with open_run([path]) as run:
        assert [(g["kind"], g["why"]) for g in parallelism(run.con)] == [
            ("expert", "all-to-alls in the forward (tokens sent to their experts), "
                       "from NCCL's payloads")]
        nsys = {(r["name"], r["bytes"]): r for r in collective_bandwidth(run.con)}
    with open_run([SAMPLES / "ep2"]) as run:
        assert [g["kind"] for g in parallelism(run.con)] == ["expert"]
        kineto = {(r["name"], r["bytes"]): r for r in collective_bandwidth(run.con)}
    # the tokens (8,192 of 2,048 fp32 a rank) and their experts' ids (8,192 int64)
    for size in (8192 * 2048 * 4, 8192 * 8):
        assert kineto[("all_to_allv", size)]["busbw_gbps_median"] == pytest.approx(
            nsys[("all_to_allv", size)]["busbw_gbps_median"], rel=0.1)
    # the counts (2 int64): split evenly, NCCL's own all-to-all, c10d's all_to_allv
    assert nsys[("alltoall", 16)]["group_size"] == kineto[("all_to_allv", 16)]["group_size"]


def _reduce_scatters_by_pass(path: Path) -> Counter:
    """The raw Kineto trace's reduce-scatter calls (record_param_comms), counted by whether
    an autograd evaluate_function op on the same thread holds each (the backward's)."""
    with gzip.open(path, "rt") as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    backward = [(e["tid"], e["ts"], e["ts"] + e["dur"]) for e in events
                if e["name"].startswith("autograd::engine::evaluate_function")]
    calls = [e for e in events if e["name"] == "record_param_comms"
             and "reduce_scatter" in str(e.get("args", {}).get("Collective name"))]
    return Counter("backward" if any(t == c["tid"] and s <= c["ts"] <= end
                                     for t, s, end in backward) else "forward"
                   for c in calls)


def test_sequence_parallelism_is_tensor_parallelism_not_fsdp_nor_a_pipeline() -> None:
    """tp_sp2/ and unannotated/tp_sp_json.sqlite: gen_unannotated.py's `tp_sp` (a decoder
    tensor- and sequence-parallel over two H200s as PyTorch's tutorial plans it) under
    torch.profiler, and under nsys. Its all-gathers and reduce-scatters are the
    activations': as many reduce-scatters in the forward as in the backward, where FSDP's
    are the backward's alone. Under nsys, DTensor scatters each weight's shards from rank
    0 at start-up (NCCL sends, SendRecv kernels) before the first step: no pipeline. Both
    recordings read `tensor`, with sequence parallelism's advice in the
    communication-bound rank's sentence, and each size's bus bandwidth agrees within 2%."""
    from tests.helpers.paths import inflated
    from tui.analysis.parallelism import SEQUENCE_ADVICE, SEQUENCE_WHY

    for rank in (0, 1):
        assert _reduce_scatters_by_pass(SAMPLES / "tp_sp2" / f"tp_sp_rank{rank}.pt.trace.json.gz"
                                        ) == {"forward": 40, "backward": 40}
    with open_run([SAMPLES / "tp_sp2"], min_gap_ns=1_000_000) as run:
        assert [(g["kind"], g["why"]) for g in parallelism(run.con)] == [
            ("tensor", SEQUENCE_WHY)]
        kineto = {(r["name"], r["bytes"]): r for r in collective_bandwidth(run.con)}
        summary = run_summary(run, 1_000_000, "tp_sp2")
    path = inflated("unannotated/tp_sp_json.sqlite")
    db = sqlite3.connect(path)
    # the sends (and the broadcasts of the replicated biases) come before the layers'
    # all-gathers and reduce-scatters, over a short stretch of all the NCCL kernels' time
    nccl = {kind: (first, last) for kind, first, last in db.execute(
        "SELECT CASE WHEN s.value LIKE '%SendRecv%' THEN 'send' "
        "WHEN s.value LIKE '%Broadcast%' THEN 'broadcast' ELSE 'layers' END, "
        "min(k.start), max(k.start) "
        "FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS s ON s.id = k.demangledName "
        "WHERE s.value LIKE 'ncclDevKernel%' GROUP BY 1")}
    send, layers = nccl["send"], nccl["layers"]
    assert send[1] < layers[0] and 10 * (send[1] - send[0]) < layers[1] - send[0]
    with open_run([path]) as run:
        assert [(g["kind"], g["why"]) for g in parallelism(run.con)] == [
            ("tensor", SEQUENCE_WHY + ", from the NCCL kernels' names")]
        nsys = {(r["name"], r["bytes"]): r for r in collective_bandwidth(run.con)}
    names = {"reduce_scatter_tensor_coalesced": "reduce_scatter",
             "allgather_into_tensor_coalesced": "allgather"}
    for (name, size), row in kineto.items():
        if name in names:
            assert row["busbw_gbps_median"] == pytest.approx(
                nsys[(names[name], size)]["busbw_gbps_median"], rel=0.02)
    assert len([k for k in kineto if k[0] in names]) == 4
    assert "Parallelism: tensor over ranks 0, 1, from reduce-scatters inside" in (
        summary["diagnosis"]["text"])
    bound = {r["rank"]: r["diagnosis"] for r in summary["ranks"]}
    talking = [d for d in bound.values() if d["bound"] == "communication"]
    assert talking and all(d["text"].endswith(SEQUENCE_ADVICE + ".") for d in talking)


def test_a_logged_loss_all_reduced_each_step_is_no_tensor_parallelism() -> None:
    """ddp_log2/ and unannotated/ddp_log_json.sqlite: gen_unannotated.py's `ddp_log`, a
    small MLP data-parallel over two H200s (two DDP gradient buckets a step), each step's
    loss all-reduced for the log in the forward's thread, under torch.profiler and under
    nsys with NCCL's payloads. One all-reduce of one element a step beside two gradient
    all-reduces made `tensor` (at least half as many forward as backward ones); a
    metric's all-reduce is no layer's activations: the run is data-parallel. The raw
    trace's c10d calls give the sizes."""
    from tests.helpers.paths import inflated

    for rank in (0, 1):
        data = _raw(SAMPLES / "ddp_log2" / f"ddp_log_rank{rank}.pt.trace.json.gz")
        sizes = Counter(int(e["args"]["In msg nelems"]) for e in data["traceEvents"]
                        if e.get("name") == "record_param_comms"
                        and e["args"].get("Collective name") == "allreduce")
        assert sizes[1] == 5 and sum(sizes.values()) == 15  # 5 steps: 1 logged, 2 buckets
    with open_run([SAMPLES / "ddp_log2"]) as run:
        assert [(g["kind"], g["why"]) for g in parallelism(run.con)] == [
            ("data", "all-reduces in the backward (gradients)")]
    with open_run([inflated("unannotated/ddp_log_json.sqlite")]) as run:
        assert [g["kind"] for g in parallelism(run.con)] == ["data"]


def test_fsdp_of_one_unit_is_fsdp_though_its_reduce_scatter_is_outside_the_backward() -> None:
    """fsdp_root2/: gen_unannotated.py's `fsdp_root`, an MLP sharded by FSDP2 as one unit
    (`fully_shard(model)` alone) over two H200s, steps 10-14 under torch.profiler. Its one
    reduce-scatter a step runs in the backward's final callback, outside autograd's
    evaluate_function ops: counted as the forward's, as the raw trace shows. Sequence
    parallelism reduce-scatters in both passes alike; with none in the backward this is
    FSDP (it read as sequence parallelism when one forward reduce-scatter sufficed)."""
    for rank in (0, 1):
        data = _raw(SAMPLES / "fsdp_root2" / f"fsdp_root_rank{rank}.pt.trace.json.gz")
        events = [e for e in data["traceEvents"] if e.get("ph") == "X"]
        backward = [(e["tid"], e["ts"], e["ts"] + e["dur"]) for e in events
                    if e["name"].startswith("autograd::engine::evaluate_function")]
        scatters = [e for e in events if e["name"] == "record_param_comms"
                    and "reduce_scatter" in str(e["args"].get("Collective name"))]
        assert len(scatters) == 5 and not any(
            t == c["tid"] and s <= c["ts"] <= end for c in scatters for t, s, end in backward)
    with open_run([SAMPLES / "fsdp_root2"]) as run:
        assert [(g["kind"], g["why"]) for g in parallelism(run.con)] == [
            ("fsdp", "all-gathers and reduce-scatters")]


@pytest.mark.parametrize(("run", "forward_call"), [
    ("cp_allgather", "allgather_into_tensor_coalesced"), ("cp_alltoall", "all_to_allv")])
def test_context_parallelism_is_told_by_the_calls_inside_the_attention(
        run: str, forward_call: str) -> None:
    """cp_allgather/ and cp_alltoall/: gen_unannotated.py's `cp`, a decoder in DDP over two
    H200s under PyTorch's context_parallel, its keys and values all-gathered (the default
    rotation) or passed by all-to-all, steps 10-14 under torch.profiler. The raw files hold
    80 calls a rank inside the attention ops (the forward's and their backward's), and
    DDP's 85 all-reduces outside them. Read before as `data` (all-gathers with no
    reduce-scatter) and as `expert` (all-to-alls in the forward)."""
    for rank in (0, 1):
        data = _raw(SAMPLES / run / f"cp_rank{rank}.pt.trace.json.gz")
        ops = [e for e in data["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
        attention = [e for e in ops if "scaled_dot_product" in e["name"]]
        calls = [e for e in ops if e["name"] == "record_param_comms"
                 and e["args"].get("Collective name") != "wait"]

        def inside(call: dict, ops: list[dict] = attention) -> dict | None:
            return next((a for a in ops if a["tid"] == call["tid"] and a["ts"] <= call["ts"]
                         and a["ts"] + a["dur"] >= call["ts"] + call["dur"]), None)

        attended = [(c["args"]["Collective name"], inside(c)) for c in calls if inside(c)]
        assert len(attended) == 80
        assert {name for name, op in attended if "backward" not in op["name"]} == {forward_call}
        assert Counter(c["args"]["Collective name"] for c in calls
                       if inside(c) is None) == {"allreduce": 85}
    with open_run([SAMPLES / run]) as run_:
        assert [(g["kind"], g["why"], g["advice"]) for g in parallelism(run_.con)] == [
            ("context", f"{WHY['context']}, and {WHY['data']}",
             f"{ADVICE['context']}; {ADVICE['data']}")]


@pytest.mark.parametrize(("run", "figures"), [
    ("collbench", "collbench_kineto.txt"),
    ("unannotated/collbench_json.sqlite", "collbench_json.txt")])
def test_the_bus_bandwidth_of_large_collectives_is_nccl_tests_own(run: str, figures: str) -> None:
    """collbench/ and unannotated/collbench_json.sqlite: gen_unannotated.py's `collbench`
    over two H200s under torch.profiler and under nsys, a collectives' benchmark that
    times 20 calls of each size between two CUDA events as nccl-tests does and prints
    nccl-tests' bus bandwidth (tests/data/collbench/: its own output in each recording).
    From 64 MiB on, where a call is long beside the launches between calls (which the
    events' span holds and a kernel's time does not), the run's bus bandwidth is the
    program's within 7%, never under it."""
    from tests.helpers.paths import inflated

    names = {"all_reduce": ("allreduce",), "all_gather": ("_allgather_base", "allgather"),
             "reduce_scatter": ("_reduce_scatter_base", "reduce_scatter")}
    own = {}
    for line in (ROOT / "tests" / "data" / "collbench" / figures).read_text().splitlines():
        _, op, *fields = line.split()
        values = dict(f.split("=") for f in fields)
        own[(op, int(values["bytes"]))] = float(values["busbw"])
    path = inflated(run) if run.endswith(".sqlite") else SAMPLES / run
    with open_run([path]) as run_:
        rows = collective_bandwidth(run_.con)
    checked = 0
    for (op, size), busbw in own.items():
        if size < 1 << 26:
            continue
        (row,) = [r for r in rows if r["name"] in names[op] and r["bytes"] == size]
        assert row["instances"] == 25  # 5 warm-up calls and 20 timed
        assert busbw <= row["busbw_gbps_median"] <= 1.07 * busbw, (op, size)
        checked += 1
    assert checked == 6


def test_context_parallelism_under_nsys_with_pytorch_s_op_ranges() -> None:
    """unannotated/cp_pt_json.sqlite: `cp`'s 12 steps under nsys --pytorch=autograd-nvtx,
    which puts an NVTX range round each of PyTorch's ops. NCCL's all-gather and all-to-all
    kernels are launched inside `aten::scaled_dot_product_attention` ranges and their
    backward's on the same thread (sqlite3), the gradients' all-reduces outside them: the
    run is context-parallel as under torch.profiler (it read `data` from the kernels'
    names alone)."""
    from tests.helpers.paths import inflated

    path = inflated("unannotated/cp_pt_json.sqlite")
    launched = dict(sqlite3.connect(path).execute(
        "SELECT s.value LIKE '%AllReduce%', count(*) "
        "FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS s ON s.id = k.demangledName "
        "JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.correlationId = k.correlationId "
        " AND r.globalTid >> 24 = k.globalPid >> 24 "
        "WHERE s.value LIKE 'ncclDevKernel%' AND EXISTS ("
        " SELECT 1 FROM NVTX_EVENTS AS n LEFT JOIN StringIds AS t ON t.id = n.textId"
        " WHERE n.globalTid = r.globalTid AND n.start <= r.start AND n.\"end\" >= r.start"
        " AND coalesce(n.text, t.value) LIKE '%scaled_dot_product%attention%')"
        " GROUP BY 1").fetchall())
    assert launched.get(0, 0) > 0 and 1 not in launched
    with open_run([path]) as run:
        assert [(g["kind"], g["why"]) for g in parallelism(run.con)] == [
            ("context", f"{WHY['context']}, and {WHY['data']}, from the NCCL kernels' names")]


def test_a_communication_benchmark_has_no_model_parallelism_nor_a_window_of_its_calls(
        ) -> None:
    """collbench/: a program that runs collectives alone (all-reduces, all-gathers and
    reduce-scatters of a buffer, as nccl-tests does) over two H200s under torch.profiler.
    Its other kernels (the buffers' fills) ran 0.4 ms beside 76 ms of NCCL's a rank (the
    raw files). It read `fsdp` (all-gathers and reduce-scatters), with FSDP's prefetching
    advice; with no compute between its calls it has no model's parallelism to tell. Its
    window was the span of PyTorch's `nccl:*` annotations of the calls, which are a
    library's own ranges as NCCL's NVTX ones are."""
    from tui.analysis.parallelism import BENCHMARK_WHY
    from tui.analysis.window import work_window

    for rank in (0, 1):
        data = _raw(SAMPLES / "collbench" / f"collbench_rank{rank}.pt.trace.json.gz")
        kernels = [e for e in data["traceEvents"] if e.get("cat") == "kernel"]
        nccl = sum(e["dur"] for e in kernels if "nccl" in e["name"].lower())
        other = sum(e["dur"] for e in kernels if "nccl" not in e["name"].lower())
        assert other < 0.01 * nccl
        assert any(e["name"].startswith("nccl:") and e.get("cat") == "user_annotation"
                   for e in data["traceEvents"])
    with open_run([SAMPLES / "collbench"]) as run:
        assert [(g["kind"], g["why"], g["advice"]) for g in parallelism(run.con)] == [
            (None, BENCHMARK_WHY, None)]
    with open_trace(SAMPLES / "collbench" / "collbench_rank0.pt.trace.json.gz") as trace:
        window = work_window(trace.con)
    assert window is not None and window.kind != "phases"
