"""Read XLA's XSpace protobuf (`<host>.xplane.pb`) into the events of its trace-viewer JSON.

JAX and TensorFlow always write `LOGDIR/plugins/profile/<run>/<host>.xplane.pb`; the
`<host>.trace.json.gz` beside it (when there is one) is what XLA's converter
(`xla/tsl/profiler/convert/xplane_to_trace_events.cc`) made of it. This module does the same
conversion, so both files of a run give the same rows:

- planes: `/host:CPU` is pid 701 (after device ids 1..500 and custom planes 501..700); the
  `/device:GPU:N` planes (else `/device:TPU:`, else `/device:CUSTOM:`) are pid 1 + plane id;
- lines are threads: tid is the line's display id (else its id) cut to 32 bits, the thread
  name its display name (else its name); the "Async XLA Ops" line is left out;
- an event starts at line.timestamp_ns * 1000 + offset_ps picoseconds; ts and dur are in µs
  (ps / 1e6, a zero duration shown as 1 ps, as the JSON has them);
- the name is the event metadata's display name (its full name then goes to args.long_name)
  else its name, or the value of a `step_name` stat; internal events (memory allocations,
  tf.data producer/consumer marks) are left out;
- args: see xplane_stats.

Unlike the JSON (capped at 5 million events), every event is kept.

The protobuf runtime parses the file down to each line, with the line's events left as
bytes (xspace_schema.RawXSpace); the events and their stats, the bulk of the file, are
decoded all at once by proto_wire.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
from google.protobuf.message import DecodeError, Message

from tui.core.errors import TraceError
from tui.sources import proto_wire
from tui.sources.xla_counters import COUNTERS_LINE, counter_samples
from tui.sources.xplane_stats import Lookup, PlaneStats
from tui.sources.xspace_schema import RawXSpace

HOST_PLANE = "/host:CPU"
DEVICE_PLANE_PREFIXES = ("/device:GPU:", "/device:TPU:", "/device:CUSTOM:")
HOST_PID = 701  # kHostThreadsDeviceId
FIRST_DEVICE_PID = 1  # kFirstDeviceId: a device plane's pid is this plus the plane's id
_ASYNC_OPS_LINE = "Async XLA Ops"  # XLA's converter skips it: its ops repeat the streams'
# Events the trace viewer never shows (xplane_schema.cc: IsInternalEvent).
_INTERNAL_EVENTS = frozenset({
    "MemoryAllocation", "MemoryDeallocation", "PrefetchProduce", "PrefetchConsume",
    "ParallelInterleaveProduce", "ParallelInterleaveConsume",
    "ParallelInterleaveInitializeInput", "ParallelMapProduce", "ParallelMapConsume",
    "MapAndBatchProduce", "MapAndBatchConsume", "ParseExampleProduce", "ParseExampleConsume",
})
_PS_LIMIT = (1 << 62) // 1000  # line timestamps (ns) beyond this overflow int64 picoseconds
# XEvent fields (xspace_schema), all varints but `stats`.
_EV_METADATA, _EV_OFFSET, _EV_DURATION, _EV_STATS, _EV_OCCURRENCES = 1, 2, 3, 4, 5

SCHEMA = pa.schema([
    ("ph", pa.string()),
    ("pid", pa.int64()),
    ("tid", pa.int64()),
    ("ts", pa.float64()),
    ("dur", pa.float64()),
    ("name", pa.string()),
    ("args", pa.string()),
])


def read_xplane_events(path: Path) -> pa.Table:
    """One row per trace-viewer event of the XSpace at `path` (columns: SCHEMA): the 'X'
    events, plane by plane, line by line, in file order; then one 'process_name' row per
    process and one 'thread_name' row per thread, args {"name": ...} (tid null for a
    process). The schema's metadata holds the XSpace's `hostnames` (JSON). Raises
    TraceError, one line, on input that cannot be read."""
    return read_xplane(path)[0]


def read_xplane(path: Path) -> tuple[pa.Table, pa.Table]:
    """The events of the XSpace at `path` (read_xplane_events) and its GPU counter samples
    (xla_counters.counter_samples). Raises TraceError, one line, on input that cannot be
    read."""
    path = Path(path)
    space = parse_xspace(path)
    try:
        counters = counter_samples(space)
    except proto_wire.WireError as exc:
        raise TraceError(f"{path}: not a readable .xplane.pb: corrupt counter samples "
                         f"({exc}); copy it again or record the profile again") from None
    columns = _Columns()
    names: dict[int, str] = {}
    threads: dict[tuple[int, int], str] = {}
    try:
        for pid, plane in _converted_planes(space):
            if plane.name:
                names[pid] = plane.name
            _add_plane(pid, plane, columns, threads)
    except (proto_wire.WireError, pa.ArrowInvalid) as exc:
        raise TraceError(f"{path}: not a readable .xplane.pb: corrupt events ({exc}); "
                         "copy it again or record the profile again") from None
    table = pa.concat_tables([columns.table(), _metadata_rows(names, threads)])
    return (table.replace_schema_metadata({"hostnames": json.dumps(list(space.hostnames))}),
            counters)


def parse_xspace(path: Path) -> Message:
    """The XSpace in `path`, its events left as bytes; TraceError with one line when it
    cannot be had."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TraceError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if not data:
        raise TraceError(f"{path}: the file is empty; it holds no profile")
    space = RawXSpace()
    try:
        space.ParseFromString(data)
    except (DecodeError, ValueError, RuntimeError):
        raise TraceError(f"{path}: not a readable .xplane.pb: truncated or corrupt (it does "
                         "not parse as an XSpace protobuf); copy it again or record the "
                         "profile again") from None
    if not any(p.name == HOST_PLANE or p.name.startswith(DEVICE_PLANE_PREFIXES)
               for p in space.planes):
        raise TraceError(f"{path}: holds no {HOST_PLANE} or /device: plane; it is not an XLA "
                         "profile (.xplane.pb) or it is damaged")
    return space


