"""An Arrow table as a Rich table, every cell plain text."""

from __future__ import annotations

import pyarrow as pa
from rich.table import Table

from tui.core.safe_text import plain

MAX_PRINTED_ROWS = 500


def arrow_to_rich(table: pa.Table, max_rows: int = MAX_PRINTED_ROWS) -> Table:
    numeric = {
        f.name for f in table.schema
        if pa.types.is_integer(f.type) or pa.types.is_floating(f.type)
        or pa.types.is_decimal(f.type)
    }
    out = Table(caption=f"{table.num_rows:,} rows" + (
        f" (first {max_rows:,} shown)" if table.num_rows > max_rows else ""
    ))
    for name in table.column_names:
        out.add_column(plain(name), justify="right" if name in numeric else "left")
    shown = table.slice(0, max_rows)
    for row in zip(*(column.to_pylist() for column in shown.columns), strict=True):
        out.add_row(*(plain("NULL" if v is None else v) for v in row))
    return out
