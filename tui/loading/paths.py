"""Which trace files a run is: the paths given, or the traces inside a directory."""

from __future__ import annotations

import re
from pathlib import Path

from tui.core.errors import TraceError
from tui.core.formats import TIMELINE_FORMATS
from tui.loading.locations import is_remote
from tui.loading.store import STORE_SUFFIX, is_parquet_store
from tui.sources.detect import detect_format


def expand_paths(paths: list[Path]) -> list[Path]:
    """Files as given; a directory gives its trace files, in natural order (rank2 < rank10).

    A directory may also hold Parquet stores (`tui convert`), or be one. Nsight Compute
    reports and files of unknown format inside a directory are skipped; `x.nsys-rep` is
    skipped when its export `x.sqlite` sits beside it.
    """
    out: list[Path] = []
    for path in paths:
        if is_remote(path):  # an object store holds converted stores, not traces
            out += [path] if is_parquet_store(path) else _stores_in(path)
        else:
            out += _traces_in(path) if path.is_dir() and not is_parquet_store(path) else [path]
    return out


def run_label(paths: list[Path]) -> str:
    """How a run is named in its summary: the path given, or the first and how many more."""
    return str(paths[0]) if len(paths) == 1 else f"{paths[0]} (+{len(paths) - 1} more)"


def _stores_in(prefix: Path) -> list[Path]:
    try:
        found = (sorted((p for p in prefix.iterdir() if is_parquet_store(p)), key=natural_key)
                 if prefix.is_dir() else [])
    except OSError as exc:  # no access: fsspec's own words
        raise TraceError(f"{prefix}: cannot be listed ({exc})") from None
    if not found:
        raise TraceError(f"{prefix}: holds no stores (folders {STORE_SUFFIX}); at a URL tui "
                         "reads the stores `tui convert TRACES --out PREFIX` wrote, not "
                         "traces (copy a trace to a local file to open it)")
    return found


def _traces_in(folder: Path) -> list[Path]:
    entries = sorted((p for p in folder.iterdir() if not p.name.startswith(".")),
                     key=natural_key)
    found = []
    for path in entries:
        if path.is_dir():
            if is_parquet_store(path):  # written by `tui convert`
                found.append(path)
            continue
        if path.suffix == ".nsys-rep" and path.with_suffix(".sqlite").is_file():
            continue
        try:
            kind = detect_format(path)
        except TraceError:
            continue
        if kind in TIMELINE_FORMATS:
            found.append(path)
    if not found:
        raise TraceError(f"{folder}: is a directory with no trace files in it (.json, "
                         ".json.gz, .sqlite, .nsys-rep); give a trace file, or the folder of "
                         "a run's traces")
    return found


def natural_key(path: Path) -> list[object]:
    """'rank10' sorts after 'rank9'."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.name)]
