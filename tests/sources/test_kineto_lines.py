"""A trace's two file shapes, pretty-printed as Kineto writes it and one event a line (as
scale_trace.py and most re-exports write it), must load into the same tables, whether its
parts are read as arrays or rewritten one event a line for DuckDB's newline-delimited
reader (TUI_JSON_LINES=1, event_lines.py); a cut-off trace loads what it can, with its
warning; a part the reader refuses is read again as one array."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tests.helpers.paths import sample
from tui.loading.trace import open_trace
from tui.sources import chrome_json, event_lines, kineto
from tui.sources.chrome_json import extract_events

TABLES = ("gpu_activities", "host_activities", "devices", "gpu_idle", "threads")
XLA_TABLES = ("gpu_activities", "host_activities")
SAMPLE = "multistream.pt.trace.json.gz"


@pytest.fixture(autouse=True)
def _small_tail(monkeypatch) -> None:
    """The sample is small: hold back less of its end, so there is room for parts."""
    monkeypatch.setattr(chrome_json, "_TAIL_KEEP", 16 << 10)


def _pretty_text() -> str:
    return gzip.decompress(sample(SAMPLE).read_bytes()).decode()


def _one_event_a_line(text: str) -> str:
    """The same document, its events one a line (the other keys as JSON writes them)."""
    doc = json.loads(text)
    events = doc.pop("traceEvents")
    head = json.dumps(doc)[:-1]
    body = ",\n".join(json.dumps(event) for event in events)
    return f'{head}, "traceEvents": [\n{body}\n]}}\n'


def _content(path: Path, monkeypatch, lines: bool, parts: int = 3,
             tables: tuple[str, ...] = TABLES) -> tuple[dict, list]:
    """Every row of the schema's tables and the warnings; which reader read the parts."""
    readers: list[dict | str] = []  # each rewrite's outcome, then the parts' parse's
    to_lines, in_parts = kineto._to_lines, kineto._parsed_in_parts

    def recording(paths: list[Path]) -> bool:
        done = to_lines(paths)
        readers.append(kineto.LINES if done else kineto.ARRAYS)
        return done

    def parsed_in_parts(*args):
        events = in_parts(*args)
        readers.append("refused" if events is None else "parsed")
        return events

    with monkeypatch.context() as patch:
        patch.setattr(kineto, "reader_parts", lambda _path: parts)
        patch.setattr(kineto, "_to_lines", recording)
        patch.setattr(kineto, "_parsed_in_parts", parsed_in_parts)
        patch.setenv("TUI_JSON_LINES", "1" if lines else "0")
        with open_trace(path, use_cache=False) as trace:
            rows = {table: trace.con.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall()
                    for table in tables}
            return {"rows": rows, "warnings": trace.warnings}, readers


@pytest.fixture(scope="module")
def shapes(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("shapes")
    text = _pretty_text()
    (folder / "pretty.json").write_text(text)
    (folder / "lines.json").write_text(_one_event_a_line(text))
    return {"pretty": folder / "pretty.json", "lines": folder / "lines.json"}


@pytest.mark.slow
def test_both_shapes_and_both_readers_give_the_same_tables(shapes, monkeypatch) -> None:
    arrays, readers = _content(shapes["pretty"], monkeypatch, lines=False)
    assert readers == ["parsed"]
    assert arrays["rows"]["gpu_activities"] and arrays["rows"]["host_activities"]
    for shape in ("pretty", "lines"):
        as_lines, readers = _content(shapes[shape], monkeypatch, lines=True)
        assert readers == [kineto.LINES, "parsed"], f"the {shape} parts were read as lines"
        assert as_lines == arrays, shape
    as_arrays, readers = _content(shapes["lines"], monkeypatch, lines=False)
    assert readers == ["parsed"] and as_arrays == arrays


@pytest.mark.slow
@pytest.mark.parametrize(("shape", "fraction"), [("lines", 0.3), ("lines", 0.77),
                                                 ("lines", 0.9999), ("pretty", 0.6)])
def test_a_cut_off_trace_read_as_lines_loads_what_it_can(shapes, tmp_path: Path, monkeypatch,
                                                         shape: str, fraction: float) -> None:
    text = shapes[shape].read_text()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: int(len(text) * fraction)])
    as_lines, readers = _content(cut, monkeypatch, lines=True)
    assert readers == [kineto.LINES, "parsed"]
    assert any("the file ends early" in w for w in as_lines["warnings"])
    assert as_lines["rows"]["host_activities"]
    as_arrays, _ = _content(cut, monkeypatch, lines=False)
    assert as_lines == as_arrays


