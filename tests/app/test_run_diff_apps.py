"""RunApp (`tui DIR` / several traces) and DiffApp (`tui diff` on a terminal) through
Pilot, on the real samples: the two-rank DDP run (rank 1 is the straggler) and the
gappy/tuned pair."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.helpers.paths import ROOT, sample
from tests.helpers.pilot import SIZE, cells, static_text, sync, until
from tests.helpers.screen import drawn_screen
from tui.apps.diff_app import DiffApp
from tui.apps.run_app import RunApp
from tui.widgets.diff_tables import KernelDiffTable, TotalsTable
from tui.widgets.run_tables import (
    BandwidthTable,
    CollectiveTable,
    CounterTable,
    PipelineTable,
    RankTable,
)

RANKS = [sample("ddp_rank0.pt.trace.json.gz"), sample("ddp_rank1.pt.trace.json.gz")]
GAPPY, TUNED = "gappy_training.pt.trace.json.gz", "tuned_training.pt.trace.json.gz"
PIPELINE = ROOT / "sample_traces" / "pp_1f1b"  # 2 stages, 1F1B (recordings/parallel_train.py)
SMALL = (80, 24)


def _shown_keys(app: RunApp) -> list[str]:
    return [b.key for _node, b, _enabled, _tip in app.screen.active_bindings.values()
            if b.show]


@pytest.mark.slow
@sync
async def test_run_app_names_rank_1_the_straggler() -> None:
    app = RunApp(RANKS)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.run_data is not None)
        await pilot.pause()
        assert ("straggler: rank 1 — holds the others up in NCCL kernels by 14.8 ms per "
                "step, 74.9% of the 19.7 ms median GPU step") in static_text(app, "#run-header")
        # what bounds each rank: the straggler sleeps on the host, rank 0 computes
        assert "rank 0 communication-bound · rank 1 host-bound" in static_text(app, "#run-header")
        ranks = app.query_one(RankTable)
        rows = cells(ranks)
        assert [r[0] for r in rows] == ["0", "1 ◀ straggler"]
        # host and GPU step: rank 1's host step is the longer, its GPU step the shorter
        assert [r[2:4] for r in rows] == [["19.1 ms", "19.7 ms"], ["20.1 ms", "10.2 ms"]]
        assert rows[0][9] == "AllReduce_Sum_f32_RING_LL"  # rank 0 waits in all-reduce
        assert rows[1][7] == "0 ns" and rows[1][8] != "0 ns"  # rank 1 waits for none
        assert ranks.has_focus and ranks.rank_at_cursor() == 1  # the cursor on it
        # HTA's overlap %, exposed communication a step and idle %
        # (tests/analysis/test_distributed.py)
        assert [r[10:13] for r in rows] == [["50.8", "7.34 ms", "0.9"],
                                           ["73.9", "124 µs", "46.0"]]
        breakdown = static_text(app, "#rank-breakdown")  # the rank under the cursor
        assert breakdown.startswith("rank 1: 49.5 ms of kernel time")
        assert "idle 22.8 ms (46%)" in breakdown and "73.9% overlapped" in breakdown
        findings = static_text(app, "#run-findings")
        assert app.run_data is not None
        assert [f.text in findings for f in app.run_data.summary["findings"]] == [True] * 9
        assert "Rank 1 is the straggler" in findings
        collectives = cells(app.query_one(CollectiveTable))
        assert collectives and collectives[0][0] == "AllReduce_Sum_f32_RING_LL"
        assert collectives[0][5] == "rank 1"
        # what the all-reduces achieved, a row per size, as the summary's JSON has them
        rates = app.run_data.summary["collective_bandwidth"]
        bandwidth = cells(app.query_one(BandwidthTable))
        assert rates and [r[:4] for r in bandwidth] == [
            [r["name"], f"{r['bytes']:,}", "2", str(r["instances"])] for r in rates]
        assert all(r[6].startswith(f"{rate['busbw_gbps_median']:.1f} GB/s (")
                   and r[7] == "450 GB/s" for r, rate in zip(bandwidth, rates, strict=True))
        await pilot.press("down")  # already on the last row; up to rank 0
        await pilot.press("up")
        assert ranks.rank_at_cursor() == 0
        await pilot.pause()
        assert static_text(app, "#rank-breakdown").startswith("rank 0: 57.3 ms of kernel time")
        await pilot.press("enter")  # leaves with rank 0's trace for TraceApp
        await pilot.pause()
    assert app.return_value == RANKS[0]


@pytest.mark.slow
@sync
async def test_p_brings_the_pipeline_and_b_the_bandwidth_at_80x24() -> None:
    """A pipeline-parallel run: `p` scrolls to its stages (order, micro-batches, schedule,
    expected and measured bubble) and the remedy, `b` to what its send/recv achieved; both
    on screen at 80×24, with the keys in the footer."""
    app = RunApp([PIPELINE])
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: app.run_data is not None)
        await pilot.pause()
        assert {"p", "b"} <= set(_shown_keys(app))
        summary = app.run_data.summary
        p = summary["pipeline"]
        assert p is not None and p["order"] == [0, 1]
        await pilot.press("p")
        await pilot.pause()
        table = app.query_one(PipelineTable)
        assert table.has_focus
        # the bubbles as tests/runs/test_parallelism.py checks them against the raw JSON
        assert cells(table) == [
            ["0", "0", "8", "1F1B", "11.1%", "92.3%", "+81.2 pts"],
            ["1", "1", "8", "1F1B", "11.1%", "90.4%", "+79.3 pts"]]
        screen = "\n".join(await drawn_screen(pilot))
        assert "Pipeline: ranks 0 → 1, 8 micro-batches a step, 1F1B; bubble per stage" in screen
        assert "92.3%" in screen and "90.4%" in screen
        assert "To shrink the bubble: more micro-batches per step (8 now" in screen
        await pilot.press("b")
        await pilot.pause()
        bandwidth = app.query_one(BandwidthTable)
        assert bandwidth.has_focus
        rates = summary["collective_bandwidth"]
        assert rates and [r[:4] for r in cells(bandwidth)] == [
            [r["name"], f"{r['bytes']:,}", str(r["group_size"]), str(r["instances"])]
            for r in rates]
        screen = "\n".join(await drawn_screen(pilot))
        assert "Collective bandwidth" in screen and f"{rates[0]['bytes']:,}" in screen


@pytest.mark.slow
@sync
async def test_a_run_without_a_pipeline_shows_no_pipeline_nor_its_key() -> None:
    app = RunApp(RANKS)
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: app.run_data is not None)
        await pilot.pause()
        assert app.run_data.summary["pipeline"] is None
        assert not app.query_one(PipelineTable).display
        assert "p" not in _shown_keys(app) and "b" in _shown_keys(app)
        assert "m" not in _shown_keys(app)  # Kineto traces: no hardware counters
        assert not app.query_one(CounterTable).display
        await pilot.press("p")  # nothing to bring: the ranks keep the keys
        await pilot.pause()
        assert app.query_one(RankTable).has_focus


@sync
async def test_run_app_reports_a_bad_path() -> None:
    app = RunApp([RANKS[0], sample(GAPPY).with_name("no_such_rank.json")])
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "could not" in static_text(app, "#run-header"))
        assert any(n.severity == "error" for n in app._notifications)
        await pilot.press("q")
    assert app.return_value is None


def _diff() -> dict:
    from tui.runs.diff import diff_traces

    return diff_traces(sample(GAPPY), sample(TUNED), 1_000_000)


@pytest.mark.slow
@sync
async def test_diff_app_shows_idle_change_and_kernel_changes() -> None:
    diff = _diff()
    app = DiffApp(diff)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        totals = {r[0]: r for r in cells(app.query_one(TotalsTable))}
        idle = totals["GPU idle"]
        assert idle[1] == "163 ms" and idle[2] == "81.9 ms" and idle[4] == "-49.8"
        assert totals["gaps"][1:3] == ["10", "0"]
        kernels = app.query_one(KernelDiffTable)
        statuses = {r[0] for r in cells(kernels)}
        assert statuses == {"appeared", "vanished", "variant", "faster", "same"}
        title = static_text(app, "#kernels-title")
        assert "20 appeared, 19 vanished, 4 variant, 5 faster, 7 same" in title
        variant = next(r for r in cells(kernels) if r[0] == "variant")
        assert variant[5].startswith("vectorized_elementwise_kernel<…GeluBackwardCUDAKernelImpl…>"
                                     " (4 → 8, float → c10::BFloat16): ")
        assert ("median step: 39.6 ms → 18.4 ms, after is faster (-53.6%)"
                in static_text(app, "#diff-header"))
        findings = static_text(app, "#diff-findings")
        assert "After is faster than before: median step 39.6 ms → 18.4 ms" in findings
        assert "4 kernels changed variant" in findings
        first = cells(kernels)[0]  # biggest change first: the fp32 GEMM that vanished
        assert first[0] == "vanished" and first[5] == diff["kernels"][0]["name"]
        await pilot.press("s")  # biggest gain first: most negative delta
        deltas = [k["delta_ns"] for k in kernels.shown()]
        assert deltas == sorted(deltas)
        await pilot.press("s")  # biggest loss first: an appeared kernel
        assert cells(kernels)[0][0] == "appeared"
        await pilot.press("f")
        assert {r[0] for r in cells(kernels)} == {"appeared"}
        assert kernels.row_count == diff["kernel_changes"]["appeared"]
        await pilot.press("f")
        assert {r[0] for r in cells(kernels)} == {"vanished"}
        assert "vanished: 19 of" in static_text(app, "#kernels-title")
        await pilot.press("f")
        assert {r[0] for r in cells(kernels)} == {"variant"} and kernels.row_count == 4
        await pilot.press("q")
    assert app.return_code == 0


@pytest.mark.slow
def test_diff_off_a_terminal_prints_text(capsys) -> None:
    from tui.cli.main import main

    assert main(["diff", str(sample(GAPPY)), str(sample(TUNED))]) == 0
    out = capsys.readouterr().out
    assert "Totals" in out and "Findings" in out


def test_several_traces_without_summary_open_run_app(monkeypatch) -> None:
    """`tui r0 r1`: RunApp; Enter on a rank runs TraceApp on its file, q there comes back,
    q in RunApp ends."""
    import tui.apps.run_app
    import tui.apps.trace_app
    from tui.cli.main import main

    shown: list[str] = []
    runs: list[object] = []
    choices = [RANKS[1], None]

    class FakeRunApp:
        return_code = 0

        def __init__(self, paths, use_cache, min_gap_ns, files, loaded) -> None:
            assert paths == files == RANKS  # the traces as listed before the app started
            # back from a rank: the run the first app loaded, not loaded again
            assert loaded is (None if not shown else runs[-1])
            self.run_data = object()
            runs.append(self.run_data)

        def run(self) -> None:
            self.return_value = choices.pop(0)
            shown.append("ranks")

    class FakeTraceApp:
        return_code = 0

        def __init__(self, path, use_cache, min_gap_ns) -> None:
            self.path = path

        def run(self) -> None:
            shown.append(self.path.name)

    monkeypatch.setattr(tui.apps.run_app, "RunApp", FakeRunApp)
    monkeypatch.setattr(tui.apps.trace_app, "TraceApp", FakeTraceApp)
    assert main([str(p) for p in RANKS]) == 0
    assert shown == ["ranks", RANKS[1].name, "ranks"]


@pytest.mark.slow
@sync
async def test_run_app_does_not_list_the_traces_again(tmp_path: Path, monkeypatch) -> None:
    """run_run_app lists a folder (an object store's prefix: a request per entry) to check
    it before the app starts; the app loads the traces of that listing."""
    import tui.apps.run_app

    folder = tmp_path / "run"
    folder.mkdir()
    for rank in RANKS:
        (folder / rank.name).symlink_to(rank)
    files = tui.apps.run_app.expand_paths([folder])
    assert [f.name for f in files] == [r.name for r in RANKS]

    def listed_again(_paths):
        raise AssertionError("the folder was listed again")

    monkeypatch.setattr(tui.apps.run_app, "expand_paths", listed_again)
    app = RunApp([folder], files=files)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.run_data is not None)
        assert app.run_data.summary["source"]["ranks"] == 2
        assert app.run_data.summary["source"]["path"] == str(folder)
        await pilot.press("q")


@pytest.mark.slow
@sync
async def test_run_app_shows_a_run_loaded_before_without_loading_it(monkeypatch) -> None:
    """Back from a rank's timeline, RunApp shows the run as it was loaded."""
    import tui.apps.run_app

    first = RunApp(RANKS)
    async with first.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: first.run_data is not None)
        await pilot.press("q")

    def loaded_again(*_args, **_kwargs):
        raise AssertionError("the run was loaded again")

    monkeypatch.setattr(tui.apps.run_app, "load_run", loaded_again)
    again = RunApp(RANKS, loaded=first.run_data)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "straggler: rank 1" in static_text(again, "#run-header")
        assert again.ranks.rank_at_cursor() == 1
        await pilot.press("q")


