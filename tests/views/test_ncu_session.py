"""The report as the app holds it (tui.views.ncu_session): which launch a trace kernel is, and the
drill-down's text (tui.widgets.ncu_text). Real reports; the ambiguous and template cases
use a CONSTRUCTED trace table, built from the report's own launches
(tests/helpers/ncu_inputs.py)."""

from __future__ import annotations

import io
from pathlib import Path

import duckdb
import pytest
from rich.console import Console, RenderableType

from tests.helpers.ncu_inputs import add_trace, ncu_input
from tests.helpers.paths import sample
from tui.analysis.ncu.summary import ncu_summary
from tui.loading.trace import open_trace
from tui.views.ncu_session import NcuSession, open_ncu
from tui.widgets import ncu_text


def _text(renderable: RenderableType, width: int = 200) -> str:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


@pytest.fixture(scope="module")
def small() -> NcuSession:
    """small_kernels.ncu-rep matched to small_kernels.sqlite (kernels.cu under nsys)."""
    session = open_ncu(sample("small_kernels.ncu-rep"))
    trace = open_trace(sample("small_kernels.sqlite"))
    session.attach_trace(trace.con)
    return session


def test_every_trace_kernel_is_its_profiled_launch(small: NcuSession) -> None:
    assert small.match_counts() == {"matched": 5, "ambiguous": 0, "unmatched": 0}
    # activities 5..9 are the five kernels in launch order; 0..4 are memsets
    for activity_id, launch_id in zip(range(5, 10), range(5), strict=True):
        profile = small.profile_of(activity_id)
        assert (profile.status, profile.launch_ids) == ("profiled", [launch_id])
        assert f"launch #{launch_id}" in profile.message
    first = small.first_activity(0)
    assert first is not None and first.id == 5 and first.name.startswith("saxpy(")
    assert first.end_ns - first.start_ns == 78273  # as nsys measured it, not ncu


def test_a_memset_or_a_missing_id_is_not_a_kernel(small: NcuSession) -> None:
    memset = small.profile_of(0, "Memset (Device)")
    assert memset.status == "not-a-kernel" and memset.launch_ids == []
    assert "Memset (Device) is a memset" in memset.message
    assert small.profile_of(10_000).status == "not-a-kernel"


def test_the_summary_is_ncu_summarys(small: NcuSession) -> None:
    con = duckdb.connect()
    from tui.sources.ncu.load import load_ncu

    load_ncu(sample("small_kernels.ncu-rep"), con)
    expected = ncu_summary(con)["kernels"]
    assert [small.launches[i]["sm_pct"] for i in range(5)] == [k["sm_pct"] for k in expected]
    assert [small.launches[i]["verdict"] for i in range(5)] == [k["verdict"] for k in expected]


def _constructed(con_rows: list, report: Path) -> tuple[NcuSession, duckdb.DuckDBPyConnection]:
    session = open_ncu(report)
    trace = duckdb.connect()
    add_trace(trace, con_rows, copies=2)
    session.attach_trace(trace)
    return session, trace


def test_ambiguous_unprofiled_and_repeated_kernels_are_said() -> None:
    report = ncu_input("small_kernels", "raw.csv")
    launches = open_ncu(report).launches
    saxpy, sgemm = launches[0], launches[1]
    rows = [
        # saxpy in two configurations, neither the profiled one: launch 0 is ambiguous
        (saxpy["name"], (1024, 1, 1), tuple(saxpy["block"])),
        (saxpy["name"], (2048, 1, 1), tuple(saxpy["block"])),
        # naive_sgemm exactly as profiled
        (sgemm["name"], tuple(sgemm["grid"]), tuple(sgemm["block"])),
        # a kernel the report never saw
        ("void unrelated_kernel<float>(float*)", (8, 1, 1), (64, 1, 1)),
    ]
    session, _ = _constructed(rows, report)
    ambiguous = session.profile_of(0)  # ids: 2 copies per row
    assert (ambiguous.status, ambiguous.launch_ids) == ("ambiguous", [0])
    assert "ambiguous: launch #0 (saxpy) fits 2 kernels" in ambiguous.message
    assert "grid 1024×1×1" in ambiguous.message and "grid 2048×1×1" in ambiguous.message
    assert session.profile_of(4).launch_ids == [1]
    unprofiled = session.profile_of(6)
    assert unprofiled.status == "unprofiled" and unprofiled.launch_ids == []
    assert "unrelated_kernel (grid 8×1×1 block 64×1×1) was not profiled in " \
           "small_kernels.raw.csv" in unprofiled.message
    text = _text(ncu_text.match(session.matches[0]))
    assert "ambiguous in the trace: by name" in text and "grid 2048×1×1" in text


