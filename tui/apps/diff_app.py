"""`tui diff BEFORE AFTER` on a terminal: the diff dict (tui.runs.diff.diff_traces)
in an app: the totals, the kernels by change (sortable, filtered by status), findings.

The diff is computed before the app starts (by tui.cli.commands.diff), so that its exit
codes stay those of the text output."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Static

from tui.core.safe_text import plain
from tui.core.units import format_ns
from tui.widgets import keymap
from tui.widgets.diff_tables import KernelDiffTable, TotalsTable
from tui.widgets.key_footer import KeyFooter


def header_text(diff: dict) -> Text:
    before, after, time = diff["before"], diff["after"], diff["time"]
    text = plain(f"before: {before['path']}  ({before['format']})", style="bold")
    text.append("\n")
    text.append_text(plain(f"after:  {after['path']}  ({after['format']})", style="bold"))
    pct, verdict = time["change_pct"], time["verdict"]
    said = ("as fast as before (within noise)" if verdict == "same"
            else f"{verdict} ({pct:+.1f}%)")
    text.append(f"\n{time['measure']}: {format_ns(time['before_ns'])} → "
                f"{format_ns(time['after_ns'])}, after is {said}",
                style={"slower": "bold red", "faster": "bold green"}.get(verdict, "bold"))
    for warning in diff["warnings"]:
        text.append("\n")
        text.append_text(plain(f"warning: {warning}", style="yellow"))
    return text


def findings_text(diff: dict) -> Text:
    text = Text("Findings", style="bold")
    for finding in diff["findings"]:
        text.append("\n  • ")
        text.append_text(plain(finding.text))
    return text


class DiffApp(App[int]):
    TITLE = "tui diff"
    BINDINGS: ClassVar[list[BindingType]] = [*keymap.bindings(keymap.DIFF)]
    # header; totals beside the findings; the kernels take the rest of the screen
    DEFAULT_CSS = """
    #diff-header { padding: 0 1; margin-bottom: 1; }
    #diff-top { height: auto; max-height: 13; }
    #diff-totals { width: auto; height: auto; }
    #diff-findings-box { width: 1fr; height: 100%; padding: 0 1 0 2; }
    .diff-title { padding: 0 1; text-style: bold; }
    #kernels-title { margin-top: 1; }
    """

    def __init__(self, diff: dict) -> None:
        super().__init__()
        self.diff = diff

    def compose(self) -> ComposeResult:
        yield Static(header_text(self.diff), id="diff-header")
        with Horizontal(id="diff-top"):
            with Vertical(id="diff-totals"):
                yield Static("Totals", classes="diff-title")
                yield TotalsTable(id="totals")
            with VerticalScroll(id="diff-findings-box"):
                yield Static(findings_text(self.diff), id="diff-findings")
        yield Static("", id="kernels-title", classes="diff-title")
        yield KernelDiffTable(id="kernels")
        yield KeyFooter()

    @property
    def kernels(self) -> KernelDiffTable:
        return self.query_one(KernelDiffTable)

    def on_mount(self) -> None:
        self.query_one(TotalsTable).show(self.diff["totals"])
        self.kernels.show(self.diff["kernels"])
        self._title()
        self.kernels.focus()

    def _title(self) -> None:
        changes = ", ".join(f"{n} {status}" for status, n in
                            self.diff["kernel_changes"].items() if n)
        self.query_one("#kernels-title", Static).update(
            plain(f"{self.kernels.describe()}  —  {changes}"))

    def action_sort(self) -> None:
        self.kernels.next_sort()
        self._title()

    def action_filter(self) -> None:
        self.kernels.next_filter()
        self._title()
