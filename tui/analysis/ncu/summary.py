"""`tui --summary REPORT`: every profiled launch with its verdict, figures and NVIDIA's
findings, as a JSON-ready dict and as Rich tables."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import duckdb
from rich.console import Console, Group, JustifyMethod
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from tui.analysis.ncu.figures import FIGURES, KernelFigures, Metrics, kernel_figures
from tui.analysis.ncu.nvidia import sol_kind
from tui.analysis.ncu.source import source_json, source_view
from tui.analysis.ncu.verdict import STALL_REASONS, decide
from tui.core.queries import load_query
from tui.core.safe_text import plain
from tui.core.units import format_ns

_SHOWN_RULE_TYPES = ("ERR", "WRN", "OPT")  # INF findings stay in the JSON only
_RAW_ONLY = "warp stalls, pipe utilisation and the roofline"


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value


def _rows(cursor: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    names = [d[0] for d in cursor.description or []]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _figures_dict(f: KernelFigures) -> dict[str, Any]:
    out: dict[str, Any] = {k: _finite(f[k]) for k in FIGURES if k != "duration_ns"}
    out["occupancy_limiters"] = f.occupancy_limiters
    out["stalls"] = [{"reason": r, "label": STALL_REASONS.get(r, r),
                      "cycles_per_instruction": c} for r, c in f.stalls]
    out["pipes_pct"] = {k: _finite(v) for k, v in f.pipes.items()}
    out["global_load_sectors_per_request"] = _finite(f.global_load_sectors_per_request)
    out["shared_load_ways"] = _finite(f.shared_load_ways)
    out["shared_excess"] = _finite(f.shared_excess)
    out["memory_instructions"] = {k: _finite(v) for k, v in f.memory_instructions.items()}
    out["atomic_instructions"] = _finite(f.atomic_instructions)
    out["spill_requests"] = _finite(f.spill_requests)
    r = f.roofline
    out["roofline"] = None if r is None else {
        "precision": r.precision, "flop_per_s": r.flop_per_s,
        "peak_flop_per_s": r.peak_flop_per_s, "pct_of_peak": r.pct_of_peak,
        "arithmetic_intensity": r.arithmetic_intensity, "ridge_point": r.ridge_point,
        "side": r.side}
    return out


# What a Triton kernel's author turns for the CUDA C remedies of the advice table.
TRITON_KNOBS = ("A Triton kernel: there the block size, registers and latency hiding are "
                "triton.Config's BLOCK sizes, num_warps, num_stages and maxnreg (the register "
                "cap, in place of __launch_bounds__ or -maxrregcount), tried by "
                "@triton.autotune.")


def ncu_summary(con: duckdb.DuckDBPyConnection,
                progress: Callable[[int, int], None] | None = None,
                with_source: bool = False) -> dict[str, Any]:
    """The loaded Nsight Compute report: {"source", "kernels" (report order), "warnings"}.

    `progress(done, total)` is called after each launch (the app's progress bar).
    `with_source`: each launch gets its Source view (`source_json`) from what
    `load_source` loaded (nothing loaded: a note saying the view needs the report).
    """
    if with_source:
        con.execute(load_query("ncu_source_schema"))
    meta = dict(con.execute(load_query("ncu_meta")).fetchall())
    warnings = [v for k, v in sorted(meta.items()) if k.startswith("warning.")]
    source: dict[str, Any] = {k: v for k, v in meta.items() if not k.startswith("warning.")}
    if "kernels" in source:
        source["kernels"] = int(source["kernels"])
    kernels: list[dict[str, Any]] = []
    launches = _rows(con.execute(load_query("ncu_kernels")))
    for k in launches:
        params = {"launch_id": k["launch_id"]}
        figures = kernel_figures(Metrics(con.execute(
            load_query("ncu_launch_metrics"), params).fetchall()))
        rules = _rows(con.execute(load_query("ncu_launch_rules"), params))
        verdict = decide(figures, rules)
        sol = next((r for r in rules if r["rule"] == "SOLBottleneck"), None)
        nvidia_kind = sol_kind(sol["description"]) if sol else None
        entry = {
            "launch_id": k["launch_id"], "name": k["name"], "short_name": k["short_name"],
            "mangled_name": k["mangled_name"],
            "grid": [k["grid_x"], k["grid_y"], k["grid_z"]],
            "block": [k["block_x"], k["block_y"], k["block_z"]],
            "registers_per_thread": k["registers_per_thread"],
            "shared_memory_bytes": k["shared_memory_bytes"],
            "duration_ns": k["duration_ns"], "device": k["device"], "stream": k["stream"],
            "sm_pct": _finite(figures["sm_pct"]), "mem_pct": _finite(figures["mem_pct"]),
            "verdict": verdict.kind, "bottleneck": verdict.unit,
            "explanation": verdict.explanation, "next_step": verdict.next_step,
            "advice": [{"condition": a.condition, "finding": a.finding, "step": a.step,
                        "nvidia": a.nvidia} for a in verdict.advice],
            **{key: v for key, v in _figures_dict(figures).items()
               if key not in ("sm_pct", "mem_pct")},
            "nvidia_sol": sol["description"] if sol else None,
            "nvidia_verdict": nvidia_kind,
            "nvidia_rules": rules,
        }
        if with_source:
            view = source_view(con, k["launch_id"], k["short_name"])
            entry.update(source_json(view))
            if any(line.file.endswith(".py") for line in view.lines):
                # Triton writes a kernel's line table against its Python source: the CUDA C
                # knobs the advice names are triton.Config's there
                entry["language"] = "triton"
                if verdict.kind is not None:
                    entry["next_step"] = f"{entry['next_step']} {TRITON_KNOBS}"
        kernels.append(entry)
        label = f"launch {k['launch_id']} ({k['short_name']})"
        if verdict.kind is None:
            warnings.append(f"{label}: no SpeedOfLight metrics, so no verdict")
        elif nvidia_kind and nvidia_kind != verdict.kind:
            warnings.append(f"{label}: our verdict '{verdict.kind}' differs from NVIDIA's "
                            f"SpeedOfLight finding '{nvidia_kind}'")
        if progress is not None:
            progress(len(kernels), len(launches))
    if source.get("format") == "ncu-details-csv":
        warnings.append(f"the details page has no {_RAW_ONLY} metrics: open the .ncu-rep "
                        "or an `ncu --csv --page raw` export to see them")
    return {"source": source, "kernels": kernels, "warnings": warnings}


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}%"


def _kernels_table(kernels: list[dict[str, Any]]) -> Table:
    table = Table(title="Nsight Compute: profiled kernels (report order)", title_justify="left")
    with_sol = any(k["nvidia_sol"] for k in kernels)  # a raw page has no rule rows
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("#", "right"), ("kernel", "left"), ("duration", "right"), ("SM %", "right"),
        ("memory %", "right"), ("verdict", "left"), ("NVIDIA SOL", "left"))
    for header, justify in columns[: 7 if with_sol else 6]:
        table.add_column(header, justify=justify,
                         overflow="fold" if header == "kernel" else "ellipsis")
    for k in kernels:
        verdict = k["verdict"] or "?"
        if k["bottleneck"]:
            verdict += f" ({k['bottleneck']})"
        cells = [Text(str(k["launch_id"])), plain(k["short_name"] or k["name"]),
                 Text(format_ns(k["duration_ns"])), Text(_pct(k["sm_pct"])),
                 Text(_pct(k["mem_pct"])), Text(verdict, style="bold"),
                 Text(k["nvidia_verdict"] or "-")]
        table.add_row(*cells[: 7 if with_sol else 6])
    return table


def _figures_text(k: dict[str, Any]) -> Text:
    parts = [f"DRAM {_pct(k['dram_pct'])}", f"L2 {_pct(k['l2_pct'])}", f"L1 {_pct(k['l1_pct'])}",
             f"occupancy {_pct(k['achieved_occupancy_pct'])} of "
             f"{_pct(k['theoretical_occupancy_pct'])}"]
    if k["occupancy_limiters"]:
        parts[-1] += f" (limited by {', '.join(k['occupancy_limiters'])})"
    if k["waves_per_sm"] is not None and k["sm_count"]:
        parts.append(f"{k['waves_per_sm']:.2f} waves on {k['sm_count']:.0f} SMs")
    if k["stalls"]:
        parts.append("stalls: " + ", ".join(
            f"{s['reason']} {s['cycles_per_instruction']:.1f} cyc/instr" for s in k["stalls"]))
    pipes = {p: v for p, v in k["pipes_pct"].items() if v is not None and v >= 1}
    if pipes:
        parts.append("pipes: " + ", ".join(f"{p} {v:.0f}%" for p, v in pipes.items()))
    roof = k["roofline"]
    if roof:
        # ncu's roofline counts the FP instructions of the CUDA cores alone: a kernel whose
        # busiest pipe is the tensor pipe does its math where this figure does not look
        tensor = (pipes and max(pipes, key=lambda p: pipes[p]) == "tensor")
        parts.append(f"roofline {roof['precision']}"
                     + (" (CUDA cores only: its tensor-core math is not counted)"
                        if tensor else "")
                     + f": {roof['flop_per_s'] / 1e9:.0f} GFLOP/s "
                     f"({roof['pct_of_peak']:.0f}% of peak), {roof['arithmetic_intensity']:.2f} "
                     f"FLOP/byte, {roof['side']} side of the ridge at "
                     f"{roof['ridge_point']:.1f}")
    return Text(" · ".join(parts), style="dim")


def _first_sentence(text: str, limit: int = 220) -> str:
    """NVIDIA's findings run to several sentences; the first says what was found (the
    JSON keeps the whole text)."""
    match = re.match(r"(.+?[.!?])(\s|$)", text)
    sentence = match.group(1) if match else text
    return sentence if len(sentence) <= limit else sentence[: limit - 1] + "…"


def _kernel_detail(k: dict[str, Any]) -> Group:
    header = Text.assemble((f"#{k['launch_id']} ", "bold"), plain(k["name"], "bold"),
                           f"  {format_ns(k['duration_ns'])}")
    verdict = Text.assemble(("verdict: ", "bold"), (k["verdict"] or "none", "bold cyan"),
                            " — ", k["explanation"])
    lines: list[Any] = [header, verdict, Text.assemble(("next: ", "bold"), k["next_step"])]
    for a in k.get("advice", [])[1:]:
        lines.append(Text.assemble(("also: ", "bold"), f"{a['finding']}. {a['step']}"))
    if k.get("advice") and k["advice"][0]["nvidia"]:
        lines.append(Text.assemble(("NVIDIA agrees: ", "bold"), k["advice"][0]["nvidia"]))
    lines.append(_figures_text(k))
    if k["nvidia_sol"]:
        lines.append(Text.assemble(("NVIDIA SpeedOfLight: ", "bold"), plain(k["nvidia_sol"])))
    shown = sorted((r for r in k["nvidia_rules"] if r["type"] in _SHOWN_RULE_TYPES
                    and r["rule"] != "SOLBottleneck"),
                   key=lambda r: -(r["speedup_pct"] or -1.0))  # biggest estimated gain first
    if shown:
        rules = Table(show_header=True, box=None, padding=(0, 1), expand=False)
        for header_text in ("type", "rule", "est. speedup", "finding"):
            rules.add_column(header_text, overflow="fold")
        for r in shown:
            speedup = "-" if r["speedup_pct"] is None else (
                f"{r['speedup_pct']:.1f}% {r['speedup_type'] or ''}".rstrip())
            rules.add_row(plain(r["type"]), plain(r["rule"]), Text(speedup),
                          plain(_first_sentence(r["description"])))
        lines.append(rules)
    return Group(*lines)


_SHOWN_HOT = 3  # hottest lines named per kernel in the text (the JSON has them all)
_NO_VIEW = ("no-counters", "unavailable")


def _file_name(path: str | None) -> str:
    return (path or "?").replace("\\", "/").rsplit("/", 1)[-1]


def _hot_text(k: dict[str, Any], say_missing: bool) -> list[Text]:
    """The kernel's hottest CUDA lines (or SASS instructions) with why, for the text."""
    status = k.get("source_status")
    if status is None or (status in _NO_VIEW and not say_missing):
        return []
    if status in _NO_VIEW:
        return [Text.assemble(("source: ", "bold"), plain(k["source_note"]))]
    out: list[Text] = []
    if k.get("source_note"):
        out.append(Text.assemble(("source: ", "bold"), plain(k["source_note"], "dim")))
    if k["hot_lines"]:
        out.append(Text("hottest lines:", style="bold"))
        for h in k["hot_lines"][:_SHOWN_HOT]:
            out.append(Text.assemble(
                "  ", plain(f"{_file_name(h['file'])}:{h['line']}", "bold"), "  ",
                plain((h["text"] or "").strip(), "cyan")))
            out.append(Text.assemble("    ", plain(h["explanation"])))
    elif k["hot_instructions"]:
        out.append(Text("hottest SASS instructions:", style="bold"))
        for h in k["hot_instructions"][:_SHOWN_HOT]:
            out.append(Text.assemble("  ", plain(h["instruction"].strip(), "cyan")))
            out.append(Text.assemble("    ", plain(h["explanation"])))
    else:
        out.append(Text("hottest lines: none (no warp samples)", style="dim"))
    return out