def test_events_all_on_one_line_are_left_an_array(tmp_path: Path) -> None:
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps(json.loads(_pretty_text())))  # as XLA writes
    events = extract_events(trace, tmp_path / "events.json", 2)
    before = [part.read_bytes() for part in events.paths]
    assert event_lines.event_separator(events.paths[0]) is None
    assert not kineto._to_lines(events.paths)
    assert [part.read_bytes() for part in events.paths] == before


@pytest.mark.slow
def test_two_events_on_a_line_are_refused_by_the_reader_and_read_as_arrays(
        shapes, tmp_path: Path, monkeypatch) -> None:
    """Two events parted otherwise than the first two stay on one line through the
    rewrite, and DuckDB's reader refuses that line: the trace is read again as one array."""
    text = shapes["lines"].read_text()
    at = text.index("},\n{", len(text) // 2)
    joined = tmp_path / "joined.json"
    joined.write_text(text[:at] + "}, {" + text[at + 4:])
    as_lines, readers = _content(joined, monkeypatch, lines=True)
    assert readers == [kineto.LINES, "refused"]
    pretty, _ = _content(shapes["pretty"], monkeypatch, lines=False)
    assert as_lines == pretty


@pytest.mark.parametrize("shape", ["pretty", "lines"])
@pytest.mark.parametrize("chunk", [1 << 10, 4099, 16 << 20])
def test_a_rewritten_part_holds_the_same_events_byte_for_byte(tmp_path: Path, monkeypatch,
                                                              shape: str, chunk: int) -> None:
    """Each byte in its place, every line one event, whatever the chunks cut (a
    separator across two chunks included)."""
    monkeypatch.setattr(event_lines, "_CHUNK", chunk)
    text = _pretty_text()
    trace = tmp_path / "trace.json"
    trace.write_text(text if shape == "pretty" else _one_event_a_line(text))
    events = extract_events(trace, tmp_path / "events.json", 2)
    separator = event_lines.event_separator(events.paths[0])
    assert separator == (b"},\n  {" if shape == "pretty" else b"},\n{")
    for part in events.paths:
        array = part.read_bytes()
        event_lines.separated_to_lines(part, separator)
        rewritten = part.read_bytes()
        assert len(rewritten) == len(array)
        lines = [json.loads(line) for line in rewritten.splitlines() if line.strip()]
        assert lines == json.loads(array)


@pytest.mark.slow
def test_an_xla_trace_one_event_a_line_loads_the_same_read_as_lines(tmp_path: Path,
                                                                    monkeypatch) -> None:
    """XLA's trace-viewer JSON takes the same parse (its own stage query)."""
    source = sample("jax_eager/plugins/profile/2026_11_24_13_14_59/perfetto_trace.json.gz")
    text = gzip.decompress(source.read_bytes()).decode()  # all on one line, as XLA writes
    lines = tmp_path / "xla.json"
    lines.write_text(_one_event_a_line(text))
    as_lines, readers = _content(lines, monkeypatch, lines=True, tables=XLA_TABLES)
    assert readers == [kineto.LINES, "parsed"]
    assert as_lines["rows"]["gpu_activities"] and as_lines["rows"]["host_activities"]
    as_arrays, readers = _content(lines, monkeypatch, lines=False, tables=XLA_TABLES)
    assert readers == ["parsed"] and as_arrays == as_lines


@pytest.mark.slow
def test_a_separator_inside_an_event_is_refused_and_read_as_one_array(
        shapes, tmp_path: Path, monkeypatch) -> None:
    # GENERATED from the real trace: an event's args gain a list of two objects parted
    # by the very bytes that part two events ('},' newline, two spaces, '{')
    text = shapes["pretty"].read_text()
    at = text.index('"args": {', len(text) // 2) + len('"args": {')
    decoy = tmp_path / "decoy.json"
    decoy.write_text(text[:at] + '"decoys": [{"ph": "X"},\n  {"ph": "X"}], ' + text[at:])
    as_lines, readers = _content(decoy, monkeypatch, lines=True)
    assert readers == [kineto.LINES, "refused"]
    arrays, _ = _content(shapes["pretty"], monkeypatch, lines=False)
    assert as_lines == arrays
