"""Big traces are parsed as several arrays at once (chrome_json.py's parts): the result
must be exactly what one array gives, for complete, cut-off and compressed traces, and a
split that falls inside an event must be caught and undone."""

from __future__ import annotations

import gzip
import json
import time
import zlib
from pathlib import Path

import pytest

from tests.helpers.paths import sample
from tui.core import db
from tui.loading.trace import open_trace
from tui.sources import chrome_json, kineto
from tui.sources.chrome_json import extract_events

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


WHOLE_SAMPLES = ["gappy_training.pt.trace.json.gz", "multistream.pt.trace.json.gz"]


@pytest.fixture(scope="module")
def read_whole(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, list[str]]]:
    """Each sample inflated to plain JSON and read as one array, once for all the splits
    (with the tests' smaller tail, as _small_tail sets it for each test)."""
    found = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(chrome_json, "_TAIL_KEEP", 16 << 10)
        for name in WHOLE_SAMPLES:
            plain = tmp_path_factory.mktemp("whole") / "trace.json"
            plain.write_text(_text(name))
            found[name] = _content(plain)
    return found


@pytest.mark.slow
@pytest.mark.parametrize("name", WHOLE_SAMPLES)
@pytest.mark.parametrize("parts", [2, 3, 5])
def test_a_trace_read_in_parts_equals_one_read_whole(tmp_path: Path, monkeypatch, name: str,
                                                     parts: int, read_whole) -> None:
    plain = tmp_path / "trace.json"
    plain.write_text(_text(name))
    events = extract_events(plain, tmp_path / "events.json", parts)
    assert len(events.paths) == parts  # the split did happen
    whole = read_whole[name]
    assert whole[0]["gpu_activities"], "the sample holds GPU work"
    assert _content_in_parts(plain, parts, monkeypatch) == whole
    assert _content_in_parts(sample(name), parts, monkeypatch) == whole  # .gz


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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
    monkeypatch.setattr(db.os, "sched_getaffinity", lambda _pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.delenv("TUI_THREADS", raising=False)
    monkeypatch.setenv("TUI_MEMORY", "1GB")  # a DuckDB thread (so a part) for each 250 MB
    assert kineto.reader_parts(sample("gappy_training.pt.trace.json.gz")) == 1
    big = tmp_path / "big.json"
    with open(big, "wb") as f:  # a sparse file: only its size is looked at
        f.truncate(3 * kineto.MIN_PART_BYTES)
    assert kineto.reader_parts(big) == 3
    with open(big, "wb") as f:
        f.truncate(20 * kineto.MIN_PART_BYTES)
    assert kineto.reader_parts(big) == 4
    # the parse runs a thread a core whatever the budget (two threads' worth here)...
    monkeypatch.setenv("TUI_MEMORY", "500MB")
    assert kineto.reader_parts(big) == 4
    monkeypatch.setenv("TUI_THREADS", "2")  # ... but no more than TUI_THREADS
    assert kineto.reader_parts(big) == 2
    monkeypatch.delenv("TUI_THREADS")
    monkeypatch.setattr(db.os, "sched_getaffinity", lambda _pid: set(range(64)), raising=False)
    assert kineto.reader_parts(big) == kineto.MAX_PARSE_THREADS == 16
    monkeypatch.setattr(db.os, "sched_getaffinity", lambda _pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.setenv("TUI_MEMORY", "1GB")
    # a .json.gz is parsed while it is inflated, in more parts (up to 8), planned on its
    # inflated size, at the budget's threads (500MB: two)
    gz = tmp_path / "big.json.gz"
    with open(gz, "wb") as f:
        f.write(b"\x1f\x8b")
        f.truncate(3 * kineto.MIN_PART_BYTES // kineto.GZIP_RATIO)
    assert kineto.reader_parts(gz) == 3
    with open(gz, "wb") as f:
        f.write(b"\x1f\x8b")
        f.truncate(20 * kineto.MIN_PART_BYTES // kineto.GZIP_RATIO)
    assert kineto.reader_parts(gz) == 8
    assert kineto.parse_threads(gz) == 4
    monkeypatch.setenv("TUI_MEMORY", "500MB")
    assert kineto.parse_threads(gz) == 2 and kineto.parse_threads(big) == 4


@pytest.mark.slow
def test_a_gz_split_inside_an_event_is_undone(tmp_path: Path, monkeypatch) -> None:
    # GENERATED as above, gzipped: a .json.gz's parts are parsed while it is still being
    # inflated, and a refused part must undo the parts parsed before it.
    doc = json.loads(_text("multistream.pt.trace.json.gz"))
    for event in doc["traceEvents"]:
        event.setdefault("args", {})["decoys"] = [{"ph": "X"}, {"ph": "X", "name": "decoy"}]
    trace = tmp_path / "decoys.json.gz"
    trace.write_bytes(gzip.compress(json.dumps(doc, indent=1).encode()))
    whole = _content(trace)
    assert whole[0]["gpu_activities"]
    assert _content_in_parts(trace, 4, monkeypatch) == whole


@pytest.mark.slow
def test_a_gz_refused_while_its_first_parts_are_parsed(tmp_path: Path, monkeypatch,
                                                       capsys) -> None:
    """The inflate limit stops a .json.gz whose first parts are already being parsed: the
    load ends with the one-line refusal, and the parsing thread does not outlive it."""
    import threading

    from tui.cli.main import main

    # GENERATED: a real trace's events, then 64 MiB of blanks inside the array
    text = _text("multistream.pt.trace.json.gz")
    at = text.rindex("]")
    trace = tmp_path / "padded.json.gz"
    trace.write_bytes(gzip.compress((text[:at] + " " * (64 << 20) + text[at:]).encode()))
    monkeypatch.setenv("TUI_MAX_INFLATED_BYTES", "32M")
    monkeypatch.setattr(kineto, "reader_parts", lambda _path: 4)
    submitted: list[Path] = []
    submit = kineto._PartParser.submit
    monkeypatch.setattr(kineto._PartParser, "submit",
                        lambda self, parts: (submitted.extend(parts), submit(self, parts))[1])
    assert main(["--summary", "--no-cache", str(trace)]) == 2
    assert "inflates to more than 32.0 MiB" in capsys.readouterr().err
    assert submitted, "a first part was handed to the parser before the refusal"
    assert not [t for t in threading.enumerate() if t.name == "tui-parse-parts"]


class _InterruptedConnection:
    """Stands in for the parse thread's connection: Ctrl-C lands in interrupt()."""

    def execute(self, *_: object) -> None:
        raise AssertionError("nothing is queued to parse")

    def interrupt(self) -> None:
        raise KeyboardInterrupt


def test_ctrl_c_while_the_parts_parser_stops_still_ends_its_thread() -> None:
    """A Ctrl-C inside _PartParser.__exit__ must not leave its thread waiting for parts
    (the process then hung on its way out, after printing nothing)."""
    parser = kineto._PartParser(_InterruptedConnection(), "kineto_stage_events")
    with pytest.raises(KeyboardInterrupt):
        with parser:
            raise OSError("the extraction failed")
    assert not parser._thread.is_alive()


class _RecordingConnection:
    """Stands in for the parse thread's connection: records each query's parts."""

    def __init__(self) -> None:
        self.queries: list[list[str]] = []

    def execute(self, _stage: str, params: dict) -> None:
        self.queries.append(params["path"])


def test_gz_parts_are_parsed_a_thread_s_worth_at_a_time() -> None:
    """DuckDB parses a part on one thread: a query over fewer parts than its threads left
    the others idle while the parts ready after it waited (the first of a 3 GB .json.gz's
    8 parts parsed alone cost 5.5 s on a 16-core host). Parts are handed over one by one,
    as the inflation completes them: a query per two, the last takes what is left."""
    con = _RecordingConnection()
    with kineto._PartParser(con, "kineto_stage_events", threads=2) as parser:
        for part in "abcde":
            parser.submit_one(Path(part))
            time.sleep(0.05)  # the thread takes each part before the next comes
    assert con.queries == [["a", "b"], ["c", "d"], ["e"]]
    assert parser.ok


@pytest.mark.slow
def test_the_parse_runs_a_thread_a_part_and_the_budget_threads_come_back(
        tmp_path: Path, monkeypatch) -> None:
    # the budget allows DuckDB one thread (300MB); the parse of a plain file runs three
    monkeypatch.setenv("TUI_MEMORY", "300MB")
    monkeypatch.delenv("TUI_THREADS", raising=False)
    monkeypatch.setattr(kineto, "parse_threads", lambda _path: 3)
    plain = tmp_path / "trace.json"
    plain.write_text(_text("multistream.pt.trace.json.gz"))
    seen: list[str] = []
    run = kineto._PartParser._run

    def recording_run(self) -> None:
        seen.append(self._con.execute("SELECT current_setting('threads')").fetchone()[0])
        run(self)

    monkeypatch.setattr(kineto._PartParser, "_run", recording_run)
    whole = _content(plain)
    assert _content_in_parts(plain, 3, monkeypatch) == whole
    assert seen == [3]
    with open_trace(plain, use_cache=False) as trace:
        assert trace.con.execute("SELECT current_setting('threads')").fetchone()[0] == 1
