"""`tui schema`: the tables a trace is loaded into, with every column's type and meaning."""

from __future__ import annotations

import argparse

from rich.table import Table

from tui.core.safe_text import plain
from tui.core.schema_doc import describe


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tui schema",
        description="The DuckDB tables `tui query` and the SQL prompt can read.",
    )
    parser.add_argument("--debug", action="store_true")
    parser.parse_args(argv)
    from tui.core.console import summary_console

    console = summary_console()
    current = None
    table = None
    for name, comment, column, dtype, column_comment in describe():
        if name != current:
            if table is not None:
                console.print(table)
            table = Table(title=f"{name}: {comment}", title_justify="left")
            for heading in ("column", "type", "meaning"):
                table.add_column(heading)
            current = name
        assert table is not None
        table.add_row(column, dtype, plain(column_comment or ""))
    if table is not None:
        console.print(table)
    return 0
