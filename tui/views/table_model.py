"""The SQL side of a TUI table: a source query materialised once, then read in pages.

A table's rows are built once (a `queries/widgets/table_*.sql` query into a temp table on a
connection of the table's own). A sort or filter is one query that numbers the passing
rows in order into a second temp table (the view); a page is then a range of those
numbers, so row 100,000 comes as fast as row 0. Queries run in workers; nothing but the
rows on screen (and a few pages around them) ever becomes Python objects.

Thread-safe: a lock serialises the connection, since workers of one table may overlap.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import duckdb
import pyarrow as pa

from tui.core.db import CursorSource, registered
from tui.core.queries import Sql, fill, load_query

_ids = itertools.count()
Row = tuple[Any, ...]
T = TypeVar("T")


@dataclass(frozen=True)
class Query:
    """What a table shows: its sort, its text filter and exact-match conditions."""

    sort: str
    descending: bool = False
    text: str = ""
    exact: tuple[tuple[str, Any], ...] = ()


def ident(name: str) -> str:
    """A quoted SQL identifier (names come from code, quoting keeps them inert anyway)."""
    return '"' + name.replace('"', '""') + '"'


def like_pattern(text: str) -> str:
    """An ILIKE pattern matching `text` anywhere, with `%`, `_` and `\\` taken literally."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class TableModel:
    """`keys`: the columns a page returns; `search`: the columns `/` looks in."""

    def __init__(self, con: CursorSource, keys: Sequence[str],
                 search: Sequence[str]) -> None:
        self._cur = con.cursor()
        self._lock = threading.Lock()
        self._table = f"tui_table_{next(_ids)}"
        self._view = f"{self._table}_view"
        self._prepared: tuple[int, Query] | None = None  # what the view holds now
        self.keys = tuple(keys)
        self.search = tuple(search)
        self.generation = 0  # bumps with each build: pages of an older one are stale

    def build(self, source: str, params: Mapping[str, Any] | None = None,
              arrow: Mapping[str, pa.Table] | None = None) -> None:
        """(Re)fill the table from the query `source` (its text); `arrow` tables are
        registered under their names for it to read."""
        sql = fill("table_build", table=ident(self._table),
                   source=Sql(source.strip().rstrip(";")))
        with self._lock, contextlib.ExitStack() as registrations:
            for name, table in (arrow or {}).items():
                registrations.enter_context(registered(self._cur, name, table))
            self._cur.execute(sql, dict(params or {})).fetchall()
            self.generation += 1

    def _where(self, query: Query) -> tuple[str, dict[str, Any]]:
        clauses, params = [], {}
        if query.text and self.search:
            params["pattern"] = like_pattern(query.text)
            clauses.append("(" + " OR ".join(
                f"{ident(k)}::VARCHAR ILIKE $pattern ESCAPE '\\'" for k in self.search) + ")")
        for i, (key, value) in enumerate(query.exact):
            params[f"eq{i}"] = value
            clauses.append(f"{ident(key)} = $eq{i}")
        return " AND ".join(clauses) or "true", params

    def _prepare(self, query: Query) -> None:
        """Sort and filter once per query into the view that pages are read from
        (the caller holds the lock)."""
        if self._prepared == (self.generation, query):
            return
        if query.sort not in self.keys:
            raise ValueError(f"not a column of this table: {query.sort!r}")
        where, params = self._where(query)
        direction = "DESC" if query.descending else "ASC"
        self._cur.execute(fill(
            "table_order", view=ident(self._view), table=ident(self._table), where=Sql(where),
            columns=", ".join(ident(k) for k in self.keys),
            order=Sql(f"{ident(query.sort)} {direction} NULLS LAST")), params).fetchall()
        # Every result on this cursor is fetched to the end: DuckDB refuses a new .sql()
        # beside an unfinished one.
        self._prepared = (self.generation, query)

    def count(self, query: Query) -> int:
        """How many rows pass the query's filter."""
        with self._lock:
            self._prepare(query)
            rows = self._cur.execute(fill("table_count", view=ident(self._view))).fetchall()
        return int(rows[0][0]) if rows else 0

    def page(self, query: Query, offset: int, limit: int) -> list[Row]:
        """Rows [offset, offset + limit) of the filtered, sorted table, as `keys` tuples."""
        with self._lock:
            self._prepare(query)
            return self._cur.execute(fill(
                "table_page", columns=", ".join(ident(k) for k in self.keys),
                view=ident(self._view)),
                {"limit": limit, "offset": offset}).fetchall()

    def arrow(self, query: Query) -> pa.Table:
        """Every row that passes the query, in its order, as Arrow (for export)."""
        with self._lock:
            self._prepare(query)
            return self._cur.sql(fill(
                "table_all", columns=", ".join(ident(k) for k in self.keys),
                view=ident(self._view))).to_arrow_table()

    def max_length(self, key: str) -> int:
        """The longest text in column `key` (how wide "full names" make it)."""
        sql = fill("table_max_length", column=ident(key), table=ident(self._table))
        with self._lock:
            rows = self._cur.execute(sql).fetchall()
        return int(rows[0][0] or 0) if rows else 0

    def run(self, work: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
        """`work(connection)` on this table's connection, e.g. an analysis whose result
        the table then shows (temp tables it makes stay private to this table)."""
        with self._lock:
            return work(self._cur)

    def scalar(self, sql_name: str, params: Mapping[str, Any] | None = None) -> Any:
        """The first value of a helper query on the trace (not on this table)."""
        with self._lock:
            rows = self._cur.execute(load_query(sql_name), dict(params or {})).fetchall()
        return rows[0][0] if rows else None

    def rows(self, sql_name: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        """Every row of a helper query on the trace."""
        with self._lock:
            return self._cur.execute(load_query(sql_name), dict(params or {})).fetchall()

    def close(self) -> None:
        with self._lock:
            self._cur.close()
