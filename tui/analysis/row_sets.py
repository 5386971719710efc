"""The rows behind a finding, kept compact until they are read.

A rule can return hundreds of thousands of rows on a big trace (every synchronising call,
every gap over 1 ms), and as a list of dicts each row costs half a kilobyte or more. A
RowSet keeps them as Arrow columns (`ArrowRows`) or as the Gap objects they come from
(`GapRows`), and makes a row's dict only when one is asked for: by indexing, iterating,
or writing JSON a chunk at a time (`tui.views.reports.json_stream`). Rows that have a start also get
their offset from the trace's +0 (`offset_ns`) when an origin is given.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:  # kept out of the imports: JSON of a stored summary needs neither
    import duckdb
    import pyarrow as pa

    from tui.analysis.gaps import Gap

Row = dict[str, Any]
RowsT = TypeVar("RowsT", bound=Sequence[Row])
CHUNK_ROWS = 8192  # rows made into dicts at a time when iterating or writing JSON
ARROW_JSON_ROWS = 65536  # rows written as JSON at a time, column by column


class RowSet(Sequence[Row]):
    """A read-only sequence of row dicts, made on demand."""

    def __init__(self, origin: int | None = None) -> None:
        self.origin = origin

    def __len__(self) -> int:
        raise NotImplementedError

    def _dicts(self, start: int, stop: int) -> list[Row]:
        """Rows start..stop as dicts, without offsets."""
        raise NotImplementedError

    def with_offsets(self, origin: int | None) -> RowSet:
        """The same rows, each with a start also given its offset from `origin`."""
        raise NotImplementedError

    def chunks(self, size: int = CHUNK_ROWS) -> Iterator[list[Row]]:
        for start in range(0, len(self), size):
            yield self._offset(self._dicts(start, min(start + size, len(self))))

    def json_chunks(self) -> Iterator[str]:
        """The rows as JSON, a chunk at a time: each chunk is the text json.dumps writes
        for its list of rows, without the brackets. Rows a RowSet can give as an Arrow
        table (`_table`) are written column by column by Arrow's compute functions where
        their columns allow (tui.analysis.json_columns), not as dicts through json.dumps:
        221k copies of a 3 GB nsys export (66 MB of JSON), 1.0 -> 0.3 s."""
        for start in range(0, len(self), ARROW_JSON_ROWS):
            stop = min(start + ARROW_JSON_ROWS, len(self))
            table = self._table(start, stop)
            text = None
            if table is not None:
                from tui.analysis.json_columns import rows_json

                text = rows_json(table, self.origin)
            if text is None:
                for at in range(start, stop, CHUNK_ROWS):
                    yield json.dumps(self[at:min(at + CHUNK_ROWS, stop)])[1:-1]
            elif text:
                yield text

    def _table(self, start: int, stop: int) -> pa.Table | None:
        """Rows start..stop as an Arrow table in the dicts' column order, without offsets;
        None where only dicts are at hand."""
        return None

    def column(self, name: str) -> list[Any]:
        """One column's values, in row order."""
        return [row[name] for chunk in self.chunks() for row in chunk]

    def __iter__(self) -> Iterator[Row]:
        for chunk in self.chunks():
            yield from chunk

    @overload
    def __getitem__(self, index: int) -> Row: ...
    @overload
    def __getitem__(self, index: slice) -> list[Row]: ...
    def __getitem__(self, index: int | slice) -> Row | list[Row]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            return self._offset(self._dicts(start, max(start, stop)))
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("row index out of range")
        return self._offset(self._dicts(index, index + 1))[0]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]  # mutable-looking, like a list

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {len(self):,} rows>"

    def _offset(self, rows: list[Row]) -> list[Row]:
        return add_offsets(rows, self.origin)


def add_offsets(rows: RowsT, origin: int | None) -> RowsT:
    """Give each of `rows` that has a start its offset from `origin` (in place)."""
    if origin is not None:
        for row in rows:
            if row.get("start_ns") is not None:
                row["offset_ns"] = row["start_ns"] - origin
    return rows


class ArrowRows(RowSet):
    """Rows held as an Arrow table (a query's result, in its column order)."""

    def __init__(self, table: pa.Table, origin: int | None = None) -> None:
        super().__init__(origin)
        self.table = table

    @classmethod
    def of_query(cls, con: duckdb.DuckDBPyConnection, sql: str,
                 params: dict[str, Any] | None = None) -> ArrowRows:
        # execute(), not sql(): sql() refuses a connection that holds an unfinished result
        # (a fetchone()), and the extra copy it warns of is of a rule's rows, not the trace
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "Arrow output on a DB-API result")
            return cls(con.execute(sql, params).to_arrow_table())

    def __len__(self) -> int:
        return self.table.num_rows

    def _dicts(self, start: int, stop: int) -> list[Row]:
        return self.table.slice(start, stop - start).to_pylist()

    def column(self, name: str) -> list[Any]:
        return self.table.column(name).to_pylist()

    def with_offsets(self, origin: int | None) -> ArrowRows:
        return ArrowRows(self.table, origin)

    def _table(self, start: int, stop: int) -> pa.Table:
        return self.table.slice(start, stop - start)


class GapRows(RowSet):
    """Explained gaps as rows (Gap.as_dict)."""

    def __init__(self, gaps: list[Gap], origin: int | None = None) -> None:
        super().__init__(origin)
        self.gaps = gaps

    def __len__(self) -> int:
        return len(self.gaps)

    def _dicts(self, start: int, stop: int) -> list[Row]:
        return [gap.as_dict() for gap in self.gaps[start:stop]]

    def with_offsets(self, origin: int | None) -> GapRows:
        return GapRows(self.gaps, origin)


class HeadRows(RowSet):
    """The first rows of a longer RowSet, and how many it had: what a stored summary keeps
    for printing as text (the report shows a few rows of each finding and its count)."""

    def __init__(self, head: list[Row], count: int) -> None:
        super().__init__(None)  # the head's rows have their offsets already
        self.head = head
        self.row_count = count  # not `count`: Sequence.count is a method

    def __len__(self) -> int:
        return self.row_count

    def _dicts(self, start: int, stop: int) -> list[Row]:
        if stop > len(self.head):
            raise LookupError(f"only the first {len(self.head)} of {self.row_count:,} rows "
                              "were stored")
        return [dict(row) for row in self.head[start:stop]]

    def with_offsets(self, origin: int | None) -> HeadRows:
        return self
