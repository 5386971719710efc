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
  else its name, or the value of a `step_name` stat;
- args are the stats of the event's metadata, then the event's own, each printed as XLA's
  `XStatVisitor::ToString` prints it (ints as is, doubles to 6 significant digits, a ref value
  as the stat-metadata name it points at, bytes as "<opaque bytes>"), less the internal ones.

Unlike the JSON (capped at 5 million events), every event is kept.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
from google.protobuf.message import DecodeError

from tui.errors import TraceError
from tui.sources import xplane_pb2

HOST_PLANE = "/host:CPU"
DEVICE_PLANE_PREFIXES = ("/device:GPU:", "/device:TPU:", "/device:CUSTOM:")
HOST_PID = 701  # kHostThreadsDeviceId
FIRST_DEVICE_PID = 1  # kFirstDeviceId: a device plane's pid is this plus the plane's id
_ASYNC_OPS_LINE = "Async XLA Ops"  # XLA's converter skips it: its ops repeat the streams'
_STEP_NAME = "step_name"  # a stat whose value becomes the event's name
# Events and stats the trace viewer never shows (xplane_schema.cc: IsInternalEvent/Stat).
_INTERNAL_EVENTS = frozenset({
    "MemoryAllocation", "MemoryDeallocation", "PrefetchProduce", "PrefetchConsume",
    "ParallelInterleaveProduce", "ParallelInterleaveConsume",
    "ParallelInterleaveInitializeInput", "ParallelMapProduce", "ParallelMapConsume",
    "MapAndBatchProduce", "MapAndBatchConsume", "ParseExampleProduce", "ParseExampleConsume",
})
_INTERNAL_STATS = frozenset({"_pt", "_ct", "_p", "_c", "_r", "flops", "program_id", "symbol_id"})

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
    """One row per trace-viewer event of the XSpace at `path`: 'X' events, then the
    'process_name' / 'thread_name' metadata ('M') rows. Raises TraceError on bad input."""
    space = parse_xspace(Path(path))
    cols = _Columns()
    names: dict[int, str] = {}
    threads: dict[tuple[int, int], str] = {}
    for pid, plane in _converted_planes(space):
        if plane.name:
            names[pid] = plane.name
        _add_plane(pid, plane, cols, threads)
    if not cols.name and not names:
        raise TraceError(f"{path}: the profile holds no host or device events; "
                         "record it again with the profiler running while the work runs")
    return cols.table(names, threads, list(space.hostnames))


def parse_xspace(path: Path) -> xplane_pb2.XSpace:
    """The XSpace message in `path`; TraceError with one line when it cannot be had."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TraceError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if not data:
        raise TraceError(f"{path}: the file is empty; it holds no profile")
    space = xplane_pb2.XSpace()
    try:
        space.ParseFromString(data)
    except (DecodeError, ValueError, RuntimeError) as exc:
        raise TraceError(
            f"{path}: not a readable .xplane.pb (truncated or corrupt: {_one_line(exc)}); "
            "copy it again or record the profile again") from None
    if not any(p.name == HOST_PLANE or p.name.startswith(DEVICE_PLANE_PREFIXES)
               for p in space.planes):
        raise TraceError(f"{path}: holds no {HOST_PLANE} or /device: plane; it is not an XLA "
                         "profile (.xplane.pb) or it is damaged")
    return space


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def _converted_planes(space: xplane_pb2.XSpace) -> list[tuple[int, xplane_pb2.XPlane]]:
    """The planes XLA's converter turns into processes, with their pids."""
    out = [(HOST_PID, p) for p in space.planes if p.name == HOST_PLANE][:1]
    for prefix in DEVICE_PLANE_PREFIXES:  # one kind of device plane: the first kind present
        devices = [p for p in space.planes if p.name.startswith(prefix)]
        if devices:
            out += [((FIRST_DEVICE_PID + p.id) & 0xFFFFFFFF, p) for p in devices]
            break
    return out


