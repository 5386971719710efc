"""The timeline's queries on the real sample traces: bins, the summary, lookups."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers.paths import sample
from tui.loading.trace import Trace, open_trace
from tui.views.timeline import KernelInfo, TimelineData, View, bins, lod
from tui.views.timeline.lanes import (
    LANE_CRITICAL,
    LANE_GPU,
    LANE_HOST,
    LANE_MEMORY,
    LANE_NVTX,
    LANE_QUEUE,
)
from tui.views.timeline.lookup import GapInfo

MIN_GAP = 1_000_000


@pytest.fixture(scope="module")
def gappy() -> Iterator[Trace]:
    trace = open_trace(sample("gappy_training.pt.trace.json.gz"))
    yield trace
    trace.close()


def fit_view(data: TimelineData, ncols: int = 120) -> View:
    extent = data.extent
    npc = -(-(extent.gpu_end_ns - extent.gpu_start_ns) // (ncols - 1))
    return View(npc, extent.gpu_start_ns // npc, ncols)


def test_lanes_are_streams_then_annotations_then_threads(gappy: Trace) -> None:
    data = TimelineData(gappy.con, MIN_GAP)
    kinds = [lane.kind for lane in data.lanes]
    assert kinds == sorted(kinds)
    assert [lane.label for lane in data.lanes if lane.kind == LANE_GPU] == ["GPU0 s7"]
    # the trace was recorded with profile_memory: a memory lane for its GPU, last
    assert {lane.kind for lane in data.lanes} == {LANE_GPU, LANE_NVTX, LANE_HOST, LANE_MEMORY}
    # its stream's queue length and the steps' critical path, read once shown (`p`)
    assert [(lane.kind, lane.label) for lane in data.distributed_lanes()] == [
        (LANE_QUEUE, "q GPU0 s7"), (LANE_CRITICAL, "crit. path")]


def test_busy_time_in_bins_equals_the_kernels_time(gappy: Trace) -> None:
    """Coarse zoom aggregates every interval: nothing is sampled away."""
    data = TimelineData(gappy.con, MIN_GAP)
    view = fit_view(data)
    got = data.bins.fetch(view, 0, False)
    lane = got.cells((LANE_GPU, 0, 7, 0))
    busy_ns = sum(cell.busy * view.npc for cell in lane if cell is not None)
    total = gappy.con.execute("SELECT sum(duration_ns) FROM gpu_activities").fetchone()[0]
    assert busy_ns == pytest.approx(total, rel=1e-6)


def test_gap_columns_are_where_gpu_idle_says(gappy: Trace) -> None:
    data = TimelineData(gappy.con, MIN_GAP)
    view = fit_view(data)
    cover = data.bins.fetch(view, 0, False).gap_cover(0)
    gaps = gappy.con.execute(
        "SELECT start_ns, end_ns FROM gpu_idle WHERE duration_ns > ?", [MIN_GAP]).fetchall()
    expected = {x for s, e in gaps for x in range(view.x_of(s), view.x_of(e - 1) + 1)}
    assert {x for x, share in enumerate(cover) if share > 0} == expected
    assert len(gaps) == 10


def test_summary_levels_agree_with_the_tables(gappy: Trace, monkeypatch) -> None:
    """The level-of-detail summary (built for big traces) gives the same busy time per
    column as binning the tables directly, at zooms where it is used."""
    monkeypatch.setattr(lod, "LOD_BINS", 4096)
    monkeypatch.setattr(lod, "LOD_MAX_BINS", 64)
    data = TimelineData(gappy.con, MIN_GAP)
    data.bins.build_lod()
    assert len(data.bins._widths) >= 2
    for level_width in data.bins._widths:
        npc = level_width * 4
        view = View(npc, data.extent.gpu_start_ns // npc, 100)
        from_lod = data.bins.fetch(view, 4, True)
        assert from_lod.source.startswith("lod")
        raw = bins._to_bins(view, gappy.con.execute(
            bins.load_query("timeline_bins"),
            {"npc": npc, "t_lo": view.t0, "t_hi": view.t1, "min_gap_ns": MIN_GAP,
             "nvtx_depths": 4, "host": True}).fetchall(), "raw")
        memory = {k for k in from_lod.lanes if k[0] == LANE_MEMORY}  # drawn apart
        assert raw.lanes.keys() == from_lod.lanes.keys() - memory
        for key, cells in raw.lanes.items():
            assert [c.busy if c else 0 for c in cells] == pytest.approx(
                [c.busy if c else 0 for c in from_lod.lanes[key]])
        assert raw.gaps == pytest.approx(from_lod.gaps)


def test_kernel_under_cursor_with_launch_op_and_nvtx(gappy: Trace) -> None:
    data = TimelineData(gappy.con, MIN_GAP)
    kid, start, end, name = gappy.con.execute(
        "SELECT id, start_ns, end_ns, name FROM gpu_activities WHERE kind = 'kernel' "
        "AND name LIKE '%layer_norm%' ORDER BY start_ns LIMIT 1").fetchone()
    mid = (start + end) // 2
    info = data.info_at(data.lanes[0], mid, mid - 10, mid + 10)
    assert isinstance(info, KernelInfo)
    assert (info.id, info.name) == (kid, name)
    assert info.launch_name is not None and info.launch_name.startswith("cu")
    assert info.cpu_op is not None and info.cpu_op.startswith("aten::")
    assert info.nvtx_path is not None and "forward" in info.nvtx_path
    assert info.grid is not None and info.registers_per_thread is not None


def test_gap_under_cursor_and_gap_navigation(gappy: Trace) -> None:
    data = TimelineData(gappy.con, MIN_GAP)
    largest, total = data.gap_by_rank(0)
    assert total == 10
    biggest = gappy.con.execute(
        "SELECT max(duration_ns) FROM gpu_idle WHERE duration_ns > ?", [MIN_GAP]).fetchone()
    assert largest.duration_ns == biggest[0]
    mid = largest.start_ns + largest.duration_ns // 2
    info = data.info_at(data.lanes[0], mid, mid - 1, mid + 1)
    assert isinstance(info, GapInfo) and info.duration_ns == largest.duration_ns
    first = data.step_gap(data.extent.gpu_start_ns, True)
    second = data.step_gap(first.start_ns, True)
    assert first is not None and second is not None and second.start_ns > first.start_ns
    assert data.step_gap(second.start_ns, False) == first


def test_summary_is_kept_beside_the_cache_and_reused(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(bins, "LOD_MIN_ROWS", 0)
    trace = open_trace(sample("multistream.pt.trace.json.gz"))
    try:
        assert trace.cache_path is not None
        first = TimelineData(trace.con, MIN_GAP, trace.cache_path)
        first.prepare()
        path = lod.lod_file(trace.cache_path, MIN_GAP)
        assert path is not None and path.is_file()
        # its own partial only: the cache dir is shared with the other workers' builds
        assert not list(path.parent.glob(f"{path.name}.partial-*"))
        view = fit_view(first)
        built = first.bins.fetch(View(first.bins.snap_npc(view.npc), view.c0, 120), 4, False)
        again = TimelineData(trace.con, MIN_GAP, trace.cache_path)
        again.prepare()  # attaches the file, read-only, instead of building
        assert again.bins._widths == first.bins._widths
        assert again.bins.fetch(built.view, 4, False).lanes == built.lanes
    finally:
        trace.close()
