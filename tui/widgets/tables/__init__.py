"""The tables below the timeline: kernels, gaps, NVTX ranges, copies, findings, code, memory (one
module each)."""

from __future__ import annotations

from collections.abc import Iterator

from textual.widget import Widget


def table_panels() -> Iterator[tuple[str, Widget]]:
    """(tab title, panel) for each table tab, in tab order."""
    from tui.widgets.tables.code import CodePanel
    from tui.widgets.tables.copies import CopyPanel
    from tui.widgets.tables.findings import FindingPanel
    from tui.widgets.tables.gaps import GapPanel
    from tui.widgets.tables.kernels import KernelPanel
    from tui.widgets.tables.memory import MemoryPanel
    from tui.widgets.tables.nvtx import NvtxPanel

    yield "Kernels", KernelPanel(id="kernels-panel")
    yield "Gaps", GapPanel(id="gaps-panel")
    yield "NVTX", NvtxPanel(id="nvtx-panel")
    yield "Copies", CopyPanel(id="copies-panel")
    yield "Findings", FindingPanel(id="findings-panel")
    yield "Code", CodePanel(id="code-panel")
    yield "Memory", MemoryPanel(id="memory-panel")
