"""The Source view's cells, from a `SourceView`: pure functions, tested without the app.

Source text and SASS come from the report: always through `plain` (no markup, no control
codes). Hot lines get a heat colour by their share of the kernel's warp samples.
"""

from __future__ import annotations

from rich.text import Text

from tui.analysis.ncu.source import (
    UNCOALESCED_RATIO,
    SassLine,
    SourceLine,
    SourceView,
    Wait,
)
from tui.core.safe_text import plain
from tui.sources.ncu.sass import parse, producer_kind

HEAT_WIDTH = 8
_EIGHTHS = " ▏▎▍▌▋▊▉"
_SHORT_REASON = {"long_scoreboard": "long sb", "short_scoreboard": "short sb",
                 "math_pipe_throttle": "math pipe", "mio_throttle": "mio throttle",
                 "lg_throttle": "lg throttle", "tex_throttle": "tex throttle",
                 "branch_resolving": "branch", "no_instructions": "no instr",
                 "not_selected": "not selected", "dispatch_stall": "dispatch",
                 "warpgroup_arrive": "wg arrive"}

# The text first (cut to TEXT_WIDTH), then why: a wide terminal shows everything, a
# narrow one still the line, its samples and what it is.
LINE_COLUMNS = ("line", "samples", "share", "source", "waits on", "top stalls", "memory",
                "not issued", "executed")
SASS_COLUMNS = ("address", "line", "samples", "share", "instruction", "stall", "waits on",
                "not issued", "executed")
LINE_SASS_COLUMNS = ("address", "samples", "instruction", "stall", "waits on", "not issued",
                     "executed")
TEXT_COLUMNS = ("source", "instruction")
TEXT_WIDTH = 52


def heat_style(samples: int, total: int) -> str:
    share = samples / total if total else 0.0
    if share >= 0.20:
        return "bold red"
    if share >= 0.05:
        return "bold yellow"
    return "" if samples else "dim"


def count(value: float | None) -> str:
    """1234567 -> '1.23M'; blank for none."""
    if not value:
        return ""
    for suffix, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.0f}"


def share_cell(samples: int, total: int) -> Text:
    """'86.6% ██████▉ ' : the share and a bar of it."""
    if not samples or not total:
        return Text("")
    share = samples / total
    eighths = max(1, round(share * HEAT_WIDTH * 8))
    full, part = divmod(eighths, 8)
    bar = "█" * full + (_EIGHTHS[part] if part else "")
    return Text.assemble((f"{100 * share:5.1f}% ", ""), (bar.ljust(HEAT_WIDTH),
                                                         heat_style(samples, total)))


def reason(name: str) -> str:
    return _SHORT_REASON.get(name, name.replace("_", " "))


def stalls_cell(line: SourceLine) -> Text:
    if not line.stall_samples:
        return Text("")
    return Text(", ".join(f"{reason(s.reason)} {100 * s.samples / line.stall_samples:.0f}%"
                          for s in line.top_stalls[:2]))


def memory_cell(line: SourceLine | SassLine) -> Text:
    parts: list[tuple[str, str]] = []
    sectors, ideal = line.memory.sectors_per_request, line.memory.ideal_sectors_per_request
    if sectors is not None:
        bad = ideal is not None and sectors > ideal * UNCOALESCED_RATIO
        parts.append((f"{sectors:.1f} sect/req", "bold yellow" if bad else ""))
    ways = line.memory.bank_conflict_ways
    if ways is not None:
        parts.append((f"{ways:.0f}-way bank", "bold yellow"))
    out = Text()
    for i, part in enumerate(parts):
        out.append(", " if i else "")
        out.append(*part)
    return out


def wait_cell(wait: Wait | None, own_file: str | None) -> Text:
    if wait is None:
        return Text("")
    where = f"L{wait.line}" if wait.line is not None else f"0x{wait.address:x}"
    if wait.file and wait.file != own_file:
        where = f"{file_name(wait.file)}:{wait.line}"
    return Text.assemble(("← ", "bold"), (where, "bold"), f" {wait.kind}")


def file_name(path: str | None) -> str:
    return (path or "?").replace("\\", "/").rsplit("/", 1)[-1]


def line_cells(number: int, text: str | None, line: SourceLine | None,
               total: int, hot: bool) -> dict[str, Text]:
    """One row of the CUDA view: a line of the file, with its numbers when it has SASS."""
    source = plain(text if text is not None else "(text not available)",
                   "" if text is not None else "dim italic")
    mark = Text(f"{number:>5}", style=heat_style(line.stall_samples, total) if hot and line
                else "dim")
    if line is None:
        return {"line": mark, "source": source if text is not None else Text("")}
    return {"line": mark, "samples": Text(count(line.stall_samples), justify="right"),
            "share": share_cell(line.stall_samples, total), "source": source,
            "waits on": wait_cell(line.waits_on, line.file), "top stalls": stalls_cell(line),
            "memory": memory_cell(line),
            "not issued": Text(count(line.stall_samples_not_issued), justify="right"),
            "executed": Text(count(line.inst_executed), justify="right")}


def _sass_wait(row: SassLine, view: SourceView, offsets: dict[int, int]) -> Text:
    if row.waits_on is None:
        return Text("")
    producer = view.instruction_at(row.waits_on)
    if producer is None:
        return Text("")
    where = f"L{producer.line}" if producer.line else f"+0x{offsets[producer.address]:04x}"
    return Text.assemble(("← ", "bold"), (where, "bold"),
                         f" {producer_kind(parse(producer.instruction))}")


def sass_cells(row: SassLine, view: SourceView, offsets: dict[int, int],
               hot: bool) -> dict[str, Text]:
    total = view.total_samples
    return {
        "address": Text(f"+0x{offsets[row.address]:04x}",
                        style=heat_style(row.stall_samples, total) if hot else "dim"),
        "line": Text(f"{file_name(row.file)}:{row.line}" if row.line else "", style="dim"),
        "samples": Text(count(row.stall_samples), justify="right"),
        "share": share_cell(row.stall_samples, total),
        "instruction": plain(row.instruction),
        "stall": Text(reason(row.top_stall) if row.top_stall else ""),
        "waits on": _sass_wait(row, view, offsets),
        "not issued": Text(count(row.stall_samples_not_issued), justify="right"),
        "executed": Text(count(row.inst_executed), justify="right"),
    }


def ordered(cells: dict[str, Text], columns: tuple[str, ...]) -> list[Text]:
    return [cells.get(c, Text("")) for c in columns]


def offsets(view: SourceView) -> dict[int, int]:
    """Each instruction's offset from the start of its function (as cuobjdump numbers)."""
    return {s.address: view.offset(s.address) for s in view.sass}


def title(view: SourceView, files: str) -> Text:
    out = Text.assemble((f"#{view.launch_id} ", "bold"), plain(view.kernel, "bold"),
                        " · Source")
    if files:
        out.append_text(Text.assemble(" · ", plain(files)))
    if view.total_samples:
        hot = len(view.hot_lines() if view.status == "source" else view.hot_sass())
        out.append(f" · {view.total_samples:,} warp samples · {hot} hot "
                   f"{'line' if view.status == 'source' else 'instruction'}"
                   f"{'' if hot == 1 else 's'}")
    return out
