"""SVG snapshot of the Source view (pytest-textual-snapshot) on the recorded report of
recordings/source_view/hot.cu. Update after an intended change of look: `pytest
tests/app/test_ncu_source_snapshots.py --snapshot-update`, then review the SVG."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from tests.helpers.ncu_pilot import ncu_app_ready, source_shown
from tests.helpers.ncu_source import hot_report_path
from tui.apps.ncu_app import NcuApp

pytestmark = pytest.mark.slow


def test_source_view_of_the_bank_conflicted_walk(snap_compare) -> None:
    """shared_walk: line 32 (hottest) waits on line 31's 32-way conflicted shared load."""

    async def run_before(pilot: Pilot) -> None:
        await ncu_app_ready(pilot)
        await pilot.press("down", "down", "enter")
        await source_shown(pilot)
        await pilot.pause()

    app = NcuApp(hot_report_path())
    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)
