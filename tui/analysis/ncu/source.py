"""One launch's Source view: which CUDA line (or SASS instruction) the warps stall on, why,
and which load they are waiting for.

Built from the tables `load_source` fills: per line the sums of its instructions (as
Nsight Compute's Source page shows them), the top stall reasons, memory traffic, and,
beyond ncu, the line whose load a scoreboard stall waits on (tui/sources/ncu/sass.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import duckdb

from tui.analysis.ncu.verdict import STALL_REASONS
from tui.core.queries import load_query
from tui.sources.ncu.sass import parse, producer_kind

HOT_SHARE = 0.05  # a line with 5% or more of the kernel's warp samples is a hot line
WARM_SHARE = 0.01  # ... or, where none has that much (a big kernel), 1% or more
MAX_HOT = 10  # ... at most this many, the biggest first
TOP_STALLS = 3  # stall reasons named per line
WAIT_SHARE = 0.2  # a line "waits on" a load when that wait is 20% or more of its samples
UNCOALESCED_RATIO = 1.5  # sectors per request this far above the ideal: not coalesced
NOT_A_STALL = "selected"  # a sample of a warp that issued

NO_COUNTERS = ("no source counters (per-instruction samples): profile with `ncu --set full` (or "
               "`--section SourceCounters`) and `--import-source yes`, from code built with "
               "`nvcc -lineinfo`")
NO_LINES = ("no CUDA line information (build with `nvcc -lineinfo` to see source lines): "
            "the SASS alone, by function")
NOT_A_REPORT = ("the per-line view needs the .ncu-rep report: an ncu CSV export has no "
                "per-instruction results")

STALL_LABELS = {
    **STALL_REASONS,
    "no_instructions": STALL_REASONS["no_instruction"],
    "selected": "issuing (not a stall)",
    "warpgroup_arrive": "a warpgroup arrive barrier",
}


def stall_label(reason: str) -> str:
    return STALL_LABELS.get(reason, reason.replace("_", " "))


@dataclass(frozen=True)
class Stall:
    reason: str
    samples: int


@dataclass(frozen=True)
class Wait:
    """The load a line's (or instruction's) scoreboard stalls wait on most."""

    file: str | None
    line: int | None
    address: int
    kind: str  # 'global load', 'shared load', ...
    reason: str  # 'long_scoreboard' | 'short_scoreboard'
    samples: float


@dataclass
class Memory:
    """Memory traffic of a line's (or an instruction's) instructions, as ncu counts it."""

    global_requests: float | None = None  # L1 tag requests (ncu: L1 Tag Requests Global)
    global_sectors: float | None = None  # L2 sectors (L2 Theoretical Sectors Global)
    global_sectors_ideal: float | None = None  # ... were every access coalesced
    global_inst_executed: float | None = None  # warp-level executions of those instructions
    shared_conflict_ways: float | None = None  # the largest n-way bank conflict
    shared_conflicts_nway_sum: float | None = None  # ncu's L1 Conflicts Shared N-Way
    shared_wavefronts: float | None = None
    shared_wavefronts_ideal: float | None = None
    divergent_branches: float | None = None

    @property
    def sectors_per_request(self) -> float | None:
        """L2 sectors per warp-level global access (4 for coalesced 4-byte accesses)."""
        if not self.global_inst_executed or self.global_sectors is None:
            return None
        return self.global_sectors / self.global_inst_executed

    @property
    def bank_conflict_ways(self) -> float | None:
        """ncu's n-way figure where it costs wavefronts: a 64-bit load spans 2 wavefronts by
        design (n-way 2, none excessive), which is no conflict."""
        ways = self.shared_conflict_ways
        if ways is None or ways < 2:
            return None
        waves, ideal = self.shared_wavefronts, self.shared_wavefronts_ideal
        return None if waves is not None and ideal is not None and waves <= ideal else ways

    @property
    def ideal_sectors_per_request(self) -> float | None:
        if not self.global_inst_executed or self.global_sectors_ideal is None:
            return None
        return self.global_sectors_ideal / self.global_inst_executed


@dataclass
class SourceLine:
    file: str
    line: int
    text: str | None
    instructions: int
    inst_executed: int
    thread_inst_executed: int
    stall_samples: int
    stall_samples_not_issued: int
    memory: Memory
    top_stalls: list[Stall] = field(default_factory=list)
    waits_on: Wait | None = None
    dependent_stall_samples: float = 0.0  # other instructions' waits on this line's loads


@dataclass
class SassLine:
    address: int
    function: str
    file: str | None
    line: int | None
    instruction: str
    inst_executed: int
    thread_inst_executed: int
    stall_samples: int
    stall_samples_not_issued: int
    top_stall: str | None
    top_stall_samples: int
    waits_on: int | None  # the address of the load it waits on most (WAIT_SHARE or more)
    memory: Memory
    wait_samples: float = 0.0
    # every (file, line) its line table gives it, inlined frames included
    locations: list[tuple[str, int]] = field(default_factory=list)


@dataclass
class SourceFile:
    name: str
    origin: str | None  # 'report' | 'disk' | None (text not found)
    text: list[str]  # line n is text[n - 1]


@dataclass
class SourceView:
    """`status`: 'source' (CUDA lines), 'sass-only', 'no-counters' or 'unavailable'."""

    launch_id: int
    kernel: str
    status: str
    note: str = ""
    total_samples: int = 0
    lines: list[SourceLine] = field(default_factory=list)
    sass: list[SassLine] = field(default_factory=list)
    files: list[SourceFile] = field(default_factory=list)
    _by_address: dict[int, SassLine] = field(default_factory=dict, repr=False)
    _starts: dict[str, int] = field(default_factory=dict, repr=False)

    def instruction_at(self, address: int) -> SassLine | None:
        if len(self._by_address) != len(self.sass):
            self._by_address = {s.address: s for s in self.sass}
        return self._by_address.get(address)

    def offset(self, address: int) -> int:
        """An instruction's offset from the start of its function (cuobjdump's numbers)."""
        if not self._starts:
            for s in self.sass:
                self._starts.setdefault(s.function, s.address)
        row = self.instruction_at(address)
        return address - self._starts[row.function] if row is not None else 0

    def hot_lines(self) -> list[SourceLine]:
        """Lines with HOT_SHARE of the samples or more, the biggest first."""
        return _hot(self.lines, self.total_samples)

    def hot_sass(self) -> list[SassLine]:
        return _hot(self.sass, self.total_samples)

    def line_of(self, file: str | None, line: int | None) -> SourceLine | None:
        return next((x for x in self.lines if x.file == file and x.line == line), None)

    def sass_of(self, file: str | None, line: int | None) -> list[SassLine]:
        """The instructions counted under a line: those its line table gives that line
        (a header's line holds the code inlined from it)."""
        return [s for s in self.sass if (file, line) in s.locations
                or (not s.locations and s.file == file and s.line == line)]


def _hot(rows: list[Any], total: int) -> list[Any]:
    if total <= 0:
        return []
    hot = [r for r in rows if r.stall_samples >= HOT_SHARE * total] or [
        r for r in rows if r.stall_samples >= WARM_SHARE * total]
    return sorted(hot, key=lambda r: -r.stall_samples)[:MAX_HOT]


def _rows(cursor: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    names = [d[0] for d in cursor.description or []]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _memory(row: dict[str, Any]) -> Memory:
    return Memory(**{k: row.get(k) for k in Memory.__dataclass_fields__})


def source_view(con: duckdb.DuckDBPyConnection, launch_id: int, kernel: str) -> SourceView:
    """The view of a launch whose per-instruction results `load_source` has loaded."""
    params = {"launch_id": launch_id}
    loaded = dict(con.execute(load_query("ncu_source_loaded")).fetchall())
    if launch_id not in loaded:
        return SourceView(launch_id, kernel, "unavailable", NOT_A_REPORT)
    if not loaded[launch_id]:
        return SourceView(launch_id, kernel, "no-counters", NO_COUNTERS)
    sass = [SassLine(**{k: r[k] for k in SassLine.__dataclass_fields__
                        if k not in ("memory", "locations")},
                     memory=_memory(r))
            for r in _rows(con.execute(load_query("ncu_sass_listing"), params))]
    for s in sass:
        s.top_stall_samples = s.top_stall_samples or 0
        s.wait_samples = s.wait_samples or 0.0
        if s.wait_samples < WAIT_SHARE * s.stall_samples:
            s.waits_on = None  # a small part of its samples: not what it waits on
    view = SourceView(launch_id, kernel, "source", sass=sass,
                      total_samples=sum(s.stall_samples for s in sass))
    by_address = {s.address: s for s in sass}
    for address, file, line in con.execute(load_query("ncu_sass_line_rows"), params).fetchall():
        if address in by_address:
            by_address[address].locations.append((file, line))
    origins = {file: origin for file, origin, _ in
               con.execute(load_query("ncu_source_known_files")).fetchall()}
    texts: dict[str, list[str]] = {}
    for file, _, text in con.execute(load_query("ncu_source_file_text"), params).fetchall():
        texts.setdefault(file, []).append(text)
    named = sorted({s.file for s in sass if s.file}
                   | {f for s in sass for f, _ in s.locations if f})
    view.files = [SourceFile(f, origins.get(f), texts.get(f, [])) for f in named]
    view.lines = _lines(con, params)
    if not view.lines:
        view.status, view.note = "sass-only", NO_LINES
    elif not texts:
        view.status = "sass-only"
        view.note = (f"{', '.join(named)}: not in the report and not found on disk (profile "
                     "with `--import-source yes`, or put the file beside the report): the "
                     "SASS alone, with its line numbers")
    return view


def _lines(con: duckdb.DuckDBPyConnection, params: dict[str, Any]) -> list[SourceLine]:
    lines = {(r["file"], r["line"]): SourceLine(
        **{k: r[k] for k in ("file", "line", "text", "instructions", "inst_executed",
                             "thread_inst_executed", "stall_samples",
                             "stall_samples_not_issued")}, memory=_memory(r))
        for r in _rows(con.execute(load_query("ncu_source_lines"), params))}
    for file, line, reason, samples, _ in con.execute(
            load_query("ncu_source_line_stalls"), params).fetchall():
        entry = lines.get((file, line))
        if entry is not None and reason != NOT_A_STALL and len(entry.top_stalls) < TOP_STALLS:
            entry.top_stalls.append(Stall(reason, int(samples)))
    for r in _rows(con.execute(load_query("ncu_source_line_waits"), params)):
        consumer = lines.get((r["file"], r["line"]))
        producer = lines.get((r["producer_file"], r["producer_line"]))
        if producer is not None:  # a consumer on several lines counts once
            producer.dependent_stall_samples += r["once"]
        if (consumer is not None and consumer.waits_on is None  # biggest first
                and r["samples"] >= WAIT_SHARE * consumer.stall_samples):
            consumer.waits_on = Wait(r["producer_file"], r["producer_line"],
                                     r["producer_address"],
                                     producer_kind(parse(r["producer_instruction"])),
                                     r["reason"], r["samples"])
    return list(lines.values())


def _pct(part: float, total: int) -> str:
    return f"{100.0 * part / total:.1f}%" if total else "-"


def waits_text(wait: Wait, own_file: str | None, own_line: int | None = None) -> str:
    """'waits on the global load of line 9' (the file named when it is another one)."""
    if wait.line is not None and (wait.file, wait.line) == (own_file, own_line):
        return f"waits on its own {wait.kind}"
    where = f"line {wait.line}" if wait.line is not None else f"0x{wait.address:x}"
    if wait.file and wait.file != own_file:
        where += f" of {wait.file}"
    return f"waits on the {wait.kind} of {where}"


def explain_line(line: SourceLine, total: int) -> str:
    """One line in plain words: its share of the samples, why, and what it waits on."""
    parts = [f"line {line.line}: {_pct(line.stall_samples, total)} of the warp samples "
             f"({line.stall_samples:,} of {total:,})"]
    if line.top_stalls:
        top = line.top_stalls[0]
        parts.append(f"mostly {top.reason.replace('_', ' ')}: {stall_label(top.reason)}")
    if line.waits_on is not None:
        parts.append(f"it {waits_text(line.waits_on, line.file, line.line)}")
    if line.dependent_stall_samples >= WARM_SHARE * total:
        parts.append(f"{line.dependent_stall_samples:,.0f} samples on other instructions "
                     "wait on its loads")
    sectors, ideal = line.memory.sectors_per_request, line.memory.ideal_sectors_per_request
    if sectors is not None and ideal is not None and sectors > ideal * UNCOALESCED_RATIO:
        parts.append(f"its global accesses touch {sectors:.1f} sectors per request where "
                     f"{ideal:.1f} would do (uncoalesced)")
    ways = line.memory.bank_conflict_ways
    if ways is not None:
        parts.append(f"{ways:.0f}-way shared-memory bank conflicts")
    return "; ".join(parts)


def explain_sass(row: SassLine, total: int, view: SourceView) -> str:
    parts = [f"+0x{view.offset(row.address):04x}: {_pct(row.stall_samples, total)} of the "
             "warp samples"]
    if row.top_stall:
        parts.append(f"mostly {row.top_stall.replace('_', ' ')}: "
                     f"{stall_label(row.top_stall)}")
    if row.waits_on is not None:
        producer = view.instruction_at(row.waits_on)
        if producer is not None:
            kind = producer_kind(parse(producer.instruction))
            where = (f"line {producer.line}" if producer.line
                     else f"+0x{view.offset(producer.address):04x}")
            parts.append(f"it waits on the {kind} at {where}")
    return "; ".join(parts)


def _memory_json(m: Memory) -> dict[str, Any]:
    return {"l1_tag_requests_global": m.global_requests,
            "l2_sectors_global": m.global_sectors,
            "l2_sectors_global_ideal": m.global_sectors_ideal,
            "global_sectors_per_request": m.sectors_per_request,
            "shared_bank_conflict_ways": m.shared_conflict_ways}


def source_json(view: SourceView) -> dict[str, Any]:
    """The JSON of a kernel's source view (merged into its `kernels` entry)."""
    total = view.total_samples
    lines = [{
        "file": x.file, "line": x.line, "text": x.text,
        "stall_samples": x.stall_samples,
        "stall_samples_not_issued": x.stall_samples_not_issued,
        "instructions_executed": x.inst_executed,
        "thread_instructions_executed": x.thread_inst_executed,
        "top_stalls": [{"reason": s.reason, "samples": s.samples} for s in x.top_stalls],
        "waits_on_line": None if x.waits_on is None else x.waits_on.line,
        "waits_on_file": None if x.waits_on is None else x.waits_on.file,
        "waits_on": None if x.waits_on is None else x.waits_on.kind,
        "waits_on_samples": None if x.waits_on is None else round(x.waits_on.samples, 3),
        "dependent_stall_samples": round(x.dependent_stall_samples, 3),
        **_memory_json(x.memory),
    } for x in view.lines]
    sass = [{
        "address": f"0x{s.address:x}", "function": s.function, "file": s.file,
        "line": s.line, "instruction": s.instruction.strip(),
        "stall_samples": s.stall_samples,
        "stall_samples_not_issued": s.stall_samples_not_issued,
        "instructions_executed": s.inst_executed, "top_stall": s.top_stall,
        "waits_on_address": None if s.waits_on is None else f"0x{s.waits_on:x}",
    } for s in view.sass]
    hot = [{"file": x.file, "line": x.line, "text": x.text, "stall_samples": x.stall_samples,
            "share": round(x.stall_samples / total, 4) if total else None,
            "explanation": explain_line(x, total)} for x in view.hot_lines()]
    hot_sass = [{"address": f"0x{s.address:x}", "instruction": s.instruction.strip(),
                 "stall_samples": s.stall_samples,
                 "share": round(s.stall_samples / total, 4) if total else None,
                 "explanation": explain_sass(s, total, view)} for s in view.hot_sass()]
    return {"source_status": view.status, "source_note": view.note or None,
            "stall_samples": total, "source_lines": lines, "sass": sass, "hot_lines": hot,
            "hot_instructions": hot_sass}
