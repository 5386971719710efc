"""SVG snapshots of the Nsight Compute drill-down (pytest-textual-snapshot), on the real
paired samples. Update after an intended change of look: `pytest
tests/app/test_ncu_snapshots.py --snapshot-update`, then review the SVGs."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from tests.helpers.ncu_pilot import drilled, ncu_app_ready, ncu_ready
from tests.helpers.paths import sample
from tests.helpers.pilot import settle
from tui.apps.ncu_app import NcuApp
from tui.apps.trace_app import TraceApp

pytestmark = pytest.mark.slow


def test_drill_down_over_the_timeline(snap_compare) -> None:
    """Enter on saxpy in small_kernels.sqlite: its launch in small_kernels.ncu-rep."""

    async def run_before(pilot: Pilot) -> None:
        app = await ncu_ready(pilot)
        start, end = app.trace.con.execute(
            "SELECT start_ns, end_ns FROM gpu_activities WHERE name LIKE 'saxpy(%'").fetchone()
        app.timeline.jump_to(start, end, device=0, stream=7)
        await settle(pilot)
        await pilot.press("enter")
        await drilled(pilot)
        app.clear_notifications()
        await pilot.pause()

    app = TraceApp(sample("small_kernels.sqlite"), ncu=sample("small_kernels.ncu-rep"))
    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def test_report_alone_narrow(snap_compare) -> None:
    """`tui small_kernels.ncu-rep` at 80x30, tiny_grid selected: figures above findings."""

    async def run_before(pilot: Pilot) -> None:
        await ncu_app_ready(pilot)
        await pilot.press("down", "down", "down", "down")
        await pilot.pause()

    app = NcuApp(sample("small_kernels.ncu-rep"))
    assert snap_compare(app, terminal_size=(80, 30), run_before=run_before)
