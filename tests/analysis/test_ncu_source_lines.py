"""The Source view's CUDA lines on the recorded kernels of known hot lines
(recordings/source_view/hot.cu): the hot lines, the load each stalled line waits on (our
addition to Nsight Compute's table, checked against its own stall counts), memory
traffic, the JSON and text of `tui --summary`, and the reports that lack the source or the
counters."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest
from rich.console import Console

from tests.helpers.ncu_source import KERNELS, RECORDED_SOURCE, hot_loaded, ncu_lines
from tests.helpers.paths import ROOT, sample
from tui.analysis.ncu.source import NO_COUNTERS, SourceView, explain_line, source_view
from tui.analysis.ncu.summary import ncu_summary, render_ncu_summary
from tui.cli.main import main
from tui.sources.ncu.load import load_ncu
from tui.sources.ncu.load_source import load_source
from tui.widgets.ncu_source_text import line_cells

RECORDINGS = ROOT / "recordings" / "source_view"


@pytest.fixture(scope="module")
def views() -> dict[str, SourceView]:
    return {k: source_view(hot_loaded(), i, k) for i, k in enumerate(KERNELS)}


@pytest.fixture(scope="module")
def summary() -> dict[str, Any]:
    """What `tui --summary --json` prints (the CLI itself is run on the smaller reports
    below and in test_ncu_source_sass_only.py), through JSON and back."""
    return json.loads(json.dumps(ncu_summary(hot_loaded(), with_source=True)))


def _ncu_line(kernel: str, line: int) -> dict[str, Any]:
    return next(t for t in ncu_lines(f"hot.{kernel}.sass_cuda.csv.gz") if t["line"] == line)


@pytest.mark.slow
def test_the_strided_load_blames_the_load_not_the_multiply(
        views: dict[str, SourceView]) -> None:
    view = views["strided_load"]
    hot = view.hot_lines()
    assert [(x.line, x.stall_samples) for x in hot] == [(10, 35983), (11, 4005)]
    use = hot[0]
    assert use.text is not None and use.text.strip() == "out[i] = v * 2.0f;"
    assert use.top_stalls[0].reason == "long_scoreboard"
    assert use.waits_on is not None and (use.waits_on.line, use.waits_on.kind) == (
        9, "global load")
    # every long-scoreboard sample ncu puts on line 10 waits on line 9's load (v * 2.0f
    # is compiled to FADD R5, R6, R6, which reads what LDG.E R6 loads)
    assert use.waits_on.samples == int(_ncu_line("strided_load", 10)["stall_long_sb"])
    load = view.line_of(use.file, 9)
    assert load is not None and load.dependent_stall_samples >= use.waits_on.samples
    add = next(s for s in view.sass_of(use.file, 10) if s.stall_samples > 30000)
    assert add.instruction.strip() == "FADD R5, R6, R6" and add.waits_on is not None
    ldg = view.instruction_at(add.waits_on)
    assert ldg is not None and ldg.instruction.strip() == "LDG.E R6, desc[UR6][R6.64]"
    text = explain_line(use, view.total_samples)
    assert text.startswith("line 10: 86.4% of the warp samples (35,983 of 41,624)")
    assert "it waits on the global load of line 9" in text


def test_a_gather_chain_waits_line_by_line(views: dict[str, SourceView]) -> None:
    view = views["gather"]
    lines = {x.line: x for x in view.lines}
    assert lines[20].waits_on is not None and lines[20].waits_on.line == 19
    assert lines[19].waits_on is not None and lines[19].waits_on.line == 18
    assert lines[18].waits_on is None or lines[18].waits_on.kind != "global load"
    # the gather through the index is not coalesced: ncu's sectors per warp-level access
    memory = lines[19].memory
    assert memory.sectors_per_request is not None and memory.sectors_per_request > 31.9
    assert memory.ideal_sectors_per_request is not None
    assert memory.ideal_sectors_per_request < 4.1
    assert lines[18].memory.sectors_per_request == 4.0  # index[i]: coalesced
    assert "uncoalesced" in explain_line(lines[19], view.total_samples)


def test_bank_conflicts_and_the_line_that_waits_for_them(views: dict[str, SourceView]) -> None:
    view = views["shared_walk"]
    lines = {x.line: x for x in view.lines}
    assert [x.line for x in view.hot_lines()] == [32, 31]
    assert lines[31].memory.shared_conflict_ways == 32  # every lane on one bank
    assert lines[32].top_stalls[0].reason == "short_scoreboard"
    assert lines[32].waits_on is not None
    assert (lines[32].waits_on.line, lines[32].waits_on.kind) == (31, "shared load")
    assert "32-way shared-memory bank conflicts" in explain_line(lines[31],
                                                                 view.total_samples)


def test_a_dependency_chain_on_fixed_latency_waits_on_no_load(
        views: dict[str, SourceView]) -> None:
    line = views["fma_chain"].hot_lines()[0]
    assert line.line == 42 and line.top_stalls[0].reason == "wait"
    assert line.waits_on is None  # a fixed-latency dependency: not a scoreboard


def test_summary_json(summary: dict[str, Any]) -> None:
    kernels = summary["kernels"]
    assert [k["short_name"] for k in kernels] == KERNELS
    strided = kernels[0]
    assert strided["source_status"] == "source" and strided["source_note"] is None
    line = next(x for x in strided["source_lines"] if x["line"] == 10)
    assert line["text"] == "    out[i] = v * 2.0f;"
    assert line["file"] == RECORDED_SOURCE
    theirs = _ncu_line("strided_load", 10)
    assert (line["stall_samples"], line["stall_samples_not_issued"],
            line["instructions_executed"]) == (
        35983, int(theirs["Warp Stall Sampling (Not-issued Samples)"]), 2621440)
    assert line["top_stalls"][0] == {"reason": "long_scoreboard", "samples": 35931}
    assert (line["waits_on_line"], line["waits_on"]) == (9, "global load")
    assert [x["line"] for x in strided["source_lines"]] == [6, 7, 8, 9, 10, 11]
    add = next(s for s in strided["sass"] if s["instruction"] == "FADD R5, R6, R6")
    load = next(s for s in strided["sass"] if s["address"] == add["waits_on_address"])
    assert load["line"] == 9 and load["instruction"].startswith("LDG")
    assert strided["hot_lines"][0]["line"] == 10
    assert "waits on the global load of line 9" in strided["hot_lines"][0]["explanation"]
    sass_only = kernels[5]
    assert sass_only["source_status"] == "sass-only" and sass_only["source_lines"] == []
    assert sass_only["hot_instructions"][0]["instruction"].startswith("FFMA")


def test_summary_text_names_the_hottest_lines(summary: dict[str, Any]) -> None:
    console = Console(file=io.StringIO(), width=120, color_system=None)
    render_ncu_summary(summary, console)
    text = " ".join(console.file.getvalue().split())
    assert "hottest lines: hot.cu:10 out[i] = v * 2.0f; line 10: 86.4%" in text
    assert "hot.cu:32 acc += v; line 32: 66.6%" in text
    assert "it waits on the shared load of line 31" in text


def test_source_neither_in_the_report_nor_on_disk(tmp_path: Path) -> None:
    if Path(RECORDED_SOURCE).exists():
        pytest.skip(f"{RECORDED_SOURCE} exists on this machine")
    report = tmp_path / "hot_noimport.ncu-rep"
    shutil.copy(sample("hot_noimport.ncu-rep"), report)
    con = duckdb.connect()
    load_ncu(report, con)
    load_source(report, con)
    view = source_view(con, 0, "strided_load")
    assert view.status == "sass-only" and "hot.cu: not in the report and not found" in view.note
    assert view.files[0].origin is None and not view.files[0].text
    # the SASS still knows its lines, and the hot load is still traced
    add = next(s for s in view.sass if s.instruction.strip() == "FADD R5, R6, R6")
    assert add.line == 10 and view.instruction_at(add.waits_on).line == 9  # type: ignore

    # put the file beside the report: it is read from there
    shutil.copy(RECORDINGS / "hot.cu", tmp_path / "hot.cu")
    con = duckdb.connect()
    load_ncu(report, con)
    load_source(report, con)
    view = source_view(con, 0, "strided_load")
    assert view.status == "source" and view.files[0].origin == "disk"
    assert view.hot_lines()[0].line == 10


def test_a_report_without_source_counters_says_how_to_get_them(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--summary", "--json", str(sample("hot_sol.ncu-rep"))]) == 0
    kernels = json.loads(capsys.readouterr().out)["kernels"]
    assert [k["source_status"] for k in kernels] == ["no-counters"] * 2
    assert kernels[0]["source_note"] == NO_COUNTERS and kernels[0]["sass"] == []
    console = Console(file=io.StringIO(), width=200, color_system=None)
    render_ncu_summary({"source": {}, "kernels": kernels}, console)
    said = [line for line in console.file.getvalue().splitlines() if "source counters" in line]
    assert said == [f"source: {NO_COUNTERS}"]  # one line for the report
    assert "--set full" in NO_COUNTERS and "--import-source yes" in NO_COUNTERS
    assert "-lineinfo" in NO_COUNTERS


def test_source_text_from_disk_is_shown_literally(tmp_path: Path) -> None:
    """A source file is input like any other: markup and escape codes in it (written into a
    copy of hot.cu for this test) reach the screen as plain, visible text."""
    if Path(RECORDED_SOURCE).exists():
        pytest.skip(f"{RECORDED_SOURCE} exists on this machine")
    report = tmp_path / "hot_noimport.ncu-rep"
    shutil.copy(sample("hot_noimport.ncu-rep"), report)
    text = (RECORDINGS / "hot.cu").read_text().splitlines()
    text[9] = "    out[i] = v * 2.0f; // [bold red]\x1b]0;pwned\x07\x1b[31m"
    (tmp_path / "hot.cu").write_text("\n".join(text) + "\n")
    con = duckdb.connect()
    load_ncu(report, con)
    load_source(report, con)
    view = source_view(con, 0, "strided_load")
    line = view.hot_lines()[0]
    assert line.line == 10
    cells = line_cells(10, line.text, line, view.total_samples, hot=True)
    shown = cells["source"]
    assert str(shown) == "    out[i] = v * 2.0f; // [bold red]\\x1b]0;pwned\\x07\\x1b[31m"
    assert not shown.spans
