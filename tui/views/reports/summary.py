"""`tui --summary`: the summary dict printed as Rich tables for a terminal or a pipe."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.table import Table

from tui.core.safe_text import plain
from tui.core.units import format_ns, format_offset
from tui.views.host_text import host_lines
from tui.views.reports.distributed import print_distributed
from tui.views.reports.flops import print_flops
from tui.views.reports.gpu_metrics import print_gpu_metrics
from tui.views.reports.stacks import print_code_and_memory
from tui.views.reports.tensor_cores import print_tensor_cores

TOP_KERNELS = 15
TOP_GAPS = 10
TOP_FINDING_ROWS = 3


def print_summary(summary: Mapping[str, Any], console: Console) -> None:
    source = summary["source"]
    console.print(plain(f"{source['path']}  ({source['format']})", style="bold"))
    console.print(plain(  # rank and world size come from the trace: plain text
        f"span {format_ns(source['span_ns'])}"
        + (f", rank {source['rank']} of {source.get('world_size', '?')}" if "rank" in source
           else "")
        + (f" — {source['cache_note']}" if source.get("cache_note")
           else " — from cache" if source.get("from_cache") else "")
    ))
    for warning in summary["warnings"]:
        console.print(plain(f"warning: {warning}", style="yellow"))
    if summary.get("diagnosis"):
        print_diagnosis(summary["diagnosis"], console)
    console.print(_devices_table(summary["devices"]))
    if summary["kernels"]:
        console.print(_kernels_table(summary["kernels"], console.width))
    if summary.get("xla_ops"):
        console.print(_xla_modules_table(summary.get("xla_modules") or []))
        console.print(_xla_ops_table(summary["xla_ops"], console.width))
    print_flops(summary.get("flops"), console)
    print_gpu_metrics(summary.get("gpu_metrics"), console,
                      "NVTX" if str(source["format"]).startswith("nsys") else "range")
    print_tensor_cores(summary, console)
    console.print(_gaps_table(summary["gaps"], source.get("origin_ns"), source["min_gap_ns"],
                              text_width=max(30, console.width - 40)))
    if summary.get("host_samples"):
        console.print("[bold]While the GPU waited[/bold] (in the gaps above, every device)")
        for line in host_lines(summary["host_samples"]):
            console.print(plain(line))
    print_distributed(summary.get("ranks") or [], console, source["min_gap_ns"])
    if summary["findings"]:
        console.print("[bold]Findings[/bold] (most costly first)")
        for finding in summary["findings"]:
            console.print(plain(f"  • {finding['text']}"))
            if finding["rows"]:
                console.print(plain(f"      {rows_line(finding['rows'])}", style="dim"))
    for rule, why in summary.get("rules_not_checked", {}).items():
        console.print(plain(f"  not checked: {rule}: {why}", style="dim"))
    print_code_and_memory(summary, console)
    if "ncu" in summary:
        from tui.analysis.ncu.attach import render_ncu_section

        render_ncu_section(summary["ncu"], console)


def print_diagnosis(diagnosis: dict, console: Console, indent: str = "") -> None:
    """The diagnosis sentence, then where each device's idle time went (the causes add up
    to it); per device when there are several."""
    console.print(plain(f"{indent}{diagnosis['text']}", style="bold"))
    if diagnosis.get("host_where"):
        console.print(plain(f"{indent}  while the GPU idled, {diagnosis['host_where']}"))
    if diagnosis.get("shared_text"):  # several processes' work on one GPU at once
        console.print(plain(f"{indent}  {diagnosis['shared_text']}"))
    for entry in diagnosis.get("devices") or [diagnosis]:
        line = idle_line(entry)
        if line:
            who = (f"GPU {entry['figures']['device']}: " if diagnosis.get("devices")
                   and entry.get("figures") else "")
            console.print(plain(f"{indent}  {who}{line}", style="dim"))
    if diagnosis.get("steps_text"):  # the window's steps, the slow ones named
        console.print(plain(f"{indent}  {diagnosis['steps_text']}", style="dim"))
    if diagnosis.get("setup_text"):  # the start-up before the window, told apart
        console.print(plain(f"{indent}  {diagnosis['setup_text']}", style="dim"))
    if diagnosis.get("setup_where"):
        console.print(plain(f"{indent}  in the set-up, {diagnosis['setup_where']}", style="dim"))


def idle_line(entry: dict) -> str:
    """'idle 209 ms of 224 ms: launch 205 ms, host 4.02 ms' from a diagnosis' JSON."""
    figures = entry.get("figures")
    if not figures:
        return ""
    causes = sorted(((ns, key.removesuffix("_ns")) for key, ns in
                     entry["idle_by_cause"].items() if ns), reverse=True)
    return (f"idle {format_ns(entry['idle_ns'])} of {format_ns(figures['span_ns'])}"
            + (": " + ", ".join(f"{cause} {format_ns(ns)}" for ns, cause in causes)
               if causes else ""))


def rows_line(rows: list[dict], shown: int = TOP_FINDING_ROWS) -> str:
    """A finding's rows in one line: how many, and the first few (in the rule's order)."""
    parts = [_row_text(r) for r in rows[:shown]]
    more = "; …" if len(rows) > shown else ""
    return f"{len(rows):,} row{'s' if len(rows) != 1 else ''}: " + "; ".join(parts) + more


