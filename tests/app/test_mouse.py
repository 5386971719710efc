"""The mouse on the timeline, as Pilot sends it: wheel zoom around the pointer, shift+wheel
and drag pan, click to select, double click to zoom to the item."""

from __future__ import annotations

import pytest
from textual.events import MouseScrollDown, MouseScrollUp

from tests.helpers.paths import sample
from tests.helpers.pilot import GAPPY, settle, sync
from tui.apps.trace_app import TraceApp
from tui.views.timeline import KernelInfo
from tui.widgets import theme
from tui.widgets.timeline import Timeline

pytestmark = pytest.mark.slow


async def wheel(pilot, timeline: Timeline, x: int, y: int, up: bool, shift: bool = False):
    event = (MouseScrollUp if up else MouseScrollDown)(
        timeline, x, y, 0, 0, 0, shift, False, False, screen_x=timeline.region.x + x,
        screen_y=timeline.region.y + y)
    timeline.post_message(event)
    return await settle(pilot)


@sync
async def test_wheel_zooms_around_the_pointer_and_shift_wheel_pans() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=(120, 40)) as pilot:
        timeline = await settle(pilot)
        fitted = timeline.view
        x = theme.LABEL_WIDTH + 70
        under = timeline._column_time(70)  # the time under the pointer
        timeline = await wheel(pilot, timeline, x, 0, up=True)
        assert timeline.view.npc < fitted.npc
        assert timeline.view.x_of(under) == 70  # it stays under the pointer
        timeline = await wheel(pilot, timeline, x, 0, up=False)
        assert timeline.view.npc >= fitted.npc * 0.95
        timeline = await wheel(pilot, timeline, x, 0, up=True)
        timeline = await wheel(pilot, timeline, x, 0, up=True)
        before = timeline.view
        timeline = await wheel(pilot, timeline, x, 0, up=False, shift=True)
        assert timeline.view.npc == before.npc
        assert timeline.view.c0 == before.c0 + round(0.1 * timeline.ncols)


@sync
async def test_drag_pans_click_selects_double_click_zooms_to_the_kernel() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=(120, 40)) as pilot:
        timeline = await settle(pilot)
        for _ in range(3):
            await pilot.press("plus")
        timeline = await settle(pilot)
        before = timeline.view
        offset = (theme.LABEL_WIDTH + 60, 0)
        await pilot.mouse_down(timeline, offset=offset)
        await pilot.hover(timeline, offset=(offset[0] - 20, 0))
        await pilot.mouse_up(timeline, offset=(offset[0] - 20, 0))
        timeline = await settle(pilot)
        assert timeline.view.c0 == before.c0 + 20 and timeline.view.npc == before.npc
        # a click on the GPU lane, where a kernel is: the cursor goes there
        await pilot.press("right_square_bracket")
        timeline = await settle(pilot)
        x = timeline.view.x_of(timeline.cursor_t)
        await pilot.press("k", "j")  # a lane up and back: the lane stays the GPU's
        await pilot.click(timeline, offset=(theme.LABEL_WIDTH + x, 0))
        timeline = await settle(pilot)
        assert isinstance(timeline.info, KernelInfo)
        kernel = timeline.info
        await pilot.click(timeline, offset=(theme.LABEL_WIDTH + x, 0), times=2)
        timeline = await settle(pilot)
        start, end = kernel.start_ns, kernel.start_ns + kernel.duration_ns
        assert timeline.view.t0 <= start and end <= timeline.view.t1
        assert timeline.view.t1 - timeline.view.t0 < 1.3 * (end - start) + timeline.ncols
        await pilot.click(timeline, offset=(5, 1))  # on a label: that lane, same time
        timeline = await settle(pilot)
        assert timeline.lane_index == 1


@sync
async def test_lanes_scrolled_by_the_wheel_or_the_scrollbar_keep_the_cursor_in_sight() -> None:
    app = TraceApp(sample("ddp4_nsys.sqlite"))
    async with app.run_test(size=(80, 24)) as pilot:
        timeline = await settle(pilot)
        rows = timeline.scrollable_content_region.height
        assert len(timeline.lanes) > rows + 3  # more lanes than rows: they scroll
        assert timeline.lane_index == 0
        for _ in range(4):  # the wheel over the labels scrolls the lanes, not the window
            timeline = await wheel(pilot, timeline, 2, 1, up=False)
        top = timeline.scroll_offset.y
        assert top > 0
        assert timeline.lane_index == top  # the cursor came along, to the first lane in sight
        # a click low on the scrollbar pages down: the cursor to a lane still shown
        before = top
        await pilot.click(timeline, offset=(timeline.size.width - 1, rows - 1))
        timeline = await settle(pilot)
        top = timeline.scroll_offset.y
        assert top > before
        assert top <= timeline.lane_index < top + rows
