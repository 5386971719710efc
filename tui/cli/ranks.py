"""`tui [--summary] DIR` / `tui r0.json r1.json …`: a distributed run, as a summary or in
RunApp."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from tui.core.errors import TraceError


def run_many(paths: list[Path], summary: bool, as_json: bool, min_gap_ns: int,
             use_cache: bool, ncu: Path | None = None, scheduler: str | None = None,
             workers: int | None = None) -> int:
    """What `tui` does when given several traces or a directory. The summary of a run
    opened before, none of its ranks changed since, is read back from the cache dir
    (tui.runs.run_memo); else it is worked out and kept there, the ranks to load by the
    local pool or as tasks of the Dask cluster at `scheduler`."""
    if ncu is not None:
        raise TraceError("--ncu goes with one trace, not several")
    if scheduler is not None and not (summary and use_cache):
        raise TraceError("--scheduler goes with --summary, and the cache: the cluster's "
                         "workers load the ranks into it (TUI_CACHE_DIR)")
    if not summary:
        from tui.apps.run_app import run_run_app

        return run_run_app(paths, use_cache, min_gap_ns)
    from tui.loading.paths import expand_paths, run_label

    label = run_label(paths)
    files = expand_paths(paths)
    if use_cache and _print_stored(files, label, min_gap_ns, as_json):
        return 0
    from tui.views.reports.run_json import write_run_json

    result, memo = _worked_out(files, label, min_gap_ns, use_cache, scheduler, workers)
    if as_json:
        write_run_json(result, memo, sys.stdout)
    else:
        if memo.keeping:
            write_run_json(result, memo, None)
        from tui.core.console import summary_console
        from tui.views.reports.ranks import print_run_summary

        print_run_summary(result, summary_console())
    return 0


def _print_stored(files: list[Path], label: str, min_gap_ns: int, as_json: bool) -> bool:
    """Print the run's kept summary, if there is one to trust; whether there was."""
    from tui.runs.run_memo import stored_run

    with stored_run(files, label, min_gap_ns) as stored:
        if stored is None:
            return False
        if as_json:
            stored.copy_json(sys.stdout)
            sys.stdout.write("\n")
            return True
        result = stored.summary()
    if result is None:
        return False
    from tui.core.console import summary_console
    from tui.views.reports.ranks import print_run_summary

    print_run_summary(result, summary_console())
    return True


def _worked_out(files: list[Path], label: str, min_gap_ns: int, use_cache: bool,
                scheduler: str | None = None, workers: int | None = None):
    """The run's summary dict, worked out; and the writer that keeps it (RunMemoWriter)."""
    from tui.runs.run import open_run
    from tui.runs.run_memo import RunMemoWriter, run_memo_file, run_stamps
    from tui.runs.summary import collective_waits, run_summary
    from tui.views.progress_line import TracesProgress, progress_on_stderr

    progress = TracesProgress(files, label="tui", then="working out the run")  # a terminal's
    try:
        # one trace (a folder of one): metered as it is read
        with progress_on_stderr(files[0]) if len(files) == 1 else contextlib.nullcontext():
            with open_run(files, use_cache=use_cache, min_gap_ns=min_gap_ns,
                          on_done=progress.one_done if len(files) > 1 else None,
                          scheduler=scheduler, workers=workers) as run:
                stamps = run_stamps(files) if use_cache else None
                result = run_summary(run, min_gap_ns, label)
                app = {"collectives": collective_waits(run.con),
                       "stores": [[rank, str(store.location)] for rank, store
                                  in zip(run.ranks, run.stores, strict=True)
                                  if store.location is not None]}
    finally:
        progress.close()
    target = run_memo_file(files, label, min_gap_ns) if stamps is not None else None
    return result, RunMemoWriter(target, stamps, result["source"], app)
