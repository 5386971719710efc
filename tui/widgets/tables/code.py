"""The Code tab: GPU time by Python frame, from traces recorded with stacks.

Bottom-up, a table of every frame (file.py(line): func) with the GPU time of the work it
launched, inclusive (it or anything it called) and self; top-down (`v`), the call paths
as a tree that expands and collapses. Enter on a frame (K on a tree node) lists the
kernels it launched; Enter on a kernel shows its first launch on the timeline. An XLA
trace's frames are its HLO ops' lines of code, and its tree their op paths
(`jit(step)` › `transpose(jvp(LM))` › `Dense_0` › `dot_general`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import asdict

import pyarrow as pa
from rich.text import Text
from textual import on, work
from textual.widget import Widget
from textual.widgets import Tree
from textual.widgets._tree import TOGGLE_STYLE

from tui.analysis.code import (
    WHY_NO_FRAME,
    CodeNode,
    code_source,
    code_tree,
    frame_times,
    unattributed,
)
from tui.core.queries import load_query
from tui.core.safe_text import printable
from tui.core.units import format_ns
from tui.loading.trace import Trace
from tui.views.table_model import TableModel
from tui.widgets import keymap
from tui.widgets.details import USER_FRAME
from tui.widgets.tables import formats as f
from tui.widgets.tables import keys
from tui.widgets.tables.base import Column, SqlTable
from tui.widgets.tables.names import shorten
from tui.widgets.tables.panel import TablePanel
from tui.widgets.text import cut_middle

FRAME_COLUMNS = ("frame", "user_code", "gpu_ns", "self_gpu_ns", "launches", "self_launches")


def _yours(value: object) -> str:
    return "●" if value else ""


class CodeTree(Tree[CodeNode]):
    """The call paths that led to GPU work; a node's children are added when it opens.

    Enter (or → l) opens a node and steps into it, ← h closes it or goes to its parent,
    j/k move as ↓/↑; a frame too long for the width loses its middle, not its line."""

    BINDINGS = keymap.bindings(keys.TREE)
    DEFAULT_CSS = "CodeTree { height: 1fr; }"

    def __init__(self, **kwargs) -> None:
        super().__init__("GPU time by call path", **kwargs)
        self.show_root = False
        self.auto_expand = False  # Enter opens (action_open); it never closes a node
        self.children_of: dict[int | None, list[CodeNode]] = {}

    def fill(self, nodes: list[CodeNode], total_ns: int) -> None:
        self.total_ns = max(total_ns, 1)
        self.children_of = {}
        for node in nodes:
            self.children_of.setdefault(node.parent, []).append(node)
        self.clear()
        self._add_nodes(self.root, None)
        self.root.expand()

    def _add_nodes(self, parent, key: int | None) -> None:  # (DOMNode has _add_children)
        for node in self.children_of.get(key, ()):
            leaf = node.node not in self.children_of
            parent.add(self.label_of(node), data=node, allow_expand=not leaf)

    def label_of(self, node: CodeNode, room: int | None = None) -> Text:
        """`time share%  frame  (self …)`; the frame cut in its middle to `room` cells."""
        share = 100.0 * node.gpu_ns / self.total_ns
        out = Text(f"{format_ns(node.gpu_ns):>8} {share:5.1f}%  ")
        own = f"  (self {format_ns(node.self_gpu_ns)})" if node.self_gpu_ns else ""
        frame = printable(node.frame)
        if room is not None:
            frame = cut_middle(frame, max(12, room - len(out) - len(own)))
        out.append(frame, style=USER_FRAME if node.user_code else "")
        if own:
            out.append(own, style="dim")
        return out

    def render_label(self, node, base_style, style) -> Text:
        if node.data is None:
            return super().render_label(node, base_style, style)
        depth, up = 0, node.parent
        while up is not None and up is not self.root:
            depth, up = depth + 1, up.parent
        icon = len(self.ICON_NODE)
        room = self.scrollable_content_region.width - depth * self.guide_depth - icon - 1
        label = self.label_of(node.data, room)
        label.stylize(style)
        icon_text = self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE
        prefix = (icon_text, base_style + TOGGLE_STYLE) if node.allow_expand else ("", base_style)
        return Text.assemble(prefix, label)

    def on_focus(self) -> None:
        if self.cursor_line < 0 and self.root.children:  # Enter acts on the first path
            self.cursor_line = 0

    def action_open(self) -> None:
        node = self.cursor_node
        if node is None or not node.allow_expand:
            return
        if not node.is_expanded:
            node.expand()
        elif node.children:
            self.move_cursor(node.children[0])

    def action_close(self) -> None:
        node = self.cursor_node
        if node is None:
            return
        if node.is_expanded:
            node.collapse()
        elif node.parent is not None and node.parent is not self.root:
            self.move_cursor(node.parent)

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[CodeNode]) -> None:
        node = event.node
        if node.data is not None and not node.children:
            self._add_nodes(node, node.data.node)


class CodePanel(TablePanel):
    BINDINGS = [*keymap.bindings(keys.CODE)]

    def compose_tables(self) -> Iterable[Widget]:
        self.frames = SqlTable((
            Column("gpu_ns", "GPU time", 9, f.duration, numeric=True),
            Column("self_gpu_ns", "self", 9, f.duration, numeric=True),
            Column("launches", "launches", 8, f.count, numeric=True),
            Column("user_code", "yours", 5, _yours),
            Column("frame", "frame", 30, f.text, flexible=True, middle=True),
        ), hidden=("self_launches",), sort="gpu_ns", id="code-frames")
        self.paths = CodeTree(id="code-tree")
        self.kernels = SqlTable((
            Column("total_ns", "total", 9, f.duration, numeric=True),
            Column("count", "count", 7, f.count, numeric=True),
            Column("avg_ns", "avg", 8, f.duration, numeric=True),
            Column("short", "kernel", 24, f.text, flexible=True, full_key="name"),
        ), hidden=("first_id", "first_start_ns", "first_end_ns", "first_device",
                   "first_stream"), sort="total_ns", id="code-kernels")
        self.paths.display = False
        self.kernels.display = False
        self.frame: str | None = None  # whose kernels are listed
        self._back_to: Widget = self.frames
        self._building = threading.Lock()
        return (self.frames, self.paths, self.kernels)

    def build(self, trace: Trace) -> None:
        cur = trace.cursor()
        try:
            frames = frame_times(cur)
            nodes = code_tree(cur)
            self.rest = unattributed(cur)
            self.source = code_source(cur)
        finally:
            cur.close()
        self.nodes, self.total_ns = nodes, sum(n.gpu_ns for n in nodes if n.parent is None)
        rows = pa.Table.from_pylist([asdict(x) for x in frames], schema=pa.schema([
            ("frame", pa.string()), ("user_code", pa.bool_()), ("gpu_ns", pa.int64()),
            ("self_gpu_ns", pa.int64()), ("launches", pa.int64()),
            ("self_launches", pa.int64())]))
        self.frames_model = TableModel(trace, self.frames.keys, search=("frame",))
        self.frames_model.build("SELECT * FROM code_frame_rows", arrow={"code_frame_rows": rows})
        self.kernels_model = TableModel(trace, self.kernels.keys, search=("name",))
        self.origin = self.frames_model.rows("timeline_extent")[0][0] or 0

    def built(self) -> None:
        self.frames.attach(self.frames_model)
        self.paths.fill(self.nodes, self.total_ns)
        self.update_caption()

    def show(self, widget: Widget) -> None:
        for each in (self.frames, self.paths, self.kernels):
            each.display = each is widget
        widget.focus()
        # a tree filled while hidden drew nothing on a terminal until a key: draw it now
        self.call_after_refresh(widget.refresh)
        self.update_caption()

    def caption_text(self, table: SqlTable) -> Text:
        if self.kernels.display:
            return Text(f"kernels launched under {printable(self.frame or '')} · "
                        f"{table.caption()} · Enter: the first on the timeline · Backspace: back")
        if not getattr(self, "nodes", None) and self.frames.total == 0:
            trace = getattr(self, "trace", None)
            if trace is not None and trace.format == "xla":
                return Text("no line of code for this XLA profile's GPU work: the lines are "
                            "in its HLO, which the run's <host>.xplane.pb carries; open it, "
                            "or keep it beside the JSON")
            return Text("no Python frames launched GPU work in this trace: record with "
                        "torch.profiler.profile(with_stack=True)")
        source = getattr(self, "source", "")
        rest = getattr(self, "rest", None)
        note = ""
        if rest is not None and rest.launches and source == "hlo":
            note = (f" · {format_ns(rest.gpu_ns)} of GPU work ({rest.launches:,} activities) "
                    f"has no line ({WHY_NO_FRAME['hlo']})")
        elif rest is not None and rest.launches:
            note = (f" · {format_ns(rest.gpu_ns)} of GPU work ({rest.launches:,} launches) "
                    f"had none around its launch ({WHY_NO_FRAME.get(source, '')})")
        view = ("top-down: Enter opens a path, K its kernels" if self.paths.display
                else f"{table.caption()} · inclusive: it or what it called · Enter: kernels")
        what = {"nvtx": "NVTX range (this trace has no Python frames)",
                "cuda_backtrace": "frame (nsys' CUDA API backtraces), ● your code",
                "hlo": ("op path (XLA's HLO op metadata)" if self.paths.display else
                        "line of code (XLA's HLO op metadata), ● your code")}.get(
            source, "Python frame, ● your code")
        return Text(f"GPU time by {what} · {view} · v: "
                    f"{'table' if self.paths.display else 'tree'}{note}")

    # -- keys ----------------------------------------------------------------------------

    def action_view(self) -> None:
        """v: the top-down tree, or the bottom-up table."""
        self.show(self.frames if self.paths.display else self.paths)

    def action_back(self) -> None:
        if self.kernels.display:
            self.show(self._back_to)

    def action_kernels(self) -> None:
        """K: the kernels launched under the tree node (or table row) at the cursor."""
        if self.paths.display:
            node = self.paths.cursor_node
            if node is not None and node.data is not None:
                self.open_kernels(node.data.path or node.data.frame, ids=node.data.frame_ids,
                                  path=node.data.path)
        elif self.frames.display:
            row = self.frames.row_at(self.frames.cursor)
            if row is not None:
                self.open_kernels(row["frame"])

    def open_kernels(self, frame: str, ids: list[int] | None = None, path: str = "") -> None:
        self._back_to = self.paths if self.paths.display else self.frames
        self.frame = frame
        self.kernels.loading = True
        self.show(self.kernels)
        params: dict[str, object]
        if getattr(self, "source", "") == "hlo":  # an XLA trace: its ops' lines and paths
            query, params = "table_code_kernels_hlo", {
                "frame": "" if path else frame, "path": path}
        else:  # a tree node: exactly its path's frames; a table row: every frame of the name
            query, params = "table_code_kernels", {
                "name": "" if ids is not None else frame, "ids": ids or []}
        self._load_kernels(frame, query, params)

    @work(thread=True, exclusive=True, group="code-kernels")
    def _load_kernels(self, frame: str, query: str, params: dict) -> None:
        with self._building:
            if frame != self.frame:
                return
            names = [r[0] for r in self.kernels_model.rows(query, params)]
            short = pa.table({"name": pa.array(names, pa.string()),
                              "short": pa.array([shorten(n) for n in names], pa.string())})
            self.kernels_model.build(
                "SELECT k.*, s.short FROM (" + load_query(query).rstrip()
                .rstrip(";") + ") AS k JOIN code_kernel_short AS s USING (name)",
                params, arrow={"code_kernel_short": short})
        self.app.call_from_thread(self._kernels_built, frame)

    def _kernels_built(self, frame: str) -> None:
        if frame == self.frame:
            self.kernels.loading = False
            self.kernels.attach(self.kernels_model)
            if self.kernels.display:
                self.kernels.focus()

    @on(SqlTable.Selected)
    def _selected(self, event: SqlTable.Selected) -> None:
        event.stop()
        row = event.row
        if event.table is self.frames:
            self.open_kernels(row["frame"])
        elif event.table is self.kernels:
            self.jump(row["first_start_ns"], row["first_end_ns"], row["first_device"],
                      row["first_stream"], row["first_id"])