def render_ncu_summary(summary: dict[str, Any], console: Console) -> None:
    """Print the summary: a table of launches, then each launch's verdict beside NVIDIA's
    findings. Names and rule text come from the input file: always plain Text."""
    source = summary.get("source", {})
    title = Text.assemble(("Nsight Compute report ", "bold"), plain(source.get("path", "")),
                          f"  ({source.get('format', '?')}, {len(summary['kernels'])} launches")
    if source.get("device_name"):
        title.append_text(Text.assemble(", ", plain(source["device_name"])))
    console.print(title.append(")"))
    console.print(_kernels_table(summary["kernels"]))
    statuses = {k.get("source_status") for k in summary["kernels"]}
    missing_everywhere = bool(statuses) and statuses <= set(_NO_VIEW)
    for k in summary["kernels"]:
        console.print()
        detail = _kernel_detail(k)
        detail.renderables.extend(_hot_text(k, not missing_everywhere))
        console.print(Padding(detail, (0, 0, 0, 1)))
    if missing_everywhere and summary["kernels"]:
        console.print()
        console.print(Text.assemble(("source: ", "bold"),
                                    plain(summary["kernels"][0]["source_note"])))
    for warning in summary.get("warnings", []):
        console.print(Text.assemble(("warning: ", "yellow"), plain(warning)))
