"""The `--summary` of a cached trace, kept beside its cache file for the next warm open.

A summary is a pure function of the cached database and the gap threshold, so once
computed it is stored as `<cache file>.summary-<min_gap_ns>.v11.json` (written under a
temporary name as it is printed, then renamed) and a later `tui --summary` of the
unchanged trace prints it without opening the database. The cache file's name changes
with the trace (path, size, mtime) and with CACHE_VERSION, and the memo is only trusted
while its cache file is the very file it was computed from (same size and modification
time) and names the same `tui` version, so it goes stale when the cache does: rebuilt,
damaged, replaced. Its first line holds what it was computed from and the summary's
source; the second a brief of the rest for the text report (long row lists cut short);
the third the rest whole, which `--summary --json` copies out without decoding it.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, TextIO

from tui import __version__
from tui.analysis.row_sets import HeadRows, RowSet
from tui.core.memo_file import MemoFile, read_first_line
from tui.loading import cache

_SLICE = 16 << 20  # characters copied at a time from a stored summary
_SUFFIX = "v24.json"  # v3: the diagnosis; v4: of the window of work, with the set-up apart;
# v5: gemm_tensor_cores; v6: where critical paths start; v7: the matrix kernels' cores in
# a compute-bound diagnosis, the GEMM findings' advice by kind; v8: a window of a loop's
# repeated ranges (phases), none of a range without GPU work; v9: the window's steps, the
# slow ones in the diagnosis; v10: compiling, waiting on other threads, XLA under nsys;
# v11: the launching thread's Python lines (nsys Python samples); v12: launch-bound
# advice by how the kernels were made and launched (torch.compile, CUDA graphs); v13:
# the issue rate counts a CUDA graph's replay once; v14: CCCL's NVTX ranges are no window,
# what an other-bound device's queued work waited for (another GPU, other streams); v15:
# DataParallel's remedy, an iteration a few kernels longer or interrupted is one still,
# its slow first repeats set-up; v16: an iteration at a stride of its anchor (gradient
# accumulation), the finding shared_gpu, the copies' pageable bytes; v17: an iteration
# whose kernels change in number, the allocator's remedy, no GPU's counters but the
# trace's; v18: the counters' means over the window of work (gpu_metrics.window), an nsys
# capture range (cuProfilerStart) is the window; v19: an iteration ends with its last
# repeat, context parallelism; v20: no diagnosis where the kernels were not recorded, a
# compiler not said to hold the host where the samples are mostly elsewhere; v21: where
# the host was in the set-up (setup_where); v22: a host callback's own remedy; v23: a
# busy GPU memory-bound by its counters' DRAM use, idle GPUs' counters left out; v24: math
# on the CPU named from the samples
# Long row lists (every gap, every row of a rule) are kept whole in the memo's JSON and
# cut to this many in its brief, from which `--summary` prints text (it shows ten at most).
BRIEF_ROWS = 20


def memo_file(cache_path: Path, min_gap_ns: int) -> Path:
    return cache_path.with_name(f"{cache_path.name}.summary-{min_gap_ns}.{_SUFFIX}")


def read_memo(trace_path: Path, min_gap_ns: int) -> dict | None:
    """The stored summary of `trace_path` as the text report reads it (its long row lists
    cut to their first BRIEF_ROWS, as HeadRows), or None when there is none to trust."""
    with _open_memo(trace_path, min_gap_ns) as found:
        if found is None:
            return None
        source, rest = found
        try:
            brief = json.loads(rest.readline(), object_hook=_head_rows)
        except (OSError, ValueError):
            return None
    return {"source": source, **brief} if isinstance(brief, dict) else None


def copy_memo_json(trace_path: Path, min_gap_ns: int, out: TextIO) -> bool:
    """Write the stored summary of `trace_path` to `out` as the JSON `--summary --json`
    prints, without decoding it (a big one is 0.3 GB of text); False when none is stored."""
    with _open_memo(trace_path, min_gap_ns) as found:
        if found is None:
            return False
        source, rest = found
        try:
            rest.readline()  # the brief
            opening = rest.read(2)
            if not opening.startswith("{"):
                return False
            out.write('{"source": ' + json.dumps(source))
            out.write(", " + opening[1:] if opening != "{}" else "}")
            while piece := rest.read(_SLICE):
                out.write(piece)
        except BrokenPipeError:  # our reader went (`| head`), not the memo
            raise
        except OSError:  # the memo went while being read: the output is incomplete
            raise OSError("the stored summary could not be read to its end; run again "
                          "with --no-cache") from None
    return True


@contextlib.contextmanager
def _open_memo(trace_path: Path, min_gap_ns: int) -> Iterator[tuple[dict, TextIO] | None]:
    """The stored summary's source (as given this time) and its file, positioned at the
    brief; None when there is none to trust."""
    try:
        cache_path = cache.cache_file(trace_path)
        memo = open(memo_file(cache_path, min_gap_ns), encoding="utf-8")  # noqa: SIM115
    except OSError:
        yield None
        return
    with memo:
        stored = read_first_line(memo)
        try:
            cache_stamp = _stamp(cache_path)
        except OSError:
            stored = None
        if (stored is None or stored.get("tui_version") != __version__
                or stored.get("cache_file") != cache_stamp
                or not isinstance(stored.get("source"), dict)):
            yield None
            return
        source = stored["source"]
        source["path"] = str(trace_path)  # as given this time
        source["from_cache"] = True
        source["cache_note"] = "from cache (summary stored)"
        yield source, memo


class MemoWriter(MemoFile):
    """Takes a summary's JSON members (all but its source) as they are written out, and
    stores them beside the cache once complete, after its brief."""

    def __init__(self, cache_path: Path | None, min_gap_ns: int,
                 summary: Mapping[str, Any]) -> None:
        try:  # no cache file (--no-cache, or gone): none kept
            stamp = (None if cache_path is None else
                     {"tui_version": __version__, "cache_file": _stamp(cache_path)})
        except OSError:
            stamp = None
        super().__init__(None if cache_path is None or stamp is None
                         else memo_file(cache_path, min_gap_ns), stamp or {},
                         {"source": summary["source"]})
        self.write(json.dumps(_brief({k: v for k, v in summary.items() if k != "source"}))
                   + "\n{")

    def finish(self) -> None:
        """The summary is complete: store it."""
        self.write("}")
        super().finish()


def _brief(value: Any) -> Any:
    """`value` with each RowSet cut to its first BRIEF_ROWS and its count."""
    if isinstance(value, RowSet):
        return {"head_rows": value[:BRIEF_ROWS], "row_count": len(value)}
    if isinstance(value, dict):
        return {k: _brief(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_brief(v) for v in value]
    return value


def _head_rows(obj: dict) -> Any:
    if obj.keys() == {"head_rows", "row_count"}:
        return HeadRows(obj["head_rows"], obj["row_count"])
    return obj


def _stamp(cache_path: Path) -> list[int]:
    """What identifies this cache file's content: its size and modification time."""
    stat = cache_path.stat()
    return [stat.st_size, stat.st_mtime_ns]
