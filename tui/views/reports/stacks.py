"""`tui --summary`: the top user frames by GPU time and the memory peaks, for a terminal."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.table import Table

from tui.analysis.code_types import FRAME_WORDS, WHY_NO_FRAME
from tui.core.safe_text import plain
from tui.core.units import format_bytes, format_ns

TOP_FRAMES = 10


def print_code_and_memory(summary: Mapping[str, Any], console: Console) -> None:
    """Nothing for a trace without stacks or memory events."""
    source = summary.get("code_source")
    user = set(summary.get("code_user") or ())
    frames = [f for f in summary.get("code") or () if f["frame"] in user][:TOP_FRAMES]
    title = {"python": "GPU time by line of your code (inclusive: it or what it called)",
             "nvtx": "GPU time by NVTX range (no Python frames in this trace)",
             "cuda_backtrace": "GPU time by frame of your code (nsys' CUDA API backtraces, "
                               "Python's where it took them; inclusive)",
             "hlo": "GPU time by line of your code (the XLA ops' metadata; inclusive: it or "
                    "what it called)"}.get(source or "", "")
    if not frames and source == "cuda_backtrace":
        # a Python program's backtraces are all library frames: show the top ones
        frames = list(summary.get("code") or ())[:TOP_FRAMES]
        title = ("GPU time by frame (nsys' CUDA API backtraces, inclusive; none in your "
                 "own code)")
    if frames:
        table = Table(title=title, title_justify="left")
        for heading in ("frame", "GPU time", "self", "launches"):
            table.add_column(heading, justify="left" if heading == "frame" else "right")
        for f in frames:
            table.add_row(plain(f["frame"]), format_ns(f["gpu_ns"]),
                          format_ns(f["self_gpu_ns"]), f"{f['launches']:,}")
        console.print(table)
        rest = summary.get("code_unattributed") or {}
        if rest.get("launches") and source == "hlo":
            console.print(plain(
                f"  {format_ns(rest['gpu_ns'])} of GPU work ({rest['launches']:,} "
                f"activities) had no line of code ({WHY_NO_FRAME['hlo']})"))
        elif rest.get("launches"):
            console.print(plain(
                f"  {format_ns(rest['gpu_ns'])} of GPU work ({rest['launches']:,} of "
                f"{rest['linked']:,} launches) had no {FRAME_WORDS.get(source or '', 'frame')}"
                f" around its launch ({WHY_NO_FRAME.get(source or '', '')})"))
    peaks = [("GPU", p) for p in summary.get("memory") or ()]
    peaks += [("host", p) for p in summary.get("host_memory") or ()]
    if peaks:
        first = (summary.get("source") or {}).get("first_ns") or 0
        table = Table(title="Memory peaks", title_justify="left")
        for heading in ("device", "peak allocated", "at", "peak reserved"):
            table.add_column(heading, justify="left" if heading == "device" else "right")
        for kind, p in peaks:
            reserved = p["peak_reserved_bytes"]
            table.add_row(f"{kind} {p['device']}" if kind == "GPU" else kind,
                          format_bytes(p["peak_allocated_bytes"]),
                          format_ns(p["peak_ns"] - first),
                          format_bytes(reserved) if reserved is not None else "-")
        console.print(table)

