"""The SQL prompt, export, the command palette and the theme, driven through Pilot."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Static, TextArea

from tests.helpers.paths import sample
from tests.helpers.pilot import GAPPY, SIZE, settle, sync, until
from tests.helpers.tables import ready
from tui.apps.trace_app import TraceApp
from tui.cli.main import main as cli_main
from tui.widgets.export_dialog import ExportDialog
from tui.widgets.help import help_text
from tui.widgets.sql_screen import SqlScreen


async def open_sql(pilot: Pilot) -> SqlScreen:
    await settle(pilot)
    await pilot.press("colon")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, SqlScreen)
    return screen


async def run_sql(pilot: Pilot, screen: SqlScreen, sql: str) -> str:
    """Type `sql` over the editor's text, run it with ctrl+r; the status line after."""
    editor = screen.query_one("#sql-editor", TextArea)
    editor.text = sql
    editor.focus()
    await pilot.press("ctrl+r")
    for _ in range(300):
        await pilot.pause()
        if screen._pending is None:
            break
        await asyncio.sleep(0.01)
    return str(screen.query_one("#sql-status", Static).render())


def cell_text(table: DataTable, row: int, column: int) -> str:
    return str(table.get_row_at(row)[column])


def summary_kernel_count(capsys) -> int:
    assert cli_main(["--summary", "--json", str(sample(GAPPY))]) == 0
    summary = json.loads(capsys.readouterr().out)
    return sum(kernel["count"] for kernel in summary["kernels"])


@pytest.mark.slow
def test_sql_count_matches_the_summary(capsys) -> None:
    expected = summary_kernel_count(capsys)

    async def drive() -> None:
        async with TraceApp(sample(GAPPY)).run_test(size=SIZE) as pilot:
            screen = await open_sql(pilot)
            status = await run_sql(pilot, screen, "SELECT count(*) FROM gpu_activities "
                                   "WHERE kind = 'kernel'")
            assert status.startswith("1 row")
            table = screen.query_one("#sql-results", DataTable)
            assert table.row_count == 1
            assert cell_text(table, 0, 0) == str(expected)
            # every activity: kernels plus the copies and memsets the summary leaves out
            await run_sql(pilot, screen, "SELECT count(*) FROM gpu_activities")
            assert int(cell_text(table, 0, 0)) > expected
            assert not screen.query_one("#sql-error").display
            assert screen.is_running  # (a screen attribute once shadowed Textual's own)

    asyncio.run(drive())


@pytest.mark.slow
@sync
async def test_drop_is_refused_plainly() -> None:
    async with TraceApp(sample(GAPPY)).run_test(size=SIZE) as pilot:
        screen = await open_sql(pilot)
        await run_sql(pilot, screen, "SELECT 1 AS one")
        status = await run_sql(pilot, screen, "DROP TABLE gpu_activities")
        error = screen.query_one("#sql-error", Static)
        assert error.display
        assert "DROP statements are not allowed" in str(error.render())
        assert "read-only" in str(error.render())
        assert "Traceback" not in str(error.render())
        assert status.startswith("error")
        # the table is still there, and the last good result still shown
        assert screen.query_one("#sql-results", DataTable).row_count == 1
        await run_sql(pilot, screen, "SELECT count(*) FROM gpu_activities")
        assert not error.display
        await pilot.press("escape")
        assert not isinstance(pilot.app.screen, SqlScreen)


@pytest.mark.slow
@sync
async def test_sql_error_text_is_not_markup() -> None:
    async with TraceApp(sample(GAPPY)).run_test(size=SIZE) as pilot:
        screen = await open_sql(pilot)
        await run_sql(pilot, screen, "SELECT [bold]x[/bold] FROM nowhere")
        error = str(screen.query_one("#sql-error", Static).render())
        assert "nowhere" in error


@pytest.mark.slow
@sync
async def test_export_the_sql_result_as_parquet(tmp_path: Path) -> None:
    target = tmp_path / "kernels.parquet"
    async with TraceApp(sample(GAPPY)).run_test(size=SIZE) as pilot:
        screen = await open_sql(pilot)
        await run_sql(pilot, screen, "FROM gpu_activities WHERE kind = 'kernel'")
        rows = screen.result.num_rows if screen.result is not None else -1
        await pilot.press("ctrl+s")
        await pilot.pause()
        await write_with_dialog(pilot, target)
        assert isinstance(pilot.app.screen, SqlScreen)
    assert pq.read_metadata(target).num_rows == rows == 1260


async def write_with_dialog(pilot: Pilot, target: Path) -> None:
    """In the open export dialog, type `target` and write it; wait until it is written."""
    dialog = pilot.app.screen
    assert isinstance(dialog, ExportDialog)
    dialog.query_one("#export-path", Input).value = str(target)
    await pilot.press("enter")
    for _ in range(300):
        await pilot.pause()
        if not isinstance(pilot.app.screen, ExportDialog):
            return
        await asyncio.sleep(0.01)


