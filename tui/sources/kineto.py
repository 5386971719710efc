"""PyTorch profiler / Kineto Chrome traces (`.json`, `.json.gz`) into the schema."""

from __future__ import annotations

import json
import os
import queue
import shutil
import tempfile
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import duckdb

from tui.core.budget import available_cores, duckdb_threads, thread_cap
from tui.core.db import insert_rows, setting_in_block
from tui.core.errors import TraceError, first_line
from tui.core.interrupt import is_interrupt
from tui.core.queries import fill, fragment, load_query
from tui.core.units import format_bytes
from tui.sources.chrome_json import EventsFile, extract_events, is_gzip
from tui.sources.event_lines import event_separator, separated_to_lines
from tui.sources.parts_in_place import PartsInPlace, can_read_in_place
from tui.sources.text_repair import can_repair, repair_text

# DuckDB parses one JSON array per thread: a trace of more than this many bytes of events
# per core is split into one array per core (see chrome_json.py).
MIN_PART_BYTES = 48 << 20
# The parse runs a DuckDB thread a core, up to this many, whatever the budget: holding an
# array's reader and the rows it is writing costs little (16 threads peaked at 357 MiB
# under a 300MB budget, 1 thread at 345 MiB), unlike the sorts and medians after it, which
# keep db.duckdb_threads(). On a 16-core host under 1GB: 3 GB in 14.34 s against 15.90 s
# with 4 threads, 10 GB in 60.48 s against 68.80 s, the same peak (benchmarks/README).
MAX_PARSE_THREADS = 16
GZIP_RATIO = 8  # about how much a .json.gz trace inflates, to plan its parts
# DuckDB's JSON reader sizes its buffers by the largest event it accepts: a bigger limit
# costs time and memory on every trace (256 MB: 0.15 s more on a 700 MB one). Events are
# a few KB; a trace whose events outgrow the first limit is read again with the second.
MAX_EVENT_BYTES = 32 << 20
HUGE_EVENT_BYTES = 256 << 20
# How the stage queries' reader takes the parts: JSON arrays (what chrome_json.py writes),
# or one event a line (event_lines.py's rewrite). Any value DuckDB's reader refuses in an
# array reads as an all-NULL row (dropped later); a newline-delimited part is read with
# errors raised, since a line that is no whole event would otherwise lose its events.
ARRAYS = {"format": "array", "ignore_errors": True}
LINES = {"format": "newline_delimited", "ignore_errors": False}
# A plain file split into at most this many parts is read in place (parts_in_place.py);
# into more, from copies. Each read in place passes through Python, one thread at a time,
# where the copies run in the kernel on as many cores: a 3 GB trace's cold open on a
# 16-core host took 8.79-9.03 s read in place against 8.28-8.37 s from copies, on 8 of its
# cores 11.01-11.68 s against 11.04-11.52, on 4 16.05-16.06 s against 16.20-18.00; on a
# 2-core VM (the copy of 10 GB: 15-18 s) a 10 GB trace's parse took 48.6 s against 64.7 s
# (benchmarks/HISTORY.md, "Parts read in place").
IN_PLACE_MAX_PARTS = 4


def json_lines_wanted() -> bool:
    """TUI_JSON_LINES=1: a plain file's parts are rewritten one event a line and read by
    DuckDB's newline-delimited reader, which splits a file between threads, instead of as
    arrays, a file a thread. Off by default: on 2 cores it costs more than it saves
    (benchmarks/HISTORY.md, "Big traces, both shapes")."""
    return os.environ.get("TUI_JSON_LINES", "").strip() == "1"


def parse_threads(path: Path) -> int:
    """DuckDB's threads while it parses the events of `path`: a core each (TUI_THREADS at
    most) for a plain file. A .json.gz's parts come one after another from one inflating
    thread and are parsed a few at a time as they come: the budget's threads."""
    if is_gzip(path):
        return duckdb_threads()
    cap = thread_cap()
    return max(1, min(available_cores(), MAX_PARSE_THREADS, cap or MAX_PARSE_THREADS))