class _Columns:
    """The 'X' events' columns, filled plane by plane."""

    def __init__(self) -> None:
        self.pid: list[int] = []
        self.tid: list[int] = []
        self.ts_ps: list[int] = []
        self.dur_ps: list[int] = []
        self.name: list[str] = []
        self.args: list[str | None] = []

    def table(self, names: dict[int, str], threads: dict[tuple[int, int], str],
              hostnames: list[str]) -> pa.Table:
        n = len(self.name)
        try:
            ts = np.array(self.ts_ps, dtype=np.int64) / 1e6
        except OverflowError:  # absolute (not session-relative) times: µs stay exact enough
            ts = np.array(self.ts_ps, dtype=np.float64) / 1e6
        dur = np.maximum(np.array(self.dur_ps, dtype=np.int64), 1) / 1e6
        meta_pid = list(names) + [pid for pid, _ in threads]
        meta_tid: list[int | None] = [None] * len(names) + [tid for _, tid in threads]
        meta_name = ["process_name"] * len(names) + ["thread_name"] * len(threads)
        meta_args = [_name_args(v) for v in names.values()] + [
            _name_args(v) for v in threads.values()]
        m = len(meta_pid)
        return pa.table({
            "ph": pa.array(["X"] * n + ["M"] * m, pa.string()),
            "pid": pa.array(self.pid + meta_pid, pa.int64()),
            "tid": pa.array(self.tid + meta_tid, pa.int64()),
            "ts": pa.concat_arrays([pa.array(ts), pa.nulls(m, pa.float64())]),
            "dur": pa.concat_arrays([pa.array(dur), pa.nulls(m, pa.float64())]),
            "name": pa.array(self.name + meta_name, pa.string()),
            "args": pa.array(self.args + meta_args, pa.string()),
        }, schema=SCHEMA.with_metadata({"hostnames": json.dumps(hostnames)}))


def _name_args(name: str) -> str:
    return json.dumps({"name": name}, ensure_ascii=False)


def _args_text(args: dict[str, str]) -> str | None:
    if not args:
        return None
    return json.dumps(args, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _stat_text(stat: xplane_pb2.XStat, kind: str, stat_names: dict[int, str]) -> str:
    """A stat's value as XLA's XStatVisitor::ToString prints it."""
    if kind == "str_value":
        return stat.str_value
    if kind == "ref_value":
        return stat_names.get(stat.ref_value, "")
    if kind == "double_value":
        return "%.6g" % stat.double_value  # absl::StrCat(double): six significant digits
    if kind == "bytes_value":
        return "<opaque bytes>"
    return str(getattr(stat, kind))


def _add_stats(stats, args: dict[str, str], stat_names: dict[int, str]) -> str | None:
    """Add `stats` to `args`; return the step name among them, if any."""
    step = None
    for stat in stats:
        kind = stat.WhichOneof("value")
        if kind is None:
            continue
        key = stat_names.get(stat.metadata_id, "")
        if key in _INTERNAL_STATS:
            continue
        args[key] = value = _stat_text(stat, kind, stat_names)
        if key == _STEP_NAME:
            step = value
    return step


def _add_plane(pid: int, plane: xplane_pb2.XPlane, cols: _Columns,
               threads: dict[tuple[int, int], str]) -> None:
    stat_names = {k: m.name for k, m in plane.stat_metadata.items()}
    # Per event metadata: (name, args from its stats, their text); None: an internal event.
    kinds: dict[int, tuple[str, dict[str, str], str | None] | None] = {}
    for mid, meta in plane.event_metadata.items():
        kinds[mid] = _event_kind(meta, stat_names)
    unknown = ("", {}, None)  # an event whose metadata is missing: XLA shows it with no name
    c_pid, c_tid, c_ts, c_dur = cols.pid, cols.tid, cols.ts_ps, cols.dur_ps
    c_name, c_args = cols.name, cols.args
    for line in plane.lines:
        tid = (line.display_id or line.id) & 0xFFFFFFFF
        label = line.display_name or line.name
        threads[(pid, tid)] = label
        if label == _ASYNC_OPS_LINE:
            continue
        base = line.timestamp_ns * 1000
        for ev in line.events:
            kind = kinds.get(ev.metadata_id, unknown)
            if kind is None:
                continue
            name, meta_args, meta_text = kind
            stats = ev.stats
            if stats:
                args = dict(meta_args)
                step = _add_stats(stats, args, stat_names)
                if step is not None:
                    name = step
                c_args.append(_args_text(args))
            else:
                c_args.append(meta_text)
            c_pid.append(pid)
            c_tid.append(tid)
            c_ts.append(base + ev.offset_ps)
            c_dur.append(ev.duration_ps)
            c_name.append(name)


def _event_kind(meta: xplane_pb2.XEventMetadata,
                stat_names: dict[int, str]) -> tuple[str, dict[str, str], str | None] | None:
    if meta.name in _INTERNAL_EVENTS:
        return None
    args: dict[str, str] = {}
    name = meta.name
    if meta.display_name:
        name = meta.display_name
        args["long_name"] = meta.name
    step = _add_stats(meta.stats, args, stat_names)
    if step is not None:
        name = step
    return name, args, _args_text(args)
