"""The cut between two events of a trace's JSON array (tui/sources/event_bounds.py), found
from anywhere in the text, checked against a reader that walks the text from its start.

Traces here are GENERATED (hypothesis): events with braces, commas, quotes, backslashes
and non-ASCII text in their names and args, nested args, written compact on one line (as
XLA does), one event a line (as scale_trace.py does) or indented over many lines (as
Kineto does). Every sample trace's events are also cut into parts and read back."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers.paths import SAMPLES, sample
from tui.sources import chrome_json
from tui.sources.chrome_json import extract_events
from tui.sources.event_bounds import event_boundary

SETTINGS = settings(deadline=None, database=None, max_examples=60,
                    suppress_health_check=[HealthCheck.too_slow])
# text meant to confuse a scan: structure characters, escapes, a newline (escaped in JSON)
TRICKY = st.text(alphabet=st.sampled_from(list('{}[],:" \\\n\tab\u00e9\u4e2d')), max_size=12)
SCALARS = st.one_of(st.integers(-10, 10**12), st.floats(allow_nan=False, allow_infinity=False),
                    TRICKY, st.booleans(), st.none())
ARGS = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(TRICKY, inner, max_size=3)), max_leaves=8)
EVENTS = st.lists(st.fixed_dictionaries(
    {"ph": st.sampled_from(["X", "i", "M", "f"]), "name": TRICKY, "ts": SCALARS},
    optional={"args": st.dictionaries(TRICKY.filter(lambda k: k != "ph"), ARGS, max_size=3),
              "cat": TRICKY}), min_size=1, max_size=12)


def _write(events: list[dict], layout: str, ascii_only: bool) -> bytes:
    """A trace of `events` in one of the layouts writers use."""
    if layout == "compact":
        body = json.dumps(events, ensure_ascii=ascii_only)
    elif layout == "lines":
        body = "[\n" + ",\n".join(json.dumps(e, ensure_ascii=ascii_only) for e in events) + "\n]"
    else:
        body = json.dumps(events, indent=2, ensure_ascii=ascii_only)
    return ('{"schemaVersion": 1, "traceEvents": ' + body + ', "traceName": "t"}').encode()


def _top_level_commas(text: bytes) -> list[int]:
    """Offsets of the commas between the events array's elements, by a walk from the start."""
    depth, in_string, escaped, commas = 0, False, False, []
    for i, c in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif c == 0x5C:
                escaped = True
            elif c == 0x22:
                in_string = False
        elif c == 0x22:
            in_string = True
        elif c in b"{[":
            depth += 1
        elif c in b"}]":
            depth -= 1
        elif c == 0x2C and depth == 2:  # inside {"traceEvents": [ ... ]}
            commas.append(i)
    return commas


def _has_decoys(events: list[dict]) -> bool:
    """Does any event hold, inside its args, an object with a "ph" key (which looks like
    an event wherever it is)?"""
    def walk(value: object) -> bool:
        if isinstance(value, dict):
            return "ph" in value or any(walk(v) for v in value.values())
        if isinstance(value, list):
            return any(walk(v) for v in value)
        return False
    return any(walk(e.get("args")) for e in events)


@SETTINGS
@given(events=EVENTS, layout=st.sampled_from(["compact", "lines", "indented"]),
       ascii_only=st.booleans(), at=st.floats(0, 1))
def test_a_cut_found_from_anywhere_is_between_two_events(events: list[dict], layout: str,
                                                         ascii_only: bool, at: float) -> None:
    text = _write(events, layout, ascii_only)
    start = int(at * len(text))
    commas = _top_level_commas(text)
    cut = event_boundary(text, start)
    assert not _has_decoys(events)  # keys named "ph" are filtered out of args
    if cut is not None:
        assert cut in commas and cut >= start
    after = [c for c in commas if c >= start]
    if len(after) >= 2:  # an event begins and ends after `start`: its end is found
        assert cut is not None and cut <= after[1]


def test_braces_and_quotes_inside_strings_are_not_taken_for_a_cut() -> None:
    # a name that reads like the end of one event and the start of the next
    decoy = '"}, {"ph": "X", "name": "b"}'
    text = _write([{"ph": "X", "name": decoy}, {"ph": "X", "name": "c"}, {"ph": "X"}],
                  "lines", True)
    # from inside the name's string: the cut after the next event
    assert event_boundary(text, text.index(b"}, {")) == _top_level_commas(text)[1]
    assert event_boundary(text) == _top_level_commas(text)[0]
    escaped = _write([{"ph": "X", "name": "a\\"}, {"ph": "i", "name": "\\\\\"}, {"}], "compact",
                     True)
    assert event_boundary(escaped) == _top_level_commas(escaped)[0]


