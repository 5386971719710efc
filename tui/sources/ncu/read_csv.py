"""`ncu --csv` exports: the long `details` page and the wide `raw` page.

details: one row per metric per launch ("ID", "Kernel Name", ..., "Section Name",
         "Metric Name", "Metric Unit", "Metric Value"), plus rule rows ("Rule Name",
         "Rule Type", "Rule Description", "Estimated Speedup Type", "Estimated Speedup").
raw:     one row per launch, one column per raw metric; the second row holds units.
Both start with the same launch columns (ID ... CC). ncu may print '==PROF==' or
'==WARNING==' lines first when its output was captured with stderr; they are skipped.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from tui.core.formats import NcuFormat
from tui.sources.ncu.errors import NcuInputError
from tui.sources.ncu.names import short_name
from tui.sources.ncu.parsed import ParsedReport, as_int
from tui.sources.ncu.units import parse_number, to_base

_LAUNCH_COLUMNS = ("ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
                   "Stream", "Block Size", "Grid Size", "Device", "CC")
_DETAILS_COLUMNS = ("Section Name", "Metric Name", "Metric Unit", "Metric Value")
_SOL = "GPU Speed Of Light Throughput"


def _header_at(lines: list[str]) -> int:
    """Index of the CSV header line; -1 if none. When ncu profiled live with `--csv`, its
    '==PROF==' messages and the application's own output may come first."""
    for i, line in enumerate(lines[:200]):
        if line.startswith('"ID",') or line.startswith("ID,"):
            return i
    return -1


def sniff_csv(head: str) -> NcuFormat | None:
    """'ncu-details-csv', 'ncu-raw-csv' or None from the first bytes of a file."""
    lines = head.splitlines()
    at = _header_at(lines)
    if at < 0:
        return None
    header = next(csv.reader([lines[at]]), [])
    if not {"ID", "Kernel Name"} <= set(header):
        return None
    if set(_DETAILS_COLUMNS) <= set(header):
        return "ncu-details-csv"
    if any("__" in col for col in header):  # raw metric names: 'gpu__time_duration.sum'
        return "ncu-raw-csv"
    return None


def _dims(text: str) -> tuple[int | None, int | None, int | None]:
    """'(256, 1, 1)' -> (256, 1, 1)."""
    parts = [parse_number(p) for p in text.strip("() ").split(",")]
    parts = (parts + [None, None, None])[:3]
    return as_int(parts[0]), as_int(parts[1]), as_int(parts[2])


def _kernel_from(row: dict[str, str]) -> dict[str, Any]:
    """The launch columns every ncu CSV page starts with."""
    name = row.get("Kernel Name", "")
    grid, block = _dims(row.get("Grid Size", "")), _dims(row.get("Block Size", ""))
    return {
        "launch_id": as_int(parse_number(row["ID"])), "name": name,
        "short_name": short_name(name),
        "mangled_name": name if name.startswith("_Z") else None,  # --print-kernel-base mangled
        "grid_x": grid[0], "grid_y": grid[1], "grid_z": grid[2],
        "block_x": block[0], "block_y": block[1], "block_z": block[2],
        "device": as_int(parse_number(row.get("Device", ""))),
        "compute_capability": row.get("CC") or None,
        "context": as_int(parse_number(row.get("Context", ""))),
        "stream": as_int(parse_number(row.get("Stream", ""))),
        "process_id": as_int(parse_number(row.get("Process ID", ""))),
        "process_name": row.get("Process Name") or None,
    }


def _rows(path: Path) -> tuple[list[str], list[list[str]]]:
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as err:
        raise NcuInputError(f"cannot read {path}: {err.strerror or err}") from err
    lines = text.splitlines()
    at = _header_at(lines)
    if at < 0:
        raise NcuInputError(f"{path} has no ncu CSV header (a line starting with \"ID\"): "
                            "export it with `ncu --import REPORT --csv --page details`.")
    rows = list(csv.reader(io.StringIO("\n".join(lines[at:]))))
    return rows[0], rows[1:]


