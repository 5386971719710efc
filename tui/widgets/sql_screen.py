"""The SQL prompt (`:`): read-only DuckDB SQL over the trace, results in a table.

The editor is a TextArea (SQL highlighting where `textual[syntax]` is installed); ctrl+r
runs the statement in a worker through `run_user_sql`, so only SELECT-like statements
run. A failure shows DuckDB's message in a panel, never a traceback. Every value from
the trace is drawn as plain text. Nothing typed here is kept after the app exits.
"""

from __future__ import annotations

import time
from typing import ClassVar

import duckdb
import pyarrow as pa
from rich.console import JustifyMethod
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static, TextArea

from tui.core.db import CursorSource
from tui.core.safe_text import plain
from tui.core.user_sql import MAX_ROWS, UserSqlError, run_user_sql
from tui.widgets import keymap
from tui.widgets.export_dialog import ExportSource
from tui.widgets.sql_schema import SchemaBrowser

SHOWN_ROWS = 1_000  # rows drawn in the results table; export writes them all
MAX_WIDTH = 60  # cells: a longer value is cut with …; export keeps it whole
EXPORT_MAX_ROWS = 10_000_000
EXAMPLE = """\
SELECT name, count(*) AS launches, sum(duration_ns) AS total_ns
FROM gpu_activities
WHERE kind = 'kernel'
GROUP BY name
ORDER BY total_ns DESC
LIMIT 20"""
HINT = "ctrl+r runs · ctrl+s exports the result · Tab: results, schema · Esc: back"


def is_numeric(field: pa.Field) -> bool:
    kind = field.type
    return pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind)


def cell(value: object, justify: JustifyMethod) -> Text:
    """A value as plain text (never markup), cut with … past the column's width."""
    text = Text("NULL", style="dim") if value is None else plain(value)
    text.justify = justify
    text.overflow, text.no_wrap = "ellipsis", True
    return text


class SqlScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [*keymap.bindings(keymap.SQL)]
    DEFAULT_CSS = """
    SqlScreen #sql-left { width: 1fr; }
    SqlScreen #sql-editor { height: 9; }
    SqlScreen #sql-status { height: 1; padding: 0 1; background: $panel; }
    SqlScreen #sql-error {
        display: none; height: auto; max-height: 12; padding: 0 1;
        border: round $error; color: $text;
    }
    SqlScreen #sql-results { height: 1fr; }
    """

    def __init__(self, con: CursorSource) -> None:
        super().__init__()
        self.con = con
        self.sql = ""  # the statement whose result is shown
        self.result: pa.Table | None = None
        self._pending: duckdb.DuckDBPyConnection | None = None

    def compose(self) -> ComposeResult:
        with Horizontal():
            with Vertical(id="sql-left"):
                yield TextArea(EXAMPLE, language="sql", id="sql-editor", soft_wrap=True,
                               show_line_numbers=True, tab_behavior="focus")
                yield Static(HINT, id="sql-status")
                yield Static("", id="sql-error")
                yield DataTable(id="sql-results", zebra_stripes=True)
            yield SchemaBrowser(id="sql-schema")
        yield Footer()

    def on_mount(self) -> None:
        self.editor.focus()

    @property
    def editor(self) -> TextArea:
        return self.query_one("#sql-editor", TextArea)

    def _status(self, text: str | Text) -> None:
        self.query_one("#sql-status", Static).update(text)

    def _show_error(self, message: str | None) -> None:
        panel = self.query_one("#sql-error", Static)
        panel.display = message is not None
        panel.update(plain(message or ""))

    # -- running ---------------------------------------------------------------------------

    def action_run(self) -> None:
        sql = self.editor.text.strip()
        if not sql:
            self._status("type a statement first")
            return
        self._pending = cursor = self.con.cursor()  # a run still going is ignored
        self._status("running …")
        self._execute(cursor, sql)

    @work(thread=True, exclusive=True, group="sql")
    def _execute(self, cursor: duckdb.DuckDBPyConnection, sql: str) -> None:
        started = time.perf_counter()
        try:
            table: pa.Table | str = run_user_sql(cursor, sql, MAX_ROWS)
        except UserSqlError as exc:
            table = str(exc)
        except duckdb.Error as exc:
            table = " ".join(str(exc).split())
        finally:
            cursor.close()
        elapsed = time.perf_counter() - started
        self.app.call_from_thread(self._finished, cursor, sql, table, elapsed)

    def _finished(self, cursor: duckdb.DuckDBPyConnection, sql: str,
                  result: pa.Table | str, elapsed: float) -> None:
        if cursor is not self._pending:
            return  # a newer run replaced this one
        self._pending = None
        if isinstance(result, str):
            self._show_error(result)
            self._status(f"error · {elapsed * 1000:,.0f} ms · the last result stays below")
            return
        self._show_error(None)
        self.sql, self.result = sql, result
        self.app.refresh_bindings()  # the export key shows now that there is a result
        self._fill(result)
        rows = result.num_rows
        text = f"{rows:,} row{'s' if rows != 1 else ''}"
        if rows >= MAX_ROWS:
            text = f"{MAX_ROWS:,}+ rows (stopped there)"
        if rows > SHOWN_ROWS:
            text += f", the first {SHOWN_ROWS:,} shown"
        self._status(f"{text} · {elapsed * 1000:,.0f} ms · ctrl+s exports")

    def _fill(self, result: pa.Table) -> None:
        table = self.query_one("#sql-results", DataTable)
        table.clear(columns=True)
        shown = result.slice(0, SHOWN_ROWS)
        columns = []
        for field, column in zip(result.schema, shown.columns, strict=True):
            side: JustifyMethod = "right" if is_numeric(field) else "left"
            texts = [cell(value, side) for value in column.to_pylist()]
            width = max([len(field.name), *(t.cell_len for t in texts)])
            table.add_column(Text(field.name, style="bold", justify=side),
                             width=min(width, MAX_WIDTH))
            columns.append(texts)
        for row in zip(*columns, strict=True):
            table.add_row(*row)

    # -- export and closing ----------------------------------------------------------------

    def export_source(self) -> ExportSource | None:
        """The last result (run again without the row cap when it was capped)."""
        if self.result is None:
            return None
        result, sql, con = self.result, self.sql, self.con
        if result.num_rows < MAX_ROWS:
            return ExportSource("query", lambda: result)
        cursor = con.cursor()

        def rerun() -> pa.Table:
            try:
                return run_user_sql(cursor, sql, EXPORT_MAX_ROWS)
            finally:
                cursor.close()

        return ExportSource("query", rerun, f"at most {EXPORT_MAX_ROWS:,} rows")

    @on(SchemaBrowser.Insert)
    def _insert(self, event: SchemaBrowser.Insert) -> None:
        self.editor.insert(event.text)
        self.editor.focus()

    def action_close(self) -> None:
        self.dismiss()
