"""PyTorch profiler / Kineto Chrome traces (`.json`, `.json.gz`) into the schema."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import duckdb

from tui.errors import TraceError
from tui.queries import load_query
from tui.sources.chrome_json import GZIP_MAGIC, EventsFile, extract_events
from tui.sources.text_repair import can_repair, repair_text

GPU_CATEGORIES = ("kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset")
# DuckDB parses one JSON array per thread: a trace of more than this many bytes of events
# per core is split into one array per core (see chrome_json.py).
MIN_PART_BYTES = 48 << 20
GZIP_RATIO = 8  # about how much a .json.gz trace inflates, to plan its parts


def reader_parts(path: Path) -> int:
    """How many arrays to split the events of `path` into for DuckDB to parse."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            if f.read(2) == GZIP_MAGIC:
                size *= GZIP_RATIO
    except OSError:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cores or 1, 8, size // MIN_PART_BYTES))


def load_kineto(path: Path, con: duckdb.DuckDBPyConnection, scratch_dir: Path) -> list[str]:
    """Load a Chrome-trace JSON file; returns warnings. Raises TraceError if unusable."""
    warnings: list[str] = []
    with tempfile.TemporaryDirectory(dir=scratch_dir, prefix="tui-events-") as tmp:
        events = _extract(path, Path(tmp), reader_parts(path))
        if len(events.paths) > 1 and not _parsed_in_parts(con, events):
            # a split fell inside an event, or the text is damaged: one array, as usual
            for part in events.paths:
                part.unlink()
            events = _extract(path, Path(tmp), 1)
        if len(events.paths) == 1:
            _parse(con, path, events, warnings)
    if events.truncated:
        lost = events.bytes_dropped
        share = 100.0 * lost / max(events.bytes_total, 1)
        warnings.append(
            f"the trace is cut off: loaded every complete event; the last {lost:,} bytes "
            f"({share:.2g}% of the events' text) were an incomplete event and were dropped"
        )
    counts = con.execute(load_query("kineto_event_counts")).fetchone()
    assert counts is not None
    complete, unusable, begin_end = counts
    if complete == 0 and begin_end == 0:
        raise TraceError(f"{path}: the trace holds no complete (ph 'X') events")
    if unusable:
        warnings.append(f"{unusable:,} events have no usable ts/dur and were skipped")
    if begin_end:
        warnings.append(f"{begin_end:,} B/E (begin/end) events were skipped: only X events load")

    # The staged rows are views over kineto_events: finalize_activities reads them once.
    con.execute("DROP TABLE staged_gpu")
    con.execute("DROP TABLE staged_host")
    con.execute(load_query("kineto_gpu_activities"))
    con.execute(load_query("kineto_host_activities"))
    _load_devices(con, events.metadata)
    _load_meta(con, path, events.metadata)

    has_gpu = con.execute("SELECT 1 FROM staged_gpu LIMIT 1").fetchone() is not None
    if not has_gpu and events.truncated:
        warnings.append(  # Kineto writes GPU events after the host's: cut off before them
            "no GPU kernels, copies or sets in the part of the trace that could be read"
        )
    elif not has_gpu:
        warnings.append(
            "no GPU kernels, copies or sets in this trace: it is CPU-only. Record with "
            "torch.profiler activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]"
        )
    return warnings


def _extract(path: Path, tmp: Path, parts: int) -> EventsFile:
    try:
        return extract_events(path, tmp / "events.json", parts)
    except OSError as exc:  # e.g. no space left for the scratch copy
        raise TraceError(f"{path}: cannot copy its events to {tmp.parent} "
                         f"({exc.strerror}); free space there or set TUI_CACHE_DIR") from None


def _parsed_in_parts(con: duckdb.DuckDBPyConnection, events: EventsFile) -> bool:
    """Parse the events' parts in parallel; False when DuckDB refuses one of them."""
    try:
        con.execute(load_query("kineto_stage_events"), {"path": _names(events)})
    except duckdb.Error:
        return False
    return True


def _parse(con: duckdb.DuckDBPyConnection, path: Path, events: EventsFile,
           warnings: list[str]) -> None:
    """Parse the events into kineto_events, replacing bytes DuckDB cannot read once."""
    stage = load_query("kineto_stage_events")
    try:
        try:
            con.execute(stage, {"path": _names(events)})
        except duckdb.Error as exc:
            if not can_repair(exc):
                raise
            replaced = sum(repair_text(part) for part in events.paths)  # not UTF-8 / controls
            con.execute(stage, {"path": _names(events)})
            warnings.append(f"{replaced:,} invalid UTF-8 bytes or raw control characters "
                            "in the trace's text were replaced")
    except duckdb.Error as exc:
        detail = _first_line(exc)
        for part in events.paths:
            detail = detail.replace(f' in file "{part}"', "")
        raise TraceError(f"{path}: the trace events are not valid JSON ({detail}); the "
                         "file is damaged or not a Chrome trace") from None


def _names(events: EventsFile) -> list[str]:
    return [str(part) for part in events.paths]


def _load_devices(con: duckdb.DuckDBPyConnection, metadata: dict) -> None:
    """Devices from `deviceProperties`, plus any device id the GPU events use."""
    rows = []
    for props in metadata.get("deviceProperties") or []:
        if not isinstance(props, dict) or not isinstance(props.get("id"), int):
            continue
        major, minor = props.get("computeMajor"), props.get("computeMinor")
        rows.append((
            props["id"],
            str(props.get("name") or f"GPU {props['id']}"),
            props.get("numSms") if isinstance(props.get("numSms"), int) else None,
            props.get("totalGlobalMem") if isinstance(props.get("totalGlobalMem"), int) else None,
            f"{major}.{minor}" if major is not None and minor is not None else None,
        ))
    if rows:
        con.executemany("INSERT OR IGNORE INTO devices VALUES (?, ?, ?, ?, ?)", rows)


def _load_meta(con: duckdb.DuckDBPyConnection, path: Path, metadata: dict) -> None:
    meta = {"format": "kineto"}
    for key in ("schemaVersion", "trace_id", "cuda_driver_version", "cuda_runtime_version",
                "cupti_version", "baseTimeNanoseconds", "displayTimeUnit", "traceName",
                "roctracer_version", "hip_runtime_version"):
        if key in metadata and not isinstance(metadata[key], (dict, list)):
            meta[key] = str(metadata[key])
    dist = metadata.get("distributedInfo")
    if isinstance(dist, dict):
        meta["distributedInfo"] = json.dumps(dist)
        for key in ("rank", "world_size", "backend"):
            if key in dist:
                meta[key] = str(dist[key])
    con.executemany("INSERT OR REPLACE INTO trace_meta VALUES (?, ?)", list(meta.items()))


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0][:300]
