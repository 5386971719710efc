"""A search hit is selected: its lane shown and in view (opened at its depth when no lane
shows it), the cursor on it, the details describing it, `y` copying its name, the window
zoomed so that it is at least a column wide; `n`/`N` the same for the next and previous
hit in time. Driven at 80×24 on real traces; the hits read from the files with json."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from tests.helpers import xla_oracle
from tests.helpers.oracle import chrome_events
from tests.helpers.paths import SAMPLES, sample
from tests.helpers.pilot import details_text, settle, sync, type_in
from tests.helpers.stacks_oracle import frame_name
from tui.apps.trace_app import TraceApp
from tui.views.timeline import HostInfo, KernelInfo
from tui.views.timeline.lanes import LANE_GPU, LANE_OPENED
from tui.widgets.timeline import Timeline

pytestmark = pytest.mark.slow

SIZE = (80, 24)
JAX = next((SAMPLES / "jax_train" / "plugins" / "profile").iterdir()) / "perfetto_trace.json.gz"


def hits_in(events: list[dict], pattern: str) -> list[tuple[int, int, str]]:
    """(start_ns, duration_ns, name) of the complete events whose name matches, in time
    order."""
    found = [(xla_oracle.ns(Decimal(str(e["ts"]))), xla_oracle.ns(Decimal(str(e["dur"]))),
              frame_name(e["name"]) if e.get("cat") == "python_function" else e["name"])
             for e in events
             if e.get("ph") == "X" and re.search(pattern, e.get("name", ""), re.I)]
    return sorted(found)


def check_selected(pilot, timeline: Timeline, hit: tuple[int, int, str],
                   copied: list[str]) -> None:
    start, duration, name = hit
    info = timeline.info
    assert isinstance(info, HostInfo | KernelInfo)
    assert (info.start_ns, info.duration_ns, info.name) == (start, duration, name)
    assert timeline.cursor_t == start
    # its lane is in view, and the window shows it at least a column wide
    top = timeline.scroll_offset.y
    assert top <= timeline.lane_index < top + timeline.scrollable_content_region.height
    assert timeline.view.t0 <= start < timeline.view.t1 and timeline.view.npc <= duration
    assert timeline.frame is not None and timeline.frame.view == timeline.view
    assert name[:40] in details_text(pilot).replace("\n", "")
    copied.clear()
    timeline.app.action_copy()
    assert copied == [name]


@sync
async def test_hits_in_a_python_stack_are_selected_one_after_another() -> None:
    path = sample("stacks_training.pt.trace.json.gz")
    expected = hits_in(chrome_events(path), "layer_norm")
    app = TraceApp(path)
    copied: list[str] = []
    app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        timeline = await settle(pilot)
        later = [h for h in expected if h[0] >= timeline.cursor_t]  # Enter: from the cursor
        await pilot.press("slash")
        await type_in(pilot, "layer_norm")
        await pilot.press("enter")
        labels = []
        for i, hit in enumerate(later[:5]):
            if i:
                await pilot.press("n")
            timeline = await settle(pilot)
            check_selected(pilot, timeline, hit, copied)
            labels.append(timeline.lane.label)
            assert timeline.search_summary() == \
                f"/layer_norm {expected.index(hit) + 1} of {len(expected)}"
        # frames 12 and 13 deep, an op under those frames and one inside it (the thread's
        # lane shows its outermost frame over them), then the kernel on its stream
        assert labels == ["└ python 12", "└ python 13", "└ cpu op 0", "└ cpu op 1", "GPU0 s7"]
        await pilot.press("N")
        timeline = await settle(pilot)
        check_selected(pilot, timeline, later[3], copied)
        await pilot.press("escape")  # the opened lane closes with the search
        timeline = await settle(pilot)
        assert not any(lane.kind == LANE_OPENED for lane in timeline.lanes)


@sync
async def test_a_jax_hit_on_the_gpu_keeps_its_lane_in_view() -> None:
    expected = hits_in(xla_oracle.read_events(JAX), "gemm")
    app = TraceApp(JAX)
    copied: list[str] = []
    app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await type_in(pilot, "gemm")
        await pilot.press("enter", "n")
        timeline = await settle(pilot)
        check_selected(pilot, timeline, expected[1], copied)  # a launch on the host
        assert timeline.lane.label == "└ CUDA 0" and timeline.show_host
        await pilot.press("end", "N")  # the last: a kernel, its GPU lane above the host's
        timeline = await settle(pilot)
        check_selected(pilot, timeline, expected[-1], copied)
        assert timeline.lane.kind == LANE_GPU and timeline.lane.label == "GPU0 s14"



@sync
async def test_hits_that_start_together_are_stepped_through_one_by_one() -> None:
    """JAX's tracer opens `trace`, `start_trace` and `__enter__` at the same ns: n
    selects each in turn (not the next start time), and the count follows."""
    expected = hits_in(xla_oracle.read_events(JAX), r"^\$(contextlib|profiler)\.py")
    together = [h for h in expected if h[0] == expected[0][0]]
    assert len(together) == 3
    app = TraceApp(JAX)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("H")  # the cursor half a screen left: before them all
        timeline = await settle(pilot)
        assert timeline.cursor_t < expected[0][0]
        await pilot.press("slash")
        await type_in(pilot, "re:^(contextlib|profiler)")
        await pilot.press("enter")
        seen = []
        for i in range(3):
            if i:
                await pilot.press("n")
            timeline = await settle(pilot)
            info = timeline.info
            assert isinstance(info, HostInfo) and info.start_ns == expected[0][0]
            assert timeline.search_summary().endswith(f" {i + 1} of {len(expected)}")
            seen.append(("$" + info.name, info.depth))
        assert sorted(name for name, _ in seen) == sorted(name for *_, name in together)
        assert [depth for _, depth in seen] == sorted(depth for _, depth in seen)
        await pilot.press("N")
        timeline = await settle(pilot)
        assert ("$" + timeline.info.name, timeline.info.depth) == seen[1]


@sync
async def test_a_search_that_found_nothing_is_offered_again_and_esc_keeps_it() -> None:
    app = TraceApp(sample("multistream.pt.trace.json.gz"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await type_in(pilot, "nothing")
        await pilot.press("enter")
        timeline = await settle(pilot)
        assert timeline.search_summary() == "/nothing 0 of 0"
        await pilot.press("n")
        assert app.status.said[-1] == "no name matches nothing"
        await pilot.press("slash")  # the last search, to edit; Esc: as it was
        await settle(pilot)
        assert app.prompt.value == "nothing"
        await type_in(pilot, "x")
        await pilot.press("escape")
        timeline = await settle(pilot)
        assert timeline.search_summary() == "/nothing 0 of 0"
