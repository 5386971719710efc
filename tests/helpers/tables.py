"""The table tabs through Pilot: wait until a table is in, filter one, read its rows."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from textual.pilot import Pilot

from tests.helpers.pilot import WAIT_S
from tui.widgets.tables.base import SqlTable


async def ready(pilot: Pilot, table_id: str) -> SqlTable:
    """Wait until the table is mounted (a tab's tables are, once the tab is first shown:
    a key or click that shows it has not always mounted them when it returns), built,
    counted and its visible rows are in."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if pilot.app.query(f"#{table_id}"):
            break
        await pilot.pause()
        await asyncio.sleep(0.01)
    table = pilot.app.query_one(f"#{table_id}", SqlTable)
    while time.monotonic() < deadline:
        await pilot.pause()
        busy = any(w.is_running for w in pilot.app.workers)
        if table.total is not None and not table.loading and not busy and (
                table.total == 0 or table.row_at(table.cursor) is not None):
            break
        await asyncio.sleep(0.01)
    await pilot.pause()
    return table


async def kernel_names_matching(pilot: Pilot, text: str) -> SqlTable:
    """Open the Kernels tab and filter its names by `text` ("/"); the filtered table."""
    await pilot.press("2")
    await ready(pilot, "kernel-names")
    await pilot.press("slash", *text, "enter")
    return await ready(pilot, "kernel-names")


def all_rows(table: SqlTable) -> list[dict[str, Any]]:
    assert table.model is not None and table.total is not None
    rows = table.model.page(table.table_query, 0, table.total + 1)
    return [dict(zip(table.keys, row, strict=True)) for row in rows]


def shown(table: SqlTable, y: int) -> str:
    return table.render_line(y).text
