"""Running SQL that a person typed: read-only, whatever the connection allows.

Only SELECT-like statements (SELECT, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN) run; anything
that would change the trace's database or write files (INSERT, COPY, ATTACH, SET...)
is refused with a plain message before DuckDB sees it.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from tui.core.errors import TraceError

ALLOWED = {duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN}
MAX_ROWS = 100_000


class UserSqlError(TraceError):
    """The SQL was refused or failed; the message is DuckDB's own words, plainly."""


def run_user_sql(con: duckdb.DuckDBPyConnection, sql: str, max_rows: int = MAX_ROWS) -> pa.Table:
    """Run one read-only statement; its result as an Arrow table (at most `max_rows`)."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise UserSqlError(_message(exc)) from None
    if not statements:
        raise UserSqlError("no SQL statement given")
    if len(statements) > 1:
        raise UserSqlError("one statement at a time, please")
    statement = statements[0]
    if statement.type not in ALLOWED:
        kind = str(statement.type).rsplit(".", 1)[-1]
        raise UserSqlError(f"{kind} statements are not allowed: the trace is opened read-only")
    try:  # on `con` itself, so that interrupting `con` stops it
        reader = con.sql(statement.query).to_arrow_reader(8192)
        batches, rows = [], 0
        with reader:  # closed, the rows not read are dropped
            for batch in reader:
                batches.append(batch)
                rows += batch.num_rows
                if rows >= max_rows:
                    break
        table = pa.Table.from_batches(batches, schema=reader.schema)
    except duckdb.Error as exc:
        raise UserSqlError(_message(exc)) from None
    return table.slice(0, max_rows)


def _message(exc: Exception) -> str:
    return " ".join(str(exc).split())
