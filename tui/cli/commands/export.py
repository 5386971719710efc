"""`tui export TRACE WHAT --output FILE`: the app's tables as CSV, Parquet or JSON files.

WHAT is `kernels` (statistics per kernel name, as `--summary`), `gaps` (every GPU-idle
gap over --min-gap-ms with its cause), `instances` (every kernel launch), `xla_ops` (GPU
time per XLA module and op of a JAX/TensorFlow profile, with its line of code and op
path), `code` (GPU time by Python frame, from a trace recorded with stacks; of an XLA
profile, by its ops' lines of code), `op_paths` (GPU time per framework op path of an
XLA profile: `jit(step)/transpose(jvp(LM))/Dense_0/dot_general` and each scope above
it), `memory` (allocations, largest first) or
`ncu` (one row per profiled launch of an Nsight Compute report: figures, verdict,
NVIDIA's finding) or `roofline` (the report's launches on a roofline: an SVG chart to
`--output FILE.svg`, else the points as a table).
Any other table is one `tui query TRACE "SQL" --output FILE` away.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from tui.analysis.gaps import DEFAULT_MIN_GAP_MS
from tui.core.export import EXPORT_FORMATS, write_table

EXAMPLES = """\
examples:
  tui export run.pt.trace.json.gz kernels --output kernels.csv
  tui export report.sqlite gaps --min-gap-ms 0.1 --output gaps.parquet
  tui export run.pt.trace.json.gz instances --output launches.parquet
  tui export run.pt.trace.json.gz code --output code.csv
  tui export kernels.ncu-rep ncu --output verdicts.csv
  tui export kernels.ncu-rep roofline --output roofline.svg
  tui export perfetto_trace.json.gz xla_ops --output ops.csv
  tui export perfetto_trace.json.gz op_paths --output paths.csv
