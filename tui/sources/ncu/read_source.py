"""Per-instruction results of a `.ncu-rep` (the SourceCounters section), through NVIDIA's
`ncu-report` package: every SASS instruction of each profiled function with its source
line, executed-instruction counts and warp-stall samples by reason, the other
per-instruction metrics (memory traffic, bank conflicts, divergent branches), and the
CUDA source text the report imported.

Instruction-level metrics are "instanced": one value per instruction, whose correlation
id is the instruction's address. A launch profiled without SourceCounters has none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui.sources.ncu.line_table import Cubin, embedded_cubins, lines_by_offset
from tui.sources.ncu.read_rep import action_at, actions, open_report

SAMPLES = "smsp__pcsamp_sample_count"
INST_EXECUTED = "inst_executed"
THREAD_INST_EXECUTED = "thread_inst_executed"
# `BRA `(.L_x_0) 0x7f..`: ncu_report names a branch's target label; ncu's Source page
# does not, and neither do we.
_LABEL = re.compile(r"`\([^)]*\)\s*")
_STALL = re.compile(r"^smsp__pcsamp_warps_issue_stalled_(\w+?)(_not_issued)?$")
# The other per-instruction metrics kept: memory traffic, bank conflicts, divergence,
# predication (names as ncu records them; a metric not in the report is skipped).
_KEPT_PREFIXES = ("memory_", "derived__memory_", "smsp__branch_targets",
                  "thread_inst_executed_true")
_INSTRUCTION_BYTES = 16  # every SASS instruction since Volta
_MAX_INSTRUCTIONS = 1_000_000  # per function: a guard against a walk that never ends

# Columns of the rows below, in the order of queries/sources/ncu_source_schema.sql.
SASS_COLUMNS = ("launch_id", "address", "function", "file", "line", "instruction",
                "inst_executed", "thread_inst_executed", "stall_samples",
                "stall_samples_not_issued")
STALL_COLUMNS = ("launch_id", "address", "reason", "samples", "samples_not_issued")
METRIC_COLUMNS = ("launch_id", "address", "metric", "value")
LINE_COLUMNS = ("launch_id", "address", "file", "line")


@dataclass
class LaunchSource:
    """One launch's instructions (SASS_COLUMNS rows), stall samples by reason
    (STALL_COLUMNS), other per-instruction metrics (METRIC_COLUMNS) and the text of
    each source file the report imported ('' for a file it only names). `lines`
    (LINE_COLUMNS) gives every source line of each instruction, inlined frames included."""

    launch_id: int
    name: str
    has_counters: bool
    sass: list[tuple[Any, ...]] = field(default_factory=list)
    stalls: list[tuple[Any, ...]] = field(default_factory=list)
    metrics: list[tuple[Any, ...]] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    lines: list[tuple[Any, ...]] = field(default_factory=list)


def _getter(metric: Any, integers_only: bool = False) -> Any | None:
    """The accessor of a metric's instance values (one kind for all of them), or None
    when they are not numbers (or, `integers_only`, not integers). `IMetric.value(i)`
    asks the kind again for every value: a third of the time of reading a big kernel."""
    kind = metric.kind(0)
    if kind in (metric.ValueKind_UINT32, metric.ValueKind_UINT64):
        return metric.as_uint64
    if kind in (metric.ValueKind_DOUBLE, metric.ValueKind_FLOAT) and not integers_only:
        return metric.as_double
    return None


def _instances(action: Any, name: str, skip_zero: bool = False) -> dict[int, float]:
    """address -> value of an instanced metric (empty when absent, or keyed by something
    other than addresses). `skip_zero`: a metric whose total is 0 has no instance worth
    reading (the stall reasons that did not occur)."""
    metric = action.metric_by_name(name)
    if metric is None or not metric.has_correlation_ids() or not metric.num_instances():
        return {}
    if skip_zero and not metric.as_double():
        return {}
    ids = metric.correlation_ids()
    value, key = _getter(metric), _getter(ids, integers_only=True)
    if value is None or key is None:  # keyed by opcode or other text, not by address
        return {}
    return {key(i): value(i) for i in range(metric.num_instances())}


def _walk(action: Any, start: int) -> list[tuple[int, str]]:
    """(address, SASS) from `start` to the end of its function (the first address with no
    SASS)."""
    out: list[tuple[int, str]] = []
    address = start
    while len(out) < _MAX_INSTRUCTIONS:
        text = action.sass_by_pc(address)
        if not text:
            break
        out.append((address, _LABEL.sub("", text.rstrip())))
        address += _INSTRUCTION_BYTES
    return out


def _functions(action: Any, kernel: str, counted: Iterable[int]) -> list[tuple[str, list]]:
    """(function label, its instructions) of the launch: the kernel from its entry point,
    then any other code its counters name (a called function), labelled by address."""
    entries = sorted(int(v) for v in _instances(action, "launch__function_pcs").values())
    covered: set[int] = set()
    out: list[tuple[str, list]] = []
    for i, start in enumerate(entries):
        code = _walk(action, start)
        covered.update(a for a, _ in code)
        out.append((kernel if i == 0 else f"{kernel} (entry {i})", code))
    base = entries[0] if entries else 0
    for address in sorted(set(counted) - covered):
        if address in covered:
            continue
        code = _walk(action, address)
        covered.update(a for a, _ in code)
        if code:
            out.append((f"function at +0x{address - base:x}", code))
    return out


def _stall_rows(action: Any, launch_id: int) -> list[tuple[Any, ...]]:
    by_reason: dict[tuple[int, str], list[float]] = {}
    for name in action.metric_names():
        found = _STALL.match(name)
        if not found:
            continue
        reason, not_issued = found.group(1), bool(found.group(2))
        for address, value in _instances(action, name, skip_zero=True).items():
            if value:
                cell = by_reason.setdefault((address, reason), [0, 0])
                cell[1 if not_issued else 0] += value
    return [(launch_id, address, reason, int(all_), int(not_issued))
            for (address, reason), (all_, not_issued) in sorted(by_reason.items())]


def _metric_rows(action: Any, launch_id: int, addresses: set[int]) -> list[tuple[Any, ...]]:
    """Every other instanced metric whose instances are this launch's instructions."""
    skip = {SAMPLES, INST_EXECUTED, THREAD_INST_EXECUTED, "launch__function_pcs"}
    rows: list[tuple[Any, ...]] = []
    for name in action.metric_names():
        if name in skip or not name.startswith(_KEPT_PREFIXES):
            continue
        values = _instances(action, name)
        if values and set(values) <= addresses:
            rows.extend((launch_id, a, name, float(v)) for a, v in sorted(values.items()))
    return rows


