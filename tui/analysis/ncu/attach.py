"""`tui TRACE --ncu REPORT`: an Nsight Compute report joined to a trace's kernels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from tui.analysis.ncu.match import match_ncu_kernels
from tui.analysis.ncu.summary import ncu_summary, render_ncu_summary
from tui.core.db import connect
from tui.core.safe_text import plain
from tui.core.units import format_ns
from tui.loading.trace import Trace
from tui.sources.ncu.load import load_ncu


def ncu_for_trace(trace: Trace, report: Path) -> dict[str, Any]:
    """The report's summary plus, per profiled launch, the trace kernels it matches."""
    con = connect()
    load_ncu(report, con)
    summary = ncu_summary(con)
    # The trace's database may be read-only (a cache file): the report stays in its own.
    summary["matches"] = [m.to_dict() for m in match_ncu_kernels(con, trace.con)]
    summary.setdefault("source", {})["path"] = str(report)
    con.close()
    return summary


def render_ncu_section(section: dict[str, Any], console: Console) -> None:
    render_ncu_summary(section, console)
    table = Table(title="Profiled kernels in the trace", title_justify="left")
    for heading in ("#", "kernel", "match", "launches", "trace total", "note"):
        table.add_column(heading, justify="right" if heading in ("#", "launches") else "left")
    for m in section["matches"]:
        launches = sum(c["launches"] for c in m["candidates"])
        total = sum(c["total_duration_ns"] or 0 for c in m["candidates"])
        table.add_row(
            str(m["launch_id"]), plain(m["ncu_name"][:60]),
            m["status"] + (f" ({m['matched_on']})" if m["matched_on"] else ""),
            f"{launches:,}" if launches else "-", format_ns(total) if total else "-",
            plain(m["note"]),
        )
    console.print(table)