@pytest.mark.slow
@sync
async def test_export_a_table_tab(tmp_path: Path) -> None:
    target = tmp_path / "kernels.csv"
    async with TraceApp(sample(GAPPY)).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")  # the timeline has nothing to export: no dialog
        await pilot.pause()
        assert not isinstance(pilot.app.screen, ExportDialog)
        await pilot.press("2")  # the Kernels tab: its table gets the keys once built
        table = await ready(pilot, "kernel-names")
        await until(pilot, lambda: pilot.app.focused is table)
        await pilot.press("x")
        await pilot.pause()
        await write_with_dialog(pilot, target)
        rows = getattr(table, "total", None)
    assert rows and target.read_text().count("\n") == rows + 1  # the header, then a line each


@pytest.mark.slow
@sync
async def test_export_refuses_an_unknown_suffix(tmp_path: Path) -> None:
    async with TraceApp(sample(GAPPY)).run_test(size=SIZE) as pilot:
        screen = await open_sql(pilot)
        await run_sql(pilot, screen, "SELECT 1 AS one")
        await pilot.press("ctrl+s")
        await pilot.pause()
        dialog = pilot.app.screen
        assert isinstance(dialog, ExportDialog)
        dialog.query_one("#export-path", Input).value = str(tmp_path / "one.xlsx")
        await pilot.press("enter")
        await pilot.pause()
        assert "unknown export format" in str(dialog.query_one("#export-error").render())
        await pilot.press("escape")
        assert isinstance(pilot.app.screen, SqlScreen)
    assert not list(tmp_path.iterdir())


@pytest.mark.slow
@sync
async def test_palette_lists_sql_theme_and_every_key() -> None:
    async with TraceApp(sample(GAPPY)).run_test(size=SIZE) as pilot:
        await settle(pilot)
        app = pilot.app
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert {"SQL prompt", "Light / dark theme"} <= titles
        assert {"Zoom in around the cursor", "Next GPU-idle gap", "This help",
                "Show/hide NVTX (annotation) lanes", "Quit"} <= titles
        assert not any(title.startswith("Export") for title in titles)  # nothing to export
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert CommandPalette.is_open(app)
        await pilot.press(*"SQL prompt")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SqlScreen)
        await run_sql(pilot, app.screen, "SELECT 1 AS one")
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert {"Run the SQL: one read-only statement (ctrl+enter too)",
                "Export the table or SQL result in focus: CSV, Parquet, JSON (ctrl+s too)",
                } <= titles


@pytest.mark.slow
@sync
async def test_theme_toggle() -> None:
    async with TraceApp(sample(GAPPY)).run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert pilot.app.theme == "textual-dark"
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert pilot.app.theme == "textual-light"
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert pilot.app.theme == "textual-dark"


def test_help_lists_the_new_keys() -> None:
    text = help_text().plain
    for needle in ("SQL prompt", "export the table", "light / dark theme", "run the SQL"):
        assert needle in text


def test_light_theme_inks() -> None:
    """On a light background the timeline's colours darken and blocks get dark text."""
    from rich.style import Style

    from tui.widgets import theme

    assert theme.is_light(Style(bgcolor="#e0e0e0")) and not theme.is_light(Style(bgcolor="#121212"))
    block = theme.on_light(Style(color="#87d75f", reverse=True))
    assert block.reverse and block.bgcolor is not None
    assert block.bgcolor.name == theme.INK_ON_LIGHT
    bar = theme.on_light(Style(color="#87d75f"))
    assert bar.color is not None and sum(bar.color.get_truecolor()) < sum((0x87, 0xd7, 0x5f))


@pytest.mark.slow
def test_quitting_while_a_query_runs_stops_it() -> None:
    """DuckDB refuses to close a connection while a cursor of it runs a query, and the
    query's worker thread holds the exit: quitting interrupts the query (it would run for
    half a minute) and the app ends at once, without an error."""
    slow = "SELECT count(*) FROM range(10000000000) t(x) WHERE x % 7 = 3"
    quit_at = 0.0

    async def drive() -> TraceApp:
        nonlocal quit_at
        app = TraceApp(sample(GAPPY))
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_sql(pilot)
            editor = screen.query_one("#sql-editor", TextArea)
            editor.text = slow
            editor.focus()
            await pilot.press("ctrl+r")
            await asyncio.sleep(0.3)
            assert screen._pending is not None  # still running
            quit_at = time.perf_counter()
            await pilot.press("ctrl+q")
        return app

    app = asyncio.run(drive())  # returns once the workers' threads are done
    assert time.perf_counter() - quit_at < 5
    assert app.return_code == 0 and not app._exit_renderables
