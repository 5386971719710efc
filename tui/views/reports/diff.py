"""`tui diff`: the diff dict as Rich tables."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from tui.core.safe_text import plain
from tui.core.units import format_ns
from tui.runs.diff import kernel_label, signed_ns
from tui.views.reports.summary import _fit

TOP_KERNELS = 20
_STATUS_STYLE = {"faster": "green", "slower": "red", "appeared": "yellow",
                 "vanished": "cyan", "variant": "magenta", "same": "dim"}


def print_diff(diff: dict, console: Console) -> None:
    before, after = diff["before"], diff["after"]
    console.print(plain(f"before: {before['path']}  ({before['format']})", style="bold"))
    console.print(plain(f"after:  {after['path']}  ({after['format']})", style="bold"))
    for warning in diff["warnings"]:
        console.print(plain(f"warning: {warning}", style="yellow"))
    console.print(_totals_table(diff["totals"]))
    console.print(_kernels_table(diff["kernels"], diff["kernel_changes"], console.width))
    console.print(_gaps_table(diff["gaps"]))
    console.print("[bold]Findings[/bold]")
    for finding in diff["findings"]:
        console.print(plain(f"  • {finding.text}"))
    if "gate" in diff:
        gate = diff["gate"]
        verdict = "FAILED" if gate["failed"] else "passed"
        console.print(plain(
            f"gate {verdict}: after is {diff['time']['change_pct']:+.1f}% "
            f"({diff['time']['measure']}) against --fail-above {gate['fail_above_pct']:g}%",
            style="bold red" if gate["failed"] else "bold green"))


def _totals_table(rows: list[dict]) -> Table:
    table = Table(title="Totals", title_justify="left")
    for col in ("", "before", "after", "change", "%"):
        table.add_column(col, justify="left" if not col else "right", no_wrap=True)
    for r in rows:
        count = r["metric"] in ("kernels", "gaps")
        cell = (lambda v: f"{v:,}") if count else format_ns
        delta = f"{r['delta']:+,}" if count else signed_ns(r["delta"])
        pct = f"{r['change_pct']:+.1f}" if r["change_pct"] is not None else "-"
        table.add_row(r["label"], cell(r["before"]), cell(r["after"]), delta, pct)
    return table


def _kernels_table(kernels: list[dict], changes: dict, width: int) -> Table:
    shown = kernels[:TOP_KERNELS]
    counts = ", ".join(f"{n} {status}" for status, n in changes.items() if n)
    table = Table(title=f"Kernels by change in total time ({len(shown)} of {len(kernels)}: "
                  f"{counts})", title_justify="left")
    for col in ("status", "count", "total before → after", "change", "avg before → after"):
        table.add_column(col, justify="left" if col == "status" else "right", no_wrap=True)
    table.add_column("name", no_wrap=True)
    for k in shown:
        table.add_row(
            plain(k["status"], style=_STATUS_STYLE[k["status"]]),
            f"{k['before_count']:,} → {k['after_count']:,}",
            f"{format_ns(k['before_total_ns'])} → {format_ns(k['after_total_ns'])}",
            signed_ns(k["delta_ns"]),
            f"{format_ns(k['before_avg_ns'])} → {format_ns(k['after_avg_ns'])}",
            plain(_fit(kernel_label(k), max(20, width - 85))),
        )
    return table


def _gaps_table(gaps: dict) -> Table:
    table = Table(title=f"GPU-idle gaps over {format_ns(gaps['min_gap_ns'])} by class",
                  title_justify="left")
    for col in ("class", "before", "after"):
        table.add_column(col, justify="left" if col == "class" else "right", no_wrap=True)
    for kind in sorted(set(gaps["before"]) | set(gaps["after"])):
        b = gaps["before"].get(kind, {"count": 0, "total_ns": 0})
        a = gaps["after"].get(kind, {"count": 0, "total_ns": 0})
        table.add_row(kind, f"{b['count']} ({format_ns(b['total_ns'])})",
                      f"{a['count']} ({format_ns(a['total_ns'])})")
    if not gaps["before"] and not gaps["after"]:
        table.add_row("none", "0", "0")
    return table
