"""`.ncu-rep` reports, through NVIDIA's `ncu-report` package (no ncu install needed)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tui.sources.ncu.errors import NcuInputError
from tui.sources.ncu.parsed import ParsedReport, as_int
from tui.sources.ncu.units import to_base

# ncu_report.MsgType: NONE=0 (an empty placeholder, skipped), OK=1, OPTIMIZATION=2,
# WARNING=3, ERR=4; the CSV pages print them as INF/OPT/WRN/ERR.
_MSG_TYPE = {1: "INF", 2: "OPT", 3: "WRN", 4: "ERR"}
_SPEEDUP_TYPE = {1: "local", 2: "global"}  # ncu_report.SpeedupType_LOCAL / _GLOBAL

# Rule text links: '@section:Id:Label@' and '@url:Label:https://...@'. ncu's CSV prints
# them as 'Label' and 'Label (https://...)'; do the same so all inputs read alike.
_SECTION_LINK = re.compile(r"@section:[^:@]*:([^@]*)@")
_URL_LINK = re.compile(r"@url:([^:@]*):([^@]*)@")


def plain_rule_text(message: str) -> str:
    text = _SECTION_LINK.sub(r"\1", message)
    return _URL_LINK.sub(r"\1 (\2)", text)


def open_report(path: Path) -> tuple[Any, Any]:
    """(the ncu_report module, the loaded report); NcuInputError when it cannot be read."""
    try:
        import ncu_report  # NVIDIA's reader, imported only when a report is opened
    except ImportError as err:
        raise NcuInputError(
            f"{path} is an Nsight Compute report; reading it needs the `ncu-report` package "
            "(pip install ncu-report), or export it with `ncu --import REPORT --csv "
            "--page raw` and open the CSV instead.") from err
    try:
        return ncu_report, ncu_report.load_report(str(path))
    except Exception as err:  # the SWIG layer raises assorted types
        raise NcuInputError(f"cannot open {path} as an Nsight Compute report: {err}") from err


def actions(context: Any) -> Iterator[tuple[int, Any]]:
    """(launch id, action) over every range, in report order: the ids of ncu_kernels."""
    launch = 0
    for r in range(context.num_ranges()):
        kernels_range = context.range_by_idx(r)
        for a in range(kernels_range.num_actions()):
            yield launch, kernels_range.action_by_idx(a)
            launch += 1


def action_at(context: Any, launch_id: int) -> Any | None:
    """The action of one launch id, without loading the launches before it."""
    first = 0
    for r in range(context.num_ranges()):
        kernels_range = context.range_by_idx(r)
        count = kernels_range.num_actions()
        if launch_id < first + count:
            return kernels_range.action_by_idx(launch_id - first)
        first += count
    return None


def _metrics(action: Any) -> dict[str, Any]:
    """Every metric's aggregate value (instance values are left out)."""
    values: dict[str, Any] = {}
    for name in action.metric_names():
        metric = action.metric_by_name(name)
        value = None if metric is None else metric.value()
        if value is not None:
            values[name] = (value, metric.unit() or "")
    return values


def _kernel(ncu: Any, launch: int, action: Any, values: dict[str, Any]) -> dict[str, Any]:
    def num(name: str) -> float | None:
        value = values.get(name, (None, ""))[0]
        return None if value is None or isinstance(value, str) else float(value)

    def text(name: str) -> str | None:
        value = values.get(name, (None, ""))[0]
        return None if value is None else str(value)

    static, dynamic = num("launch__shared_mem_per_block_static"), num(
        "launch__shared_mem_per_block_dynamic")
    major = as_int(num("device__attribute_compute_capability_major"))
    minor = as_int(num("device__attribute_compute_capability_minor"))
    duration = values.get("gpu__time_duration.sum")
    return {
        "launch_id": launch,
        "name": action.name(ncu.IAction.NameBase_DEMANGLED),
        "short_name": action.name(ncu.IAction.NameBase_FUNCTION),
        "mangled_name": action.name(ncu.IAction.NameBase_MANGLED),
        "grid_x": as_int(num("launch__grid_dim_x")), "grid_y": as_int(num("launch__grid_dim_y")),
        "grid_z": as_int(num("launch__grid_dim_z")),
        "block_x": as_int(num("launch__block_dim_x")),
        "block_y": as_int(num("launch__block_dim_y")),
        "block_z": as_int(num("launch__block_dim_z")),
        "registers_per_thread": as_int(num("launch__registers_per_thread")),
        "shared_memory_bytes": None if static is None and dynamic is None
        else as_int((static or 0) + (dynamic or 0)),
        "duration_ns": None if duration is None else as_int(to_base(*duration)[0]),
        "device": as_int(num("launch__device_id")),
        "device_name": text("device__attribute_display_name"),
        "compute_capability": None if major is None else f"{major}.{minor or 0}",
        "context": as_int(num("launch__context_id")),
        "stream": as_int(num("launch__stream_id")),
        "process_id": None, "process_name": None,  # not exposed by ncu_report
    }


def _rules(launch: int, action: Any) -> list[tuple[Any, ...]]:
    rows: list[tuple[Any, ...]] = []
    for found in action.rule_results_as_dicts():
        message = found.get("rule_message") or {}
        kind = _MSG_TYPE.get(message.get("type", 0))
        if kind is None or not message.get("message"):
            continue
        speedup = found.get("speedup_estimation") or {}
        rows.append((
            launch, len(rows), found.get("rule_identifier"), found.get("section_identifier"),
            kind, message.get("title") or None, plain_rule_text(message["message"]),
            _SPEEDUP_TYPE.get(speedup.get("type", 0)), speedup.get("speedup"),
        ))
    return rows


def read_rep(path: Path) -> ParsedReport:
    ncu, context = open_report(path)
    report = ParsedReport(format="ncu-rep")
    total = unreadable = 0
    for launch, action in actions(context):
        total += 1
        values = _metrics(action) if action.name() else {}
        if not values:  # a truncated or damaged file leaves empty results behind
            unreadable += 1
            continue
        report.kernels.append(_kernel(ncu, launch, action, values))
        for name, (value, unit) in values.items():
            if isinstance(value, str):
                report.metrics.append((launch, None, name, unit, None, value))
            else:
                base_value, base_unit = to_base(float(value), unit)
                report.metrics.append((launch, None, name, base_unit, base_value, None))
        report.rules.extend(_rules(launch, action))
    if not report.kernels:
        raise NcuInputError(
            f"{path} holds no readable kernel results ({total} found, {unreadable} damaged): "
            "the file is truncated or damaged, or ncu profiled nothing. Copy it again, or "
            "re-run ncu (check --kernel-name / --nvtx-include filters).")
    if unreadable:
        report.warnings.append(
            f"{path.name}: {unreadable} of {total} kernel results are unreadable (a truncated "
            f"or damaged file?); loaded the other {total - unreadable}.")
    report.meta["reader"] = f"ncu-report {context.get_version()}"
    return report
