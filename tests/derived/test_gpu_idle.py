"""The idle intervals (tui/derived/gpu_idle.py, a batch at a time; gpu_idle_windows.sql,
in blocks of 65,536 ids) on more activities than a batch or a block holds.

The sample traces have at most a few thousand activities a device, so their gaps never
cross a block boundary. Here a real trace's kernels are copied, each copy shifted by a part of
the trace's span (a generated case, not a recording): over 200,000 activities on one
device, with busy stretches that run across blocks (launch_bound_inference's copies
overlap; multistream's copies follow each other, and its long kernels on two streams
outlast the short ones after them). The gaps must equal a
plain sweep over the same intervals, and each gap's before_id/after_id must name the
activities that bound it.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

import tui.derived.gpu_idle
from tests.helpers import oracle
from tests.helpers.paths import sample
from tui.core.db import connect, registered
from tui.core.queries import load_query
from tui.derived.gpu_idle import build_gpu_idle
from tui.loading.trace import open_trace

BLOCK = 65_536


def shifted_copies(name: str, copies: int, eighths: int) -> list[tuple[int, int, int, str]]:
    """The GPU intervals of a sample trace, `copies` times, each `eighths`/8 of its span on."""
    real = oracle.gpu_intervals(oracle.chrome_events(sample(f"{name}.pt.trace.json.gz")))
    span = max(end for _, _, end, _ in real) - min(start for _, start, _, _ in real)
    return [(device, start + k * span * eighths // 8, end + k * span * eighths // 8, cat)
            for k in range(copies) for device, start, end, cat in real]


def windows(con) -> None:
    con.execute(load_query("gpu_idle_windows"))


@pytest.mark.slow
@pytest.mark.parametrize("build", [build_gpu_idle, windows])
@pytest.mark.parametrize(("name", "copies", "eighths"), [("multistream", 2400, 9),
                                                         ("launch_bound_inference", 24, 3)])
def test_gaps_across_blocks_equal_a_plain_sweep(name: str, copies: int, eighths: int, build,
                                                monkeypatch) -> None:
    monkeypatch.setattr(tui.derived.gpu_idle, "batch_rows", lambda: 50_000)  # batches end mid-gap
    intervals = shifted_copies(name, copies, eighths)
    devices = {device for device, *_ in intervals}
    assert len(intervals) > 3 * BLOCK and len(devices) == 1
    con = connect()
    con.execute(load_query("schema"))
    table = pa.table({"device": [i[0] for i in intervals], "start_ns": [i[1] for i in intervals],
                      "end_ns": [i[2] for i in intervals]})
    with registered(con, "generated", table):
        # ids in the order every loader numbers them: (device, start_ns, end_ns)
        con.execute("""
            INSERT INTO gpu_activities BY NAME
            SELECT row_number() OVER () - 1 AS id, *, end_ns - start_ns AS duration_ns
            FROM (SELECT * FROM generated ORDER BY device, start_ns, end_ns)""")
    build(con)

    gaps = con.execute("SELECT device, start_ns, duration_ns FROM gpu_idle").fetchall()
    expected = oracle.idle_gaps(intervals, 0)
    assert len(expected) > 1000
    assert sorted(gaps, key=lambda g: (-g[2], g[1])) == expected

    # before_id: the highest id of those ending where the gap starts; after_id starts it
    wrong = con.execute("""
        SELECT count(*) FROM gpu_idle AS g
        JOIN gpu_activities AS b ON b.id = g.before_id
        JOIN gpu_activities AS a ON a.id = g.after_id
        WHERE b.end_ns <> g.start_ns OR a.start_ns <> g.end_ns
           OR b.id <> (SELECT max(id) FROM gpu_activities WHERE end_ns = g.start_ns)
    """).fetchone()[0]
    assert wrong == 0
    assert con.execute("SELECT count(DISTINCT before_id // 65536) FROM gpu_idle").fetchone()[0] > 3


@pytest.mark.slow
@pytest.mark.parametrize("trace", ["multistream.sqlite", "gappy_then_tuned.sqlite",
                                   "multistream.pt.trace.json.gz", "ddp_rank1.pt.trace.json.gz"])
def test_batches_give_the_rows_of_the_windows_in_their_order(trace: str, monkeypatch) -> None:
    """On real traces (several streams; nsys and Kineto), in small batches:
    the same rows in the same order (device, start_ns) as the window functions."""
    monkeypatch.setattr(tui.derived.gpu_idle, "batch_rows", lambda: 16)
    with open_trace(sample(trace), use_cache=False) as opened:
        con = opened.con
        batches = con.execute("SELECT * FROM gpu_idle").fetchall()
        windows(con)
        assert con.execute("SELECT * FROM gpu_idle").fetchall() == batches
        activities = con.execute("SELECT count(*) FROM gpu_activities").fetchone()[0]
        assert len(batches) > 20 and activities > 4 * 16  # over several batches


def test_activities_stored_out_of_id_order_get_the_windows_rows() -> None:
    """Ids that do not rise in storage order, or devices out of order: the window
    functions' rows, not the batches' (which would be wrong)."""
    con = connect()
    con.execute(load_query("schema"))
    # device 1's activities stored before device 0's, ids by (device, start)
    con.execute("""
        INSERT INTO gpu_activities (id, device, start_ns, end_ns, duration_ns)
        SELECT id, device, start_ns, start_ns + 5, 5
        FROM (SELECT (d * 10 + k) AS id, d AS device, k * 10 + d AS start_ns
              FROM range(2) AS a(d), range(10) AS b(k))
        ORDER BY device DESC, id""")
    build_gpu_idle(con)
    fallback = con.execute("SELECT * FROM gpu_idle").fetchall()
    windows(con)
    assert fallback == con.execute("SELECT * FROM gpu_idle").fetchall()
    assert len(fallback) == 18 and fallback[0][0] == 0  # ordered by device


def test_several_devices_and_a_null_device_in_batches(monkeypatch) -> None:
    """Devices in order, NULL last (a Kineto event whose device could not be read: no
    gaps), each with a gap that runs across a batch's end: the windows' rows."""
    monkeypatch.setattr(tui.derived.gpu_idle, "batch_rows", lambda: 7)
    con = connect()
    con.execute(load_query("schema"))
    con.execute("""
        INSERT INTO gpu_activities (id, device, start_ns, end_ns, duration_ns)
        SELECT row_number() OVER () - 1, device, start_ns, start_ns + dur, dur
        FROM (SELECT CASE WHEN d = 2 THEN NULL ELSE d END AS device, k * 10 + d AS start_ns,
                     CASE WHEN k % 4 = 0 THEN 25 ELSE 5 END AS dur
              FROM range(3) AS a(d), range(10) AS b(k)
              ORDER BY d, start_ns)""")
    tui.derived.gpu_idle._from_batches(con)  # no fallback: it would raise
    batches = con.execute("SELECT * FROM gpu_idle").fetchall()
    windows(con)
    assert batches == con.execute("SELECT * FROM gpu_idle").fetchall()
    assert {row[0] for row in batches} == {0, 1} and len(batches) == 8