def reader_parts(path: Path) -> int:
    """How many arrays to split the events of `path` into for DuckDB to parse.

    One per parse thread for a plain file. A .json.gz is inflated in one thread, and its
    parts are parsed as they come: more, smaller parts let the parsing keep up."""
    try:
        size = path.stat().st_size
    except OSError:
        return 1
    threads = parse_threads(path)
    if is_gzip(path):
        return max(1, min(4 * threads, 8, size * GZIP_RATIO // MIN_PART_BYTES))
    return max(1, min(threads, size // MIN_PART_BYTES))


@cache
def with_gpu_events(name: str) -> str:
    """The query `name` over the events that are GPU work (kineto_gpu_events.sql)."""
    return fill(name, gpu_events=fragment("kineto_gpu_events"))


def load_kineto(path: Path, con: duckdb.DuckDBPyConnection, scratch_dir: Path) -> list[str]:
    """Load a Chrome-trace JSON file; returns warnings. Raises TraceError if unusable."""
    warnings: list[str] = []
    events = parse_chrome_events(con, path, scratch_dir, warnings)
    counts = con.execute(with_gpu_events("kineto_event_counts")).fetchone()
    assert counts is not None
    complete, unusable, begin_end, comm_records, shaped_ops, gpu_events = counts
    if complete == 0 and begin_end == 0:
        raise TraceError(f"{path}: the trace holds no complete (ph 'X') events")
    if unusable:
        warnings.append(f"{unusable:,} events have no usable ts/dur and were skipped")
    if begin_end:
        warnings.append(f"{begin_end:,} B/E (begin/end) events were skipped: only X events load")

    # The staged rows are views over kineto_events: finalize_activities reads them once.
    con.execute("DROP TABLE staged_gpu")
    con.execute("DROP TABLE staged_host")
    con.execute(load_query("kineto_macros"))
    con.execute(with_gpu_events("kineto_gpu_activities"))
    con.execute(load_query("kineto_host_activities"))
    con.execute(load_query("kineto_threads"))
    # each a few ms of planning even over no events: most traces have no collectives, and
    # shapes only where recorded with record_shapes
    if comm_records:
        con.execute(load_query("kineto_collectives"))
    if shaped_ops:
        con.execute(load_query("kineto_gemm_shapes"))
        con.execute(load_query("kineto_op_flops"))
    _load_devices(con, events.metadata)
    _load_meta(con, path, events.metadata)

    has_gpu = gpu_events > 0
    if not has_gpu and events.truncated:
        warnings.append(  # Kineto writes GPU events after the host's: cut off before them
            "no GPU events at all (kernels, copies, sets) in the part of the trace that "
            "could be read: the profiler writes them after the host's, so the cut took "
            "them all; copy or export the whole file again"
        )
    elif not has_gpu:
        warnings.append(
            "no GPU kernels, copies or sets in this trace: it is CPU-only. Record with "
            "torch.profiler activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]"
        )
    return warnings


def parse_chrome_events(con: duckdb.DuckDBPyConnection, path: Path, scratch_dir: Path,
                        warnings: list[str], table: str = "kineto_events_table",
                        stage: str = "kineto_stage_events") -> EventsFile:
    """Parse the events of a Chrome-trace JSON file into the table that the query `table`
    creates, with the query `stage` (parameters $path, $max_object_bytes); in parts, side
    by side, when the trace is big. Appends a warning when the trace is cut off."""
    tmp = Path(tempfile.mkdtemp(dir=scratch_dir, prefix="tui-events-"))
    try:
        con.execute(load_query(table))
        events = _parsed_in_parts(con, path, tmp, table, stage)
        if events is None:  # a small trace, or its parts were refused: one array
            events = _extract(path, tmp, 1)
            _parse(con, path, events, warnings, stage)
    finally:
        _remove_beside(tmp)
    if events.truncated:
        warnings.append(cut_off_warning(path, events))
    return events


def _remove_beside(folder: Path) -> None:
    """Remove the folder of the parts on a thread of its own, while the load goes on: the
    parts are a copy of the events, as big as the trace, and unlinking 3 GB of them took
    0.3-0.4 s of one core that the load waited on. The loader's scratch folder, which
    holds it, is removed at the end of the load whatever happens (loading/trace.py)."""
    threading.Thread(target=shutil.rmtree, args=(folder,), kwargs={"ignore_errors": True},
                     name="tui-remove-parts", daemon=True).start()


def cut_off_warning(path: Path, events: EventsFile) -> str:
    """The file ends early: how far it got. What is lost is not known (the file never says
    how long it was), only that the events after the cut are: the loader adds what that
    took where it can tell (no GPU events at all)."""
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    read = format_bytes(events.bytes_total)
    where = (f"the .gz is cut off after {format_bytes(size)}, which inflate to {read} of "
             "events" if is_gzip(path) else f"cut off after {read} of events")
    return (f"the file ends early: {where}; every complete event up to there is loaded, "
            "and whatever the profiler wrote after it is missing")


def _extract(path: Path, tmp: Path, parts: int,
             on_part: Callable[[Path], None] | None = None,
             in_place: bool = False) -> EventsFile:
    try:
        return extract_events(path, tmp / "events.json", parts, on_part, in_place)
    except OSError as exc:  # e.g. no space left for the scratch copy
        raise TraceError(f"{path}: cannot copy its events to {tmp.parent} "
                         f"({exc.strerror}); free space there or set TUI_CACHE_DIR") from None


def _parsed_in_parts(con: duckdb.DuckDBPyConnection, path: Path, tmp: Path, table: str,
                     stage: str) -> EventsFile | None:
    """A big trace's events, parsed in parts. None for a small trace, or when DuckDB
    refused a part (a split that fell inside an event, damaged text): then kineto_events
    is empty again and no part is left in `tmp`."""
    parts = reader_parts(path)
    if parts == 1:
        return None
    threads = parse_threads(path)
    gzip = is_gzip(path)
    lines = not gzip and json_lines_wanted()
    # the filesystem naming the parts read in place outlives the parser's queries
    with setting_in_block(con, "threads", str(max(threads, duckdb_threads()))), \
            PartsInPlace(con) as in_place, _PartParser(con, stage, threads) as parser:
        # a .json.gz's parts are parsed as they are inflated; a plain file's parts all
        # together, side by side: read where they lie in the file, or copied (on many
        # cores, or to be rewritten one event a line)
        events = _extract(path, tmp, parts, parser.submit_one if gzip else None,
                          in_place=(not gzip and not lines and parts <= IN_PLACE_MAX_PARTS
                                    and can_read_in_place()))
        if lines and _to_lines(events.paths):
            parser.reader = LINES
        if events.in_place is not None:
            try:
                parser.submit(in_place.names(events.in_place))
            except (duckdb.Error, ImportError, OSError):  # no filesystem for them: copies
                events = _extract(path, tmp, parts)
                parser.submit(events.paths)
        else:
            parser.submit(events.paths[parser.submitted:])
    if parser.ok:
        return events
    con.execute(load_query(table))  # without the rows of accepted parts
    for part in events.paths:
        part.unlink()
    return None


def _to_lines(parts: list[Path]) -> bool:
    """Rewrite every part one event a line (event_lines.py), a thread a part; False, with
    every part an array still, when the first two events are parted by no newline."""
    separator = event_separator(parts[0])
    if separator is None:
        return False
    with ThreadPoolExecutor(len(parts)) as pool:
        list(pool.map(separated_to_lines, parts, [separator] * len(parts)))
    return True


class _PartParser:
    """Parses the parts of a trace's events into kineto_events on a thread of its own, in
    order, as the extraction completes them: a .json.gz is inflated in one thread, and
    its first parts are parsed meanwhile. Parts are parsed side by side, a part a thread,
    in one query per `threads` parts ready (the last query takes what is left): a query
    over fewer would leave threads idle while the parts after it wait for it to end (a
    3 GB .json.gz in 8 parts, 4 threads: its first part parsed alone cost 5.5 s, 1.32x
    the plain file). `ok` is False when DuckDB refused a part (a split inside an event,
    damaged text): the caller starts again from one array.

    While it runs, the connection is the thread's alone."""

    def __init__(self, con: duckdb.DuckDBPyConnection, stage: str,
                 threads: int | None = None) -> None:
        self._con = con
        self._stage = stage
        self._threads = threads or duckdb_threads()
        self._ready: queue.SimpleQueue[list[Path | str] | None] = queue.SimpleQueue()
        # a daemon: a Ctrl-C between its start and the `with` block (so no __exit__)
        # must not leave the process waiting for it
        self._thread = threading.Thread(target=self._run, name="tui-parse-parts", daemon=True)
        self.ok = True
        self.submitted = 0  # parts queued so far
        self.reader = ARRAYS  # how the parts are written: set before they are submitted

    def submit(self, parts: Sequence[Path | str]) -> None:
        """Queue parts, to be parsed after those queued before (together, if they are
        still waiting together)."""
        self.submitted += len(parts)
        self._ready.put(list(parts))

    def submit_one(self, part: Path) -> None:
        self.submit([part])

    def __enter__(self) -> _PartParser:
        self._thread.start()
        return self

    def __exit__(self, exc_type: object, *_: object) -> None:
        # Ctrl-C can land anywhere in here too: the thread is told to end whatever happens,
        # else the process would wait for it forever on its way out
        try:
            if exc_type is not None:  # the extraction failed: stop parsing now
                self.ok = False
                self._con.interrupt()
        finally:
            self._ready.put(None)
            self._thread.join()

    def _run(self) -> None:
        stage = load_query(self._stage)
        waiting: list[str] = []  # parts ready, not parsed yet
        done = False
        while not done:
            batch = [self._ready.get()]
            while not self._ready.empty():
                batch.append(self._ready.get())
            done = None in batch
            waiting += [str(part) for parts in batch if parts is not None for part in parts]
            take = len(waiting) if done else len(waiting) - len(waiting) % self._threads
            paths, waiting = waiting[:take], waiting[take:]
            if paths and self.ok:
                try:
                    self._con.execute(stage, {"path": paths,
                                              "max_object_bytes": MAX_EVENT_BYTES,
                                              **self.reader})
                except duckdb.Error:
                    self.ok = False


def _parse(con: duckdb.DuckDBPyConnection, path: Path, events: EventsFile,
           warnings: list[str], stage_query: str) -> None:
    """Parse the events into kineto_events, with room for huge events and replacing bytes
    DuckDB cannot read, if it must."""
    stage = load_query(stage_query)
    names = _names(events)
    max_object_bytes = MAX_EVENT_BYTES
    repaired = False
    try:
        while True:
            try:
                con.execute(stage, {"path": names, "max_object_bytes": max_object_bytes,
                                    **ARRAYS})
                return
            except duckdb.Error as exc:
                if ("maximum_object_size" in str(exc)
                        and max_object_bytes < HUGE_EVENT_BYTES):
                    max_object_bytes = HUGE_EVENT_BYTES
                elif can_repair(exc) and not repaired:
                    replaced = sum(repair_text(part) for part in events.paths)  # not UTF-8
                    repaired = True
                    warnings.append(f"{replaced:,} invalid UTF-8 bytes or raw control "
                                    "characters in the trace's text were replaced")
                else:
                    raise
    except duckdb.Error as exc:
        if isinstance(exc, duckdb.OutOfMemoryException) or is_interrupt(exc):
            raise  # the budget or Ctrl-C, not the file (tui/loading/trace.py tries a larger budget)
        if "maximum_object_size" in str(exc):
            raise TraceError(f"{path}: an event is larger than {HUGE_EVENT_BYTES >> 20} MB, "
                             "more than tui reads; the file is damaged or not a trace "
                             "of events") from None
        detail = first_line(exc, 300)
        for part in events.paths:
            detail = detail.replace(f' in file "{part}"', "")
        raise TraceError(f"{path}: the trace events are not valid JSON ({detail}); the "
                         "file is damaged or not a Chrome trace") from None


def _names(events: EventsFile) -> list[str]:
    return [str(part) for part in events.paths]


def _load_devices(con: duckdb.DuckDBPyConnection, metadata: dict) -> None:
    """Devices from `deviceProperties`, plus any device id the GPU events use."""
    # the first entry of each device id, as INSERT OR IGNORE kept it: the table is new, and
    # an upsert's first use in a database costs a few ms (a small rank's load is ~0.1 s)
    rows: dict[int, tuple] = {}
    for props in metadata.get("deviceProperties") or []:
        if not isinstance(props, dict) or not isinstance(props.get("id"), int):
            continue
        major, minor = props.get("computeMajor"), props.get("computeMinor")
        rows.setdefault(props["id"], (
            props["id"],
            str(props.get("name") or f"GPU {props['id']}"),
            props.get("numSms") if isinstance(props.get("numSms"), int) else None,
            props.get("totalGlobalMem") if isinstance(props.get("totalGlobalMem"), int) else None,
            f"{major}.{minor}" if major is not None and minor is not None else None,
        ))
    if rows:
        insert_rows(con, "INSERT INTO devices", list(rows.values()))


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
    con.execute("DELETE FROM trace_meta WHERE list_contains($keys, key)", {"keys": list(meta)})
    insert_rows(con, "INSERT INTO trace_meta", list(meta.items()))


