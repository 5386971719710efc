"""A rank's summary in a run (`rank_summary`) kept for the next open of the run.

A rank's summary is a pure function of its tables and the gap threshold, so once worked
out it is stored with what a run needs of its store (format, trace_meta, warnings):
beside a cached trace's cache file as `<cache file>.rank-<min_gap_ns>.<RANK_MEMO_VERSION>
.json`, stamped with that file's size and modification time; for a Parquet store (`tui
convert`), which may sit on a read-only shared folder, in the cache dir under a name made
of the store's location, stamped with its files' sizes and modification times (only their
sizes for a store fetched from an object store: a fresh copy each time). Each also names the `tui`
version. A later open whose rank has the very same cache file or store reads it back
(about a millisecond) instead of attaching the store and working the summary out again
(~80 ms a DDP rank); a stale, damaged or missing one is worked out and written again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from tui import __version__
from tui.analysis.row_sets import GapRows
from tui.loading import cache
from tui.loading.store import RUN_TABLES

RANK_MEMO_VERSION = "v15"  # bump when rank_summary's keys or their meaning change;
# v5: the diagnosis' figures say how a launch-bound device's kernels were launched; v6:
# and what CUDA graphs' replays ran (the issue rate counts a replay once); v7: what an
# other-bound device's queued work waited for, CCCL's NVTX ranges no window; v8: whether
# DataParallel drove the devices, an iteration a few kernels longer or interrupted is
# one; v9: an iteration at a stride of its anchor, the finding shared_gpu, the copies'
# pageable and pinned bytes; v10: an iteration whose kernels change in number, the
# allocator's remedy; v11: an nsys capture range (cuProfilerStart) is the window; v12:
# an iteration ends with its last repeat; v13: no diagnosis where the kernels were not
# recorded, CPU samples count as the host's recorded work (a compiler in a few gaps);
# v14: a busy GPU memory-bound by its counters' DRAM use over the window; v15: math on
# the CPU named from the samples, where the host was (host_where, setup_where)


def rank_memo_file(cache_path: Path, min_gap_ns: int, part_rank: str | None = None) -> Path:
    """Where the summary of the rank whose cache file is `cache_path` is kept; of one rank
    among several in that file (`part_rank`: a process of a multi-process nsys report, a
    GPU of a JAX mesh), a file of its own beside it."""
    part = f".part-{part_rank}" if part_rank is not None else ""
    return cache_path.with_name(
        f"{cache_path.name}.rank-{min_gap_ns}{part}.{RANK_MEMO_VERSION}.json")


def store_memo_file(location: Path | str, min_gap_ns: int) -> Path:
    """Where the summary of the Parquet store at `location` (a folder, resolved, or a
    URL) is kept: in the cache dir."""
    key = hashlib.sha256(f"{location}".encode()).hexdigest()[:32]
    name = Path(str(location).rstrip("/")).name[:40]
    return cache.cache_root() / f"{name}-{key}.rank-{min_gap_ns}.{RANK_MEMO_VERSION}.json"


def cache_stamp(cache_path: Path) -> list[int] | None:
    """What identifies a cache file's content: its size and modification time."""
    try:
        stat = cache_path.stat()
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


def store_stamp(store_dir: Path, mtime: bool = True) -> list[int] | None:
    """What identifies a Parquet store's content: the sizes of the files a run reads, and
    their modification times (`mtime`; not of a copy fetched afresh each time)."""
    stamp = []
    try:
        for table in RUN_TABLES:
            stat = (store_dir / f"{table}.parquet").stat()
            stamp += [stat.st_size, stat.st_mtime_ns] if mtime else [stat.st_size]
    except OSError:
        return None
    return stamp


def read_rank_memo(memo: Path, stamp: list[int] | None) -> dict | None:
    """{"format", "meta", "warnings", "summary"} kept at `memo` for `stamp` and this
    version of tui, the summary as rank_summary returns it; None where there is none."""
    if stamp is None:
        return None
    try:
        stored = json.loads(memo.read_text(encoding="utf-8"))
        if stored.get("stamp") != stamp or stored.get("tui_version") != __version__:
            return None
        summary = stored["summary"]
        summary["gaps"] = gap_rows(summary["gaps"])
        return {key: stored[key] for key in ("format", "meta", "warnings")} | {
            "summary": summary}
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        return None


def write_rank_memo(memo: Path, stamp: list[int] | None, format_: str,
                    meta: dict[str, str], warnings: list[str], summary: dict) -> None:
    """Keep `summary` (rank_summary's) at `memo`, written under a temporary name and
    renamed. It never raises: a memo that cannot be kept only costs the next open time."""
    if stamp is None or not cache.writable_dir(memo.parent):
        return
    data = {"stamp": stamp, "tui_version": __version__, "format": format_, "meta": meta,
            "warnings": warnings,
            "summary": {**summary, "gaps": _gaps_json(summary["gaps"])}}
    partial = memo.with_name(f"{memo.name}.{os.getpid()}.partial")
    try:
        partial.write_text(json.dumps(data), encoding="utf-8")
        os.replace(partial, memo)
    except (OSError, TypeError, ValueError):
        with contextlib.suppress(OSError):
            partial.unlink()


def _gaps_json(gaps: GapRows) -> dict[str, Any]:
    """The gaps with everything a Gap holds (its host range too), column by column."""
    return {"origin": gaps.origin,
            "rows": [[g.device, g.start_ns, g.duration_ns, g.before, g.after, g.cause, g.kind,
                      g.busy_in, g.busy_in_call] for g in gaps.gaps]}


def gap_rows(stored: dict[str, Any]) -> GapRows:
    """The GapRows a rank's memo keeps (_gaps_json), as rank_summary made them."""
    from tui.analysis.gaps import Gap

    return GapRows([Gap(*row) for row in stored["rows"]], stored["origin"])
