"""Collective matching and the straggler verdict on generated ranks (generated data,
labelled as such): three ranks, one late, clocks a few µs apart, one rank's window missing
the first collective; and two ranks in training steps whose waits for each other are
just under or over the straggler threshold."""

from __future__ import annotations

import duckdb
import pytest

from tui.analysis.rank_findings import rank_findings, straggler_headline
from tui.analysis.ranks import collective_instances, rank_analysis

NAME = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
GATHER = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
PERIOD = 10_000_000  # one collective every 10 ms
LATE = 1_000_000  # rank 2 reaches every collective 1 ms after the others
SKEW = {0: 0, 1: 7_000, 2: -4_000}  # each rank's clock offset
MS = 1_000_000


def _connection(gpu: list[tuple], host: list[tuple], ranks: int) -> duckdb.DuckDBPyConnection:
    """The combined tables a run's queries read, from generated rows."""
    con = duckdb.connect()
    con.execute("CREATE TABLE gpu_activities (rank INT, kind VARCHAR, device INT, "
                "name VARCHAR, start_ns BIGINT, end_ns BIGINT, duration_ns BIGINT, "
                "correlation BIGINT)")
    if gpu:
        con.executemany("INSERT INTO gpu_activities VALUES (?, ?, ?, ?, ?, ?, ?, ?)", gpu)
    con.execute(f"CREATE TABLE trace_meta AS SELECT range::INT AS rank, 'rank' AS key, "
                f"range::VARCHAR AS value FROM range({ranks})")
    con.execute("CREATE TABLE gpu_idle (rank INT, device INT, duration_ns BIGINT)")
    con.execute("CREATE TABLE host_activities (rank INT, kind VARCHAR, name VARCHAR, "
                "depth INT, start_ns BIGINT, end_ns BIGINT, duration_ns BIGINT, "
                "correlation BIGINT)")
    if host:
        con.executemany("INSERT INTO host_activities VALUES (?, ?, ?, ?, ?, ?, ?, ?)", host)
    return con


def _run() -> duckdb.DuckDBPyConnection:
    rows = []
    for rank in (0, 1, 2):
        for k in range(6):
            if rank == 1 and k == 0:
                continue  # rank 1's profiler started after the first collective
            end = k * PERIOD + 2_000_000 + SKEW[rank]
            start = end - (100_000 if rank == 2 else 100_000 + LATE)
            rows.append((rank, "kernel", rank, NAME, start, end, end - start, None))
            rows.append((rank, "kernel", rank, "gemm", start - 500_000, start - 100_000,
                         400_000, None))
    return _connection(rows, [], 3)


def test_late_rank_is_the_straggler_despite_skew_and_a_missing_collective() -> None:
    con = _run()
    result = rank_analysis(con)
    rows = {r["rank"]: r for r in result["ranks"]}
    assert result["straggler"] == 2
    assert rows[0]["wait_ns"] == 6 * LATE  # waits in all six
    assert rows[1]["wait_ns"] == 5 * LATE  # its window saw five
    assert rows[2]["wait_ns"] == 0
    assert rows[2]["caused_ns"] == 11 * LATE
    assert rows[0]["waits_in"] == NAME
    assert rows[0]["comm_ns"] == 6 * (100_000 + LATE) and rows[0]["compute_ns"] == 6 * 400_000
    instances = collective_instances(con).to_pylist()
    by_instance: dict[int, set[int]] = {}
    for kernel in instances:
        by_instance.setdefault(kernel["instance"], set()).add(kernel["rank"])
    assert by_instance == {1: {0, 2}, **{k: {0, 1, 2} for k in range(2, 7)}}
    # no steps: judged over the whole trace, against the longest span of a rank's NCCL
    # kernels (rank 0's, first to last), not its GPU span (its first GEMM 500 µs earlier)
    verdict = result["balance"]
    assert verdict["measure"] == "whole trace"
    assert verdict["net_hold_ns"] == 11 * LATE // 2  # the others' wait, per other rank
    assert rows[0]["span_ns"] == 5 * PERIOD + LATE + 600_000
    assert verdict["reference_ns"] == rows[0]["comm_span_ns"] == 5 * PERIOD + LATE + 100_000


def _steps(waits: list[dict[int, int]], host_ns: dict[int, int], steps: int = 4,
           period: int = 47 * MS) -> duckdb.DuckDBPyConnection:
    """Two ranks in `steps` training steps of `period`. Each step runs a 44 ms GEMM and,
    ending at 20 ms and 44 ms into it, one collective per entry of `waits`: {rank: how
    long that rank waits in it}; the kernel of a rank that waits is that much longer.
    Each rank's ProfilerStep host range lasts `host_ns[rank]` and holds the launch calls."""
    gpu, host = [], []
    for rank in (0, 1):
        correlation = 0
        for k in range(steps):
            t = k * period
            host.append((rank, "annotation", f"ProfilerStep#{k}", 0, t - MS,
                         t - MS + host_ns[rank], host_ns[rank], None))
            kernels = [("gemm", t, t + 44 * MS)]
            for name, end, wait in zip((NAME, GATHER), (20 * MS, 44 * MS), waits,
                                       strict=False):
                kernels.append((name, t + end - 100_000 - wait.get(rank, 0), t + end))
            for name, start, end in kernels:
                correlation += 1
                gpu.append((rank, "kernel", rank, name, start, end, end - start,
                            correlation))
                host.append((rank, "runtime", "cudaLaunchKernel", 0, t - MS + correlation,
                             t - MS + correlation + 5_000, 5_000, correlation))
    return _connection(gpu, host, 2)


