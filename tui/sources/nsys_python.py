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
from tui.derived.backtrace_frames import define_python_frame_macros

# The payload schemas that name the marks, and the tables that hold them.
BACKTRACES = "Python Backtrace on CUDA"
SAMPLES = "Python Periodic Sampling"
TABLES = ("NVTX_EVENTS", "NVTX_PAYLOAD_SCHEMAS")


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


def load_marks(source: adbc_sqlite.Connection, con: duckdb.DuckDBPyConnection,
               domains: list[int], what: str, write: tuple[str, str],
               instead: str = "") -> list[str]:
    """Read the marks of `domains` (nsys_sqlite_python_marks.sql) and write them: `write`
    is (the query, the name it reads them by), with nsys_strings registered on `con`.
    Warnings: `what` names the marks ('Python samples'), `instead` says what stands in
    where they cannot be read."""
    cursor = source.cursor()
    try:
        cursor.execute(fill("nsys_sqlite_python_marks",  # integers: no quoting needed
                            domains=Sql(", ".join(str(int(d)) for d in domains))))
        marks = cursor.fetch_arrow_table()
    except Exception as exc:  # the driver raises its own error family
        return [f"skipped the {what} ({first_line(exc)}){instead}"]
    finally:
        cursor.close()
    if marks.num_rows == 0:
        return []
    if marks.column("json").null_count == marks.num_rows:
        return [f"{marks.num_rows:,} {what} have no frames in this export (nsys keeps them "
                "only as JSON text): export it again with `nsys export --type sqlite "
                "--include-json=true` to see them"]
    con.execute(load_query("nsys_macros"))
    query, name = write
    with registered(con, name, marks):
        con.execute(load_query(query)).fetchall()
    return []


def load_python_samples(source: adbc_sqlite.Connection, con: duckdb.DuckDBPyConnection,
                        domains: list[int]) -> list[str]:
    """python_samples and python_stacks from the marks of `domains`; warnings."""
    define_python_frame_macros(con)
    return load_marks(source, con, domains, "Python samples",
                      ("nsys_python_samples_write", "nsys_python_samples"))
