"""Collective matching on generated ranks: three ranks, one late, clocks a few µs apart,
one rank's window missing the first collective. Generated data: labelled as such."""

from __future__ import annotations

import duckdb

from tui.analysis.ranks import collective_instances, rank_analysis

NAME = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
PERIOD = 10_000_000  # one collective every 10 ms
LATE = 1_000_000  # rank 2 reaches every collective 1 ms after the others
SKEW = {0: 0, 1: 7_000, 2: -4_000}  # each rank's clock offset


def _run() -> duckdb.DuckDBPyConnection:
    rows = []
    for rank in (0, 1, 2):
        for k in range(6):
            if rank == 1 and k == 0:
                continue  # rank 1's profiler started after the first collective
            end = k * PERIOD + 2_000_000 + SKEW[rank]
            start = end - (100_000 if rank == 2 else 100_000 + LATE)
            rows.append((rank, "kernel", rank, NAME, start, end, end - start))
            rows.append((rank, "kernel", rank, "gemm", start - 500_000, start - 100_000,
                         400_000))
    con = duckdb.connect()
    con.execute("CREATE TABLE gpu_activities (rank INT, kind VARCHAR, device INT, "
                "name VARCHAR, start_ns BIGINT, end_ns BIGINT, duration_ns BIGINT)")
    con.executemany("INSERT INTO gpu_activities VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    con.execute("CREATE TABLE trace_meta AS SELECT range::INT AS rank, 'rank' AS key, "
                "range::VARCHAR AS value FROM range(3)")
    con.execute("CREATE TABLE gpu_idle (rank INT, device INT, duration_ns BIGINT)")
    con.execute("CREATE TABLE host_activities (rank INT, kind VARCHAR, name VARCHAR, "
                "depth INT, duration_ns BIGINT)")
    return con


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
