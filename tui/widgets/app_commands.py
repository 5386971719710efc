"""The app-wide commands of the trace app: the SQL prompt, export, the theme, and the
command palette that lists every key's action. TraceApp inherits them from here.

The app remembers nothing between runs: the SQL typed, the theme chosen and the palette
live in memory only; no history file is written.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import App, SystemCommand
from textual.screen import Screen
from textual.widget import Widget

from tui.core.db import CursorSource
from tui.widgets.export_dialog import ExportDialog, find_source
from tui.widgets.palette import binding_commands
from tui.widgets.sql_screen import SqlScreen

DARK, LIGHT = "textual-dark", "textual-light"


class CommandsApp(App[int]):
    def sql_connection(self) -> CursorSource | None:
        """The trace's connection once it is loaded (TraceApp says)."""
        return None

    def palette_extras(self) -> Iterable[Widget]:
        """Widgets whose keys the palette lists even without focus (e.g. the timeline)."""
        return ()

    def action_sql(self) -> None:
        if isinstance(self.screen, SqlScreen):
            self.screen.editor.focus()
            return
        con = self.sql_connection()
        if con is None:
            self.notify("the trace is still loading", title="SQL prompt", markup=False)
            return
        if not self.is_screen_installed("sql"):
            self.install_screen(SqlScreen(con), "sql")  # kept: reopening shows the last query
        self.push_screen("sql")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "export":  # hidden (footer, palette) where there is nothing to export
            return find_source(self.screen.focused or self.screen) is not None
        return super().check_action(action, parameters)

    def action_export(self) -> None:
        source = find_source(self.screen.focused or self.screen)
        if source is None:
            self.notify("nothing to export here: focus a table (Tab), or run SQL (:) first",
                        title="export", severity="warning", markup=False)
            return
        self.push_screen(ExportDialog(source))

    def action_toggle_theme(self) -> None:
        self.theme = LIGHT if self.current_theme.dark else DARK

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("SQL prompt", "read-only SQL over the trace (key :)", self.action_sql)
        yield SystemCommand("Light / dark theme", "switch between textual-light and "
                            "textual-dark (key ctrl+t)", self.action_toggle_theme)
        extras = self.palette_extras() if screen is self.screen_stack[0] else ()
        yield from binding_commands(screen, extras, skip=("sql", "toggle_theme"))
