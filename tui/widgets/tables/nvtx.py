"""The NVTX tab: per range name (NVTX ranges, PyTorch user annotations) how many, how
long, and how much GPU time ran inside them. Enter shows the longest one."""

from __future__ import annotations

from collections.abc import Iterable

import pyarrow as pa
from rich.text import Text
from textual import on
from textual.widget import Widget

from tui.analysis.gpu_metrics import table_columns
from tui.core.queries import load_query
from tui.loading.trace import Trace
from tui.views.table_model import TableModel
from tui.widgets.tables import formats as f
from tui.widgets.tables.base import Column, SqlTable
from tui.widgets.tables.kernels import METRICS
from tui.widgets.tables.panel import TablePanel

RANGES = (
    Column("total_ns", "total", 8, f.duration, numeric=True),
    Column("count", "count", 7, f.count, numeric=True),
    Column("avg_ns", "avg", 8, f.duration, numeric=True),
    Column("max_ns", "max", 8, f.duration, numeric=True),
    Column("gpu_ns", "GPU inside", 10, f.duration, numeric=True),
    Column("gpu_pct", "GPU %", 6, f.percent, numeric=True),
    Column("kernels", "kernels", 8, f.count, numeric=True),
    Column("name", "range", 20, f.text, flexible=True),
)
# with GPU metrics: the means inside each name's instances (as the Kernels tab's)
RANGES_METRICS = (*RANGES[:-1], *METRICS, RANGES[-1])


class NvtxPanel(TablePanel):
    def compose_tables(self) -> Iterable[Widget]:
        self.ranges = SqlTable(RANGES, hidden=("longest_start_ns", "longest_end_ns"),
                               sort="total_ns", id="nvtx-table")
        return (self.ranges,)

    def build(self, trace: Trace) -> None:
        cur = trace.cursor()
        try:
            metrics = table_columns(cur, ranges=True)
        finally:
            cur.close()
        if metrics:
            self.ranges.use_columns(RANGES_METRICS)
        names = list(metrics)
        range_metrics = pa.table({
            "name": pa.array(names, pa.string()),
            "sm_pct": pa.array([metrics[n][0] for n in names], pa.float64()),
            "tensor_pct": pa.array([metrics[n][1] for n in names], pa.float64()),
            "dram_pct": pa.array([metrics[n][2] for n in names], pa.float64()),
        })
        self.model = TableModel(trace, self.ranges.keys, search=("name",))
        self.model.build(load_query("table_nvtx"), arrow={"range_metrics": range_metrics})

    def built(self) -> None:
        self.ranges.attach(self.model)

    @on(SqlTable.Selected)
    def _selected(self, event: SqlTable.Selected) -> None:
        event.stop()
        self.jump(event.row["longest_start_ns"], event.row["longest_end_ns"])

    def caption_text(self, table: SqlTable) -> Text:
        if table.total == 0 and not table.table_query.text:
            return Text("no NVTX ranges or user annotations in this trace")
        return Text(f"{table.caption()} · GPU inside: time some kernel ran during the range"
                    " · Enter: the longest one on the timeline")
