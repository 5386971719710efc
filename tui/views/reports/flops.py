"""The summary's FLOPs: achieved FLOP/s and MFU over the window of work, the steps'
range, and the kernel names that did the most FLOPs (tui/analysis/flops.py)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from tui.core.safe_text import plain
from tui.core.units import format_flops, format_ns

TOP_KERNELS = 5
SOURCE = {"args": "the profiler's own count", "shapes": "the ops' recorded shapes",
          "hlo": "the HLO ops' shapes"}


def flops_line(fl: dict) -> str:
    """'FLOPs (from the ops' recorded shapes): 10.5 TFLOP over the window of work (86.4 ms):
    121 TFLOP/s, MFU 12.3% of the H200 SXM's 990 TFLOP/s dense peak (bf16)'; without a
    known peak, why there is no MFU."""
    window = fl["window"]
    span = window["end_ns"] - window["start_ns"]
    precisions = sorted({p["precision"] or "?" for p in fl["by_precision"]})
    head = (f"FLOPs (from {SOURCE.get(fl['source'], fl['source'])}): "
            f"{format_flops(fl['total'])} over the window of work ({format_ns(span)}): "
            f"{format_flops(fl['achieved_flops_per_s'], 'FLOP/s')}")
    if fl.get("mfu") is None:
        missing = ", ".join(fl.get("no_peak_for") or []) or fl.get("device", "this GPU")
        return f"{head}; no MFU: no peak known for {missing}"
    return (f"{head}, MFU {100 * fl['mfu']:.1f}% of the {fl['peak_known_as']}'s "
            f"{format_flops(fl['peak_flops_per_s'], 'FLOP/s')} dense peak "
            f"({', '.join(precisions)})")


def steps_line(steps: list[dict]) -> str | None:
    """'per step: 2.62 TFLOP, 120 TFLOP/s to 122 TFLOP/s, MFU 12.1-12.3% (4 steps)'."""
    timed = [s for s in steps if s["flops_per_s"] is not None]
    if not timed:
        return None
    rates = [s["flops_per_s"] for s in timed]
    flops = sum(s["flops"] for s in timed) / len(timed)
    mfus = [s["mfu"] for s in timed if s["mfu"] is not None]
    mfu = (f", MFU {100 * min(mfus):.1f}-{100 * max(mfus):.1f}%" if len(mfus) == len(timed)
           else "")
    return (f"per step: {format_flops(flops)}, {format_flops(min(rates), 'FLOP/s')} to "
            f"{format_flops(max(rates), 'FLOP/s')}{mfu} ({len(timed)} steps)")


def print_flops(fl: dict | None, console: Console) -> None:
    if not fl:
        return
    console.print(plain(flops_line(fl), style="bold"))
    line = steps_line(fl.get("by_step") or [])
    if line:
        console.print(plain(f"  {line}", style="dim"))
    console.print(_kernels_table(fl["by_kernel"], console.width))


def _kernels_table(kernels: list[dict], width: int) -> Table:
    table = Table(title="FLOPs per kernel name (most first)", title_justify="left")
    cells = (("FLOPs", 10), ("FLOP/s", 12), ("MFU %", 5), ("prec", 4))
    for heading, cell in cells:
        table.add_column(heading, justify="right", no_wrap=True, min_width=cell)
    table.add_column("kernel", no_wrap=True)
    name_width = max(20, width - sum(cell + 3 for _, cell in cells) - 4)
    for k in kernels[:TOP_KERNELS]:
        name = k["name"] if len(k["name"]) <= name_width else k["name"][:name_width - 1] + "…"
        table.add_row(format_flops(k["flops"]), format_flops(k["flops_per_s"], "FLOP/s"),
                      f"{100 * k['mfu']:.1f}" if k["mfu"] is not None else "-",
                      plain(k["precision"] or "?"), plain(name))
    return table
