"""`tui --summary DIR`: a distributed run's summary dict as Rich tables."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.table import Table

from tui.analysis.collective_labels import COLUMNS, bandwidth_cells, collective_label
from tui.analysis.summary_types import CollectiveBandwidth
from tui.core.safe_text import plain
from tui.core.units import format_ns
from tui.views.reports.distributed import print_distributed
from tui.views.reports.gpu_metrics import print_gpu_metrics
from tui.views.reports.summary import TOP_GAPS, _fit, _kernels_table, idle_line
from tui.views.reports.tensor_cores import print_tensor_cores

MAX_RANK_ROWS = 64  # beyond this, the ranks that wait or are waited for most


def print_run_summary(summary: Mapping[str, Any], console: Console) -> None:
    source = summary["source"]
    console.print(plain(
        f"{source['path']}  ({source['format']}, {source['ranks']} "
        f"rank{'' if source['ranks'] == 1 else 's'}"
        + (f" of {source['world_size']}" if "world_size" in source else "") + ")",
        style="bold",
    ))
    console.print(plain(f"span {format_ns(source['span_ns'])}" + cache_text(source)))
    for warning in summary["warnings"]:
        console.print(plain(f"warning: {warning}", style="yellow"))
    for line, style in diagnosis_lines(summary):
        console.print(plain(line, style=style))
    console.print(ranks_table(summary["ranks"], summary["straggler"],
                              summary.get("stragglers") or []))
    print_distributed(summary["ranks"], console, source["min_gap_ns"])
    if summary.get("collective_bandwidth"):
        console.print(bandwidth_table(summary["collective_bandwidth"]))
    if summary["kernels"]:
        console.print(_kernels_table(summary["kernels"], console.width))
    print_gpu_metrics(summary.get("gpu_metrics"), console)  # each rank's own GPUs
    print_tensor_cores(summary, console)  # over every rank
    console.print(_gaps_table(summary["gaps"], source["min_gap_ns"],
                              max(30, console.width - 45)))
    if summary["findings"]:
        console.print("[bold]Findings[/bold]")
        for finding in summary["findings"]:
            console.print(plain(f"  • {finding.text}"))


MAX_RANK_DIAGNOSES = 8  # beyond this, the ranks are listed by bound


def diagnosis_lines(summary: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(line, style): the run's diagnosis, then each rank's (with where its idle time
    went), or with many ranks which ranks have which bound."""
    if not summary.get("diagnosis"):
        return []
    out = [(summary["diagnosis"]["text"], "bold")]
    ranks = [r for r in summary["ranks"] if r.get("diagnosis")]
    if len(ranks) <= MAX_RANK_DIAGNOSES:
        for r in ranks:
            out.append((f"  rank {r['rank']}: {r['diagnosis']['text']}", ""))
            if r["diagnosis"].get("host_where"):  # its CPU samples, as a trace's summary
                out.append((f"    while the GPU idled, {r['diagnosis']['host_where']}", ""))
            idle = idle_line(r["diagnosis"])
            if idle:  # none without figures (no diagnosis)
                out.append((f"    {idle}", "dim"))
            if r["diagnosis"].get("steps_text"):  # the rank's steps, the slow ones named
                out.append((f"    {r['diagnosis']['steps_text']}", "dim"))
            if r["diagnosis"].get("setup_text"):  # the rank's start-up, told apart
                out.append((f"    {r['diagnosis']['setup_text']}", "dim"))
            if r["diagnosis"].get("setup_where"):
                out.append((f"    in the set-up, {r['diagnosis']['setup_where']}", "dim"))
        return out
    by_bound: dict[str, list[int]] = {}
    for r in ranks:
        by_bound.setdefault(str(r["diagnosis"]["bound"]), []).append(r["rank"])
    for bound, members in sorted(by_bound.items(), key=lambda kv: -len(kv[1])):
        out.append((f"  {bound}-bound: {len(members)} rank{'s' if len(members) > 1 else ''} "
                    f"({', '.join(map(str, members[:16]))}"
                    + (", …" if len(members) > 16 else "") + ")", ""))
    return out


def bandwidth_table(rows: list[CollectiveBandwidth]) -> Table:
    """What the collectives achieved (tui/analysis/collective_bandwidth.py)."""
    table = Table(title="Collective bandwidth, as nccl-tests measures it (medians; "
                  "transfer: from the last rank's arrival)", title_justify="left")
    for col in COLUMNS:
        table.add_column(col, justify="left" if col == "collective" else "right",
                         no_wrap=True)
    for row in rows:
        table.add_row(*(plain(cell) for cell in bandwidth_cells(row)))
    return table


def ranks_table(ranks: list[dict], straggler: int | None,
                stragglers: list[int] | None = None) -> Table:
    shown = ranks
    if len(ranks) > MAX_RANK_ROWS:
        top = sorted(ranks, key=lambda r: -(r["wait_ns"] + r["caused_ns"]))[:MAX_RANK_ROWS]
        shown = sorted(top, key=lambda r: r["rank"])
    title = "Ranks" + (f" ({len(shown)} of {len(ranks)}: most waiting or waited for)"
                       if len(shown) < len(ranks) else "")
    table = Table(title=title, title_justify="left")
    for col in ("rank", "steps", "host step", "GPU step", "busy %", "compute", "NCCL",
                "NCCL wait", "others wait", "waits longest in"):
        table.add_column(col, justify="left" if col == "waits longest in" else "right",
                         no_wrap=True)
    for r in shown:
        table.add_row(
            str(r["rank"]) + (" ◀ straggler" if r["rank"] == straggler
                              or r["rank"] in (stragglers or []) else ""),
            str(r["steps"]) if r["steps"] else "-",
            format_ns(r["step_host_ns"]),
            format_ns(r["step_gpu_ns"]),
            f"{r['busy_pct']:.1f}",
            format_ns(r["compute_ns"]),
            format_ns(r["comm_ns"]),
            format_ns(r["wait_ns"]),
            format_ns(r["caused_ns"]),
            plain(collective_label(r["waits_in"]) if r["wait_ns"] else "-"),
            style="bold" if r["rank"] == straggler or r["rank"] in (stragglers or []) else "",
        )
    return table


def _gaps_table(gaps: list[dict], min_gap_ns: int, text_width: int) -> Table:
    shown = gaps[:TOP_GAPS]
    title = f"GPU-idle gaps over {format_ns(min_gap_ns)}: {len(gaps)}" + (
        f" (longest {len(shown)})" if len(gaps) > len(shown) else "")
    table = Table(title=title, title_justify="left")
    for col in ("rank", "dev", "idle", "class"):
        table.add_column(col, justify="left" if col == "class" else "right", no_wrap=True)
    table.add_column("cause")
    for g in shown:
        table.add_row(str(g["rank"]), str(g["device"]), format_ns(g["duration_ns"]),
                      g["kind"], plain(_fit(g["cause"], text_width)))
    return table


def cache_text(source: Mapping[str, Any]) -> str:
    """Whether the ranks came from their caches; each other reason once, with its count."""
    if source.get("from_cache"):
        return " — from cache"
    notes = [n for n in source.get("cache_notes", []) if n]
    counts = {note: notes.count(note) for note in notes}
    return "".join(f" — {note}" + (f" (×{n})" if n > 1 else "") for note, n in counts.items())
