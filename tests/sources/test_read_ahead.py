"""ReadAhead (tui/sources/read_ahead.py): an nsys export's batches read on a thread of their
own while DuckDB writes the ones before."""

from __future__ import annotations

import threading

import pyarrow as pa
import pytest

from tui.core.db import connect
from tui.sources.read_ahead import ReadAhead


def _source(batches: int, fail_at: int | None = None) -> pa.RecordBatchReader:
    schema = pa.schema([("n", pa.int64())])

    def numbers():
        for i in range(batches):
            if i == fail_at:
                raise ValueError("the driver failed")
            yield pa.record_batch([pa.array(range(i * 1000, (i + 1) * 1000))], schema=schema)

    return pa.RecordBatchReader.from_batches(schema, numbers())


def test_duckdb_reads_every_batch_in_order() -> None:
    con = connect()
    with ReadAhead(_source(50), depth=2) as reader:
        con.register("batches", reader)
        rows = con.execute("SELECT n FROM batches").fetchnumpy()["n"]
    assert list(rows) == list(range(50_000))


def test_a_failure_while_reading_reaches_the_query() -> None:
    con = connect()
    with pytest.raises(Exception, match="the driver failed"), \
            ReadAhead(_source(50, fail_at=7)) as reader:
        con.register("batches", reader)
        con.execute("SELECT count(*) FROM batches").fetchall()


def test_leaving_early_stops_the_reading_thread() -> None:
    """The reader is left after one batch with more waiting: its thread ends, so the
    driver's cursor can be closed after it."""
    ahead = ReadAhead(_source(1000), depth=2)
    with ahead as reader:
        assert reader.read_next_batch().num_rows == 1000
    assert not any(t.name == "tui-read-ahead" and t.is_alive() for t in threading.enumerate())