def _converted_planes(space: Message) -> list[tuple[int, Message]]:
    """The planes XLA's converter turns into processes, with their pids."""
    out = [(HOST_PID, p) for p in space.planes if p.name == HOST_PLANE][:1]
    for prefix in DEVICE_PLANE_PREFIXES:  # one kind of device plane: the first kind present
        devices = [p for p in space.planes if p.name.startswith(prefix)]
        if devices:
            out += [((FIRST_DEVICE_PID + p.id) & 0xFFFFFFFF, p) for p in devices]
            break
    return out


def _metadata_rows(names: dict[int, str], threads: dict[tuple[int, int], str]) -> pa.Table:
    """'process_name' and 'thread_name' rows, where the name is not empty (as XLA's JSON)."""
    procs = [(pid, None, "process_name", n) for pid, n in names.items()]
    lanes = [(pid, tid, "thread_name", n) for (pid, tid), n in threads.items() if n]
    rows = procs + lanes
    return pa.table({
        "ph": pa.array(["M"] * len(rows), pa.string()),
        "pid": pa.array([r[0] for r in rows], pa.int64()),
        "tid": pa.array([r[1] for r in rows], pa.int64()),
        "ts": pa.nulls(len(rows), pa.float64()),
        "dur": pa.nulls(len(rows), pa.float64()),
        "name": pa.array([r[2] for r in rows], pa.string()),
        "args": pa.array([json.dumps({"name": r[3]}, ensure_ascii=False) for r in rows],
                         pa.string()),
    }, schema=SCHEMA)


@dataclass
class _Columns:
    """The 'X' rows' columns, a piece per plane."""

    pid: list[np.ndarray] = field(default_factory=list)
    tid: list[np.ndarray] = field(default_factory=list)
    ts: list[np.ndarray] = field(default_factory=list)
    dur: list[np.ndarray] = field(default_factory=list)
    name: list[pa.Array] = field(default_factory=list)
    args: list[pa.Array] = field(default_factory=list)

    def table(self) -> pa.Table:
        n = sum(len(p) for p in self.pid)
        return pa.table({
            "ph": pa.repeat(pa.scalar("X"), n),
            "pid": _cat(self.pid, np.int64),
            "tid": _cat(self.tid, np.int64),
            "ts": _cat(self.ts, np.float64),
            "dur": _cat(self.dur, np.float64),
            "name": pa.chunked_array(self.name, pa.string()),
            "args": pa.chunked_array(self.args, pa.large_string()).cast(pa.string()),
        }, schema=SCHEMA)


def _cat(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype)


@dataclass
class _Lines:
    """The events of a plane's shown lines, laid end to end."""

    data: np.ndarray  # uint8: every event's bytes
    starts: np.ndarray  # int64 per event
    ends: np.ndarray
    line: np.ndarray  # int64 per event: index into tids / base_ns
    tids: np.ndarray
    base_ns: list[int]


