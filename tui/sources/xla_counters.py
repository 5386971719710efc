"""The GPU's hardware counters in an XSpace: CUPTI PM sampling, which XLA's profiler runs when
asked (`gpu_pm_sample_counters` in the profile options' advanced configuration), into
gpu_metric_names and gpu_metrics.

XLA writes the samples on each GPU plane's counter line (`_counters_`, XLA's
kCounterEventsLineName), not on a stream: one event per metric and sample, of no duration,
at the START of the sample's period (CUPTI's startTimestamp; cupti_collector.cc,
PmSamples::PopulateCounterLine), holding one double stat, the metric's value over the
period. The stat's metadata carries the CUPTI metric's name
(`sm__cycles_active.avg.pct_of_peak_sustained_elapsed`); the event's metadata may carry a
display name instead ('DRAM Read Bandwidth (%)'), so the metric is read from the stat.
Metrics are kept under nsys's names (tui/sources/cupti_metrics.py).

The schema stamps a sample at the END of its period (gpu_metrics, as nsys does): each one
is moved by the sampling period, the median distance between a metric's samples.

The events are decoded all at once (proto_wire), as the streams' are (tui/sources/xplane.py).
"""

from __future__ import annotations

import mmap
import re
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
from google.protobuf.message import DecodeError, Message

from tui.core.db import registered
from tui.core.queries import load_query
from tui.sources import proto_wire
from tui.sources.cupti_metrics import kept_names
from tui.sources.xla_hlo import wire_fields
from tui.sources.xspace_schema import RawXSpace

COUNTERS_LINE = "_counters_"  # XLA's kCounterEventsLineName
GPU_PLANE = re.compile(r"/device:GPU:(\d+)")
# XSpace, XPlane and XLine fields (tui/sources/xspace_schema.py): the planes; a plane's
# name, lines, and what a reduced plane keeps (its id, name and stat metadata); a line's name
_XSPACE_PLANES, _XPLANE_NAME, _XPLANE_LINES, _XLINE_NAME = 1, 2, 3, 2
_PLANE_KEPT = frozenset({1, 2, 5})
# XEvent and XStat fields (tui/sources/xspace_schema.py)
_EV_OFFSET, _EV_STATS = 2, 4
_ST_METADATA, _ST_DOUBLE, _ST_UINT, _ST_INT = 1, 2, 3, 4

SCHEMA = pa.schema([("device", pa.int32()), ("metric", pa.string()), ("ts_ns", pa.int64()),
                    ("value", pa.float64())])


def counter_samples(space: Message) -> pa.Table:
    """The samples of every GPU plane's counter line (columns: SCHEMA; ts_ns the start of
    the sample's period, the metric CUPTI's name) that start in the session (at or after
    their line's start)."""
    parts = [_plane_samples(int(match.group(1)), plane) for plane in space.planes
             if (match := GPU_PLANE.fullmatch(plane.name))]
    return pa.concat_tables([SCHEMA.empty_table(), *parts])


def read_counter_samples(path: Path) -> pa.Table:
    """counter_samples of the XSpace file at `path`, for a run opened by its trace viewer
    JSON: only the GPU planes' heads and counter lines are read, not their streams (the
    rest of the file is skipped); none where the file cannot be read."""
    try:
        with path.open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
            with memoryview(data) as view:
                reduced = _counter_planes(view)
        space = RawXSpace()
        space.ParseFromString(reduced)
        return counter_samples(space)
    except (OSError, ValueError, DecodeError, RuntimeError, proto_wire.WireError):
        return SCHEMA.empty_table()


def _counter_planes(buf: memoryview) -> bytes:
    """An XSpace of the GPU planes of `buf` (an XSpace's bytes), each with its name, its stat
    metadata and its counter lines alone. Fields come in their numbers' order (protobuf
    writes them so): a line's name is read before its events, which are skipped."""
    out = bytearray()
    for number, wire, start, end in wire_fields(buf, 0, len(buf)):
        if number != _XSPACE_PLANES or wire != 2:
            continue
        plane, name, pos = bytearray(), "", start
        for field, field_wire, value_start, value_end in wire_fields(buf, start, end):
            if field == _XPLANE_NAME and field_wire == 2:
                name = bytes(buf[value_start:value_end]).decode("utf-8", "replace")
                if not GPU_PLANE.fullmatch(name):
                    break
            if field in _PLANE_KEPT or (field == _XPLANE_LINES and field_wire == 2
                                        and _line_name(buf, value_start, value_end)
                                        == COUNTERS_LINE):
                plane += buf[pos:value_end]  # the field's tag, length and value
            pos = value_end
        if GPU_PLANE.fullmatch(name):
            out += _tag(_XSPACE_PLANES) + _varint(len(plane)) + plane
    return bytes(out)