def test_several_traces_with_a_missing_one_fail_before_the_app(capsys) -> None:
    from tui.cli.main import main

    assert main([str(RANKS[0]), str(RANKS[0].with_name("nope.pt.trace.json.gz"))]) == 2
    assert "tui: error" in capsys.readouterr().err


@pytest.mark.slow
def test_diff_on_a_terminal_opens_the_app(monkeypatch, capsys) -> None:
    import tui.apps.diff_app
    from tui.cli.main import main

    ran: list[dict] = []
    monkeypatch.setattr(tui.apps.diff_app.DiffApp, "run", lambda self: ran.append(self.diff))
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    assert main(["diff", str(sample(GAPPY)), str(sample(TUNED))]) == 0
    assert len(ran) == 1 and ran[0]["kernel_changes"]["vanished"] == 19
    assert capsys.readouterr().out == ""
    # --summary and --fail-above keep the text (and the gate's exit code) on a terminal
    assert main(["diff", str(sample(GAPPY)), str(sample(TUNED)), "--summary"]) == 0
    assert "Totals" in capsys.readouterr().out
    assert main(["diff", str(sample(TUNED)), str(sample(GAPPY)), "--fail-above", "5"]) == 1
    assert "Totals" in capsys.readouterr().out and len(ran) == 1


