"""What an Nsight Systems export says went wrong in making it (its DIAGNOSTIC_EVENT
table): the errors of nsys' import of the report, whose events are missing from the
export, said as a load warning."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tui.core.queries import load_query
from tui.sources.sqlite_uri import read_only_uri

DIAGNOSTICS_TABLE = "DIAGNOSTIC_EVENT"


def import_errors(path: Path, schema: dict[str, set[str]]) -> list[str]:
    """A warning where nsys logged errors importing the report ([] where none, or the
    export has no diagnostics)."""
    if not {"source", "text", "timestamp"} <= schema.get(DIAGNOSTICS_TABLE, set()):
        return []
    try:
        db = sqlite3.connect(read_only_uri(path), uri=True)
        try:
            row = db.execute(load_query("nsys_sqlite_import_errors")).fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return []
    errors, first = row if row else (0, None)
    if not errors:
        return []
    what = f" (“{error_message(first)}”)" if first else ""
    return [f"nsys logged {errors:,} error{'s' if errors > 1 else ''} importing the "
            f"report{what}: the events {'they' if errors > 1 else 'it'} dropped are "
            "missing from this export"]


def error_message(text: str) -> str:
    """The message of an import error's text: its last line's words after "] = "
    ("Cannot find string for an exterior index"), else its first line, at most 120
    characters."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    last = lines[-1]
    message = last.split("] = ", 1)[1] if "] = " in last else lines[0]
    return message[:120]
