"""`tui --summary`: the distributed figures of each rank (tui/analysis/distributed) as text."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from tui.core.hta_thresholds import KERNEL_WAIT_NS
from tui.core.safe_text import plain
from tui.core.units import format_ns

MAX_ROWS = 64  # ranks (or devices) shown; beyond, the ones idle the longest


def print_distributed(ranks: list[dict], console: Console,
                      min_gap_ns: int | None = None) -> None:
    """The time breakdown, overlap and launch figures of every rank (and of each device of
    a rank with several), then idle time per stream by HTA's category, beside it the
    summary's own gaps (whole-device idle over `min_gap_ns`) by class, and each step's
    critical path."""
    rows = [r for r in ranks if "breakdown" in r]
    if not rows or not any(r["breakdown"]["kernel_ns"] for r in rows):
        return
    console.print(breakdown_table(rows))
    console.print(idle_table(rows))
    classes = gap_class_table(rows, min_gap_ns)
    if classes is not None:
        console.print(classes)
    if any(r.get("critical_path") for r in rows):
        console.print(critical_path_table(rows))


def _lines(ranks: list[dict]) -> list[tuple[str, dict]]:
    out = []
    for r in ranks:
        out.append((str(r["rank"]), r))
        for d in r.get("per_device", []):
            out.append((f"{r['rank']} · GPU {d['device']}", d))
    if len(out) > MAX_ROWS:
        out = sorted(out, key=lambda x: -x[1]["breakdown"]["idle_ns"])[:MAX_ROWS]
    return out


def breakdown_table(ranks: list[dict]) -> Table:
    steps = ranks[0].get("window", {}).get("steps", 0)
    where = (f"launched in the first {steps} profiler steps: the last is left out"
             if steps else "the whole trace")
    table = Table(title=f"Time breakdown, HTA's definitions ({where}); kernel time: HTA's "
                  "name for the span from the first GPU work to the last, idle included; "
                  "launch delay: mean, p90, max", title_justify="left")
    for col in ("rank", "kernel time", "compute", "non-compute", "idle", "overlap",
                "exposed comm", "launches", "delay", "p90", "max"):
        table.add_column(col, justify="right", no_wrap=True)
    for label, r in _lines(ranks):
        b, comm, ls = r["breakdown"], r["communication"], r["launch_stats"]
        total = b["kernel_ns"]
        exposed = comm["exposed_per_step_ns"]
        table.add_row(
            label, format_ns(total), _share(b["compute_ns"], total),
            _share(b["non_compute_ns"], total), _share(b["idle_ns"], total),
            "-" if r["overlap_pct"] is None else f"{r['overlap_pct']:.1f}%",
            "-" if not comm["comm_ns"] else (
                f"{format_ns(exposed)}/step" if exposed is not None
                else format_ns(comm["exposed_ns"])),
            f"{ls['launches']:,}",
            format_ns(ls["delay_ns_sum"] / ls["launches"]) if ls["launches"] else "-",
            format_ns(ls["delay_ns_p90"]) if ls["launches"] else "-",
            format_ns(ls["delay_ns_max"]) if ls["launches"] else "-",
        )
    return table


def idle_table(ranks: list[dict]) -> Table:
    table = Table(title="Idle time per stream (HTA's categories): host wait, the next launch "
                  "came after the stream ran dry; kernel wait, already queued, a gap under "
                  f"{format_ns(KERNEL_WAIT_NS)}; other, queued but waiting on another stream "
                  "or an event", title_justify="left")
    for col in ("rank", "GPU", "stream", "idle", "host wait", "kernel wait", "other",
                "queue max", "queue mean"):
        table.add_column(col, justify="right", no_wrap=True)
    rows = []
    for r in ranks:
        queues = {(q["device"], q["stream"]): q for q in r.get("queue_length", [])}
        for c in r.get("idle_breakdown", []):
            idle = c["host_wait_ns"] + c["kernel_wait_ns"] + c["other_ns"]
            rows.append((idle, r["rank"], c, queues.get((c["device"], c["stream"]))))
    if len(rows) > MAX_ROWS:
        rows = sorted(rows, key=lambda x: -x[0])[:MAX_ROWS]
    for idle, rank, c, q in rows:
        table.add_row(
            str(rank), str(c["device"]), str(c["stream"]), format_ns(idle),
            _share(c["host_wait_ns"], idle), _share(c["kernel_wait_ns"], idle),
            _share(c["other_ns"], idle),
            str(q["max"]) if q else "-",
            f"{q['time_mean']:.1f}" if q and q["time_mean"] is not None else "-",
        )
    return table


def gap_class_table(ranks: list[dict], min_gap_ns: int | None) -> Table | None:
    """Each rank's `gap_classes` (the summary's GPU-idle gaps by device and class); None
    without gaps."""
    rows = [(r["rank"], c) for r in ranks for c in r.get("gap_classes") or []]
    if not rows:
        return None
    over = f" over {format_ns(min_gap_ns)}" if min_gap_ns else ""
    table = Table(title=f"Beside them, tui's GPU-idle gaps{over} (no stream running) by "
                  "class", title_justify="left")
    for col in ("rank", "GPU", "class", "idle", "gaps"):
        table.add_column(col, justify="left" if col == "class" else "right", no_wrap=True)
    shown = sorted(rows, key=lambda rc: -rc[1]["idle_ns"])[:MAX_ROWS]
    for rank, c in sorted(shown, key=lambda rc: (rc[0], rc[1]["device"], -rc[1]["idle_ns"])):
        table.add_row(str(rank), str(c["device"]), plain(c["class"]), format_ns(c["idle_ns"]),
                      f"{c['gaps']:,}")
    return table


CP_KINDS = (("cpu_ns", "CPU"), ("launch_delay_ns", "launch delay"), ("kernel_ns", "kernel"),
            ("communication_ns", "communication"), ("waiting_ns", "waiting"))
MAX_STEP_ROWS = 16  # beyond, each rank's median step only


def critical_path_table(ranks: list[dict]) -> Table:
    """Each step's critical path by kind (each rank's median step where there are many)."""
    rows = [(r["rank"], p) for r in ranks for p in r.get("critical_path") or []]
    title = "Critical path per step"
    if len(rows) > MAX_STEP_ROWS:  # each rank's (each process's, in an nsys report) median
        groups: dict[tuple, list[dict]] = {}
        for r in ranks:
            for p in r.get("critical_path") or []:
                groups.setdefault((r["rank"], p.get("pid")), []).append(p)
        rows = []
        for (rank, _pid), paths in groups.items():
            paths.sort(key=lambda p: p["length_ns"])
            rows.append((rank, paths[(len(paths) - 1) // 2]))
        rows = rows[:MAX_ROWS]
        title += " (each rank's median step)"
    several = len({(rank, p.get("pid")) for rank, p in rows}) > len({rank for rank, _p in rows})
    table = Table(title=title, title_justify="left")
    for col in ("rank", "step", "length", *(label for _k, label in CP_KINDS)):
        table.add_column(col, justify="left" if col == "step" else "right", no_wrap=True)
    for rank, p in rows:
        kinds = p["by_kind"]
        step = p["step"] + (f" (pid {p['pid']})" if several else "")
        table.add_row(str(rank), plain(step), format_ns(p["length_ns"]),
                      *(_share(kinds[k], p["length_ns"]) for k, _label in CP_KINDS))
    return table


def _share(part: int, whole: int) -> str:
    """'45.6 ms (8%)'."""
    if not whole:
        return format_ns(part)
    return f"{format_ns(part)} ({100 * part / whole:.0f}%)"
