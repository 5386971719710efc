"""A run's summary dict (tui.runs.summary.run_summary) as the JSON `tui --summary --json`
prints, written out and kept (tui.runs.run_memo) in the same pieces."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TextIO

from tui.runs.run_memo import RunMemoWriter
from tui.views.reports.json_stream import iter_json_members


def write_run_json(result: Mapping[str, Any], memo: RunMemoWriter,
                   out: TextIO | None) -> None:
    """Write the run's summary as JSON to `out` (None: nowhere) and to `memo`, a piece at
    a time; then store the memo."""
    rest = {k: v for k, v in result.items() if k != "source"}
    rest["findings"] = [f.to_json() for f in result["findings"]]  # rows may be RowSets
    try:
        if out is not None:
            out.write('{"source": ' + json.dumps(result["source"]))
        for i, piece in enumerate(iter_json_members(rest)):
            memo.write(piece)
            if out is not None:
                out.write(", " + piece if i == 0 else piece)
        memo.finish()
    finally:
        memo.discard()
    if out is not None:
        out.write("}\n")
