"""Nsight Compute input -> DuckDB tables ncu_meta, ncu_kernels, ncu_metrics, ncu_rules.

The input form is told from the content, not the file name: a .ncu-rep starts with the
bytes 'NVR\\0'; an `ncu --csv` export starts with a header line '"ID","Process ID",...'
(the details page has "Metric Name"/"Metric Value" columns, the raw page one column per
raw metric such as 'gpu__time_duration.sum').
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa

from tui.core.formats import NcuFormat
from tui.core.queries import load_query
from tui.sources.ncu.errors import NcuInputError
from tui.sources.ncu.parsed import KERNEL_COLUMNS, ParsedReport
from tui.sources.ncu.read_csv import read_details, read_raw, sniff_csv
from tui.sources.ncu.read_rep import read_rep

__all__ = ["NcuInputError", "detect_format", "is_ncu_input", "load_ncu"]

REP_MAGIC = b"NVR\x00"
_SNIFF_BYTES = 64 * 1024  # enough for a raw page's long header line
_TABLES = ("ncu_meta", "ncu_kernels", "ncu_metrics", "ncu_rules")

_SCHEMAS = {
    "ncu_kernels": pa.schema([
        ("launch_id", pa.int32()), ("name", pa.string()), ("short_name", pa.string()),
        ("mangled_name", pa.string()),
        *[(c, pa.int32()) for c in ("grid_x", "grid_y", "grid_z", "block_x", "block_y",
                                    "block_z", "registers_per_thread")],
        ("shared_memory_bytes", pa.int64()), ("duration_ns", pa.int64()),
        ("device", pa.int32()), ("device_name", pa.string()),
        ("compute_capability", pa.string()), ("context", pa.int64()), ("stream", pa.int64()),
        ("process_id", pa.int64()), ("process_name", pa.string()),
    ]),
    "ncu_metrics": pa.schema([
        ("launch_id", pa.int32()), ("section", pa.string()), ("name", pa.string()),
        ("unit", pa.string()), ("value", pa.float64()), ("text", pa.string()),
    ]),
    "ncu_rules": pa.schema([
        ("launch_id", pa.int32()), ("seq", pa.int32()), ("rule", pa.string()),
        ("section", pa.string()), ("type", pa.string()), ("title", pa.string()),
        ("description", pa.string()), ("speedup_type", pa.string()),
        ("speedup_pct", pa.float64()),
    ]),
    "ncu_meta": pa.schema([("key", pa.string()), ("value", pa.string())]),
}


def detect_format(path: Path) -> NcuFormat | None:
    """'ncu-rep', 'ncu-details-csv', 'ncu-raw-csv', or None when it is none of them."""
    try:
        with open(path, "rb") as f:
            head = f.read(_SNIFF_BYTES)
    except OSError:
        return None
    if head.startswith(REP_MAGIC):
        return "ncu-rep"
    if b"\x00" in head:  # some other binary file
        return None
    return sniff_csv(head.decode("utf-8-sig", errors="replace"))


def is_ncu_input(path: Path | str) -> bool:
    """True when `path` looks like Nsight Compute results (by content, never raises)."""
    return detect_format(Path(path)) is not None


def _parse(path: Path) -> ParsedReport:
    if not path.is_file():
        raise NcuInputError(f"{path} does not exist or is not a file.")
    kind = detect_format(path)
    if kind == "ncu-rep":
        return read_rep(path)
    if kind == "ncu-details-csv":
        return read_details(path)
    if kind == "ncu-raw-csv":
        return read_raw(path)
    raise NcuInputError(
        f"{path} is not Nsight Compute output: expected a .ncu-rep report or a CSV from "
        "`ncu --import REPORT --csv --page details` (or `--page raw`).")


def _arrow(table: str, rows: list[tuple[object, ...]]) -> pa.Table:
    """Column-wise Arrow table with the schema's types (rows are tuples in table order)."""
    schema = _SCHEMAS[table]
    columns: list[list[object]] = [[row[i] for row in rows] for i in range(len(schema))]
    return pa.Table.from_arrays([pa.array(c, type=f.type)
                                 for c, f in zip(columns, schema, strict=True)], schema=schema)


def load_ncu(path: Path, con: duckdb.DuckDBPyConnection) -> list[str]:
    """Load one Nsight Compute input into `con`, replacing any earlier one.

    Returns warnings for the user; raises NcuInputError when the input cannot be used.
    """
    path = Path(path)
    report = _parse(path)
    warnings = list(report.warnings)
    meta = {"path": str(path), "format": report.format,
            "kernels": str(len(report.kernels)), **report.meta}
    devices = sorted({k["device_name"] for k in report.kernels if k.get("device_name")})
    if devices:
        meta["device_name"] = ", ".join(devices)
    meta.update({f"warning.{i:03d}": w for i, w in enumerate(warnings)})  # for ncu_summary
    tables = {
        "ncu_meta": _arrow("ncu_meta", sorted(meta.items())),
        "ncu_kernels": _arrow("ncu_kernels",
                              [tuple(k.get(c) for c in KERNEL_COLUMNS) for k in report.kernels]),
        "ncu_metrics": _arrow("ncu_metrics", report.metrics),
        "ncu_rules": _arrow("ncu_rules", report.rules),
    }
    con.execute(load_query("ncu_schema"))
    earlier = con.execute("SELECT count(*) FROM ncu_kernels").fetchone()
    if earlier and earlier[0]:
        warnings.append(f"replaced the {earlier[0]} Nsight Compute launch(es) loaded before")
    # No BEGIN here: a caller may hold a transaction (DuckDB has no nested ones, and a
    # refused BEGIN aborts the caller's). Everything was parsed first, so the inserts of
    # ready Arrow tables are all that can fail.
    for name in _TABLES:
        con.execute(f"DELETE FROM {name}")  # constant table names, not input
        con.from_arrow(tables[name]).insert_into(name)
    return warnings
