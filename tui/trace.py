"""Open a trace: from the cache when it is there, else through its loader into DuckDB."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from tui import cache
from tui.db import connect, cursor
from tui.errors import TraceError
from tui.queries import load_query
from tui.sources.detect import detect_format
from tui.sources.stacks import build_stacks

TRACE_FORMATS = ("kineto", "xla", "xplane", "nsys-sqlite", "nsys-rep")
# Loaders that stage host rows with their depths already (tui/sources/xla_depth.py)
DEPTHS_STAGED = ("xla", "xplane")
# A cache file missing one of these is not trusted (see _open_cached).
CACHED_TABLES = {"trace_meta", "devices", "gpu_activities", "host_activities", "gpu_idle",
                 "python_frames", "launches", "memory_events"}


@dataclass
class Trace:
    """A loaded trace: a DuckDB connection holding the schema, and what loading said."""

    path: Path
    format: str  # 'kineto' | 'xla' | 'nsys'
    con: duckdb.DuckDBPyConnection
    warnings: list[str] = field(default_factory=list)
    from_cache: bool = False
    cache_path: Path | None = None

    def meta(self, key: str) -> str | None:
        row = self.con.execute("SELECT value FROM trace_meta WHERE key = ?", [key]).fetchone()
        return row[0] if row else None

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Trace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_trace(path: Path, use_cache: bool = True) -> Trace:
    """Load `path` (or reuse its cache). Raises TraceError with a user-facing message."""
    kind = detect_format(path)
    if kind not in TRACE_FORMATS:
        raise TraceError(f"{path}: is an Nsight Compute report, not a timeline trace")
    warnings: list[str] = []
    target = cache.cache_file(path) if use_cache else None
    if target is not None and not cache.writable_dir(target.parent):
        warnings.append(f"cache dir {target.parent} is not writable: loading into memory")
        target = None
    if target is not None and target.is_file():
        cached = _open_cached(path, target)
        if cached is not None:
            return cached
    if target is not None:
        try:
            return _build(path, kind, target, list(warnings))
        except _CacheWriteError as exc:  # e.g. a full disk or a read-only file system
            warnings.append(f"cannot write the cache in {target.parent} ({exc}): "
                            "loading into memory")
    return _build(path, kind, None, warnings)


# Cache files this process opened: DuckDB checks a block's checksum only when it reads the
# block, so a damaged cache can open fine and fail a later query (see discard_damaged_cache).
_opened_caches: set[Path] = set()


def discard_damaged_cache(exc: BaseException) -> bool:
    """If `exc` is DuckDB finding a damaged file, remove the cache files opened so far.

    True when one was removed: the caller may run again, and the trace is loaded afresh.
    """
    text = str(exc)
    if not isinstance(exc, duckdb.Error) or not (
        "Corrupt database file" in text or "checksum" in text
    ):
        return False
    removed = False
    while _opened_caches:
        with contextlib.suppress(OSError):
            _opened_caches.pop().unlink()
            removed = True
    return removed


class _CacheWriteError(Exception):
    """The cache file could not be created or completed; the trace itself is fine."""


def _build(path: Path, kind: str, target: Path | None, warnings: list[str]) -> Trace:
    """Load `path` into a new database: in memory, or built beside `target` and renamed."""
    try:
        con, partial = _new_database(target)
    except (duckdb.Error, OSError) as exc:
        raise _CacheWriteError(_first_line(exc)) from None
    try:
        warnings += _load_into(path, kind, con, target.parent if target else None)
        finalize_activities(con, depths_staged=kind in DEPTHS_STAGED)
        warnings += build_stacks(con)
        con.execute(load_query("devices_from_activities"))
        con.execute(load_query("gpu_idle"))
        con.executemany("INSERT OR REPLACE INTO trace_meta VALUES (?, ?)", [
            ("source_path", str(path.resolve())),
            ("warnings", json.dumps(warnings)),
            ("tui_cache_version", cache.CACHE_VERSION),
        ])
    except BaseException:
        con.close()
        if partial is not None:
            partial.unlink(missing_ok=True)
        raise
    fmt = _format_of(con)
    if target is None or partial is None:
        return Trace(path, fmt, con, warnings)
    try:
        con.execute("CHECKPOINT")
        con.close()
        os.replace(partial, target)  # only a complete cache file ever has the trusted name
    except (duckdb.Error, OSError) as exc:
        con.close()
        partial.unlink(missing_ok=True)
        raise _CacheWriteError(_first_line(exc)) from None
    return Trace(path, fmt, connect(str(target), read_only=True), warnings,
                 cache_path=target)


def finalize_activities(con: duckdb.DuckDBPyConnection, depths_staged: bool = False) -> None:
    """Write the rows a loader staged into gpu_activities / host_activities, numbered.

    The host rows are copied out first; then a second connection computes their depths
    and writes them while this one sorts and writes the GPU rows. Each of the two steps
    leaves a core idle part of the time (a streaming window, a positional join): side by
    side they take 0.2-0.3 s less on a 700 MB trace. A loader that staged the depths
    (`depths_staged`) has its host rows written as they are.
    """
    if depths_staged:
        con.execute(load_query("host_rows_insert"))
        con.execute(load_query("finalize_activities"))
        _drop_staging(con)
        return
    con.execute(load_query("finalize_host_rows"))
    host_writer = cursor(con)
    try:
        with ThreadPoolExecutor(1) as pool:  # on the way out, waits for the host rows
            host = pool.submit(host_writer.execute, load_query("host_depth"))
            try:
                con.execute(load_query("finalize_activities"))
            except BaseException:
                host_writer.interrupt()
                raise
            host.result()
    finally:
        host_writer.close()
    _drop_staging(con)
    con.execute("DETACH finalize")


def _drop_staging(con: duckdb.DuckDBPyConnection) -> None:
    """Drop what the loader staged (temp tables and views): only the schema is kept."""
    for kind, name in con.execute(load_query("staging_objects")).fetchall():
        con.execute(f'DROP {kind} "{name}"')


def _open_cached(path: Path, target: Path) -> Trace | None:
    """The cached database, or None when it is unreadable or from another tui version.

    Such a file (always one of ours, in the cache dir) is removed so it is built again.
    """
    con = None
    try:
        con = connect(str(target), read_only=True)
        rows = dict(con.execute("SELECT key, value FROM trace_meta").fetchall())
        tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        warnings = json.loads(rows.get("warnings") or "[]")
    except (duckdb.Error, ValueError):  # not a DuckDB file, damaged, or half-written meta
        rows, tables, warnings = {}, set(), []
    if (rows.get("tui_cache_version") != cache.CACHE_VERSION or not CACHED_TABLES <= tables
            or not isinstance(warnings, list)):
        if con is not None:
            con.close()
        with contextlib.suppress(OSError):
            target.unlink(missing_ok=True)
        return None
    assert con is not None
    _opened_caches.add(target)
    return Trace(path, rows.get("format", "?"), con, warnings, from_cache=True,
                 cache_path=target)


def _new_database(target: Path | None) -> tuple[duckdb.DuckDBPyConnection, Path | None]:
    if target is None:
        con = connect(":memory:")
        partial = None
    else:
        partial = target.with_name(f"{target.name}.partial-{os.getpid()}")
        _remove_stale_partials(target)
        partial.unlink(missing_ok=True)
        con = connect(str(partial))
    con.execute(load_query("schema"))
    con.execute(load_query("staging_tables"))
    return con, partial


def _remove_stale_partials(target: Path) -> None:
    """Partial files of loads whose process died (killed mid-load): never trusted, only litter."""
    prefix = f"{target.name}.partial-"
    for stale in target.parent.iterdir():
        pid = stale.name[len(prefix):].split(".")[0] if stale.name.startswith(prefix) else ""
        if pid.isdigit() and not _alive(int(pid)) and stale.is_file():
            stale.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process
    return True


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__


def _load_into(path: Path, kind: str, con: duckdb.DuckDBPyConnection,
               cache_dir: Path | None) -> list[str]:
    if kind == "kineto":
        from tui.sources.kineto import load_kineto

        scratch = cache_dir if cache_dir is not None else Path(tempfile.gettempdir())
        return load_kineto(path, con, scratch)
    if kind == "xla":
        from tui.sources.xla import load_xla_json

        scratch = cache_dir if cache_dir is not None else Path(tempfile.gettempdir())
        return load_xla_json(path, con, scratch)
    if kind == "xplane":
        from tui.sources.xla import load_xplane

        return load_xplane(path, con)
    from tui.sources.nsys_sqlite import load_nsys_sqlite

    if kind == "nsys-rep":
        from tui.sources.nsys_rep import export_to_sqlite

        if cache_dir is not None:
            return load_nsys_sqlite(export_to_sqlite(path, cache_dir), con)
        # No cache: export into a private directory that goes away after loading (a fixed
        # name in the shared temp dir could be planted by another user, or pile up).
        with tempfile.TemporaryDirectory(prefix="tui-nsys-") as tmp:
            return load_nsys_sqlite(export_to_sqlite(path, Path(tmp)), con)
    return load_nsys_sqlite(path, con)


def _format_of(con: duckdb.DuckDBPyConnection) -> str:
    row = con.execute("SELECT value FROM trace_meta WHERE key = 'format'").fetchone()
    if row is None:
        raise TraceError("internal: the loader recorded no format")
    return row[0]
