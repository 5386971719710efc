"""Nesting of host ranges (tui/derived/nesting.py): parents and the innermost range open at
a time, against a brute-force search on generated ranges, and the launch stacks of a real
JAX recording against an independent reading of its events."""

from __future__ import annotations

import random
import threading
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import xla_oracle
from tests.helpers.paths import sample
from tests.helpers.xla_samples import SAMPLE_FILES
from tui.core.db import connect
from tui.derived import nesting, stacks
from tui.derived.nesting import HostNesting
from tui.loading.trace import open_trace


def generated_ranges(seed: int) -> list[tuple[int, int, int]]:
    """GENERATED, not recorded: (group, start, end) of nested ranges in three groups, with
    equal starts, zero-length ranges and ranges ending where the next starts."""
    rng = random.Random(seed)
    out: list[tuple[int, int, int]] = []

    def fill(group: int, lo: int, hi: int, level: int) -> None:
        t = lo
        while t < hi and level < 6:
            start = rng.randint(t, min(hi, t + 5))
            end = rng.randint(start, min(hi, start + 40))
            out.append((group, start, end))
            if end > start and rng.random() < 0.7:
                fill(group, start, end, level + 1)
            t = end if rng.random() < 0.8 else end + 1

    for group in range(3):
        fill(group, 0, 300, 0)
    return out


def brute_depths(ranges: list[tuple[int, int, int]]) -> list[int]:
    """How many ranges of the group are open as each starts (ends close before starts open
    at equal times; a zero-length range closes after them), ranges by (start, longer first)."""
    depths = []
    for i, (g, s, _) in enumerate(ranges):
        depths.append(sum(1 for g2, s2, e2 in ranges[:i]
                          if g2 == g and (e2 > s or (e2 == s2 == s))))
    return depths


def nesting_of(ranges: list[tuple[int, int, int]]) -> tuple[HostNesting, list[int]]:
    ranges.sort(key=lambda r: (r[0], r[1], -(r[2] - r[1])))
    depths = brute_depths(ranges)
    arrays = [np.array(col, dtype=np.int64) for col in zip(*ranges, strict=True)]
    ids = np.arange(len(ranges), dtype=np.int64)
    return HostNesting(ids, arrays[0], arrays[1], arrays[2],
                       np.array(depths, dtype=np.int64)), depths


@pytest.mark.parametrize("seed", range(5))
def test_parents_are_the_enclosing_range_one_level_up(seed: int) -> None:
    ranges = generated_ranges(seed)
    nesting, depths = nesting_of(ranges)
    parents = nesting.parents()
    for i, (g, _, _) in enumerate(ranges):
        above = [j for j in range(i) if ranges[j][0] == g and depths[j] == depths[i] - 1]
        assert parents[i] == (above[-1] if above else -1)
    assert (parents >= 0).sum() > len(ranges) // 2  # most ranges have a parent


@pytest.mark.parametrize("seed", range(5))
def test_innermost_is_the_deepest_range_open_at_the_time(seed: int) -> None:
    ranges = generated_ranges(seed)
    nesting, depths = nesting_of(ranges)
    rng = random.Random(seed)
    points = [(rng.randint(-1, 3), rng.randint(-5, 310)) for _ in range(400)]
    group = np.array([g if g < 3 else -1 for g, _ in points], dtype=np.int64)
    found = nesting.innermost(group, np.array([t for _, t in points], dtype=np.int64))
    hits = 0
    for (g, t), got in zip(points, found, strict=True):
        open_at = [i for i, (g2, s, e) in enumerate(ranges) if g2 == g and s <= t < e]
        expected = max(open_at, key=lambda i: (depths[i], i)) if open_at else -1
        assert got == expected
        hits += got >= 0
    assert hits > 100


