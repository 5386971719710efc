"""The drill-down's text for one profiled launch, from its `ncu_summary` entry.

Pure functions (entry -> Rich Text), so they are tested without the app. Everything that
came from the input file (names, NVIDIA's rule text) goes through `plain`: no markup, no
control codes. Every figure carries its unit.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from tui.analysis.ncu.match import KernelMatch
from tui.core.safe_text import plain
from tui.core.units import format_bytes, format_ns
from tui.views.ncu_session import candidate_text, dims_text

BAR_WIDTH = 24
KEY_WIDTH = 17
_EIGHTHS = " ▏▎▍▌▋▊▉"
VERDICT_LABEL = {"compute": "compute-bound", "memory": "memory-bound", "balanced": "balanced",
                 "latency": "latency-bound", "small-grid": "small grid"}
VERDICT_STYLE = {"compute": "bold reverse #d787ff", "memory": "bold reverse #ffaf5f",
                 "balanced": "bold reverse #87d75f", "latency": "bold reverse #5fafff",
                 "small-grid": "bold reverse #ff87af"}
_RULE_ORDER = {"ERR": 0, "WRN": 1, "OPT": 2, "INF": 3}
_RULE_STYLE = {"ERR": "bold red", "WRN": "bold yellow", "OPT": "bold cyan", "INF": "dim"}


def pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} %"


def rate(value: float | None, unit: str) -> str:
    """1.23e12 -> '1.23 T<unit>/s' (decimal prefixes, as Nsight Compute prints them)."""
    if value is None:
        return "-"
    for prefix, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {prefix}{unit}/s"
    return f"{value:.3g} {unit}/s"


def bar(value: float | None, width: int = BAR_WIDTH) -> Text:
    """A % of peak as a bar of `width` cells, in eighths; dots for the rest."""
    if value is None:
        return Text("·" * width, style="dim")
    eighths = max(0, min(width * 8, round(value / 100 * width * 8)))
    full, part = divmod(eighths, 8)
    drawn = "█" * full + (_EIGHTHS[part] if part else "")
    return Text.assemble((drawn, "bold"), ("·" * (width - len(drawn)), "dim"))


class _Sections:
    """Headed sections of `key  value` rows; a long value wraps under itself."""

    def __init__(self) -> None:
        self.parts: list[RenderableType] = []
        self._grid = Table.grid()

    def heading(self, title: str, unit: str = "") -> None:
        if self.parts:
            self.parts.append(Text())
        self.parts.append(Text.assemble((title, "bold underline"), (f"  {unit}", "dim")))
        self._grid = Table.grid(padding=(0, 1))
        self._grid.add_column(width=KEY_WIDTH, no_wrap=True, style="bold")
        self._grid.add_column(overflow="fold")
        self.parts.append(Padding(self._grid, (0, 0, 0, 2)))

    def row(self, key: str, *parts: Text | str | tuple[str, str]) -> None:
        self._grid.add_row(Text(key), Text.assemble(*parts))

    def note(self, text: str) -> None:
        self.parts.append(Padding(Text(text, style="dim"), (0, 0, 0, 2)))


def header(k: dict[str, Any], source: dict[str, Any]) -> Text:
    """`#0 saxpy(...)` and its duration, launch configuration and device."""
    out = Text.assemble((f"#{k['launch_id']}  ", "bold"), plain(k["name"], "bold"))
    shape = [f"duration {format_ns(k['duration_ns'])}",
             f"grid {dims_text(k['grid'])}", f"block {dims_text(k['block'])}"]
    if k.get("registers_per_thread") is not None:
        shape.append(f"{k['registers_per_thread']:.0f} registers/thread")
    if k.get("shared_memory_bytes") is not None:
        shape.append(f"{format_bytes(k['shared_memory_bytes'])} shared memory/block")
    where = f"GPU {k['device']}" if k.get("device") is not None else "GPU ?"
    if source.get("device_name"):
        where += f" ({source['device_name']})"
    if k.get("stream") is not None:
        where += f" stream {k['stream']}"
    out.append("\n")
    out.append_text(plain(" · ".join([*shape, where])))
    return out


def verdict(k: dict[str, Any]) -> Text:
    """The verdict word, its plain-language explanation and the next step."""
    kind = k.get("verdict")
    if kind is None:
        return Text("no verdict: the input has no SpeedOfLight throughput metrics (profile "
                    "with --section SpeedOfLight or --set full)", style="bold")
    out = Text.assemble((f" {VERDICT_LABEL.get(kind, kind)} ", VERDICT_STYLE.get(kind, "bold")))
    if k.get("bottleneck"):
        out.append_text(Text.assemble("  busiest unit: ", plain(k["bottleneck"], "bold")))
    out.append("\n")
    out.append_text(plain(k["explanation"]))
    out.append("\nnext step: ", style="bold")
    out.append_text(plain(k["next_step"]))
    advice = k.get("advice") or []
    if advice and advice[0].get("nvidia"):
        out.append_text(Text.assemble("\n", ("NVIDIA agrees: ", "bold"),
                                      plain(advice[0]["nvidia"])))
    for a in advice[1:]:
        out.append_text(Text.assemble("\n", ("also: ", "bold"),
                                      plain(f"{a['finding']}. {a['step']}")))
    return out


def match(m: KernelMatch | None) -> Text:
    """Where this launch is in the trace: matched, ambiguous (with the candidates), or not."""
    if m is None:
        return Text()
    head = {"matched": "in the trace: ", "ambiguous": "ambiguous in the trace: ",
            "unmatched": "not in the trace: "}[m.status]
    out = Text.assemble((head, "bold yellow" if m.status != "matched" else "bold"))
    if m.matched_on:
        out.append(f"by {m.matched_on} — ")
    out.append_text(plain(m.note))
    for g in m.candidates if m.status != "matched" else []:
        out.append("\n  · ")
        out.append_text(plain(candidate_text(g)))
    return out


def figures(k: dict[str, Any], source_format: str = "") -> Group:
    """Throughput, occupancy, warp stalls, pipes, memory access and roofline, each unit said."""
    out = _Sections()
    out.heading("Throughput", "% of peak")
    for key, label, extra in (("sm_pct", "SM (compute)", ""), ("mem_pct", "memory", ""),
                              ("dram_pct", "DRAM", rate(k.get("dram_bytes_per_s"), "B")),
                              ("l2_pct", "L2 cache", ""), ("l1_pct", "L1/TEX cache", "")):
        if extra == "-":
            extra = ""
        out.row(label, bar(k.get(key)), f" {pct(k.get(key)):>7}", (f"  {extra}", "dim"))
    out.heading("Occupancy", "% of the SM's warp slots")
    out.row("achieved", f"{pct(k.get('achieved_occupancy_pct'))} of a theoretical "
         f"{pct(k.get('theoretical_occupancy_pct'))}")
    limiters = k.get("occupancy_limiters") or []
    out.row("limited by", ", ".join(limiters) if limiters else
         ("nothing: theoretical is the hardware maximum"
          if (k.get("theoretical_occupancy_pct") or 0) >= 99.5 else "-"))
    if k.get("waves_per_sm") is not None:
        sms = f" on {k['sm_count']:.0f} SMs" if k.get("sm_count") else ""
        out.row("waves", f"{k['waves_per_sm']:.2f} waves per SM{sms}")
    if k.get("active_threads_per_warp") is not None:
        out.row("active threads", f"{k['active_threads_per_warp']:.1f} of 32 per warp "
             "instruction")
    _stalls(out, k, source_format)
    _pipes(out, k, source_format)
    _access(out, k)
    _roofline(out, k, source_format)
    return Group(*out.parts)


def _missing(source_format: str) -> str:
    if source_format == "ncu-details-csv":
        return "not in this input: the details page lacks it (open the .ncu-rep or a " \
               "--page raw CSV)"
    return "not in this input (profile with --set full)"


def _stalls(out: _Sections, k: dict[str, Any], source_format: str) -> None:
    out.heading("Warp stalls", "top reasons, cycles per issued instruction")
    if not k.get("stalls"):
        out.note("the breakdown by reason is " + _missing(source_format))
    for s in k.get("stalls") or []:
        out.row(s["reason"], f"{s['cycles_per_instruction']:5.1f} cycles  ",
             plain(s["label"], "dim"))
    if k.get("warp_cycles_per_issue") is not None:
        out.row("all reasons", f"{k['warp_cycles_per_issue']:5.1f} cycles between a warp's "
             "instructions")


def _pipes(out: _Sections, k: dict[str, Any], source_format: str) -> None:
    out.heading("Pipe utilisation", "% of peak over active cycles")
    pipes = {p: v for p, v in (k.get("pipes_pct") or {}).items() if v is not None}
    if not pipes:
        out.note(_missing(source_format))
    for name, value in pipes.items():
        out.row(name.upper() if len(name) <= 3 else name, bar(value), f" {pct(value):>7}")


def _access(out: _Sections, k: dict[str, Any]) -> None:
    sectors, ways = k.get("global_load_sectors_per_request"), k.get("shared_load_ways")
    if sectors is None and ways is None:
        return
    out.heading("Memory access")
    if sectors is not None:
        out.row("global loads", f"{sectors:.1f} sectors/request",
             ("  (4 = coalesced 4-byte loads; more = scattered)", "dim"))
    if ways is not None:
        out.row("shared loads", f"{ways:.1f} wavefronts/request",
             ("  (1 = no bank conflicts)", "dim"))


def _roofline(out: _Sections, k: dict[str, Any], source_format: str) -> None:
    roof = k.get("roofline")
    out.heading("Roofline", "DRAM roofline of the dominant precision")
    if not roof:
        out.note(_missing(source_format) if source_format == "ncu-details-csv"
                 else "no floating-point work measured")
        return
    out.row(roof["precision"], f"{rate(roof['flop_per_s'], 'FLOP')} = "
         f"{roof['pct_of_peak']:.1f} % of the {rate(roof['peak_flop_per_s'], 'FLOP')} peak")
    out.row("intensity", f"{roof['arithmetic_intensity']:.3g} FLOP/byte of DRAM traffic; "
         f"ridge point {roof['ridge_point']:.3g} FLOP/byte")
    out.row("side", (f"{roof['side']}-bound side of the ridge", "bold"))
    pipes = {p: v for p, v in (k.get("pipes_pct") or {}).items() if v is not None}
    if pipes and max(pipes, key=lambda p: pipes[p]) == "tensor":
        out.note("ncu's roofline counts the CUDA cores' FP instructions alone: this "
                 "kernel's math runs on the tensor cores, which it does not count")


def findings(k: dict[str, Any]) -> Text:
    """NVIDIA's own analysis: the SpeedOfLight statement, then each rule finding, biggest
    estimated speedup first (ERR, WRN, OPT, then INF)."""
    out = Text.assemble(("NVIDIA's rule findings", "bold underline"))
    if k.get("nvidia_sol"):
        agrees = k.get("nvidia_verdict") == k.get("verdict")
        out.append("\nSpeedOfLight: ", style="bold")
        out.append(k.get("nvidia_verdict") or "?", style="bold")
        out.append(" (agrees with the verdict)" if agrees else
                   f" (the verdict above says {k.get('verdict')})", style="dim")
        out.append("\n")
        out.append_text(plain(k["nvidia_sol"]))
    rules = sorted((r for r in k.get("nvidia_rules") or [] if r["rule"] != "SOLBottleneck"),
                   key=lambda r: (_RULE_ORDER.get(r["type"], 4), -(r["speedup_pct"] or 0)))
    if not rules and not k.get("nvidia_sol"):
        out.append("\nnone in this input (a --page raw CSV carries no rule results: open the "
                   ".ncu-rep or the details page)", style="dim")
    for r in rules:
        out.append("\n\n")
        out.append_text(plain(r["type"], _RULE_STYLE.get(r["type"], "bold")))
        out.append("  ")
        out.append_text(plain(r["rule"], "bold"))
        if r.get("speedup_pct") is not None:
            kind = f" ({r['speedup_type']})" if r.get("speedup_type") else ""
            out.append(f"  est. speedup {r['speedup_pct']:.1f} %{kind}", style="bold")
        if r.get("title"):
            out.append("\n")
            out.append_text(plain(r["title"], "italic"))
        out.append("\n")
        out.append_text(plain(r["description"], "dim" if r["type"] == "INF" else ""))
    return out