def _line_table(action: Any, ncu: Any, cubins: list[Cubin], entry: int,
                addresses: list[int]) -> dict[int, list[tuple[str, int]]]:
    """address -> every (file, line) the kernel's line table gives it; empty when the
    report holds no binary with the kernel's line table. The binary whose text section
    is as long as the code walked wins (the same kernel may be built for several GPUs)."""
    mangled = action.name(ncu.IAction.NameBase_MANGLED)
    length = (max(addresses) - entry + _INSTRUCTION_BYTES) if addresses else 0
    found = [c for c in cubins if c.text_size(mangled)]
    found.sort(key=lambda c: c.text_size(mangled) != length)
    rows = found[0].rows(mangled) if found else []
    if not rows:
        return {}
    offsets = lines_by_offset(rows, [a - entry for a in addresses if a >= entry])
    return {entry + offset: at for offset, at in offsets.items()}


def read_launch(ncu: Any, launch_id: int, action: Any,
                cubins: list[Cubin] | None = None) -> LaunchSource:
    kernel = action.name(ncu.IAction.NameBase_FUNCTION)
    executed = _instances(action, INST_EXECUTED)
    samples = _instances(action, SAMPLES)
    out = LaunchSource(launch_id, kernel, bool(executed or samples))
    if not out.has_counters:
        return out
    threads = _instances(action, THREAD_INST_EXECUTED)
    out.stalls = _stall_rows(action, launch_id)
    not_issued: dict[int, int] = {}
    for _, address, _, _, n in out.stalls:
        not_issued[address] = not_issued.get(address, 0) + n
    addresses: set[int] = set()
    functions = _functions(action, kernel, set(executed) | set(samples))
    entry = functions[0][1][0][0] if functions and functions[0][1] else 0
    table = _line_table(action, ncu, cubins or [], entry,
                        [a for a, _ in functions[0][1]] if functions else [])
    for function, code in functions:
        for address, text in code:
            info = action.source_info(address)
            file, line = (info.file_name(), info.line()) if info is not None else (None, None)
            addresses.add(address)
            out.sass.append((launch_id, address, function, file or None, line or None, text,
                             int(executed.get(address, 0)), int(threads.get(address, 0)),
                             int(samples.get(address, 0)), not_issued.get(address, 0)))
            at = table.get(address) or ([(file, line)] if file and line else [])
            out.lines.extend((launch_id, address, f, n) for f, n in at)
    out.metrics = _metric_rows(action, launch_id, addresses)
    out.files = {str(name): str(text or "") for name, text in action.source_files().items()}
    return out


def read_source(path: Path, launch_ids: Iterable[int] | None = None) -> list[LaunchSource]:
    """The per-instruction results of the launches `launch_ids` (all when None)."""
    ncu, context = open_report(path)
    try:
        cubins = embedded_cubins(Path(path).read_bytes())
    except OSError:
        cubins = []  # then each instruction has the one line source_info gives
    if launch_ids is None:
        return [read_launch(ncu, launch_id, action, cubins)
                for launch_id, action in actions(context)]
    out: list[LaunchSource] = []
    for launch_id in sorted(set(launch_ids)):
        action = action_at(context, launch_id)
        if action is not None:
            out.append(read_launch(ncu, launch_id, action, cubins))
    return out
