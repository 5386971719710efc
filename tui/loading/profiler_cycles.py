"""A folder of torch.profiler cycles: the traces `tensorboard_trace_handler` wrote, one a
cycle of the profiler's schedule (`schedule(..., repeat=N)`), several of each process.

The handler names each file `<worker>.<time_ns>.pt.trace.json` (`.gz` with use_gzip),
the worker `<host>_<pid>` unless given: a folder where a worker has several files holds
cycles of one process, not the ranks of a run. Each worker's newest cycle is opened (the
one furthest from the start-up, as a LOGDIR's newest run is), and the note says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

# tensorboard_trace_handler's file name: the worker, then time.time_ns() when written
HANDLER_FILE = re.compile(r"^(?P<worker>.+)\.(?P<ns>\d{16,})\.pt\.trace\.json(\.gz)?$")


@dataclass(frozen=True)
class Cycles:
    """The files to open of a folder's traces, and what was chosen, said for the user."""

    files: list[Path]
    note: str | None = None


def newest_cycles(folder: Path, files: list[Path]) -> Cycles:
    """Each worker's newest file where `files` (the traces in `folder`) are all the
    handler's and some worker wrote more than one; else `files` as they are."""
    by_worker: dict[str, list[tuple[int, Path]]] = {}
    for path in files:
        match = HANDLER_FILE.match(path.name)
        if match is None:
            return Cycles(files)
        by_worker.setdefault(match["worker"], []).append((int(match["ns"]), path))
    if all(len(written) == 1 for written in by_worker.values()):
        return Cycles(files)
    newest = {max(written)[1] for written in by_worker.values()}
    kept = [path for path in files if path in newest]
    most = max(len(written) for written in by_worker.values())
    if len(by_worker) == 1:
        what = f"{len(files)} profiling cycles of one process ({next(iter(by_worker))})"
        opened = f"the newest, {kept[0].name}"
    else:
        what = f"profiling cycles of {len(by_worker)} processes, up to {most} each"
        opened = "the newest of each, as the ranks of a run"
    return Cycles(kept, f"{folder}: its {len(files):,} traces are {what} (torch.profiler's "
                        f"schedule with repeat, written by tensorboard_trace_handler): "
                        f"opened {opened}; give a cycle's file to open it, or two to "
                        f"`tui diff`")
