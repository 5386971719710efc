"""A rank's timeline from its Parquet store (`tui convert`): opened without its trace,
which is neither parsed again nor needed; the same tables as the trace's own load.
On the real two-rank DDP run (rank 1 is the straggler)."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest

from tests.helpers.paths import sample
from tests.helpers.pilot import SIZE, settle, sync, until
from tui.apps.run_app import RunApp, _local_copy
from tui.apps.trace_app import TraceApp
from tui.cli.main import main
from tui.loading.parquet_store import is_parquet_store, open_store_trace
from tui.loading.store import STORE_TABLES
from tui.loading.trace import open_trace

DDP = [sample(f"ddp_rank{rank}.pt.trace.json.gz") for rank in (0, 1)]
RANK1 = "ddp_rank1.pt.trace.tui-store"


def _converted(tmp_path: Path, out: str | None = None) -> str:
    """The DDP ranks converted to stores in `out` (a folder in tmp_path by default),
    their trace files deleted afterwards."""
    traces = tmp_path / "traces"
    traces.mkdir()
    copies = [str(shutil.copy(path, traces / path.name)) for path in DDP]
    out = out or str(tmp_path / "stores")
    assert main(["convert", *copies, "--out", out]) == 0
    shutil.rmtree(traces)
    return out


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of the DDP ranks' stores, converted once for this module (read only)."""
    with pytest.MonkeyPatch.context() as patch:  # a cache of the module's own
        patch.setenv("TUI_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        return Path(_converted(tmp_path_factory.mktemp("run")))


@pytest.mark.slow
def test_a_store_opens_as_the_trace_it_was_converted_from(converted: Path) -> None:
    store = converted / RANK1
    with open_store_trace(store) as from_store, open_trace(DDP[1]) as loaded:
        assert (from_store.format, from_store.from_cache) == ("kineto", True)
        assert str(store) in from_store.cache_note
        for table in STORE_TABLES[1:]:  # trace_meta names the paths, the rest is the same
            query = f"SELECT * FROM {table} ORDER BY ALL"
            assert from_store.con.execute(query).fetchall() == \
                loaded.con.execute(query).fetchall(), table
        kernels = "SELECT count(*) FROM gpu_activities WHERE kind = 'kernel'"
        assert from_store.con.execute(kernels).fetchone()[0] > 0


@pytest.mark.slow
@sync
async def test_enter_on_a_rank_of_stores_opens_its_timeline_from_the_store(
        converted: Path) -> None:
    stores = converted
    app = RunApp([stores])
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.run_data is not None)
        await pilot.pause()
        assert app.ranks.rank_at_cursor() == 1  # the straggler
        await pilot.press("enter")
    assert app.return_value == stores / RANK1  # the store: its trace file is gone
    trace_app = TraceApp(app.return_value)
    async with trace_app.run_test(size=SIZE) as pilot:
        timeline = await settle(pilot)
        assert trace_app.trace is not None and trace_app.trace.path == stores / RANK1
        assert "GPU1 s7" in [lane.label for lane in timeline.lanes]
        assert "from the converted store" in trace_app.trace.cache_note
        await pilot.press("q")


@pytest.mark.slow
@sync
async def test_a_store_of_an_older_tui_says_to_convert_again(tmp_path: Path) -> None:
    store = Path(_converted(tmp_path)) / RANK1
    (store / "launches.parquet").unlink()  # as a store written before it held launches
    app = TraceApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: not app.is_running)  # it ends with the error (exit 2)
    assert app.return_code == 2 and app.failure is not None
    assert "without launches" in app.failure and "convert its trace again" in app.failure
    assert app.trace is None


@pytest.mark.slow
def test_a_store_at_a_url_is_fetched_while_its_timeline_is_open(tmp_path: Path,
                                                                capsys) -> None:
    pytest.importorskip("upath")
    from tui.loading.locations import location

    prefix = _converted(tmp_path, f"memory://tui-test-{uuid.uuid4().hex}/run")
    with _local_copy(location(f"{prefix}/{RANK1}")) as local:
        assert is_parquet_store(local) and local.name == RANK1
        with open_store_trace(local) as trace:
            assert trace.con.execute("SELECT count(*) FROM gpu_activities").fetchone()[0] > 0
    assert not local.exists()  # the copy goes with the timeline
    store = tmp_path / RANK1
    with _local_copy(store) as local:  # a local store is used where it is
        assert local == store


def test_tui_query_reads_a_store_as_its_trace(converted: Path, capsys) -> None:
    store = converted / RANK1
    sql = "SELECT kind, count(*) AS n FROM gpu_activities GROUP BY ALL ORDER BY kind"
    capsys.readouterr()
    assert main(["query", str(store), sql, "--json"]) == 0
    from_store = json.loads(capsys.readouterr().out)
    assert main(["query", str(DDP[1]), sql, "--json"]) == 0
    assert from_store == json.loads(capsys.readouterr().out)
    assert [row["kind"] for row in from_store] == ["kernel", "memcpy", "memset"]
    assert main(["query", str(store), "DELETE FROM devices"]) == 2  # read-only still


@pytest.mark.parametrize("table", ["kernels", "gaps", "code"])
def test_tui_export_reads_a_store_as_its_trace(converted: Path, tmp_path: Path,
                                               table: str) -> None:
    import pyarrow.parquet as pq

    store = converted / RANK1
    out = {}
    for name, source in (("store", store), ("trace", DDP[1])):
        out[name] = tmp_path / f"{table}-{name}.parquet"
        assert main(["export", str(source), table, "--output", str(out[name])]) == 0
    from_store, from_trace = pq.read_table(out["store"]), pq.read_table(out["trace"])
    assert from_store.num_rows > 0 and from_store.equals(from_trace)


def test_tui_on_one_store_opens_its_timeline(converted: Path, monkeypatch, capsys) -> None:
    """`tui NAME.tui-store` opens the app on the store as `tui TRACE` does on a trace;
    `--summary` of it stays a run of one rank."""
    import tui.apps.trace_app

    store = converted / RANK1
    opened: list[Path] = []
    monkeypatch.setattr(tui.apps.trace_app, "run_app",
                        lambda target, **_: opened.append(target.path) or 0)
    assert main([str(store)]) == 0
    assert opened == [store]
    capsys.readouterr()
    assert main(["--summary", "--json", str(store)]) == 0
    assert json.loads(capsys.readouterr().out)["source"]["ranks"] == 1
