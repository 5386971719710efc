"""Python's own stacks in an nsys report: the NVTX marks `--python-backtrace=cuda` and
`--python-sampling=true` leave, whose frames an export keeps only as JSON text (`nsys
export --include-json=true`). The backtraces become the frames outside each CUDA call's
native ones (nsys_backtraces.py); the samples go into python_samples and python_stacks."""

from __future__ import annotations

import adbc_driver_sqlite.dbapi as adbc_sqlite
import duckdb

from tui.core.db import registered
from tui.core.errors import first_line
from tui.core.queries import Sql, fill, load_query

# The payload schemas that name the marks, and the tables that hold them.
BACKTRACES = "Python Backtrace on CUDA"
SAMPLES = "Python Periodic Sampling"
TABLES = ("NVTX_EVENTS", "NVTX_PAYLOAD_SCHEMAS")
# The export option that keeps their frames, as a warning asks for it.
EXPORT_AGAIN = ("export it again with `nsys export --type sqlite --include-json=true` to "
                "see them")


def python_domains(source: adbc_sqlite.Connection,
                   schema: dict[str, set[str]]) -> dict[str, list[int]]:
    """The NVTX domains of Python's marks by their schema's name (BACKTRACES, SAMPLES);
    empty where the report has none, or its export no JSON text column to hold them."""
    if not all(table in schema for table in TABLES) or "jsonText" not in schema[TABLES[0]]:
        return {}
    cursor = source.cursor()
    try:
        cursor.execute(load_query("nsys_sqlite_python_domains"))
        rows = cursor.fetch_arrow_table().to_pylist()
    except Exception:  # the driver raises its own error family: read as having none
        return {}
    finally:
        cursor.close()
    found: dict[str, list[int]] = {}
    for row in rows:
        found.setdefault(row["kind"], []).append(int(row["domain"]))
    return found


def read_marks(source: adbc_sqlite.Connection, query: str, domains: list[int]):
    """The marks of `domains` by the named query (its {domains} slot), as Arrow."""
    cursor = source.cursor()
    try:
        cursor.execute(fill(query, domains=Sql(", ".join(str(int(d)) for d in domains))))
        return cursor.fetch_arrow_table()
    finally:
        cursor.close()


def load_python_samples(source: adbc_sqlite.Connection, con: duckdb.DuckDBPyConnection,
                        domains: list[int]) -> list[str]:
    """python_samples and python_stacks from the marks of `domains` (with nsys_strings
    registered on `con`); warnings."""
    try:
        samples = read_marks(source, "nsys_sqlite_python_samples", domains)
    except Exception as exc:  # the driver raises its own error family
        return [f"skipped the Python samples ({first_line(exc)})"]
    if samples.num_rows == 0:
        return []
    if samples.column("sample_json").null_count == samples.num_rows:
        return [f"{samples.num_rows:,} Python samples have no frames in this export (nsys "
                f"keeps them only as JSON text): {EXPORT_AGAIN}"]
    con.execute(load_query("nsys_macros"))
    with registered(con, "nsys_python_samples", samples):
        con.execute(load_query("nsys_python_samples_write")).fetchall()
    return []