def test_objects_like_events_inside_args_may_be_taken_for_a_cut() -> None:
    """Depth cannot be told locally: such a cut is made, and is refused later when the
    part before it does not parse (tests/sources/test_kineto_split.py)."""
    text = _write([{"ph": "X", "args": {"l": [{"ph": "X"}, {"ph": "X"}]}}, {"ph": "X"}],
                  "compact", True)
    cut = event_boundary(text, text.index(b"args"))
    assert cut is not None and cut not in _top_level_commas(text)


@pytest.mark.slow
@SETTINGS
@given(events=EVENTS, layout=st.sampled_from(["compact", "lines", "indented"]),
       parts=st.integers(2, 6), gz=st.booleans(), cut_off=st.one_of(st.none(), st.floats(0.5, 1)))
def test_a_generated_trace_cut_into_parts_reads_as_its_events(
        tmp_path_factory, events: list[dict], layout: str, parts: int, gz: bool,
        cut_off: float | None) -> None:
    text = _write(events, layout, ascii_only=False)
    if cut_off is not None:  # cut off mid-event: the complete events before are kept
        text = text[: int(len(text) * cut_off)]
    tmp = tmp_path_factory.mktemp("parts")
    source = tmp / ("trace.json.gz" if gz else "trace.json")
    source.write_bytes(gzip.compress(text) if gz else text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(chrome_json, "_TAIL_KEEP", 64)
        patch.setattr(chrome_json, "_GZ_INPUT", 64)
        patch.setattr(chrome_json, "_CHUNK", 256)
        try:
            read = extract_events(source, tmp / "events.json", parts)
            whole = extract_events(source, tmp / "whole.json", 1)
        except chrome_json.TraceError:  # cut off before the first complete event
            assert cut_off is not None
            return
    in_parts = [e for part in read.paths for e in json.loads(part.read_bytes())]
    assert in_parts == json.loads(whole.paths[0].read_bytes())
    if cut_off is None:
        assert in_parts == events
    else:
        assert in_parts == events[: len(in_parts)]


def json_valid(text: bytes) -> bool:
    """DuckDB's JSON reader's verdict; it lets trailing commas pass, which the parts' join,
    equal to the whole array, rules out."""
    return duckdb.execute("SELECT json_valid(?)", [text.decode()]).fetchone()[0]


JSON_SAMPLES = sorted(str(p.relative_to(SAMPLES)) for p in SAMPLES.rglob("*.json.gz"))


@pytest.mark.slow
@pytest.mark.parametrize("name", JSON_SAMPLES)
def test_every_sample_cut_into_parts_reads_as_its_events(tmp_path: Path, name: str,
                                                         monkeypatch) -> None:
    """Kineto's layout (an event over many lines) and XLA's (one line), plain and gzipped:
    the parts are valid arrays whose text, joined, is the whole array's."""
    monkeypatch.setattr(chrome_json, "_TAIL_KEEP", 4 << 10)
    monkeypatch.setattr(chrome_json, "_GZ_INPUT", 4 << 10)  # a part's worth many times over
    monkeypatch.setattr(chrome_json, "_CHUNK", 16 << 10)
    plain = tmp_path / "trace.json"
    plain.write_bytes(gzip.decompress(sample(name).read_bytes()))
    whole = extract_events(plain, tmp_path / "whole.json", 1).paths[0].read_bytes()
    for source in (plain, sample(name)):
        read = extract_events(source, tmp_path / "events.json", 7)
        # where the scan can prove no event start in a range, its cut moves on to the next
        # one it can (fewer parts, never a wrong one)
        assert 2 <= len(read.paths) <= 7
        texts = [part.read_bytes() for part in read.paths]
        assert b"[" + b",".join(text[1:-1] for text in texts) + b"]" == whole
        for text in texts:  # DuckDB's JSON reader (yyjson) checks them: 5x json's speed
            assert json_valid(text), "each part is an array of events"


def test_a_trace_cut_off_just_after_a_bracket_inside_a_name_is_cut_off(tmp_path: Path) -> None:
    """Found by the property above: the file ends right after '}]' inside a string, which
    looked like the end of the events array."""
    events = [{"ph": "X", "name": "a"}, {"ph": "X", "name": "}]::b"}, {"ph": "X"}]
    text = _write(events, "compact", ascii_only=True)
    cut = tmp_path / "cut.json"
    cut.write_bytes(text[: text.index(b"}]::") + 2])
    read = extract_events(cut, tmp_path / "events.json", 1)
    assert read.truncated
    assert json.loads(read.paths[0].read_bytes()) == events[:1]
