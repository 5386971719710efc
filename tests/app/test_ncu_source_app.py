"""The Source view in the app, through Pilot: from a report opened alone (Enter on a
launch) and from the drill-down over the timeline (`s`), on the real samples."""

from __future__ import annotations

import pytest
from textual.app import App

from tests.helpers.ncu_pilot import ncu_app_ready, source_shown
from tests.helpers.ncu_source import hot_report_path
from tests.helpers.paths import sample
from tests.helpers.pilot import SIZE, messages, sync, until
from tui.analysis.ncu.source import NO_LINES, NOT_A_REPORT
from tui.apps.ncu_app import NcuApp
from tui.views.ncu_session import NcuSession, open_ncu
from tui.widgets.ncu_screen import NcuScreen
from tui.widgets.ncu_source import NcuSourceScreen

pytestmark = pytest.mark.slow

REPORT = "small_kernels.ncu-rep"


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
        assert cell(screen, "instruction").strip() == "STG.E desc[UR6][R2.64], R5"
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


class _OverTheTimeline(App[None]):
    """A host for the drill-down screen as the timeline app pushes it (no trace needed)."""

    def __init__(self, session: NcuSession) -> None:
        super().__init__()
        self.session = session

    def on_mount(self) -> None:
        self.push_screen(NcuScreen(self.session))


@sync
async def test_s_in_the_drill_down_over_the_timeline() -> None:
    session = open_ncu(sample(REPORT))
    app = _OverTheTimeline(session)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, NcuScreen))
        await pilot.pause()
        await pilot.press("down", "s")  # naive_sgemm
        screen = await source_shown(pilot)
        assert screen.launch_id == 1 and screen.view is not None
        assert screen.view.total_samples == 51225
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, NcuScreen))
    session.close()


@sync
async def test_a_csv_export_says_the_view_needs_the_report() -> None:
    app = NcuApp(sample("small_kernels.raw.csv"))
    async with app.run_test(size=SIZE) as pilot:
        await ncu_app_ready(pilot)
        await pilot.press("enter")
        screen = await source_shown(pilot)
        assert screen.has_class("-empty")
        assert NOT_A_REPORT in str(screen.query_one("#src-note").render())


@sync
async def test_the_cuda_lines_of_the_strided_load() -> None:
    app = NcuApp(hot_report_path())
    async with app.run_test(size=(160, 48)) as pilot:
        await ncu_app_ready(pilot)
        await pilot.press("enter")  # strided_load
        screen = await source_shown(pilot)
        assert screen.mode == "cuda" and screen.view is not None
        assert screen.main.row_count == 87  # the whole of hot.cu
        # the cursor starts on the hottest line, the one that waits on line 9's load
        assert cell(screen, "line").strip() == "10"
        assert cell(screen, "source").strip() == "out[i] = v * 2.0f;"
        assert cell(screen, "waits on") == "← L9 global load"
        assert cell(screen, "top stalls").startswith("long sb 100%")
        explained = " ".join(str(screen.query_one("#src-explain").render()).split())
        assert "it waits on the global load of line 9" in explained
        detail = [[str(c) for c in screen.detail.get_row_at(i)]
                  for i in range(screen.detail.row_count)]
        add = next(r for r in detail if r[2].strip() == "FADD R5, R6, R6")
        assert add[0] == "+0x0300" and add[3] == "long sb" and add[4] == "← L9 global load"
        await pilot.press("n")  # the other hot line, then round to the first
        assert cell(screen, "line").strip() == "11"
        await pilot.press("n")
        assert cell(screen, "line").strip() == "10"
        await pilot.press("v")  # the whole SASS, on this line's hottest instruction
        await pilot.pause()
        assert screen.mode == "sass" and cell(screen, "address") == "+0x0300"
        assert cell(screen, "line") == "hot.cu:10"
        await pilot.press("up", "v")  # back to the lines, on the line of that instruction
        await pilot.pause()
        assert screen.mode == "cuda" and cell(screen, "line").strip() == "10"
