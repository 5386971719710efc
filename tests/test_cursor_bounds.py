"""The cursor stays inside the trace, where the window can follow it: moved past the last
activity with → or sent outside with @, it stops at the trace's edge, on screen."""

from __future__ import annotations

from tests.conftest import sample
from tests.test_app import settle, sync
from tui.app import TraceApp

SIZE = (80, 24)
TRACE = sample("small_kernels.sqlite")


@sync
async def test_the_cursor_stops_at_the_end_of_the_trace() -> None:
    app = TraceApp(TRACE)
    async with app.run_test(size=SIZE) as pilot:
        timeline = await settle(pilot)
        await pilot.press("end")
        timeline = await settle(pilot)
        extent = timeline.data.extent
        past = (extent.end_ns - timeline.cursor_t) // timeline.view.npc + 3
        assert 3 <= past < 100
        await pilot.press(*["right"] * past)
        timeline = await settle(pilot)
        assert timeline.cursor_t == extent.end_ns - 1
        assert timeline.view.t0 <= timeline.cursor_t < timeline.view.t1
