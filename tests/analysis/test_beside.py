"""Work beside a summary's statements (tui.analysis.beside): from 4 cores the distributed
figures, the gaps' host activity and the devices' time splits run on cursors of their own,
on threads of their own; the summary must be the very one worked out on one connection."""

from __future__ import annotations

import threading

import duckdb
import pytest

from tests.helpers.paths import sample
from tui.analysis import diagnosis, summary
from tui.analysis.beside import Beside
from tui.analysis.summary import trace_summary
from tui.loading.trace import open_trace
from tui.views.reports.json_stream import iter_json

# a Kineto trace with host samples (the gaps' host activity) and an nsys report
SAMPLES = ["host_sleep.pt.trace.json.gz", "gappy_then_tuned.sqlite"]


def _summary_text(monkeypatch: pytest.MonkeyPatch, trace, on: bool) -> tuple[str, set[str]]:
    """The trace's summary as JSON text with work beside forced on or off, and the names of
    the threads the beside work ran on."""
    threads: set[str] = set()

    def seen(work):
        def on_thread(con: duckdb.DuckDBPyConnection, *args, **kwargs):
            threads.add(threading.current_thread().name if con is not trace.con else "caller")
            return work(con, *args, **kwargs)
        return on_thread

    with monkeypatch.context() as patch:
        patch.setattr(summary, "side_by_side", lambda: on)
        patch.setattr(summary, "trace_figures", seen(summary.trace_figures))
        patch.setattr(summary, "gaps_host_activity", seen(summary.gaps_host_activity))
        patch.setattr(diagnosis, "time_split", seen(diagnosis.time_split))
        text = "".join(iter_json(trace_summary(trace, 1_000_000)))
    return text, threads


@pytest.mark.slow
@pytest.mark.parametrize("name", SAMPLES)
def test_the_summary_beside_is_the_summary_on_one_connection(
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    with open_trace(sample(name), use_cache=False) as trace:  # the loader's connection
        alone, by = _summary_text(monkeypatch, trace, on=False)
        assert by == {"caller"}
        beside, by = _summary_text(monkeypatch, trace, on=True)
        assert by and all(t.startswith("tui-beside") for t in by)
        again, _ = _summary_text(monkeypatch, trace, on=False)  # nothing left behind
    assert beside == alone == again
    assert '"gaps": [{' in alone  # a summary with gaps, their causes classified


def test_an_error_beside_is_raised_where_its_result_is_asked_for() -> None:
    con = duckdb.connect()
    with Beside(con, True) as beside:
        fine = beside.start(lambda cur: cur.execute("SELECT 42").fetchone())
        broken = beside.start(lambda cur: cur.execute("SELECT * FROM missing").fetchone())
        assert fine() == (42,)
        with pytest.raises(duckdb.CatalogException):
            broken()
    con.close()  # no cursor of it left running


def test_off_the_work_runs_on_the_callers_connection_once_when_asked_for() -> None:
    con = duckdb.connect()
    calls: list[duckdb.DuckDBPyConnection] = []

    def work(cur: duckdb.DuckDBPyConnection) -> int:
        calls.append(cur)
        return 7

    with Beside(con, False) as beside:
        got = beside.start(work)
        assert calls == []
        assert got() == got() == 7
    assert calls == [con]


def test_a_block_left_with_an_error_stops_the_work_beside_it() -> None:
    con = duckdb.connect()
    long = "SELECT sum(range % 7) FROM range(1000000000000)"  # hours, unless interrupted
    with pytest.raises(RuntimeError), Beside(con, True) as beside:
        beside.start(lambda cur: cur.execute(long).fetchone())
        raise RuntimeError("the summary failed")
    con.close()
