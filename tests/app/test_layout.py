"""The screen's rows at 80x24: lanes take what they need, the tabs below the rest;
resizing keeps the cursor, the zoom and the selection; notices go to the status line."""

from __future__ import annotations

import pytest

from tests.helpers.paths import sample
from tests.helpers.pilot import GAPPY, settle, sync
from tests.helpers.screen import drawn_screen
from tui.apps.trace_app import TraceApp
from tui.widgets.layout import lane_rows


def test_lane_rows_take_what_they_need_up_to_a_share() -> None:
    assert lane_rows(24, 4) == 4  # all four lanes, the rest to the panels
    assert lane_rows(24, 40) == 5  # 20 rows free: 15 kept for the panels
    assert lane_rows(40, 40) == 21  # 36 free: 15 kept for the panels
    assert lane_rows(60, 40) == 33  # 60% of 56 free rows
    assert lane_rows(10, 40) == 3  # a tiny screen still shows a few lanes


@pytest.mark.slow
@sync
async def test_gaps_tab_fits_eight_rows_at_80x24() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=(80, 24)) as pilot:
        timeline = await settle(pilot)
        # 7 lanes (GPU, 4 NVTX, 2 memory) in 5 rows: the rest scroll, the table keeps its rows
        assert (timeline.size.height, len(timeline.lanes)) == (5, 7)
        await pilot.press("3")
        await settle(pilot)
        rows = [line for line in (await drawn_screen(pilot)) if "host-wait" in line]
        assert len(rows) >= 8, "\n".join(await drawn_screen(pilot))


@sync
async def test_notice_goes_to_the_status_line_not_over_the_details() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        lines = await drawn_screen(pilot)
        assert "gap 1 of 10 by length: 51.2 ms" in lines[0]
        assert not app._notifications  # no toast drawn over the panels
        assert any("idle for 51.2 ms" in line for line in lines[1:])


@pytest.mark.slow
@sync
async def test_resize_keeps_cursor_zoom_and_selection() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=(200, 60)) as pilot:
        timeline = await settle(pilot)
        await pilot.press("plus", "plus", "right_square_bracket", "v", "l", "l", "l")
        timeline = await settle(pilot)
        npc, cursor, mark, lane = (timeline.view.npc, timeline.cursor_t, timeline.mark_t,
                                   timeline.lane_index)
        assert mark is not None and mark != cursor
        await pilot.resize_terminal(80, 24)
        timeline = await settle(pilot)
        assert (timeline.view.npc, timeline.cursor_t, timeline.mark_t,
                timeline.lane_index) == (npc, cursor, mark, lane)
        assert 0 <= timeline.view.x_of(cursor) < timeline.view.ncols  # still in sight
        await pilot.resize_terminal(200, 60)
        timeline = await settle(pilot)
        assert (timeline.view.npc, timeline.cursor_t, timeline.mark_t) == (npc, cursor, mark)