def test_a_kernel_profiled_twice_lists_both_launches() -> None:
    """gen_ncu.py profiles no kernel twice, so the report's own launches are doubled: a
    trace kernel equal to launch 2 and a launch configuration shared by launch 7."""
    report = ncu_input("small_kernels", "raw.csv")
    session = open_ncu(report)
    con = session._con  # the report's own tables: duplicate launch 0 as launch 7
    con.execute("INSERT INTO ncu_kernels SELECT * REPLACE (7 AS launch_id) FROM ncu_kernels "
                "WHERE launch_id = 0")
    saxpy = session.launches[0]
    trace = duckdb.connect()
    add_trace(trace, [(saxpy["name"], tuple(saxpy["grid"]), tuple(saxpy["block"]))])
    session.attach_trace(trace)
    profile = session.profile_of(0)
    assert (profile.status, profile.launch_ids) == ("profiled", [0, 7])
    assert "profiled 2 times: launches #0, #7" in profile.message


def test_drill_down_text_has_every_figure_with_its_unit(small: NcuSession) -> None:
    saxpy = small.launches[0]
    source = small.summary["source"]
    head = _text(ncu_text.header(saxpy, source))
    assert "#0  saxpy(int, float, const float *, float *)" in head
    assert "duration 61.8 µs" in head and "grid 65536×1×1" in head
    verdict = _text(ncu_text.verdict(saxpy))
    assert " memory-bound " in verdict and "busiest unit: DRAM" in verdict
    assert "next step: DRAM throughput is 61% of peak" in verdict
    figures = _text(ncu_text.figures(saxpy, source["format"]))
    for expected in ("SM (compute)", "43.6 %", "61.5 %", "2.96 TB/s", "L2 cache", "75.4 %",
                     "73.8 % of a theoretical 100.0 %", "62.06 waves per SM on 132 SMs",
                     "long_scoreboard", "42.3 cycles", "FMA", "4.0 sectors/request",
                     "fp32", "GFLOP/s", "FLOP/byte", "memory-bound side of the ridge"):
        assert expected in figures, expected
    findings = _text(ncu_text.findings(saxpy))
    assert "SpeedOfLight: memory (agrees with the verdict)" in findings
    assert "OPT  AchievedOccupancy  est. speedup 26.2 % (global)" in findings
    # biggest estimated speedup first among the OPT findings, INF last
    opt = [line for line in findings.splitlines() if line.startswith("OPT")]
    speedups = [float(line.split("est. speedup ")[1].split(" %")[0]) for line in opt
                if "est. speedup" in line]
    assert speedups == sorted(speedups, reverse=True)


def test_bars_and_missing_figures() -> None:
    assert ncu_text.bar(100.0, 8).plain == "█" * 8
    assert ncu_text.bar(50.0, 8).plain == "████····"
    assert ncu_text.bar(None, 4).plain == "····"
    assert ncu_text.bar(1.0, 8).plain == "▏·······"
    assert ncu_text.rate(2.957e12, "B") == "2.96 TB/s"
    details = open_ncu(ncu_input("small_kernels", "details.csv"))
    text = _text(ncu_text.figures(details.launches[0], "ncu-details-csv"))
    assert "the details page lacks it" in text
    raw = open_ncu(ncu_input("small_kernels", "raw.csv"))
    assert "a --page raw CSV carries no rule results" in _text(
        ncu_text.findings(raw.launches[0]))


def test_untrusted_names_and_rule_text_stay_plain() -> None:
    session = open_ncu(ncu_input("small_kernels", "ncu-rep"))
    k = dict(session.launches[0], name="[bold]evil\x1b[31m kernel")
    k["nvidia_rules"] = [dict(k["nvidia_rules"][1], rule="[red]R\x07", description="[b]x\x1b")]
    head = ncu_text.header(k, {"device_name": "[i]GPU\x1b]0;t\x07"})
    assert "[bold]evil\\x1b[31m kernel" in head.plain and "\x1b" not in head.plain
    assert not any(span.style == "bold" and "evil" in head.plain[span.start:span.end]
                   for span in head.spans if span.start > 4)  # markup never applied
    assert "[i]GPU\\x1b]0;t\\x07" in head.plain
    findings = ncu_text.findings(k).plain
    assert "[red]R\\x07" in findings and "[b]x\\x1b" in findings and "\x1b" not in findings


def test_another_template_instance_is_named_not_matched() -> None:
    """gen_ncu.py's report profiled cuBLAS's 256x128 SIMT SGEMM; a trace kernel of the
    128x256 tile (as in sample_traces/gappy_training.sqlite) is another instance."""
    report = ncu_input("kernels", "details.csv")
    launches = open_ncu(report).launches
    other = "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x256_8x4_nt_align1>(T1::Params)"
    session, _ = _constructed([(other, tuple(launches[1]["grid"]),
                                tuple(launches[1]["block"]))], report)
    profile = session.profile_of(0)
    assert (profile.status, profile.launch_ids) == ("unprofiled", [])
    assert "was not profiled in kernels.details.csv; the report has another instance of " \
           "its template: launch #1 void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128" \
           in profile.message