def test_odd_depths_fall_back_to_searching() -> None:
    ranges = generated_ranges(7)
    nesting, depths = nesting_of(ranges)
    odd = np.array(depths, dtype=np.int64)
    odd[len(odd) // 2] += 3  # a depth that steps by more than one: no forward fill then
    parents = HostNesting(nesting.ids, nesting.group, nesting.start, nesting.end,
                          odd).parents()
    for i, (g, _, _) in enumerate(ranges):
        above = [j for j in range(i) if ranges[j][0] == g and odd[j] == odd[i] - 1]
        assert parents[i] == (above[-1] if above else -1)


@pytest.fixture(scope="module")
def jax_eager():
    path = SAMPLE_FILES["jax_eager"]
    events = xla_oracle.read_events(path)
    with open_trace(path) as trace:
        yield trace, events


@pytest.mark.slow
def test_jax_frames_have_the_enclosing_frame_as_parent(jax_eager) -> None:
    trace, events = jax_eager
    got = Counter(dict(((name, parent), n) for name, parent, n in trace.con.execute(
        "SELECT f.name, p.name, count(*) FROM python_frames AS f "
        "LEFT JOIN python_frames AS p ON p.id = f.parent_id GROUP BY ALL").fetchall()))
    expected = xla_oracle.frame_parents(events)
    assert sum(expected.values()) == 22_582
    assert got == Counter(expected)


@pytest.mark.slow
def test_jax_launches_have_the_innermost_frame_open_at_the_call(jax_eager) -> None:
    trace, events = jax_eager
    got = Counter(dict(((name, frame), n) for name, frame, n in trace.con.execute(
        "SELECT g.name, f.name, count(*) FROM launches AS l "
        "JOIN gpu_activities AS g ON g.id = l.gpu_id "
        "LEFT JOIN python_frames AS f ON f.id = l.frame_id GROUP BY ALL").fetchall()))
    expected = xla_oracle.launch_frames(events)
    assert sum(expected.values()) == 1_200
    assert sum(n for (_, frame), n in expected.items() if frame is not None) == 800
    assert got == Counter(expected)


STACK_TABLES = {
    "python_frames": "SELECT id, parent_id FROM python_frames",
    "launches": "SELECT gpu_id, runtime_id, op_id, frame_id FROM launches",
    "memory_events": "SELECT id, op_id, frame_id FROM memory_events",
}


@pytest.mark.slow
@pytest.mark.parametrize(("path", "per_window"), [
    (sample("stacks_training.pt.trace.json.gz"), 300),  # Python frames, memory events
    # NVTX ranges stand in for frames; 130 windows (at 6 rows, 650 took 4x the CPU)
    (sample("gappy_then_tuned.sqlite"), 30),
    (SAMPLE_FILES["jax_train"], 200),  # XLA's Python frames
])
def test_windows_of_ranges_give_what_one_window_gives(path: Path, per_window: int,
                                                      monkeypatch) -> None:
    """Big traces are nested a window of start times at a time (the budget's share of
    memory outside DuckDB); small windows here, and the same frames, ops and parents."""
    def tables(built: bool = True) -> dict[str, list]:
        # in one window: the run's cache file of the trace, as any open reads it
        with open_trace(path, use_cache=not built) as trace:
            return {table: sorted(trace.con.execute(sql).fetchall(), key=repr)
                    for table, sql in STACK_TABLES.items()}
    whole = tables(built=False)
    windows = []
    monkeypatch.setattr(stacks, "nesting_window_rows", lambda rows=None: per_window)
    real_windows = stacks._nesting_windows
    monkeypatch.setattr(stacks, "_nesting_windows",
                        lambda con, kinds, host: windows.extend(real_windows(con, kinds, host))
                        or windows)
    assert tables() == whole
    assert len(windows) > 5
    # each window's ranges read in 3 parts side by side, on cursors of their own
    monkeypatch.setattr(stacks, "read_parts", lambda: 3)
    monkeypatch.setattr(nesting, "MIN_PART_ROWS", 1)
    windows.clear()
    assert tables() == whole
    assert max(len(parts) for parts in windows) == 3
    # each window's NumPy work on a pool of three threads while the next windows are read,
    # what they found written in window order
    monkeypatch.setattr(stacks, "POOL_MIN_CORES", 0)
    monkeypatch.setattr(stacks, "usable_cores", lambda: 16)
    assert stacks.nesting_workers() == stacks.NESTING_WORKERS == 3
    nested_on: set[int] = set()
    nest = stacks._nest_window

    def on_thread(*args: object) -> object:
        nested_on.add(threading.get_ident())
        return nest(*args)

    monkeypatch.setattr(stacks, "_nest_window", on_thread)
    windows.clear()
    assert tables() == whole
    assert nested_on and threading.get_ident() not in nested_on
    assert any(parent is not None for _, parent in whole["python_frames"])
    assert any(frame is not None for *_, frame in whole["launches"])


def test_many_cores_cut_a_sweep_into_windows_worked_side_by_side(monkeypatch) -> None:
    """From POOL_MIN_CORES cores a sweep that the budget would take in one window or two is
    cut into SIDE_BY_SIDE_WINDOWS, whose NumPy work then runs side by side; below, and
    where the budget allows less, its share decides. Windows held at once share it."""
    monkeypatch.setattr(nesting, "memory_budget_bytes", lambda: 8 * 10**9)
    fits = int(8 * 10**9 * nesting.ARRAYS_SHARE) // 100  # 8M rows at 100 bytes
    monkeypatch.setattr(nesting, "usable_cores", lambda: 2)
    assert nesting.rows_per_window(100, 12_000_000) == fits
    monkeypatch.setattr(nesting, "usable_cores", lambda: 16)
    assert nesting.rows_per_window(100) == fits
    assert nesting.rows_per_window(100, 12_000_000) == 1_500_000
    assert nesting.rows_per_window(100, 120_000_000, held=3) == fits // 3
    assert nesting.rows_per_window(100, 1000) == nesting.MIN_WINDOW_ROWS


@pytest.mark.parametrize("rows", [50_000, 3_000_000])
def test_windows_cut_at_a_samples_quantiles_hold_about_their_share(rows: int) -> None:
    """GENERATED start times in no order (and a run of equal ones), cut into windows of
    ~per_window rows each: exact quantiles where the sample is every row, within 5% of
    the share where it is a sample of them; together the windows cover every row once."""
    con = connect()
    con.execute("ATTACH ':memory:' AS finalize")
    con.execute("CREATE TABLE finalize.host_rows AS SELECT CASE WHEN i % 10 = 0 THEN 7 "
                "ELSE hash(i) % 1000000007 END AS start_ns FROM range($rows) t(i)",
                {"rows": rows})
    per_window = rows // 8
    windows = nesting.time_window_parts(con, rows, per_window, "host_depth_cuts", {}, 1)
    counts = [con.execute("SELECT count(*) FROM finalize.host_rows "
                          "WHERE start_ns >= $a AND start_ns < $b",
                          {"a": window[0][0], "b": window[-1][1]}).fetchone()[0]
              for window in windows]
    assert len(windows) == 8 and sum(counts) == rows
    assert max(abs(count - per_window) for count in counts) <= per_window * 0.05 + 1