def _line_name(buf: memoryview, start: int, end: int) -> str:
    for field, wire, value_start, value_end in wire_fields(buf, start, end):
        if field == _XLINE_NAME and wire == 2:
            return bytes(buf[value_start:value_end]).decode("utf-8", "replace")
        if field > _XLINE_NAME:
            break
    return ""


def _tag(number: int) -> bytes:
    return _varint(number << 3 | 2)


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _plane_samples(device: int, plane: Message) -> pa.Table:
    lines = [line for line in plane.lines if line.name == COUNTERS_LINE and line.events]
    if not lines:
        return SCHEMA.empty_table()
    events = [event for line in lines for event in line.events]
    base_ns = np.repeat(np.array([line.timestamp_ns for line in lines], np.int64),
                        [len(line.events) for line in lines])
    data = np.frombuffer(b"".join(events), np.uint8)
    size = np.fromiter(map(len, events), np.int64, len(events))
    ends = np.cumsum(size)
    offset = np.zeros(len(events), np.int64)
    stat_fields: list[tuple[np.ndarray, ...]] = []
    for f in proto_wire.scan(data, ends - size, ends):
        sel = (f.wire == 0) & (f.number == _EV_OFFSET)
        offset[f.msg[sel]] = f.value[sel].view(np.int64)
        sel = (f.wire == 2) & (f.number == _EV_STATS)
        stat_fields.append((f.msg[sel], f.start[sel], f.value[sel].astype(np.int64)))
    event, (start, length) = proto_wire.by_message(stat_fields, len(events),
                                                   (np.int64, np.int64))
    stat_id, value, has_value = _stat_values(data, start, start + length)
    names = {sid: meta.name for sid, meta in plane.stat_metadata.items()}
    metric = pa.array([names.get(int(s), "") for s in stat_id], pa.string())
    ts_ns = base_ns[event] + offset[event] // 1000
    # A sample that starts before its line (a negative offset) is from before the session:
    # CUPTI's first, from when sampling was set up (6.7 ms before the line's start on one
    # H200 recording, the next sample 336 ms later): not a period at the sampling rate.
    keep = has_value & (offset[event] >= 0)
    return pa.table({
        "device": pa.array(np.full(int(keep.sum()), device, np.int32)),
        "metric": metric.filter(pa.array(keep)),
        "ts_ns": pa.array(ts_ns[keep]),
        "value": pa.array(value[keep]),
    }, schema=SCHEMA)


def _stat_values(data: np.ndarray, starts: np.ndarray, ends: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each stat's metadata id and numeric value (a double, or an integer as one), and
    whether it has one."""
    n = len(starts)
    stat_id = np.zeros(n, np.int64)
    value = np.zeros(n, np.float64)
    has_value = np.zeros(n, bool)
    for f in proto_wire.scan(data, starts, ends):
        sel = (f.wire == 0) & (f.number == _ST_METADATA)
        stat_id[f.msg[sel]] = f.value[sel].view(np.int64)
        sel = (f.wire == 1) & (f.number == _ST_DOUBLE)
        value[f.msg[sel]] = f.value[sel].view(np.float64)
        has_value[f.msg[sel]] = True
        for number, kind in ((_ST_UINT, np.uint64), (_ST_INT, np.int64)):
            sel = (f.wire == 0) & (f.number == number)
            value[f.msg[sel]] = f.value[sel].view(kind).astype(np.float64)
            has_value[f.msg[sel]] = True
    return stat_id, value, has_value


def stage_counters(con: duckdb.DuckDBPyConnection, samples: pa.Table) -> None:
    """Write the kept metrics' samples into gpu_metric_names and gpu_metrics, each stamped
    at the end of its period, within the span of the profile's host and GPU activities
    (host_activities and staged_gpu, written before)."""
    if not samples.num_rows:
        return
    chosen = kept_names(samples.column("metric").unique().to_pylist())
    if not chosen:
        return
    names = pa.table({"metric": pa.array(list(chosen), pa.string()),
                      "name": pa.array(list(chosen.values()), pa.string())})
    with registered(con, "xla_counter_samples", samples), \
            registered(con, "xla_counter_names", names):
        con.execute(load_query("xla_gpu_metrics_write"))
