"""From POOL_MIN_CORES cores the GPU-idle intervals are built on a second connection beside
the launch stacks (tui.loading.trace._gpu_idle_beside_stacks), where on fewer they come
after them on the loading connection: the same intervals either way."""

from __future__ import annotations

import threading

import duckdb
import pytest

from tests.helpers.paths import sample
from tui.core.queries import load_query
from tui.loading import trace as trace_module
from tui.loading.trace import open_trace

IDLE = "SELECT * FROM gpu_idle ORDER BY device, start_ns"


def test_gpu_idle_built_beside_the_stacks_is_gpu_idle_built_after_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    built_on: list[bool] = []  # whether on the loading (main) thread
    build = trace_module.build_gpu_idle

    def recorded(con: duckdb.DuckDBPyConnection) -> None:
        built_on.append(threading.current_thread() is threading.main_thread())
        build(con)

    def intervals(cores: int) -> tuple[list[tuple], list[tuple], int]:
        monkeypatch.setattr(trace_module, "usable_cores", lambda: cores)
        with open_trace(sample("stacks_training.pt.trace.json.gz"), use_cache=False) as opened:
            rows = opened.con.execute(IDLE).fetchall()
            # the same intervals as the window functions find (another way to them)
            opened.con.execute(load_query("gpu_idle_windows"))
            windows = opened.con.execute(IDLE).fetchall()
            (launches,), = opened.con.execute(
                "SELECT count(*) FROM launches WHERE op_id IS NOT NULL").fetchall()
        return rows, windows, launches

    monkeypatch.setattr(trace_module, "build_gpu_idle", recorded)
    after, after_windows, after_launches = intervals(2)
    beside, beside_windows, beside_launches = intervals(trace_module.POOL_MIN_CORES)
    assert built_on == [True, False]
    assert beside == after == after_windows == beside_windows
    assert len(after) > 100
    assert beside_launches == after_launches > 100
