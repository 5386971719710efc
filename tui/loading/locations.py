"""Where a run's Parquet stores may lie: a local folder, or an object-store prefix.

A location given as a URL (`s3://bucket/run42/`, `gs://…`, `az://…`: any fsspec protocol,
the store's own fsspec package installed, e.g. s3fs) becomes a universal_pathlib UPath,
which has the few Path methods the stores use (`/`, name, is_dir, is_file, iterdir,
mkdir). fsspec moves whole files: a store is written locally and uploaded, and a store
to read is fetched into the run's scratch folder first, so DuckDB reads local files
only. (DuckDB can read through a registered fsspec filesystem, but it reads a file there
as a seek and then a read, and its readers then got short or wrong bytes: 'Out of
buffer', 'Failed to read … only 8506 bytes returned', in 2 to 4 runs of 6 over 16 stores,
even on one thread.) Traces themselves are read from local files only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tui.core.errors import TraceError

INSTALL_HINT = ("pip install 'gpu-trace-tui[objectstore]' and the store's fsspec package "
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
    return path  # type: ignore[return-value]  # a UPath: not a Path subclass, has its API


def _filesystem(path: Path) -> Any:
    """The fsspec filesystem of a path from a URL (a UPath, typed Path as `location` says)."""
    return path.fs  # type: ignore[attr-defined]  # a UPath's; see location()


def is_remote(path: Path) -> bool:
    """Whether `path` came from a URL (it carries its fsspec filesystem)."""
    return hasattr(path, "fs") and "://" in str(path)


def upload(local: Path, remote: Path) -> None:
    """Copy the files of the local folder `local` into the prefix `remote`. An object
    appears only once it is whole: a reader never sees a half-written table."""
    try:
        remote.mkdir(parents=True, exist_ok=True)  # a folder on some stores, on others none
        _filesystem(remote).put([str(f) for f in sorted(local.iterdir())],
                                str(remote).rstrip("/") + "/")
    except OSError as exc:
        raise TraceError(f"{remote}: cannot be written ({exc})") from None


def fetch(remote: Path, into: Path) -> Path:
    """Copy the store at the prefix `remote` into a new folder under `into`; returns it."""
    import uuid  # here: its import costs a warm summary 30 ms

    local = into / f"fetched-{uuid.uuid4().hex}" / remote.name
    local.mkdir(parents=True)
    try:
        _filesystem(remote).get([str(f) for f in remote.iterdir()],
                                str(local) + "/")
    except OSError as exc:
        raise TraceError(f"{remote}: cannot be read ({exc})") from None
    return local