def _gather_lines(pid: int, plane: Message, threads: dict[tuple[int, int], str]) -> _Lines:
    chunks: list[bytes] = []
    lengths: list[np.ndarray] = []
    tids: list[int] = []
    base_ns: list[int] = []
    for line in plane.lines:
        if line.name == COUNTERS_LINE:  # a GPU's counter samples (xla_counters.py), no thread
            continue
        tid = (line.display_id or line.id) & 0xFFFFFFFF
        label = line.display_name or line.name
        threads[(pid, tid)] = label
        if label == _ASYNC_OPS_LINE or not line.events:
            continue
        events = line.events
        chunks.append(b"".join(events))
        lengths.append(np.fromiter(map(len, events), np.int64, len(events)))
        tids.append(tid)
        base_ns.append(line.timestamp_ns)
    size = _cat(lengths, np.int64)
    ends = np.cumsum(size)
    return _Lines(np.frombuffer(b"".join(chunks), np.uint8), ends - size, ends,
                  np.repeat(np.arange(len(tids), dtype=np.int64), [len(n) for n in lengths]),
                  np.array(tids, np.int64), base_ns)


def _event_fields(lines: _Lines) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                          list[tuple[np.ndarray, ...]]]:
    """Each event's metadata id, offset and duration (ps), and where its stats are: per
    round of proto_wire.scan, (event, start, length) of the stats read in that round."""
    n = len(lines.starts)
    mid = np.zeros(n, np.int64)
    offset = np.zeros(n, np.int64)
    duration = np.zeros(n, np.int64)
    stat_fields: list[tuple[np.ndarray, ...]] = []
    for f in proto_wire.scan(lines.data, lines.starts, lines.ends):
        var = f.wire == 0
        for number, column in ((_EV_METADATA, mid), (_EV_OFFSET, offset),
                               (_EV_DURATION, duration)):
            sel = var & (f.number == number)
            column[f.msg[sel]] = f.value[sel].view(np.int64)
        offset[f.msg[var & (f.number == _EV_OCCURRENCES)]] = 0  # one of offset / occurrences
        sel = (f.wire == 2) & (f.number == _EV_STATS)
        stat_fields.append((f.msg[sel], f.start[sel], f.value[sel].astype(np.int64)))
    return mid, offset, duration, stat_fields


def _add_plane(pid: int, plane: Message, columns: _Columns,
               threads: dict[tuple[int, int], str]) -> None:
    stats = PlaneStats(plane)
    # Event metadata, in the order PlaneStats numbers it; internal ones are not shown.
    meta_ids: list[int] = []
    meta_names: list[str] = [""]  # [0]: an id the plane does not describe: no name, no args
    meta_args: list[str | None] = [None]
    for mid, meta in plane.event_metadata.items():
        if meta.name in _INTERNAL_EVENTS:
            continue
        meta_ids.append(mid)
        name, args = stats.metadata_args(meta)
        meta_names.append(name)
        meta_args.append(args)

    lines = _gather_lines(pid, plane, threads)
    n = len(lines.starts)
    mid, offset, duration, stat_fields = _event_fields(lines)
    row = Lookup(meta_ids)(mid)  # -1: internal, or an id the plane does not describe
    shown = (row >= 0) | ~np.isin(mid, np.array(list(plane.event_metadata), np.int64))
    base = lines.base_ns
    if max((abs(b) for b in base), default=0) < _PS_LIMIT:
        ts = (np.array(base, np.int64)[lines.line] * 1000 + offset) / 1e6
    else:  # absolute (not session-relative) times: µs stay exact to a few ns
        ts = np.array(base, np.float64)[lines.line] / 1e3 + offset / 1e6

    # Names and args: the metadata's, or (events with stats of their own) computed here;
    # one `take` picks them for the shown events.
    pick = row + 1  # into [unknown id] + metadata rows, then the events' own args
    name_pick = pick.copy()  # into [unknown id] + metadata rows, then step names
    steps: list[str] = []
    own_args = pa.array([], pa.large_string())
    event, (stat_start, stat_len) = proto_wire.by_message(stat_fields, n, (np.int64, np.int64))
    if len(event):
        on_shown = shown[event]
        own = stats.event_args(lines.data, event[on_shown], stat_start[on_shown],
                               stat_len[on_shown], row)
        pick[own.events] = len(meta_names) + np.arange(len(own.events))
        name_pick[own.events[own.renamed]] = len(meta_names) + np.arange(len(own.names))
        steps, own_args = own.names, own.args
    columns.name.append(pa.array(meta_names + steps, pa.string()).take(name_pick[shown]))
    pick = pick[shown]
    if np.array_equal(pick, len(meta_names) + np.arange(len(own_args))):
        columns.args.append(own_args)  # each event has stats of its own (a GPU's kernels)
    else:
        columns.args.append(pa.concat_arrays([pa.array(meta_args, pa.large_string()),
                                              own_args]).take(pick))
    columns.pid.append(np.full(int(shown.sum()), pid, np.int64))
    columns.tid.append(lines.tids[lines.line][shown])
    columns.ts.append(ts[shown])
    columns.dur.append((np.maximum(duration, 1) / 1e6)[shown])