# ------------------------------------------------------------------------ snapshots
# Paths relative to the checkout, so that the pictures do not depend on where it lies.


def _relative(path: Path) -> Path:
    return path.relative_to(ROOT)


@pytest.mark.slow
def test_run_app_snapshot(snap_compare, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    app = RunApp([_relative(p) for p in RANKS])

    async def loaded(pilot: Pilot) -> None:
        await until(pilot, lambda: app.run_data is not None)
        await until(pilot, lambda: str(app.query_one("#rank-breakdown").render()) != "")
        await until(pilot, lambda: str(app.query_one("#rank-details").render()) != "")
        # the picture from the top, whatever the focused table's scrolling did meanwhile
        app.query_one("#run-body").scroll_home(animate=False)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 30), run_before=loaded)


@pytest.mark.slow
def test_run_app_pipeline_snapshot_at_80x24(snap_compare, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    app = RunApp([_relative(PIPELINE)])

    async def pipeline(pilot: Pilot) -> None:
        await until(pilot, lambda: app.run_data is not None)
        await until(pilot, lambda: str(app.query_one("#rank-breakdown").render()) != "")
        await until(pilot, lambda: str(app.query_one("#rank-details").render()) != "")
        # nothing left filling in to change the page's height after the scroll to the
        # pipeline's table: the scrollbar's thumb moved in a run on a busy machine
        await until(pilot, lambda: not any(w.is_running for w in app.workers))
        await pilot.press("p")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SMALL, run_before=pipeline)


@pytest.mark.slow
def test_diff_app_snapshot(snap_compare, monkeypatch) -> None:
    from tui.runs.diff import diff_traces

    monkeypatch.chdir(ROOT)
    diff = diff_traces(_relative(sample(GAPPY)), _relative(sample(TUNED)), 1_000_000)
    assert snap_compare(DiffApp(diff), terminal_size=(120, 34))


@sync
async def test_a_run_whose_load_breaks_says_so_in_one_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A load that fails in a way no trace explains (a pool's process killed: the pool is
    broken) is said in one line, the app still up; before, the app's worker died with it
    and the run stayed loading with nothing said."""
    import tui.apps.run_app

    def broken(*args: object) -> None:
        raise RuntimeError("A process in the process pool was terminated abruptly")

    monkeypatch.setattr(tui.apps.run_app, "load_run", broken)
    app = RunApp(RANKS)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "could not open the run" in static_text(app, "#run-header"))
        assert app.is_running and app.run_data is None
        assert [str(n.message) for n in app._notifications] == [
            "RuntimeError: A process in the process pool was terminated abruptly"]
