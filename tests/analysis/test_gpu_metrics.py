"""The GPUs' hardware counters of an nsys export (--gpu-metrics-devices=all): loaded into
gpu_metrics, and their means per NVTX range, per kernel and over the busy span, checked
against sqlite3 over the raw export."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from pathlib import Path

import pytest
from rich.console import Console

from tests.conftest import inflated, sample
from tests.helpers.pilot import details_text, lane_text, settle, sync
from tests.helpers.tables import all_rows, ready
from tui.analysis.gpu_metrics import kernel_means, metric_devices, range_means
from tui.analysis.summary import trace_summary
from tui.apps.trace_app import TraceApp
from tui.core.gpu_metric_names import (
    DRAM_READ,
    DRAM_WRITE,
    PCIE_RX,
    REPORTED,
    SM,
    TENSOR,
    is_kept,
)
from tui.loading.parquet_store import export_parquet, open_store_trace
from tui.loading.trace import open_trace
from tui.sources.nsys_gpu_metrics import type_devices
from tui.views.reports.gpu_metrics import print_gpu_metrics
from tui.views.reports.tensor_cores import tensor_core_lines

CHECKED = (SM, TENSOR, DRAM_READ, DRAM_WRITE)


def _oracle_range(export: Path, range_name: str) -> dict[str, float]:
    """sqlite3 over the export: each metric's mean over the samples inside the NVTX range
    of that name (one instance in these loops), [start, end)."""
    db = sqlite3.connect(export)
    try:
        rows = db.execute(
            """
            WITH r AS (
                SELECT n.start AS s, n.end AS e
                FROM NVTX_EVENTS AS n LEFT JOIN StringIds AS t ON t.id = n.textId
                WHERE coalesce(n.text, t.value) = ?
            )
            SELECT i.metricName, avg(g.value)
            FROM GPU_METRICS AS g
            JOIN TARGET_INFO_GPU_METRICS AS i USING (typeId, metricId)
            JOIN r ON g.timestamp >= r.s AND g.timestamp < r.e
            GROUP BY i.metricName
            """, (range_name,)).fetchall()
    finally:
        db.close()
    return dict(rows)


def _oracle_kernel(export: Path, kernel: str) -> dict[str, float]:
    """sqlite3: each metric's mean over the samples inside any instance of the kernel.

    The samples are copied into a temporary table with an index on their time, and each
    instance (the CROSS JOIN's outer side, which SQLite keeps) looks up its own: a scan
    of every sample for each of the 1,050 instances took 150 s on a busy machine, this 2 s."""
    db = sqlite3.connect(export)
    try:
        db.execute("CREATE TEMP TABLE samples AS SELECT metricId, timestamp, value "
                   "FROM GPU_METRICS")
        db.execute("CREATE INDEX temp.samples_by_time ON samples (timestamp)")
        rows = db.execute(
            """
            WITH k AS (
                SELECT k.start AS s, k.end AS e
                FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS t ON t.id = k.demangledName
                WHERE t.value = ?
            ),
            inside AS (
                SELECT DISTINCT g.metricId, g.timestamp, g.value
                FROM k CROSS JOIN temp.samples AS g
                WHERE g.timestamp >= k.s AND g.timestamp < k.e
            )
            SELECT i.metricName, avg(inside.value)
            FROM inside JOIN TARGET_INFO_GPU_METRICS AS i USING (metricId)
            GROUP BY i.metricName
            """, (kernel,)).fetchall()
    finally:
        db.close()
    return dict(rows)


def test_every_sample_of_the_kept_metrics_is_loaded() -> None:
    export = inflated("loops/loop_memory.sqlite")
    db = sqlite3.connect(export)
    names = sorted(n for (n,) in db.execute("SELECT metricName FROM TARGET_INFO_GPU_METRICS"))
    kept = [n for n in names if is_kept(n)]
    (samples,), = db.execute(
        "SELECT count(*) FROM GPU_METRICS JOIN TARGET_INFO_GPU_METRICS USING (typeId, metricId) "
        f"WHERE metricName IN ({', '.join('?' * len(kept))})", kept).fetchall()
    (recorded,), = db.execute("SELECT count(*) FROM GPU_METRICS").fetchall()
    db.close()
    with open_trace(export) as trace:
        assert trace.con.execute("SELECT count(*) FROM gpu_metrics").fetchone() == (samples,)
        loaded = trace.con.execute(
            "SELECT device, name FROM gpu_metric_names ORDER BY name").fetchall()
        # the values as nsys stored them, metric by metric
        ours = trace.con.execute(
            "SELECT n.name, sum(g.value)::BIGINT, min(g.ts_ns), max(g.ts_ns) FROM gpu_metrics AS g "
            "JOIN gpu_metric_names AS n USING (device, metric_id) GROUP BY n.name "
            "ORDER BY n.name").fetchall()
    db = sqlite3.connect(export)
    theirs = db.execute(
        "SELECT metricName, sum(value), min(timestamp), max(timestamp) FROM GPU_METRICS "
        "JOIN TARGET_INFO_GPU_METRICS USING (typeId, metricId) "
        f"WHERE metricName IN ({', '.join('?' * len(kept))}) GROUP BY metricName "
        "ORDER BY metricName", kept).fetchall()
    db.close()
    assert recorded > 300_000 and len(names) == 22
    # the nine shares of peak tui reads; clocks, graphics and unallocated warps left out
    assert kept == sorted(REPORTED) and loaded == [(0, n) for n in kept]
    assert 0.3 < samples / recorded < 0.5
    assert ours == theirs


@pytest.mark.parametrize(("loop", "range_name", "expected"), [
    ("memory", "memory", {DRAM_READ: 43.0, DRAM_WRITE: 43.0, TENSOR: 0.0}),
    ("compute", "compute", {TENSOR: 93.5}),
])
def test_range_means_equal_sqlite(loop: str, range_name: str,
                                  expected: dict[str, float]) -> None:
    export = inflated(f"loops/loop_{loop}.sqlite")
    oracle = _oracle_range(export, range_name)
    with open_trace(export) as trace:
        ours = range_means(trace.con)[(range_name, 0)]
    for metric in CHECKED:
        assert ours[metric] == pytest.approx(oracle[metric], abs=0.01), metric
    for metric, value in expected.items():  # as measured by hand in each loop's range
        assert ours[metric] == pytest.approx(value, abs=0.1), metric


def test_kernel_means_equal_sqlite() -> None:
    export = inflated("loops/loop_compute.sqlite")
    with open_trace(export) as trace:
        by_kernel = kernel_means(trace.con)
        (top,), = trace.con.execute(
            "SELECT name FROM gpu_activities WHERE kind = 'kernel' GROUP BY name "
            "ORDER BY sum(duration_ns) DESC LIMIT 1").fetchall()
    oracle = _oracle_kernel(export, top)
    for metric in CHECKED:
        assert by_kernel[(top, 0)][metric] == pytest.approx(oracle[metric], abs=0.01), metric
    assert by_kernel[(top, 0)][TENSOR] > 85  # the bf16 GEMM keeps the tensor cores busy


def test_summary_reports_the_counters_and_the_diagnosis_reads_them() -> None:
    export = inflated("loops/loop_memory.sqlite")
    with open_trace(export) as trace:
        summary = trace_summary(trace, 1_000_000)
    gm = summary["gpu_metrics"]
    assert gm["sample_rate_hz"] == pytest.approx(2000, rel=0.05)
    assert SM in gm["metrics"] and TENSOR in gm["metrics"]
    assert [w["device"] for w in gm["whole"]] == [0]
    memory = next(r for r in gm["by_range"] if r["range"] == "memory")
    assert memory["mean"][DRAM_READ] == pytest.approx(43.0, abs=0.1)
    assert {k["name"] for k in gm["by_kernel"]} == {k["name"] for k in summary["kernels"]}
    # each of the longest gaps: the GPU idle, so SMs nearly all idle too
    assert {g["start_ns"] for g in gm["by_gap"]} == {g["start_ns"] for g in summary["gaps"]}
    assert all(g["mean"][SM] < 10 for g in gm["by_gap"])
    text = summary["diagnosis"]["text"]
    assert "Hardware counters" in text and "'memory' 86%" in text
    # the counters over the window the sentence names (the loop's range), not the busy
    # span with the program's start-up: SMs 97% there, 90% over the busy span
    assert summary["diagnosis"]["window"]["name"] == "memory"
    oracle = _oracle_range(export, "memory")
    assert f"SMs active {oracle[SM]:.0f}% (good)" in text
    assert f"DRAM at {oracle[DRAM_READ] + oracle[DRAM_WRITE]:.0f}% of its peak" in text
    whole = gm["whole"][0]["mean"]
    assert f"{whole[SM]:.0f}" != f"{oracle[SM]:.0f}"
    # the same window's means kept beside the busy span's, for the table and the tensor
    # cores' line: the busy span's read low beside the sentence
    assert [w["device"] for w in gm["window"]] == [0]
    for metric in CHECKED:
        assert gm["window"][0]["mean"][metric] == pytest.approx(oracle[metric], abs=0.006)
    assert tensor_core_lines(summary)[0] == (
        f"Tensor cores (counters): Tensor Active {oracle[TENSOR]:.1f}% in the window of "
        f"work, {whole[TENSOR]:.1f}% over GPU 0's busy span")
    console = Console(width=80, record=True)
    print_gpu_metrics(gm, console)
    lines = console.export_text().splitlines()
    assert all(len(line) <= 80 for line in lines)
    header = next(line for line in lines if "over" in line)
    assert all(h in header for h in ("SM", "tensor", "DRAM rd", "DRAM wr"))
    memory_row = next(line for line in lines if "NVTX memory" in line)
    assert f"{memory['mean'][DRAM_READ]:.1f}" in memory_row
    window_row = next(line for line in lines if "window of work" in line)
    assert f"{oracle[SM]:.1f}" in window_row and f"{oracle[DRAM_READ]:.1f}" in window_row


def test_compute_loop_reads_tensor_cores_busy() -> None:
    with open_trace(inflated("loops/loop_compute.sqlite")) as trace:
        summary = trace_summary(trace, 1_000_000)
    assert summary["diagnosis"]["bound"] == "compute"
    assert "the math runs on tensor cores" in summary["diagnosis"]["text"]


def test_copy_loop_reads_the_pcie_throughput() -> None:
    export = inflated("loops/loop_copy.sqlite")
    oracle = _oracle_range(export, "copy")
    with open_trace(export) as trace:
        summary = trace_summary(trace, 1_000_000)
    copy = next(r for r in summary["gpu_metrics"]["by_range"] if r["range"] == "copy")
    assert copy["mean"][PCIE_RX] == pytest.approx(oracle[PCIE_RX], abs=0.01)
    assert copy["mean"][PCIE_RX] == pytest.approx(10.4, abs=0.1)  # as measured by hand
    assert summary["diagnosis"]["bound"] == "copy"
    assert "PCIe into the GPU at only 10% of its peak" in summary["diagnosis"]["text"]


def test_an_export_without_counters_has_none() -> None:
    with open_trace(sample("small_kernels.sqlite")) as trace:
        assert trace.con.execute("SELECT count(*) FROM gpu_metrics").fetchone() == (0,)
        summary = trace_summary(trace, 1_000_000)
    assert "gpu_metrics" not in summary
    assert "Hardware counters" not in summary["diagnosis"]["text"]


def test_unreadable_samples_are_skipped_and_the_rest_loads(tmp_path: Path) -> None:
    # the real export with GPU_METRICS' value column renamed, as a schema tui does not know
    export = tmp_path / "loop_copy.sqlite"
    shutil.copyfile(inflated("loops/loop_copy.sqlite"), export)
    db = sqlite3.connect(export)
    db.execute("ALTER TABLE GPU_METRICS RENAME COLUMN value TO sample")
    (kernels,), = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchall()
    db.commit()
    db.close()
    with open_trace(export, use_cache=False) as trace:
        assert trace.con.execute("SELECT count(*) FROM gpu_metrics").fetchone() == (0,)
        assert trace.con.execute("SELECT count(*) FROM gpu_metric_names").fetchone() == (0,)
        assert trace.con.execute(
            "SELECT count(*) FROM gpu_activities WHERE kind = 'kernel'").fetchone() == (kernels,)
        assert any(w.startswith("skipped GPU_METRICS") for w in trace.warnings)
        assert metric_devices(trace.con) == []


def test_a_type_id_names_its_gpu_by_the_low_byte() -> None:
    # as a two-GPU H200 report wrote them: the source's id plus each GPU's PerfWorks id
    source = 281479271677952
    assert type_devices([source, source + 1], {0: 0, 1: 1}) == {source: 0, source + 1: 1}
    assert type_devices([source + 1, source], {1: 3, 0: 2}) == {source: 2, source + 1: 3}
    assert type_devices([source], {0: 5}) == {source: 5}  # one GPU: that one


@sync
async def test_metric_lanes_under_the_gpu_toggle_and_show_the_counters() -> None:
    app = TraceApp(inflated("loops/loop_memory.sqlite"))
    async with app.run_test(size=(80, 24)) as pilot:
        timeline = await settle(pilot)
        labels = [lane.label for lane in timeline.lanes]
        assert labels[:5] == ["GPU0 s7", "SM GPU0", "tensor GPU0", "DRAM GPU0", "PCIe GPU0"]
        # the loop's range: SMs nearly all active, DRAM read + write at 86% of its peak
        await pilot.press("at", *"memory", "enter")
        timeline = await settle(pilot)
        moves = timeline.lane_index - labels.index("SM GPU0")
        await pilot.press(*(["up"] * moves if moves > 0 else ["down"] * -moves))
        timeline = await settle(pilot)
        assert timeline.lane is not None and timeline.lane.label == "SM GPU0"
        for _ in range(100):
            await pilot.pause()
            if "counters" in details_text(pilot):
                break
            await asyncio.sleep(0.01)
        text = details_text(pilot)
        npc = timeline.view.npc
        lo = timeline.cursor_t // npc * npc
        db = sqlite3.connect(inflated("loops/loop_memory.sqlite"))
        (dram_read,), = db.execute(
            "SELECT avg(g.value) FROM GPU_METRICS AS g JOIN TARGET_INFO_GPU_METRICS AS i "
            "USING (typeId, metricId) WHERE i.metricName = ? AND g.timestamp >= ? "
            "AND g.timestamp < ?", (DRAM_READ, lo, lo + npc)).fetchall()
        db.close()
        assert dram_read > 40  # the loop's elementwise updates: DRAM read near 43% of peak
        assert "GPU 0" in text and f"DRAM rd {dram_read:.0f}%" in text and "tensor 0%" in text
        sm_row = lane_text(timeline, 1)
        assert sm_row.startswith("SM GPU0") and "█" in sm_row
        await pilot.press("m")
        timeline = await settle(pilot)
        assert [lane.label for lane in timeline.lanes][:2] == ["GPU0 s7", "NVTX 0"]
        await pilot.press("m")
        timeline = await settle(pilot)
        assert [lane.label for lane in timeline.lanes][1] == "SM GPU0"


@sync
async def test_kernels_and_nvtx_tables_show_the_means() -> None:
    export = inflated("loops/loop_compute.sqlite")
    app = TraceApp(export)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        kernels = await ready(pilot, "kernel-names")
        top = kernels.row_at(0)
        assert top is not None
        oracle = _oracle_kernel(export, top["name"])
        assert top["sm_pct"] == pytest.approx(oracle[SM], abs=0.01)
        assert top["tensor_pct"] == pytest.approx(oracle[TENSOR], abs=0.01)
        assert top["dram_pct"] == pytest.approx(oracle[DRAM_READ] + oracle[DRAM_WRITE],
                                                abs=0.02)
        assert "TC %" in kernels.render_line(0).text
        await pilot.press("4")
        ranges = await ready(pilot, "nvtx-table")
        rows = {r["name"]: r for r in all_rows(ranges)}
        oracle = _oracle_range(export, "compute")
        assert rows["compute"]["tensor_pct"] == pytest.approx(oracle[TENSOR], abs=0.01)
        assert rows["compute"]["tensor_pct"] == pytest.approx(93.5, abs=0.1)


@sync
async def test_tables_without_counters_keep_their_columns() -> None:
    app = TraceApp(sample("gappy_training.sqlite"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        kernels = await ready(pilot, "kernel-names")
        assert "sm_pct" not in kernels.keys and "TC %" not in kernels.render_line(0).text


def test_a_converted_store_keeps_the_counters(tmp_path: Path) -> None:
    export = inflated("loops/loop_memory.sqlite")
    with open_trace(export) as trace:
        store = export_parquet(trace, tmp_path / "loop.tui-store")
        samples = trace.con.execute("SELECT count(*) FROM gpu_metrics").fetchone()
    with open_store_trace(store) as trace:
        assert trace.con.execute("SELECT count(*) FROM gpu_metrics").fetchone() == samples
        assert [d.device for d in metric_devices(trace.con)] == [0]
    for table in ("gpu_metrics", "gpu_metric_names"):  # as a store written before them
        (store / f"{table}.parquet").unlink()
    with open_store_trace(store) as trace:
        assert metric_devices(trace.con) == []


def test_a_gpu_the_program_did_not_use_has_no_range_means() -> None:
    """nsys' --gpu-metrics-devices=all samples every GPU of the machine, those the program
    never used too: their counters say nothing of its ranges. A generated case: the real
    loop_memory export with its GPU's samples copied as a second GPU's, on which nothing
    ran. The summary's means are GPU 0's alone, as before the copy."""
    export = inflated("loops/loop_memory.sqlite")
    with open_trace(export) as trace:
        alone = trace_summary(trace, 1_000_000)["gpu_metrics"]
    with open_trace(export, use_cache=False) as trace:
        for table in ("gpu_metric_names", "gpu_metrics"):
            trace.con.execute(f"INSERT INTO {table} SELECT * REPLACE (1 AS device) "
                              f"FROM {table} WHERE device = 0")
        assert metric_devices(trace.con)[1].device == 1
        beside = trace_summary(trace, 1_000_000)["gpu_metrics"]
    assert {r["device"] for r in beside["by_range"]} == {0}
    assert beside["by_range"] == alone["by_range"]
    assert beside["whole"] == alone["whole"]


def test_xlas_compile_ranges_are_no_memory_phase() -> None:
    """XLA's compile passes have NVTX ranges of their own, on compile threads, while the GPU
    runs other work (a two-GPU JAX program's report named its GEMM's LLVM emission, 79% of
    DRAM's peak meanwhile): no phase of the program's. The figures are those the summary
    gave that range and loop_memory's `memory` range."""
    from tui.analysis.gpu_metrics import _memory_phases

    by_range = [
        {"range": "XlaEmitLlvmIr:#module=gemm_fusion_dot.9,program_id=85498#", "device": 0,
         "mean": {DRAM_READ: 71.0, DRAM_WRITE: 8.0}},
        {"range": "memory", "device": 0, "mean": {DRAM_READ: 43.0, DRAM_WRITE: 43.0}},
    ]
    assert _memory_phases(by_range) == ("memory-bound phases, DRAM near its peak bandwidth "
                                        "(read + write): 'memory' 86%")
