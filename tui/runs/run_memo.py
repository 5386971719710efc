"""The summary of a whole run kept in the cache dir, for the next open of the same run.

A run's summary (tui.runs.summary.run_summary) is a pure function of its ranks' stores and
the gap threshold, so once worked out it is stored as `run-<key>.<min_gap_ns>.<RUN_MEMO
_VERSION>.json` in the cache dir, `key` naming the run as it was given (its label, and each
file as given and resolved). The memo holds each rank's stamp: the name of the trace's
cache file (made of the trace's path, size, modification time and the cache version)
with that file's size and modification time, or a Parquet store's folder with its files'
sizes and modification times; and the `tui` version. A later open of the same files, every
stamp the same, reads the summary back without attaching a store (a few stat calls a
rank); any rank changed, added or gone, and the run is worked out again, each unchanged
rank's own summary read back from its memo (tui.analysis.rank_memo). Runs at a URL are
fetched anyway and are not kept.

The first line holds the stamps, the summary's source and what the ranks app shows beside
the summary (the waits per collective, the stores' locations); the rest is the summary's
other members as one JSON object, which `--summary --json` copies out without decoding.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TextIO

from tui import __version__
from tui.analysis.rank_memo import (
    cache_stamp,
    rank_memo_file,
    read_rank_memo,
    store_memo_file,
    store_stamp,
)
from tui.core.memo_file import MemoFile, read_first_line
from tui.loading import cache
from tui.loading.locations import is_remote
from tui.loading.store import is_parquet_store

RUN_MEMO_VERSION = "v16"  # bump when run_summary's keys or meaning change; v4: gpu_metrics;
# v5: a gap's compiler, XLA's advice under nsys; v6: launch-bound advice by how the
# kernels were made and launched; v7: the issue rate counts a CUDA graph's replay once;
# v8: what an other-bound device's queued work waited for, CCCL's NVTX ranges no window;
# v9: whether DataParallel drove the devices, an iteration a few kernels longer is one;
# v10: an iteration at a stride of its anchor; v11: an iteration whose kernels change in
# number, the allocator's remedy, an uneven all-to-all's size and rows, NCCL's grouped
# sends to every rank an all-to-all, a straggler without steps weighed against the span
# of the ranks' collectives, the others' wait for the straggler theirs alone; v12: an
# nsys capture range (cuProfilerStart) is the window, sequence parallelism is tensor
# parallelism with its own advice, start-up sends are no pipeline, XLA's
# collective-permutes a ring, an expert's all-to-alls the forward's, a report a rank
# on one clock, a looped pipeline's stages a rank, a logged loss's all-reduce no layer's;
# v13: an iteration ends with its last repeat, context parallelism; v14: the ranks' v13
# (no diagnosis without kernels; CPU samples as the host's recorded work), host callbacks;
# v15: the ranks' v14 (memory-bound by the counters' DRAM use); v16: the ranks' v15, a
# report's process the rank of the GPU with 99% of its work
_SLICE = 16 << 20  # characters copied at a time


def run_memo_file(files: list[Path], label: str, min_gap_ns: int) -> Path | None:
    """Where the summary of the run of `files` (as given, named `label`) is kept; None for
    a run at a URL."""
    if any(is_remote(f) for f in files):
        return None
    try:
        ident = json.dumps([label, [[str(f), str(f.resolve())] for f in files]])
    except OSError:
        return None
    key = hashlib.sha256(ident.encode()).hexdigest()[:32]
    return cache.cache_root() / f"run-{key}.{min_gap_ns}.{RUN_MEMO_VERSION}.json"


def run_stamps(files: list[Path]) -> list[list[Any]] | None:
    """What each rank's summary is worked out from, file by file (see the module's
    doc); None when one has no cache file or store to read."""
    stamps: list[list[Any]] = []
    for path in files:
        try:
            if is_parquet_store(path):
                stamp = store_stamp(path)
                where = str(path.resolve())
            else:
                target = cache.cache_file(path)
                stamp = cache_stamp(target)
                where = target.name
        except OSError:
            return None
        if stamp is None:
            return None
        stamps.append([where, stamp])
    return stamps


@dataclass
class StoredRun:
    """A run's summary as kept: its source (as this open gives it), what the ranks app
    shows beside it, and the file positioned at the rest."""

    source: dict
    app: dict
    rest: TextIO

    def copy_json(self, out: TextIO) -> None:
        """Write the summary as `--summary --json` prints it, without decoding it."""
        out.write('{"source": ' + json.dumps(self.source))
        if self.rest.read(1) != "{":  # its members follow the source's
            raise OSError("the stored run summary is damaged; run again with --no-cache")
        out.write(", ")
        while piece := self.rest.read(_SLICE):
            out.write(piece)

    def summary(self) -> dict | None:
        """The summary dict as run_summary returns it (findings as Finding objects); None
        where what was kept cannot be read back."""
        from tui.analysis.finding import Finding

        try:
            rest = json.loads(self.rest.read())
            rest["findings"] = [Finding(**f) for f in rest["findings"]]
        except (OSError, ValueError, TypeError, KeyError):
            return None
        return {"source": self.source, **rest}


@contextlib.contextmanager
def stored_run(files: list[Path], label: str,
               min_gap_ns: int) -> Iterator[StoredRun | None]:
    """The StoredRun of this very run, or None where none is kept for it."""
    memo = run_memo_file(files, label, min_gap_ns)
    found = None
    handle: IO[str] | None = None
    try:
        if memo is not None:
            handle = open(memo, encoding="utf-8")  # noqa: SIM115
            stored = read_first_line(handle)
            if (stored is not None and stored.get("tui_version") == __version__
                    and stored.get("stamps") == run_stamps(files)
                    and isinstance(stored.get("source"), dict)):
                source = stored["source"]
                source["from_cache"] = True
                source["cache_notes"] = ["from cache (run summary stored)"] * len(files)
                source["load_s"] = [0.0] * len(files)  # nothing loaded
                found = StoredRun(source, stored.get("app") or {}, handle)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        found = None
    try:
        yield found
    finally:
        if handle is not None:
            handle.close()


class RunMemoWriter(MemoFile):
    """Takes a run summary's JSON members (all but its source) as they are written out and
    stores them once complete."""

    def __init__(self, target: Path | None, stamps: list[list[Any]] | None,
                 source: Mapping[str, Any], app: dict) -> None:
        """`target`, `stamps`: run_memo_file and run_stamps of the run, the stamps taken
        before its summary was worked out (None: not to be kept)."""
        keep = target is not None and stamps is not None and cache.writable_dir(target.parent)
        super().__init__(target if keep else None,
                         {"tui_version": __version__, "stamps": stamps},
                         {"source": source, "app": app})
        self.write("{")

    def finish(self) -> None:
        """The summary is complete: store it."""
        self.write("}")
        super().finish()


def kept_rank_summary(trace: Path, store: Path | None, min_gap_ns: int,
                      rank: int | None = None) -> dict | None:
    """The summary kept for one rank (rank_summary's, tui.analysis.rank_memo): of the
    local store `store` where the rank was read from one, else of the trace's cache file
    (rank `rank`'s own where the file holds several ranks); None where none is kept for it
    as it is now."""
    try:
        if store is not None:
            memo, stamp = store_memo_file(store.resolve(), min_gap_ns), store_stamp(store)
            kept = read_rank_memo(memo, stamp)
        else:
            target = cache.cache_file(trace)
            stamp = cache_stamp(target)
            kept = (read_rank_memo(rank_memo_file(target, min_gap_ns, str(rank)), stamp)
                    if rank is not None else None)
            if kept is None:  # a file of one rank
                kept = read_rank_memo(rank_memo_file(target, min_gap_ns), stamp)
    except OSError:
        return None
    return kept["summary"] if kept is not None else None
