"""`ncu_summary` (the JSON of `tui --summary REPORT --json`) and its Rich rendering."""

from __future__ import annotations

import json

import duckdb
import pytest
from rich.console import Console

from tests.helpers.ncu_inputs import FORMS, loaded
from tui.analysis.ncu.summary import ncu_summary, render_ncu_summary
from tui.analysis.ncu.verdict import VERDICTS


@pytest.mark.parametrize("form", FORMS)
def test_summary_lists_launches_in_report_order_with_the_required_keys(form: str) -> None:
    summary = ncu_summary(loaded("small_kernels", form))
    json.dumps(summary, allow_nan=False)  # --json must be valid JSON
    assert summary["source"]["format"].startswith("ncu-")
    kernels = summary["kernels"]
    assert [k["launch_id"] for k in kernels] == [0, 1, 2, 3, 4]
    assert kernels[0]["name"] == "saxpy(int, float, const float *, float *)"
    for k in kernels:
        assert {"name", "duration_ns", "sm_pct", "mem_pct", "verdict", "explanation"} <= set(k)
        assert k["verdict"] in VERDICTS
        assert k["duration_ns"] > 0 and 0 <= k["sm_pct"] <= 100 and 0 <= k["mem_pct"] <= 100
    assert kernels[2]["sm_pct"] == pytest.approx(10.07, abs=0.01)
    assert kernels[2]["mem_pct"] == pytest.approx(79.22, abs=0.01)


def test_summary_carries_the_drill_down_figures() -> None:
    saxpy = ncu_summary(loaded("small_kernels", "ncu-rep"))["kernels"][0]
    assert saxpy["dram_pct"] == pytest.approx(61.5, abs=0.1)
    assert saxpy["achieved_occupancy_pct"] == pytest.approx(73.8, abs=0.1)
    assert saxpy["theoretical_occupancy_pct"] == 100
    assert saxpy["stalls"][0]["reason"] == "long_scoreboard"
    assert saxpy["roofline"]["side"] == "memory"
    assert saxpy["nvidia_verdict"] == "memory"
    rules = saxpy["nvidia_rules"]
    assert {"rule", "type", "description", "speedup_pct"} <= set(rules[0])
    assert any(r["rule"] == "AchievedOccupancy" and r["speedup_pct"] == pytest.approx(26.16,
                                                                                      abs=0.01)
               for r in rules)


def test_details_page_summary_says_what_it_lacks() -> None:
    summary = ncu_summary(loaded("small_kernels", "details.csv"))
    assert any("--page raw" in w for w in summary["warnings"])
    assert summary["kernels"][0]["stalls"] == []


def _rendered(summary: dict) -> str:
    console = Console(record=True, width=160, color_system=None)
    render_ncu_summary(summary, console)
    return console.export_text()


def test_render_shows_verdicts_beside_nvidias_findings() -> None:
    text = _rendered(ncu_summary(loaded("small_kernels", "ncu-rep")))
    for name in ("saxpy", "naive_sgemm", "strided_read", "transpose_bank_conflicts", "tiny_grid"):
        assert name in text
    assert "memory (DRAM)" in text and "small-grid" in text
    assert "NVIDIA SpeedOfLight: Memory is more heavily utilized" in text
    assert "SharedMemoryConflicts" in text and "64.7% global" in text


def test_kernel_names_are_printed_literally_never_as_markup() -> None:
    con: duckdb.DuckDBPyConnection = loaded("small_kernels", "raw.csv")
    evil = "[bold]evil[/bold]_kernel<[red]x[/red]>(int)"
    con.execute("UPDATE ncu_kernels SET name = ?, short_name = ? WHERE launch_id = 0",
                [evil, "[bold]evil[/bold]"])
    con.execute("UPDATE ncu_meta SET value = '[link=x]p[/link]\x1b[2J' WHERE key = 'path'")
    summary = ncu_summary(con)
    text = _rendered(summary)
    assert evil in text  # the launch's heading
    assert text.count("[bold]evil[/bold]") >= 2  # and the table's kernel column
    assert "[link=x]p[/link]" in text and "\x1b" not in text  # control codes made visible
    assert summary["kernels"][0]["name"] == evil  # JSON keeps the name as it is