"""
INSTANCES = ("SELECT * EXCLUDE (kind) FROM gpu_activities WHERE kind = 'kernel' "
             "ORDER BY device, start_ns")


def _kernels(path: Path, args: argparse.Namespace) -> pa.Table:
    from tui.core.queries import load_query

    return _with_trace(path, args, lambda con: con.sql(load_query("kernel_stats")).to_arrow_table())


def _gaps(path: Path, args: argparse.Namespace) -> pa.Table:
    from tui.analysis.gaps import explained_gaps

    min_gap_ns = round(args.min_gap_ms * 1_000_000)
    return _with_trace(path, args, lambda con: pa.Table.from_pylist(
        [gap.as_dict() for gap in explained_gaps(con, min_gap_ns)]))


def _instances(path: Path, args: argparse.Namespace) -> pa.Table:
    return _with_trace(path, args, lambda con: con.sql(INSTANCES).to_arrow_table())


def _code(path: Path, args: argparse.Namespace) -> pa.Table:
    from dataclasses import asdict

    from tui.analysis.code import frame_times

    return _with_trace(path, args, lambda con: pa.Table.from_pylist(
        [asdict(f) for f in frame_times(con)], schema=CODE_SCHEMA))


def _op_paths(path: Path, args: argparse.Namespace) -> pa.Table:
    from tui.analysis.code_hlo import op_path_rows

    return _with_trace(path, args, lambda con: pa.Table.from_pylist(
        op_path_rows(con), schema=OP_PATH_SCHEMA))


def _memory(path: Path, args: argparse.Namespace) -> pa.Table:
    from tui.analysis.memory import largest_allocations

    return _with_trace(path, args, lambda con: pa.Table.from_pylist(
        [dict(zip(MEMORY_SCHEMA.names, row, strict=True))
         for row in largest_allocations(con, limit=None)], schema=MEMORY_SCHEMA))


CODE_SCHEMA = pa.schema([("frame", pa.string()), ("user_code", pa.bool_()),
                         ("gpu_ns", pa.int64()), ("self_gpu_ns", pa.int64()),
                         ("launches", pa.int64()), ("self_launches", pa.int64())])
OP_PATH_SCHEMA = pa.schema([("path", pa.string()), ("depth", pa.int64()),
                            ("gpu_ns", pa.int64()), ("self_gpu_ns", pa.int64()),
                            ("launches", pa.int64())])
MEMORY_SCHEMA = pa.schema([
    ("id", pa.int64()), ("device_type", pa.string()), ("device", pa.int32()),
    ("ts_ns", pa.int64()), ("bytes", pa.int64()), ("freed_ns", pa.int64()),
    ("lifetime_ns", pa.int64()), ("op", pa.string()), ("frame", pa.string()),
    ("frame_id", pa.int64())])
def _xla_ops(path: Path, args: argparse.Namespace) -> pa.Table:
    from tui.analysis.xla_ops import xla_op_stats

    return _with_trace(path, args, lambda con: pa.Table.from_pylist(xla_op_stats(con)))


def _with_trace(path: Path, args: argparse.Namespace,
                read: Callable[[duckdb.DuckDBPyConnection], pa.Table]) -> pa.Table:
    from tui.loading.parquet_store import open_trace_or_store

    with open_trace_or_store(path, use_cache=not args.no_cache) as trace:
        return read(trace.con)


def _ncu_summary(path: Path) -> dict[str, Any]:
    from tui.analysis.ncu.summary import ncu_summary
    from tui.core.db import connect
    from tui.sources.ncu.load import load_ncu

    con = connect(":memory:")
    load_ncu(path, con)
    return ncu_summary(con)


def _ncu(path: Path, args: argparse.Namespace) -> pa.Table:
    return pa.Table.from_pylist([flat_launch(k) for k in _ncu_summary(path)["kernels"]])


def _roofline(path: Path, args: argparse.Namespace) -> pa.Table:
    from dataclasses import asdict

    from tui.analysis.ncu.roofline import chart

    roof = chart(_ncu_summary(path))
    rows = [{**asdict(p), "roof_flop_per_s": roof.roof(p.intensity, p.precision),
             "peak_flop_per_s": roof.peaks.get(p.precision),
             "dram_bytes_per_s": roof.bandwidth, "ridge": roof.ridge(p.precision)}
            for p in roof.points]
    return pa.Table.from_pylist(rows)


def _write_roofline_svg(path: Path, output: Path) -> int:
    from tui.analysis.ncu.roofline import chart
    from tui.views.roofline_plot import svg

    roof = chart(_ncu_summary(path))
    precision = "fp64" if roof.peaks and "fp32" not in roof.peaks else "fp32"
    output.write_text(svg(roof, precision), encoding="utf-8")
    print(f"wrote a roofline of {len(roof.points)} launches to {output}", file=sys.stderr)
    return 0


def flat_launch(kernel: dict[str, Any]) -> dict[str, Any]:
    """One launch of `ncu_summary` as flat columns (CSV has no lists or records)."""
    out: dict[str, Any] = {}
    for key, value in kernel.items():
        if key in ("grid", "block"):
            out[key] = "x".join(str(v) for v in value)
        elif key == "pipes_pct":
            out.update({f"pipe_{name}_pct": pct for name, pct in (value or {}).items()})
        elif key == "roofline":
            out.update({f"roofline_{name}": v for name, v in (value or {}).items()})
        elif key == "stalls":
            out["top_stall"] = value[0]["reason"] if value else None
        elif key == "occupancy_limiters":
            out[key] = ", ".join(str(v) for v in value or ())
        elif key == "nvidia_rules":
            out[key] = len(value or ())
        elif key == "advice":
            out[key] = ", ".join(a["condition"] for a in value or ())
        elif key == "memory_instructions":
            out.update({f"{space}_instructions": n for space, n in (value or {}).items()})
        else:
            out[key] = value
    return out


WHAT: dict[str, Callable[[Path, argparse.Namespace], pa.Table]] = {
    "kernels": _kernels, "gaps": _gaps, "instances": _instances, "ncu": _ncu,
    "roofline": _roofline,
    "xla_ops": _xla_ops, "code": _code, "op_paths": _op_paths, "memory": _memory,
}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tui export", description="Write one of the app's tables to a file.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("trace", type=Path, help="a trace (or a store `tui convert` wrote), "
                        "or an Nsight Compute report for ncu")
    parser.add_argument("what", choices=sorted(WHAT))
    parser.add_argument("--output", "-o", type=Path, metavar="FILE", required=True,
                        help=f"where to write ({', '.join(EXPORT_FORMATS)} by suffix; "
                        "roofline: svg too)")
    parser.add_argument("--min-gap-ms", type=float, default=DEFAULT_MIN_GAP_MS, metavar="MS",
                        help=f"gaps: longer than this (default {DEFAULT_MIN_GAP_MS:g} ms)")
    parser.add_argument("--no-cache", action="store_true")
    parser.add_argument("--debug", action="store_true")
    args = parser.parse_args(argv)
    from tui.core.export import format_for

    if args.what == "roofline" and args.output.suffix.lower() == ".svg":
        return _write_roofline_svg(args.trace, args.output)
    format_for(args.output)  # a bad suffix fails before the trace is loaded
    table = WHAT[args.what](args.trace, args)
    write_table(table, args.output)
    print(f"wrote {table.num_rows:,} rows to {args.output}", file=sys.stderr)
    return 0
