"""The schema described: every table and column with its type and meaning, read from the
schema files (for `tui schema` and the SQL prompt's browser)."""

from __future__ import annotations

from tui.core.db import connect
from tui.core.queries import load_query


def describe() -> list[tuple]:
    """(table, table comment, column, type, column comment) rows from the schema files."""
    con = connect(":memory:")
    con.execute(load_query("schema"))
    con.execute(load_query("schema_comments"))
    return con.execute(load_query("schema_description")).fetchall()
