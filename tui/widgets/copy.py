"""`y`: what the focused widget has selected, as text for the clipboard.

The timeline gives the full name under its cursor (a gap: its description), a table its
highlighted row, the SQL prompt its whole result; all as `tui.widgets.clipboard` cleans them.
"""

from __future__ import annotations

from textual.widget import Widget

from tui.views.timeline import GapInfo, HostInfo, KernelInfo
from tui.widgets.clipboard import arrow_tsv, clean, tsv_row
from tui.widgets.details import describe
from tui.widgets.sql_screen import SqlScreen
from tui.widgets.tables.base import SqlTable
from tui.widgets.timeline import Timeline


def copy_text(focused: Widget | None) -> tuple[str, str] | None:
    """(what it is, the text) for the focused widget's selection; None: nothing to copy."""
    for node in focused.ancestors_with_self if focused is not None else ():
        if isinstance(node, Timeline):
            return _timeline(node)
        if isinstance(node, SqlTable):
            row = node.row_at(node.cursor)
            return None if row is None else ("the table row", tsv_row(row.values()))
        if isinstance(node, SqlScreen):
            if node.result is None:
                return None
            rows = node.result.num_rows
            return f"the SQL result ({rows:,} rows, TSV)", arrow_tsv(node.result)
    return None


def _timeline(timeline: Timeline) -> tuple[str, str] | None:
    info = timeline.info
    if isinstance(info, KernelInfo):
        return f"the {info.kind} name", clean(info.name)
    if isinstance(info, HostInfo):
        return f"the {info.kind} name", clean(info.name)
    if isinstance(info, GapInfo) and timeline.data is not None:
        text = describe(info, timeline.data.extent.gpu_start_ns, timeline.data.threads).plain
        return "the gap", "\n".join(clean(line) for line in text.splitlines())
    return None
