"""Host depths (tui/derived/host_depth.py), a window of start times at a time, against the
definition (tests/helpers/depth_oracle.py)."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers.depth_oracle import depth_mismatches
from tests.helpers.paths import sample
from tests.helpers.properties import examples
from tui.core.db import connect
from tui.core.queries import load_query
from tui.derived import host_depth, nesting
from tui.loading.trace import finalize_activities, open_trace

# (kind, tid, start, duration): small times so that ties, zero-length ranges and ranges
# open across many windows are common; NULL threads are a group of their own
RANGES = st.lists(st.tuples(st.sampled_from(("cpu_op", "runtime")),
                            st.sampled_from((None, 1, 2)), st.integers(0, 60),
                            st.sampled_from((0, 0, 1, 3, 10, 40, 200))),
                  min_size=1, max_size=60)


@pytest.mark.slow
@settings(max_examples=examples(150))
@given(RANGES, st.integers(1, 9))
def test_depths_in_windows_equal_the_definition(ranges, window: int) -> None:
    """Generated ranges, in any order, through windows of a few rows."""
    con = connect()
    con.execute(load_query("schema"))
    con.execute(load_query("staging_tables"))
    con.executemany("INSERT INTO staged_host VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)",
                    [(kind, 7, tid, start, start + duration, duration, "r", None, 0)
                     for kind, tid, start, duration in ranges])
    con.execute("DELETE FROM staged_gpu")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(host_depth, "window_rows", lambda rows=None: window)
        patch.setattr(host_depth, "workers", lambda: 3)
        patch.setattr(host_depth, "read_parts", lambda: 3)
        patch.setattr(host_depth, "POOL_MIN_ROWS", 0)
        patch.setattr(host_depth, "POOL_MIN_CORES", 0)
        patch.setattr(nesting, "MIN_PART_ROWS", 1)
        finalize_activities(con)
    rows, wrong, _ = depth_mismatches(con)
    assert (rows, wrong) == (len(ranges), 0)


def test_a_real_trace_in_windows_has_the_definitions_depths(monkeypatch) -> None:
    """A Kineto trace whose ranges nest 20 deep, cut into windows of 500 ranges (19 of
    them): the windows carry open ranges across; dropping that carry fails this."""
    monkeypatch.setattr(host_depth, "window_rows", lambda rows=None: 500)
    with open_trace(sample("stacks_training.pt.trace.json.gz"), use_cache=False) as trace:
        rows, wrong, deepest = depth_mismatches(trace.con)
    assert rows == 9543 and wrong == 0 and deepest == 20


def test_windows_read_in_parts_side_by_side_have_the_definitions_depths(monkeypatch) -> None:
    """The same trace, each window of 2,000 ranges read in 3 parts on cursors of their own
    and its groups worked out on a pool: the parts' rows are joined in time order and the
    carry goes on from window to window."""
    monkeypatch.setattr(host_depth, "window_rows", lambda rows=None: 2000)
    monkeypatch.setattr(host_depth, "workers", lambda: 3)
    monkeypatch.setattr(host_depth, "read_parts", lambda: 3)
    monkeypatch.setattr(host_depth, "POOL_MIN_ROWS", 0)
    monkeypatch.setattr(host_depth, "POOL_MIN_CORES", 0)
    monkeypatch.setattr(nesting, "MIN_PART_ROWS", 500)
    seen: list[int] = []
    read = host_depth.fetch_parts

    def fetch_parts(con, query: str, parts: list) -> dict:
        seen.append(len(parts))
        return read(con, query, parts)

    monkeypatch.setattr(host_depth, "fetch_parts", fetch_parts)
    with open_trace(sample("stacks_training.pt.trace.json.gz"), use_cache=False) as trace:
        rows, wrong, deepest = depth_mismatches(trace.con)
    assert rows == 9543 and wrong == 0 and deepest == 20
    assert len(seen) == 5 and set(seen) == {3}


@pytest.mark.parametrize("min_cores", [0, 1 << 20])
def test_windows_are_set_beside_the_reads_only_on_many_cores(monkeypatch, min_cores: int) -> None:
    """From POOL_MIN_CORES cores, each window's depths are set on a thread of their own
    while the next window is read, in window order; below, on the reading thread."""
    monkeypatch.setattr(host_depth, "window_rows", lambda rows=None: 2000)
    monkeypatch.setattr(host_depth, "POOL_MIN_ROWS", 0)
    monkeypatch.setattr(host_depth, "POOL_MIN_CORES", min_cores)
    calls: list[tuple[int, int]] = []
    set_depths = host_depth._set_depths

    def recorded(con, window: dict, *rest) -> None:
        calls.append((threading.get_ident(), window["since"]))
        set_depths(con, window, *rest)

    readers: set[int] = set()
    read = host_depth.fetch_parts

    def fetch_parts(con, query: str, parts: list) -> dict:
        readers.add(threading.get_ident())
        return read(con, query, parts)

    monkeypatch.setattr(host_depth, "_set_depths", recorded)
    monkeypatch.setattr(host_depth, "fetch_parts", fetch_parts)
    with open_trace(sample("stacks_training.pt.trace.json.gz"), use_cache=False) as trace:
        rows, wrong, _ = depth_mismatches(trace.con)
    assert rows == 9543 and wrong == 0
    assert len(calls) == 5 and [since for _, since in calls] == sorted(s for _, s in calls)
    setters = {thread for thread, _ in calls}
    assert len(readers) == 1 and (setters == readers) == (min_cores > 0)


def test_a_window_that_cannot_be_set_fails_the_load(monkeypatch) -> None:
    """An error setting a window's depths on the second thread is the load's error."""
    monkeypatch.setattr(host_depth, "window_rows", lambda rows=None: 2000)
    monkeypatch.setattr(host_depth, "POOL_MIN_CORES", 0)

    def fails(*_: object) -> None:
        raise RuntimeError("window not set")

    monkeypatch.setattr(host_depth, "_set_depths", fails)
    with pytest.raises(RuntimeError, match="window not set"):
        open_trace(sample("stacks_training.pt.trace.json.gz"), use_cache=False)
