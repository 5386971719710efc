"""gpu_idle.sql on more activities than one of its blocks (65,536 ids) holds.

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

from tests import oracle
from tests.conftest import sample
from tui.db import connect, registered
from tui.queries import load_query

BLOCK = 65_536


def shifted_copies(name: str, copies: int, eighths: int) -> list[tuple[int, int, int, str]]:
    """The GPU intervals of a sample trace, `copies` times, each `eighths`/8 of its span on."""
    real = oracle.gpu_intervals(oracle.chrome_events(sample(f"{name}.pt.trace.json.gz")))
    span = max(end for _, _, end, _ in real) - min(start for _, start, _, _ in real)
    return [(device, start + k * span * eighths // 8, end + k * span * eighths // 8, cat)
            for k in range(copies) for device, start, end, cat in real]


@pytest.mark.parametrize(("name", "copies", "eighths"), [("multistream", 2400, 9),
                                                         ("launch_bound_inference", 24, 3)])
def test_gaps_across_blocks_equal_a_plain_sweep(name: str, copies: int, eighths: int) -> None:
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
    con.execute(load_query("gpu_idle"))

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
