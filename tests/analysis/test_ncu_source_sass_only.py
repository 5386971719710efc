"""The Source view of a report built without -lineinfo: small_kernels.ncu-rep (kernels.cu,
`--set full`): SASS alone, by function, with every count checked against the launch's
own aggregate metrics in the same report."""

from __future__ import annotations

import io
import json

import duckdb
import pytest
from rich.console import Console

from tests.helpers.paths import sample
from tui.analysis.ncu.source import NO_LINES, NOT_A_REPORT, SourceView, source_view
from tui.analysis.ncu.summary import render_ncu_summary
from tui.cli.main import main
from tui.core.queries import load_query
from tui.sources.ncu.load import load_ncu
from tui.sources.ncu.load_source import load_source

REPORT = "small_kernels.ncu-rep"
KERNELS = ["saxpy", "naive_sgemm", "strided_read", "transpose_bank_conflicts", "tiny_grid"]


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    load_ncu(sample(REPORT), con)
    assert load_source(sample(REPORT), con) == [0, 1, 2, 3, 4]
    return con


@pytest.fixture(scope="module")
def views(con: duckdb.DuckDBPyConnection) -> list[SourceView]:
    return [source_view(con, i, name) for i, name in enumerate(KERNELS)]


def _metric(con: duckdb.DuckDBPyConnection, launch: int, name: str) -> float:
    row = con.execute("SELECT value FROM ncu_metrics WHERE launch_id = ? AND name = ?",
                      [launch, name]).fetchone()
    assert row is not None, name
    return row[0]


def test_counts_add_up_to_the_launch_totals(con: duckdb.DuckDBPyConnection,
                                            views: list[SourceView]) -> None:
    for view in views:
        assert view.status == "sass-only" and view.note == NO_LINES
        assert not view.lines and not view.files
        # ncu's own launch-level figures: warp instructions, thread instructions, samples
        executed = sum(s.inst_executed for s in view.sass)
        assert executed == _metric(con, view.launch_id, "smsp__inst_executed.sum")
        assert sum(s.thread_inst_executed for s in view.sass) == _metric(
            con, view.launch_id, "thread_inst_executed")
        assert view.total_samples == _metric(con, view.launch_id, "smsp__pcsamp_sample_count")
        assert sum(s.stall_samples_not_issued for s in view.sass) == sum(
            _metric(con, view.launch_id, f"smsp__pcsamp_warps_issue_stalled_{r}_not_issued")
            for r in ("long_scoreboard", "short_scoreboard", "barrier", "drain", "wait",
                      "mio_throttle", "lg_throttle", "math_pipe_throttle", "membar", "misc",
                      "no_instructions", "not_selected", "selected", "sleeping",
                      "tex_throttle", "imc_miss", "branch_resolving", "dispatch_stall",
                      "warpgroup_arrive"))
    assert [v.total_samples for v in views] == [5740, 51225, 28574, 14275, 0]


def test_every_instruction_of_the_function_is_listed(views: list[SourceView]) -> None:
    transpose = views[3]
    assert len(transpose.sass) == 48  # 38 executed, the padding BRA and nine NOPs
    assert {s.function for s in transpose.sass} == {"transpose_bank_conflicts"}
    addresses = [s.address for s in transpose.sass]
    assert addresses == list(range(addresses[0], addresses[0] + 16 * 48, 16))
    # as ncu prints them: the predicate column kept, a branch target's label left out
    assert transpose.sass[0].instruction == "      LDC R1, c[0x0][0x28]"
    assert [s.instruction.strip() for s in transpose.sass[-10:-8]] == [
        "BRA 0x7fd1257a5260", "NOP"]


def test_the_hot_store_waits_on_the_bank_conflicted_shared_load(
        views: list[SourceView]) -> None:
    view = views[3]
    hot = view.hot_sass()
    store = hot[0]
    assert store.instruction.strip() == "STG.E desc[UR6][R2.64], R5"
    assert store.stall_samples == 3882 and store.top_stall == "short_scoreboard"
    load = view.instruction_at(store.waits_on)
    assert load is not None and load.instruction.strip() == "LDS R5, [R0]"
    assert load.memory.shared_conflict_ways == 32  # ncu's n-way bank conflicts
    # the store into shared memory waits on the global load of what it stores
    sts = next(s for s in view.sass if s.instruction == "@!P0  STS [R5], R2")  # ncu's text
    assert sts.top_stall == "long_scoreboard"
    ldg = view.instruction_at(sts.waits_on)
    assert ldg is not None and ldg.instruction == "@!P0  LDG.E R2, desc[UR6][R2.64]"
    assert view.offset(ldg.address) == 0xE0


def test_a_csv_export_has_no_source_view() -> None:
    con = duckdb.connect()
    load_ncu(sample("small_kernels.details.csv"), con)
    con.execute(load_query("ncu_source_schema"))
    view = source_view(con, 0, "saxpy")
    assert view.status == "unavailable" and view.note == NOT_A_REPORT


def test_summary_json_and_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--summary", "--json", str(sample(REPORT))]) == 0
    kernels = json.loads(capsys.readouterr().out)["kernels"]
    transpose = kernels[3]
    assert transpose["source_status"] == "sass-only" and transpose["source_lines"] == []
    assert len(transpose["sass"]) == 48 and transpose["stall_samples"] == 14275
    store = next(s for s in transpose["sass"] if s["instruction"].startswith("STG"))
    assert store["stall_samples"] == 3882 and store["top_stall"] == "short_scoreboard"
    assert store["waits_on_address"] == transpose["sass"][35]["address"]  # the LDS
    assert transpose["hot_instructions"][0]["instruction"] == store["instruction"]
    assert kernels[4]["hot_instructions"] == []  # tiny_grid: no samples at all
    console = Console(file=io.StringIO(), width=100, color_system=None)
    render_ncu_summary({"source": {}, "kernels": kernels}, console)
    text = " ".join(console.file.getvalue().split())  # as one line, however it wrapped
    assert "hottest SASS instructions:" in text
    assert "it waits on the shared load at +0x0230" in text