def _row_text(row: dict) -> str:
    if row.get("start_ns") is None:
        return f"{_fit(str(row.get('name', '?')), 50)} ×{row.get('count', '?')}"
    where = [_fit(str(row["name"]), 50) if row.get("beyond_typical_ns") is not None
             else None,  # a slow step's name
             f"GPU {row['device']}" if row.get("device") is not None else None,
             f"stream {row['stream']}" if row.get("stream") is not None else None,
             f"tid {row['tid']}" if row.get("tid") is not None else None,
             row.get("api"),
             f"{row['in_use_pct']:.1f}% in use" if row.get("in_use_pct") is not None else None]
    detail = ", ".join(w for w in where if w)
    at = (format_offset(row["offset_ns"]) if row.get("offset_ns") is not None
          else f"{row['start_ns']} ns")
    return (f"{format_ns(row['duration_ns'])} at {at}"
            + (f" ({detail})" if detail else ""))


def _devices_table(devices: list[dict]) -> Table:
    table = Table(title="GPUs", title_justify="left")
    for col in ("id", "name", "span", "busy", "busy %"):
        table.add_column(col, justify="left" if col == "name" else "right")
    for d in devices:
        pct = 100.0 * d["busy_ns"] / d["span_ns"] if d["span_ns"] else 0.0
        table.add_row(str(d["id"]), plain(d["name"]), format_ns(d["span_ns"]),
                      format_ns(d["busy_ns"]), f"{pct:.1f}")
    return table


def _fit(text: str, width: int) -> str:
    """Cut long names (C++ templates) so the numeric columns keep their room."""
    return text if len(text) <= width else text[: width - 1] + "…"


def _kernels_table(kernels: list[dict], width: int) -> Table:
    shown = kernels[:TOP_KERNELS]
    title = f"Top kernels ({len(shown)} of {len(kernels)} names, by total time)"
    table = Table(title=title, title_justify="left")
    # (heading, cell width, value) — min/max only where the terminal has room for them
    columns = [
        ("%", 5, lambda k: f"{k['percent']:.1f}"),
        ("total", 8, lambda k: format_ns(k["total_ns"])),
        ("count", 7, lambda k: f"{k['count']:,}"),
        ("avg", 8, lambda k: format_ns(k["avg_ns"])),
        ("median", 8, lambda k: format_ns(k["median_ns"])),
    ]
    if width >= 120:
        columns += [("min", 8, lambda k: format_ns(k["min_ns"])),
                    ("max", 8, lambda k: format_ns(k["max_ns"]))]
    for heading, cell, _ in columns:
        table.add_column(heading, justify="right", no_wrap=True, min_width=cell)
    table.add_column("name", no_wrap=True)
    name_width = max(20, width - sum(c[1] + 3 for c in columns) - 4)
    for k in shown:
        table.add_row(*(value(k) for _, _, value in columns), plain(_fit(k["name"], name_width)))
    return table


def _xla_modules_table(modules: list[dict]) -> Table:
    table = Table(title="XLA modules (GPU time)", title_justify="left")
    for col in ("%", "total", "ops", "kernels", "module"):
        table.add_column(col, justify="left" if col == "module" else "right", no_wrap=True)
    for m in modules[:TOP_KERNELS]:
        table.add_row(f"{m['percent']:.1f}", format_ns(m["total_ns"]), f"{m['ops']:,}",
                      f"{m['kernels']:,}", plain(m["hlo_module"]))
    return table


def _xla_ops_table(ops: list[dict], width: int) -> Table:
    shown = ops[:TOP_KERNELS]
    table = Table(title=f"XLA ops ({len(shown)} of {len(ops)}, by GPU time)",
                  title_justify="left")
    for col in ("%", "total", "count", "kernels"):
        table.add_column(col, justify="right", no_wrap=True)
    table.add_column("module", no_wrap=True)
    table.add_column("op", no_wrap=True)
    table.add_column("line", no_wrap=True)
    table.add_column("op path", no_wrap=True)
    room = max(16, (width - 40) // 4)
    for o in shown:
        # an op placed by the order of a command buffer among several it could be: a guess
        op = o["hlo_op"] + (" ?" if o.get("matched") == "guess" else "")
        table.add_row(f"{o['percent']:.1f}", format_ns(o["total_ns"]), f"{o['count']:,}",
                      f"{o['kernels']:,}", plain(_fit(o["hlo_module"] or "", room)),
                      plain(_fit(op, room)), plain(_fit(_short_source(o.get("source")), room)),
                      plain(_fit(o.get("op_name") or o["tf_op"] or "", room)))
    return table


def _short_source(source: str | None) -> str:
    """'/…/flax/linen/linear.py:287' -> 'linen/linear.py:287'."""
    return "/".join((source or "").replace("\\", "/").split("/")[-2:])


def _offset(gap: dict, origin: int | None) -> str:
    """The gap's start as a time since the trace's +0 (its first GPU activity)."""
    if gap.get("offset_ns") is not None:
        return format_offset(gap["offset_ns"])
    return format_offset(gap["start_ns"] - origin) if origin is not None else str(gap["start_ns"])


def _gaps_table(gaps: list[dict], origin: int | None, min_gap_ns: int,
                text_width: int) -> Table:
    shown = gaps[:TOP_GAPS]
    title = f"GPU-idle gaps over {format_ns(min_gap_ns)}: {len(gaps)}" + (
        f" (longest {len(shown)})" if len(gaps) > len(shown) else ""
    )
    table = Table(title=title, title_justify="left")
    table.add_column("dev", justify="right", no_wrap=True)
    table.add_column("at", justify="right", no_wrap=True)
    table.add_column("idle", justify="right", no_wrap=True)
    table.add_column("class", no_wrap=True)
    table.add_column("cause / before → after")
    for g in shown:
        table.add_row(
            str(g["device"]), _offset(g, origin), format_ns(g["duration_ns"]), g["kind"],
            plain(g["cause"]).append("\n").append_text(
                plain(_fit(f"{g['before']} → {g['after']}", text_width), style="dim")
            ),
        )
    return table
