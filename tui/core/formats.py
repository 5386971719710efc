"""The names of the formats tui reads, one place for each kind of name.

`TraceFormat`: what a file is, as `tui.sources.detect.detect_format` finds from its first
bytes (not its name). `NcuFormat`: which of Nsight Compute's outputs a report is
(`tui.sources.ncu`). A loaded trace's own `format` (trace_meta, `--summary --json`'s
source.format) is its source: kineto, xla or nsys.
"""

from __future__ import annotations

from typing import Literal

TraceFormat = Literal["kineto", "xla", "xplane", "nsys-sqlite", "nsys-rep", "ncu-rep", "ncu-csv"]
# the formats with a timeline (the others are Nsight Compute's per-kernel results)
TIMELINE_FORMATS: tuple[TraceFormat, ...] = ("kineto", "xla", "xplane", "nsys-sqlite",
                                             "nsys-rep")

NcuFormat = Literal["ncu-rep", "ncu-details-csv", "ncu-raw-csv"]
