"""Property-based tests of the Chrome-trace loader (hypothesis).

Inputs are GENERATED from the real multistream sample: any prefix of it (plain and
gzip-compressed), any event of it mutated (a field dropped, retyped, or given an odd
value), any few bytes of it changed. Each must either load — and then hold what the
input holds — or fail with TraceError, the error the user sees as one line. No other
exception may escape the loader or the summary built on it.

Runtime is kept modest for a 2-core CI: 300 examples in all (80 + 40 + 100 + 80). Run with
`--hypothesis-show-statistics` to see how many ran.
"""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import oracle
from tests.helpers.paths import sample
from tests.helpers.properties import examples
from tui.analysis.summary import trace_summary
from tui.core.errors import TraceError
from tui.loading.trace import open_trace

pytestmark = pytest.mark.slow

TEXT = gzip.decompress(sample("multistream.pt.trace.json.gz").read_bytes()).decode()
DOC = json.loads(TEXT)
EVENTS = DOC["traceEvents"]
FIELDS = ["ph", "cat", "name", "pid", "tid", "ts", "dur", "args", "id", "s"]

SETTINGS = settings(deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _open_and_summarise(data: bytes, suffix: str = ".json") -> dict | None:
    """The summary of `data` loaded as a trace, or None when it is refused (TraceError)."""
    with tempfile.TemporaryDirectory(prefix="tui-prop-") as tmp:
        path = Path(tmp) / f"generated{suffix}"
        path.write_bytes(data)
        try:
            with open_trace(path, use_cache=False) as trace:
                summary = trace_summary(trace, 100_000)
                rows = trace.con.execute(
                    "SELECT count(*) FILTER (WHERE duration_ns < 0 OR end_ns < start_ns "
                    "OR duration_ns <> end_ns - start_ns OR name IS NULL) FROM gpu_activities"
                ).fetchone()
                assert rows == (0,), "inconsistent GPU rows"
                return summary
        except TraceError as exc:
            assert str(exc) and "\n" not in str(exc).strip()
            return None


def _kernels(summary: dict) -> int:
    return sum(k["count"] for k in summary["kernels"])


# -------------------------------------------------------------------------- prefixes


@settings(SETTINGS, max_examples=examples(80))
@given(st.integers(min_value=0, max_value=len(TEXT)))
def test_any_prefix_loads_its_complete_events_or_is_refused(cut: int) -> None:
    prefix = TEXT[:cut]
    summary = _open_and_summarise(prefix.encode())
    if '"traceEvents"' not in prefix:
        assert summary is None
        return
    complete = oracle.complete_events_in_prefix(prefix)
    expected = sum(1 for e in complete if e.get("ph") == "X" and e.get("cat") == "kernel")
    if summary is None:  # refused: only when no complete X event made it in
        assert not [e for e in complete if e.get("ph") == "X"]
    else:
        assert _kernels(summary) == expected


GZ = gzip.compress(TEXT.encode(), mtime=0)


@settings(SETTINGS, max_examples=examples(40))
@given(st.integers(min_value=0, max_value=len(GZ)))
def test_any_prefix_of_the_gz_file_loads_or_is_refused(cut: int) -> None:
    summary = _open_and_summarise(GZ[:cut], ".json.gz")
    if summary is not None:
        assert _kernels(summary) <= 45


# ------------------------------------------------------------------ mutated events

JSON_SCALARS = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["", "X", "B", "E", "kernel", "gpu_memcpy", "cuda_runtime", "1e308",
                     "-5", "0x10", "NaN", "12.5", " 7 ", "[bold]x[/bold]", "\x1b[31m",
                     "\udcff", "\ud800\udc00", "caf\u00e9", "\x00"]),
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(FIELDS + ["device", "stream",
                                                                      "grid", "correlation"]),
                                            inner, max_size=3)),
    max_leaves=6,
)
MUTATION = st.one_of(
    st.tuples(st.just("drop"), st.sampled_from(FIELDS)),
    st.tuples(st.just("set"), st.sampled_from(FIELDS), JSON_VALUES),
    st.tuples(st.just("retype"), st.sampled_from(FIELDS)),
    st.tuples(st.just("replace"), JSON_VALUES),  # the event becomes any JSON value
)


def _apply(event: dict, mutation: tuple) -> object:
    event = dict(event)
    if mutation[0] == "drop":
        event.pop(mutation[1], None)
    elif mutation[0] == "set":
        event[mutation[1]] = mutation[2]
    elif mutation[0] == "retype":  # a number becomes its string, a string its length...
        value = event.get(mutation[1])
        event[mutation[1]] = (str(value) if isinstance(value, (int, float)) else
                              len(value) if isinstance(value, str) else
                              [value] if value is not None else {})
    else:
        return mutation[1]
    return event


def _dumps(doc: object) -> bytes:
    # NaN / Infinity are written as JSON extensions, as some writers do
    return json.dumps(doc, allow_nan=True).encode()


@settings(SETTINGS, max_examples=examples(100))
@given(st.lists(st.tuples(st.integers(0, len(EVENTS) - 1), MUTATION), min_size=1, max_size=4),
       st.booleans())
def test_any_mutated_events_load_or_are_refused(mutations: list, bare: bool) -> None:
    events = list(EVENTS)
    for index, mutation in mutations:
        events[index] = _apply(events[index], mutation) if isinstance(events[index], dict) \
            else mutation
    doc: object = events if bare else {**DOC, "traceEvents": events}
    summary = _open_and_summarise(_dumps(doc))
    touched = {index for index, _ in mutations}
    untouched_kernels = sum(1 for i, e in enumerate(EVENTS)
                            if i not in touched and e.get("cat") == "kernel")
    if summary is not None:
        assert untouched_kernels <= _kernels(summary) <= untouched_kernels + len(touched)
    else:  # only a document with nothing loadable left may be refused
        assert untouched_kernels == 0


@settings(SETTINGS, max_examples=examples(80))
@given(st.lists(st.tuples(st.integers(0, len(TEXT.encode()) - 1),
                          st.sampled_from(["flip", "delete", "insert"]),
                          st.binary(min_size=1, max_size=3)),
                min_size=1, max_size=3))
def test_any_changed_bytes_load_or_are_refused(edits: list) -> None:
    data = bytearray(TEXT.encode())
    for at, kind, payload in sorted(edits, reverse=True):
        if kind == "flip":
            data[at] ^= payload[0] or 1
        elif kind == "delete":
            del data[at: at + len(payload)]
        else:
            data[at:at] = payload
    summary = _open_and_summarise(bytes(data))
    if summary is not None:
        assert _kernels(summary) <= 45 + 1
