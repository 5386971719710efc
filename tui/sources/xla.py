"""XLA profiles (JAX, TensorFlow) into the schema: the trace viewer's JSON and .xplane.pb.

Both forms are staged into one relation, xla_events (queries/sources/xla_events_table.sql): the
JSON (`perfetto_trace.json.gz`, `<host>.trace.json.gz`) by DuckDB's JSON reader, in parts
like a Kineto trace; the XSpace protobuf by tui/sources/xplane.py as an Arrow table of
the same events. From there one set of queries (queries/sources/xla_*.sql) maps them.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from tui.core.db import insert_rows, registered
from tui.core.errors import TraceError
from tui.core.queries import load_query
from tui.derived.xla_depth import number_host_rows
from tui.sources.kineto import parse_chrome_events
from tui.sources.xla_counters import read_counter_samples, stage_counters
from tui.sources.xla_hlo import (
    gpu_descriptions,
    read_programs,
    stage_programs,
    xplanes_beside,
)

GPU_PROCESS = re.compile(r"/device:GPU:(\d+)")


def load_xla_json(path: Path, con: duckdb.DuckDBPyConnection, scratch_dir: Path) -> list[str]:
    """Load an XLA trace-viewer JSON file; returns warnings. Raises TraceError if unusable."""
    warnings: list[str] = []
    events = parse_chrome_events(con, path, scratch_dir, warnings, table="xla_events_table",
                                 stage="xla_stage_json")
    display_unit = events.metadata.get("displayTimeUnit")
    _map_events(con, path, warnings, "xla-json", cut_off=events.truncated)
    xplanes = xplanes_beside(path)
    if len(xplanes) == 1:  # the GPU counters, exact there (several hosts: whose GPU 0?)
        stage_counters(con, read_counter_samples(xplanes[0]))
    _stage_hlo(con, path, xplanes, warnings)
    if isinstance(display_unit, str):
        con.execute("INSERT OR REPLACE INTO trace_meta VALUES ('displayTimeUnit', $unit)",
                    {"unit": display_unit})
    return warnings


def load_xplane(path: Path, con: duckdb.DuckDBPyConnection) -> list[str]:
    """Load an XSpace .xplane.pb; returns warnings. Raises TraceError if unusable."""
    from tui.sources.xplane import read_xplane

    table, counters = read_xplane(path)
    warnings: list[str] = []
    con.execute(load_query("xla_events_table"))
    with registered(con, "xplane_arrow", table):
        con.execute(load_query("xla_stage_arrow")).fetchall()
    del table
    _map_events(con, path, warnings, "xplane", cut_off=False)
    stage_counters(con, counters)
    _stage_hlo(con, path, [path], warnings)
    return warnings


def _stage_hlo(con: duckdb.DuckDBPyConnection, path: Path, xplanes: list[Path],
               warnings: list[str]) -> None:
    """The GPUs the run's XSpace files describe into devices, and their HLO programs into
    hlo_ops and hlo_schedule; a trace viewer JSON without one beside it is said to lack
    them where it needs them."""
    # each GPU as the profiler described it (name, SMs, memory): the first XSpace's
    described = [row for xplane in xplanes for row in gpu_descriptions(xplane)]
    if described:
        insert_rows(con, "INSERT OR IGNORE INTO devices", described)
    programs = [program for xplane in xplanes for program in read_programs(xplane)]
    if programs:
        stage_programs(con, programs)
        con.execute("INSERT OR REPLACE INTO trace_meta VALUES ('hlo_source', $source)",
                    {"source": ", ".join(x.name for x in xplanes)})
        return
    row = next(iter(con.execute(load_query("xla_command_buffer_work")).fetchall()), None)
    if not row or not row[0]:
        return
    if path.name.endswith(".xplane.pb"):
        where = "this .xplane.pb carries no HLO program (its /host:metadata plane has none)"
    else:
        where = ("this JSON has no HLO; the run's <host>.xplane.pb has it: keep it beside "
                 "the JSON")
    warnings.append(f"{row[0]:,} GPU activities ran in XLA command buffers ({row[1]}), "
                    f"named by no op, line or op path: {where}")


def _map_events(con: duckdb.DuckDBPyConnection, path: Path, warnings: list[str], form: str,
                cut_off: bool) -> None:
    """Map the staged xla_events into staged_gpu and host_activities, with warnings."""
    processes = dict(con.execute(load_query("xla_processes")).fetchall())
    devices = {pid: int(m.group(1)) for pid, name in processes.items()
               if name and (m := GPU_PROCESS.fullmatch(name))}
    hosts = [pid for pid, name in processes.items() if name and name.startswith("/host:")]
    insert_rows(con, "INSERT INTO xla_pids",
                    [(pid, "gpu", device) for pid, device in devices.items()]
                    + [(pid, "host", None) for pid in hosts])
    _count_events(con, path, warnings, processes, devices, hosts, cut_off)
    # Written out into the staging tables, not views over the events as for Kineto: the
    # events (a third of the memory limit at 500 MB) are dropped before finalizing sorts.
    con.execute(load_query("xla_gpu_activities"))
    kernels, without_details = con.execute(load_query("xla_kernel_details")).fetchone() or (0, 0)
    if without_details:
        warnings.append(
            f"{without_details:,} of {kernels:,} GPU kernels carry no kernel_details: "
            "their launch configuration (grid, block, registers, shared memory) is unknown, "
            "so --ncu cannot match them by it")
    con.execute(load_query("xla_host_activities"), {"host_pids": hosts})
    con.execute(load_query("xla_host_annotations"))
    con.execute(load_query("xla_thread_names"))
    con.execute("DROP TABLE xla_events")
    number_host_rows(con)
    insert_rows(con, "INSERT OR REPLACE INTO trace_meta",
                    [("format", "xla"), ("xla_form", form)])


def _count_events(con: duckdb.DuckDBPyConnection, path: Path, warnings: list[str],
                  processes: dict[int, str], devices: dict[int, int], hosts: list[int],
                  cut_off: bool) -> None:
    """Refuse a profile without events; warn of skipped events, processes not read and a
    profile without GPU activity."""
    per_pid = con.execute(load_query("xla_event_counts")).fetchall()
    if sum(row[1] for row in per_pid) == 0:
        raise TraceError(f"{path}: the profile holds no complete events (no host or "
                         "device activity); was it recorded while the program ran?")
    unusable = sum(row[2] for row in per_pid)
    if unusable:
        warnings.append(f"{unusable:,} events have no usable ts/dur and were skipped")
    unread = [(processes.get(pid) or f"pid {pid}", n) for pid, n, _ in per_pid
              if pid not in devices and pid not in hosts]
    if unread:
        listed = ", ".join(f"{name} ({n:,} events)" for name, n in unread[:3])
        warnings.append(f"not loaded: {listed}{' …' if len(unread) > 3 else ''}: only "
                        "/device:GPU:<N> and /host: processes are read")
    if not any(row[1] for row in per_pid if row[0] in devices):
        warnings.append(
            "no GPU kernels, copies or sets in the part of the profile that could be read"
            if cut_off else
            "no /device:GPU:<N> activity in this profile: it is CPU-only (was JAX/TensorFlow "
            "running on a GPU backend when it was recorded?)")
