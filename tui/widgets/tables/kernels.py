"""The Kernels tab: statistics per kernel name (or per category), and each name's launches.

Three tables, one shown at a time: names → Enter → that kernel's instances → Enter jumps
the timeline there; `c` switches to categories (Enter on one lists its names). `n`/`N`
step through the instances on the timeline while the keys stay here; `d` opens a
kernel's Nsight Compute results, as Enter on the timeline does.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import pyarrow as pa
from rich.text import Text
from textual import on, work
from textual.widget import Widget

from tui.analysis.flops import kernel_name_flops
from tui.analysis.gpu_metrics import table_columns
from tui.core.categories import categorize
from tui.core.queries import load_query
from tui.loading.trace import Trace
from tui.views.table_model import TableModel
from tui.widgets import keymap
from tui.widgets.messages import DrillDown
from tui.widgets.tables import formats as f
from tui.widgets.tables import keys
from tui.widgets.tables.base import Column, SqlTable
from tui.widgets.tables.names import shorten
from tui.widgets.tables.panel import TablePanel, full_name_line

STATS = (
    Column("percent", "%", 5, f.percent, numeric=True),
    Column("total_ns", "total", 8, f.duration, numeric=True),
    Column("count", "count", 8, f.count, numeric=True),
    Column("avg_ns", "avg", 8, f.duration, numeric=True),
    Column("median_ns", "median", 8, f.duration, numeric=True),
    Column("min_ns", "min", 8, f.duration, numeric=True),
    Column("max_ns", "max", 8, f.duration, numeric=True),
)
NAMES = (*STATS, Column("category", "category", 13, f.text),
         Column("short", "kernel", 24, f.text, flexible=True, full_key="name"))
# with GPU metrics (nsys --gpu-metrics-devices): the means inside each name's instances
METRICS = (Column("sm_pct", "SM %", 5, f.percent, numeric=True),
           Column("tensor_pct", "TC %", 5, f.percent, numeric=True),
           Column("dram_pct", "DRAM %", 6, f.percent, numeric=True))
NAMES_METRICS = (*STATS[:3], *METRICS, *STATS[3:], *NAMES[len(STATS):])
# where the trace tells FLOPs: the achieved rate over each name's instances, and MFU
FLOPS = (Column("flops_per_s", "FLOP/s", 6, f.flop_rate, numeric=True),
         Column("mfu_pct", "MFU %", 5, f.percent, numeric=True))
CATEGORIES = (*STATS, Column("names", "names", 6, f.count, numeric=True),
              Column("category", "category", 16, f.text, flexible=True))


def _percent(share: float | None) -> float | None:
    return None if share is None else 100 * share


class KernelPanel(TablePanel):
    BINDINGS = [*keymap.bindings(keys.KERNELS)]

    def compose_tables(self) -> Iterable[Widget]:
        self.names = SqlTable(NAMES, sort="total_ns", id="kernel-names")
        self.categories = SqlTable(CATEGORIES, sort="total_ns", id="kernel-categories")
        self.instances = SqlTable((
            Column("start_ns", "start", 14, self.ms, numeric=True),
            Column("duration_ns", "took", 8, f.duration, numeric=True),
            Column("device", "GPU", 3, f.text, numeric=True),
            Column("stream", "stream", 6, f.text, numeric=True),
            Column("grid", "grid", 13, f.text),
            Column("block", "block", 11, f.text),
            Column("registers_per_thread", "regs", 4, f.text, numeric=True),
            Column("launch_name", "launched by", 16, f.text, flexible=True),
        ), hidden=("id", "end_ns"), sort="start_ns", descending=False, id="kernel-instances")
        self.categories.display = False
        self.instances.display = False
        self.kernel: str | None = None  # whose instances are listed
        self._step_pending: int | None = None  # n/N asked before the instances were in
        self._jump_on_highlight = False
        self._from_category = False
        self._building = threading.Lock()
        return (self.names, self.categories, self.instances)

    # -- models --------------------------------------------------------------------------

    def build(self, trace: Trace) -> None:
        cur = trace.cursor()
        try:
            metrics = table_columns(cur)
            flops = kernel_name_flops(cur)
        finally:
            cur.close()
        columns = NAMES_METRICS if metrics else NAMES
        if flops:
            columns = (*columns[:3], *FLOPS, *columns[3:])
        if metrics or flops:
            self.names.use_columns(columns)
        self.names_model = TableModel(trace, self.names.keys, search=("name", "category"))
        names = [row[0] for row in self.names_model.rows("table_kernel_names")]
        means = [metrics.get(n, (None, None, None)) for n in names]
        kernel_names = {"kernel_names": pa.table({
            "name": pa.array(names, pa.string()),
            "short": pa.array([shorten(n) for n in names], pa.string()),
            "category": pa.array([categorize(n) for n in names], pa.string()),
            "sm_pct": pa.array([m[0] for m in means], pa.float64()),
            "tensor_pct": pa.array([m[1] for m in means], pa.float64()),
            "dram_pct": pa.array([m[2] for m in means], pa.float64()),
            "flops_per_s": pa.array([flops[n].flops_per_s if n in flops else None
                                     for n in names], pa.float64()),
            "mfu_pct": pa.array([_percent(flops[n].mfu) if n in flops else None
                                 for n in names], pa.float64()),
        })}
        self.names_model.build(load_query("table_kernels"), arrow=kernel_names)
        self.categories_model = TableModel(trace, self.categories.keys, search=("category",))
        self.categories_model.build(load_query("table_kernel_categories"), arrow=kernel_names)
        self.instances_model = TableModel(trace, self.instances.keys,
                                          search=("launch_name", "grid", "block"))
        self.origin = self.names_model.rows("timeline_extent")[0][0] or 0

    def built(self) -> None:
        self.names.attach(self.names_model)
        self.categories.attach(self.categories_model)

    def show(self, table: SqlTable) -> None:
        for each in (self.names, self.categories, self.instances):
            each.display = each is table
        table.focus()
        self.update_caption()

    def open_instances(self, name: str) -> None:
        self.kernel = name
        self.instances.loading = True
        self.show(self.instances)
        self._load_instances(name)

    @work(thread=True, exclusive=True, group="instances")
    def _load_instances(self, name: str) -> None:
        with self._building:  # a later pick waits, then wins; an earlier one gives way
            if name != self.kernel:
                return
            self.instances_model.build(load_query("table_instances"), {"name": name})
        self.app.call_from_thread(self._instances_built, name)

    def _instances_built(self, name: str) -> None:
        if name == self.kernel:
            self.instances.loading = False  # a loading widget cannot take the focus
            self.instances.attach(self.instances_model)
            if self.instances.display:
                self.instances.focus()

    # -- keys ----------------------------------------------------------------------------

    @on(SqlTable.Selected)
    def _selected(self, event: SqlTable.Selected) -> None:
        event.stop()
        row = event.row
        if event.table is self.names:
            self.open_instances(row["name"])
        elif event.table is self.categories:
            self._from_category = True
            self.names.set_query(replace(self.names.table_query, exact=(("category",
                                                                   row["category"]),)))
            self.show(self.names)
        else:
            self._jump_to(row, focus=True)

    def _jump_to(self, row: dict[str, Any], focus: bool) -> None:
        self.jump(row["start_ns"], row["end_ns"], row["device"], row["stream"], row["id"],
                  focus=focus)

    def action_instance(self, step: int) -> None:
        """n/N: the next/previous launch of this kernel, shown on the timeline."""
        if not self.instances.display:
            row = self.names.row_at(self.names.cursor) if self.names.display else None
            if row is None:
                self.notify("pick a kernel name first", timeout=2, markup=False)
                return
            self._step_pending = step
            self.open_instances(row["name"])
            return
        table = self.instances
        target = table.cursor + step
        if not table.total or not 0 <= target < table.total:
            self.notify("no more instances this way", timeout=2, markup=False)
            return
        self._jump_on_highlight = True
        table.move_to(target)

    @on(SqlTable.Changed)
    def _instances_counted(self, event: SqlTable.Changed) -> None:
        table = self.instances
        if event.table is table and self._step_pending is not None and table.total:
            first = self._step_pending > 0
            self._step_pending = None
            self._jump_on_highlight = True
            table.move_to(0 if first else table.total - 1)
            table._announced = ()  # announce even if the cursor was already there

    @on(SqlTable.Highlighted)
    def _highlighted(self, event: SqlTable.Highlighted) -> None:
        if event.table is self.instances and self._jump_on_highlight and event.row:
            self._jump_on_highlight = False
            self._jump_to(event.row, focus=False)

    def action_drill_down(self) -> None:
        """d: the Nsight Compute results of the launch (or the kernel name) under the cursor."""
        if self.instances.display:
            row = self.instances.row_at(self.instances.cursor)
            if row is not None and self.kernel is not None:
                self.post_message(DrillDown(row["id"], self.kernel))
            return
        row = self.names.row_at(self.names.cursor) if self.names.display else None
        if row is None:
            self.notify("pick a kernel name first", timeout=2, markup=False)
            return
        self._drill_down_first(row["name"])

    @work(thread=True, group="drill-down")
    def _drill_down_first(self, name: str) -> None:
        """The name's first launch (Nsight Compute matches a launch: name, grid, block)."""
        found = self.instances_model.rows("table_first_launch", {"name": name})
        if found:
            self.post_message(DrillDown(found[0][0], name))

    def action_categories(self) -> None:
        self._from_category = False
        self.show(self.names if self.categories.display else self.categories)

    def action_back(self) -> None:
        if self.instances.display:
            self.show(self.names)
        elif self.names.display and self.names.table_query.exact:
            self.names.set_query(replace(self.names.table_query, exact=()))
            self.show(self.categories if self._from_category else self.names)

    # -- caption -------------------------------------------------------------------------

    def caption_text(self, table: SqlTable) -> Text:
        out = Text(table.caption())
        if table is self.names and table.table_query.exact:
            out.append(f" · category {table.table_query.exact[0][1]} (Backspace: all)")
        if table is self.categories:
            out.append(" · Enter: its kernels · c: by name")
            return out
        if table is self.instances:
            out.append(" · Enter: show on the timeline · n/N: next/previous · Backspace: back")
            name = self.kernel
        else:
            row = table.row_at(table.cursor)
            name = row["name"] if row else None
            out.append(" · Enter: its launches · c: categories")
        out.append("\n")
        out.append_text(full_name_line("kernel", name))
        return out