# Rank 0's host range is the longer (46 ms against 44 ms) in every case: host step
# lengths alone would call rank 0 the slow one. The GPU step is 44 ms, so the straggler
# threshold is 5% of it: 2.2 ms of net hold-up per step.
FSDP_LIKE = [{0: 10 * MS}, {1: 8 * MS}]  # rank 0 waits 10 ms in one, rank 1 8 ms in the next


@pytest.mark.parametrize(("waits", "straggler", "net_ms"), [
    (FSDP_LIKE, None, 2),  # 2 ms more waiting on one side, 4.5%: balanced
    ([{0: 10 * MS}, {1: 6 * MS}], 1, 4),  # 4 ms, 9.1%: rank 1 holds rank 0 up
    ([{0: 2 * MS}], None, 2),  # rank 1 always late, but by 2 ms, 4.5%: balanced
    ([{0: 3 * MS}], 1, 3),  # by 3 ms, 6.8%: rank 1 is the straggler
    ([{1: 3 * MS}], 0, 3),  # the other way round
])
def test_a_straggler_is_named_only_from_five_percent_of_the_gpu_step(
        waits: list[dict[int, int]], straggler: int | None, net_ms: int) -> None:
    con = _steps(waits, host_ns={0: 46 * MS, 1: 44 * MS})
    result = rank_analysis(con)
    verdict, rows = result["balance"], {r["rank"]: r for r in result["ranks"]}
    assert [rows[r]["step_host_ns"] for r in (0, 1)] == [46 * MS, 44 * MS]
    assert [rows[r]["step_gpu_ns"] for r in (0, 1)] == [44 * MS, 44 * MS]
    assert verdict["measure"] == "per step"
    assert (verdict["reference_ns"], verdict["threshold_ns"]) == (44 * MS, 2_200_000)
    assert result["straggler"] == straggler
    assert verdict["net_hold_ns"] == net_ms * MS
    findings = rank_findings(con, result, {})
    assert findings[0].rule == ("ranks_balanced" if straggler is None else "straggler")
    if straggler is not None:
        assert findings[0].text.startswith(f"Rank {straggler} is the straggler")
        assert findings[0].cost_ns == 4 * rows[straggler]["caused_per_step_ns"]
        assert len(findings[0].rows) == 4  # one waiting kernel a step on the other rank


def test_the_balanced_verdict_states_its_figures() -> None:
    con = _steps(FSDP_LIKE, host_ns={0: 46 * MS, 1: 44 * MS})
    result = rank_analysis(con)
    rows = {r["rank"]: r for r in result["ranks"]}
    assert (rows[0]["wait_per_step_ns"], rows[1]["wait_per_step_ns"]) == (10 * MS, 8 * MS)
    assert (rows[0]["caused_per_step_ns"], rows[1]["caused_per_step_ns"]) == (8 * MS, 10 * MS)
    findings = rank_findings(con, result, {})
    assert [f.text for f in findings] == [
        "Ranks are balanced: no rank holds the others up in NCCL kernels by 5% or more (a "
        "straggler is named from 5% of the 44 ms median GPU step, 2.2 ms). The most is rank "
        "1, by 2 ms per step, 4.5% of the 44 ms median GPU step: rank 0 waits 10 ms per step "
        "for it, it waits 8 ms for rank 0.",
        "NCCL kernels take 16% (rank 1) to 19% (rank 0) of each rank's kernel time.",
        "Median step time from the host ranges 44 ms (rank 1) to 46 ms (rank 0); on the GPU "
        "(first start to last end of the work each step launched) 44 ms on every rank.",
    ]
    assert straggler_headline(result["balance"]) == (
        "no straggler: ranks are balanced (rank 1 holds the others up most, by 2 ms per "
        "step, 4.5% of the 44 ms median GPU step; a straggler is named from 5%, 2.2 ms)")


def test_ranks_that_share_no_collective_get_no_verdict() -> None:
    """Rank 0 ran an all-reduce, rank 1 an all-gather: nothing to match, no straggler."""
    gpu = [(0, "kernel", 0, NAME, 0, 2 * MS, 2 * MS, None),
           (1, "kernel", 1, GATHER, 0, MS, MS, None)]
    con = _connection(gpu, [], 2)
    result = rank_analysis(con)
    assert result["straggler"] is None
    findings = rank_findings(con, result, {})
    assert findings[0].rule == "no_shared_collectives"
    assert findings[0].text.startswith("No NCCL kernel was matched across ranks")
