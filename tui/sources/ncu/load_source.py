"""A `.ncu-rep`'s per-instruction results -> DuckDB tables (queries/sources/ncu_source_schema.sql),
with each scoreboard stall traced to the load it waits for, and the CUDA source text:
from the report when it was imported (`--import-source yes`), else from disk.

Launches are loaded on demand (`launch_ids`): reading every instruction's SASS through
`ncu-report` costs a fraction of a millisecond an instruction, seconds for a report of
big library kernels.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from tui.core.queries import load_query
from tui.sources.ncu.read_source import (
    LINE_COLUMNS,
    METRIC_COLUMNS,
    SASS_COLUMNS,
    STALL_COLUMNS,
    LaunchSource,
    read_source,
)
from tui.sources.ncu.sass import WAIT_CLASSES, ControlFlow, parse, waits_on

MAX_SOURCE_BYTES = 8 * 1024 * 1024  # a source file larger than this is not read from disk

_TYPES = {
    "launch_id": pa.int32(), "address": pa.uint64(), "producer": pa.uint64(),
    "line": pa.int32(), "samples": pa.float64(), "value": pa.float64(),
    "inst_executed": pa.int64(), "thread_inst_executed": pa.int64(),
    "stall_samples": pa.int64(), "stall_samples_not_issued": pa.int64(),
    "samples_not_issued": pa.int64(), "has_counters": pa.bool_(),
}
WAIT_COLUMNS = ("launch_id", "address", "reason", "producer", "samples")


def _table(columns: Sequence[str], rows: list[tuple[Any, ...]]) -> pa.Table:
    arrays = [pa.array([row[i] for row in rows], type=_TYPES.get(name, pa.string()))
              for i, name in enumerate(columns)]
    return pa.Table.from_arrays(arrays, names=list(columns))


def trace_waits(launch: LaunchSource) -> list[tuple[Any, ...]]:
    """WAIT_COLUMNS rows: each scoreboard stall's samples, shared out among the producers
    of the registers the stalled instruction reads."""
    waited = {(a, r): n for _, a, r, n, _ in launch.stalls if r in WAIT_CLASSES and n}
    if not waited:
        return []
    rows: list[tuple[Any, ...]] = []
    by_function: dict[str, list[tuple[Any, ...]]] = {}
    for row in launch.sass:
        by_function.setdefault(row[2], []).append(row)
    for code in by_function.values():
        addresses = [row[1] for row in code]
        flow = ControlFlow(addresses, [parse(row[5]) for row in code])
        for i, address in enumerate(addresses):
            for reason in WAIT_CLASSES:
                samples = waited.get((address, reason))
                if not samples:
                    continue
                producers = waits_on(flow, i, reason)
                rows.extend((launch.launch_id, address, reason, addresses[p],
                             samples / len(producers)) for p in producers)
    return rows


def find_on_disk(file: str, report: Path) -> Path | None:
    """The source file a report names, where it was compiled or beside the report."""
    for candidate in (Path(file), report.parent / Path(file).name):
        try:
            if candidate.is_file() and candidate.stat().st_size <= MAX_SOURCE_BYTES:
                return candidate
        except OSError:
            continue
    return None


def _files(launches: list[LaunchSource], report: Path,
           known: set[str]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """(text rows, origin rows) of the files the launches' instructions name."""
    named = {row[2] for launch in launches for row in launch.lines if row[2]}
    named |= {row[3] for launch in launches for row in launch.sass if row[3]}
    named -= known
    imported: dict[str, str] = {}
    for launch in launches:
        for name, content in launch.files.items():
            if content and name not in imported:
                imported[name] = content
    text_rows: list[tuple[Any, ...]] = []
    origin_rows: list[tuple[Any, ...]] = []
    for name in sorted(named):
        text = imported.get(name)
        origin: str | None = "report"
        where: str | None = None
        if text is None:
            found = find_on_disk(name, report)
            origin, where = ("disk", str(found)) if found else (None, None)
            text = found.read_text(encoding="utf-8", errors="replace") if found else None
        origin_rows.append((name, origin, where))
        if text is not None:
            text_rows.extend((name, n, line.expandtabs(4))
                             for n, line in enumerate(text.splitlines(), start=1))
    return text_rows, origin_rows


def load_source(path: Path, con: duckdb.DuckDBPyConnection,
                launch_ids: Iterable[int] | None = None) -> list[int]:
    """Read the launches' per-instruction results into `con` (all launches when None;
    those already loaded are skipped). Returns the launch ids that have source counters.
    Raises NcuInputError when the report cannot be opened."""
    con.execute(load_query("ncu_source_schema"))
    loaded = {r[0] for r in con.execute(load_query("ncu_source_loaded")).fetchall()}
    wanted = None if launch_ids is None else [i for i in launch_ids if i not in loaded]
    if wanted == []:
        return _with_counters(con, launch_ids)
    launches = [ls for ls in read_source(Path(path), wanted) if ls.launch_id not in loaded]
    known = {r[0] for r in con.execute(load_query("ncu_source_known_files")).fetchall()}
    text_rows, origin_rows = _files(launches, Path(path), known)
    tables = {
        "ncu_source_launches": _table(("launch_id", "has_counters"),
                                      [(ls.launch_id, ls.has_counters) for ls in launches]),
        "ncu_sass": _table(SASS_COLUMNS, [r for ls in launches for r in ls.sass]),
        "ncu_sass_stalls": _table(STALL_COLUMNS, [r for ls in launches for r in ls.stalls]),
        "ncu_sass_metrics": _table(METRIC_COLUMNS, [r for ls in launches for r in ls.metrics]),
        "ncu_sass_lines": _table(LINE_COLUMNS, [r for ls in launches for r in ls.lines]),
        "ncu_sass_waits": _table(WAIT_COLUMNS, [r for ls in launches for r in trace_waits(ls)]),
        "ncu_source_text": _table(("file", "line", "text"), text_rows),
        "ncu_source_files": _table(("file", "origin", "path"), origin_rows),
    }
    for name, table in tables.items():
        if table.num_rows:
            con.from_arrow(table).insert_into(name)  # constant table names, not input
    return _with_counters(con, launch_ids)


def _with_counters(con: duckdb.DuckDBPyConnection,
                   launch_ids: Iterable[int] | None) -> list[int]:
    ids = [r[0] for r in con.execute(load_query("ncu_source_loaded")).fetchall() if r[1]]
    if launch_ids is None:
        return ids
    wanted = set(launch_ids)
    return [i for i in ids if i in wanted]
