"""The Findings tab: every finding of the trace (Nsight Systems' rules and tui's own, as
`--summary` prints them), most costly first, with the diagnosis (what bounds the run, and
where the idle time went) heading its caption. Enter on a finding lists its rows; Enter on
a row shows it on the timeline; Backspace goes back to the findings. A new gap threshold (the Gaps
tab's `t`) builds it again."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import pyarrow as pa
from rich.text import Text
from textual import on
from textual.widget import Widget

from tui.analysis.diagnosis import Diagnosis, breakdown_text
from tui.analysis.finding import Finding
from tui.analysis.findings import trace_findings
from tui.analysis.step_times import steps_text
from tui.core.queries import load_query
from tui.core.safe_text import plain
from tui.core.units import format_bytes, format_ns
from tui.loading.trace import Trace
from tui.views.table_model import TableModel
from tui.widgets.tables import formats as f
from tui.widgets.tables.base import Column, SqlTable
from tui.widgets.tables.panel import TablePanel, full_name_line

ROW_FIELDS = ("device", "stream", "pid", "tid")


class FindingPanel(TablePanel):
    # room for the diagnosis above the caption and the finding under the cursor
    DEFAULT_CSS = "FindingPanel > .caption-box { max-height: 8; }"

    def compose_tables(self) -> Iterable[Widget]:
        self.findings = SqlTable((
            Column("cost_ns", "cost", 8, f.duration, numeric=True),
            Column("share", "% span", 6, f.percent, numeric=True),
            Column("severity", "severity", 8, f.text),
            Column("rule", "rule", 17, f.text),
            Column("rows", "rows", 6, f.count, numeric=True),
            Column("text", "finding", 30, f.text, flexible=True),
        ), hidden=("finding",), sort="cost_ns", id="finding-table")
        self.rows = SqlTable((
            Column("rank", "#", 5, f.count, numeric=True),
            Column("duration_ns", "took", 8, f.duration, numeric=True),
            Column("start_ns", "at", 14, self.ms, numeric=True),
            Column("device", "GPU", 3, f.text, numeric=True),
            Column("stream", "stream", 6, f.text, numeric=True),
            Column("tid", "tid", 7, f.text, numeric=True),
            Column("api", "call", 22, f.text),
            Column("detail", "detail", 20, f.text, flexible=True),
        ), hidden=("finding", "end_ns", "pid"), sort="rank", descending=False,
            id="finding-rows")
        self.rows.display = False
        self.found: list[Finding] = []
        self.not_checked: dict[str, str] = {}
        self.diagnosis: Diagnosis | None = None
        self.host_lines: list[str] = []
        self.opened: int | None = None  # the finding whose rows are listed
        return (self.findings, self.rows)

    def build(self, trace: Trace) -> None:
        self.model = TableModel(trace, self.findings.keys, search=("rule", "text"))
        found, skipped, span_ns, told = self.model.run(
            lambda con: trace_findings(con, self.min_gap_ns))
        self.found, self.not_checked, self.diagnosis = found, skipped, told.diagnosis
        # where the host was, as --summary says it beside the sentence
        self.host_lines = [f"{lead}, {where}" for lead, where in (
            ("while the GPU idled", told.host_where), ("in the set-up", told.setup_where))
            if where]
        self.model.build(load_query("table_findings"), arrow={"findings": pa.table({
            "finding": pa.array(range(len(found)), pa.int64()),
            "cost_ns": pa.array([x.cost_ns for x in found], pa.int64()),
            "share": pa.array([100 * x.cost_ns / span_ns if x.cost_ns is not None and span_ns
                               else None for x in found], pa.float64()),
            "severity": pa.array([x.severity for x in found], pa.string()),
            "rule": pa.array([x.rule for x in found], pa.string()),
            "rows": pa.array([len(x.rows) for x in found], pa.int64()),
            "text": pa.array([x.text for x in found], pa.string()),
        })})
        self.rows_model = TableModel(trace, self.rows.keys, search=("api", "detail"))
        self.rows_model.build(load_query("table_finding_rows"),
                              arrow={"finding_rows": _rows_table(found)})
        self.origin = self.model.rows("timeline_extent")[0][0] or 0

    def built(self) -> None:
        self.findings.attach(self.model)
        self.rows.attach(self.rows_model)
        if self.rows.display:  # built again for another gap threshold: other findings
            self.opened = None
            self.show(self.findings)

    def show(self, table: SqlTable) -> None:
        for each in (self.findings, self.rows):
            each.display = each is table
        table.focus()
        self.update_caption()

    @on(SqlTable.Selected)
    def _selected(self, event: SqlTable.Selected) -> None:
        event.stop()
        row = event.row
        if event.table is self.findings:
            if not row["rows"]:
                self.notify("this finding has no rows to show", timeout=2, markup=False)
                return
            self.opened = row["finding"]
            self.rows.set_query(replace(self.rows.table_query,
                                        exact=(("finding", row["finding"]),)))
            self.show(self.rows)
        elif row["start_ns"] is None:
            self.notify("a kernel name, not a time: see the Kernels tab", timeout=2,
                        markup=False)
        else:
            # a host-side row (a blocking call) on its thread's lane; GPU work on its stream's
            thread = ((row["pid"], row["tid"]) if row["device"] is None
                      and row["pid"] is not None and row["tid"] is not None else None)
            self.jump(row["start_ns"], row["end_ns"], row["device"], row["stream"],
                      thread=thread)

    def action_back(self) -> None:
        if self.rows.display:
            self.show(self.findings)

    def caption_text(self, table: SqlTable) -> Text:
        out = Text()
        if self.diagnosis is not None and table is self.findings:
            out.append_text(plain(self.diagnosis.text, style="bold"))
            time = self.diagnosis.time
            if time is not None:
                out.append_text(plain(f" ({breakdown_text(time)})"))
                window_ns = time.window.duration_ns if time.window else time.span_ns
                steps = steps_text(time.steps, window_ns)
                if steps:  # the window's steps, the slow ones named
                    out.append_text(plain(f" {steps}"))
                setup = time.window.setup_text() if time.window else None
                if setup:  # the start-up before the window, told apart
                    out.append_text(plain(f" {setup}"))
            for line in self.host_lines:
                out.append_text(plain(f"\n{line}", style="dim"))
            out.append("\n")
        out.append(table.caption())
        if table is self.rows:
            out.append(" · Enter: show on the timeline · Backspace: the findings")
            finding = self.found[self.opened] if self.opened is not None else None
        else:
            out.append(" · Enter: its rows")
            row = table.row_at(table.cursor) if table.total else None
            finding = self.found[row["finding"]] if row is not None else None
            if self.not_checked:
                out.append(" · not checked: " + ", ".join(self.not_checked))
        if finding is not None:
            out.append("\n")
            out.append_text(full_name_line(finding.rule, finding.text))
        return out


def _rows_table(found: list[Finding]) -> pa.Table:
    """Every row of every finding, in one table: its finding, its rank in the rule's order,
    where it is (times, GPU, stream, process, thread, call) and the rest as one text."""
    columns: dict[str, list[Any]] = {k: [] for k in (
        "finding", "rank", "start_ns", "end_ns", "duration_ns", *ROW_FIELDS, "api", "detail")}
    for number, finding in enumerate(found):
        for rank, row in enumerate(finding.rows, start=1):
            start, duration = row.get("start_ns"), row.get("duration_ns")
            columns["finding"].append(number)
            columns["rank"].append(rank)
            columns["start_ns"].append(start)
            columns["duration_ns"].append(duration)
            columns["end_ns"].append(start + duration if start is not None and duration
                                     is not None else None)
            for key in ROW_FIELDS:
                columns[key].append(row.get(key))
            columns["api"].append(row.get("api"))
            columns["detail"].append(detail(row))
    types = {"api": pa.string(), "detail": pa.string()}
    return pa.table({k: pa.array(v, types.get(k, pa.int64())) for k, v in columns.items()})


def detail(row: dict[str, Any]) -> str:
    """What a row says beyond where it is: memory kinds and bytes, the call's own time,
    the share in use, a gap's class and cause, a kernel's name, a slow step's excess."""
    parts = []
    if row.get("src_kind") or row.get("dst_kind"):
        parts.append(f"{row.get('src_kind') or '?'} → {row.get('dst_kind') or '?'}")
    if row.get("memory_kind"):
        parts.append(str(row["memory_kind"]))
    if row.get("bytes") is not None:
        parts.append(format_bytes(row["bytes"]))
    if row.get("api_duration_ns") is not None:
        parts.append(f"call took {format_ns(row['api_duration_ns'])}")
    if row.get("in_use_pct") is not None:
        parts.append(f"{row['in_use_pct']:.1f}% in use")
    if row.get("busy_ns") is not None:
        parts.append(f"busy {format_ns(row['busy_ns'])}")
    if row.get("cause"):
        parts.append(f"{row.get('kind')}: {row['cause']}")
    if row.get("beyond_typical_ns") is not None:  # a slow step
        parts.append(f"{row['name']}: {format_ns(row['beyond_typical_ns'])} over a typical "
                     "step")
    elif row.get("name"):
        parts.append(f"{row['name']} ×{row.get('count', '?')}")
    return ", ".join(parts)
