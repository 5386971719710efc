"""The tables below the timeline: kernels, gaps, NVTX ranges, copies, findings, code, memory (one
module each)."""

from __future__ import annotations

from collections.abc import Iterator

from textual.widget import Widget

# the tabs below the timeline: "Details" first, then the tables' (keys 1 … TAB_COUNT)
TAB_TITLES = ("Details", "Kernels", "Gaps", "NVTX", "Copies", "Findings", "Code", "Memory")
TAB_COUNT = len(TAB_TITLES)


def table_panels() -> Iterator[tuple[str, Widget]]:
    """(tab title, panel) for each table tab, in tab order."""
    from tui.widgets.tables.code import CodePanel
    from tui.widgets.tables.copies import CopyPanel
    from tui.widgets.tables.findings import FindingPanel
    from tui.widgets.tables.gaps import GapPanel
    from tui.widgets.tables.kernels import KernelPanel
    from tui.widgets.tables.memory import MemoryPanel
    from tui.widgets.tables.nvtx import NvtxPanel

    panels = (KernelPanel(id="kernels-panel"), GapPanel(id="gaps-panel"),
              NvtxPanel(id="nvtx-panel"), CopyPanel(id="copies-panel"),
              FindingPanel(id="findings-panel"), CodePanel(id="code-panel"),
              MemoryPanel(id="memory-panel"))
    yield from zip(TAB_TITLES[1:], panels, strict=True)
