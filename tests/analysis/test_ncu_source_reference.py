"""The Source view equals Nsight Compute's own Source page on the same report: every
instruction of `ncu -i hot.ncu-rep --page source --csv --print-source sass --kernel-name K`
(text, samples all and not issued, each stall reason, instructions and thread instructions
executed, memory columns) and every CUDA line of `--print-source cuda,sass` (the same,
summed per line), for the six kernels of recordings/source_view/hot.cu."""

from __future__ import annotations

import duckdb
import pytest

from tests.helpers.ncu_source import (
    KERNELS,
    NCU_METRICS,
    NCU_STALLS,
    hot_loaded,
    ncu_lines,
    ncu_sass,
    number,
)
from tests.helpers.paths import sample
from tui.analysis.ncu.source import NO_COUNTERS, SourceView, source_view
from tui.core.queries import load_query
from tui.sources.ncu.load import load_ncu
from tui.sources.ncu.load_source import load_source


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    return hot_loaded()


@pytest.fixture(scope="module")
def views(con: duckdb.DuckDBPyConnection) -> list[SourceView]:
    return [source_view(con, i, k) for i, k in enumerate(KERNELS)]


def _stalls(con: duckdb.DuckDBPyConnection, launch: int) -> dict[tuple[int, str], tuple]:
    rows = con.execute("SELECT address, reason, samples, samples_not_issued FROM "
                       "ncu_sass_stalls WHERE launch_id = ?", [launch]).fetchall()
    return {(a, r): (n, ni) for a, r, n, ni in rows}


def _metrics(con: duckdb.DuckDBPyConnection, launch: int) -> dict[tuple[int, str], float]:
    rows = con.execute("SELECT address, metric, value FROM ncu_sass_metrics "
                       "WHERE launch_id = ?", [launch]).fetchall()
    return {(a, m): v for a, m, v in rows}


@pytest.mark.slow
@pytest.mark.parametrize(("launch", "kernel"), list(enumerate(KERNELS)))
def test_every_instruction_equals_ncu(con: duckdb.DuckDBPyConnection,
                                      views: list[SourceView], launch: int,
                                      kernel: str) -> None:
    theirs = ncu_sass(f"hot.{kernel}.sass.csv.gz")
    view = views[launch]
    assert [f"0x{s.address:x}" for s in view.sass] == [r["Address"] for r in theirs]
    stalls, metrics = _stalls(con, launch), _metrics(con, launch)
    compared = 0
    for ours, row in zip(view.sass, theirs, strict=True):
        assert ours.instruction == row["Source"].rstrip()
        assert (ours.stall_samples, ours.stall_samples_not_issued, ours.inst_executed,
                ours.thread_inst_executed) == (
            int(row["Warp Stall Sampling (All Samples)"]),
            int(row["Warp Stall Sampling (Not-issued Samples)"]),
            int(row["Instructions Executed"]), int(row["Thread Instructions Executed"]))
        for short, reason in NCU_STALLS.items():
            got = stalls.get((ours.address, reason), (0, 0))
            if f"stall_{short}" in row:
                assert got[0] == int(row[f"stall_{short}"]), (hex(ours.address), short)
                compared += 1
            if f"stall_{short} (Not Issued)" in row:
                assert got[1] == int(row[f"stall_{short} (Not Issued)"]), short
        for column, metric in NCU_METRICS.items():
            if column in row:
                assert metrics.get((ours.address, metric), 0.0) == number(row[column]), column
                compared += 1
    assert compared >= 20 * len(theirs)  # each row: every stall column, the memory ones


@pytest.mark.parametrize(("launch", "kernel"), list(enumerate(KERNELS)))
def test_every_cuda_line_equals_ncu(con: duckdb.DuckDBPyConnection,
                                    views: list[SourceView], launch: int,
                                    kernel: str) -> None:
    theirs = ncu_lines(f"hot.{kernel}.sass_cuda.csv.gz")
    view = views[launch]
    assert [x.line for x in view.lines] == [t["line"] for t in theirs]
    if kernel == "sass_only":  # ncu: "No lineinfo available"; we: the SASS alone
        assert view.status == "sass-only" and not theirs
        return
    per_line: dict[tuple[int, str], tuple] = {}
    for _, line, reason, samples, not_issued in con.execute(
            load_query("ncu_source_line_stalls"), {"launch_id": launch}).fetchall():
        per_line[(line, reason)] = (samples, not_issued)
    for ours, row in zip(view.lines, theirs, strict=True):
        assert (ours.text or "").strip() == row["text"].strip()
        assert (ours.stall_samples, ours.stall_samples_not_issued, ours.inst_executed,
                ours.thread_inst_executed) == (
            int(row["Warp Stall Sampling (All Samples)"]),
            int(row["Warp Stall Sampling (Not-issued Samples)"]),
            int(row["Instructions Executed"]), int(row["Thread Instructions Executed"]))
        for short, reason in NCU_STALLS.items():
            got = per_line.get((ours.line, reason), (0, 0))
            if f"stall_{short}" in row:
                assert got[0] == int(row[f"stall_{short}"]), (ours.line, short)
            if f"stall_{short} (Not Issued)" in row:
                assert got[1] == int(row[f"stall_{short} (Not Issued)"]), (ours.line, short)
        memory = ours.memory
        assert (memory.global_requests or 0) == number(row["L1 Tag Requests Global"])
        assert (memory.global_sectors or 0) == number(row["L2 Theoretical Sectors Global"])
        assert (memory.global_sectors_ideal or 0) == number(
            row["L2 Theoretical Sectors Global Ideal"])
        assert (memory.shared_conflicts_nway_sum or 0) == number(
            row["L1 Conflicts Shared N-Way"])
    # the whole file is in the report: the lines' text is the file's
    assert view.files[0].origin == "report" and len(view.files[0].text) == 87


def test_a_report_of_source_counters_alone_equals_ncu() -> None:
    """hot_noimport.ncu-rep: `--section SourceCounters --import-source no`, strided_load."""
    con = duckdb.connect()
    load_ncu(sample("hot_noimport.ncu-rep"), con)
    load_source(sample("hot_noimport.ncu-rep"), con)
    view = source_view(con, 0, "strided_load")
    theirs = ncu_sass("hot_noimport.sass.csv.gz")
    assert [(f"0x{s.address:x}", s.instruction, s.stall_samples, s.stall_samples_not_issued,
             s.inst_executed) for s in view.sass] == [
        (r["Address"], r["Source"].rstrip(), int(r["Warp Stall Sampling (All Samples)"]),
         int(r["Warp Stall Sampling (Not-issued Samples)"]), int(r["Instructions Executed"]))
        for r in theirs]


def test_a_report_without_source_counters_has_no_samples_in_ncu_either() -> None:
    """hot_sol.ncu-rep (`--section SpeedOfLight`): ncu's Source page lists the SASS with
    no metric columns at all; we say which flags record them."""
    theirs = ncu_sass("hot_sol.sass.csv.gz")
    assert theirs and set(theirs[0]) == {"Address", "Source"}
    con = duckdb.connect()
    load_ncu(sample("hot_sol.ncu-rep"), con)
    assert load_source(sample("hot_sol.ncu-rep"), con) == []
    view = source_view(con, 0, "strided_load")
    assert view.status == "no-counters" and view.note == NO_COUNTERS
