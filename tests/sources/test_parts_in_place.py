"""A big plain trace's parts are read where they lie in the file (parts_in_place.py), not
copied: each part reads back as the array its copy would hold, DuckDB reads them so, and
a load through them gives the tables one array gives."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import duckdb
import pytest

from tests.helpers.paths import sample
from tui.loading.trace import open_trace
from tui.sources import chrome_json, kineto, parts_in_place
from tui.sources.chrome_json import extract_events
from tui.sources.parts_in_place import PartsInPlace

SAMPLE = "multistream.pt.trace.json.gz"
TABLES = ("gpu_activities", "host_activities", "devices", "gpu_idle", "threads")


@pytest.fixture
def plain(tmp_path: Path, monkeypatch) -> Path:
    """The sample as plain JSON, with a tail held back small enough to leave room for parts."""
    monkeypatch.setattr(chrome_json, "_TAIL_KEEP", 16 << 10)
    path = tmp_path / "trace.json"
    path.write_bytes(gzip.decompress(sample(SAMPLE).read_bytes()))
    return path


def _read_all(con: duckdb.DuckDBPyConnection, name: str) -> bytes:
    return con.execute("SELECT content FROM read_blob(?)", [name]).fetchone()[0]


def test_each_part_reads_as_its_copy_a_few_bytes_at_a_time(plain: Path, tmp_path: Path,
                                                           monkeypatch) -> None:
    copies = extract_events(plain, tmp_path / "events.json", 4)
    ranged = extract_events(plain, tmp_path / "unused.json", 4, in_place=True)
    assert ranged.paths == [] and ranged.in_place is not None
    assert len(ranged.in_place.ranges) == len(copies.paths) == 4
    assert ranged.bytes_total == copies.bytes_total
    assert not list(tmp_path.glob("unused*")), "nothing was written"
    monkeypatch.setattr(parts_in_place, "_READ_BYTES", 4093)  # many reads a part, odd-sized
    con = duckdb.connect()
    with PartsInPlace(con) as in_place:
        names = in_place.names(ranged.in_place)
        assert [_read_all(con, name) for name in names] == [p.read_bytes() for p in copies.paths]
        events = con.execute("SELECT count(*) FROM read_json(?, format='array', "
                             "columns={ph: 'VARCHAR'})", [names]).fetchone()[0]
    assert events == len(json.loads(plain.read_bytes())["traceEvents"])
    assert not any(name.startswith("tuiparts") for name in con.list_filesystems())


def test_a_cut_off_or_one_part_trace_is_copied(plain: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut.json"
    cut.write_bytes(plain.read_bytes()[: plain.stat().st_size * 2 // 3])
    events = extract_events(cut, tmp_path / "cut-events.json", 3, in_place=True)
    assert events.in_place is None and len(events.paths) == 3 and events.truncated
    one = extract_events(plain, tmp_path / "one.json", 1, in_place=True)
    assert one.in_place is None and len(one.paths) == 1


@pytest.mark.slow
def test_a_load_in_place_gives_the_tables_of_one_array(plain: Path, monkeypatch) -> None:
    def content() -> dict:
        with open_trace(plain, use_cache=False) as trace:
            assert not any(name.startswith("tuiparts")
                           for name in trace.con.list_filesystems())
            return {table: trace.con.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall()
                    for table in TABLES}

    whole = content()  # the sample is small: one array
    named: list[list[str]] = []
    names = PartsInPlace.names

    def recording(self, parts):
        named.append(names(self, parts))
        return named[-1]

    copied: list[object] = []
    monkeypatch.setattr(PartsInPlace, "names", recording)
    monkeypatch.setattr(chrome_json, "_copy_range", lambda *args: copied.append(args))
    monkeypatch.setattr(kineto, "reader_parts", lambda _path: 3)
    monkeypatch.setattr(parts_in_place, "_READ_BYTES", 64 << 10)
    assert content() == whole
    assert len(named) == 1 and len(named[0]) == 3, "the three parts were read in place"
    assert not copied
    assert whole["gpu_activities"] and whole["host_activities"]
    # split for more threads than that, the parts are copies (made in the kernel)
    monkeypatch.undo()
    monkeypatch.setattr(chrome_json, "_TAIL_KEEP", 16 << 10)
    monkeypatch.setattr(PartsInPlace, "names", recording)
    monkeypatch.setattr(kineto, "reader_parts", lambda _path: kineto.IN_PLACE_MAX_PARTS + 1)
    assert content() == whole
    assert len(named) == 1, "no part was read in place"


def test_a_connection_that_takes_no_filesystem_reads_copies(plain: Path, monkeypatch) -> None:
    def refused(self, parts):
        raise duckdb.NotImplementedException("no filesystems here")

    with open_trace(plain, use_cache=False) as trace:  # one array
        whole = trace.con.execute("SELECT * FROM host_activities ORDER BY ALL").fetchall()
    monkeypatch.setattr(PartsInPlace, "names", refused)
    monkeypatch.setattr(kineto, "reader_parts", lambda _path: 3)
    with open_trace(plain, use_cache=False) as trace:
        assert trace.con.execute("SELECT * FROM host_activities ORDER BY ALL").fetchall() == whole
    assert whole