def _check_rows(path: Path, header: list[str], rows: list[list[str]],
                report: ParsedReport) -> list[list[str]]:
    # The details page ends metric rows after "Metric Value" (no empty rule fields): pad.
    # Rows of one field are lines the application printed while ncu profiled it.
    good = [r + [""] * (len(header) - len(r)) for r in rows if 1 < len(r) <= len(header)]
    bad = sum(1 for r in rows if len(r) > len(header))
    if bad:
        report.warnings.append(f"{path.name}: skipped {bad} malformed CSV row(s) (more "
                               "fields than the header has)")
    if not good:
        raise NcuInputError(f"{path} has a header but no kernel rows: was anything profiled? "
                            "Check ncu's filters (--kernel-name, --nvtx-include).")
    return good


def read_details(path: Path) -> ParsedReport:
    """The `details` page: metrics keep ncu's labels and sections."""
    header, rows = _rows(path)
    report = ParsedReport(format="ncu-details-csv")
    kernels: dict[int, dict[str, Any]] = {}
    seq: dict[int, int] = {}
    for cells in _check_rows(path, header, rows, report):
        row = dict(zip(header, cells, strict=True))
        kernel = _kernel_from(row)
        launch = kernel["launch_id"]
        if launch is None:
            continue
        kernels.setdefault(launch, kernel)
        if row.get("Rule Name"):
            seq[launch] = seq.get(launch, -1) + 1
            report.rules.append((
                launch, seq[launch], row["Rule Name"], row.get("Section Name") or None,
                row.get("Rule Type") or None, None, row.get("Rule Description", ""),
                row.get("Estimated Speedup Type") or None,
                parse_number(row.get("Estimated Speedup", "")),
            ))
        elif row.get("Metric Name"):
            _add_metric(report, launch, row["Section Name"], row["Metric Name"],
                        row["Metric Unit"], row["Metric Value"])
    values: dict[int, dict[tuple[str, str], float | None]] = {k: {} for k in kernels}
    for launch, section, name, _unit, value, _text in report.metrics:
        values[launch].setdefault((section, name), value)
    for launch, kernel in kernels.items():
        found = values[launch]
        static = found.get(("Launch Statistics", "Static Shared Memory Per Block"))
        dynamic = found.get(("Launch Statistics", "Dynamic Shared Memory Per Block"))
        kernel["registers_per_thread"] = as_int(
            found.get(("Launch Statistics", "Registers Per Thread")))
        kernel["shared_memory_bytes"] = (
            None if static is None and dynamic is None else as_int((static or 0) + (dynamic or 0)))
        kernel["duration_ns"] = as_int(found.get((_SOL, "Duration")))
        kernel["device_name"] = None  # the details page does not name the device
    report.kernels = [kernels[k] for k in sorted(kernels)]
    return report


def _add_metric(report: ParsedReport, launch: int, section: str | None, name: str,
                unit: str, text: str) -> None:
    number = parse_number(text)
    if number is None:
        report.metrics.append((launch, section, name, unit.strip(), None, text))
    else:
        value, base = to_base(number, unit)
        report.metrics.append((launch, section, name, base, value, None))


def read_raw(path: Path) -> ParsedReport:
    """The `raw` page: one column per raw metric, units in the second row."""
    header, rows = _rows(path)
    report = ParsedReport(format="ncu-raw-csv")
    if rows and not rows[0][0].strip():
        units, rows = rows[0], rows[1:]
    else:
        units = [""] * len(header)
        report.warnings.append(f"{path.name}: no units row; values taken as printed")
    metric_columns = [i for i, col in enumerate(header) if col not in _LAUNCH_COLUMNS]
    for cells in _check_rows(path, header, rows, report):
        kernel = _kernel_from(dict(zip(header, cells, strict=True)))
        launch = kernel["launch_id"]
        if launch is None:
            continue
        first = len(report.metrics)
        for i in metric_columns:
            if cells[i].strip():
                _add_metric(report, launch, None, header[i], units[i], cells[i])
        found = {m[2]: (m[4], m[5]) for m in report.metrics[first:]}
        static = found.get("launch__shared_mem_per_block_static", (None, None))[0]
        dynamic = found.get("launch__shared_mem_per_block_dynamic", (None, None))[0]
        kernel["registers_per_thread"] = as_int(
            found.get("launch__registers_per_thread", (None, None))[0])
        kernel["shared_memory_bytes"] = (
            None if static is None and dynamic is None else as_int((static or 0) + (dynamic or 0)))
        kernel["duration_ns"] = as_int(found.get("gpu__time_duration.sum", (None, None))[0])
        kernel["device_name"] = found.get("device__attribute_display_name", (None, None))[1]
        report.kernels.append(kernel)
    return report
