"""Where a run's Parquet stores may lie: a local folder, or an object-store prefix.

A location given as a URL (`s3://bucket/run42/`, `gs://…`, `az://…`: any fsspec protocol,
the store's own fsspec package installed, e.g. s3fs) becomes a universal_pathlib UPath,
which has the few Path methods the stores use (`/`, name, is_dir, is_file, iterdir,
mkdir). DuckDB reads and writes there through the same fsspec filesystem, registered on
each connection that touches it (DuckDBPyConnection.register_filesystem), so DuckDB needs
no extension of its own (httpfs) and no network at install time. Traces themselves are
read from local files only: an object store holds converted stores.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from tui.errors import TraceError

INSTALL_HINT = ("pip install 'tui[objectstore]' and the store's fsspec package "
                "(s3fs, gcsfs, adlfs)")


def location(text: str) -> Path:
    """A path from the command line: a URL (scheme://…) as a UPath, else a Path."""
    if "://" not in text:
        return Path(text)
    try:
        from upath import UPath
    except ImportError:
        raise TraceError(f"{text}: an object-store location needs universal_pathlib; "
                         f"{INSTALL_HINT}") from None
    try:
        path = UPath(text)
        path.fs  # noqa: B018 -- the store's filesystem now: a missing package said here
    except (ImportError, ValueError) as exc:
        raise TraceError(f"{text}: cannot reach it ({exc}); {INSTALL_HINT}") from None
    return path


def is_remote(path: Path) -> bool:
    """Whether `path` came from a URL (it carries its fsspec filesystem)."""
    return hasattr(path, "fs") and "://" in str(path)


def reach(con: duckdb.DuckDBPyConnection, path: Path, reading: bool = False) -> None:
    """Let DuckDB's `con` read and write where `path` lies (nothing for a local path).

    `reading`: `con` will read there, so its database runs one thread. DuckDB reads a
    file through fsspec as a seek and then a read, two calls, and two of its threads
    reading one Parquet file interleave them when the read lets the GIL go (a local file,
    s3fs): "Out of buffer", 1 run in 4 on two stores. A store's reads are then waits on
    the network, not on the cores."""
    if not is_remote(path):
        return
    fs = path.fs  # type: ignore[attr-defined]
    protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
    if protocol not in con.list_filesystems():
        con.register_filesystem(fs)
    if reading:
        con.execute("SET threads = 1")
