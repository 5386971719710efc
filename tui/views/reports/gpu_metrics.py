"""The summary's GPU hardware counters (nsys --gpu-metrics-devices, XLA's PM sampling) as a
Rich table: the mean of each metric over the busy span, the gaps, the NVTX ranges or
annotations (steps summed up in one row) and the top kernels."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from tui.analysis.gpu_metric_labels import SHORT, is_step, nvlink
from tui.core.gpu_metric_names import (
    DRAM_READ,
    DRAM_WRITE,
    NVLINK,
    PCIE_RX,
    PCIE_TX,
    SM,
    SM_ISSUE,
    TENSOR,
    WARPS,
)
from tui.core.safe_text import plain

TOP_RANGES = 8
RANKS_SHOWN = 8  # a run's ranks shown row by row; more are averaged
TOP_KERNELS = 8
NAME_WIDTH = 36  # at most; less on a narrow terminal
MIN_NAME_WIDTH = 16
# the columns a narrow terminal keeps first
PRIORITY = (SM, TENSOR, DRAM_READ, DRAM_WRITE, NVLINK, SM_ISSUE, WARPS, PCIE_RX, PCIE_TX)


def print_gpu_metrics(gm: dict | None, console: Console, range_word: str = "NVTX") -> None:
    """The counters' table; a run's (rows tagged with their rank) gets a rank column, each
    rank's rows beside the others' for the same stretch (up to RANKS_SHOWN ranks; more are
    averaged, a row per stretch). A range's row is labelled `range_word` and its name
    ('NVTX compute', 'range compute' for an XLA TraceAnnotation)."""
    if not gm or not gm.get("whole"):
        return
    ranked = any("rank" in w for w in gm["whole"])
    present = [m for m in gm["metrics"] if not m.startswith(NVLINK)]
    if any(m.startswith(NVLINK) for m in gm["metrics"]):
        present.append(NVLINK)
    ordered = [m for m in PRIORITY if m in present] + [m for m in present if m not in PRIORITY]
    room = console.width - MIN_NAME_WIDTH - 4 - 6 - (7 if ranked else 0)  # name, GPU, rank
    shown: list[str] = []
    for m in ordered:
        cost = max(len(_heading(m)), 5) + 3
        if cost <= room:
            shown.append(m)
            room -= cost
    metrics = [m for m in present if m in shown]  # in the summary's order
    name_width = min(NAME_WIDTH, MIN_NAME_WIDTH + room)
    rate = f", {gm['sample_rate_hz']:,} Hz" if gm.get("sample_rate_hz") else ""
    table = Table(title=f"GPU hardware counters (mean % of peak{rate})", title_justify="left")
    table.add_column("over", no_wrap=True)
    if ranked:
        table.add_column("rank", justify="right", no_wrap=True)
    table.add_column("GPU", justify="right", no_wrap=True)
    for m in metrics:
        table.add_column(_heading(m), justify="right", no_wrap=True)
    ranks = sorted({w["rank"] for w in gm["whole"]}) if ranked else []
    averaged = len(ranks) > RANKS_SHOWN

    def row(label: str, rows: list[dict]) -> None:
        """One row per rank (per device) of `rows`, the means of one stretch; of a run of
        many ranks, one row of their mean."""
        if averaged:
            rows = [{"rank": f"{len(ranks)} avg", "device": "", "mean": _mean_of(rows)}]
        for r in rows:
            mean = r["mean"]
            values = [nvlink(mean) if m == NVLINK else mean.get(m) for m in metrics]
            table.add_row(plain(_fit(label, name_width)),
                          *([str(r["rank"])] if ranked else []), str(r["device"]),
                          *(f"{v:.1f}" if v is not None else "" for v in values))

    if ranked:
        row("busy span", gm["whole"])
        if gm.get("gaps"):
            row("gaps", gm["gaps"])
    else:
        for w in gm["whole"]:
            row("busy span", [w])
        for w in gm.get("window", []):  # the diagnosis's window of work
            row("window of work", [w])
        for g in gm.get("gaps", []):
            row("gaps", [g])
    ranges = [r for r in gm.get("by_range", []) if not is_step(r["range"])]
    for name, rows in _by_name(ranges, "range", ranked)[:TOP_RANGES]:
        row(f"{range_word} {name}", rows)
    steps = [r for r in gm.get("by_range", []) if is_step(r["range"])]
    if steps:
        per_rank = _by_key(steps, "rank") if ranked else [(None, steps)]
        row(f"{len({r['range'] for r in steps})} steps (mean)",
            [{"rank": rank, "device": rows[0]["device"], "mean": _mean_of(rows)}
             for rank, rows in per_rank])
    for name, rows in _by_name(gm.get("by_kernel", []), "name", ranked)[:TOP_KERNELS]:
        row(name, rows)
    console.print(table)


def _by_name(rows: list[dict], key: str, ranked: bool) -> list[tuple[str, list[dict]]]:
    """The rows grouped by their `key` (a range's or kernel's name), in the order first
    met: of a run, every rank's row of one name together; else each row alone."""
    if not ranked:
        return [(r[key], [r]) for r in rows]
    return _by_key(rows, key)


def _by_key(rows: list[dict], key: str) -> list[tuple[Any, list[dict]]]:
    groups: dict[Any, list[dict]] = {}
    for r in rows:
        groups.setdefault(r[key], []).append(r)
    return list(groups.items())


def _mean_of(rows: list[dict]) -> dict[str, float]:
    keys = {k for r in rows for k in r["mean"]}
    return {k: sum(r["mean"][k] for r in rows if k in r["mean"])
            / sum(1 for r in rows if k in r["mean"]) for k in keys}


def _heading(metric: str) -> str:
    return SHORT.get(metric, metric.split(" [")[0])


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
