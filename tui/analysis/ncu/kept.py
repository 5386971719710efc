"""An Nsight Compute report's summary, kept in the cache dir for the next open.

Reading a .ncu-rep (every launch's metrics, rules and SASS) takes about a second for a
report of nine launches, and `tui --summary REPORT` or `tui diff BEFORE AFTER` would read
it again each time. The summary is a pure function of the report, so it is kept as JSON
under a name made of the report's path, size and modification time and the cache version
(tui.loading.cache.cache_key) and NCU_MEMO_VERSION: a changed report or a newer tui looks
for another name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tui.analysis.ncu.summary import ncu_summary
from tui.core.db import connect
from tui.core.memo_file import MemoFile, read_first_line
from tui.loading import cache
from tui.sources.ncu.load import detect_format, load_ncu

NCU_MEMO_VERSION = "v3"  # bump when ncu_summary's keys or their meaning change; v2: a
# tensor pipe at its ceiling is the next step, a Triton kernel's language and knobs; v3:
# a compute-bound kernel without pipe figures is told to collect them


def report_summary(path: Path, with_source: bool = True,
                   use_cache: bool = True) -> dict[str, Any]:
    """The summary of one report (with its Source view where it is a .ncu-rep and
    `with_source`): kept from an earlier open where there is one, else read and kept."""
    memo = _memo_file(path, with_source) if use_cache else None
    kept = _read(memo) if memo is not None else None
    if kept is None:
        text = json.dumps(_summed_up(path, with_source))
        kept = json.loads(text)  # as it is kept: tuples as lists
        if memo is not None and cache.writable_dir(memo.parent):
            writer = MemoFile(memo, {"tui_cache_version": cache.CACHE_VERSION}, {})
            try:
                writer.write(text)
                writer.finish()
            finally:
                writer.discard()
    kept.setdefault("source", {})["path"] = str(path)
    return kept


def _summed_up(path: Path, with_source: bool) -> dict[str, Any]:
    from tui.sources.ncu.load_source import load_source

    con = connect(":memory:")
    try:
        load_ncu(path, con)  # its warnings come back inside the summary
        source = with_source and detect_format(path) == "ncu-rep"  # CSVs have no SASS
        if source:
            load_source(path, con)
        return ncu_summary(con, with_source=source)
    finally:
        con.close()


def _memo_file(path: Path, with_source: bool) -> Path | None:
    try:
        key = cache.cache_key(path)
    except OSError:
        return None
    part = "source" if with_source else "plain"
    return cache.cache_root() / f"{path.name[:40]}-{key}.ncu-{part}.{NCU_MEMO_VERSION}.json"


def _read(memo: Path) -> dict[str, Any] | None:
    try:
        with open(memo, encoding="utf-8") as kept:
            if read_first_line(kept) is None:  # cut short, or not one of ours
                return None
            summary = json.loads(kept.read())
    except (OSError, ValueError):
        return None
    return summary if isinstance(summary, dict) else None
