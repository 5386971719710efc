"""The summary's GPU hardware counters (nsys --gpu-metrics-devices) as a Rich table: the
mean of each metric over the busy span, the gaps, the NVTX ranges (steps summed up in one
row) and the top kernels."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from tui.analysis.gpu_metrics import NVLINK, SHORT, is_step, nvlink
from tui.core.safe_text import plain

TOP_RANGES = 8
TOP_KERNELS = 8
NAME_WIDTH = 36


def print_gpu_metrics(gm: dict | None, console: Console) -> None:
    if not gm or not gm.get("whole"):
        return
    metrics = [m for m in gm["metrics"] if not m.startswith(NVLINK)]
    has_nvlink = any(m.startswith(NVLINK) for m in gm["metrics"])
    rate = f", {gm['sample_rate_hz']:,} Hz" if gm.get("sample_rate_hz") else ""
    table = Table(title=f"GPU hardware counters (mean % of peak{rate})", title_justify="left")
    table.add_column("over", no_wrap=True)
    table.add_column("GPU", justify="right")
    for m in metrics:
        table.add_column(SHORT.get(m, m.split(" [")[0]), justify="right")
    if has_nvlink:
        table.add_column("NVLink", justify="right")

    def row(label: str, device: int, mean: dict[str, float]) -> None:
        cells = [f"{mean[m]:.1f}" if m in mean else "" for m in metrics]
        if has_nvlink:
            link = nvlink(mean)
            cells.append(f"{link:.1f}" if link is not None else "")
        table.add_row(plain(_fit(label)), str(device), *cells)

    for w in gm["whole"]:
        row("busy span", w["device"], w["mean"])
    for g in gm.get("gaps", []):
        row("gaps", g["device"], g["mean"])
    ranges = [r for r in gm.get("by_range", []) if not is_step(r["range"])]
    for r in ranges[:TOP_RANGES]:
        row(f"NVTX {r['range']}", r["device"], r["mean"])
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


def _fit(text: str) -> str:
    return text if len(text) <= NAME_WIDTH else text[: NAME_WIDTH - 1] + "…"
