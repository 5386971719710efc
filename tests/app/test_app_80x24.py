"""The app as a newcomer meets it on an 80×24 terminal: who has the keys (Esc always gives
them to the timeline), a footer that keeps `?` and `q`, details that scroll, frames cut in
the middle, the Code tree's keys, notices that wrap, and what the distributed lanes show."""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stdout

from textual.widgets import TabPane

from tests.conftest import ROOT, sample
from tests.helpers.pilot import settle, sync
from tests.helpers.tables import ready
from tui.apps.trace_app import TraceApp
from tui.cli.main import main
from tui.views.timeline import GapInfo, KernelInfo
from tui.views.timeline.distributed_lanes import PathInfo
from tui.views.timeline.lanes import LANE_CRITICAL
from tui.widgets.details import DetailsPanel, DetailsScroll
from tui.widgets.key_footer import KeyFooter
from tui.widgets.tables import TAB_COUNT
from tui.widgets.tables.code import CodeTree
from tui.widgets.timeline import Timeline

SIZE = (80, 24)
STACKS = "stacks_training.pt.trace.json.gz"
GAPPY = "gappy_training.pt.trace.json.gz"


def screen_lines(app: TraceApp) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


def footer(app: TraceApp) -> list[str]:
    return app.query_one(KeyFooter).keys_shown()


async def press(pilot, *keys: str) -> Timeline:
    for key in keys:
        await pilot.press(key)
        await settle(pilot)
    return await settle(pilot)


@sync
async def test_esc_gives_the_timeline_the_keys_from_every_tab_and_its_keys_work_there() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=SIZE) as pilot:
        timeline = await settle(pilot)
        panes = list(app.query(TabPane).results())
        assert len(panes) == TAB_COUNT == 8
        for n in range(1, TAB_COUNT + 1):
            await press(pilot, str(n))
            assert app.focused is not timeline, f"tab {n} took no keys"
            assert "Esc" in footer(app) and "?" in footer(app) and "q" in footer(app)
            await press(pilot, "escape")
            assert app.focused is timeline, f"Esc on tab {n} left the keys with {app.focused}"
        # the timeline's own keys act on it from a table, which gives it the keys
        await press(pilot, "2")
        await press(pilot, "g")
        assert app.focused is timeline and isinstance(timeline.info, GapInfo)
        first = timeline.current_gap
        await press(pilot, "2", "b")
        assert app.focused is timeline and timeline.current_gap != first
        npc = timeline.view.npc
        await press(pilot, "3", "plus")
        assert app.focused is timeline and timeline.view.npc < npc
        # but a tab's own key stays its own: t on the Gaps tab asks for the threshold
        await press(pilot, "3", "t")
        assert app.focused is app.query_one("#gaps-panel").prompt
        assert not timeline.show_host
        await press(pilot, "escape")
        assert app.focused is timeline
        # @ from a tab asks on the timeline, and what is typed goes into the prompt
        await press(pilot, "7", "at", *"step 3", "enter")
        assert app.focused is timeline and timeline.goto_text == "step 3"
        assert app.status.said[-1].startswith("@ ProfilerStep#3 at ")


@sync
async def test_the_footer_at_80_columns_keeps_help_and_quit() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.pause()
        on_timeline = footer(app)
        assert on_timeline[-2:] == ["?", "q"] and "@" in on_timeline and "g" in on_timeline
        assert "Esc" not in on_timeline  # Esc there clears the selection; it goes nowhere
        await press(pilot, "2")
        await ready(pilot, "kernel-names")
        await pilot.pause()
        assert footer(app)[-3:] == ["Esc", "?", "q"]
        last = screen_lines(app)[-1]
        assert "Esc timeline" in last and "? help" in last and last.rstrip().endswith("q quit")
        # wider, more keys fit, the same three last
        await pilot.resize_terminal(200, 40)
        await settle(pilot)
        await pilot.pause()
        wide = [key for key in footer(app) if key != "^p"]  # the palette's, on the right
        assert wide[-3:] == ["Esc", "?", "q"] and len(wide) > 9


@sync
async def test_the_details_of_a_long_kernel_name_scroll_to_its_launch_and_stack() -> None:
    app = TraceApp(sample(STACKS))
    async with app.run_test(size=SIZE) as pilot:
        timeline = await settle(pilot)
        info = timeline.info  # the cursor opens on the trace's first kernel
        assert isinstance(info, KernelInfo) and len(info.name) > 400, info
        assert not any(line.startswith(" where") for line in screen_lines(app))
        await press(pilot, "1")
        scroll = app.query_one(DetailsScroll)
        assert app.focused is scroll and scroll.max_scroll_y > 0
        await press(pilot, "pagedown")
        assert scroll.scroll_y > 0
        await press(pilot, "end")
        shown = screen_lines(app)
        for key in ("where", "launch", "stack"):
            assert any(line.startswith(f" {key} ") for line in shown), (key, shown)
        # the library frames between the user's: a count, and f opens them
        await press(pilot, "escape", "slash", *"fmha", "enter", "1")
        text = str(app.query_one(DetailsPanel).render())
        hidden = sum(int(n) for n in re.findall(r"… (\d+) library frames", text))
        assert hidden > 0 and "(f: every frame)" in text
        await press(pilot, "f")
        full = str(app.query_one(DetailsPanel).render())
        assert "library frames" not in full
        assert full.count("\n") == text.count("\n") + hidden - text.count("library frames")
        await press(pilot, "escape")
        assert app.focused is timeline


