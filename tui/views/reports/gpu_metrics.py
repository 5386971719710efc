"""The summary's GPU hardware counters (nsys --gpu-metrics-devices, XLA's PM sampling) as a
Rich table: the mean of each metric over the busy span, the gaps, the NVTX ranges or
annotations (steps summed up in one row) and the top kernels."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from tui.analysis.gpu_metrics import (
    DRAM_READ,
    DRAM_WRITE,
    NVLINK,
    PCIE_RX,
    PCIE_TX,
    SHORT,
    SM,
    SM_ISSUE,
    TENSOR,
    WARPS,
    is_step,
    nvlink,
)
from tui.core.safe_text import plain

TOP_RANGES = 8
TOP_KERNELS = 8
NAME_WIDTH = 36  # at most; less on a narrow terminal
MIN_NAME_WIDTH = 16
# the columns a narrow terminal keeps first
PRIORITY = (SM, TENSOR, DRAM_READ, DRAM_WRITE, NVLINK, SM_ISSUE, WARPS, PCIE_RX, PCIE_TX)


def print_gpu_metrics(gm: dict | None, console: Console, range_word: str = "NVTX") -> None:
    """The table; a range's row is labelled `range_word` and its name ('NVTX compute',
    'range compute' for an XLA TraceAnnotation)."""
    if not gm or not gm.get("whole"):
        return
    present = [m for m in gm["metrics"] if not m.startswith(NVLINK)]
    if any(m.startswith(NVLINK) for m in gm["metrics"]):
        present.append(NVLINK)
    ordered = [m for m in PRIORITY if m in present] + [m for m in present if m not in PRIORITY]
    room = console.width - MIN_NAME_WIDTH - 4 - 6  # the name's and the GPU's columns
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
    table.add_column("GPU", justify="right", no_wrap=True)
    for m in metrics:
        table.add_column(_heading(m), justify="right", no_wrap=True)

    def row(label: str, device: int, mean: dict[str, float]) -> None:
        values = [nvlink(mean) if m == NVLINK else mean.get(m) for m in metrics]
        table.add_row(plain(_fit(label, name_width)), str(device),
                      *(f"{v:.1f}" if v is not None else "" for v in values))

    for w in gm["whole"]:
        row("busy span", w["device"], w["mean"])
    for g in gm.get("gaps", []):
        row("gaps", g["device"], g["mean"])
    ranges = [r for r in gm.get("by_range", []) if not is_step(r["range"])]
    for r in ranges[:TOP_RANGES]:
        row(f"{range_word} {r['range']}", r["device"], r["mean"])
    steps = [r for r in gm.get("by_range", []) if is_step(r["range"])]
    if steps:
        row(f"{len(steps)} steps (mean)", steps[0]["device"], _mean_of(steps))
    for k in gm.get("by_kernel", [])[:TOP_KERNELS]:
        row(k["name"], k["device"], k["mean"])
    console.print(table)


def _mean_of(rows: list[dict]) -> dict[str, float]:
    keys = {k for r in rows for k in r["mean"]}
    return {k: sum(r["mean"][k] for r in rows if k in r["mean"])
            / sum(1 for r in rows if k in r["mean"]) for k in keys}


def _heading(metric: str) -> str:
    return SHORT.get(metric, metric.split(" [")[0])


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
