"""The Source view in the app, through Pilot: from a report opened alone (Enter on a
launch) and from the drill-down over the timeline (`s`), on the real samples."""

from __future__ import annotations

from textual.pilot import Pilot

from tests.conftest import sample
from tests.test_app import SIZE, sync
from tests.test_ncu_app import drilled, messages, ncu_app_ready, ncu_ready, until
from tui.app import TraceApp
from tui.ncu.source import NO_LINES, NOT_A_REPORT
from tui.ncu_app import NcuApp
from tui.widgets.ncu_screen import NcuScreen
from tui.widgets.ncu_source import NcuSourceScreen

REPORT = "small_kernels.ncu-rep"


async def source_shown(pilot: Pilot) -> NcuSourceScreen:
    await until(pilot, lambda: isinstance(pilot.app.screen, NcuSourceScreen)
                and pilot.app.screen.view is not None)
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, NcuSourceScreen)
    return screen


def cell(screen: NcuSourceScreen, column: str) -> str:
    row = screen.main.get_row_at(screen.main.cursor_row)
    return str(row[[str(c.label) for c in screen.main.columns.values()].index(column)])


@sync
async def test_enter_on_a_launch_opens_its_sass_and_n_steps_through_hot_ones() -> None:
    app = NcuApp(sample(REPORT))
    async with app.run_test(size=SIZE) as pilot:
        await ncu_app_ready(pilot)
        await pilot.press("down", "down", "down", "enter")  # transpose_bank_conflicts
        screen = await source_shown(pilot)
        view = screen.view
        assert view is not None and view.status == "sass-only" and screen.mode == "sass"
        assert NO_LINES in str(screen.query_one("#src-note").render())
        assert screen.main.row_count == 48
        # the cursor starts on the hottest instruction, the store that waits on LDS
        assert cell(screen, "instruction") == "STG.E desc[UR6][R2.64], R5"
        assert cell(screen, "address") == "+0x0240" and cell(screen, "stall") == "short sb"
        assert cell(screen, "waits on") == "← +0x0230 shared load"
        explained = str(screen.query_one("#src-explain").render())
        assert "27.2% of the warp samples" in explained
        hot = [view.offset(s.address) for s in view.hot_sass()]
        assert sorted(hot) == [0x180, 0x1A0, 0x240, 0x260]
        await pilot.press("n")  # next hot one below, wrapping to the top
        assert cell(screen, "address") == "+0x0260"
        await pilot.press("n")
        assert cell(screen, "address") == "+0x0180"
        await pilot.press("N", "N")
        assert cell(screen, "address") == "+0x0240"
        await pilot.press("v")  # no CUDA lines to switch to: it says why
        await pilot.pause()
        assert screen.mode == "sass" and any(NO_LINES in m for m in messages(app))
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, NcuSourceScreen))
        assert app.browser.launches.launch_id == 3


@sync
async def test_s_in_the_drill_down_over_the_timeline() -> None:
    app = TraceApp(sample("small_kernels.sqlite"), ncu=sample(REPORT))
    async with app.run_test(size=SIZE) as pilot:
        await ncu_ready(pilot)
        await pilot.press("c")
        await drilled(pilot)
        await pilot.press("down", "s")  # naive_sgemm
        screen = await source_shown(pilot)
        assert screen.launch_id == 1 and screen.view is not None
        assert screen.view.total_samples == 51225
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, NcuScreen))


@sync
async def test_a_csv_export_says_the_view_needs_the_report() -> None:
    app = NcuApp(sample("small_kernels.raw.csv"))
    async with app.run_test(size=SIZE) as pilot:
        await ncu_app_ready(pilot)
        await pilot.press("enter")
        screen = await source_shown(pilot)
        assert screen.has_class("-empty")
        assert NOT_A_REPORT in str(screen.query_one("#src-note").render())
