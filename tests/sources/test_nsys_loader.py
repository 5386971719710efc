"""The nsys loader's own passes give what the generic ones (finalize_activities) give."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers.paths import sample
from tui.core.db import connect
from tui.core.queries import load_query
from tui.loading.trace import finalize_activities, open_trace
from tui.sources.nsys_nesting import Nesting

THREADS = (None, 5, (1 << 24) | 7, (1 << 24) | 8, (3 << 48) | 7)
# (globalTid, start, duration): small times so that ties and zero-length ranges are common
RANGES = st.lists(st.tuples(st.sampled_from(THREADS), st.integers(0, 60),
                            st.sampled_from((0, 0, 1, 3, 10, 40))), min_size=1, max_size=40)


def _definition_depths(rows: list[tuple]) -> list[int]:
    """Depths as finalize_activities (tui/derived/host_depth.py) computes them for
    staged rows."""
    con = connect()
    con.execute(load_query("schema"))
    con.execute(load_query("staging_tables"))
    con.executemany("INSERT INTO staged_host VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)",
                    [(*r[1:], None, 0) for r in rows])
    con.execute("DELETE FROM staged_gpu")
    finalize_activities(con)
    return [d for (d,) in con.execute("SELECT depth FROM host_activities ORDER BY id").fetchall()]


def _loader_depths(rows: list[tuple], tids: list[int | None], batch: int) -> list[int]:
    """Depths as the nsys loader computes them: touching ranges found batch by batch in
    id order, or (rows out of order) by nsys_host_touching.sql."""
    con = connect()
    con.execute(load_query("schema"))
    con.executemany("INSERT INTO host_activities VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(*r, None, 0) for r in rows])
    nesting = Nesting()
    ids = np.arange(len(rows), dtype=np.int64)
    for at in range(0, len(rows), batch):
        part = slice(at, at + batch)
        nesting.add(pa.array(tids[part], pa.int64()),
                    pa.array([r[4] for r in rows[part]], pa.int64()),
                    pa.array([r[5] for r in rows[part]], pa.int64()), ids[part])
    touching = nesting.touching()
    if touching is None:
        con.execute(load_query("nsys_host_touching"))
    else:
        con.register("nsys_touching", pa.table({"id": touching}))
    con.execute(load_query("nsys_host_depth"))
    return [d for (d,) in con.execute("SELECT depth FROM host_activities ORDER BY id").fetchall()]


@pytest.mark.slow
@given(RANGES, st.booleans(), st.integers(1, 7))
def test_host_depth_equals_the_definition(ranges, in_start_order: bool, batch: int) -> None:
    """Generated ranges, in start order (longer first) or not, fed in batches of any size."""
    if in_start_order:
        ranges = sorted(ranges, key=lambda r: (r[1], -r[2]))
    rows, tids = [], []
    for i, (tid, start, duration) in enumerate(ranges):
        thread = (None, None) if tid is None else ((tid >> 24) & 0xFFFFFF, tid & 0xFFFFFF)
        rows.append((i, "runtime", *thread, start, start + duration, duration, "call"))
        tids.append(tid)
    assert _loader_depths(rows, tids, batch) == _definition_depths(rows)


def _host_rows(path: Path) -> list[tuple]:
    with open_trace(path, use_cache=False) as trace:
        return sorted(trace.con.execute(
            "SELECT kind, pid, tid, start_ns, end_ns, name, correlation, depth "
            "FROM host_activities").fetchall())


@pytest.mark.slow
def test_export_out_of_start_order_loads_the_same_rows(tmp_path: Path) -> None:
    """Generated: the real export with its API calls and NVTX ranges rewritten in reverse
    order, which takes the loader's sorting fallback for host depths."""
    shuffled = tmp_path / "reversed.sqlite"
    shutil.copy(sample("gappy_then_tuned.sqlite"), shuffled)
    db = sqlite3.connect(shuffled)
    for table in ("CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"):
        db.execute(f"CREATE TABLE reordered AS SELECT * FROM {table} ORDER BY start DESC")
        db.execute(f"DELETE FROM {table}")
        db.execute(f"INSERT INTO {table} SELECT * FROM reordered")
        db.execute("DROP TABLE reordered")
    db.commit()
    db.close()
    expected = _host_rows(sample("gappy_then_tuned.sqlite"))
    assert any(row[-1] > 0 for row in expected)  # the NVTX ranges nest
    assert _host_rows(shuffled) == expected


def test_gap_as_dict_has_every_field_in_order() -> None:
    from dataclasses import asdict

    from tui.analysis.gaps import Gap

    gap = Gap(0, 10, 5, "before", "after", "cause", "sync", "dataloader")
    # every field but busy_in and busy_in_call, which the diagnosis reads and the JSON row
    # leaves out (the cause says them)
    assert list(gap.as_dict().items()) == [
        (k, v) for k, v in asdict(gap).items() if k not in ("busy_in", "busy_in_call")]


def test_pytorchs_emit_nvtx_ranges_load_as_its_ops() -> None:
    """`bert_nvtx`: bert's loop inside torch.autograd.profiler.emit_nvtx(), which opens an
    NVTX range around every op named `<op>, seq = N, op_id = N` (or without the seq): each
    loads as the op (kind cpu_op, as Kineto records them), named without the numbers that
    make every range's name its own; the program's other ranges (CUB's) stay ranges."""
    import re
    from collections import Counter

    from tests.helpers.paths import inflated

    path = inflated("unannotated/bert_nvtx.sqlite")
    db = sqlite3.connect(path)
    texts = [t for (t,) in db.execute(
        "SELECT coalesce(e.text, s.value) FROM NVTX_EVENTS AS e LEFT JOIN StringIds AS s "
        "ON s.id = e.textId WHERE e.eventType = 59 AND e.end IS NOT NULL")]
    emitted = Counter(re.sub(r", (seq = \d+, )?op_id = \d+$", "", t) for t in texts
                      if re.search(r", op_id = \d+$", t))
    assert sum(emitted.values()) > 100_000 and emitted["aten::addmm"] > 500
    with open_trace(path) as trace:
        ops = Counter(dict(trace.con.execute(
            "SELECT name, count(*) FROM host_activities WHERE kind = 'cpu_op' "
            "GROUP BY name").fetchall()))
        ranges = {name for (name,) in trace.con.execute(
            "SELECT DISTINCT name FROM host_activities WHERE kind = 'annotation'").fetchall()}
    assert ops == emitted
    assert ranges == {"cub::DeviceRadixSort", "cub::DeviceSelect::UniqueByKey",
                      "cub::DeviceScan::ExclusiveScan"}
