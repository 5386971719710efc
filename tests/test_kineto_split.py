"""Big traces are parsed as several arrays at once (chrome_json.py's parts): the result
must be exactly what one array gives, for complete, cut-off and compressed traces, and a
split that falls inside an event must be caught and undone."""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path

import pytest

from tests.conftest import sample
from tui.sources import chrome_json, kineto
from tui.sources.chrome_json import extract_events
from tui.trace import open_trace

TABLES = ("gpu_activities", "host_activities", "devices", "gpu_idle")


@pytest.fixture(autouse=True)
def _small_tail(monkeypatch) -> None:
    """The samples are small: hold back less of their end, so there is room for parts."""
    monkeypatch.setattr(chrome_json, "_TAIL_KEEP", 16 << 10)


def _content(path: Path) -> tuple[dict, list[str]]:
    """Every row of the schema's tables, in id order, and the warnings."""
    with open_trace(path, use_cache=False) as trace:
        rows = {table: trace.con.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall()
                for table in TABLES}
        return rows, trace.warnings


def _content_in_parts(path: Path, parts: int, monkeypatch) -> tuple[dict, list[str]]:
    with monkeypatch.context() as patch:
        patch.setattr(kineto, "reader_parts", lambda _path: parts)
        return _content(path)


def _text(name: str) -> str:
    return gzip.decompress(sample(name).read_bytes()).decode()


@pytest.mark.parametrize("name", ["gappy_training.pt.trace.json.gz",
                                  "multistream.pt.trace.json.gz"])
@pytest.mark.parametrize("parts", [2, 3, 5])
def test_a_trace_read_in_parts_equals_one_read_whole(tmp_path: Path, monkeypatch, name: str,
                                                     parts: int) -> None:
    plain = tmp_path / "trace.json"
    plain.write_text(_text(name))
    events = extract_events(plain, tmp_path / "events.json", parts)
    assert len(events.paths) == parts  # the split did happen
    whole = _content(plain)
    assert whole[0]["gpu_activities"], "the sample holds GPU work"
    assert _content_in_parts(plain, parts, monkeypatch) == whole
    assert _content_in_parts(sample(name), parts, monkeypatch) == whole  # .gz


def test_parts_hold_every_event_once_in_order(tmp_path: Path) -> None:
    plain = tmp_path / "trace.json"
    plain.write_text(_text("tuned_training.pt.trace.json.gz"))
    events = extract_events(plain, tmp_path / "events.json", 4)
    assert len(events.paths) == 4
    read = [event for part in events.paths for event in json.loads(part.read_text())]
    assert read == json.loads(plain.read_text())["traceEvents"]
    whole = extract_events(plain, tmp_path / "whole.json", 1)
    assert events.bytes_total == whole.bytes_total  # what a cut-off warning's share is of
    # each of the 3 splits adds a ']' and a '[' and drops the ',' between two events
    assert sum(part.stat().st_size for part in events.paths) == whole.paths[0].stat().st_size + 3


@pytest.mark.parametrize("fraction", [0.2, 0.45, 0.5, 0.61, 0.9, 0.9999])
def test_a_cut_off_trace_read_in_parts_equals_one_read_whole(tmp_path: Path, monkeypatch,
                                                              fraction: float) -> None:
    text = _text("gappy_training.pt.trace.json.gz")
    cut = tmp_path / "cut.json"
    cut.write_text(text[: int(len(text) * fraction)])
    whole = _content(cut)
    assert any("cut off" in w for w in whole[1])
    assert _content_in_parts(cut, 2, monkeypatch) == whole
    assert _content_in_parts(cut, 3, monkeypatch) == whole


def test_a_cut_off_gz_read_in_parts_equals_one_read_whole(tmp_path: Path, monkeypatch) -> None:
    data = gzip.compress(_text("multistream.pt.trace.json.gz").encode())
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(data[: int(len(data) * 0.8)])
    assert zlib.decompressobj(wbits=31).decompress(cut.read_bytes())  # inflates partly
    whole = _content(cut)
    assert any("cut off" in w for w in whole[1])
    assert _content_in_parts(cut, 2, monkeypatch) == whole


def test_a_split_inside_an_event_is_undone(tmp_path: Path, monkeypatch) -> None:
    # GENERATED from a real trace: each event's args gain a list of objects that look like
    # events, so split points are found inside events' args, not between events.
    doc = json.loads(_text("gappy_training.pt.trace.json.gz"))
    for event in doc["traceEvents"]:
        event.setdefault("args", {})["decoys"] = [{"ph": "X"}, {"ph": "X", "name": "decoy"}]
    trace = tmp_path / "decoys.json"
    trace.write_text(json.dumps(doc, indent=1))
    events = extract_events(trace, tmp_path / "events.json", 2)
    assert len(events.paths) == 2
    with pytest.raises(json.JSONDecodeError):  # the first part stops inside an event
        json.loads(events.paths[0].read_text())
    whole = _content(trace)
    assert whole[0]["gpu_activities"]
    assert _content_in_parts(trace, 2, monkeypatch) == whole


def test_small_traces_are_one_part_and_big_ones_one_per_core(tmp_path: Path,
                                                             monkeypatch) -> None:
    monkeypatch.setattr(kineto.os, "sched_getaffinity", lambda _pid: {0, 1, 2, 3}, raising=False)
    assert kineto.reader_parts(sample("gappy_training.pt.trace.json.gz")) == 1
    big = tmp_path / "big.json"
    with open(big, "wb") as f:  # a sparse file: only its size is looked at
        f.truncate(3 * kineto.MIN_PART_BYTES)
    assert kineto.reader_parts(big) == 3
    with open(big, "wb") as f:
        f.truncate(20 * kineto.MIN_PART_BYTES)
    assert kineto.reader_parts(big) == 4
