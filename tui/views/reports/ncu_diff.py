"""`tui diff BEFORE.ncu-rep AFTER.ncu-rep`: the comparison as Rich text (kernel names,
source text and rule text come from the reports: always plain Text)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from tui.core.safe_text import plain
from tui.core.units import format_ns

_STATUS_STYLE = {"faster": "green", "slower": "red", "same": "dim"}


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}%"


def _count(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _kernels_table(kernels: list[dict[str, Any]]) -> Table:
    table = Table(title="Kernels (paired by name)", title_justify="left")
    for header, justify in (("kernel", "left"), ("before", "right"), ("after", "right"),
                            ("change", "right"), ("", "left"), ("verdict", "left")):
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    for k in kernels:
        change = "-" if k["change_pct"] is None else f"{k['change_pct']:+.1f}%"
        if k["speedup"] and k["status"] == "faster":
            change += f" ({k['speedup']:.2f}x)"
        verdict = k["verdict_before"] or "?"
        if k["verdict_after"] != k["verdict_before"]:
            verdict += f" → {k['verdict_after'] or '?'}"
        table.add_row(plain(k["name"]), format_ns(k["duration_before_ns"]),
                      format_ns(k["duration_after_ns"]), change,
                      Text(k["status"], _STATUS_STYLE.get(k["status"], "")), verdict)
    return table


def _detail(k: dict[str, Any]) -> list[Text]:
    out = [Text.assemble(("  ", ""), plain(k["name"], "bold"),
                         (f"  {k['status']}", _STATUS_STYLE.get(k["status"], "")))]
    if k["conditions_gone"]:
        out.append(Text(f"    gone: {', '.join(k['conditions_gone'])}", "green"))
    if k["conditions_new"]:
        out.append(Text(f"    new: {', '.join(k['conditions_new'])}", "red"))
    if k["registers_before"] != k["registers_after"]:
        out.append(Text(f"    registers a thread: {_count(k['registers_before'])} → "
                        f"{_count(k['registers_after'])}"))
    for f in k["figures"]:
        out.append(Text(f"    {f['label']}: {_pct(f['before'])} → {_pct(f['after'])}"))
    moved = [m for m in k["memory_instructions"] if (m["before"] or 0) != (m["after"] or 0)]
    for m in moved:
        out.append(Text(f"    {m['space']} memory instructions: {_count(m['before'])} → "
                        f"{_count(m['after'])}"))
    stalls = [s for s in k["stalls"][:3]
              if abs((s["after"] or 0) - (s["before"] or 0)) >= 0.5]
    if stalls:
        out.append(Text("    stalls (cycles per instruction): " + ", ".join(
            f"{s['reason']} {s['before'] or 0:.1f} → {s['after'] or 0:.1f}" for s in stalls)))
    for line in k["lines"]:
        where = f"{line['file']}:{line['line_before'] or '-'}→{line['line_after'] or '-'}"
        out.append(Text.assemble(
            "    ", plain(where, "dim"), "  ", plain(line["text"][:60], "cyan"),
            f"  {100 * line['share_before']:.1f}% → {100 * line['share_after']:.1f}% of "
            "the samples"))
    return out


def print_ncu_diff(result: dict[str, Any], console: Console) -> None:
    before, after = result["before"], result["after"]
    console.print(plain(f"before: {before.get('path', '?')}  ({before.get('format', '?')})",
                        style="bold"))
    console.print(plain(f"after:  {after.get('path', '?')}  ({after.get('format', '?')})",
                        style="bold"))
    console.print(_kernels_table(result["kernels"]))
    for name in result["vanished"]:
        console.print(plain(f"vanished: {name}", style="cyan"))
    for name in result["appeared"]:
        console.print(plain(f"appeared: {name}", style="yellow"))
    for k in result["kernels"]:
        lines = _detail(k)
        if len(lines) > 1:  # something moved beyond noise
            for line in lines:
                console.print(line)
