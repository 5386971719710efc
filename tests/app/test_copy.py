"""`y` writes OSC 52 with the selection: the full kernel name, a table row, the SQL result.
The bytes the app writes to the terminal are read back and decoded."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest

from tests.helpers.generated import evil_trace
from tests.helpers.paths import sample
from tests.helpers.pilot import GAPPY, settle, sync
from tui.apps.trace_app import TraceApp
from tui.widgets.clipboard import arrow_tsv, clean
from tui.widgets.tables.base import SqlTable

pytestmark = pytest.mark.slow

OSC52 = re.compile(r"\x1b\]52;c;([A-Za-z0-9+/=]*)\x07")


def capture(app: TraceApp) -> list[str]:
    """What the app writes to the terminal from now on."""
    written: list[str] = []
    driver = app._driver
    assert driver is not None
    driver.write = written.append  # type: ignore[method-assign]
    return written


def copied(written: list[str]) -> list[str]:
    return [base64.b64decode(m).decode("utf-8") for w in written for m in OSC52.findall(w)]


@sync
async def test_y_copies_the_full_kernel_name_without_control_characters(
        tmp_path: Path) -> None:
    app = TraceApp(evil_trace(tmp_path / "evil.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        timeline = await settle(pilot)
        timeline.jump_to(1_010_000, 1_510_000, device=0, stream=7)
        await settle(pilot)
        written = capture(app)
        await pilot.press("y")
        await pilot.pause()
        assert copied(written) == ["[bold]evil[31m kernel"]  # literal, ESC removed
        assert app.status.notice.startswith("copied the kernel name: 21 bytes, sent to ")


@sync
async def test_y_copies_a_table_row_and_the_sql_result() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("3")  # the Gaps tab, its table focused
        await settle(pilot)
        table = app.focused
        assert isinstance(table, SqlTable)
        row = table.row_at(0)
        written = capture(app)
        await pilot.press("y")
        await pilot.pause()
        [text] = copied(written)
        assert text.split("\t") == [clean(v) if v is not None else "" for v in row.values()]
        assert "51" in text  # the longest gap, 51.2 ms, is the first row
        await pilot.press("colon")
        await pilot.pause()
        app.screen.editor.text = "SELECT name, count(*) AS n FROM gpu_activities " \
                                 "GROUP BY name ORDER BY n DESC, name LIMIT 3"
        await pilot.press("ctrl+r")
        for _ in range(100):
            await pilot.pause()
            if app.screen.result is not None:
                break
        await pilot.press("tab")  # the results table
        await pilot.press("y")
        await pilot.pause()
        result = copied(written)[-1]
        assert result == arrow_tsv(app.screen.result)
        lines = result.splitlines()
        assert lines[0] == "name\tn" and len(lines) == 4
        assert any("copied the SQL result (3 rows, TSV)" in n.message
                   for n in app._notifications)
