"""What the host was doing during one stretch (a gap), full screen: the lines of its
details (tui/views/host_text.py) and, where the trace has CPU samples, their call tree,
top-down or bottom-up, for the launching thread or every thread. Worked out in a worker."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.analysis.host_samples import HostActivity, TreeNode, range_host_activity, sample_tree
from tui.core.safe_text import printable
from tui.core.units import format_ns
from tui.views.host_text import host_lines

Run = Callable[[Callable[[Any], Any]], Any]  # TableModel.run: work on a private connection
# Tree nodes under this share of the samples are left out
MIN_SHARE = 0.005
MAX_INDENT = 30
LISTED = 40  # Python frames listed by own time


class HostScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q", "dismiss", "close"),
        Binding("v", "flip", "top-down / bottom-up"),
        Binding("a", "threads", "the launching thread / every thread"),
    ]
    DEFAULT_CSS = """
    HostScreen { align: center middle; }
    HostScreen > VerticalScroll {
        width: 100%; height: 100%; border: round $accent; padding: 0 1; background: $surface;
    }
    """

    def __init__(self, run: Run, stretch: tuple[int, int], what: str) -> None:
        super().__init__()
        self._run, self._stretch, self._what = run, stretch, what
        self.bottom_up = False
        self.every_thread = False

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(Text("working out what the host was doing…", style="dim"),
                         id="host-text")

    def on_mount(self) -> None:
        self._load()

    def action_flip(self) -> None:
        self.bottom_up = not self.bottom_up
        self._load()

    def action_threads(self) -> None:
        self.every_thread = not self.every_thread
        self._load()

    @work(thread=True, exclusive=True, group="host-screen")
    def _load(self) -> None:
        bottom_up, every = self.bottom_up, self.every_thread

        def work_out(con: Any) -> tuple[HostActivity | None, list[TreeNode]]:
            host = range_host_activity(con, [self._stretch])
            if host is None or host.unit != "samples":
                return host, []
            return host, sample_tree(con, [self._stretch], None if every else host.thread,
                                     bottom_up=bottom_up, min_share=MIN_SHARE)

        host, nodes = self._run(work_out)
        self.app.call_from_thread(self._show, host, nodes, bottom_up, every)

    def _show(self, host: HostActivity | None, nodes: list[TreeNode], bottom_up: bool,
              every: bool) -> None:
        out = Text(no_wrap=False, overflow="fold")
        if host is None:
            out.append("the trace recorded nothing of the host's work here (no CPU samples, "
                       "Python frames or CPU ops)", style="dim")
        else:
            for line in host_lines(host.as_dict(), self._what):
                out.append(printable(line) + "\n")
        if host is not None and host.unit == "ns":  # no samples: the frames' own time, listed
            view = host.all_threads if every else host.launching
            whose = "every thread" if every else "the launching thread"
            out.append(f"\nown time by Python frame · {whose} · a: threads · Esc: close\n",
                       style="bold")
            for share in view.by_function[:LISTED]:
                out.append(f"{format_ns(share.value):>9} {share.pct:5.1f}%  ", style="dim")
                out.append(printable(share.name) + "\n")
        if nodes:
            threads = host.all_threads if every and host else host.launching if host else None
            total = (threads.total if threads else 0) or 1
            shape = ("bottom-up: leaf functions, then their callers" if bottom_up
                     else "call tree, top-down")
            out.append(f"\n{shape} · {'every thread' if every else 'the launching thread'}"
                       " · v: flip · a: threads · Esc: close\n", style="bold")
            for node in nodes:
                out.append(f"{node.samples:>7,} {100 * node.samples / total:5.1f}%  ",
                           style="dim")
                out.append(" " * min(node.depth, MAX_INDENT) + printable(node.frame) + "\n")
        self.query_one("#host-text", Static).update(out)
