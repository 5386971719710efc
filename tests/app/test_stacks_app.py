"""The Code and Memory tabs, the memory lanes and the launch stack driven through Pilot on
the stacks sample trace, checked against a json reading of its events
(tests/helpers/stacks_oracle.py)."""

from __future__ import annotations

import pytest

from tests.helpers.oracle import chrome_events
from tests.helpers.paths import sample
from tests.helpers.pilot import SIZE, settle, sync, tab_key
from tests.helpers.stacks_oracle import gpu_time_by_frame, memory_peaks
from tests.helpers.tables import all_rows, ready, shown
from tui.apps.trace_app import TraceApp
from tui.core.units import format_ns
from tui.widgets.tables.code import CodePanel, CodeTree
from tui.widgets.tables.memory import MemoryPanel

pytestmark = pytest.mark.slow

STACKS = "stacks_training.pt.trace.json.gz"


@sync
async def test_code_tab_frames_tree_and_kernels() -> None:
    expected = gpu_time_by_frame(sample(STACKS))
    app = TraceApp(sample(STACKS))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(tab_key(app, CodePanel))
        table = await ready(pilot, "code-frames")
        assert app.focused is table
        rows = all_rows(table)
        assert {r["frame"]: (r["gpu_ns"], r["self_gpu_ns"], r["launches"]) for r in rows} \
            == expected
        assert format_ns(rows[0]["gpu_ns"]) in shown(table, 1)
        # Enter: the kernels launched under the top frame, adding up to its GPU time
        frame = rows[0]
        await pilot.press("enter")
        kernels = await ready(pilot, "code-kernels")
        listed = all_rows(kernels)
        assert sum(k["total_ns"] for k in listed) == frame["gpu_ns"]
        assert sum(k["count"] for k in listed) == frame["launches"]
        await pilot.press("backspace")
        await pilot.pause()
        assert table.display and not kernels.display
        # v: the top-down tree; its one root is the script, opened on its callees
        await pilot.press("v")
        await pilot.pause()
        tree = app.query_one(CodeTree)
        assert tree.display and app.focused is tree
        roots = tree.root.children
        assert [str(r.label) for r in roots] == ["   14 ms 100.0%  gen_stacks.py(95): <module>"]
        roots[0].expand()
        await pilot.pause()
        child = roots[0].children[0]
        assert child.data is not None and child.data.frame == "gen_stacks.py(78): record"
        assert child.data.gpu_ns == expected["gen_stacks.py(78): record"][0]
        caption = str(app.query_one(CodePanel).caption.render())
        assert "(408 launches) had none around its launch" in caption


@sync
async def test_memory_tab_allocations_and_peaks() -> None:
    events = [e for e in chrome_events(sample(STACKS))
              if e.get("ph") == "i" and e.get("name") == "[memory]"]
    gpu = [e["args"] for e in events if e["args"]["Device Type"] == 1]
    app = TraceApp(sample(STACKS))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(tab_key(app, MemoryPanel))
        table = await ready(pilot, "memory-allocations")
        rows = all_rows(table)
        gpu_rows = [r for r in rows if r["device_type"] == "gpu"]
        # every GPU allocation but the device's first event, whose size is unknown
        assert len(gpu_rows) == sum(1 for a in gpu[1:] if a["Bytes"] > 0)
        assert rows[0]["bytes"] == max(a["Bytes"] for a in gpu) == 64 << 20
        assert rows[0]["op"] == "aten::sum" and rows[0]["lifetime_ns"] > 0
        peak = memory_peaks(sample(STACKS))[(1, 0)][0]
        caption = str(app.query_one(MemoryPanel).caption.render())
        assert f"GPU 0 peak {peak / (1 << 20):.1f} MiB" in caption


@sync
async def test_memory_lane_peak_and_details() -> None:
    peak, peak_ns, reserved = memory_peaks(sample(STACKS))[(1, 0)]
    app = TraceApp(sample(STACKS))
    async with app.run_test(size=SIZE) as pilot:
        timeline = await settle(pilot)
        labels = [lane.label for lane in timeline.lanes]
        assert labels[-2:] == ["mem GPU0", "rsv GPU0"]
        for _ in range(labels.index("mem GPU0")):
            await pilot.press("down")
        timeline.cursor_t = peak_ns
        timeline.cursor_changed()
        timeline = await settle(pilot)
        frame = timeline.frame
        assert frame is not None
        cells = frame.cells(timeline.lane.key)
        x = frame.view.x_of(peak_ns)
        assert cells[x].top_kind == "memory_peak"  # the peak's column is marked
        assert cells[x].busy == pytest.approx(peak / max(peak, reserved))
        assert [c.top_kind for c in cells].count("memory_peak") == 1
        text = str(app.details.render())
        assert f"{peak / (1 << 20):.1f} MiB allocated (100% of its peak" in text
        assert "cpu op  aten::sum" in text


async def details_of_first_launch(app: TraceApp, pilot, timeline,  # noqa: ANN001
                                  name_like: str) -> tuple[str, list[str]]:
    """Show the details of the first kernel named LIKE `name_like` that has a launch
    frame: the details' text, and its lines from the stack's on."""
    gpu_id = app.trace.con.execute(
        "SELECT gpu_id FROM launches l JOIN gpu_activities g ON g.id = l.gpu_id "
        "WHERE frame_id IS NOT NULL AND g.name LIKE ? ORDER BY gpu_id LIMIT 1", [name_like]
    ).fetchone()[0]
    app.details.show(timeline.data.kernel_info(gpu_id), 0)
    await pilot.pause()
    text = str(app.details.render())
    lines = text.splitlines()
    return text, lines[[line.startswith("stack") for line in lines].index(True):]


@sync
async def test_kernel_details_show_the_launch_stack() -> None:
    app = TraceApp(sample(STACKS))
    async with app.run_test(size=SIZE) as pilot:
        timeline = await settle(pilot)
        text, stack = await details_of_first_launch(app, pilot, timeline, "fmha%")
        assert stack[0].endswith("<built-in function scaled_dot_product_attention>")
        assert [s.strip() for s in stack if "gen_stacks.py" in s] == [
            "gen_stacks.py(31): forward", "gen_stacks.py(41): step",
            "gen_stacks.py(78): record", "gen_stacks.py(95): <module>"]
        assert "… 4 library frames" in text


@sync
async def test_backtrace_frames_in_the_code_tab_and_details() -> None:
    """An nsys report with CUDA API backtraces: the Code tab lists native frames and says
    so; a kernel's details show its call's backtrace."""
    path = sample("backtraces_training.sqlite")
    app = TraceApp(path)
    async with app.run_test(size=SIZE) as pilot:
        timeline = await settle(pilot)
        _, lines = await details_of_first_launch(app, pilot, timeline, "%layer_norm%")
        stack = [s.strip() for s in lines]
        # all library frames: the innermost four, a count, the outermost
        assert stack[0] == "stack   cudaLaunchKernel (libcudart.so.13)"
        assert stack[2].startswith("at::native::layer_norm_cuda(")
        assert stack[4].startswith("… 8 library frames")
        assert stack[5].startswith("torch::autograd::THPVariable_layer_norm(")
        await pilot.press(tab_key(app, CodePanel))
        table = await ready(pilot, "code-frames")
        caption = str(app.query_one(CodePanel).caption.render())
        assert "GPU time by frame (nsys' CUDA API backtraces)" in caption
        assert "(96 launches) had none around its launch (nsys took no backtrace" in caption
        rows = all_rows(table)
        assert rows[0]["frame"].startswith("torch::autograd::")
