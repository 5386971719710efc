"""`/` search, `n`/`N` through its hits, and `@` go-to, driven by keys on real traces;
counts checked against the trace's events read with the json module."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from tests.helpers.oracle import chrome_events
from tests.helpers.paths import ROOT, sample
from tests.helpers.pilot import GAPPY, details_text, settle, sync, type_in
from tests.helpers.screen import drawn_screen
from tui.apps.trace_app import TraceApp
from tui.views.timeline import HostInfo
from tui.views.timeline.goto import parse_time
from tui.views.timeline.lanes import LANE_NVTX, LANE_OPENED
from tui.widgets import theme

TRACE = sample(GAPPY)


def named(pattern: str) -> list[dict]:
    """Complete events whose name matches, any case: kernels, copies, ops, annotations."""
    return sorted((e for e in chrome_events(TRACE)
                   if e.get("ph") == "X" and re.search(pattern, e.get("name", ""), re.I)),
                  key=lambda e: Decimal(e["ts"]))


@pytest.mark.slow
@sync
async def test_slash_counts_marks_and_steps_through_hits() -> None:
    app = TraceApp(TRACE)
    async with app.run_test(size=(120, 40)) as pilot:
        timeline = await settle(pilot)
        await pilot.press("slash")
        await type_in(pilot, "gemm")
        await pilot.press("enter")
        timeline = await settle(pilot)
        gemms = named("gemm")
        assert len(gemms) == len(timeline.hits) == 280
        first_us = Decimal(gemms[0]["ts"])
        origin_us = min(Decimal(e["ts"]) for e in chrome_events(TRACE)
                        if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"))
        assert timeline.cursor_t - timeline.data.extent.gpu_start_ns == \
            round((first_us - origin_us) * 1000)  # Enter: the first hit
        assert "/gemm 1 of 280" in (await drawn_screen(pilot))[0]
        await pilot.press("n", "n")
        timeline = await settle(pilot)
        assert timeline.search_summary() == "/gemm 3 of 280"
        assert timeline.lane.is_gpu
        await pilot.press("N")
        timeline = await settle(pilot)
        assert timeline.search_summary() == "/gemm 2 of 280"
        row = list(timeline.render_line(timeline.lane_index - timeline.scroll_offset.y))
        assert any(s.style and s.style.bgcolor == theme.HIT_STYLE.bgcolor for s in row)
        overview = list(app.overview.render_line(0))
        assert any(s.style and s.style.underline for s in overview)  # marked on the overview
        await pilot.press("escape")
        timeline = await settle(pilot)
        assert timeline.hits is None and "/gemm" not in (await drawn_screen(pilot))[0]


@pytest.mark.slow
@sync
async def test_regex_search_reaches_hidden_host_lanes() -> None:
    """The hit is what is selected: on the lane that shows it (an op inside another op
    opens its depth under its thread), under the cursor, in the details, copied by y."""
    normals = named(r"^aten::normal_$")
    app = TraceApp(TRACE)
    copied: list[str] = []
    app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        timeline = await settle(pilot)
        assert not timeline.show_host
        await pilot.press("slash")
        await type_in(pilot, "re:^aten::normal_$")
        await pilot.press("enter")
        timeline = await settle(pilot)
        assert len(timeline.hits) == len(normals) > 1
        cursor = timeline.data.extent.gpu_start_ns  # Enter: the first hit from the cursor
        later = [e for e in normals if round(Decimal(e["ts"]) * 1000) >= cursor]
        for event in later[:2]:
            start = round(Decimal(event["ts"]) * 1000)
            info = timeline.info
            assert isinstance(info, HostInfo) and info.name == "aten::normal_"
            assert (info.start_ns, info.tid) == (start, event["tid"])
            assert timeline.show_host and timeline.lane.kind == LANE_OPENED
            assert timeline.lane.label == f"└ cpu op {info.depth}" and info.depth > 0
            assert timeline.view.t0 <= start < timeline.view.t1
            assert "cpu_op  aten::normal_" in details_text(pilot)
            await pilot.press("y")
            assert copied[-1] == "aten::normal_"
            await pilot.press("n")
            timeline = await settle(pilot)
        await pilot.press("slash")
        await type_in(pilot, "re:(")  # a bad regular expression: said, not raised
        await pilot.press("enter")
        await settle(pilot)
        assert any("search:" in said for said in app.status.said)


def test_parse_time() -> None:
    assert parse_time("1.25s") == (None, 1_250_000_000)
    assert parse_time("+10ms") == ("+", 10_000_000)
    assert parse_time("850us") == parse_time("850 µs") == (None, 850_000)
    assert parse_time("-2ms") == ("-", 2_000_000)
    assert parse_time("12") is None and parse_time("step 3") is None


@pytest.mark.slow
@sync
async def test_at_goes_to_times_steps_and_ranges() -> None:
    app = TraceApp(TRACE)
    async with app.run_test(size=(120, 40)) as pilot:
        timeline = await settle(pilot)
        origin = timeline.data.extent.gpu_start_ns
        await pilot.press("at")
        await type_in(pilot, "100ms")
        await pilot.press("enter")
        timeline = await settle(pilot)
        assert timeline.cursor_t == origin + 100_000_000
        npc = timeline.view.npc
        await pilot.press("at", "ctrl+a", "ctrl+k")
        await type_in(pilot, "+10ms")
        await pilot.press("enter")
        timeline = await settle(pilot)
        assert timeline.cursor_t == origin + 110_000_000 and timeline.view.npc == npc
        await pilot.press("at", "ctrl+a", "ctrl+k")
        await type_in(pilot, "step 5")
        await pilot.press("enter")
        timeline = await settle(pilot)
        step = named(r"^ProfilerStep#5$")[0]
        start = round(Decimal(step["ts"]) * 1000)
        end = start + round(Decimal(step["dur"]) * 1000)
        assert timeline.cursor_t == start and timeline.lane.kind == LANE_NVTX
        assert timeline.view.t0 <= start and end <= timeline.view.t1  # zoomed to fit it
        assert timeline.view.t1 - timeline.view.t0 < 1.2 * (end - start)
        await pilot.press("at", "ctrl+a", "ctrl+k")
        await type_in(pilot, "dataloader")
        await pilot.press("enter")
        timeline = await settle(pilot)
        later = [e for e in named(r"^dataloader$") if round(Decimal(e["ts"]) * 1000) > start]
        assert timeline.cursor_t == round(Decimal(later[0]["ts"]) * 1000)
        await pilot.press("at", "ctrl+a", "ctrl+k")
        await type_in(pilot, "no such range")
        await pilot.press("enter")
        await settle(pilot)
        assert "no such time, step or range" in app.status.said[-1]


def test_at_step_finds_a_jax_step_trace_annotation() -> None:
    """jax.profiler.StepTraceAnnotation("train", step_num=i) is `train` with args.step_num
    in XLA's JSON: `@ step 3` goes to the fourth one, named 'train step 3' in the lanes."""
    from tui.loading.trace import open_trace
    from tui.sources.xla_logdir import open_profile_run
    from tui.views.timeline.goto import find

    path = open_profile_run(ROOT / "sample_traces" / "jax_train").files[0]
    steps = [e for e in chrome_events(path)
             if e.get("name") == "train" and (e.get("args") or {}).get("step_num") == "3"]
    assert len(steps) == 1
    with open_trace(path) as trace:
        origin = trace.con.execute("SELECT min(start_ns) FROM gpu_activities").fetchone()[0]
        place = find(trace.con, "step 3", origin, origin)
    assert place is not None and place.label == "train step 3"
    start = round(Decimal(str(steps[0]["ts"])) * 1000)
    assert (place.start_ns, place.end_ns) == (start, start + round(
        Decimal(str(steps[0]["dur"])) * 1000))