@sync
async def test_a_long_caption_under_a_table_scrolls() -> None:
    """The Findings tab's caption (the diagnosis, the finding under the cursor) is longer
    than its rows at 80x24: Tab from the table reaches it and the arrows scroll it."""
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "6")
        table = await ready(pilot, "finding-table")
        assert app.focused is table
        box = app.query_one("#findings-panel .caption-box")
        assert box.max_scroll_y > 0
        await press(pilot, "tab", "down", "down")
        assert app.focused is box and box.scroll_y == min(2, box.max_scroll_y)
        await press(pilot, "escape")
        assert app.focused is app.timeline


@sync
async def test_the_code_tab_keeps_line_numbers_and_its_tree_moves_with_j_k_and_enter() -> None:
    app = TraceApp(sample(STACKS))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "7")
        frames = await ready(pilot, "code-frames")
        shown = [line for line in screen_lines(app) if ".py(" in line]
        assert len(shown) >= 5
        for line in shown:  # cut in the middle: the file's line and the function stay
            assert re.search(r"\.py\(\d+\): \S", line), line
        assert any("…" in line for line in shown)
        assert frames.total and frames.total > 5
        await press(pilot, "v")
        tree = app.query_one(CodeTree)
        assert app.focused is tree
        root = tree.cursor_node
        assert root is not None and root.allow_expand and not root.is_expanded
        await press(pilot, "enter")
        assert root.is_expanded  # Enter opens
        await press(pilot, "enter")
        assert tree.cursor_node is root.children[0] and root.is_expanded  # again: steps in
        await press(pilot, "k")
        assert tree.cursor_node is root
        await press(pilot, "j")
        assert tree.cursor_node is root.children[0]
        await press(pilot, "h", "h")
        assert tree.cursor_node is root and not root.is_expanded


@sync
async def test_a_long_notice_wraps_at_80_columns_instead_of_being_cut() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "at", *"no such place", "enter")
        said = app.status.said[-1]
        assert said.startswith("@ no such place: no such time") and len(said) > 80
        top = " ".join(line.strip() for line in screen_lines(app)[:3])
        assert said in top, (said, top)


@sync
async def test_after_a_sort_the_kernels_caption_names_the_kernel_under_the_cursor() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        table = await ready(pilot, "kernel-names")
        for _ in range(3):
            await press(pilot, "s")
            await ready(pilot, "kernel-names")
            caption = str(app.query_one("#kernels-panel").caption.render())
            row = table.row_at(table.cursor)
            assert row is not None and f"kernel: {row['name'][:40]}" in caption.replace(
                "\n", " "), caption


@sync
async def test_the_critical_path_lane_describes_its_segment() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=SIZE) as pilot:
        timeline = await settle(pilot)
        await press(pilot, "p")
        assert timeline.lanes[0].kind == LANE_CRITICAL
        timeline.lane_index = 0
        await press(pilot, "right", "right")
        info = timeline.info
        assert isinstance(info, PathInfo), info
        text = str(app.query_one(DetailsPanel).render())
        assert text.startswith("path ") and "critical path" in text
        assert "nothing under the cursor" not in text


@sync
async def test_a_selected_gap_stays_whole_in_view_when_the_terminal_narrows() -> None:
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=(120, 24)) as pilot:
        timeline = await settle(pilot)
        await press(pilot, "b")
        gap = timeline.current_gap
        assert gap is not None and timeline.view.t1 >= gap.end_ns
        await pilot.resize_terminal(80, 24)
        timeline = await settle(pilot)
        view = timeline.view
        assert view.t0 <= gap.start_ns and gap.end_ns <= view.t1, (view, gap)


@sync
async def test_a_gap_s_before_and_after_are_named_as_the_summary_names_them() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        main(["--summary", "--json", str(sample(GAPPY))])
    gaps = json.loads(out.getvalue())["gaps"]
    app = TraceApp(sample(GAPPY))
    async with app.run_test(size=SIZE) as pilot:
        timeline = await settle(pilot)
        await press(pilot, "b")
        info = timeline.info
        assert isinstance(info, GapInfo)
        origin = timeline.data.extent.gpu_start_ns
        [gap] = [g for g in gaps if g["duration_ns"] == info.duration_ns]
        text = str(app.query_one(DetailsPanel).render())
        lines = dict(line.split(None, 1) for line in text.splitlines())
        assert lines["before"] == gap["before"] and lines["after"] == gap["after"]
        assert info.start_ns - origin >= 0


def test_the_readme_and_the_docs_count_the_tabs_there_are() -> None:
    for page in (ROOT / "README.md", ROOT / "docs" / "app.md"):
        text = page.read_text()
        assert f"`1 … {TAB_COUNT}`" in text and "1 … 9" not in text, page
