"""`tui [--summary] DIR` / `tui [--summary] r0.json r1.json …`: a distributed run, as a
summary or in RunApp."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from tui.core.errors import TraceError


def run_many(paths: list[Path], summary: bool, as_json: bool, min_gap_ns: int,
             use_cache: bool, ncu: Path | None = None) -> int:
    """What `tui` does when given several traces or a directory."""
    if ncu is not None:
        raise TraceError("--ncu goes with one trace, not several")
    if not summary:
        from tui.apps.run_app import run_run_app

        return run_run_app(paths, use_cache, min_gap_ns)
    from tui.loading.paths import expand_paths, run_label
    from tui.runs.run import open_run
    from tui.runs.summary import run_summary
    from tui.views.progress_line import TracesProgress, progress_on_stderr

    label = run_label(paths)
    files = expand_paths(paths)
    progress = TracesProgress(files, label="tui", then="working out the run")  # a terminal's
    try:
        # one trace (a folder of one): metered as it is read
        with progress_on_stderr(files[0]) if len(files) == 1 else contextlib.nullcontext():
            with open_run(files, use_cache=use_cache, min_gap_ns=min_gap_ns,
                          on_done=progress.one_done if len(files) > 1 else None) as run:
                result = run_summary(run, min_gap_ns, label)
    finally:
        progress.close()
    if as_json:
        from tui.views.reports.json_stream import write_json

        findings = [f.to_json() for f in result["findings"]]
        write_json(sys.stdout, {**result, "findings": findings})  # rows may be RowSets
        sys.stdout.write("\n")
    else:
        from tui.core.console import summary_console
        from tui.views.reports.ranks import print_run_summary

        print_run_summary(result, summary_console())
    return 0
