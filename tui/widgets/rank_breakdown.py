"""The breakdown view of one rank in RunApp: where its GPU time went, by HTA's definitions."""

from __future__ import annotations

from rich.text import Text

from tui.core.units import format_ns

BAR_WIDTH = 50
# (breakdown key, label, bar character, style)
PARTS = (("compute_ns", "compute", "█", "green"),
         ("non_compute_ns", "non-compute", "▓", "yellow"),
         ("idle_ns", "idle", "░", "red"))


def breakdown_text(rank: dict, width: int = BAR_WIDTH) -> Text:
    """A stacked bar of the rank's kernel time (compute, non-compute, idle), its overlap and
    exposed communication, launch delays, and idle time per stream by HTA's category."""
    text = Text()
    b = rank.get("breakdown")
    if not b or not b["kernel_ns"]:
        return Text(f"rank {rank['rank']}: no GPU work in the window")
    total = b["kernel_ns"]
    text.append(f"rank {rank['rank']}: {format_ns(total)} of kernel time", style="bold")
    text.append(" (HTA's: first GPU work to last, idle included)  ", style="dim")
    cells = [round(width * b[key] / total) for key, *_ in PARTS]
    cells[0] += width - sum(cells)  # rounding: the bar is always `width` wide
    for (_key, _label, char, style), n in zip(PARTS, cells, strict=True):
        text.append(char * max(n, 0), style=style)
    text.append("\n")
    text.append("  ".join(f"{label} {format_ns(b[key])} ({100 * b[key] / total:.0f}%)"
                          for key, label, _char, _style in PARTS))
    comm = rank.get("communication") or {}
    if comm.get("comm_ns"):
        per_step = comm.get("exposed_per_step_ns")
        text.append(f"\ncommunication {format_ns(comm['comm_ns'])}, "
                    f"{rank['overlap_pct']:.1f}% overlapped by compute; exposed "
                    f"{format_ns(comm['exposed_ns'])}"
                    + (f" ({format_ns(per_step)} a step)" if per_step is not None else ""))
    launches = rank.get("launch_stats") or {}
    if launches.get("launches"):
        n = launches["launches"]
        text.append(f"\n{n:,} launches: call {format_ns(launches['cpu_ns_sum'] / n)} mean, "
                    f"delay {format_ns(launches['delay_ns_sum'] / n)} mean, "
                    f"{format_ns(launches['delay_ns_p90'])} p90, "
                    f"{format_ns(launches['delay_ns_max'])} max; "
                    f"{launches['long_delays']:,} delays over 100 µs, "
                    f"{launches['short_kernels']:,} kernels shorter than their launch call")
    for c in rank.get("idle_breakdown") or []:
        idle = c["host_wait_ns"] + c["kernel_wait_ns"] + c["other_ns"]
        text.append(f"\nGPU {c['device']} stream {c['stream']}: idle {format_ns(idle)} — "
                    f"host wait {format_ns(c['host_wait_ns'])}, kernel wait "
                    f"{format_ns(c['kernel_wait_ns'])}, other {format_ns(c['other_ns'])}")
    return text
