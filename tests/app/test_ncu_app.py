"""Nsight Compute in the app, driven through Pilot on the real paired samples:
small_kernels.sqlite (kernels.cu under nsys) with small_kernels.ncu-rep (the same program
under ncu), and the report alone (`tui REPORT`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.ncu_inputs import SHARED
from tests.helpers.ncu_pilot import drilled, ncu_app_ready, ncu_ready
from tests.helpers.paths import sample
from tests.helpers.pilot import SIZE, messages, settle, sync, until
from tui.analysis.ncu.summary import ncu_summary
from tui.apps.ncu_app import NcuApp
from tui.apps.trace_app import TraceApp
from tui.core.db import connect
from tui.sources.ncu.load import load_ncu
from tui.views.timeline import KernelInfo
from tui.widgets.messages import DrillDown
from tui.widgets.ncu_list import NcuLaunchList
from tui.widgets.ncu_screen import NcuScreen

TRACE, REPORT = "small_kernels.sqlite", "small_kernels.ncu-rep"


def expected_launches(report: Path) -> list[dict]:
    con = connect()
    load_ncu(report, con)
    return ncu_summary(con)["kernels"]


@pytest.mark.slow
@sync
async def test_enter_on_saxpy_opens_its_drill_down() -> None:
    app = TraceApp(sample(TRACE), ncu=sample(REPORT))
    async with app.run_test(size=SIZE) as pilot:
        await ncu_ready(pilot)
        assert app.ncu.state == "ready"
        assert any("in the trace: 5 matched" in m for m in messages(app))
        kid, start, end = app.trace.con.execute(
            "SELECT id, start_ns, end_ns FROM gpu_activities WHERE name LIKE 'saxpy(%'"
        ).fetchone()
        timeline = app.timeline
        timeline.jump_to(start, end, device=0, stream=7)
        timeline = await settle(pilot)
        assert isinstance(timeline.info, KernelInfo) and timeline.info.id == kid
        await pilot.press("enter")
        panel = await drilled(pilot)
        saxpy = expected_launches(sample(REPORT))[0]
        assert panel.launch is not None and panel.launch["launch_id"] == 0
        assert panel.launch["verdict"] == saxpy["verdict"] == "memory"
        assert panel.launch["sm_pct"] == saxpy["sm_pct"]
        assert panel.launch["mem_pct"] == saxpy["mem_pct"]
        assert panel.match is not None and panel.match.status == "matched"
        text = panel.plain_text()
        assert "memory-bound" in text and "busiest unit: DRAM" in text
        assert f"{saxpy['sm_pct']:.1f} %" in text and f"{saxpy['mem_pct']:.1f} %" in text
        assert "in the trace: by name+config" in text
        assert "AchievedOccupancy" in text  # NVIDIA's findings beside it
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, NcuScreen)


@pytest.mark.slow
@sync
async def test_c_lists_the_launches_and_t_goes_to_the_kernel() -> None:
    app = TraceApp(sample(TRACE), ncu=sample(REPORT))
    async with app.run_test(size=SIZE) as pilot:
        await ncu_ready(pilot)
        await pilot.press("c")
        panel = await drilled(pilot)
        launches = app.screen.query_one(NcuLaunchList)
        assert launches.row_count == 5
        await pilot.press("c")  # already open: not a second screen
        await pilot.pause()
        assert len(app.screen_stack) == 2
        assert panel.launch is not None and panel.launch["launch_id"] == 0
        await pilot.press("down", "down", "down", "down")
        await pilot.pause()
        assert panel.launch is not None and panel.launch["short_name"] == "tiny_grid"
        assert panel.launch["verdict"] == "small-grid"
        assert "small grid" in panel.plain_text()
        await pilot.press("t")  # show the launch's kernel on the timeline
        await until(pilot, lambda: not isinstance(app.screen, NcuScreen))
        timeline = await settle(pilot)
        assert isinstance(timeline.info, KernelInfo) and timeline.info.name == "tiny_grid(float *)"


@pytest.mark.slow
@sync
async def test_drill_down_message_for_each_kind_of_activity() -> None:
    app = TraceApp(sample(TRACE), ncu=sample(REPORT))
    async with app.run_test(size=SIZE) as pilot:
        await ncu_ready(pilot)
        app.post_message(DrillDown(0, "Memset (Device)"))  # activities 0-4 are memsets
        await until(pilot, lambda: any("is a memset" in m for m in messages(app)))
        assert not isinstance(app.screen, NcuScreen)
        app.post_message(DrillDown(9, "tiny_grid(float *)"))
        panel = await drilled(pilot)
        assert panel.launch is not None and panel.launch["launch_id"] == 4
        assert panel.launch["verdict"] == "small-grid"


@pytest.mark.slow
@sync
async def test_d_in_the_kernels_tab_opens_the_kernel_in_nsight_compute() -> None:
    from tests.helpers.tables import kernel_names_matching, ready

    app = TraceApp(sample(TRACE), ncu=sample(REPORT))
    async with app.run_test(size=SIZE) as pilot:
        await ncu_ready(pilot)
        names = await kernel_names_matching(pilot, "tiny")
        assert names.total == 1 and names.row_at(0)["name"] == "tiny_grid(float *)"
        await pilot.press("d")  # on the name: its first launch
        panel = await drilled(pilot)
        assert panel.launch is not None and panel.launch["launch_id"] == 4
        assert panel.launch["verdict"] == "small-grid"
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, NcuScreen))
        await pilot.press("enter")  # the name's launches; d on one of them
        instances = await ready(pilot, "kernel-instances")
        assert instances.total == 1
        await pilot.press("d")
        panel = await drilled(pilot)
        assert panel.launch is not None and panel.launch["launch_id"] == 4


def trimmed_raw_csv(tmp_path: Path, launches: int) -> Path:
    """The raw page of the real report with only its first `launches` rows (header and
    units row kept): a report that profiled fewer kernels than the trace ran."""
    lines = sample("small_kernels.raw.csv").read_text().splitlines(keepends=True)
    path = tmp_path / "first_two.raw.csv"
    path.write_text("".join(lines[: 2 + launches]))
    return path


@pytest.mark.slow
@sync
async def test_an_unprofiled_kernel_is_said_plainly(tmp_path: Path) -> None:
    app = TraceApp(sample(TRACE), ncu=trimmed_raw_csv(tmp_path, 2))
    async with app.run_test(size=SIZE) as pilot:
        await ncu_ready(pilot)
        app.post_message(DrillDown(9, "tiny_grid(float *)"))
        await until(pilot, lambda: any("not profiled" in m for m in messages(app)))
        note = next(m for m in messages(app) if "not profiled" in m)
        assert note.startswith("tiny_grid (grid 1×1×1 block 32×1×1) was not profiled in "
                               "first_two.raw.csv")
        assert not isinstance(app.screen, NcuScreen)
        app.post_message(DrillDown(6, "naive_sgemm"))  # launch 1 is in the trimmed report
        panel = await drilled(pilot)
        assert panel.launch is not None and panel.launch["launch_id"] == 1
        assert "rule results" in panel.plain_text()  # a raw page has no NVIDIA findings


@pytest.mark.slow
@sync
async def test_gen_ncu_trace_with_its_report() -> None:
    """ncu_kernels.sqlite (gen_ncu.py under nsys) has 11 RNG/setup kernels ncu skipped."""
    report = SHARED / "kernels.ncu-rep"
    if not report.is_file():
        pytest.skip("kernels.ncu-rep is only in ../shared/traces/ncu")
    app = TraceApp(sample("ncu_kernels.sqlite"), ncu=report)
    async with app.run_test(size=SIZE) as pilot:
        await ncu_ready(pilot)
        assert app.ncu.session is not None
        assert app.ncu.session.match_counts()["matched"] == 9
        app.post_message(DrillDown(0, "distribution_elementwise"))
        await until(pilot, lambda: any("not profiled" in m for m in messages(app)))
        app.post_message(DrillDown(21, "divergent_math"))
        panel = await drilled(pilot)
        assert panel.launch is not None and panel.launch["launch_id"] == 8
        assert panel.launch["verdict"] == "compute"


@sync
async def test_without_a_report_enter_and_c_say_so() -> None:
    app = TraceApp(sample(TRACE))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        app.post_message(DrillDown(5, "saxpy"))
        await until(pilot, lambda: len(messages(app)) >= 2)
        assert all("no Nsight Compute report loaded" in m for m in messages(app))


@pytest.mark.slow
@sync
async def test_a_bad_report_leaves_the_timeline_working(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ncu-rep"
    bad.write_bytes(b"NVR\x00" + b"\x00" * 64)  # the magic, then nothing readable
    app = TraceApp(sample(TRACE), ncu=bad)
    async with app.run_test(size=SIZE) as pilot:
        await ncu_ready(pilot)
        assert app.ncu.state == "failed"
        assert any(n.severity == "error" for n in app._notifications)
        assert app.timeline.data is not None
        app.post_message(DrillDown(5, "saxpy"))
        await until(pilot, lambda: any("could not be loaded" in m for m in messages(app)))


@pytest.mark.slow
@sync
async def test_a_report_alone_lists_its_launches() -> None:
    app = NcuApp(sample(REPORT))
    async with app.run_test(size=SIZE) as pilot:
        await ncu_app_ready(pilot)
        launches = app.browser.launches
        expected = expected_launches(sample(REPORT))
        assert launches.row_count == 5
        rows = [[str(c) for c in launches.get_row_at(i)] for i in range(5)]
        assert [r[1] for r in rows] == ["saxpy", "naive_sgemm", "strided_read",
                                        "transpose_bank_conflicts", "tiny_grid"]
        for row, k in zip(rows, expected, strict=True):
            assert row[3] == f"{k['sm_pct']:.1f}" and row[4] == f"{k['mem_pct']:.1f}"
        assert rows[4][2] == "small grid"
        await pilot.press("down", "down", "down", "down")
        await pilot.pause()
        panel = app.browser.panel
        assert panel.launch is not None and panel.launch["short_name"] == "tiny_grid"
        assert panel.launch["verdict"] == "small-grid"
        text = panel.plain_text()
        assert "small grid" in text and "Small grid: 1 block for 132 SMs" in text
        assert panel.match is None and "in the trace" not in text


@sync
async def test_a_report_alone_shows_untrusted_names_literally(tmp_path: Path) -> None:
    raw = sample("small_kernels.raw.csv").read_text()
    evil = tmp_path / "evil.raw.csv"
    evil.write_text(raw.replace("saxpy(int, float, const float *, float *)",
                                "[bold]evil\x1b[31m(int)", 1))
    app = NcuApp(evil)
    async with app.run_test(size=SIZE) as pilot:
        await ncu_app_ready(pilot)
        cell = app.browser.launches.get_row_at(0)[1]  # the short name: no argument list
        assert str(cell) == "[bold]evil\\x1b[31m" and not cell.spans
        assert "[bold]evil\\x1b[31m(int)" in app.browser.panel.plain_text()


@sync
async def test_a_report_alone_that_is_not_one_is_reported(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text('"ID","Process ID"\n"x"\n')
    app = NcuApp(bad)
    async with app.run_test(size=SIZE) as pilot:
        await ncu_app_ready(pilot)
        assert app.session is None
        assert any(n.severity == "error" for n in app._notifications)
