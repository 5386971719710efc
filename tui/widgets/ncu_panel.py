"""The drill-down for one profiled launch: what it is, the verdict and next step, where it
is in the trace, then its figures beside NVIDIA's own rule findings.

Side by side on a wide panel, one above the other on a narrow one (the `-narrow` class).
The text comes from `ncu_text`, which keeps input text plain.
"""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from tui.analysis.ncu.match import KernelMatch
from tui.views.timeline.lookup import StackFrame
from tui.widgets import ncu_text
from tui.widgets.details import stack_text

NARROW = 110  # below this many columns the findings go under the figures


class NcuPanel(VerticalScroll, can_focus=True):
    """`show(entry, match, source)`: entry is one launch of `ncu_summary`'s "kernels"."""

    DEFAULT_CSS = """
    NcuPanel { height: 1fr; padding: 0 1; }
    NcuPanel:focus { background-tint: $foreground 3%; }
    NcuPanel #ncu-head { height: auto; margin-bottom: 1; }
    NcuPanel #ncu-body { height: auto; }
    NcuPanel #ncu-figures { width: 3fr; height: auto; }
    NcuPanel #ncu-findings { width: 2fr; height: auto; padding-left: 2; }
    NcuPanel.-narrow #ncu-body { layout: vertical; }
    NcuPanel.-narrow #ncu-figures { width: 100%; }
    NcuPanel.-narrow #ncu-findings { width: 100%; padding-left: 0; margin-top: 1; }
    """  # -narrow is set in on_resize: a widget has no breakpoints of its own

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id)
        self.launch: dict[str, Any] | None = None
        self.match: KernelMatch | None = None
        self._parts: tuple[RenderableType, ...] = ()

    def compose(self) -> ComposeResult:
        yield Static(Text("no launch selected", style="dim"), id="ncu-head")
        with Horizontal(id="ncu-body"):
            yield Static(id="ncu-figures")
            yield Static(id="ncu-findings")

    def on_resize(self) -> None:
        self.set_class(self.size.width < NARROW, "-narrow")

    def show(self, launch: dict[str, Any] | None, match: KernelMatch | None,
             source: dict[str, Any], stack: tuple[StackFrame, ...] = ()) -> None:
        self.launch, self.match = launch, match
        if launch is None:
            self._update(Text("no launch selected", style="dim"), Text(), Text())
            return
        head = ncu_text.header(launch, source)
        head.append("\n\n")
        head.append_text(ncu_text.verdict(launch))
        if match is not None:
            head.append("\n")
            head.append_text(ncu_text.match(match))
        if stack:  # the Python stack of the trace kernel it matched (its first launch)
            head.append("\n")
            head.append_text(stack_text(stack))
        self._update(head, ncu_text.figures(launch, source.get("format", "")),
                     ncu_text.findings(launch))
        self.scroll_home(animate=False)

    def _update(self, *parts: RenderableType) -> None:
        self._parts = parts
        for name, part in zip(("#ncu-head", "#ncu-figures", "#ncu-findings"), parts,
                              strict=True):
            self.query_one(name, Static).update(part)

    def plain_text(self, width: int = 200) -> str:
        """Everything the panel shows, as plain text (for tests)."""
        console = Console(width=width, record=True, color_system=None, file=io.StringIO())
        for part in self._parts:
            console.print(part)
        return console.export_text()
