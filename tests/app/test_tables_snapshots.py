"""SVG snapshots of the table tabs on real sample traces (pytest-textual-snapshot).

Update after an intended change of look: `pytest tests/app/test_tables_snapshots.py
--snapshot-update`, then review the SVGs in tests/app/__snapshots__/.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from textual.pilot import Pilot

from tests.helpers.paths import sample
from tests.helpers.pilot import settle
from tests.helpers.tables import ready
from tui.apps.trace_app import TraceApp

pytestmark = pytest.mark.slow


def keys_then_ready(table_id: str, *keys: str) -> Callable[[Pilot], Awaitable[None]]:
    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await ready(pilot, table_id)
        await settle(pilot)

    return run_before


def test_kernel_table(snap_compare) -> None:
    app = TraceApp(sample("gappy_training.pt.trace.json.gz"))
    assert snap_compare(app, terminal_size=(120, 40),
                        run_before=keys_then_ready("kernel-names", "2", "down"))


def test_gap_table_at_100x30(snap_compare) -> None:
    app = TraceApp(sample("gappy_training.sqlite"))
    assert snap_compare(app, terminal_size=(100, 30),
                        run_before=keys_then_ready("gap-table", "3", "m"))
