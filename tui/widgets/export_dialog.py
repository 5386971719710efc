"""Export from the app: a small dialog that writes an Arrow result as CSV, Parquet or JSON.

Any widget (or one of its ancestors, or the screen) that the app's export key should
write implements `Exportable`: `export_source()` returns an `ExportSource`, or None
while it has nothing to export. The app's `x` / `ctrl+s` walks up from the focused
widget to the first one with a source and opens `ExportDialog` on it:

    class KernelPanel(TablePanel):
        def export_source(self) -> ExportSource | None:
            model = self.table.model
            if model is None:
                return None
            return ExportSource("kernels", lambda: model.arrow(self.table.table_query))

`rows` runs in a worker thread, so it may run a query; the file is written there too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

import pyarrow as pa
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from tui.core.errors import TraceError
from tui.core.export import format_for, write_table
from tui.core.safe_text import plain, printable


@dataclass(frozen=True)
class ExportSource:
    """What to export: a default file stem and a function returning the rows."""

    name: str
    rows: Callable[[], pa.Table]
    note: str = ""  # a line for the dialog, e.g. "the first 100,000 rows"


@runtime_checkable
class Exportable(Protocol):
    def export_source(self) -> ExportSource | None: ...


def find_source(node: DOMNode | None) -> ExportSource | None:
    """The export source of `node` or its nearest ancestor that has one."""
    while node is not None:
        # what isinstance(node, Exportable) checks, without its cost (a protocol's members
        # looked up again at each call): the app asks at every redraw of its keys
        export_source = getattr(node, "export_source", None)
        if export_source is not None:
            source = export_source()
            if source is not None:
                return source
        node = node.parent
    return None


class ExportDialog(ModalScreen[Path | None]):
    """Asks for a file name and writes the source there; dismissed with the path written."""

    BINDINGS = [Binding("escape", "dismiss(None)", "cancel")]
    DEFAULT_CSS = """
    ExportDialog { align: center middle; }
    ExportDialog > Vertical {
        width: 72; max-width: 100%; height: auto; border: round $accent;
        padding: 0 1; background: $surface;
    }
    ExportDialog #export-error { color: $error; height: auto; }
    ExportDialog #export-hint { color: $text-muted; }
    """

    def __init__(self, source: ExportSource) -> None:
        super().__init__()
        self.source = source
        self._overwrite: Path | None = None  # asked once: Enter again overwrites it

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(f"Export {self.source.name}" + (
                f" ({self.source.note})" if self.source.note else "")), id="export-title")
            yield Input(f"{self.source.name}.csv", id="export-path", select_on_focus=False)
            yield Static("a .csv, .parquet or .json name · Enter writes · Esc cancels",
                         id="export-hint")
            yield Static("", id="export-error")

    def on_mount(self) -> None:
        field = self.query_one("#export-path", Input)
        field.focus()
        field.cursor_position = len(field.value) - len(".csv")  # ready to type a stem

    def _error(self, message: str) -> None:
        self.query_one("#export-error", Static).update(plain(message))

    @on(Input.Submitted, "#export-path")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text:
            self._error("type a file name")
            return
        path = Path(text).expanduser()
        try:
            format_for(path)
        except TraceError as exc:
            self._error(str(exc))
            return
        if path.is_dir():
            self._error(f"{path} is a directory")
            return
        if path.exists() and self._overwrite != path:
            self._overwrite = path
            self._error(f"{path} exists: Enter again to overwrite it")
            return
        self._error("writing …")
        self._write(path)

    @work(thread=True, exclusive=True, group="export")
    def _write(self, path: Path) -> None:
        try:
            table = self.source.rows()
            write_table(table, path)
        except (TraceError, OSError) as exc:
            self.app.call_from_thread(self._error, str(exc))
            return
        except Exception as exc:  # a query that failed: say so, never a traceback
            self.app.call_from_thread(self._error, f"{type(exc).__name__}: {exc}")
            return
        self.app.call_from_thread(self._written, path, table.num_rows)

    def _written(self, path: Path, rows: int) -> None:
        self.app.notify(f"wrote {rows:,} row{'s' if rows != 1 else ''} to {printable(path)}",
                        title="export", markup=False)
        self.dismiss(path)
