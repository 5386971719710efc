"""The app driven through Pilot with real keys on a real sample trace."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.helpers.generated import evil_trace
from tests.helpers.paths import sample
from tests.helpers.pilot import GAPPY, SIZE, details_text, lane_text, settle, sync
from tui.apps.trace_app import TraceApp
from tui.views.timeline import GapInfo, KernelInfo
from tui.widgets import theme
from tui.widgets.help import HelpScreen


@pytest.mark.slow
@sync
async def test_keys_zoom_pan_and_fit() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=SIZE) as pilot:
        timeline = await settle(pilot)
        fitted = timeline.view
        cursor_x = fitted.x_of(timeline.cursor_t)
        await pilot.press("plus")
        timeline = await settle(pilot)
        assert timeline.view.npc == pytest.approx(fitted.npc / 2, abs=1)
        assert timeline.view.x_of(timeline.cursor_t) == cursor_x  # zoomed around the cursor
        await pilot.press("plus", "plus", "minus")
        timeline = await settle(pilot)
        assert timeline.view.npc == pytest.approx(fitted.npc / 4, abs=2)
        before = timeline.view.c0
        await pilot.press("L")
        timeline = await settle(pilot)
        assert timeline.view.c0 == before + timeline.ncols // 2
        await pilot.press("0")
        timeline = await settle(pilot)
        assert timeline.view == fitted
        assert timeline.frame is not None and timeline.frame.view == fitted


@sync
async def test_largest_gap_is_highlighted_and_explained() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=SIZE) as pilot:
        timeline = await settle(pilot)
        assert timeline.data is not None
        gap, _ = timeline.data.gap_by_rank(0)
        # at "fit all" the largest gap's columns carry the gap glyph on the GPU lane
        view = timeline.frame.view
        row = lane_text(timeline, 0)
        columns = range(view.x_of(gap.start_ns) + 1, view.x_of(gap.end_ns))
        assert all(row[theme.LABEL_WIDTH + x] == theme.GAP_GLYPH for x in columns)
        await pilot.press("b")
        timeline = await settle(pilot)
        assert gap.start_ns <= timeline.cursor_t < gap.end_ns
        assert isinstance(timeline.info, GapInfo)
        assert "GPU 0 idle for 51.2 ms" in details_text(pilot)
        row = lane_text(timeline, 0)
        assert theme.GAP_GLYPH * 20 in row  # the gap fills the middle of the screen
        # the overview marks the whole trace's gaps too
        assert theme.GAP_GLYPH in app.query_one("#overview").render_line(0).text


@pytest.mark.slow
@sync
async def test_g_steps_through_gaps_in_time_order() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=SIZE) as pilot:
        timeline = await settle(pilot)
        starts = []
        for _ in range(3):
            await pilot.press("g")
            timeline = await settle(pilot)
            assert timeline.current_gap is not None
            starts.append(timeline.current_gap.start_ns)
        assert starts == sorted(starts) and len(set(starts)) == 3
        await pilot.press("G")
        timeline = await settle(pilot)
        assert timeline.current_gap.start_ns == starts[1]


@pytest.mark.slow
@sync
async def test_details_panel_shows_the_kernel_under_the_cursor() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=SIZE) as pilot:
        timeline = await settle(pilot)
        con = app.trace.con
        kid, start, end, name, regs = con.execute(
            "SELECT id, start_ns, end_ns, name, registers_per_thread FROM gpu_activities "
            "WHERE kind = 'kernel' ORDER BY duration_ns DESC LIMIT 1").fetchone()
        timeline.jump_to(start, end, device=0, stream=7)
        timeline = await settle(pilot)
        assert isinstance(timeline.info, KernelInfo) and timeline.info.id == kid
        text = details_text(pilot)
        assert name in text.replace("\n", "")
        assert f"{regs} registers/thread" in text and "launch  cudaLaunchKernel" in text
        await pilot.press("right_square_bracket")
        timeline = await settle(pilot)
        nxt = con.execute("SELECT id FROM gpu_activities WHERE start_ns > ? "
                          "ORDER BY start_ns LIMIT 1", [timeline.cursor_t - 1]).fetchone()
        assert timeline.info.id == nxt[0]
        await pilot.press("enter")
        await pilot.pause()
        assert any("no Nsight Compute report loaded" in n.message
                   for n in app._notifications)


@pytest.mark.slow
@sync
async def test_lane_toggles_help_and_resize() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=SIZE) as pilot:
        timeline = await settle(pilot)
        assert [lane.label for lane in timeline.lanes][:2] == ["GPU0 s7", "NVTX 0"]
        await pilot.press("a", "t")  # a: NVTX lanes off (n steps through search hits)
        timeline = await settle(pilot)
        # host lanes by Kineto's thread_name metadata: 'thread 474 (pt_autograd_0)'
        assert [lane.label for lane in timeline.lanes] == ["GPU0 s7", "python3",
                                                           "pt_autograd_0", "mem GPU0",
                                                           "rsv GPU0"]
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
        await pilot.resize_terminal(80, 24)
        timeline = await settle(pilot)
        assert timeline.view.ncols == timeline.ncols == 80 - theme.LABEL_WIDTH
        assert lane_text(timeline, 0).startswith("GPU0 s7")


@sync
async def test_names_are_shown_literally(tmp_path: Path) -> None:
    app = TraceApp(evil_trace(tmp_path / "evil.json"))
    async with app.run_test(size=SIZE) as pilot:
        timeline = await settle(pilot)
        timeline.jump_to(1_010_000, 1_510_000, device=0, stream=7)
        timeline = await settle(pilot)
        text = details_text(pilot)
        assert "[bold]evil\\x1b[31m kernel" in text
        row = lane_text(timeline, 0)
        assert "[bold]evil\\x1b[31m" in row and "\x1b" not in row
        assert not any(segment.style and segment.style.bold and "evil" in segment.text
                       for segment in timeline.render_line(0))  # not turned into bold


@pytest.mark.slow
@sync
async def test_no_color_stays_readable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = TraceApp(sample("multistream.pt.trace.json.gz"))
    async with app.run_test(size=(80, 24)) as pilot:
        timeline = await settle(pilot)
        assert app.no_color
        assert [lane.label for lane in timeline.lanes][:3] == ["GPU0 s46", "GPU0 s50",
                                                               "GPU0 s54"]
        assert theme.GAP_GLYPH in lane_text(timeline, 0)  # gaps have a glyph, not a colour


@sync
async def test_a_missing_file_is_reported_not_raised(tmp_path: Path) -> None:
    app = TraceApp(tmp_path / "nope.json")
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(100):  # the app ends with the error (run_app prints it, exit 2)
            await pilot.pause()
            if not app.is_running:
                break
            await asyncio.sleep(0.01)
    assert app.return_code == 2 and app.failure is not None and "no such file" in app.failure
